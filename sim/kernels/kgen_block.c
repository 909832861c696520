/*
 * kgen_block.c - a pre-norm transformer block on one core (tpu-gen block,
 * kgen_block.h; docs/transformers.md "The block").  Every activation is
 * feature-major ([features][tokens], a token per VPU lane); the stages go
 * through HBM, each with its own plan, every semaphore back at zero
 * between them:
 *
 *   1  X^T    = layernorm(x^T), bf16                     VPU
 *   2  QKV^T  = Wqkv^T X^T, bf16 (the GEMM's epilogue)   MXU  M = 3D, K = D, N = T
 *   3  the KV cache: per head, K_h^T [dh][T] -> K_h [Tk][kp] token-major
 *      (a DMA per feature: rows of 2 bytes, the transpose), V_h^T -> V_h
 *      [dh][Tk] (one 2-D DMA); in decode after the past P tokens' rows
 *   per head h:
 *   4  S^T    = K_h Q_h^T                                MXU  M = Tk, K = dh, N = T
 *   5  P^T    = softmax over the keys (scale 1/sqrt(dh), causal: -inf
 *               after the query), bf16                   VPU
 *   6  O^T    rows h dh .. = V_h^T P^T, bf16             MXU  M = dh, K = Tk, N = T
 *   7  Y1^T   = Wo^T O^T                                 MXU  M = D, K = D, N = T
 *   8  x1^T   = x^T + Y1^T                               VPU
 *   9  X2^T   = layernorm(x1^T), bf16                    VPU
 *   10 H^T    = Win^T X2^T                               MXU  M = F, K = D, N = T
 *   11 G^T    = gelu(H^T), bf16                          VPU
 *   12 O2^T   = Wout^T G^T                               MXU  M = D, K = F, N = T
 *   13 y^T    = x1^T + O2^T                              VPU
 *
 * Stages 4-6 go flash-style, a block of keys at a time, when one softmax
 * tile of all the keys does not fit VMEM (kgen_block_flash.c).  Decode
 * (--decode --past P): the cache's first P keys are data, the new tokens'
 * K and V follow them, the queries sit at P ..; a few new tokens are padded
 * to whole vectors with zero tokens that are no keys.
 *
 * Q_h^T is rows h dh .. of QKV^T used as the GEMM's stationary operand:
 * when dh is not a multiple of the MXU's N its K-tile reads the rows after
 * them (the next head's), which meet K_h's zero padding columns: +-0
 * products, the same sums.  Each stage checks itself against the one
 * before (.expect, FLAGS 4 / 64: an operand read after the run); the
 * causal softmax has no .expect of its own and is checked through the
 * whole block (--ref, tests/transformer.sh).
 */
#include "kgen_block.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "fp.h"
#include "objfile.h"

#define ALIGN64(x) (((x) + 63) / 64 * 64)

#define SEED_X 0x700u
#define SEED_QKV 0x10000u
#define SEED_WO 0x20000u
#define SEED_WIN 0x30000u
#define SEED_WOUT 0x40000u
#define SEED_KP 0x50000u          /* decode: head h's past K rows: + h x 0x1000 (+ row) */
#define SEED_VP 0x60000u

int kgen_block_fail(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -1;
}

int kgen_block_gemm(const tpu_config *cfg, kgen_plan *p, uint64_t m, uint64_t k, uint64_t n, int bf16, int timing,
                    const char *what, char *err, size_t errlen)
{
    kgen_gemm_opts o;
    memset(&o, 0, sizeof o);
    o.m = m, o.k = k, o.n = n, o.dtype = KGEN_BF16, o.timing_only = timing, o.out_bf16 = bf16;
    char e2[400];
    if (kgen_gemm_plan(cfg, &o, p, e2, sizeof e2))
        return kgen_block_fail(err, errlen, "%s (%" PRIu64 " x %" PRIu64 " x %" PRIu64 "): %s", what, m, n, k, e2);
    return 0;
}

static int nn(const tpu_config *cfg, kgen_nn_plan *p, tpu_nn_op op, uint64_t n, uint64_t c, int bf16,
              const kgen_block *b, const char *what, char *err, size_t errlen)
{
    kgen_nn_opts o;
    memset(&o, 0, sizeof o);
    o.op = op, o.n = n, o.c = c, o.out_bf16 = bf16, o.timing_only = b->timing_only, o.eps = b->eps;
    if (op == TPU_NN_SOFTMAX) {
        o.scale = tpu_f32_from_float((float)(1.0 / sqrt((double)b->dh)));
        o.causal = b->causal;
    }
    char e2[600];
    if (kgen_nn_plan_make(cfg, &o, p, e2, sizeof e2))
        return kgen_block_fail(err, errlen, "%s: %s", what, e2);
    return 0;
}

/* the weights' range: +-2^-k, about 1/sqrt(K) (times 4 for Q, K, V: a softmax that is not flat) */
static double wrange(uint64_t k, int qkv)
{
    int l = 0;
    while ((1ull << (2 * l)) < k)
        l++;                                  /* 2^l >= sqrt(k) */
    return ldexp(1.0, -l + (qkv ? 2 : 0));
}

/* a head's attention: S, softmax, PV; flash: per block S_j, the step, P_j V_j, the update; the end */
static double head_predicted(const kgen_block *b)
{
    if (!b->flash)
        return b->c_sc.predicted + b->sm.cost.predicted + b->c_av.predicted;
    return (double)(b->nb - 1) * b->c_sc.predicted + b->c_sc_last.predicted
           + (double)b->nb * b->c_avf.predicted + b->t_flash;
}

