/*
 * kgen_allreduce.c - the AllReduce over the model axis as code
 * (kgen_allreduce.h): ffn-shard's and block-shard's, the reduction (an
 * AllToAll and the VPU's sum in the order of the positions, or the
 * library's ReduceScatter) and the AllGather, for a core whose position is
 * known or for every core at once (the position in s3); the same sum in
 * C, in the same order, for the commands' references; and the sharded
 * program's frame (its first lines, the jump on cid to each core's code).
 */
#include "kgen_allreduce.h"

#include <inttypes.h>
#include <string.h>

#include "fp.h"

#define SEM_DMA 1

/* vectors a step of a VPU loop over nv vectors: 8, 4, 2 or 1 */
static unsigned unroll(uint64_t nv)
{
    return nv % 8 == 0 ? 8 : nv % 4 == 0 ? 4 : nv % 2 == 0 ? 2 : 1;
}

void kgen_ring_args(kgen_emitter *e, const kgen_shard *s, int pos, uint64_t base, uint64_t slot)
{
    kgen_ins(e, "li      s20, %" PRIu64, base);
    kgen_ins(e, "li      s21, %" PRIu64, slot);
    if (pos < 0) {
        kgen_ins(e, "li      s22, %u", s->tp);
        kgen_ins(e, "add     s23, s3, zero");
        kgen_ins(e, "li      s24, %d", s->taxis);
    }
}

