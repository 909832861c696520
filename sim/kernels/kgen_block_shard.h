/*
 * kgen_block_shard.h - the pre-norm transformer block (tpu-gen block)
 * sharded Megatron-style across the cores of a ring or a 2-D torus
 * (tpu-gen block-shard, kgen_block_shard.c; docs/transformers.md, "The
 * block sharded across chips"): the heads and F over the model axis, the
 * sequences (batch) over the other; the W_o and W_out partial sums
 * AllReduced over the model axis, the residual stream replicated.
 */
#ifndef TPU_KGEN_BLOCK_SHARD_H
#define TPU_KGEN_BLOCK_SHARD_H

#include "kgen_block.h"
#include "kgen_shard.h"

typedef struct {
    /* what was asked */
    uint64_t b, t, d, f, heads;  /* B sequences of T tokens, width, hidden width, heads */
    int causal, timing_only, part;   /* part: KGEN_SHARD_ALL or _COMPUTE (no AllReduce) */
    uint32_t eps;
    kgen_shard s;                /* the mesh, the sharding (F's axis = the heads' axis), the sum's VMEM */
    /* derived: a core's share */
    uint64_t hl, dl, fl;         /* heads, their width (hl x dh) and hidden units a core */
    kgen_block ab;               /* the attention of hl heads (T, D = dl): its stages 3-6 and HBM */
    kgen_nn_plan ln1, res1, ln2, gl, res2;
    kgen_plan qkv, wo, win, wout;
    kgen_cost c_qkv, c_wo, c_win, c_wout;
    uint64_t h_p1, h_y1, h_p2, h_o2;   /* the partials and their sums (fp32 [D][T]) */
    uint64_t region;             /* HBM of one core; core c's at c x region */
    double t_attn;               /* the attention's predicted cycles (the KV cache write, every head) */
    double predicted_local, predicted_comm;   /* per core; comm: both AllReduces */
    uint64_t flops, hbm_bytes;   /* per core, the cost model's */
} kgen_bshard;

int kgen_bshard_plan(const tpu_config *cfg, kgen_bshard *p, char *err, size_t errlen);
long kgen_bshard_emit(FILE *f, const char *config_name, const tpu_config *cfg, const kgen_bshard *p);

/* Core 0's y^T [D][T] (its sequence) as the program computes it: every stage
 * as tpu_ref_block's, the two partial sums added as the AllReduce does (the
 * positions left to right, or --reduce ring's order).  *differ, *ulp: how
 * many values differ from one chip's tpu_ref_block and by how much at most.
 * -1 when out of memory. */
int kgen_bshard_reference(const tpu_config *cfg, const kgen_bshard *p, uint32_t *y, uint64_t *differ, uint64_t *ulp);

int kgen_cli_bshard(int argc, char **argv);

#endif
