/*
 * core.h - one core: the sequencer and the units it drives, wired together
 * (docs/architecture.md has the block diagram, rtl/core.v is the same
 * wiring in Verilog).
 *
 * A cycle is computed in two halves.  tpu_core_compute() lets every unit
 * compute its next state from the current registers, in the VMEM priority
 * order of docs/timing.md section 2: sequencer (it only looks at registers
 * and stages what it pushes), incoming ICI, MXU 0..3, VPU, DMA, outgoing ICI.
 * tpu_core_commit() then makes the cycle's effects visible: memory writes,
 * vector results, the staged dispatch, semaphore changes.  A system steps
 * all its cores' compute halves, then all their commit halves, so a core
 * never sees another core's work of the same cycle either.
 */
#ifndef TPU_CORE_H
#define TPU_CORE_H

#include <stddef.h>
#include <stdint.h>

#include "dma.h"
#include "events.h"
#include "hbm.h"
#include "ici.h"
#include "mxu.h"
#include "seq.h"
#include "tpu.h"
#include "vmem.h"
#include "vpu.h"
#include "xlu.h"

struct tpu_core {
    unsigned id;
    const tpu_config *cfg;
    const uint64_t *cycle;  /* the system's clock: the cycle being computed */
    uint64_t own_clock;     /* the clock `cycle` points at while the cores of a system
                             * run apart on host threads (parallel.c) */
    tpu_evsrc ev;

    tpu_seq  seq;
    tpu_vmem vmem;
    tpu_hbm  hbm;
    tpu_dma  dma;
    tpu_mxu  mxu[TPU_MAX_MXUS];
    unsigned nmxu;
    tpu_vpu  vpu;
    tpu_xlu  xlu;
    tpu_ici  ici;
    tpu_sem_inc sems;       /* increments of the current cycle (T9) */
    tpu_seq_env env;        /* what the sequencer sees; t and idle change per cycle */

    uint32_t busy;          /* bit per tpu_unit_id: busy at the start of the cycle (T7) */
    int      stuck;         /* this cycle: stalled on sem.wait with every unit idle (T10) */
    uint64_t halt_cycle;    /* the cycle halt issued in */
    int      halted;

    tpu_stats st;
    int      error;
    char     errmsg[512];
};

/* NULL and a message when out of memory. */
tpu_core *tpu_core_create(const tpu_config *cfg, unsigned id, const uint64_t *cycle,
                          tpu_event_bus *bus, char *err, size_t errlen);
void tpu_core_destroy(tpu_core *c);

void tpu_core_compute(tpu_core *c);
void tpu_core_commit(tpu_core *c);

/* Stop the core with a run-time error: "core K: cycle T: pc P (insn):
 * reason".  Keeps the first error. */
void tpu_core_fail(tpu_core *c, const char *reason);
/* The same line without stopping the core (the cycle limit). */
void tpu_core_describe(tpu_core *c, const char *reason, char *buf, size_t len);

/* The system has wired (or not) the ICI ports: tell the sequencer. */
void tpu_core_ports_wired(tpu_core *c);

/* Put instruction words at IMEM address 0.. (loading). */
int tpu_core_load_text(tpu_core *c, const uint64_t *words, size_t n);

#endif /* TPU_CORE_H */