void kgen_allreduce_code(kgen_emitter *e, const tpu_config *cfg, const kgen_shard *s, uint64_t rows,
                         uint64_t rowb, int pos, uint64_t src, int barrier)
{
    uint64_t n = s->tp, ch = s->chunk, rpc = rows / n;
    uint64_t vb = (uint64_t)cfg->vpu_sublanes * cfg->vpu_lanes * 4;
    unsigned u = unroll(ch / vb);
    unsigned p = pos < 0 ? 0 : (unsigned)pos;
    int rt = pos < 0;            /* the position is in s3 */
    char pn[16] = "pos";
    if (!rt)
        snprintf(pn, sizeof pn, "%u", p);
    if (barrier) {
        kgen_line(e, "        # the neighbours are done with their stages (their VMEM is ours to write)");
        kgen_ins(e, "li      s22, %" PRIu64, n);
        if (rt)
            kgen_ins(e, "add     s23, s3, zero");
        else
            kgen_ins(e, "li      s23, %u", p);
        kgen_ins(e, "li      s24, %d", s->taxis);
        kgen_ins(e, "li      s25, 1");
        kgen_ins(e, "jal     s30, ring_barrier");
    }
    if (!rt) {
        kgen_ins(e, "li      s1, %" PRIu64, src);
        kgen_ins(e, "li      s10, %" PRIu64, rowb);
    }
    if (s->ring) {
        kgen_line(e, "        # P^T into VMEM as it is, then the library's ReduceScatter: chunk pos of the sum at O + pos x chunk");
        kgen_ins(e, "li      s9, %" PRIu64, s->v_p);
        kgen_ins(e, "li      s5, %" PRIu64, rows);
        if (rt)
            kgen_ins(e, "li      s10, %" PRIu64, rowb);
        kgen_ins(e, "dma.h2v s9, s1, s5, s10, s10, s10, %d", SEM_DMA);
        kgen_ins(e, "sem.wait %d, 1", SEM_DMA);
        kgen_ring_args(e, s, pos, s->v_p, ch);
        kgen_ins(e, "li      s25, %" PRIu64, s->v_work);
        if (rt) {
            kgen_ins(e, "li      s5, %" PRIu64, ch);
            kgen_ins(e, "mul     s6, s3, s5");
            kgen_ins(e, "li      s7, %" PRIu64, s->v_o);
            kgen_ins(e, "add     s26, s6, s7");
        } else {
            kgen_ins(e, "li      s26, %" PRIu64, s->v_o + p * ch);
        }
        kgen_ins(e, "jal     s30, ring_reducescatter   # chunk %s summed in ring order", pn);
        return;
    }
    unsigned lz = rt ? kgen_new_label(e) : 0, ld = kgen_new_label(e);
    kgen_line(e, "        # P^T into VMEM, chunk (pos + d) mod n at d x chunk: rows pos*D/n .. D, then 0 .. pos*D/n");
    if (rt) {
        kgen_ins(e, "li      s4, %" PRIu64, n);
        kgen_ins(e, "sub     s4, s4, s3                # chunks pos .. n-1");
        kgen_ins(e, "li      s5, %" PRIu64, rpc);
        kgen_ins(e, "mul     s6, s4, s5                # their rows");
        kgen_ins(e, "li      s7, %" PRIu64, rpc * rowb);
        kgen_ins(e, "mul     s8, s3, s7");
        kgen_ins(e, "add     s8, s1, s8                # HBM of chunk pos");
        kgen_ins(e, "li      s9, %" PRIu64, s->v_p);
        kgen_ins(e, "li      s10, %" PRIu64, rowb);
        kgen_ins(e, "dma.h2v s9, s8, s6, s10, s10, s10, %d", SEM_DMA);
        kgen_ins(e, "beq     s3, zero, L%u", lz);
        kgen_ins(e, "mul     s11, s6, s10");
        kgen_ins(e, "add     s9, s9, s11               # after them");
        kgen_ins(e, "mul     s6, s3, s5                # rows of chunks 0 .. pos-1");
        kgen_ins(e, "dma.h2v s9, s1, s6, s10, s10, s10, %d", SEM_DMA);
        kgen_ins(e, "sem.wait %d, 1", SEM_DMA);
        kgen_put_label(e, lz);
    } else {
        kgen_ins(e, "li      s9, %" PRIu64, s->v_p);
        kgen_ins(e, "li      s6, %" PRIu64, (n - p) * rpc);
        kgen_ins(e, "li      s8, %" PRIu64, src + p * rpc * rowb);
        kgen_ins(e, "dma.h2v s9, s8, s6, s10, s10, s10, %d", SEM_DMA);
        if (p) {
            kgen_ins(e, "li      s9, %" PRIu64, s->v_p + (n - p) * rpc * rowb);
            kgen_ins(e, "li      s6, %" PRIu64, p * rpc);
            kgen_ins(e, "dma.h2v s9, s1, s6, s10, s10, s10, %d", SEM_DMA);
            kgen_ins(e, "sem.wait %d, 1", SEM_DMA);
        }
    }
    kgen_ins(e, "sem.wait %d, 1", SEM_DMA);
    kgen_ring_args(e, s, pos, s->v_p, ch);
    kgen_ins(e, "li      s25, %" PRIu64, s->v_work);
    kgen_ins(e, "li      s26, %" PRIu64, s->v_slots);
    kgen_ins(e, "jal     s30, ring_alltoall        # slot o: chunk %s of position o's partial", pn);
    kgen_line(e, "        # chunk %s of the sum = slot 0 + slot 1 + ... (left to right), %u vectors a step", pn, u);
    kgen_ins(e, "li      s4, 0");
    kgen_ins(e, "li      s5, %" PRIu64, ch);
    if (rt) {
        kgen_ins(e, "mul     s6, s3, s5");
        kgen_ins(e, "li      s7, %" PRIu64, s->v_o);
        kgen_ins(e, "add     s6, s6, s7                # VMEM of our chunk of the sum");
    } else {
        kgen_ins(e, "li      s6, %" PRIu64, s->v_o + p * ch);
    }
    kgen_put_label(e, ld);
    for (unsigned k = 0; k < u; k++)
        kgen_ins(e, "vld     v%u, s4, %" PRIu64, k, s->v_slots + k * vb);
    for (uint64_t j = 1; j < n; j++) {
        for (unsigned k = 0; k < u; k++)
            kgen_ins(e, "vld     v%u, s4, %" PRIu64, 8 + k, s->v_slots + j * ch + k * vb);
        for (unsigned k = 0; k < u; k++)
            kgen_ins(e, "vadd    v%u, v%u, v%u", k, k, 8 + k);
    }
    kgen_ins(e, "add     s8, s6, s4");
    for (unsigned k = 0; k < u; k++)
        kgen_ins(e, "vst     v%u, s8, %" PRIu64, k, k * vb);
    kgen_ins(e, "addi    s4, s4, %" PRIu64, u * vb);
    kgen_ins(e, "blt     s4, s5, L%u", ld);
    kgen_ins(e, "sync    vpu");
}

