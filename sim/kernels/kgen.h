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
    /* the VPU epilogue (bf16 and w8 only): Y = relu(X . W + bias) */
    int bias;                    /* add a bias vector of N fp32, one per column */
    int relu;                    /* then max(y, +0) */
    int out_bf16;                /* Y rounded to bf16 by the epilogue (a chain's intermediate) */
    /* a chain's intermediates kept in VMEM (kgen_chain.c): X is already in
     * VMEM laid out by the producer's column groups; Y's epilogue writes it
     * there for the next layer, no write-back DMA */
    int xres, yres;
    uint64_t x_tn, x_gstride, x_vmem;   /* xres: X's column groups of x_tn, x_gstride apart from x_vmem */
    uint64_t y_gstride, y_vmem;         /* yres: Y's groups of tn columns, y_gstride apart from y_vmem */
} kgen_gemm_opts;

/* Epilogue bits of a plan (kgen_plan.epi) */
enum { KGEN_EPI_BIAS = 1, KGEN_EPI_RELU = 2, KGEN_EPI_BF16 = 8 };

/* The im2col loader of a convolution lowered to a GEMM (kgen_conv.c):
 * each output image row's im2col rows are built in VMEM by DMAs from the
 * NHWC input in HBM, taps outside the input from a zero region. */
typedef struct {
    uint64_t ow_start, count;    /* output pixels [ow_start, +count) of the image row */
    uint64_t col;                /* byte offset in an im2col row */
    int64_t src;                 /* byte offset of the first source pixel from the row's base */
    uint64_t bytes;              /* bytes per pixel */
} kgen_seg;

#define KGEN_MAX_SEGS 64
typedef struct {
    int on;
    uint64_t nb, h, w, c, f, r, s, stride, pad, groups, oh, ow;
    uint64_t cg, fg;             /* channels and filters per group */
    uint64_t g;                  /* the group this GEMM computes */
    uint64_t tmq, tmq_last;      /* output image rows per M-tile, in the last */
    unsigned nseg;               /* DMAs per (image row, filter row r) */
    kgen_seg seg[KGEN_MAX_SEGS];
    uint64_t h_in, h_zero;       /* the input (this group's channels) and a zero region in HBM */
    uint64_t dmas_row;           /* DMAs per output image row: r * nseg */
} kgen_conv_lower;

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

    /* Added for the epilogue, convolutions and chains; all zero in a plain
     * GEMM, whose program they do not change. */
    unsigned epi;                /* KGEN_EPI_*: the VPU's work on each Y set */
    uint64_t sl;                 /* VPU elements per vector register (S x L) */
    uint64_t epi_p;              /* vectors in a bias pattern (lcm(tn, S x L) / S x L) */
    uint64_t epi_u;              /* vectors per batch of the epilogue loop */
    uint64_t epi_at;             /* the K-tile of a group before which the previous goes back */
    uint64_t v_b, pat_bytes;     /* the bias patterns in VMEM (one per group) */
    uint64_t h_b;                /* the bias in HBM: groups x tn fp32 */
    uint64_t y_pitch;            /* HBM bytes from a row of Y to the next (0: np * 4) */
    uint64_t y_cols_last;        /* columns of the last group written back (0: last_tiles * N) */
    kgen_conv_lower cv;          /* the im2col loader when cv.on */
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

/* ---- layers beyond one GEMM (kgen_conv.c, kgen_vpu.c, kgen_chain.c) ---- */

/* A 2-D convolution (NHWC activations, HWIO filters, bf16 in, fp32 out). */
typedef struct {
    uint64_t nb, h, w, c, f, r, s, stride, pad, groups;
    int bias, relu, timing_only;
    int engine;                  /* 0: the planner chooses, 1: MXU (im2col GEMM), 2: VPU */
    uint64_t tile_m, tile_n, tile_k;   /* the GEMM's options (MXU path) */
} kgen_conv_opts;

/* A planned convolution: the GEMM plan of each group (MXU path) or the
 * VPU plan (depthwise), the HBM layout and the predicted cycles. */
typedef struct {
    kgen_conv_opts o;
    uint64_t oh, ow, pixels;
    int vpu;                     /* 1: depthwise on the VPU */
    kgen_plan gemm;              /* group 0's GEMM (MXU path); the others differ in addresses */
    /* VPU path */
    uint64_t sl, rows_per_tile, tiles, vec_tile, u, period;
    uint64_t v_tap, tap_bytes, v_w, v_acc, v_bias, w_pat_bytes;
    /* HBM */
    uint64_t h_x, h_w, h_b, h_zero, h_y, hbm_need, vmem_need;
    uint64_t x_bytes, w_bytes, y_bytes;
    double efficiency;
    kgen_cost cost;
} kgen_conv_plan;

