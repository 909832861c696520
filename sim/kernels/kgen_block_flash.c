/*
 * kgen_block_flash.c - the block's attention a block of keys at a time
 * (flash-style; kgen_block.h, docs/transformers.md "Flash"), when the
 * softmax over all Tk keys of a tile of queries does not fit VMEM (or
 * --key-block asks for it).  Per head, per block j of kb keys:
 *
 *   S_j^T = K_j Q^T                          MXU (rows j kb .. of S^T)
 *   the step, per query (a lane):            VPU
 *     z_c = scale s_c (-inf after the query, causal), stored in place
 *     m' = max(m, z_0, z_1, ...)             the running maximum, from m
 *     e_c = exp(z_c - m'), P_j = bf16(e_c),  s = +0 + e_0 + e_1 + ...
 *     corr = exp(m - m'), l' = l corr + s, m = m'
 *   O_j^T = V_j^T P_j^T                      MXU, fp32
 *   O_acc = O_acc corr + O_j                 VPU, elementwise (corr per query)
 *
 * then O^T rows of the head = bf16(O_acc rcp(l)).  m starts at -inf, l and
 * O_acc at 0 (the first block's corr is exp(-inf) = +0).  The order is
 * numerics.md 12's "Flash"; tpu_ref_block (kblock) does the same.  The
 * VPU stages go a vector of queries (S x L) at a time, their keys (or
 * features) u at a time so that the transcendentals' latency is covered.
 */
#include "kgen_block.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>

#include "fp.h"

#define ALIGN64(x) (((x) + 63) / 64 * 64)
/* vector registers */
#define VM 0             /* the running maximum */
#define VL 1             /* the running sum */
#define VS 2             /* this block's sum */
#define VC 3             /* the correction */
#define VX(u) (8 + (u))  /* u < 8: the keys of a step */
#define VK(u) (16 + (u)) /* causal: their positions */
#define VSCALE 24
#define VNEG 25
#define VSTEP 26         /* causal: u, the positions' step */
#define VQ 27            /* causal: the queries' positions */
#define VMASK 28         /* two masks in turn: 28, 29 */
#define VR 30

static uint64_t step_of(uint64_t n)
{
    return n % 8 == 0 ? 8 : n % 4 == 0 ? 4 : n % 2 == 0 ? 2 : 1;
}

