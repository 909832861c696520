/*
 * kgen.h - the kernel generator behind tpu-gen: it turns a GEMM's shape and
 * a machine (a tpu_config) into a plan (tile sizes, VMEM and HBM layout),
 * predicts the plan's cycles, and writes the plan as assembly that tpu-as
 * assembles and tpu-sim runs (docs/workloads.md).
 *
 * Three jobs, three files: kgen_gemm.c plans, kgen_cost.c predicts,
 * kgen_emit.c writes the program.  Nothing here runs the model.
 */
#ifndef TPU_KGEN_H
#define TPU_KGEN_H

#include <stdint.h>
#include <stdio.h>

#include "config.h"

typedef enum {
    KGEN_BF16,   /* bf16 X, bf16 W, fp32 Y */
    KGEN_INT8,   /* int8 X, int8 W (K-pair-interleaved), int32 Y */
    KGEN_W8      /* bf16 X, int8 W widened to bf16 by the DMA, fp32 Y */
} kgen_dtype;

/* What the user asked for.  A tile of 0 means "let the planner choose". */
typedef struct {
    uint64_t m, n, k;            /* Y[M,N] = X[M,K] . W[K,N] */
    kgen_dtype dtype;
    int timing_only;             /* no data, no .expect: zeros, for timing */
    uint64_t tile_m;             /* rows of X per M-tile */
    uint64_t tile_n;             /* columns per group: a multiple of N, <= N*num_mxu */
    uint64_t tile_k;             /* rows of K per W block DMA: a multiple of the K-tile */
} kgen_gemm_opts;

/* The plan: every number the emitter and the cost model need.  Sizes in
 * bytes unless the name says otherwise. */
typedef struct {
    kgen_gemm_opts o;

    /* the machine */
    uint64_t n_mxu;              /* N, the array size */
    uint64_t mxus;               /* MXUs used: tile_n / N */
    uint64_t wloads;             /* W, weight loads in flight */

    /* the padded shape: M is not padded (a stream takes any row count) */
    uint64_t kq;                 /* K per K-tile: N (bf16, w8) or 2N (int8) */
    uint64_t kp, np;             /* K padded to kq, N padded to N */
    uint64_t kt;                 /* K-tiles: kp / kq */
    uint64_t nt;                 /* column tiles: np / N */
    uint64_t tn;                 /* columns per group: mxus * N */
    uint64_t groups;             /* ceil(nt / mxus) */
    uint64_t last_tiles;         /* column tiles in the last group (1..mxus) */
    uint64_t tm, mtiles, tm_last;/* rows per M-tile, M-tiles, rows of the last */
    uint64_t kb;                 /* K-tiles per W block (divides kt) */
    uint64_t kblocks;            /* W blocks per group: kt / kb */
    uint64_t blocks;             /* W blocks in all: mtiles * groups * kblocks */
    unsigned ring;               /* W block slots in VMEM */
    unsigned xbufs;              /* X tile buffers: 2 overlaps the next tile's load */
    uint64_t xcr, xch;           /* an X tile loads in xch DMAs of xcr rows (some may be empty) */
    double efficiency;           /* useful MACs / padded MACs */

    /* bytes */
    uint64_t x_row;              /* a row of X, in HBM and VMEM */
    uint64_t w_row_hbm;          /* a row (int8: pair-row) of W in HBM */
    uint64_t slot_row;           /* a row of a W slot in VMEM: 2 * tn */
    uint64_t slot_bytes;         /* kb * N rows */
    uint64_t y_row;              /* a row of a Y set: 4 * tn */
    uint64_t x_tile;             /* tm * x_row */
    uint64_t y_set;              /* tm * y_row */

    /* VMEM layout */
    uint64_t v_x[2], v_slots, v_y[2], vmem_need;
    /* HBM layout */
    uint64_t h_x, h_w, h_y, hbm_need;
    uint64_t x_bytes, w_bytes, y_bytes;
} kgen_plan;

/* The cost model's answer, in cycles. */
typedef struct {
    double t_math;               /* MXU rows streamed (per MXU), at one row a cycle */
    double t_memory;             /* HBM bytes / HBM bytes per cycle, and DMA latency */
    double t_issue;              /* sequencer: instructions issued, one a cycle */
    double fill, drain;          /* before the first stream, after the last */
    double predicted;            /* fill + sum over steps of the largest term + drain */
    const char *bound;           /* "compute", "memory" or "issue" */
    uint64_t hbm_bytes;          /* bytes moved between HBM and VMEM */
    uint64_t flops;              /* 2 * rows * N * N per stream, as tpu-sim counts */
} kgen_cost;

/* Plan a GEMM for the machine.  Returns 0, or -1 with a message (no
 * "error:" prefix) in err: a tiling option that cannot work, or a shape
 * whose data does not fit the machine's HBM or VMEM. */
int kgen_gemm_plan(const tpu_config *cfg, const kgen_gemm_opts *o, kgen_plan *p,
                   char *err, size_t errlen);

/* Predict the plan's cycles on the machine (kgen_cost.c). */
void kgen_gemm_cost(const tpu_config *cfg, const kgen_plan *p, kgen_cost *c);

/* Write the plan as assembly to f (kgen_emit.c).  Returns the number of
 * instructions written, or -1 on a write error. */
long kgen_gemm_emit(FILE *f, const char *config_name, const tpu_config *cfg,
                    const kgen_plan *p, const kgen_cost *c);

const char *kgen_dtype_name(kgen_dtype d);

#endif
