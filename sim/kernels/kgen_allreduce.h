/*
 * kgen_allreduce.h - the AllReduce over the model axis as code (kgen_allreduce.c),
 * the one emitter of tpu-gen ffn-shard (kgen_shard.c) and block-shard
 * (kgen_block_shard.c): each core's partial [rows][T] fp32 summed over the
 * n cores of the axis, by an AllToAll of the chunks and the sum P_0 + P_1
 * + ... on the VPU, or (s->ring) the library's ReduceScatter; then the
 * AllGather of the summed chunks (programs/lib/ring.inc).
 *
 * The position on the axis is either known when the code is written (pos
 * >= 0: the code of one core, the addresses immediates) or in s3 (pos < 0:
 * one code that every core jumps to, with s1 the HBM of its partial and s2
 * of the sum; the library's n, position and axis are set before each call).
 */
#ifndef TPU_KGEN_ALLREDUCE_H
#define TPU_KGEN_ALLREDUCE_H

#include "kgen_impl.h"
#include "kgen_shard.h"

/* The reduction: the partial at HBM src (pos >= 0; else s1), rows of rowb
 * bytes, into VMEM; chunk pos of the sum at s->v_o + pos x s->chunk.  With
 * barrier, first wait for the axis' neighbours (their VMEM is written). */
void kgen_allreduce_code(kgen_emitter *e, const tpu_config *cfg, const kgen_shard *s, uint64_t rows,
                         uint64_t rowb, int pos, uint64_t src, int barrier);

/* The AllGather of the summed chunks at s->v_o (s->bf16: of their bf16
 * copies at s->v_og, widened to fp32 at s->v_o), then the whole sum to HBM
 * dst (pos >= 0; else s2). */
void kgen_allgather_code(kgen_emitter *e, const tpu_config *cfg, const kgen_shard *s, uint64_t rows,
                         uint64_t rowb, int pos, uint64_t dst);

/* The sum the code computes, in C: pm holds the n = s->tp partials of cnt
 * fp32 values one after the other; o gets their sum in the program's order:
 * P_0 + P_1 + ... left to right (the AllToAll), or (s->ring, n > 1) chunk
 * c's first half from position c+1 along +1, its second half from c-1
 * along -1, position c last (ring_reducescatter and --overlap); with
 * s->bf16 each sum rounded to bf16 before it travels and when gathered. */
void kgen_allreduce_ref(const kgen_shard *s, const uint32_t *pm, uint32_t *o, uint64_t cnt);

/* How many of the n values of a and b differ (*differ) and by how many
 * ulps at most (*ulp): the sharded result against one chip's. */
void kgen_ulp_diff(const uint32_t *a, const uint32_t *b, uint64_t n, uint64_t *differ, uint64_t *ulp);

/* The library's arguments base (s20) and slot (s21); with pos < 0 also n,
 * the position (s3) and the axis (s22 .. s24). */
void kgen_ring_args(kgen_emitter *e, const kgen_shard *s, int pos, uint64_t base, uint64_t slot);

#endif
