/*
 * kgen_chain.c - a chain of GEMMs in one program (tpu-gen mlp):
 * H1 = relu(X W1 + b1), H2 = relu(H1 W2 + b2), ..., Y = H(n-1) Wn + bn.
 *
 * Each layer is the GEMM program of kgen_emit.c (its own labels, its own
 * plan); an intermediate layer's epilogue rounds its results to bf16 on
 * the VPU and leaves them in VMEM (when every intermediate fits there,
 * chain_resident) or writes them to HBM as the next layer's X: the padded
 * columns of one layer (zero weights, zero bias, relu(0) = 0) are exactly
 * the zero K padding of the next.  Between layers every semaphore is
 * brought back to zero.  Each layer has its own check: layer 1 against
 * the initial X, the later ones (FLAGS 4) against the intermediate the
 * program left in HBM, itself checked bit for bit by the record before.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "kgen.h"
#include "kgen_impl.h"

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -1;
}

#define ALIGN64(x) (((x) + 63) / 64 * 64)

/* Keep every intermediate in VMEM if they all fit at its top beside each
 * layer's working set (the plans made again with what is left).  Layer
 * i's Y is laid out by its column groups: group g's rows of tn bf16
 * values from h_vmem[i] + g * h_gstride[i] (plus a batch of slack the
 * epilogue may write past the last row); layer i+1's streams read their
 * K-tiles from there.  Keeps the HBM plans (returns 0) when they do not. */
static int chain_resident(const tpu_config *cfg, kgen_chain *c)
{
    uint64_t reserve = 0;
    for (unsigned i = 0; i + 1 < c->nlayers; i++) {
        const kgen_plan *p = &c->layer[i];
        uint64_t slack = p->epi_u * p->sl * 2;
        c->h_gstride[i] = ALIGN64(c->m * p->tn * 2 + slack);
        c->h_bytes[i] = p->groups * c->h_gstride[i];
        reserve += c->h_bytes[i];
    }
    if (reserve >= cfg->vmem_bytes)
        return 0;
    tpu_config rest = *cfg;
    rest.vmem_bytes = (cfg->vmem_bytes - reserve) / 64 * 64;
    uint64_t at = rest.vmem_bytes;
    for (unsigned i = 0; i + 1 < c->nlayers; i++) {
        c->h_vmem[i] = at;
        at += c->h_bytes[i];
    }
    kgen_plan q[KGEN_MAX_LAYERS];
    kgen_cost qc[KGEN_MAX_LAYERS];
    double total = 0;
    for (unsigned i = 0; i < c->nlayers; i++) {
        kgen_gemm_opts o = c->layer[i].o;
        if (i > 0) {
            o.xres = 1;
            o.x_tn = c->layer[i - 1].tn;
            o.x_gstride = c->h_gstride[i - 1];
            o.x_vmem = c->h_vmem[i - 1];
        }
        if (i + 1 < c->nlayers) {
            o.yres = 1;
            o.y_gstride = c->h_gstride[i];
            o.y_vmem = c->h_vmem[i];
        }
        char e2[400];
        if (kgen_gemm_plan(&rest, &o, &q[i], e2, sizeof e2))
            return 0;
        if (q[i].tn != c->layer[i].tn)
            return 0;
        /* the same HBM layout as the chain through HBM (the checks read it) */
        const kgen_plan *h = &c->layer[i];
        q[i].h_x = h->h_x;
        q[i].h_w = h->h_w;
        q[i].h_b = h->h_b;
        q[i].h_y = h->h_y;
        q[i].hbm_need = h->hbm_need;
        kgen_gemm_cost(&rest, &q[i], &qc[i]);
        total += qc[i].predicted;
    }
    for (unsigned i = 0; i < c->nlayers; i++) {
        c->layer[i] = q[i];
        c->cost[i] = qc[i];
    }
    c->predicted = total;
    c->resident = 1;
    c->reserve = reserve;
    return 1;
}