int kgen_conv_plan_make(const tpu_config *cfg, const kgen_conv_opts *o, kgen_conv_plan *p,
                        char *err, size_t errlen);
long kgen_conv_emit(FILE *f, const char *config_name, const tpu_config *cfg,
                    const kgen_conv_plan *p);

/* Pooling (max, avg) and elementwise layers on the VPU, fp32 NHWC. */
typedef enum { KGEN_POOL_MAX = 0, KGEN_POOL_AVG = 1 } kgen_pool_mode;
typedef enum { KGEN_ELT_ADD, KGEN_ELT_RELU, KGEN_ELT_ADD_RELU, KGEN_ELT_MAX, KGEN_ELT_MUL } kgen_elt_op;
typedef struct {
    int pool;                    /* 1: pooling, 0: elementwise */
    kgen_pool_mode mode;
    kgen_elt_op op;
    uint64_t nb, h, w, c, r, s, stride, pad;   /* pooling window; elementwise: nb*h*w*c elements */
    int timing_only;
} kgen_vpu_opts;

typedef struct {
    kgen_vpu_opts o;
    uint64_t oh, ow, pixels, elems;
    uint64_t sl, u, rows_per_tile, tiles, vec_tile, tile_bytes_in, tile_bytes_out;
    uint64_t v_in[2], v_out[2], v_tap, tap_bytes, vmem_need;
    uint64_t h_x, h_x2, h_pad, h_y, hbm_need;
    kgen_cost cost;
} kgen_vpu_plan;

int kgen_vpu_plan_make(const tpu_config *cfg, const kgen_vpu_opts *o, kgen_vpu_plan *p,
                       char *err, size_t errlen);
long kgen_vpu_emit(FILE *f, const char *config_name, const tpu_config *cfg,
                   const kgen_vpu_plan *p);

/* A chain of GEMMs (an MLP): Y = relu?(...relu?(X W1 + b1)... Wn + bn).
 * Intermediates are bf16, written by each layer's epilogue: in VMEM when
 * they all fit beside the layers' working sets (laid out by the producer's
 * column groups, read in place by the next layer's streams), else in HBM. */
#define KGEN_MAX_LAYERS 16
typedef struct {
    uint64_t m;
    unsigned nlayers;
    uint64_t dims[KGEN_MAX_LAYERS + 1];
    int bias, relu, timing_only;
    int via_hbm;                 /* keep every intermediate in HBM even when VMEM has room */
    int resident;                /* (out) the intermediates stay in VMEM */
    uint64_t h_vmem[KGEN_MAX_LAYERS], h_gstride[KGEN_MAX_LAYERS], h_bytes[KGEN_MAX_LAYERS];
    uint64_t reserve;            /* VMEM bytes the resident intermediates take (at its top) */
    kgen_plan layer[KGEN_MAX_LAYERS];
    kgen_cost cost[KGEN_MAX_LAYERS];
    uint64_t hbm_need;
    double predicted;
} kgen_chain;

int kgen_chain_plan(const tpu_config *cfg, kgen_chain *c, char *err, size_t errlen);
long kgen_chain_emit(FILE *f, const char *config_name, const tpu_config *cfg,
                     const kgen_chain *c);

/* A whole-number option of tpu-gen's commands (kgen_args.c): decimal digits
 * only, at most 2^40, zero only when zero_ok.  0, or 2 after one
 * "tpu-gen: error: OPT ..." line. */
int kgen_parse_count(const char *opt, const char *s, uint64_t *out, int zero_ok);

/* The program writer of tpu-gen's commands (kgen_out.c): open OUT (standard
 * output when NULL), let EMIT write the program to it, close it, and check
 * that the program fits the machine's IMEM.  Returns the number of
 * instructions, or -1 after "cannot write" (the command exits 1), or -2
 * after "the program has N instructions, IMEM holds M" (exit 2). */
typedef long (*kgen_emit_fn)(FILE *f, const void *ctx);
long kgen_write_program(const char *out, const tpu_config *cfg, kgen_emit_fn emit, const void *ctx);

/* --ref of tpu-gen's commands (kgen_out.c): v, [rows][cols] fp32 bit
 * patterns, as a .npy at path.  0, or 1 after "tpu-gen: error: --ref PATH:
 * ...". */
int kgen_write_ref(const char *path, const uint32_t *v, uint64_t rows, uint64_t cols);

#endif