int kgen_flash_plan(const tpu_config *cfg, kgen_block *b, char *err, size_t errlen)
{
    uint64_t N = cfg->mxu_n, e = b->e, dh = b->dh, tk = b->tk, T = b->tp;
    uint64_t fixed = ALIGN64(e * 4) * 6 + 2 * ALIGN64(dh * e * 4) + ALIGN64(dh * e * 2);
    if (b->key_block) {
        if (b->key_block % N)
            return kgen_block_fail(err, errlen, "--key-block %" PRIu64 " must be a multiple of the MXU size %" PRIu64 " on '%s'",
                        b->key_block, N, cfg->name);
        b->kb = b->key_block;
    } else {
        /* the most keys a block whose S tile (fp32) and P tile (bf16) fit */
        uint64_t room = cfg->vmem_bytes > fixed + 128 ? cfg->vmem_bytes - fixed - 128 : 0;
        b->kb = room / (e * 6) / N * N;
        uint64_t tkp = (tk + N - 1) / N * N;
        if (b->kb > tkp)
            b->kb = tkp;
    }
    if (b->kb == 0 || ALIGN64(b->kb * e * 4) + ALIGN64(b->kb * e * 2) + fixed > cfg->vmem_bytes)
        return kgen_block_fail(err, errlen, "flash attention: VMEM cannot hold one block of %" PRIu64 " keys for a vector of "
                    "%" PRIu64 " queries (%" PRIu64 " bytes with the state), the machine '%s' has %" PRIu64,
                    b->kb ? b->kb : N, e, ALIGN64((b->kb ? b->kb : N) * e * 6) + fixed, cfg->name,
                    (uint64_t)cfg->vmem_bytes);
    b->nb = (tk + b->kb - 1) / b->kb;
    b->vpitch = b->kb;
    uint64_t last = tk - (b->nb - 1) * b->kb;
    b->fu = step_of(b->kb);
    if (step_of(last) < b->fu)
        b->fu = step_of(last);
    b->fu_d = step_of(dh);
    kgen_gemm_opts o;
    memset(&o, 0, sizeof o);
    o.dtype = KGEN_BF16, o.timing_only = b->timing_only;
    char e2[400];
    o.m = b->kb, o.k = dh, o.n = T;
    if (kgen_gemm_plan(cfg, &o, &b->sc, e2, sizeof e2))
        return kgen_block_fail(err, errlen, "S_j^T = K_j Q^T: %s", e2);
    o.m = last;
    if (kgen_gemm_plan(cfg, &o, &b->sc_last, e2, sizeof e2))
        return kgen_block_fail(err, errlen, "S_j^T = K_j Q^T (the last block): %s", e2);
    o.m = dh, o.k = b->kb;
    if (kgen_gemm_plan(cfg, &o, &b->avf, e2, sizeof e2))
        return kgen_block_fail(err, errlen, "O_j^T = V_j^T P_j^T: %s", e2);
    /* VMEM of the VPU stages (the GEMMs take theirs in turn) */
    uint64_t a = 0;
    b->v_fs = a; a = ALIGN64(a + b->kb * e * 4);
    b->v_fp = a; a = ALIGN64(a + b->kb * e * 2);
    b->v_fm = a; a = ALIGN64(a + e * 4);
    b->v_fl = a; a = ALIGN64(a + e * 4);
    b->v_fc = a; a = ALIGN64(a + e * 4);
    b->v_fq = a; a = ALIGN64(a + e * 4);
    b->v_fa = a; a = ALIGN64(a + dh * e * 4);
    b->v_fo = a; a = ALIGN64(a + dh * e * 4);
    b->v_fz = a; a = ALIGN64(a + dh * e * 2);
    /* the VPU stages' cycles, a head: per vector of queries and block, the
     * DMAs in and out one after the other and the steps' instructions */
    uint64_t num, den;
    tpu_config_bytes_per_cycle(cfg->hbm_bw, cfg->clock_hz, &num, &den);
    double bw = (double)num / (double)den, L = (double)cfg->hbm_latency, E = (double)e;
    double tiles = (double)(T / e), kb = (double)b->kb, D = (double)dh;
    double step = 2.0 * L + kb * E * 6.0 / bw + kb * ((b->causal ? 7.0 : 4.0) + 5.0) + 40.0;
    double acc = 2.0 * L + D * E * 12.0 / bw + D * 5.0 + 20.0;
    double fin = 2.0 * L + D * E * 6.0 / bw + D * 3.0 + 20.0;
    b->t_flash = tiles * ((double)b->nb * (step + acc) + fin);
    return 0;
}

/* ---- the code ---- */

static void vconst(kgen_emitter *e, unsigned v, uint32_t bits)
{
    kgen_li(e, "s1", bits);
    kgen_ins(e, "vbcast  v%u, s1", v);
}

/* dma.h2v/v2h of rows x bytes with strides, the addresses as numbers */
static void dma(kgen_emitter *e, int in, uint64_t vmem, uint64_t hbm, uint64_t rows, uint64_t bytes,
                uint64_t sstride, uint64_t dstride, int sem)
{
    kgen_li(e, "s1", vmem);
    kgen_li(e, "s2", hbm);
    kgen_li(e, "s3", rows);
    kgen_li(e, "s4", bytes);
    kgen_li(e, "s5", sstride);
    kgen_li(e, "s6", dstride);
    if (in)
        kgen_ins(e, "dma.h2v s1, s2, s3, s4, s5, s6, %d", sem);
    else
        kgen_ins(e, "dma.v2h s2, s1, s3, s4, s5, s6, %d", sem);
}

/* A loop of steps (s7 counts them down) that walks VMEM with s9 from a and,
 * when two, s10 from b; loop_end moves them on by da and db bytes. */
static unsigned loop_start(kgen_emitter *e, uint64_t a, int two, uint64_t b, uint64_t steps)
{
    kgen_li(e, "s9", a);
    if (two)
        kgen_li(e, "s10", b);
    kgen_li(e, "s7", steps);
    unsigned top = kgen_new_label(e);
    kgen_put_label(e, top);
    return top;
}

