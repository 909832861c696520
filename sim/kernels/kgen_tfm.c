/*
 * kgen_tfm.c - transformer pieces as one program of stages (tpu-gen ffn,
 * tpu-gen attention; docs/transformers.md): GEMMs on the MXUs (the GEMM
 * code of kgen_emit.c, each with its own plan) and a layer on the VPU
 * (kgen_nn.c) between them, through HBM.
 *
 * Every activation is feature-major, [features][tokens] (a token per
 * lane on the VPU), so no stage needs a transpose:
 *
 *   ffn        H^T = W_in^T X^T          GEMM  M = F,  K = D,  N = T
 *              G^T = gelu(H^T), bf16     VPU   T rows of F
 *              O^T = W_out^T G^T         GEMM  M = D,  K = F,  N = T
 *
 *   attention  S^T = K Q^T               GEMM  M = Tk, K = dh, N = Tq
 *              P^T = softmax(S^T / sqrt(dh)) over the keys, bf16
 *                                        VPU   Tq rows of Tk
 *              O^T = V^T P^T             GEMM  M = dh, K = Tk, N = Tq
 *
 * The weights are stored transposed (free: they are written once), the
 * K cache token-major [Tk][dh] (appending a token writes a row) and the V
 * cache feature-major [dh][Tk] (appending a token writes a column: dh
 * DMAs of 2 bytes, or a tile of tokens at once).  Each stage checks
 * itself: the GEMM against the initial data, the VPU layer (FLAGS 4 | 8)
 * and the second GEMM (matmul_epi FLAGS 64) against the intermediates the
 * run left in HBM, each verified by the record before.
 */
#include "kgen_tfm.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "fp.h"
#include "objfile.h"
#include "ref.h"

#define ALIGN64(x) (((x) + 63) / 64 * 64)
#define LO_BITS 0xbf800000u      /* .random's default range [-1, 1) */
#define HI_BITS 0x3f800000u

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -1;
}

static int gemm(const tpu_config *cfg, kgen_plan *p, uint64_t m, uint64_t k, uint64_t n, int timing,
                const char *what, char *err, size_t errlen)
{
    kgen_gemm_opts o;
    memset(&o, 0, sizeof o);
    o.m = m, o.k = k, o.n = n, o.dtype = KGEN_BF16, o.timing_only = timing;
    char e2[400];
    if (kgen_gemm_plan(cfg, &o, p, e2, sizeof e2))
        return fail(err, errlen, "%s (%" PRIu64 " x %" PRIu64 " x %" PRIu64 "): %s", what, m, n, k, e2);
    return 0;
}

