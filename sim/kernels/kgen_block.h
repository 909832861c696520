/*
 * kgen_block.h - a pre-norm transformer block on one core as one program
 * (tpu-gen block, kgen_block.c; docs/transformers.md "The block"):
 * layernorm, the Q, K, V projections, attention per head, the heads side
 * by side through W_o, the residual, then ffn --prenorm's stages.
 */
#ifndef TPU_KGEN_BLOCK_H
#define TPU_KGEN_BLOCK_H

#include "kgen_nn.h"

typedef struct {
    /* what was asked */
    uint64_t t, d, f, heads;     /* tokens (new ones), width, hidden width, heads */
    uint64_t past;               /* --decode: tokens already in the KV cache */
    int decode, causal, timing_only;
    uint32_t eps;
    /* derived */
    uint64_t tp;                 /* the tokens the program computes: t, or (--decode) t padded
                                  * to the lanes with zero tokens after the real ones */
    uint64_t dh, tk;             /* head width D / heads; keys: past + tp */
    uint64_t e;                  /* a vector's elements, S x L */
    kgen_nn_plan ln1, sm, res1, ln2, gl, res2;
    kgen_plan qkv, sc, av, wo, win, wout;   /* sc, av: head 0's (head h: its own blocks) */
    kgen_cost c_qkv, c_sc, c_av, c_wo, c_win, c_wout;
    /* the K transpose: [dh][T] feature-major -> [T][kp] token-major */
    uint64_t tc;                 /* tokens a chunk (VMEM) */
    uint64_t v_kt;               /* the chunk in VMEM */
    double t_transpose;          /* its predicted cycles, every head */
    /* HBM */
    uint64_t h_qkv;              /* QKV^T [3D][T] bf16 (the projection's output) */
    uint64_t h_head, head_bytes; /* head h's K_h, S_h, P_h at h_head + h head_bytes */
    uint64_t o_kh, o_v, o_s, o_p;   /* their offsets in a head's block (K_h, V_h, S_h, P_h) */
    uint64_t h_ob;               /* O^T [D][T] bf16: the heads side by side */
    uint64_t h_qpos;             /* the queries' positions (causal), fp32 */
    uint64_t h_kpast, h_vpast;   /* decode: the cache's past part (inside the heads' K_h, V) */
    /* flash (kgen_block_flash.c): the keys a block of kb at a time, nb blocks
     * (nb = 1: one softmax over all the keys, kgen_nn.c) */
    uint64_t key_block;          /* --key-block (0: choose) */
    uint64_t kb, nb;
    int flash;
    kgen_plan sc_last, avf;      /* the last block's S GEMM; P_j V_j with fp32 O_j */
    kgen_cost c_sc_last, c_avf;
    uint64_t fu, fu_d;           /* keys (features) a step of the flash loops */
    uint64_t v_fs, v_fp, v_fm, v_fl, v_fc, v_fq, v_fa, v_fo, v_fz;   /* its VMEM */
    uint64_t o_m, o_l, o_c, o_acc, o_oj;   /* its HBM, in a head's block */
    double t_flash;              /* its VPU stages' predicted cycles, a head */
    uint64_t vpitch;             /* V_h's rows: a block of vpitch keys (nb blocks) */
    uint64_t hbm_need;
    uint64_t flops, hbm_bytes;   /* the cost model's totals */
    double predicted;
} kgen_block;

int kgen_block_plan(const tpu_config *cfg, kgen_block *b, char *err, size_t errlen);
long kgen_block_emit(FILE *f, const char *config_name, const tpu_config *cfg, const kgen_block *b);

/* The program's data (its .random fills) as the reference takes it; the
 * arrays are malloc'ed (kgen_block_data_free).  -1 when out of memory. */
typedef struct {
    uint32_t *x, *g1, *b1, *g2, *b2;
    uint16_t *wqkv, *wo, *win, *wout, *kpast, *vpast;
} kgen_block_data;
int kgen_block_data_make(const kgen_block *b, kgen_block_data *d);
void kgen_block_data_free(kgen_block_data *d);

/* Flash (kgen_block_flash.c): the plan (after b's softmax plan was found
 * too large, or --key-block), and the code of head h's attention. */
int kgen_flash_plan(const tpu_config *cfg, kgen_block *b, char *err, size_t errlen);
void kgen_flash_head(kgen_emitter *e, const kgen_block *b, uint64_t h);

/* Stage 3 for head h: its K_h and V_h into the KV cache (tpu-gen
 * block-shard places it in each core's copy, kgen_block_shard.c). */
void kgen_block_kv_code(kgen_emitter *e, const kgen_block *b, uint64_t h);
/* Stages 4-6 for head h (not flash): S^T = K_h Q_h^T, the softmax over the
 * keys, O^T's rows of the head = V_h^T P^T; the GEMMs' labels lp"S_" and
 * lp"O_", the three stages' headings what[].  tpu-gen block-shard places
 * them in each core's copy too. */
void kgen_block_head_code(kgen_emitter *e, const kgen_block *b, uint64_t h, const char *lp, const char *const what[3]);
/* A stage of a program: "# ======== what", then the GEMM's code (its
 * labels prefixed lp) or the VPU layer's. */
void kgen_stage_gemm(kgen_emitter *e, const kgen_plan *p, const char *lp, const char *what);
void kgen_stage_nn(kgen_emitter *e, const kgen_nn_plan *p, const char *what);
/* The block generators' helpers (kgen_block.c; used by kgen_block_flash.c
 * and kgen_block_shard.c): an error message into err (returns -1), and a
 * bf16 GEMM's plan (M x K times K x N, bf16 output when bf16) whose error
 * names the stage. */
int kgen_block_fail(char *err, size_t errlen, const char *fmt, ...);
int kgen_block_gemm(const tpu_config *cfg, kgen_plan *p, uint64_t m, uint64_t k, uint64_t n, int bf16, int timing,
                    const char *what, char *err, size_t errlen);

/* tpu-gen block (kgen_block_cli.c); -1 when argv[1] is not "block". */
int kgen_cli_block(int argc, char **argv);

#endif