int kgen_block_plan(const tpu_config *cfg, kgen_block *b, char *err, size_t errlen)
{
    b->e = (uint64_t)cfg->vpu_sublanes * cfg->vpu_lanes;
    uint64_t T = b->t, D = b->d, F = b->f, H = b->heads ? b->heads : 1, N = cfg->mxu_n;
    b->heads = H;
    if (b->decode)
        b->causal = 1;                        /* a new token sees the past and itself */
    if (!T || !D || !F)
        return kgen_block_fail(err, errlen, "the sizes must be positive");
    if (H > 256)
        return kgen_block_fail(err, errlen, "--heads %" PRIu64 ": at most 256", H);
    if (T > (1ull << 20) || D > (1ull << 16) || F > (1ull << 20) || b->past > (1ull << 20))
        return kgen_block_fail(err, errlen, "too large: -T and --past up to 2^20, -D up to 2^16, -F up to 2^20");
    if (D % H)
        return kgen_block_fail(err, errlen, "-D %" PRIu64 " does not divide into %" PRIu64 " heads", D, H);
    b->dh = D / H;
    b->tk = b->past + T;
    if (b->e % N)
        return kgen_block_fail(err, errlen, "the vector's %" PRIu64 " elements are not a multiple of the MXU size %" PRIu64 " on '%s'",
                    b->e, N, cfg->name);
    if (T % b->e && !b->decode)
        return kgen_block_fail(err, errlen, "-T %" PRIu64 " does not divide into vectors: the tokens are the VPU's lanes "
                    "(feature-major activations), so T must be a multiple of %" PRIu64 " (%ux%u) on '%s'",
                    T, b->e, (unsigned)cfg->vpu_sublanes, (unsigned)cfg->vpu_lanes, cfg->name);
    /* decode: the new tokens padded to whole vectors with zero tokens after them
     * (causal: no real query sees their keys; their K and V rows in the cache
     * are overwritten by the next step's) */
    b->tp = (T + b->e - 1) / b->e * b->e;
    T = b->tp;
    if (b->past % N)
        return kgen_block_fail(err, errlen, "--past %" PRIu64 " must be a multiple of the MXU size %" PRIu64 " on '%s' "
                    "(the keys are the last GEMM's K-tiles)", b->past, N, cfg->name);
    uint64_t dh = b->dh, tk = b->tk;
    int to = b->timing_only;
    /* the plans */
    if (nn(cfg, &b->ln1, TPU_NN_LAYERNORM, T, D, 1, b, "the first layernorm", err, errlen)
        || kgen_block_gemm(cfg, &b->qkv, 3 * D, D, T, 1, to, "QKV^T = Wqkv^T X^T", err, errlen)
        || kgen_block_gemm(cfg, &b->wo, D, D, T, 0, to, "Y1^T = Wo^T O^T", err, errlen)
        || nn(cfg, &b->res1, TPU_NN_ADD, T, D, 0, b, "the first residual", err, errlen)
        || nn(cfg, &b->ln2, TPU_NN_LAYERNORM, T, D, 1, b, "the second layernorm", err, errlen)
        || kgen_block_gemm(cfg, &b->win, F, D, T, 0, to, "H^T = Win^T X2^T", err, errlen)
        || nn(cfg, &b->gl, TPU_NN_GELU, T, F, 1, b, "the GELU", err, errlen)
        || kgen_block_gemm(cfg, &b->wout, D, F, T, 0, to, "O2^T = Wout^T G^T", err, errlen)
        || nn(cfg, &b->res2, TPU_NN_ADD, T, D, 0, b, "the second residual", err, errlen))
        return -1;
    /* attention: one softmax over all the keys when its tile fits VMEM
     * (or --key-block covers them), else flash, a block of keys at a time */
    char e_sm[800];
    b->flash = 0;
    if (!b->key_block || b->key_block >= (tk + N - 1) / N * N) {
        if (nn(cfg, &b->sm, TPU_NN_SOFTMAX, T, tk, 1, b, "the softmax over the keys", e_sm, sizeof e_sm) == 0)
            b->flash = 0;
        else if (b->key_block)
            return kgen_block_fail(err, errlen, "%s", e_sm);
        else
            b->flash = 1;
    } else {
        b->flash = 1;
    }
    if (!b->flash) {
        if (kgen_block_gemm(cfg, &b->sc, tk, dh, T, 0, to, "S^T = K_h Q_h^T", err, errlen)
            || kgen_block_gemm(cfg, &b->av, dh, tk, T, 1, to, "O_h^T = V_h^T P^T", err, errlen))
            return -1;
        b->nb = 1;
        b->kb = b->vpitch = b->av.kp;
    } else if (kgen_flash_plan(cfg, b, err, errlen)) {
        return -1;
    }
    /* the KV cache write: a chunk of tc tokens of K_h^T and V_h^T in VMEM */
    b->tc = b->t;
    while (2 * ALIGN64(dh * b->tc * 2) > cfg->vmem_bytes && b->tc % 2 == 0 && b->tc > 1)
        b->tc /= 2;
    if (2 * ALIGN64(dh * b->tc * 2) > cfg->vmem_bytes)
        return kgen_block_fail(err, errlen, "the KV cache write: VMEM cannot hold one chunk of K^T and V^T "
                    "(2 x %" PRIu64 " x %" PRIu64 " bf16), the machine '%s' has %" PRIu64 " bytes",
                    dh, b->tc, cfg->name, (uint64_t)cfg->vmem_bytes);
    b->v_kt = 0;
    /* HBM */
    uint64_t a = 0;
    kgen_nn_plan *l1 = &b->ln1, *l2 = &b->ln2;
    l1->h_x = a; a = ALIGN64(a + D * T * 4);                 /* x^T, the residual stream */
    l1->h_par = a; a = ALIGN64(a + 2 * D * 4);
    l1->h_scr = a; a = ALIGN64(a + 2 * D * l1->e * 4);
    b->qkv.h_w = a; a = ALIGN64(a + b->qkv.w_bytes);        /* X^T, bf16 */
    l1->h_z = b->qkv.h_w;
    b->qkv.h_x = a; a = ALIGN64(a + b->qkv.x_bytes);        /* Wqkv^T */
    b->qkv.h_y = b->h_qkv = a; a = ALIGN64(a + b->qkv.y_bytes + b->sc.kp * T * 2);   /* QKV^T (+ rows read as padding) */
    /* a head's block: K_h [tk][kp], V_h nb x [dh][vpitch], S_h [tk][T] fp32,
     * P_h nb x [vpitch][T] bf16; flash: m, l, the correction [T] fp32 each,
     * O_acc [dh][T] and the blocks' O_j nb x [dh][T] fp32 */
    b->o_kh = 0;
    uint64_t hb = ALIGN64(tk * b->sc.kp * 2);
    b->o_v = hb; hb = ALIGN64(hb + b->nb * dh * b->vpitch * 2);
    b->o_s = hb; hb = ALIGN64(hb + tk * T * 4);
    b->o_p = hb; hb = ALIGN64(hb + b->nb * b->vpitch * T * 2);
    if (b->flash) {
        b->o_m = hb; hb = ALIGN64(hb + T * 4);
        b->o_l = hb; hb = ALIGN64(hb + T * 4);
        b->o_c = hb; hb = ALIGN64(hb + T * 4);
        b->o_acc = hb; hb = ALIGN64(hb + dh * T * 4);
        b->o_oj = hb; hb = ALIGN64(hb + b->nb * dh * T * 4);
    }
    b->head_bytes = hb;
    b->h_head = a; a += H * hb;
    b->h_ob = a; a = ALIGN64(a + b->wo.w_bytes);            /* O^T, bf16, the heads side by side */
    b->wo.h_w = b->h_ob;
    b->wo.h_x = a; a = ALIGN64(a + b->wo.x_bytes);
    b->wo.h_y = a; a = ALIGN64(a + b->wo.y_bytes);          /* Y1^T */
    b->res1.h_x = l1->h_x;
    b->res1.h_r = b->wo.h_y;
    b->res1.h_z = a; a = ALIGN64(a + D * T * 4);            /* x1^T */
    l2->h_x = b->res1.h_z;
    l2->h_par = a; a = ALIGN64(a + 2 * D * 4);
    l2->h_scr = a; a = ALIGN64(a + 2 * D * l2->e * 4);
    b->win.h_w = a; a = ALIGN64(a + b->win.w_bytes);        /* X2^T */
    l2->h_z = b->win.h_w;
    b->win.h_x = a; a = ALIGN64(a + b->win.x_bytes);
    b->win.h_y = a; a = ALIGN64(a + b->win.y_bytes);        /* H^T */
    b->gl.h_x = b->win.h_y;
    b->wout.h_w = a; a = ALIGN64(a + b->wout.w_bytes);      /* G^T */
    b->gl.h_z = b->wout.h_w;
    b->wout.h_x = a; a = ALIGN64(a + b->wout.x_bytes);
    b->wout.h_y = a; a = ALIGN64(a + b->wout.y_bytes);      /* O2^T */
    b->res2.h_x = b->res1.h_z;
    b->res2.h_r = b->wout.h_y;
    b->res2.h_z = a; a = ALIGN64(a + D * T * 4);            /* y^T */
    b->h_qpos = a; a = ALIGN64(a + T * 4);
    b->sm.o.h_qpos = b->h_qpos;
    b->hbm_need = a;
    if (b->qkv.w_bytes != b->qkv.kp * T * 2 || b->win.w_bytes != b->win.kp * T * 2
        || b->wo.w_bytes != b->wo.kp * T * 2 || b->wout.w_bytes != b->wout.kp * T * 2
        || b->sc.np != T || (!b->flash && (b->av.w_bytes != b->av.kp * T * 2 || b->av.x_bytes != dh * b->av.kp * 2)))
        return kgen_block_fail(err, errlen, "internal: the stages' layouts disagree");
    if (b->hbm_need > cfg->hbm_bytes)
        return kgen_block_fail(err, errlen, "the data does not fit HBM: %" PRIu64 " bytes, the machine '%s' has %" PRIu64,
                    b->hbm_need, cfg->name, (uint64_t)cfg->hbm_bytes);
    /* the cost model */
    kgen_gemm_cost(cfg, &b->qkv, &b->c_qkv);
    kgen_gemm_cost(cfg, &b->sc, &b->c_sc);
    if (b->flash) {
        kgen_gemm_cost(cfg, &b->sc_last, &b->c_sc_last);
        kgen_gemm_cost(cfg, &b->avf, &b->c_avf);
    } else {
        kgen_gemm_cost(cfg, &b->av, &b->c_av);
    }
    kgen_gemm_cost(cfg, &b->wo, &b->c_wo);
    kgen_gemm_cost(cfg, &b->win, &b->c_win);
    kgen_gemm_cost(cfg, &b->wout, &b->c_wout);
    uint64_t num, den;
    tpu_config_bytes_per_cycle(cfg->hbm_bw, cfg->clock_hz, &num, &den);
    double bw = (double)num / (double)den, L = (double)cfg->hbm_latency;
    double eng = (double)cfg->dma_engines, chunks = (double)((b->t + b->tc - 1) / b->tc), kb = (double)(dh * b->tc * 2);
    double nd = (double)(dh < b->tc ? dh : b->tc);       /* the transpose's DMAs: per feature or per token */
    double per_chunk = 2.0 * (L + kb / bw) + ceil(nd / eng) * (L + (double)(dh * b->tc) / nd * 2.0 / bw)
                       + 2.0 * (L + kb / bw) + 8.0;
    b->t_transpose = (double)H * chunks * per_chunk;
    b->predicted = b->ln1.cost.predicted + b->c_qkv.predicted + b->t_transpose
                   + (double)H * head_predicted(b)
                   + b->c_wo.predicted + b->res1.cost.predicted + b->ln2.cost.predicted + b->c_win.predicted
                   + b->gl.cost.predicted + b->c_wout.predicted + b->res2.cost.predicted;
    uint64_t hf = b->flash ? (b->nb - 1) * b->c_sc.flops + b->c_sc_last.flops + b->nb * b->c_avf.flops
                           : b->c_sc.flops + b->c_av.flops;
    uint64_t hbb = b->flash ? (b->nb - 1) * b->c_sc.hbm_bytes + b->c_sc_last.hbm_bytes + b->nb * b->c_avf.hbm_bytes
                              + b->nb * (tk * T * 6 / b->nb + 4 * T * 4) + b->nb * 3 * dh * T * 4 + dh * T * 6
                            : b->c_sc.hbm_bytes + b->sm.cost.hbm_bytes + b->c_av.hbm_bytes;
    b->flops = b->c_qkv.flops + H * hf + b->c_wo.flops + b->c_win.flops + b->c_wout.flops;
    b->hbm_bytes = b->ln1.cost.hbm_bytes + b->c_qkv.hbm_bytes + H * (4 * dh * T * 2)
                   + H * hbb + b->c_wo.hbm_bytes
                   + b->res1.cost.hbm_bytes + b->ln2.cost.hbm_bytes + b->c_win.hbm_bytes
                   + b->gl.cost.hbm_bytes + b->c_wout.hbm_bytes + b->res2.cost.hbm_bytes;
    return 0;
}