int kgen_tfm_plan(const tpu_config *cfg, kgen_tfm *t, char *err, size_t errlen)
{
    uint64_t e = (uint64_t)cfg->vpu_sublanes * cfg->vpu_lanes;
    int att = t->kind == KGEN_TFM_ATTENTION;
    const char *tn = att ? "-T" : "-T";
    if (!t->t || !t->d || !t->f)
        return fail(err, errlen, "the sizes must be positive");
    if (t->heads == 0)
        t->heads = 1;
    if (t->heads > 256)
        return fail(err, errlen, "--heads %" PRIu64 ": at most 256", t->heads);
    if (t->t > (1ull << 20) || t->d > (1ull << 16) || t->f > (1ull << 20))
        return fail(err, errlen, "too large: tokens up to 2^20, %s up to 2^16, %s up to 2^20",
                    att ? "--dh" : "-D", att ? "--kv" : "-F");
    if (e % cfg->mxu_n)
        return fail(err, errlen, "the vector's %" PRIu64 " elements are not a multiple of the MXU size %u on '%s'",
                    e, (unsigned)cfg->mxu_n, cfg->name);
    if (t->t % e)
        return fail(err, errlen, "%s %" PRIu64 " does not divide into vectors: the tokens are the VPU's lanes "
                    "(feature-major activations), so T must be a multiple of %" PRIu64 " (%ux%u) on '%s'",
                    tn, t->t, e, (unsigned)cfg->vpu_sublanes, (unsigned)cfg->vpu_lanes, cfg->name);
    /* the stages */
    uint64_t m1 = att ? t->f : t->f, k1 = t->d, m2 = t->d, k2 = t->f;
    if (gemm(cfg, &t->g1, m1, k1, t->t, t->timing_only, att ? "S^T = K Q^T" : "H^T = W_in^T X^T", err, errlen)
        || gemm(cfg, &t->g2, m2, k2, t->t, t->timing_only, att ? "O^T = V^T P^T" : "O^T = W_out^T G^T", err, errlen))
        return -1;
    kgen_nn_opts no;
    memset(&no, 0, sizeof no);
    no.op = att ? TPU_NN_SOFTMAX : TPU_NN_GELU;
    no.n = t->t;
    no.c = t->f;                 /* the GEMM's M: keys (attention) or F */
    no.scale = att ? tpu_f32_from_float((float)(1.0 / sqrt((double)t->d))) : TPU_NN_ONE;
    no.out_bf16 = 1;
    no.timing_only = t->timing_only;
    char e2[600];
    if (kgen_nn_plan_make(cfg, &no, &t->v, e2, sizeof e2))
        return fail(err, errlen, "%s: %s", att ? "the softmax" : "the GELU", e2);
    /* prenorm: X^T fp32, gamma, beta, the layernorm's scratch first */
    uint64_t a = 0;
    if (t->prenorm) {
        kgen_nn_opts lo;
        memset(&lo, 0, sizeof lo);
        lo.op = TPU_NN_LAYERNORM, lo.n = t->t, lo.c = t->d, lo.eps = t->eps;
        lo.out_bf16 = 1, lo.timing_only = t->timing_only;
        if (kgen_nn_plan_make(cfg, &lo, &t->ln, e2, sizeof e2))
            return fail(err, errlen, "the layernorm: %s", e2);
        lo.op = TPU_NN_ADD, lo.out_bf16 = 0;
        if (kgen_nn_plan_make(cfg, &lo, &t->res, e2, sizeof e2))
            return fail(err, errlen, "the residual: %s", e2);
        uint64_t xb = t->t * t->d * 4;
        t->ln.h_x = a; a = ALIGN64(a + xb);
        t->ln.h_par = a; a = ALIGN64(a + 2 * t->d * 4);
        t->ln.h_scr = a; a = ALIGN64(a + 2 * t->d * t->ln.e * 4);
    }
    /* HBM: A1 (g1's X), B1 (g1's W), Y1 (fp32), Y1' (bf16, Kp2 rows), A2 (g2's X), O */
    kgen_plan *p1 = &t->g1, *p2 = &t->g2;
    p1->h_x = a; a = ALIGN64(a + p1->x_bytes);
    p1->h_w = a; a = ALIGN64(a + p1->w_bytes);
    p1->h_y = a; a = ALIGN64(a + p1->y_bytes);
    p2->h_w = a; a = ALIGN64(a + p2->w_bytes);      /* G^T / P^T: Kp2 x T bf16 */
    p2->h_x = a; a = ALIGN64(a + p2->x_bytes);
    p2->h_y = a; a = ALIGN64(a + p2->y_bytes);
    t->v.h_x = p1->h_y;
    t->v.h_z = p2->h_w;
    if (t->prenorm) {
        t->ln.h_z = p1->h_w;                 /* the layernorm writes GEMM 1's W, bf16 */
        t->res.h_x = t->ln.h_x;              /* y = x + O */
        t->res.h_r = p2->h_y;
        t->res.h_z = a; a = ALIGN64(a + t->t * t->d * 4);
        if (p1->w_bytes != p1->kp * t->t * 2)
            return fail(err, errlen, "internal: the layernorm's output is not GEMM 1's W");
    }
    t->head_bytes = a;
    t->hbm_need = a * t->heads;
    if (p1->np != t->t || p2->np != t->t || p2->kp * 2 * t->t != p2->w_bytes)
        return fail(err, errlen, "internal: the stages' layouts disagree");
    if (t->hbm_need > cfg->hbm_bytes)
        return fail(err, errlen, "the data does not fit HBM: %" PRIu64 " bytes, the machine '%s' has %" PRIu64,
                    t->hbm_need, cfg->name, (uint64_t)cfg->hbm_bytes);
    kgen_gemm_cost(cfg, p1, &t->c1);
    kgen_gemm_cost(cfg, p2, &t->c2);
    t->predicted = (t->c1.predicted + t->v.cost.predicted + t->c2.predicted) * (double)t->heads;
    if (t->prenorm)
        t->predicted += t->ln.cost.predicted + t->res.cost.predicted;
    return 0;
}

