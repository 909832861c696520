/*
 * vcd.h - the C model's unit-level signals as a Value Change Dump, for
 * GTKWave: `tpu-sim --vcd out.vcd`.
 *
 * The scopes and signal names are the RTL's (rtl/core.v and the modules it
 * instantiates, as Verilator names them), so a C-model dump and an RTL dump
 * can be read with the same saved view (sim/gtkwave/):
 *   TOP.clk_i
 *   TOP.core.{tr_issue_o, tr_pc_o, tr_word_o, tr_stall_o, unit_busy,
 *             halted_o, error_o, stuck_o}
 *   TOP.core.u_seq.{pc_q, halted_q, issue, sem_q[i]}
 *   TOP.core.u_seq.u_q_{dma,ici,vpu}.count_q,
 *   TOP.core.u_seq.g_mxu_q[m].g_used.u_q_mxu.count_q
 *   TOP.core.u_dma.{busy_o, pop_o, state_q[e], left_q[e]}
 *   TOP.core.g_mxu[m].u_mxu.{busy_o, lw_reading_q, streaming_q, pending_q,
 *             s_left_q, we_o}
 *   TOP.core.u_vpu.{busy_o, pop_o}    TOP.core.u_ici.{busy_o, sending_q}
 *   TOP.core.cmodel.<unit>_stall      (C model only: stall reason + 1)
 * With several cores, core k is TOP.system.g_core[k].u_core (the RTL's
 * two-core system; "system" for other counts).
 *
 * Time: `$timescale 1ns`, 10 units per cycle whatever clock_hz says: cycle t
 * begins at time 10t with the rising edge of clk_i (falling edge at
 * 10t + 5).  At 10t, registers (`*_q`, counts, busy_o, unit_busy) show
 * their values at the start of cycle t, and the per-cycle outputs
 * (tr_issue_o, tr_stall_o, pop_o, we_o, the stalls) what happened in
 * cycle t, as an RTL dump sampled after the rising edge shows them
 * (docs/timeline.md).
 * Dumping stops after max_cycles cycles (default 1,000,000) so that a long
 * run cannot fill the disk; the file then ends with a $comment saying so.
 */
#ifndef TPU_VCD_H
#define TPU_VCD_H

#include <stddef.h>
#include <stdint.h>

#include "tpu.h"

#define TPU_VCD_DEFAULT_MAX_CYCLES 1000000

typedef struct tpu_vcd tpu_vcd;

typedef struct tpu_vcd_opts {
    uint64_t max_cycles;    /* cycles dumped (0: the default) */
} tpu_vcd_opts;

/* Create `path`, write the header and the values at the start of the
 * current cycle, and start listening to s's events.  Call it after
 * tpu_system_load and before the first step.  opts may be NULL. */
tpu_vcd *tpu_vcd_open(const char *path, tpu_system *s, const tpu_vcd_opts *opts, char *err,
                      size_t errlen);

/* Call after every tpu_system_step (tpu_trace_run does). */
void tpu_vcd_cycle(tpu_vcd *v);

/* Finish and close the file; events after this are ignored.  -1 and a
 * message when writing failed. */
int tpu_vcd_close(tpu_vcd *v, char *err, size_t errlen);

/* 1 when dumping stopped at max_cycles. */
int tpu_vcd_truncated(const tpu_vcd *v);

/* Free it, after tpu_system_destroy (the system holds the subscription). */
void tpu_vcd_free(tpu_vcd *v);

#endif /* TPU_VCD_H */