/* ---- data ---- */

static uint32_t fbits(double v) { return tpu_f32_from_float((float)v); }

/* rows x cols bf16 in [-a, a), rows `pitch` values apart (zeros after) */
static void wmatrix(kgen_emitter *e, const char *label, uint64_t rows, uint64_t cols, uint64_t pitch,
                    uint64_t seed, double a)
{
    if (cols == pitch) {
        kgen_line(e, "%s: .random bf16, %" PRIu64 ", %" PRIu64 ", %.17g, %.17g", label, rows * cols, seed, -a, a);
        return;
    }
    kgen_line(e, "%s:                                     # %" PRIu64 " rows of %" PRIu64 ", padded to %" PRIu64,
              label, rows, cols, pitch);
    for (uint64_t r = 0; r < rows; r++) {
        kgen_line(e, "        .random bf16, %" PRIu64 ", %" PRIu64 ", %.17g, %.17g", cols, seed + r, -a, a);
        kgen_line(e, "        .zero   %" PRIu64, (pitch - cols) * 2);
    }
}

/* the same values, unpadded [rows][cols] */
static void wdata(uint16_t *out, uint64_t rows, uint64_t cols, uint64_t pitch, uint64_t seed, double a)
{
    uint32_t lo = fbits(-a), hi = fbits(a);
    for (uint64_t r = 0; r < rows; r++)
        for (uint64_t c = 0; c < cols; c++)
            out[r * cols + c] = (uint16_t)(tpu_fill_random_f32(cols == pitch ? seed : seed + r,
                                                               cols == pitch ? r * cols + c : c, lo, hi, 1) >> 16);
}