/* rows x cols bf16, rows `pitch` values apart (zeros after the values) */
static void matrix(kgen_emitter *e, const char *label, uint64_t rows, uint64_t cols, uint64_t pitch,
                   uint64_t prow, uint64_t seed)
{
    if (cols == pitch) {
        kgen_line(e, "%s: .random bf16, %" PRIu64 ", %" PRIu64, label, rows * cols, seed);
    } else {
        kgen_line(e, "%s:                                     # %" PRIu64 " rows of %" PRIu64 ", padded to %" PRIu64,
                  label, rows, cols, pitch);
        for (uint64_t r = 0; r < rows; r++) {
            kgen_line(e, "        .random bf16, %" PRIu64 ", %" PRIu64, cols, seed + r);
            kgen_line(e, "        .zero   %" PRIu64, (pitch - cols) * 2);
        }
    }
    if (prow > rows)
        kgen_line(e, "        .zero   %" PRIu64 "                  # rows of padding", (prow - rows) * pitch * 2);
}

/* The same values, as the fills make them. */
static void matrix_data(uint16_t *out, uint64_t rows, uint64_t cols, uint64_t pitch, uint64_t prow,
                        uint64_t seed)
{
    memset(out, 0, prow * pitch * 2);
    for (uint64_t r = 0; r < rows; r++)
        for (uint64_t c = 0; c < cols; c++)
            out[r * pitch + c] = (uint16_t)(tpu_fill_random_f32(cols == pitch ? seed : seed + r,
                                                                cols == pitch ? r * cols + c : c,
                                                                LO_BITS, HI_BITS, 1) >> 16);
}

#define SEED_A1 0x100u
#define SEED_B1 0x20000u
#define SEED_A2 0x300000u
#define SEED_HEAD 0x1000000ull   /* head h's seeds: + h x this */
#define SEED_RES 0x500u          /* prenorm: x, gamma, beta */

