/*
 * report.h - the run report of tpu-sim (text and JSON) and its roofline
 * arithmetic, shared with the other front ends (stepper, roofline sweep).
 *
 * The report is computed from a tpu_stats per core and the config alone,
 * so it can be tested with hand-filled numbers and no model.  Unit and
 * stall-reason names come through function pointers for the same reason.
 * docs/tpu-sim.md explains every line and the verdict rules.
 */
#ifndef TPU_REPORT_H
#define TPU_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "config.h"
#include "expect.h"
#include "tpu.h"

/* A run within this factor of its roofline bound gets the bound's name;
 * a slower run is "neither". */
#define TPU_ROOFLINE_SLACK 1.25

enum tpu_bound { TPU_BOUND_COMPUTE, TPU_BOUND_MEMORY, TPU_BOUND_NEITHER, TPU_BOUND_ICI };

/* The roofline of one core (or of a system: see tpu_roofline_system). */
typedef struct tpu_roofline {
    double peak_flops_per_cycle;  /* MXU peak: ncores * num_mxu * 2 * N * N */
    double hbm_bw_per_cycle;      /* ncores * hbm_bw / clock_hz */
    double vpu_peak_per_cycle;    /* ncores * vpu_sublanes * vpu_lanes */
    double flops_per_cycle;       /* achieved by the MXUs: MXU FLOPs / cycles */
    double vpu_flops_per_cycle;   /* achieved by the VPU */
    double hbm_bytes_per_cycle;   /* achieved: HBM bytes / cycles */
    double intensity;             /* FLOPs per HBM byte; -1 when no HBM bytes */
    double ridge;                 /* intensity where T_math = T_memory at peak */
    double t_math_mxu;            /* MXU FLOPs / MXU peak */
    double t_math_vpu;            /* VPU FLOPs / (vpu_sublanes * vpu_lanes) per cycle */
    double t_math, t_memory;      /* cycles: max of the two above; HBM bytes / bandwidth */
    double ici_bw_per_cycle;      /* one link, one direction: ici_bw / clock_hz */
    double t_ici;                 /* cycles: the busiest link's bytes / ici_bw_per_cycle (0
                                   * without ICI traffic) */
    double roofline_cycles;       /* max(t_math, t_memory, t_ici) */
    double pct;                   /* cycles as a percentage of roofline_cycles; 0 if none */
    enum tpu_bound bound;
    char why[256];                /* the reason for the verdict, one phrase */
} tpu_roofline;

/* Names of units and stall reasons (tpu_unit_id_name, tpu_stall_reason_name
 * in the model; tests pass their own). */
typedef const char *(*tpu_unit_name_fn)(enum tpu_unit_id u);
typedef const char *(*tpu_reason_name_fn)(enum tpu_unit_id u, unsigned i);

/* Everything the report shows. */
typedef struct tpu_report {
    const char *program;          /* object file name, or NULL */
    const tpu_config *cfg;
    const char *topology;         /* "single", "ring", "torus2d 2x2", ... */
    unsigned ncores;
    const tpu_stats *core;        /* ncores entries */
    uint64_t cycles;              /* system cycles of the run */
    enum tpu_stop stop;
    int interrupted;              /* stopped by Ctrl-C (stop is TPU_STOP_BREAK) */
    const char *error;            /* the run-time error line, or NULL / "" */
    int checked;                  /* 1: `expect` holds the result check */
    tpu_expect_result expect;
    tpu_unit_name_fn unit_name;
    tpu_reason_name_fn reason_name;   /* may be NULL: reasons print as "reason N" */
} tpu_report;

/* The energy of a run from its counted actions and the config's energies
 * per action (the e_*_pj keys; docs/tpu-sim.md, "Energy"), in picojoules:
 *   mac  = bf16 MACs * e_mac_bf16_pj + int8 MACs * e_mac_int8_pj
 *   vpu  = VPU FLOPs (elements) * e_vpu_pj
 *   vmem = VMEM bytes read * e_vmem_read_pj + written * e_vmem_write_pj
 *   hbm  = HBM bytes read and written * e_hbm_pj
 *   ici  = ICI bytes sent * e_ici_pj
 *   idle = core_cycles * e_idle_pj (static energy: every cycle of every core)
 * An observation only: nothing in the model's timing depends on it. */
typedef struct tpu_energy {
    double mac_pj, vpu_pj, vmem_pj, hbm_pj, ici_pj, idle_pj;
    double total_pj;
} tpu_energy;
void tpu_energy_of(const tpu_config *cfg, const tpu_stats *st, double core_cycles,
                   tpu_energy *e);

/* Roofline and verdict of one core's stats (its cycles in st->cycles). */
void tpu_roofline_core(const tpu_config *cfg, const tpu_stats *st, tpu_roofline *r);

/* Of a whole system: the cores run in parallel, each with its own MXUs and
 * HBM, so the bound is the largest core's bound; peaks are summed. */
void tpu_roofline_system(const tpu_config *cfg, const tpu_stats *core, unsigned ncores,
                         uint64_t cycles, tpu_roofline *r);

/* Sum of the cores' stats (cycles: the given system cycles). */
void tpu_report_total(const tpu_stats *core, unsigned ncores, uint64_t cycles, tpu_stats *total);

const char *tpu_bound_name(enum tpu_bound b);     /* "compute-bound", ... */

/* The one-line result: "bit-exact", "MISMATCH in ...", ... */
void tpu_report_result_line(const tpu_report *r, char *buf, size_t len);
/* Its JSON key: "bit-exact", "mismatch", "none", "error", "not-checked". */
const char *tpu_report_result_key(const tpu_report *r);

void tpu_report_text(FILE *out, const tpu_report *r);
void tpu_report_json(FILE *out, const tpu_report *r);

#endif /* TPU_REPORT_H */