#define KP_RANGE 2.0             /* decode: the past K and V values */

/* decode: the seed of head h's past V row r in key block j */
static uint64_t vseed(const kgen_block *b, uint64_t h, uint64_t r, uint64_t j)
{
    return SEED_VP + ((h * b->dh + r) * b->nb + j) * 4;
}

int kgen_block_data_make(const kgen_block *b, kgen_block_data *d)
{
    uint64_t T = b->tp, D = b->d, F = b->f, P = b->past, dh = b->dh;
    memset(d, 0, sizeof *d);
    d->x = malloc(D * T * 4), d->g1 = malloc(D * 4), d->b1 = malloc(D * 4), d->g2 = malloc(D * 4);
    d->b2 = malloc(D * 4);
    d->wqkv = malloc(3 * D * D * 2), d->wo = malloc(D * D * 2), d->win = malloc(F * D * 2);
    d->wout = malloc(D * F * 2);
    d->kpast = malloc(P * D * 2 + 2), d->vpast = malloc(D * P * 2 + 2);
    if (!d->x || !d->g1 || !d->b1 || !d->g2 || !d->b2 || !d->wqkv || !d->wo || !d->win || !d->wout
        || !d->kpast || !d->vpast) {
        kgen_block_data_free(d);
        return -1;
    }
    for (uint64_t r = 0; r < D; r++)              /* the real tokens' columns; zeros after */
        for (uint64_t c = 0; c < T; c++)
            d->x[r * T + c] = c >= b->t ? 0
                              : tpu_fill_random_f32(T == b->t ? SEED_X : SEED_X + 8 + r, T == b->t ? r * T + c : c,
                                                    fbits(-2.0), fbits(2.0), 0);
    for (uint64_t i = 0; i < D; i++) {
        d->g1[i] = tpu_fill_random_f32(SEED_X + 1, i, fbits(0.5), fbits(1.5), 0);
        d->b1[i] = tpu_fill_random_f32(SEED_X + 2, i, fbits(-0.5), fbits(0.5), 0);
        d->g2[i] = tpu_fill_random_f32(SEED_X + 3, i, fbits(0.5), fbits(1.5), 0);
        d->b2[i] = tpu_fill_random_f32(SEED_X + 4, i, fbits(-0.5), fbits(0.5), 0);
    }
    wdata(d->wqkv, 3 * D, D, b->qkv.kp, SEED_QKV, wrange(D, 1));
    wdata(d->wo, D, D, b->wo.kp, SEED_WO, wrange(D, 0));
    wdata(d->win, F, D, b->win.kp, SEED_WIN, wrange(D, 0));
    wdata(d->wout, D, F, b->wout.kp, SEED_WOUT, wrange(F, 0));
    /* the past: head h's K_h rows [P][dh] and V_h rows [dh][P], as the program's fills */
    uint16_t *tmp = malloc((P * dh + 1) * 2);
    if (!tmp) {
        kgen_block_data_free(d);
        return -1;
    }
    for (uint64_t h = 0; h < b->heads; h++) {
        wdata(tmp, P, dh, b->sc.kp, SEED_KP + h * 0x1000, KP_RANGE);
        for (uint64_t c = 0; c < P; c++)
            for (uint64_t j = 0; j < dh; j++)
                d->kpast[c * D + h * dh + j] = tmp[c * dh + j];
        for (uint64_t r = 0; r < dh; r++)
            for (uint64_t c = 0; c < P; c++) {
                uint64_t j = c / b->vpitch;
                d->vpast[(h * dh + r) * P + c] = (uint16_t)(tpu_fill_random_f32(vseed(b, h, r, j), c - j * b->vpitch,
                                                                                 fbits(-KP_RANGE), fbits(KP_RANGE), 1) >> 16);
            }
    }
    free(tmp);
    return 0;
}

void kgen_block_data_free(kgen_block_data *d)
{
    free(d->x); free(d->g1); free(d->b1); free(d->g2); free(d->b2);
    free(d->wqkv); free(d->wo); free(d->win); free(d->wout); free(d->kpast); free(d->vpast);
    memset(d, 0, sizeof *d);
}

/* ---- the program ---- */

/* Stage 3 for head h: K_h^T (rows D + h dh of QKV^T) to K_h rows past ..,
 * token-major, by a DMA per feature d (tc rows of 2 bytes: the transpose;
 * a DMA per token, dh rows of 2 bytes, when the chunk has fewer tokens);
 * V_h^T to V_h columns past .. (one 2-D DMA).  Through VMEM, tc tokens at a
 * time; semaphores 0 and 1, back at zero after. */
