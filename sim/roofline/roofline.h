/*
 * roofline.h - the inside of tpu-roofline (sim/tpu_roofline.c is its command
 * line and its plan of runs), shared by its files here:
 *   roofline_plan.c      the machine's numbers and the arithmetic that sizes runs
 *   roofline_run.c       running the points, a few at a time in child processes
 *   roofline_analysis.c  bounds, fits, the measured crossovers and ridge
 *   roofline_output.c    the CSV, the summary, the gnuplot script, the report
 *   sweep.c              one run: assemble, load, run, check (sweep.h)
 */
#ifndef TPU_ROOFLINE_H
#define TPU_ROOFLINE_H

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "asm.h"
#include "config.h"
#include "interrupt.h"
#include "progress.h"
#include "report.h"
#include "sweep.h"
#include "tpu.h"

enum { EXIT_OK = 0, EXIT_FAILED = 1, EXIT_USAGE = 2, EXIT_FILES = 3 };

#define MAX_SETS   256
#define MAX_POINTS 64
/* A run's fixed start and end cost (HBM latency, pipeline fill and drain)
 * is kept under 1/OVERHEAD_FACTOR of its length by repeating it (REPS). */
#define OVERHEAD_FACTOR 40.0
#define MAX_REPS 256
/* ... but a run is kept under about this many cycles: a slow HBM makes
 * every run long (hbm_bw = 1e6 on tiny: 0.001 bytes per cycle), so then
 * D, the batches and the pointwise chunks are chosen small enough, REPS
 * is cut and the fixed cost is a larger share.  The default runs of tiny
 * and v5e stay far below it (at most 1e5 and 6e5 cycles). */
#define POINT_CYCLES 2e6
/* A sweep estimated at more CPU seconds than this (all jobs together)
 * says so before it starts.  The estimate, measured on a 2-CPU x86
 * machine with the fused MXU kernels (rough, and only for the note):
 * 5e-8 s a cycle, 5e-11 s per MXU cell in a cycle the MXUs work, 8e-9 s
 * per VPU lane in a cycle the VPU works (v5e's default sweep: 13.5 s of
 * CPU for 4.9e6 cycles, estimated 14 s; TPU_ROOFLINE_ESTIMATE=1 prints
 * the estimate). */
#define NOTE_SECONDS 20.0
#define CPU_CYCLE 5e-8
#define CPU_MXU_CELL 5e-11
#define CPU_VPU_LANE 8e-9
/* Points within this factor of a side's bound take part in that side's fit. */
#define SIDE_MARGIN 1.1

enum series { S_HBM, S_VMEM, S_ADD, S_MUL, S_RELU, S_COUNT };
/* The matmul's numbers (matmul_sweep.s MODE, docs/roofline.md "int8"). */
enum rl_mode { RL_BF16, RL_INT8, RL_W8 };
extern const char *const rl_mode_name[3];         /* "bf16", "int8", "w8" */
extern const char *const series_key[S_COUNT];    /* roofline_output.c */
extern const char *const series_title[S_COUNT];

/* What a child process sends back for one point. */
typedef struct outcome {
    int assembled, ok;
    int done;                           /* the point ran (not skipped by Ctrl-C) */
    char error[512];
    uint64_t ntext, cycles;
    tpu_stats stats;
} outcome;

typedef struct point {
    int series;
    int64_t b, reps, nchunk;
    double est;                         /* estimated cycles (plan) */
    double cpu;                         /* estimated CPU seconds (plan, the note) */
    outcome out;
    /* derived */
    double flops, hbm_bytes, wbytes;    /* wbytes: weight bytes the MXUs read from VMEM */
    double t_math, t_hbm, t_w, bound;   /* cycles */
    const char *bound_name;
    double x, y;                        /* intensity on the plot, FLOP/cycle */
    double pct;                         /* cycles as % of bound */
} point;

typedef struct options {
    const char *config;
    const char *sets[MAX_SETS];
    unsigned nsets;
    const char *out, *img, *programs;
    int64_t d, f, reps, chunks;
    const char *batches, *vmem_batches;
    int mode;                           /* --mode: -1 the machine's default, else enum rl_mode */
    int xy;                             /* --xy-vmem: X and Y in VMEM, only W crosses HBM */
    unsigned jobs;
    int no_plot, quiet;
} options;

typedef struct sweep {
    tpu_config cfg;
    const options *o;
    int64_t d, f;
    char *src[2];                       /* matmul_sweep.s, pointwise.s */
    size_t len[2];
    char path[2][1024];
    point pts[MAX_POINTS];
    size_t npts;
    /* the matmul: its numbers (enum rl_mode), X and Y in VMEM (--xy-vmem) */
    int mode, xy;
    double ex, ew, kt;                  /* HBM bytes of an X and of a W element; K per tile */
    /* machine numbers (peak: of the mode, OPs per cycle; int8 is twice bf16) */
    double n, nm, wl, peak, bw, vmem_bw, wl_bw, lat;
    int64_t dmab;                       /* bytes per DMA the matmul aims at */
} sweep;

/* What the analysis finds (roofline_analysis.c). */
typedef struct summary {
    double cross_pred, cross_meas, vcross_pred, vcross_meas, vint_pred, vint_meas;
    int cross_left, cross_right, cross_other, vcross_left, vcross_right, vcross_hbm;
    int cross_near, vcross_near;        /* runs within SIDE_MARGIN of both bounds */
    double peak_meas, bw_meas, ridge_meas;
    double worst_pct;
    const point *worst;
    int failures;
} summary;

/* ---- shared between the files (rl_ prefix: they are extern) ---- */
/* roofline_plan.c */ void rl_machine(sweep *sw);
/* roofline_plan.c */ double rl_predicted_crossover(const sweep *sw);
/* roofline_plan.c */ double rl_matmul_vmem_need(const sweep *sw, double b, int wvmem, double reps);
/* roofline_plan.c */ double rl_matmul_cost(const sweep *sw, double b, int wvmem, double *over);
/* roofline_plan.c */ int64_t rl_matmul_reps(const sweep *sw, double b, int wvmem);
/* roofline_plan.c */ int64_t rl_pointwise_ch(const sweep *sw);
/* roofline_plan.c */ double rl_pointwise_cost(const sweep *sw, int op, double *over);
/* roofline_plan.c */ int64_t rl_pointwise_chunks(const sweep *sw, int op);
/* roofline_plan.c */ double rl_top_batch(const sweep *sw);
/* roofline_plan.c */ void rl_default_dim(sweep *sw);
/* roofline_run.c */ void rl_run_all(sweep *sw, unsigned jobs);
/* roofline_analysis.c */ void rl_analyse(sweep *sw, summary *s);
/* roofline_output.c */ int rl_write_csv(const sweep *sw, const char *path);
/* roofline_output.c */ int rl_write_summary(const sweep *sw, const summary *s, const char *path);
/* roofline_output.c */ int rl_write_gp(const sweep *sw, const summary *s, const char *path, const char *csv, const char *png, const char *svg);
/* roofline_output.c */ int rl_run_gnuplot(const char *script);
/* roofline_output.c */ void rl_print_report(const sweep *sw, const summary *s, FILE *out, int quiet);

#endif /* TPU_ROOFLINE_H */