static void loop_end(kgen_emitter *e, unsigned top, uint64_t da, int two, uint64_t db)
{
    kgen_addi(e, "s9", "s9", (int64_t)da, "s8");
    if (two)
        kgen_addi(e, "s10", "s10", (int64_t)db, "s8");
    kgen_ins(e, "addi    s7, s7, -1");
    kgen_ins(e, "bne     s7, zero, L%u", top);
}

/* u loads or stores (op) of v(r0 + i) at base + i stride */
static void vmem_run(kgen_emitter *e, const char *op, int r0, const char *base, uint64_t stride, uint64_t u)
{
    for (uint64_t i = 0; i < u; i++)
        kgen_ins(e, "%-7s v%d, %s, %" PRIu64, op, r0 + (int)i, base, i * stride);
}

/* The step for block j (n keys from key k0) and the vector of queries q0. */
static void step_code(kgen_emitter *e, const kgen_block *b, uint64_t hb, uint64_t j, uint64_t k0,
                      uint64_t n, uint64_t q0)
{
    uint64_t T = b->tp, E = b->e, vb = E * 4, u = b->fu;
    kgen_line(e, "        # queries %" PRIu64 " .. %" PRIu64 ": S_j, m, l in", q0, q0 + E - 1);
    dma(e, 1, b->v_fs, hb + b->o_s + k0 * T * 4 + q0 * 4, n, vb, T * 4, vb, 0);
    dma(e, 1, b->v_fm, hb + b->o_m + q0 * 4, 1, vb, vb, vb, 0);
    dma(e, 1, b->v_fl, hb + b->o_l + q0 * 4, 1, vb, vb, vb, 0);
    int waits = 3;
    if (b->causal) {
        dma(e, 1, b->v_fq, b->h_qpos + q0 * 4, 1, vb, vb, vb, 0);
        waits++;
    }
    kgen_ins(e, "sem.wait 0, %d", waits);
    kgen_li(e, "s1", b->v_fm);
    kgen_ins(e, "vld     v%d, s1, 0                  # m, the running maximum", VM);
    if (b->causal) {
        kgen_li(e, "s1", b->v_fq);
        kgen_ins(e, "vld     v%d, s1, 0", VQ);
        for (uint64_t i = 0; i < u; i++)
            vconst(e, VK(i), tpu_f32_from_float((float)(k0 + i)));
    }
    /* pass 1: z = scale s (masked), in place; m' = max chain from m */
    kgen_line(e, "        # pass 1: z = scale * s%s, stored; m' = max(m, z...)", b->causal ? " (-inf after the query)" : "");
    unsigned top = loop_start(e, b->v_fs, 0, 0, n / u);
    vmem_run(e, "vld", VX(0), "s9", vb, u);
    for (uint64_t i = 0; i < u; i++)
        kgen_ins(e, "vmul    v%d, v%d, v%d", VX(i), VX(i), VSCALE);
    if (b->causal) {
        for (uint64_t i = 0; i <= u; i++) {
            if (i < u)
                kgen_ins(e, "vcmplt  v%d, v%d, v%d", VMASK + (int)(i % 2), VQ, VK(i));
            if (i >= 1)
                kgen_ins(e, "vsel    v%d, v%d, v%d, v%d", VX(i - 1), VMASK + (int)((i - 1) % 2), VNEG, VX(i - 1));
        }
        for (uint64_t i = 0; i < u; i++)
            kgen_ins(e, "vadd    v%d, v%d, v%d", VK(i), VK(i), VSTEP);
    }
    vmem_run(e, "vst", VX(0), "s9", vb, u);
    for (uint64_t i = 0; i < u; i++)
        kgen_ins(e, "vmax    v%d, v%d, v%d", VM, VM, VX(i));
    loop_end(e, top, u * vb, 0, 0);
    /* pass 2: e = exp(z - m'), P_j = bf16(e), s = +0 + e ... */
    kgen_line(e, "        # pass 2: e = exp(z - m'), P_j = bf16(e), s = +0 + e_0 + e_1 + ...");
    kgen_ins(e, "vbcast  v%d, zero", VS);
    top = loop_start(e, b->v_fs, 1, b->v_fp, n / u);
    vmem_run(e, "vld", VX(0), "s9", vb, u);
    for (uint64_t i = 0; i < u; i++)
        kgen_ins(e, "vsub    v%d, v%d, v%d", VX(i), VX(i), VM);
    for (uint64_t i = 0; i < u; i++)
        kgen_ins(e, "vexp    v%d, v%d", VX(i), VX(i));
    vmem_run(e, "vst.bf16", VX(0), "s10", vb / 2, u);
    for (uint64_t i = 0; i < u; i++)
        kgen_ins(e, "vadd    v%d, v%d, v%d", VS, VS, VX(i));
    loop_end(e, top, u * vb, 1, u * vb / 2);
    /* corr = exp(m - m'), l' = l corr + s */
    kgen_li(e, "s1", b->v_fm);
    kgen_ins(e, "vld     v%d, s1, 0                  # m, the maximum before this block", VC);
    kgen_li(e, "s2", b->v_fl);
    kgen_ins(e, "vld     v%d, s2, 0", VL);
    kgen_ins(e, "vsub    v%d, v%d, v%d", VC, VC, VM);
    kgen_ins(e, "vexp    v%d, v%d                  # corr = exp(m - m')", VC, VC);
    kgen_ins(e, "vmul    v%d, v%d, v%d", VL, VL, VC);
    kgen_ins(e, "vadd    v%d, v%d, v%d                # l' = l corr + s", VL, VL, VS);
    kgen_ins(e, "vst     v%d, s1, 0", VM);
    kgen_ins(e, "vst     v%d, s2, 0", VL);
    kgen_li(e, "s1", b->v_fc);
    kgen_ins(e, "vst     v%d, s1, 0", VC);
    kgen_ins(e, "sync    vpu");
    uint64_t pj = hb + b->o_p + j * b->vpitch * T * 2;
    dma(e, 0, b->v_fp, pj + q0 * 2, n, vb / 2, vb / 2, T * 2, 1);
    dma(e, 0, b->v_fm, hb + b->o_m + q0 * 4, 1, vb, vb, vb, 1);
    dma(e, 0, b->v_fl, hb + b->o_l + q0 * 4, 1, vb, vb, vb, 1);
    dma(e, 0, b->v_fc, hb + b->o_c + q0 * 4, 1, vb, vb, vb, 1);
    kgen_ins(e, "sem.wait 1, 4");
}