void kgen_block_kv_code(kgen_emitter *e, const kgen_block *b, uint64_t h)
{
    uint64_t T = b->tp, D = b->d, dh = b->dh, P = b->past;
    uint64_t hb = b->h_head + h * b->head_bytes, kp = b->sc.kp, vp = b->vpitch;
    uint64_t kt_src = b->h_qkv + (D + h * dh) * T * 2, vt_src = b->h_qkv + (2 * D + h * dh) * T * 2;
    uint64_t v_k = b->v_kt, v_v = b->v_kt + ALIGN64(dh * b->tc * 2);
    for (uint64_t t0 = 0; t0 < b->t; t0 += b->tc) {       /* the real tokens: the padding is no key */
        uint64_t tc = b->t - t0 < b->tc ? b->t - t0 : b->tc;
        kgen_line(e, "        # tokens %" PRIu64 " .. %" PRIu64 ": K_h^T and V_h^T [%" PRIu64 "][%" PRIu64 "] into VMEM",
                  t0, t0 + tc - 1, dh, tc);
        kgen_li(e, "s3", dh);
        kgen_li(e, "s4", tc * 2);
        kgen_li(e, "s5", T * 2);
        kgen_li(e, "s1", v_k);
        kgen_li(e, "s2", kt_src + t0 * 2);
        kgen_ins(e, "dma.h2v s1, s2, s3, s4, s5, s4, 0");
        kgen_li(e, "s1", v_v);
        kgen_li(e, "s2", vt_src + t0 * 2);
        kgen_ins(e, "dma.h2v s1, s2, s3, s4, s5, s4, 0");
        kgen_ins(e, "sem.wait 0, 2");
        kgen_line(e, "        # V_h: its columns %" PRIu64 " .. (blocks of %" PRIu64 " keys)", P + t0, vp);
        uint64_t nv = 0;
        for (uint64_t c0 = P + t0; c0 < P + t0 + tc; nv++) {       /* a DMA per block of keys it meets */
            uint64_t j = c0 / vp, c1 = (j + 1) * vp < P + t0 + tc ? (j + 1) * vp : P + t0 + tc;
            kgen_li(e, "s1", v_v + (c0 - P - t0) * 2);
            kgen_li(e, "s2", hb + b->o_v + j * dh * vp * 2 + (c0 - j * vp) * 2);
            kgen_li(e, "s6", vp * 2);
            kgen_li(e, "s7", (c1 - c0) * 2);
            kgen_ins(e, "dma.v2h s2, s1, s3, s7, s4, s6, 1");
            c0 = c1;
        }
        if (tc < dh) {
            /* fewer tokens than features (decode): a DMA per token, its dh
             * values (VMEM stride tc) into its row of K_h */
            kgen_line(e, "        # K_h, token-major: token j's %" PRIu64 " features are its row, %" PRIu64 " rows of 2 bytes",
                      dh, dh);
            kgen_li(e, "s1", v_k);
            kgen_li(e, "s2", hb + b->o_kh + (P + t0) * kp * 2);
            kgen_li(e, "s3", dh);
            kgen_li(e, "s4", 2);
            kgen_li(e, "s5", tc * 2);
            kgen_li(e, "s7", tc);
            unsigned top = kgen_new_label(e);
            kgen_put_label(e, top);
            kgen_ins(e, "dma.v2h s2, s1, s3, s4, s5, s4, 1");
            kgen_ins(e, "addi    s1, s1, 2");
            kgen_addi(e, "s2", "s2", (int64_t)(kp * 2), "s8");
            kgen_ins(e, "addi    s7, s7, -1");
            kgen_ins(e, "bne     s7, zero, L%u", top);
            kgen_ins(e, "sem.wait 1, %" PRIu64 "                 # V_h's DMAs and K_h's %" PRIu64, tc + nv, tc);
            continue;
        }
        kgen_line(e, "        # K_h, token-major: feature d of the %" PRIu64 " tokens is a column, %" PRIu64 " rows of 2 bytes",
                  tc, tc);
        kgen_li(e, "s1", v_k);
        kgen_li(e, "s2", hb + b->o_kh + (P + t0) * kp * 2);
        kgen_li(e, "s3", tc);
        kgen_li(e, "s4", 2);
        kgen_li(e, "s6", kp * 2);
        kgen_li(e, "s7", dh);
        unsigned top = kgen_new_label(e);
        kgen_put_label(e, top);
        kgen_ins(e, "dma.v2h s2, s1, s3, s4, s4, s6, 1");
        kgen_addi(e, "s1", "s1", (int64_t)(tc * 2), "s8");
        kgen_ins(e, "addi    s2, s2, 2");
        kgen_ins(e, "addi    s7, s7, -1");
        kgen_ins(e, "bne     s7, zero, L%u", top);
        kgen_ins(e, "sem.wait 1, %" PRIu64 "                 # V_h's DMAs and K_h's %" PRIu64, dh + nv, dh);
    }
}

void kgen_stage_gemm(kgen_emitter *e, const kgen_plan *p, const char *lp, const char *what)
{
    kgen_line(e, "");
    kgen_line(e, "# ======== %s", what);
    e->p = p;
    e->lp = lp;
    kgen_gemm_code(e, 0);
}

void kgen_stage_nn(kgen_emitter *e, const kgen_nn_plan *p, const char *what)
{
    kgen_line(e, "");
    kgen_line(e, "# ======== %s", what);
    kgen_nn_code(e, p);
}

void kgen_block_head_code(kgen_emitter *e, const kgen_block *b, uint64_t h, const char *lp, const char *const what[3])
{
    uint64_t hb = b->h_head + h * b->head_bytes, dh = b->dh, T = b->tp;
    kgen_plan sc = b->sc, av = b->av;
    kgen_nn_plan sm = b->sm;
    sc.h_x = hb + b->o_kh;
    sc.h_w = b->h_qkv + h * dh * T * 2;
    sc.h_y = hb + b->o_s;
    sm.h_x = sc.h_y;
    sm.h_z = hb + b->o_p;
    av.h_x = hb + b->o_v;
    av.h_w = sm.h_z;
    av.h_y = b->h_ob + h * dh * T * 2;
    char l1[64], l2[64];
    snprintf(l1, sizeof l1, "%sS_", lp);
    snprintf(l2, sizeof l2, "%sO_", lp);
    kgen_stage_gemm(e, &sc, l1, what[0]);
    kgen_stage_nn(e, &sm, what[1]);
    kgen_stage_gemm(e, &av, l2, what[2]);
}