long kgen_tfm_emit(FILE *f, const char *config_name, const tpu_config *cfg, const kgen_tfm *t)
{
    int att = t->kind == KGEN_TFM_ATTENTION;
    const kgen_plan *p1 = &t->g1, *p2 = &t->g2;
    kgen_emitter E = { f, 0, 0, p1, "" }, *e = &E;
    kgen_line(e, "# tpu-as: --config %s", config_name);
    kgen_line(e, "#");
    kgen_line(e, "# Generated by tpu-gen %s (sim/kernels/kgen_tfm.c, docs/transformers.md); do not edit.",
              att ? "attention" : "ffn");
    kgen_line(e, "#");
    if (att) {
        kgen_line(e, "#   %" PRIu64 " head%s, one after the other: Tq = %" PRIu64 " queries, Tk = %" PRIu64 " keys, dh = %" PRIu64 "; feature-major:",
                  t->heads, t->heads > 1 ? "s" : "", t->t, t->f, t->d);
        kgen_line(e, "#   S^T = K Q^T (K [Tk][dh] token-major, Q^T [dh][Tq]), P^T = softmax over the keys of S^T / sqrt(dh)");
        kgen_line(e, "#   (bf16), O^T = V^T P^T (V^T [dh][Tk]): O^T [dh][Tq] fp32");
    } else {
        kgen_line(e, "#   T = %" PRIu64 " tokens, D = %" PRIu64 ", F = %" PRIu64 "; feature-major: H^T = W_in^T X^T,", t->t, t->d, t->f);
        kgen_line(e, "#   G^T = gelu(H^T) (bf16), O^T = W_out^T G^T: O^T [D][T] fp32; bf16 weights");
        if (t->prenorm)
            kgen_line(e, "#   pre-norm and residual: X^T = layernorm(x^T) (bf16) first, y^T = x^T + O^T (fp32) last");
    }
    kgen_line(e, "#   GEMM 1 %" PRIu64 " x %" PRIu64 " x %" PRIu64 ": predicted %.0f cycles, %s-bound", p1->o.m, p1->o.n, p1->o.k,
              t->c1.predicted, t->c1.bound);
    kgen_line(e, "#   VPU    %s, %" PRIu64 " tiles of %" PRIu64 " tokens: predicted %.0f cycles, %s-bound",
              kgen_nn_names[t->v.o.op], t->v.tiles, t->v.rb * t->v.e, t->v.cost.predicted, t->v.cost.bound);
    kgen_line(e, "#   GEMM 2 %" PRIu64 " x %" PRIu64 " x %" PRIu64 ": predicted %.0f cycles, %s-bound", p2->o.m, p2->o.n, p2->o.k,
              t->c2.predicted, t->c2.bound);
    kgen_line(e, "#   predicted       %.0f cycles in all%s", t->predicted, t->heads > 1 ? " (every head)" : "");
    kgen_line(e, "#");
    kgen_line(e, "        .assert MXU_N == %" PRIu64 " && NUM_MXU >= %" PRIu64 " && VPU_SUBLANES * VPU_LANES == %" PRIu64
              ", \"generated for another machine: assemble with --config %s\"",
              p1->n_mxu, (uint64_t)cfg->num_mxu, t->v.e, config_name);
    kgen_line(e, "        .text");
    if (t->prenorm) {
        kgen_line(e, "");
        kgen_line(e, "# ======== the layernorm on the VPU: X^T = layernorm(x^T), bf16");
        kgen_nn_code(e, &t->ln);
    }
    for (uint64_t h = 0; h < t->heads; h++) {
        uint64_t off = h * t->head_bytes;
        kgen_plan q1 = *p1, q2 = *p2;
        kgen_nn_plan qv = t->v;
        q1.h_x += off, q1.h_w += off, q1.h_y += off;
        q2.h_x += off, q2.h_w += off, q2.h_y += off;
        qv.h_x += off, qv.h_z += off;
        char lp1[32], lp2[32];
        snprintf(lp1, sizeof lp1, "H%" PRIu64 "A1_", h);
        snprintf(lp2, sizeof lp2, "H%" PRIu64 "A2_", h);
        e->p = &q1;
        e->lp = lp1;
        kgen_line(e, "");
        if (t->heads > 1)
            kgen_line(e, "# ======== head %" PRIu64 ": GEMM 1", h);
        else
            kgen_line(e, "# ======== GEMM 1");
        kgen_gemm_code(e, 0);
        kgen_line(e, "");
        kgen_line(e, "# ======== %s on the VPU", kgen_nn_names[t->v.o.op]);
        kgen_nn_code(e, &qv);
        e->p = &q2;
        e->lp = lp2;
        kgen_line(e, "");
        kgen_line(e, "# ======== GEMM 2");
        kgen_gemm_code(e, h + 1 == t->heads && !t->prenorm);
    }
    if (t->prenorm) {
        kgen_line(e, "");
        kgen_line(e, "# ======== the residual on the VPU: y^T = x^T + O^T");
        kgen_nn_code(e, &t->res);
        kgen_ins(e, "halt");
    }
    if (!t->timing_only) {
        const char *n1 = att ? "KC" : "WIN", *b1 = att ? "QT" : "XT", *y1 = att ? "S" : "H";
        const char *z1 = att ? "P" : "G", *n2 = att ? "VT" : "WOUT", *y2 = "O";
        for (uint64_t h = 0; h < t->heads; h++) {
            uint64_t off = h * t->head_bytes, sd = h * SEED_HEAD;
            char sfx[24] = "";
            if (t->heads > 1)
                snprintf(sfx, sizeof sfx, "%" PRIu64, h);
            char l1[32], l2[32], l3[32], l4[32], l5[32], l6[32];
            snprintf(l1, sizeof l1, "%s%s", n1, sfx);
            snprintf(l2, sizeof l2, "%s%s", b1, sfx);
            snprintf(l3, sizeof l3, "%s%s", y1, sfx);
            snprintf(l4, sizeof l4, "%s%s", z1, sfx);
            snprintf(l5, sizeof l5, "%s%s", n2, sfx);
            snprintf(l6, sizeof l6, "%s%s", y2, sfx);
            kgen_line(e, "");
            if (t->heads > 1)
                kgen_line(e, "# ---- HBM, head %" PRIu64, h);
            else
                kgen_line(e, "# ---- HBM");
            kgen_line(e, "        .hbm    %" PRIu64, p1->h_x + off);
            matrix(e, l1, p1->o.m, p1->o.k, p1->kp, p1->o.m, SEED_A1 + sd);
            if (t->prenorm) {
                kgen_line(e, "        .hbm    %" PRIu64, t->ln.h_x);
                kgen_line(e, "XRES: .random f32, %" PRIu64 ", %u, -2.0, 2.0   # x^T [D][T] fp32, the residual stream",
                          t->d * t->t, SEED_RES);
                kgen_line(e, "        .hbm    %" PRIu64, t->ln.h_par);
                kgen_line(e, "GAMMA: .random f32, %" PRIu64 ", %u, 0.5, 1.5", t->d, SEED_RES + 1);
                kgen_line(e, "BETA:  .random f32, %" PRIu64 ", %u, -0.5, 0.5", t->d, SEED_RES + 2);
                kgen_line(e, "        .hbm    %" PRIu64, p1->h_w);
                kgen_line(e, "%s:      .zero   %" PRIu64 "                  # [%" PRIu64 "][%" PRIu64 "] bf16: the layernorm's output",
                          l2, p1->w_bytes, p1->kp, p1->np);
            } else {
                kgen_line(e, "        .hbm    %" PRIu64, p1->h_w + off);
                matrix(e, l2, p1->o.k, p1->np, p1->np, p1->kp, SEED_B1 + sd);
            }
            kgen_line(e, "        .hbm    %" PRIu64, p1->h_y + off);
            kgen_line(e, "%s:      .zero   %" PRIu64 "                  # [%" PRIu64 "][%" PRIu64 "] fp32", l3, p1->y_bytes, p1->o.m, p1->np);
            kgen_line(e, "        .hbm    %" PRIu64, p2->h_w + off);
            kgen_line(e, "%s:      .zero   %" PRIu64 "                  # [%" PRIu64 "][%" PRIu64 "] bf16 (rows past %" PRIu64 " stay zero)",
                      l4, p2->w_bytes, p2->kp, p2->np, p2->o.k);
            kgen_line(e, "        .hbm    %" PRIu64, p2->h_x + off);
            matrix(e, l5, p2->o.m, p2->o.k, p2->kp, p2->o.m, SEED_A2 + sd);
            kgen_line(e, "        .hbm    %" PRIu64, p2->h_y + off);
            kgen_line(e, "%s:      .zero   %" PRIu64 "                  # [%" PRIu64 "][%" PRIu64 "] fp32", l6, p2->y_bytes, p2->o.m, p2->np);
            if (t->prenorm) {
                kgen_line(e, "        .hbm    %" PRIu64, t->res.h_z);
                kgen_line(e, "Y:      .zero   %" PRIu64 "                  # [%" PRIu64 "][%" PRIu64 "] fp32: x^T + O^T",
                          t->d * t->t * 4, t->d, t->t);
                kgen_line(e, "");
                kgen_line(e, "# ---- checks, bit for bit: each stage against the one before (numerics.md 5, 12)");
                kgen_line(e, "        .expect layernorm %s, XRES, GAMMA, BETA, %" PRIu64 ", %" PRIu64 ", 0x%08x, 8", l2,
                          t->t, t->d, t->eps);
                kgen_line(e, "        .expect matmul_epi %s, %s, %s, %s, %" PRIu64 ", %" PRIu64 ", %" PRIu64 ", 64", l3, l1, l2,
                          l3, p1->o.m, p1->kp, p1->np);
            } else {
                kgen_line(e, "");
                kgen_line(e, "# ---- checks, bit for bit: each stage against the one before (numerics.md 5, 12)");
                kgen_line(e, "        .expect matmul %s, %s, %s, %" PRIu64 ", %" PRIu64 ", %" PRIu64, l3, l1, l2, p1->o.m, p1->kp, p1->np);
            }
            if (att)
                kgen_line(e, "        .expect softmax_s %s, %s, %" PRIu64 ", %" PRIu64 ", 0x%08x, 12", l4, l3, t->v.o.n,
                          t->v.o.c, t->v.o.scale);
            else
                kgen_line(e, "        .expect gelu %s, %s, %" PRIu64 ", 12", l4, l3, t->v.o.n * t->v.o.c);
            kgen_line(e, "        .expect matmul_epi %s, %s, %s, %s, %" PRIu64 ", %" PRIu64 ", %" PRIu64 ", 64", l6, l5, l4, l6,
                      p2->o.m, p2->kp, p2->np);
            if (t->prenorm)
                kgen_line(e, "        .expect residual Y, XRES, %s, %" PRIu64 ", 64", l6, t->d * t->t);
        }
    }
    fflush(f);
    return ferror(f) ? -1 : E.insns;
}