/* O_acc = O_acc corr + O_j for the vector of queries q0 (dh rows) */
static void acc_code(kgen_emitter *e, const kgen_block *b, uint64_t hb, uint64_t j, uint64_t q0)
{
    uint64_t T = b->tp, E = b->e, vb = E * 4, dh = b->dh, u = b->fu_d;
    kgen_line(e, "        # queries %" PRIu64 " ..: O_acc = O_acc * corr + O_j", q0);
    dma(e, 1, b->v_fa, hb + b->o_acc + q0 * 4, dh, vb, T * 4, vb, 0);
    dma(e, 1, b->v_fo, hb + b->o_oj + j * dh * T * 4 + q0 * 4, dh, vb, T * 4, vb, 0);
    dma(e, 1, b->v_fc, hb + b->o_c + q0 * 4, 1, vb, vb, vb, 0);
    kgen_ins(e, "sem.wait 0, 3");
    kgen_li(e, "s1", b->v_fc);
    kgen_ins(e, "vld     v%d, s1, 0", VC);
    unsigned top = loop_start(e, b->v_fa, 1, b->v_fo, dh / u);
    vmem_run(e, "vld", VX(0), "s9", vb, u);
    vmem_run(e, "vld", VK(0), "s10", vb, u);
    for (uint64_t i = 0; i < u; i++)
        kgen_ins(e, "vmul    v%d, v%d, v%d", VX(i), VX(i), VC);
    for (uint64_t i = 0; i < u; i++)
        kgen_ins(e, "vadd    v%d, v%d, v%d", VX(i), VX(i), VK(i));
    vmem_run(e, "vst", VX(0), "s9", vb, u);
    loop_end(e, top, u * vb, 1, u * vb);
    kgen_ins(e, "sync    vpu");
    dma(e, 0, b->v_fa, hb + b->o_acc + q0 * 4, dh, vb, vb, T * 4, 1);
    kgen_ins(e, "sem.wait 1, 1");
}