void kgen_allgather_code(kgen_emitter *e, const tpu_config *cfg, const kgen_shard *s, uint64_t rows,
                         uint64_t rowb, int pos, uint64_t dst)
{
    uint64_t ch = s->chunk;
    if (s->bf16) {
        uint64_t vb = (uint64_t)cfg->vpu_sublanes * cfg->vpu_lanes * 4, hb = vb / 2, ob = rows * rowb;
        unsigned l = kgen_new_label(e), u = unroll(ob / vb);
        kgen_ring_args(e, s, pos, s->v_og, ch / 2);
        kgen_ins(e, "li      s25, 1");
        kgen_ins(e, "jal     s30, ring_allgather       # every chunk of the sum, in bf16");
        kgen_line(e, "        # widened to fp32");
        kgen_ins(e, "li      s4, 0");
        kgen_ins(e, "li      s6, 0");
        kgen_ins(e, "li      s5, %" PRIu64, ob);
        kgen_put_label(e, l);
        for (unsigned k = 0; k < u; k++)
            kgen_ins(e, "vld.bf16 v%u, s6, %" PRIu64, k, s->v_og + k * hb);
        for (unsigned k = 0; k < u; k++)
            kgen_ins(e, "vst     v%u, s4, %" PRIu64, k, s->v_o + k * vb);
        kgen_ins(e, "addi    s4, s4, %" PRIu64, u * vb);
        kgen_ins(e, "addi    s6, s6, %" PRIu64, u * hb);
        kgen_ins(e, "blt     s4, s5, L%u", l);
        kgen_ins(e, "sync    vpu");
    } else {
        kgen_ring_args(e, s, pos, s->v_o, ch);
        kgen_ins(e, "li      s25, 1");
        kgen_ins(e, "jal     s30, ring_allgather       # every chunk of the sum");
    }
    kgen_ins(e, "li      s9, %" PRIu64, s->v_o);
    if (pos >= 0)
        kgen_ins(e, "li      s2, %" PRIu64, dst);
    kgen_ins(e, "li      s5, %" PRIu64, rows);
    kgen_ins(e, "li      s10, %" PRIu64 "               # (the library changed it)", rowb);
    kgen_ins(e, "dma.v2h s2, s9, s5, s10, s10, s10, %d", SEM_DMA);
    kgen_ins(e, "sem.wait %d, 1", SEM_DMA);
}

void kgen_allreduce_ref(const kgen_shard *s, const uint32_t *pm, uint32_t *o, uint64_t cnt)
{
    uint64_t tp = s->tp;
    if (!s->ring || tp < 2) {
        memcpy(o, pm, cnt * 4);
        for (uint64_t m = 1; m < tp; m++)
            for (uint64_t i = 0; i < cnt; i++)
                o[i] = tpu_f32_add(o[i], pm[m * cnt + i]);
        return;
    }
    uint64_t ce = cnt / tp, half = ce / 2;
    for (uint64_t c = 0; c < tp; c++)
        for (uint64_t i = 0; i < ce; i++) {
            int up = i < half;
            uint64_t idx = c * ce + i, src = up ? (c + 1) % tp : (c + tp - 1) % tp;
            uint32_t acc = pm[src * cnt + idx];
            for (uint64_t k = 2; k <= tp; k++) {
                src = up ? (c + k) % tp : (c + tp - k % tp) % tp;
                if (s->bf16)            /* the sum travels as bf16 (numerics.md 14) */
                    acc = tpu_f32_from_bf16(tpu_bf16_from_f32(acc));
                acc = tpu_f32_add(acc, pm[src * cnt + idx]);
            }
            o[idx] = s->bf16 ? tpu_f32_from_bf16(tpu_bf16_from_f32(acc)) : acc;   /* gathered in bf16 */
        }
}

/* fp32 bit patterns in the order of their values */
static int64_t ordered(uint32_t f)
{
    return (f & 0x80000000u) ? -(int64_t)(f & 0x7fffffffu) : (int64_t)f;
}

void kgen_ulp_diff(const uint32_t *a, const uint32_t *b, uint64_t n, uint64_t *differ, uint64_t *ulp)
{
    *differ = *ulp = 0;
    for (uint64_t i = 0; i < n; i++)
        if (a[i] != b[i]) {
            int64_t d = ordered(a[i]) - ordered(b[i]);
            uint64_t u = (uint64_t)(d < 0 ? -d : d);
            (*differ)++;
            if (u > *ulp)
                *ulp = u;
        }
}

void kgen_shard_head(kgen_emitter *e, const kgen_shard *s, const char *config, const char *cmd, const char *file,
                     const char *run)
{
    kgen_line(e, "# tpu-as: --config %s", config);
    kgen_line(e, "#");
    kgen_line(e, "# Generated by tpu-gen %s (sim/kernels/%s, docs/transformers.md); do not edit.", cmd, file);
    kgen_line(e, "#   %stpu-sim --config %s --cores %u%s", run, config, s->rows * s->cols,
              s->torus ? " --topology torus2d" : "");
    if (s->torus)
        kgen_line(e, "#   (--grid %ux%u)", s->rows, s->cols);
    kgen_line(e, "#");
}

void kgen_shard_dispatch(kgen_emitter *e, const kgen_shard *s)
{
    unsigned cores = s->rows * s->cols;
    kgen_line(e, "        .text");
    for (unsigned c = 0; c + 1 < cores; c++) {
        kgen_ins(e, "li      s1, %u", c);
        kgen_ins(e, "beq     cid, s1, CORE%u", c);
    }
    kgen_ins(e, "jmp     CORE%u", cores - 1);
    if (s->tp > 1)
        kgen_line(e, "        .include \"lib/ring.inc\"");
}