int kgen_tfm_error(const kgen_tfm *t, kgen_tfm_err *r)
{
    const kgen_plan *p1 = &t->g1, *p2 = &t->g2;
    uint64_t T = t->t, m1 = p1->o.m, kp1 = p1->kp, m2 = p2->o.m, kp2 = p2->kp;
    memset(r, 0, sizeof *r);
    uint16_t *a1 = malloc(m1 * kp1 * 2), *b1 = malloc(kp1 * T * 2), *a2 = malloc(m2 * kp2 * 2);
    uint16_t *zb = calloc(kp2 * T, 2);
    uint32_t *y1 = malloc(m1 * T * 4), *z = malloc(m1 * T * 4), *y2 = malloc(m2 * T * 4);
    uint32_t *tmp = malloc(m1 * 4);
    double *d1 = malloc(m1 * T * sizeof(double)), *dz = malloc(m1 * T * sizeof(double));
    double *d2 = calloc(m2 * T, sizeof(double));
    double *b1d = malloc(kp1 * T * sizeof(double));
    uint32_t *xr = NULL, *gm = NULL, *bt = NULL, *xn = NULL, *ltmp = NULL;
    int rc = -1;
    if (!a1 || !b1 || !a2 || !zb || !y1 || !z || !y2 || !tmp || !d1 || !dz || !d2 || !b1d)
        goto out;
    matrix_data(a1, m1, p1->o.k, kp1, m1, SEED_A1);
    if (t->prenorm) {
        /* GEMM 1's W is the layernorm of x^T: the program's bits rounded to bf16, float64 exact */
        uint64_t D = t->d;
        xr = malloc(D * T * 4), gm = malloc(D * 4), bt = malloc(D * 4), xn = malloc(D * T * 4);
        ltmp = malloc(D * 4);
        double *xd = malloc(D * T * sizeof(double));
        if (!xr || !gm || !bt || !xn || !ltmp || !xd) {
            free(xd);
            goto out;
        }
        for (uint64_t i = 0; i < D * T; i++)
            xr[i] = tpu_fill_random_f32(SEED_RES, i, 0xc0000000u, 0x40000000u, 0);
        for (uint64_t i = 0; i < D; i++) {
            gm[i] = tpu_fill_random_f32(SEED_RES + 1, i, 0x3f000000u, 0x3fc00000u, 0);
            bt[i] = tpu_fill_random_f32(SEED_RES + 2, i, 0xbf000000u, 0x3f000000u, 0);
        }
        tpu_nn_params lp = { TPU_NN_LAYERNORM, D, gm, bt, t->eps, 0, NULL };
        tpu_ref_nn(&lp, xr, xn, T, T, ltmp);
        tpu_ref_nn_f64(&lp, xr, xd, T, T);
        memset(b1, 0, kp1 * T * 2);
        for (uint64_t i = 0; i < kp1 * T; i++)
            b1d[i] = i < D * T ? xd[i] : 0.0;
        for (uint64_t i = 0; i < D * T; i++)
            b1[i] = tpu_bf16_from_f32(xn[i]);
        free(xd);
    } else {
        matrix_data(b1, p1->o.k, T, T, kp1, SEED_B1);
        for (uint64_t i = 0; i < kp1 * T; i++)
            b1d[i] = (double)tpu_f32_to_float((uint32_t)b1[i] << 16);
    }
    matrix_data(a2, m2, p2->o.k, kp2, m2, SEED_A2);
    /* the program's bits */
    if (tpu_ref_matmul(a1, b1, y1, m1, kp1, T, (unsigned)p1->n_mxu) < 0)
        goto out;
    tpu_nn_params np = { t->v.o.op, m1, NULL, NULL, 0, t->v.o.scale, NULL };
    if (t->v.o.op == TPU_NN_SOFTMAX)
        tpu_ref_nn(&np, y1, z, T, T, tmp);
    else
        for (uint64_t i = 0; i < m1 * T; i++)
            z[i] = tpu_nn_gelu(y1[i]);
    for (uint64_t i = 0; i < m1 * T; i++)
        zb[i] = tpu_bf16_from_f32(z[i]);
    if (tpu_ref_matmul(a2, zb, y2, m2, kp2, T, (unsigned)p2->n_mxu) < 0)
        goto out;
    /* float64 from the same bf16 inputs, nothing rounded on the way */
    for (uint64_t i = 0; i < m1; i++)
        for (uint64_t j = 0; j < T; j++) {
            double s = 0;
            for (uint64_t k = 0; k < p1->o.k; k++)
                s += (double)tpu_f32_to_float((uint32_t)a1[i * kp1 + k] << 16) * b1d[k * T + j];
            d1[i * T + j] = s;
        }
    if (t->v.o.op == TPU_NN_SOFTMAX) {
        double sc = 1.0 / sqrt((double)t->d);
        for (uint64_t j = 0; j < T; j++) {
            double m = -INFINITY, s = 0;
            for (uint64_t i = 0; i < m1; i++)
                m = fmax(m, sc * d1[i * T + j]);
            for (uint64_t i = 0; i < m1; i++)
                s += exp(sc * d1[i * T + j] - m);
            for (uint64_t i = 0; i < m1; i++)
                dz[i * T + j] = exp(sc * d1[i * T + j] - m) / s;
        }
    } else {
        const double kk = sqrt(2.0 / 3.14159265358979323846);
        for (uint64_t i = 0; i < m1 * T; i++) {
            double v = d1[i];
            dz[i] = 0.5 * v * (1.0 + tanh(kk * (v + 0.044715 * v * v * v)));
        }
    }
    for (uint64_t i = 0; i < m2; i++)
        for (uint64_t k = 0; k < p2->o.k; k++) {
            double a = (double)tpu_f32_to_float((uint32_t)a2[i * kp2 + k] << 16);
            for (uint64_t j = 0; j < T; j++)
                d2[i * T + j] += a * dz[k * T + j];
        }
    if (t->prenorm)                          /* the residual: y = x + O */
        for (uint64_t i = 0; i < m2 * T; i++) {
            y2[i] = tpu_f32_add(xr[i], y2[i]);
            d2[i] += (double)tpu_f32_to_float(xr[i]);
        }
    double mx = 0;
    for (uint64_t i = 0; i < m2 * T; i++)
        mx = fmax(mx, fabs(d2[i]));
    tpu_nn_error_add(&r->e, y2, d2, m2 * T, 1e-2 * mx, 0);
    r->max_exact = mx;
    rc = 0;
out:
    free(a1); free(b1); free(a2); free(zb); free(y1); free(z); free(y2); free(tmp);
    free(d1); free(dz); free(d2); free(b1d);
    free(xr); free(gm); free(bt); free(xn); free(ltmp);
    return rc;
}