long kgen_block_emit(FILE *f, const char *config_name, const tpu_config *cfg, const kgen_block *b)
{
    uint64_t T = b->tp, D = b->d, F = b->f, H = b->heads, dh = b->dh, tk = b->tk, P = b->past;
    kgen_emitter E = { f, 0, 0, &b->qkv, "" }, *e = &E;
    kgen_line(e, "# tpu-as: --config %s", config_name);
    kgen_line(e, "#");
    kgen_line(e, "# Generated by tpu-gen block (sim/kernels/kgen_block.c, docs/transformers.md); do not edit.");
    kgen_line(e, "#");
    kgen_line(e, "#   a pre-norm transformer block, %s: T = %" PRIu64 " %stokens, D = %" PRIu64 ", F = %" PRIu64
              ", %" PRIu64 " heads of %" PRIu64 "%s",
              b->decode ? "decode" : "prefill", b->t, b->decode ? "new " : "", D, F, H, dh,
              b->causal ? ", causal" : "");
    if (T != b->t)
        kgen_line(e, "#   (padded to %" PRIu64 " tokens, the vector's lanes: zero tokens after the new ones)", T);
    if (b->decode)
        kgen_line(e, "#   the KV cache holds %" PRIu64 " past tokens: %" PRIu64 " keys in all", P, tk);
    kgen_line(e, "#   feature-major (x^T [D][T] fp32 in, y^T [D][T] fp32 out), bf16 weights:");
    kgen_line(e, "#   X = LN1(x); QKV^T = Wqkv^T X^T; per head S^T = K_h Q_h^T, P^T = softmax over the keys,");
    kgen_line(e, "#   O^T rows of the head = V_h^T P^T; x1 = x + Wo^T O^T; y = x1 + Wout^T gelu(Win^T LN2(x1))");
    if (b->flash)
        kgen_line(e, "#   flash: %" PRIu64 " blocks of %" PRIu64 " keys, a running max and sum (numerics.md 12, \"Flash\")",
                  b->nb, b->kb);
    kgen_line(e, "#   predicted %.0f cycles: QKV %.0f, the KV cache write %.0f, a head %.0f,",
              b->predicted, b->c_qkv.predicted, b->t_transpose, head_predicted(b));
    kgen_line(e, "#   Wo %.0f, the MLP %.0f, the norms and residuals %.0f", b->c_wo.predicted,
              b->c_win.predicted + b->gl.cost.predicted + b->c_wout.predicted,
              b->ln1.cost.predicted + b->ln2.cost.predicted + b->res1.cost.predicted + b->res2.cost.predicted);
    kgen_line(e, "#");
    kgen_line(e, "        .assert MXU_N == %" PRIu64 " && NUM_MXU >= %" PRIu64 " && VPU_SUBLANES * VPU_LANES == %" PRIu64
              ", \"generated for another machine: assemble with --config %s\"",
              b->qkv.n_mxu, (uint64_t)cfg->num_mxu, b->e, config_name);
    kgen_line(e, "        .text");
    kgen_stage_nn(e, &b->ln1, "1: X^T = layernorm(x^T), bf16, on the VPU");
    kgen_stage_gemm(e, &b->qkv, "QKV_", "2: QKV^T = Wqkv^T X^T, bf16 (the epilogue)");
    kgen_line(e, "");
    kgen_line(e, "# ======== 3: the KV cache: K_h token-major (the transpose: a DMA per feature), V_h feature-major");
    for (uint64_t h = 0; h < H; h++) {
        kgen_line(e, "        # head %" PRIu64, h);
        kgen_block_kv_code(e, b, h);
    }
    for (uint64_t h = 0; h < H; h++) {
        if (b->flash) {
            kgen_flash_head(e, b, h);
            continue;
        }
        char lp[32], w1[80], w2[80], w3[120];
        snprintf(lp, sizeof lp, "H%" PRIu64, h);
        snprintf(w1, sizeof w1, "4: head %" PRIu64 ": S^T = K_h Q_h^T", h);
        snprintf(w2, sizeof w2, "5: head %" PRIu64 ": P^T = softmax over the keys%s, bf16", h,
                 b->causal ? " (causal)" : "");
        snprintf(w3, sizeof w3, "6: head %" PRIu64 ": O^T rows %" PRIu64 " .. %" PRIu64 " = V_h^T P^T, bf16", h,
                 h * dh, h * dh + dh - 1);
        const char *const what[3] = { w1, w2, w3 };
        kgen_block_head_code(e, b, h, lp, what);
    }
    kgen_stage_gemm(e, &b->wo, "WO_", "7: Y1^T = Wo^T O^T");
    kgen_stage_nn(e, &b->res1, "8: x1^T = x^T + Y1^T, the residual");
    kgen_stage_nn(e, &b->ln2, "9: X2^T = layernorm(x1^T), bf16");
    kgen_stage_gemm(e, &b->win, "WIN_", "10: H^T = Win^T X2^T");
    kgen_stage_nn(e, &b->gl, "11: G^T = gelu(H^T), bf16");
    kgen_stage_gemm(e, &b->wout, "WOUT_", "12: O2^T = Wout^T G^T");
    kgen_stage_nn(e, &b->res2, "13: y^T = x1^T + O2^T, the residual");
    kgen_ins(e, "halt");

    /* ---- HBM ---- */
    kgen_line(e, "");
    kgen_line(e, "# ---- HBM%s", b->timing_only ? " (--timing-only: zeros)" : "");
    if (b->timing_only) {
        kgen_line(e, "        .hbm    %" PRIu64, b->hbm_need - 64);
        kgen_line(e, "        .zero   64");
        fflush(f);
        return ferror(f) ? -1 : E.insns;
    }
    kgen_line(e, "        .hbm    %" PRIu64, b->ln1.h_x);
    if (T == b->t) {
        kgen_line(e, "XRES:   .random f32, %" PRIu64 ", %u, -2.0, 2.0    # x^T [D][T] fp32, the residual stream", D * T, SEED_X);
    } else {
        kgen_line(e, "XRES:                                   # x^T [D][%" PRIu64 "] fp32: %" PRIu64 " new tokens, zero tokens after",
                  T, b->t);
        for (uint64_t r = 0; r < D; r++) {
            kgen_line(e, "        .random f32, %" PRIu64 ", %" PRIu64 ", -2.0, 2.0", b->t, (uint64_t)SEED_X + 8 + r);
            kgen_line(e, "        .zero   %" PRIu64, (T - b->t) * 4);
        }
    }
    kgen_line(e, "        .hbm    %" PRIu64, b->ln1.h_par);
    kgen_line(e, "GAMMA1: .random f32, %" PRIu64 ", %u, 0.5, 1.5", D, SEED_X + 1);
    kgen_line(e, "BETA1:  .random f32, %" PRIu64 ", %u, -0.5, 0.5", D, SEED_X + 2);
    kgen_line(e, "        .hbm    %" PRIu64, b->ln2.h_par);
    kgen_line(e, "GAMMA2: .random f32, %" PRIu64 ", %u, 0.5, 1.5", D, SEED_X + 3);
    kgen_line(e, "BETA2:  .random f32, %" PRIu64 ", %u, -0.5, 0.5", D, SEED_X + 4);
    kgen_line(e, "        .hbm    %" PRIu64, b->qkv.h_w);
    kgen_line(e, "XN:     .zero   %" PRIu64 "      # X^T [%" PRIu64 "][%" PRIu64 "] bf16", b->qkv.w_bytes, b->qkv.kp, T);
    kgen_line(e, "        .hbm    %" PRIu64, b->qkv.h_x);
    wmatrix(e, "WQKV", 3 * D, D, b->qkv.kp, SEED_QKV, wrange(D, 1));
    kgen_line(e, "        .hbm    %" PRIu64, b->h_qkv);
    kgen_line(e, "QKV:    .zero   %" PRIu64 "      # QKV^T [3D][T] bf16 (and rows of padding)", b->qkv.y_bytes + b->sc.kp * T * 2);
    for (uint64_t h = 0; h < H; h++) {
        uint64_t hb = b->h_head + h * b->head_bytes;
        kgen_line(e, "        .hbm    %" PRIu64, hb + b->o_kh);
        char l[32];
        if (P) {
            snprintf(l, sizeof l, "KH%" PRIu64, h);
            wmatrix(e, l, P, dh, b->sc.kp, SEED_KP + h * 0x1000, KP_RANGE);
            kgen_line(e, "        .zero   %" PRIu64 "      # the new tokens' K rows", (tk - P) * b->sc.kp * 2);
        } else {
            kgen_line(e, "KH%" PRIu64 ":   .zero   %" PRIu64 "      # K_h [%" PRIu64 "][%" PRIu64 "] bf16, token-major",
                      h, tk * b->sc.kp * 2, tk, b->sc.kp);
        }
        kgen_line(e, "        .hbm    %" PRIu64, hb + b->o_v);
        if (P) {
            kgen_line(e, "VH%" PRIu64 ":                                     # V_h: %" PRIu64 " block%s of [%" PRIu64 "][%" PRIu64 "] bf16, the past's columns first",
                      h, b->nb, b->nb > 1 ? "s" : "", dh, b->vpitch);
            for (uint64_t j = 0; j < b->nb; j++)
                for (uint64_t r = 0; r < dh; r++) {
                    uint64_t c0 = j * b->vpitch, n = P > c0 ? (P - c0 < b->vpitch ? P - c0 : b->vpitch) : 0;
                    if (n)
                        kgen_line(e, "        .random bf16, %" PRIu64 ", %" PRIu64 ", %.17g, %.17g", n,
                                  vseed(b, h, r, j), -KP_RANGE, KP_RANGE);
                    if (n < b->vpitch)
                        kgen_line(e, "        .zero   %" PRIu64, (b->vpitch - n) * 2);
                }
        } else {
            kgen_line(e, "VH%" PRIu64 ":   .zero   %" PRIu64 "      # V_h: %" PRIu64 " block%s of [%" PRIu64 "][%" PRIu64 "] bf16, feature-major",
                      h, b->nb * dh * b->vpitch * 2, b->nb, b->nb > 1 ? "s" : "", dh, b->vpitch);
        }
        kgen_line(e, "        .hbm    %" PRIu64, hb + b->o_s);
        kgen_line(e, "S%" PRIu64 ":     .zero   %" PRIu64 "      # S^T [%" PRIu64 "][%" PRIu64 "] fp32", h, tk * T * 4, tk, T);
        kgen_line(e, "        .hbm    %" PRIu64, hb + b->o_p);
        kgen_line(e, "P%" PRIu64 ":     .zero   %" PRIu64 "      # P^T %" PRIu64 " x [%" PRIu64 "][%" PRIu64 "] bf16", h,
                  b->nb * b->vpitch * T * 2, b->nb, b->vpitch, T);
        if (b->flash) {
            kgen_line(e, "        .hbm    %" PRIu64, hb + b->o_m);
            kgen_line(e, "FM%" PRIu64 ":    .rept   %" PRIu64, h, T);
            kgen_line(e, "        .f32    -inf                    # the running maximum, -inf before the first block");
            kgen_line(e, "        .endr");
            kgen_line(e, "        .hbm    %" PRIu64, hb + b->o_l);
            kgen_line(e, "FL%" PRIu64 ":    .zero   %" PRIu64 "      # the running sum", h, T * 4);
            kgen_line(e, "        .hbm    %" PRIu64, hb + b->o_c);
            kgen_line(e, "FC%" PRIu64 ":    .zero   %" PRIu64 "      # the block's correction exp(m_old - m_new)", h, T * 4);
            kgen_line(e, "        .hbm    %" PRIu64, hb + b->o_acc);
            kgen_line(e, "FA%" PRIu64 ":    .zero   %" PRIu64 "      # O_acc^T [dh][T] fp32", h, dh * T * 4);
            kgen_line(e, "        .hbm    %" PRIu64, hb + b->o_oj);
            kgen_line(e, "FO%" PRIu64 ":    .zero   %" PRIu64 "      # O_j^T, a block's, [dh][T] fp32 each", h, b->nb * dh * T * 4);
        }
    }
    kgen_line(e, "        .hbm    %" PRIu64, b->h_ob);
    kgen_line(e, "OB:     .zero   %" PRIu64 "      # O^T [%" PRIu64 "][%" PRIu64 "] bf16, the heads side by side", b->wo.w_bytes, b->wo.kp, T);
    kgen_line(e, "        .hbm    %" PRIu64, b->wo.h_x);
    wmatrix(e, "WO", D, D, b->wo.kp, SEED_WO, wrange(D, 0));
    kgen_line(e, "        .hbm    %" PRIu64, b->wo.h_y);
    kgen_line(e, "Y1:     .zero   %" PRIu64, b->wo.y_bytes);
    kgen_line(e, "        .hbm    %" PRIu64, b->res1.h_z);
    kgen_line(e, "X1:     .zero   %" PRIu64 "      # x1^T [D][T] fp32", D * T * 4);
    kgen_line(e, "        .hbm    %" PRIu64, b->win.h_w);
    kgen_line(e, "XN2:    .zero   %" PRIu64, b->win.w_bytes);
    kgen_line(e, "        .hbm    %" PRIu64, b->win.h_x);
    wmatrix(e, "WIN", F, D, b->win.kp, SEED_WIN, wrange(D, 0));
    kgen_line(e, "        .hbm    %" PRIu64, b->win.h_y);
    kgen_line(e, "HID:    .zero   %" PRIu64, b->win.y_bytes);
    kgen_line(e, "        .hbm    %" PRIu64, b->wout.h_w);
    kgen_line(e, "G:      .zero   %" PRIu64, b->wout.w_bytes);
    kgen_line(e, "        .hbm    %" PRIu64, b->wout.h_x);
    wmatrix(e, "WOUT", D, F, b->wout.kp, SEED_WOUT, wrange(F, 0));
    kgen_line(e, "        .hbm    %" PRIu64, b->wout.h_y);
    kgen_line(e, "O2:     .zero   %" PRIu64, b->wout.y_bytes);
    kgen_line(e, "        .hbm    %" PRIu64, b->res2.h_z);
    kgen_line(e, "Y:      .zero   %" PRIu64 "      # y^T [D][T] fp32, the result", D * T * 4);
    kgen_line(e, "        .array  Y, f32, %" PRIu64 ", %" PRIu64, D, T);
    kgen_line(e, "        .array  X1, f32, %" PRIu64 ", %" PRIu64, D, T);
    kgen_line(e, "        .array  XRES, f32, %" PRIu64 ", %" PRIu64, D, T);
    /* the KV cache for tpu-sim --dump/--load: a prefill's K_h, V_h are the
     * next decode's past (KP_h, VP_h: the same layout, the first P keys) */
    for (uint64_t h = 0; h < H; h++) {
        uint64_t hb = b->h_head + h * b->head_bytes;
        kgen_line(e, "        .array  KH%" PRIu64 ", bf16, %" PRIu64 ", %" PRIu64 ", pitch %" PRIu64, h, tk, dh, b->sc.kp * 2);
        if (b->nb == 1)
            kgen_line(e, "        .array  VH%" PRIu64 ", bf16, %" PRIu64 ", %" PRIu64 ", pitch %" PRIu64, h, dh, tk, b->vpitch * 2);
        if (P) {
            kgen_line(e, "        .hbm    %" PRIu64, hb + b->o_kh);
            kgen_line(e, "KP%" PRIu64 ":", h);
            kgen_line(e, "        .array  KP%" PRIu64 ", bf16, %" PRIu64 ", %" PRIu64 ", pitch %" PRIu64 "   # the past's K rows",
                      h, P, dh, b->sc.kp * 2);
            if (b->nb == 1) {
                kgen_line(e, "        .hbm    %" PRIu64, hb + b->o_v);
                kgen_line(e, "VP%" PRIu64 ":", h);
                kgen_line(e, "        .array  VP%" PRIu64 ", bf16, %" PRIu64 ", %" PRIu64 ", pitch %" PRIu64 "   # the past's V columns",
                          h, dh, P, b->vpitch * 2);
            }
        }
    }
    if (b->causal) {
        kgen_line(e, "        .hbm    %" PRIu64, b->h_qpos);
        kgen_line(e, "QPOS:                                   # the queries' positions, fp32");
        for (uint64_t i = 0; i < T; i += 16) {
            char buf[400];
            int n = 0;
            for (uint64_t j = i; j < i + 16 && j < T; j++)
                n += snprintf(buf + n, sizeof buf - (size_t)n, "%s%" PRIu64, j > i ? ", " : "", P + j);
            kgen_line(e, "        .f32    %s", buf);
        }
    }

    /* ---- checks ---- */
    kgen_line(e, "");
    kgen_line(e, "# ---- checks, bit for bit: each stage against the one before (numerics.md 5, 12)");
    kgen_line(e, "        .expect layernorm XN, XRES, GAMMA1, BETA1, %" PRIu64 ", %" PRIu64 ", 0x%08x, 8", T, D, b->eps);
    kgen_line(e, "        .expect matmul_epi QKV, WQKV, XN, QKV, %" PRIu64 ", %" PRIu64 ", %" PRIu64 ", 72", 3 * D, b->qkv.kp, T);
    for (uint64_t h = 0; h < H; h++) {
        uint64_t q = b->h_qkv + h * dh * T * 2;
        kgen_line(e, "        .expect matmul_epi S%" PRIu64 ", KH%" PRIu64 ", hbm(%" PRIu64 "), S%" PRIu64 ", %" PRIu64 ", %" PRIu64
                  ", %" PRIu64 ", 68", h, h, q, h, tk, b->sc.kp, T);
        if (b->flash) {
            uint64_t hb = b->h_head + h * b->head_bytes;
            for (uint64_t j = 0; j < b->nb; j++)
                kgen_line(e, "        .expect matmul_epi hbm(%" PRIu64 "), hbm(%" PRIu64 "), hbm(%" PRIu64 "), OB, %" PRIu64 ", %" PRIu64
                          ", %" PRIu64 ", 68", hb + b->o_oj + j * dh * T * 4, hb + b->o_v + j * dh * b->vpitch * 2,
                          hb + b->o_p + j * b->vpitch * T * 2, dh, b->vpitch, T);
            continue;
        }
        if (!b->causal)
            kgen_line(e, "        .expect softmax_s P%" PRIu64 ", S%" PRIu64 ", %" PRIu64 ", %" PRIu64 ", 0x%08x, 12", h, h, T, tk,
                      b->sm.o.scale);
        kgen_line(e, "        .expect matmul_epi hbm(%" PRIu64 "), VH%" PRIu64 ", P%" PRIu64 ", OB, %" PRIu64 ", %" PRIu64 ", %" PRIu64 ", 76",
                  b->h_ob + h * dh * T * 2, h, h, dh, b->av.kp, T);
    }
    kgen_line(e, "        .expect matmul_epi Y1, WO, OB, Y1, %" PRIu64 ", %" PRIu64 ", %" PRIu64 ", 64", D, b->wo.kp, T);
    kgen_line(e, "        .expect residual X1, XRES, Y1, %" PRIu64 ", 64", D * T);
    kgen_line(e, "        .expect layernorm XN2, X1, GAMMA2, BETA2, %" PRIu64 ", %" PRIu64 ", 0x%08x, 12", T, D, b->eps);
    kgen_line(e, "        .expect matmul_epi HID, WIN, XN2, HID, %" PRIu64 ", %" PRIu64 ", %" PRIu64 ", 64", F, b->win.kp, T);
    kgen_line(e, "        .expect gelu G, HID, %" PRIu64 ", 12", F * T);
    kgen_line(e, "        .expect matmul_epi O2, WOUT, G, O2, %" PRIu64 ", %" PRIu64 ", %" PRIu64 ", 64", D, b->wout.kp, T);
    kgen_line(e, "        .expect residual Y, X1, O2, %" PRIu64 ", 68", D * T);
    fflush(f);
    return ferror(f) ? -1 : E.insns;
}
