/*
 * kgen_nn.h - tpu-gen's transformer layers on the VPU (kgen_nn.c,
 * docs/transformers.md): softmax, layernorm, RMSnorm, GELU and SiLU over
 * an N x C activation stored feature-major ("a row per lane": column c of
 * all N rows is a run of N fp32), so that each row's reduction over its C
 * values is a chain of elementwise vector operations, no cross-lane one.
 */
#ifndef TPU_KGEN_NN_H
#define TPU_KGEN_NN_H

#include <stdint.h>
#include <stdio.h>

#include "config.h"
#include "kgen.h"
#include "kgen_impl.h"
#include "ref_nn.h"

typedef struct {
    tpu_nn_op op;
    uint64_t n, c;               /* N rows (tokens) of C values (features) */
    uint32_t eps, scale;         /* fp32 bit patterns: the norms' epsilon, softmax's scale */
    uint64_t tile_rows;          /* rows per tile: a multiple of the vector's S x L (0: choose) */
    int timing_only;             /* no data, no .expect */
    int out_bf16;                /* Z rounded to bf16 (vst.bf16): a GEMM's operand next */
    /* softmax over the keys of S^T (rows = queries, columns = keys): with
     * causal, column c of row i is -inf before the softmax when c > the
     * query's position, n fp32 positions at h_qpos in HBM (kgen_block.c) */
    int causal;
    uint64_t h_qpos;
} kgen_nn_opts;

typedef struct {
    kgen_nn_opts o;
    uint64_t e;                  /* rows a vector holds: S x L, one per lane */
    uint64_t blocks;             /* N / e */
    uint64_t rb;                 /* vectors (blocks of e rows) per tile, 1 .. 8 */
    uint64_t tiles;              /* blocks / rb */
    uint64_t q;                  /* columns a step (elementwise: rb q <= 8 vectors in flight; else 1) */
    uint64_t col_bytes;          /* one column of a tile: rb * e * 4 */
    uint64_t tile_bytes;         /* C * col_bytes */
    int ng;                      /* per-column parameters: 0, 1 (gamma), 2 (gamma, beta) */
    uint64_t v_in[2], v_out[2], v_par, v_qpos, vmem_need;
    uint64_t r_delta;            /* residual: its second input's VMEM, from the input's */
    uint64_t h_x, h_par, h_scr, h_z, h_r, hbm_need;   /* h_scr: the gamma/beta vectors' scratch */
    kgen_cost cost;
} kgen_nn_plan;

extern const char *const kgen_nn_names[TPU_NN_COUNT];

int kgen_nn_plan_make(const tpu_config *cfg, const kgen_nn_opts *o, kgen_nn_plan *p, char *err,
                      size_t errlen);
long kgen_nn_emit(FILE *f, const char *config_name, const tpu_config *cfg, const kgen_nn_plan *p);

/* The layer's code alone (from its constants to its last output's
 * arrival; every semaphore back at zero), X at p->h_x, Z at p->h_z, for a
 * program that goes on after it (kgen_tfm.c). */
void kgen_nn_code(kgen_emitter *e, const kgen_nn_plan *p);

/* The data tpu-gen's program holds (its .random fills), for the error
 * report: X (feature-major, N x C), gamma and beta (C each). */
void kgen_nn_data(const kgen_nn_plan *p, uint32_t *x, uint32_t *gamma, uint32_t *beta);

/* tpu-gen softmax|layernorm|rmsnorm|gelu|silu: the command line
 * (kgen_nn_cli.c); -1 when argv[1] is none of them. */
int kgen_cli_nn(int argc, char **argv);

#endif