int kgen_chain_plan(const tpu_config *cfg, kgen_chain *c, char *err, size_t errlen)
{
    if (c->nlayers < 1 || c->nlayers > KGEN_MAX_LAYERS)
        return fail(err, errlen, "a chain has 1 to %d layers", KGEN_MAX_LAYERS);
    uint64_t base = 0;
    c->predicted = 0;
    for (unsigned i = 0; i < c->nlayers; i++) {
        kgen_gemm_opts o;
        memset(&o, 0, sizeof o);
        o.m = c->m;
        o.k = c->dims[i];
        o.n = c->dims[i + 1];
        o.dtype = KGEN_BF16;
        o.timing_only = c->timing_only;
        o.bias = c->bias;
        o.relu = c->relu && i + 1 < c->nlayers;
        o.out_bf16 = i + 1 < c->nlayers;
        char e2[400];
        kgen_plan *p = &c->layer[i];
        if (kgen_gemm_plan(cfg, &o, p, e2, sizeof e2))
            return fail(err, errlen, "layer %u (%llu x %llu x %llu): %s", i + 1,
                        (unsigned long long)o.m, (unsigned long long)o.n,
                        (unsigned long long)o.k, e2);
        /* this layer's X is the last one's Y: move it there */
        if (i > 0) {
            uint64_t shift = base;
            p->h_x += shift;
            p->h_w += shift;
            if (p->epi & KGEN_EPI_BIAS)
                p->h_b += shift;
            p->h_y += shift;
            p->hbm_need += shift;
        }
        base = p->h_y;
        if (p->hbm_need > cfg->hbm_bytes)
            return fail(err, errlen, "the chain's data does not fit HBM: %llu bytes by layer %u, the machine '%s' has %llu",
                        (unsigned long long)p->hbm_need, i + 1, cfg->name,
                        (unsigned long long)cfg->hbm_bytes);
        c->hbm_need = p->hbm_need;
        kgen_gemm_cost(cfg, p, &c->cost[i]);
        c->predicted += c->cost[i].predicted;
    }
    c->resident = 0;
    c->reserve = 0;
    if (c->nlayers >= 2 && !c->via_hbm)
        chain_resident(cfg, c);
    return 0;
}

/* bf16 rows of `cols` values padded with zeros to `pitch` values. */
static void matrix(kgen_emitter *e, const char *label, uint64_t rows, uint64_t cols,
                   uint64_t pitch, uint64_t seed)
{
    if (cols == pitch) {
        kgen_line(e, "%s: .random bf16, %" PRIu64 ", %" PRIu64, label, rows * cols, seed);
        return;
    }
    kgen_line(e, "%s:                                     # %" PRIu64 " rows of %" PRIu64 ", padded to %" PRIu64,
              label, rows, cols, pitch);
    for (uint64_t r = 0; r < rows; r++) {
        kgen_line(e, "        .random bf16, %" PRIu64 ", %" PRIu64, cols, seed + r);
        kgen_line(e, "        .zero   %" PRIu64, (pitch - cols) * 2);
    }
}