/* O^T rows h dh .. = bf16(O_acc rcp(l)) for the vector of queries q0 */
static void final_code(kgen_emitter *e, const kgen_block *b, uint64_t hb, uint64_t h, uint64_t q0)
{
    uint64_t T = b->tp, E = b->e, vb = E * 4, dh = b->dh, u = b->fu_d;
    kgen_line(e, "        # queries %" PRIu64 " ..: O = bf16(O_acc * rcp(l))", q0);
    dma(e, 1, b->v_fa, hb + b->o_acc + q0 * 4, dh, vb, T * 4, vb, 0);
    dma(e, 1, b->v_fl, hb + b->o_l + q0 * 4, 1, vb, vb, vb, 0);
    kgen_ins(e, "sem.wait 0, 2");
    kgen_li(e, "s1", b->v_fl);
    kgen_ins(e, "vld     v%d, s1, 0", VR);
    kgen_ins(e, "vrcp    v%d, v%d", VR, VR);
    unsigned top = loop_start(e, b->v_fa, 1, b->v_fz, dh / u);
    vmem_run(e, "vld", VX(0), "s9", vb, u);
    for (uint64_t i = 0; i < u; i++)
        kgen_ins(e, "vmul    v%d, v%d, v%d", VX(i), VX(i), VR);
    vmem_run(e, "vst.bf16", VX(0), "s10", vb / 2, u);
    loop_end(e, top, u * vb, 1, u * vb / 2);
    kgen_ins(e, "sync    vpu");
    dma(e, 0, b->v_fz, b->h_ob + h * dh * T * 2 + q0 * 2, dh, vb / 2, vb / 2, T * 2, 1);
    kgen_ins(e, "sem.wait 1, 1");
}

void kgen_flash_head(kgen_emitter *e, const kgen_block *b, uint64_t h)
{
    uint64_t T = b->tp, dh = b->dh, hb = b->h_head + h * b->head_bytes;
    for (uint64_t j = 0; j < b->nb; j++) {
        uint64_t k0 = j * b->kb, n = j + 1 < b->nb ? b->kb : b->tk - k0;
        kgen_plan sc = j + 1 < b->nb ? b->sc : b->sc_last, av = b->avf;
        sc.h_x = hb + b->o_kh + k0 * b->sc.kp * 2;
        sc.h_w = b->h_qkv + h * dh * T * 2;
        sc.h_y = hb + b->o_s + k0 * T * 4;
        av.h_x = hb + b->o_v + j * dh * b->vpitch * 2;
        av.h_w = hb + b->o_p + j * b->vpitch * T * 2;
        av.h_y = hb + b->o_oj + j * dh * T * 4;
        char lp[48], w[160];
        snprintf(w, sizeof w, "4: head %" PRIu64 ", keys %" PRIu64 " .. %" PRIu64 " (block %" PRIu64 " of %" PRIu64
                 "): S_j^T = K_j Q_h^T", h, k0, k0 + n - 1, j, b->nb);
        snprintf(lp, sizeof lp, "H%" PRIu64 "B%" PRIu64 "S_", h, j);
        kgen_stage_gemm(e, &sc, lp, w);
        kgen_line(e, "");
        kgen_line(e, "# ======== 5: the flash step on the VPU: the running max and sum, P_j = bf16(exp(z - m'))");
        vconst(e, VSCALE, tpu_f32_from_float((float)(1.0 / sqrt((double)dh))));
        if (b->causal) {
            vconst(e, VNEG, 0xff800000u);
            vconst(e, VSTEP, tpu_f32_from_float((float)b->fu));
        }
        for (uint64_t q0 = 0; q0 < T; q0 += b->e)
            step_code(e, b, hb, j, k0, n, q0);
        snprintf(lp, sizeof lp, "H%" PRIu64 "B%" PRIu64 "O_", h, j);
        kgen_stage_gemm(e, &av, lp, "6: O_j^T = V_j^T P_j^T (fp32)");
        kgen_line(e, "");
        kgen_line(e, "# ======== the update on the VPU: O_acc = O_acc * corr + O_j");
        for (uint64_t q0 = 0; q0 < T; q0 += b->e)
            acc_code(e, b, hb, j, q0);
    }
    kgen_line(e, "");
    kgen_line(e, "# ======== head %" PRIu64 ": O^T rows %" PRIu64 " .. %" PRIu64 " = bf16(O_acc * rcp(l))", h, h * dh,
              h * dh + dh - 1);
    for (uint64_t q0 = 0; q0 < T; q0 += b->e)
        final_code(e, b, hb, h, q0);
}