long kgen_chain_emit(FILE *f, const char *config_name, const tpu_config *cfg,
                     const kgen_chain *c)
{
    kgen_emitter E = { f, 0, 0, &c->layer[0], "" }, *e = &E;
    kgen_line(e, "# tpu-as: --config %s", config_name);
    kgen_line(e, "#");
    kgen_line(e, "# Generated by tpu-gen mlp (sim/kernels/kgen_chain.c, docs/workloads.md); do not edit.");
    kgen_line(e, "#");
    kgen_line(e, "#   M = %" PRIu64 ", %u layers%s%s", c->m, c->nlayers, c->bias ? ", + bias" : "",
              c->relu ? ", relu between layers" : "");
    uint64_t hb = 0;
    for (unsigned i = 0; i + 1 < c->nlayers; i++)
        hb += c->m * c->layer[i].np * 2;
    if (c->nlayers < 2)
        kgen_line(e, "#   intermediates   none (one layer)");
    else if (c->resident)
        kgen_line(e, "#   intermediates   bf16 in VMEM: they fit (%" PRIu64 " bytes at the top of VMEM, by column group), no HBM round trip%s",
                  c->reserve, c->timing_only ? "" : "; copied to HBM after the last layer for the checks");
    else if (c->via_hbm)
        kgen_line(e, "#   intermediates   bf16 through HBM (asked for: --via-hbm); each layer's X is the last one's Y");
    else
        kgen_line(e, "#   intermediates   bf16 through HBM: they do not fit VMEM beside the layers (%" PRIu64 " bytes, VMEM %" PRIu64 "); each layer's X is the last one's Y",
                  hb, cfg->vmem_bytes);
    for (unsigned i = 0; c->resident && i + 1 < c->nlayers; i++)
        kgen_line(e, "#   H%u in VMEM     at %" PRIu64 ": %" PRIu64 " groups of %" PRIu64 " rows x %" PRIu64 " bf16, %" PRIu64 " bytes apart",
                  i + 1, c->h_vmem[i], c->layer[i].groups, c->m, c->layer[i].tn, c->h_gstride[i]);
    for (unsigned i = 0; i < c->nlayers; i++) {
        const kgen_plan *p = &c->layer[i];
        kgen_line(e, "#   layer %u: %" PRIu64 " x %" PRIu64 " x %" PRIu64 " (padded K %" PRIu64 ", N %" PRIu64 "), predicted %.0f cycles, %s-bound; X at %" PRIu64 ", W at %" PRIu64 ", Y at %" PRIu64,
                  i + 1, p->o.m, p->o.n, p->o.k, p->kp, p->np, c->cost[i].predicted, c->cost[i].bound,
                  p->h_x, p->h_w, p->h_y);
    }
    kgen_line(e, "#   predicted       %.0f cycles in all", c->predicted);
    kgen_line(e, "#   machine %s: %" PRIu64 " MXU%s of %" PRIu64 "x%" PRIu64, cfg->name, cfg->num_mxu,
              cfg->num_mxu > 1 ? "s" : "", cfg->mxu_n, cfg->mxu_n);
    kgen_line(e, "#");
    kgen_line(e, "        .assert MXU_N == %" PRIu64 " && NUM_MXU >= %" PRIu64 ", \"generated for %" PRIu64 "x%" PRIu64 " MXUs: assemble with --config %s\"",
              c->layer[0].n_mxu, (uint64_t)cfg->num_mxu, c->layer[0].n_mxu, c->layer[0].n_mxu, config_name);
    kgen_line(e, "        .text");
    for (unsigned i = 0; i < c->nlayers; i++) {
        char lp[16];
        snprintf(lp, sizeof lp, "A%u_", i + 1);
        e->p = &c->layer[i];
        e->lp = lp;
        kgen_line(e, "");
        kgen_line(e, "# ======== layer %u", i + 1);
        kgen_gemm_code(e, i + 1 == c->nlayers && !(c->resident && !c->timing_only));
    }
    if (c->resident && !c->timing_only) {
        /* the checks read each intermediate from HBM: copy them there
         * after the last layer (checked programs only: a --timing-only
         * program ends with the chain) */
        kgen_line(e, "");
        kgen_line(e, "# ---- for the checks: the intermediates from VMEM to their places in HBM");
        for (unsigned i = 0; i + 1 < c->nlayers; i++) {
            const kgen_plan *p = &c->layer[i];
            kgen_li(e, "s5", p->tn * 2);
            kgen_li(e, "s6", p->np * 2);
            kgen_li(e, "s3", c->m);
            for (uint64_t g = 0; g < p->groups; g++) {
                uint64_t cols = g + 1 < p->groups ? p->tn : p->np - g * p->tn;
                kgen_li(e, "s1", p->h_y + g * p->tn * 2);
                kgen_li(e, "s2", c->h_vmem[i] + g * c->h_gstride[i]);
                kgen_li(e, "s4", cols * 2);
                kgen_ins(e, "dma.v2h s1, s2, s3, s4, s5, s6, 31");
            }
        }
        kgen_ins(e, "halt                            # waits for the copies");
    }
    if (!c->timing_only) {
        kgen_line(e, "");
        kgen_line(e, "# ---- HBM: X, then for each layer W, bias, Y (the next layer's X)");
        const kgen_plan *p0 = &c->layer[0];
        kgen_line(e, "        .hbm    %" PRIu64, p0->h_x);
        matrix(e, "H0", c->m, c->dims[0], p0->kp, 1);
        for (unsigned i = 0; i < c->nlayers; i++) {
            const kgen_plan *p = &c->layer[i];
            char lab[16];
            snprintf(lab, sizeof lab, "W%u", i + 1);
            kgen_line(e, "        .hbm    %" PRIu64, p->h_w);
            matrix(e, lab, c->dims[i], c->dims[i + 1], p->np, 0x40000000ull * (i + 1));
            if (p->kp > c->dims[i])
                kgen_line(e, "        .zero   %" PRIu64 "                  # rows of padding", (p->kp - c->dims[i]) * p->np * 2);
            if (p->epi & KGEN_EPI_BIAS) {
                kgen_line(e, "        .hbm    %" PRIu64, p->h_b);
                kgen_line(e, "B%u:     .random f32, %" PRIu64 ", %u", i + 1, c->dims[i + 1], 0x7000000u + i);
                if (p->groups * p->tn > c->dims[i + 1])
                    kgen_line(e, "        .zero   %" PRIu64, (p->groups * p->tn - c->dims[i + 1]) * 4);
            }
            kgen_line(e, "        .hbm    %" PRIu64, p->h_y);
            kgen_line(e, "H%u:     .zero   %" PRIu64 "                  # %" PRIu64 " x %" PRIu64 " %s", i + 1,
                      p->y_bytes, c->m, p->np, (p->epi & KGEN_EPI_BF16) ? "bf16" : "fp32");
        }
        kgen_line(e, "");
        kgen_line(e, "# ---- checks: each layer bit for bit; a later layer's X is the intermediate in HBM");
        for (unsigned i = 0; i < c->nlayers; i++) {
            const kgen_plan *p = &c->layer[i];
            unsigned flags = p->epi | (i > 0 ? 4u : 0u);
            if (flags & 3u || flags & 12u)
                kgen_line(e, "        .expect matmul_epi H%u, H%u, W%u, %s%u, %" PRIu64 ", %" PRIu64 ", %" PRIu64 ", %u",
                          i + 1, i, i + 1, (p->epi & KGEN_EPI_BIAS) ? "B" : "H", (p->epi & KGEN_EPI_BIAS) ? i + 1 : i + 1,
                          c->m, p->kp, p->np, flags);
            else
                kgen_line(e, "        .expect matmul H%u, H%u, W%u, %" PRIu64 ", %" PRIu64 ", %" PRIu64,
                          i + 1, i, i + 1, c->m, p->kp, p->np);
        }
    }
    fflush(f);
    return ferror(f) ? -1 : E.insns;
}
