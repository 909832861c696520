/*
 * test_ref_nn.c - the transformer layers' references (cmodel/ref_nn.c,
 * numerics.md section 12): hand-worked cases bit for bit, the special
 * values of GELU and SiLU, the layout (pitch), the sequences against
 * float64 within the bounds docs/transformers.md gives, and the error
 * statistics.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fp.h"
#include "objfile.h"
#include "ref.h"
#include "ref_nn.h"

static uint32_t B(float f) { return tpu_f32_from_float(f); }
static float F(uint32_t b) { return tpu_f32_to_float(b); }

/* softmax of [0, 0] is [0.5, 0.5] exactly: exp(0) = 1, s = 2, rcp(2) = 0.5 */
static void test_softmax_worked(void **state)
{
    (void)state;
    uint32_t x[2] = { B(0.0f), B(0.0f) }, z[2], tmp[2];
    tpu_nn_params p = { TPU_NN_SOFTMAX, 2, NULL, NULL, 0, TPU_NN_ONE, NULL };
    tpu_ref_nn(&p, x, z, 1, 1, tmp);
    assert_int_equal(z[0], 0x3f000000u);
    assert_int_equal(z[1], 0x3f000000u);
    /* the maximum is subtracted: huge values do not overflow */
    uint32_t y[3] = { B(1000.0f), B(1000.0f), B(-1000.0f) };
    uint32_t w[3], t3[3];
    p.c = 3;
    tpu_ref_nn(&p, y, w, 1, 1, t3);
    assert_int_equal(w[0], 0x3f000000u);
    assert_int_equal(w[1], 0x3f000000u);
    assert_int_equal(w[2], 0u);                     /* e^-2000 flushes to +0 */
    /* the scale multiplies first: scale 0 gives the uniform row */
    p.scale = B(0.25f);
    uint32_t s[2] = { B(4.0f), B(0.0f) }, sz[2];
    p.c = 2;
    tpu_ref_nn(&p, s, sz, 1, 1, tmp);
    double e1 = exp(1.0);
    assert_true(fabs(F(sz[0]) - e1 / (e1 + 1)) < 1e-6);
}

/* layernorm of [1, 3], gamma 1, beta 0, eps 0: mean 2, var 1, rsqrt(1) = 1: [-1, 1] exactly;
 * rmsnorm of [2, 2], eps 0: mean square 4, rsqrt 0.5: [1, 1] exactly; gamma, beta applied */
static void test_norms_worked(void **state)
{
    (void)state;
    uint32_t g[2] = { B(1.0f), B(2.0f) }, b[2] = { B(0.0f), B(0.5f) }, z[2], tmp[2];
    uint32_t x[2] = { B(1.0f), B(3.0f) };
    tpu_nn_params p = { TPU_NN_LAYERNORM, 2, g, b, 0, 0, NULL };
    tpu_ref_nn(&p, x, z, 1, 1, tmp);
    assert_int_equal(z[0], B(-1.0f));
    assert_int_equal(z[1], B(2.5f));                /* 1 * 2 + 0.5 */
    uint32_t y[2] = { B(2.0f), B(2.0f) };
    p.op = TPU_NN_RMSNORM;
    tpu_ref_nn(&p, y, z, 1, 1, tmp);
    assert_int_equal(z[0], B(1.0f));
    assert_int_equal(z[1], B(2.0f));
    /* eps matters: a zero row with eps 1 gives rsqrt(1) * 0 = 0, not NaN */
    uint32_t zero[2] = { 0, 0 };
    p.op = TPU_NN_LAYERNORM;
    p.eps = B(1.0f);
    tpu_ref_nn(&p, zero, z, 1, 1, tmp);
    assert_int_equal(z[0], 0u);
    assert_int_equal(z[1], B(0.5f));
    assert_int_equal(tpu_nn_inv(3), B(1.0f / 3.0f));
}

static void test_gelu_silu_specials(void **state)
{
    (void)state;
    assert_int_equal(tpu_nn_gelu(0), 0u);
    assert_int_equal(tpu_nn_gelu(B(100.0f)), B(100.0f));          /* e^2u = inf: tanh 1 */
    assert_int_equal(tpu_nn_gelu(B(-100.0f)), 0x80000000u);       /* -0: 0.5 x * (1 + -1) */
    assert_int_equal(tpu_nn_gelu(0x7f800000u), 0x7f800000u);      /* +inf */
    assert_int_equal(tpu_nn_gelu(0x7fc00001u), 0x7fc00000u);      /* NaN: the canonical one */
    assert_int_equal(tpu_nn_silu(0), 0u);
    assert_int_equal(tpu_nn_silu(B(100.0f)), B(100.0f));
    assert_int_equal(tpu_nn_silu(B(-200.0f)), 0x80000000u);       /* rcp(inf) = 0 */
    assert_int_equal(tpu_nn_silu(0x7fc00000u), 0x7fc00000u);
    /* the elementwise ops of tpu_ref_nn are these functions */
    uint32_t x[3] = { B(-1.5f), B(0.25f), B(3.0f) }, z[3], tmp[1];
    tpu_nn_params p = { TPU_NN_GELU, 1, NULL, NULL, 0, 0, NULL };
    tpu_ref_nn(&p, x, z, 3, 3, tmp);
    for (int i = 0; i < 3; i++)
        assert_int_equal(z[i], tpu_nn_gelu(x[i]));
    p.op = TPU_NN_SILU;
    tpu_ref_nn(&p, x, z, 3, 3, tmp);
    for (int i = 0; i < 3; i++)
        assert_int_equal(z[i], tpu_nn_silu(x[i]));
}

/* The layout: row i of a pitch-P matrix is x[c P + i]; rows are independent. */
static void test_layout_pitch(void **state)
{
    (void)state;
    enum { N = 5, C = 7, P = 9 };
    uint32_t x[C * P], z[C * P], g[C], b[C], tmp[C], xr[C], zr[C];
    for (int i = 0; i < C * P; i++)
        x[i] = tpu_fill_random_f32(7, (uint64_t)i, B(-3.0f), B(3.0f), 0);
    for (int c = 0; c < C; c++) {
        g[c] = B(0.5f + 0.125f * (float)c);
        b[c] = B(-0.25f * (float)c);
    }
    for (int op = 0; op < TPU_NN_ADD; op++) {
        tpu_nn_params p = { (tpu_nn_op)op, C, g, b, B(1e-5f), B(0.7f), NULL };
        memset(z, 0xee, sizeof z);
        tpu_ref_nn(&p, x, z, N, P, tmp);
        for (int i = 0; i < N; i++) {
            for (int c = 0; c < C; c++)
                xr[c] = x[c * P + i];
            tpu_ref_nn(&p, xr, zr, 1, 1, tmp);
            for (int c = 0; c < C; c++)
                assert_int_equal(z[c * P + i], zr[c]);
        }
        for (int c = 0; c < C; c++)             /* rows past N untouched */
            for (int i = N; i < P; i++)
                assert_int_equal(z[c * P + i], 0xeeeeeeeeu);
    }
}

/* Against float64 on random rows: the bounds of docs/transformers.md. */
static void test_against_f64(void **state)
{
    (void)state;
    enum { N = 256, C = 64 };
    static uint32_t x[N * C], z[N * C], g[C], b[C], tmp[C];
    static double w[N * C];
    static const float lo[TPU_NN_ADD] = { -8, 0.5f, -3, -8, -12 };
    static const double bound[TPU_NN_ADD] = { 1e-6, 1e-5, 1e-5, 1e-5, 1e-5 };
    for (int c = 0; c < C; c++) {
        g[c] = tpu_fill_random_f32(2, (uint64_t)c, B(0.5f), B(1.5f), 0);
        b[c] = tpu_fill_random_f32(3, (uint64_t)c, B(-0.5f), B(0.5f), 0);
    }
    for (int op = 0; op < TPU_NN_ADD; op++) {
        for (int i = 0; i < N * C; i++)
            x[i] = tpu_fill_random_f32(11, (uint64_t)i, B(lo[op]), B(op == 1 ? 4.5f : -lo[op]), 0);
        tpu_nn_params p = { (tpu_nn_op)op, C, g, b, B(1e-5f), B(0.125f), NULL };
        tpu_ref_nn(&p, x, z, N, N, tmp);
        tpu_ref_nn_f64(&p, x, w, N, N);
        tpu_nn_error e;
        memset(&e, 0, sizeof e);
        tpu_nn_error_add(&e, z, w, N * C, 1e-3, 0);
        assert_int_equal(e.count, N * C);
        assert_true(e.max_abs < bound[op]);
        assert_true(e.max_abs > 0);               /* fp32 is not float64: the check sees */
        if (op == TPU_NN_SOFTMAX)                 /* each row sums to about 1 */
            for (int i = 0; i < N; i++) {
                double s = 0;
                for (int c = 0; c < C; c++)
                    s += F(z[c * N + i]);
                assert_true(fabs(s - 1.0) < 1e-5);
            }
    }
}

/* The residual: z = x + y elementwise, the sum rounded once; the layout's pitch */
static void test_add(void **state)
{
    (void)state;
    uint32_t x[6] = { B(1.0f), B(16777216.0f), 0x80000000u, B(2.0f), B(-3.5f), B(9.0f) };
    uint32_t y[6] = { B(2.0f), B(1.0f), 0, B(-2.0f), B(0.25f), B(9.0f) };
    uint32_t z[6], tmp[3];
    memset(z, 0xee, sizeof z);
    tpu_nn_params p = { TPU_NN_ADD, 2, NULL, NULL, 0, 0, y };
    tpu_ref_nn(&p, x, z, 2, 3, tmp);             /* rows 0, 1 of a pitch-3 layout */
    assert_int_equal(z[0], B(3.0f));
    assert_int_equal(z[1], B(16777216.0f));      /* 2^24 + 1: a tie, to even */
    assert_int_equal(z[2], 0xeeeeeeeeu);         /* row 2 not asked for */
    assert_int_equal(z[3], B(0.0f));             /* 2 - 2 = +0 */
    assert_int_equal(z[4], B(-3.25f));
    double w[6];
    tpu_ref_nn_f64(&p, x, w, 2, 3);
    assert_true(w[1] == 16777217.0 && w[0] == 3.0 && w[4] == -3.25);
}

static void test_error_stats(void **state)
{
    (void)state;
    uint32_t z[3] = { B(1.0f), B(2.0f), B(0.001f) };
    double w[3] = { 1.5, 2.0, 0.002 };
    tpu_nn_error e;
    memset(&e, 0, sizeof e);
    tpu_nn_error_add(&e, z, w, 3, 0.01, 10);
    assert_true(fabs(e.max_abs - 0.5) < 1e-12);
    assert_int_equal(e.at_abs, 10);
    assert_true(fabs(e.max_rel - 1.0 / 3.0) < 1e-12);   /* 0.002 is below the floor */
    assert_int_equal(e.at_rel, 10);
    assert_int_equal(e.count, 3);
}

/* the softmax over the keys: unmasked it is tpu_ref_nn's softmax; causal,
 * query i's keys after position qpos[i] are exactly +0 and the others the
 * softmax of the keys up to it alone (exp(-inf - m) = +0 adds nothing) */
static void test_softmax_keys(void **state)
{
    (void)state;
    enum { TK = 9, TQ = 5 };
    uint32_t s[TK * TQ], z[TK * TQ], w[TK * TQ], tmp[TK], col[TK], zc[TK];
    for (int i = 0; i < TK * TQ; i++)
        s[i] = tpu_fill_random_f32(77, (uint64_t)i, B(-6.0f), B(6.0f), 0);
    uint32_t sc = B(0.25f);
    tpu_ref_softmax_keys(s, z, TK, TQ, sc, NULL, tmp);
    tpu_nn_params p = { TPU_NN_SOFTMAX, TK, NULL, NULL, 0, sc, NULL };
    tpu_ref_nn(&p, s, w, TQ, TQ, tmp);
    assert_memory_equal(z, w, sizeof z);
    uint64_t qpos[TQ] = { 0, 2, 3, 7, 8 };
    tpu_ref_softmax_keys(s, z, TK, TQ, sc, qpos, tmp);
    for (int i = 0; i < TQ; i++) {
        uint64_t n = qpos[i] + 1;
        for (uint64_t c = 0; c < n; c++)
            col[c] = s[c * TQ + (uint64_t)i];
        tpu_nn_params q = { TPU_NN_SOFTMAX, n, NULL, NULL, 0, sc, NULL };
        tpu_ref_nn(&q, col, zc, 1, 1, tmp);
        for (uint64_t c = 0; c < TK; c++)
            assert_int_equal(z[c * TQ + (uint64_t)i], c < n ? zc[c] : 0u);
    }
    assert_int_equal(z[0], TPU_NN_ONE);   /* query 0 sees key 0 alone: exp(0) rcp(1) */
}

/* A small block: its fp32 result near float64's, flash's too; causal changes it; a
 * decode step whose padding tokens are no keys gives the real tokens the
 * y of those tokens alone; and K, V of the past change the result. */
static void test_block(void **state)
{
    (void)state;
    enum { T = 8, D = 8, FH = 16, H = 2, P = 4 };
    uint32_t x[D * T], g[D], bt[D], y[D * T], yc[D * T], y2[D * 3], x2[D * 3];
    uint16_t wqkv[3 * D * D], wo[D * D], win[FH * D], wout[D * FH], kp[P * D], vp[D * P];
    double yd[D * T];
    for (int i = 0; i < D * T; i++)
        x[i] = tpu_fill_random_f32(1, (uint64_t)i, B(-2.0f), B(2.0f), 0);
    for (int i = 0; i < D; i++) {
        g[i] = tpu_fill_random_f32(2, (uint64_t)i, B(0.5f), B(1.5f), 0);
        bt[i] = tpu_fill_random_f32(3, (uint64_t)i, B(-0.5f), B(0.5f), 0);
    }
#define FILLW(a, seed) for (size_t i = 0; i < sizeof a / 2; i++) \
        a[i] = (uint16_t)(tpu_fill_random_f32(seed, i, B(-0.5f), B(0.5f), 1) >> 16)
    FILLW(wqkv, 4); FILLW(wo, 5); FILLW(win, 6); FILLW(wout, 7); FILLW(kp, 8); FILLW(vp, 9);
    tpu_block_params p;
    memset(&p, 0, sizeof p);
    p.t = T, p.d = D, p.f = FH, p.heads = H, p.tile = 4, p.eps = 0x3727c5acu;
    p.x = x, p.g1 = g, p.b1 = bt, p.g2 = g, p.b2 = bt;
    p.wqkv = wqkv, p.wo = wo, p.win = win, p.wout = wout, p.kpast = kp, p.vpast = vp;
    assert_int_equal(tpu_ref_block(&p, y, NULL), 0);
    assert_int_equal(tpu_ref_block_f64(&p, yd), 0);
    double mx = 0, err = 0;
    for (int i = 0; i < D * T; i++) {
        mx = fmax(mx, fabs(yd[i]));
        err = fmax(err, fabs(F(y[i]) - yd[i]));
    }
    assert_true(mx > 0.5 && err < 0.02 * mx);   /* the bf16 roundings of X, QKV, P, O, G */
    /* flash, 2 blocks of 4 keys: another rounding (P unnormalised in bf16,
     * the rescaled sums), the same function */
    uint32_t yf[D * T];
    p.kblock = 4;
    assert_int_equal(tpu_ref_block(&p, yf, NULL), 0);
    double fe = 0;
    for (int i = 0; i < D * T; i++)
        fe = fmax(fe, fabs(F(yf[i]) - yd[i]));
    assert_true(fe < 0.02 * mx);
    p.kblock = 0;
    p.causal = 1;
    assert_int_equal(tpu_ref_block(&p, yc, NULL), 0);
    assert_memory_not_equal(y, yc, sizeof y);
    /* token 0 sees only itself: its column is the same whatever follows it */
    p.t = 1;
    uint32_t x1[D], y1[D];
    for (int r = 0; r < D; r++)
        x1[r] = x[r * T];
    p.x = x1;
    assert_int_equal(tpu_ref_block(&p, y1, NULL), 0);
    for (int r = 0; r < D; r++)
        assert_int_equal(y1[r], yc[r * T]);
    /* decode: 3 new tokens after P past ones; padded to T with zero tokens
     * that are no keys, the real columns are those of the 3 alone */
    uint32_t xp[D * T];
    memset(xp, 0, sizeof xp);
    for (int r = 0; r < D; r++)
        for (int c = 0; c < 3; c++)
            xp[r * T + c] = x2[r * 3 + c] = x[r * T + c];
    p.past = P, p.t = T, p.t_keys = 3, p.x = xp;
    assert_int_equal(tpu_ref_block(&p, y, NULL), 0);
    p.t = 3, p.t_keys = 0, p.x = x2;
    assert_int_equal(tpu_ref_block(&p, y2, NULL), 0);
    for (int r = 0; r < D; r++)
        assert_memory_equal(y + r * T, y2 + r * 3, 3 * 4);
    /* the past matters */
    kp[0] ^= 0x4000;
    uint32_t y3[D * 3];
    assert_int_equal(tpu_ref_block(&p, y3, NULL), 0);
    assert_memory_not_equal(y2, y3, sizeof y2);
}

/* Decode continues a prefill bit for bit: the causal prefill of 8 tokens
 * and, after a prefill of the first 4, a decode of the last 4 whose cache
 * holds the first 4's K and V (bf16, as the prefill computes them) give the
 * last 4 tokens the same y. */
static void test_decode_continues_prefill(void **state)
{
    (void)state;
    enum { T = 8, P = 4, D = 8, FH = 16, H = 2 };
    uint32_t x[D * T], g[D], bt[D], y[D * T], xd[D * (T - P)], yd[D * (T - P)];
    uint32_t xp[D * P], ln[D * P], tmp[D], qkv[3 * D * P];
    uint16_t wqkv[3 * D * D], wo[D * D], win[FH * D], wout[D * FH], xb[D * P], kp[P * D], vp[D * P];
    for (int i = 0; i < D * T; i++)
        x[i] = tpu_fill_random_f32(11, (uint64_t)i, B(-2.0f), B(2.0f), 0);
    for (int i = 0; i < D; i++) {
        g[i] = tpu_fill_random_f32(12, (uint64_t)i, B(0.5f), B(1.5f), 0);
        bt[i] = tpu_fill_random_f32(13, (uint64_t)i, B(-0.5f), B(0.5f), 0);
    }
#define FILLW2(a, seed) for (size_t i = 0; i < sizeof a / 2; i++) \
        a[i] = (uint16_t)(tpu_fill_random_f32(seed, i, B(-0.5f), B(0.5f), 1) >> 16)
    FILLW2(wqkv, 14); FILLW2(wo, 15); FILLW2(win, 16); FILLW2(wout, 17);
    tpu_block_params p;
    memset(&p, 0, sizeof p);
    p.t = T, p.d = D, p.f = FH, p.heads = H, p.tile = 4, p.eps = 0x3727c5acu, p.causal = 1;
    p.x = x, p.g1 = g, p.b1 = bt, p.g2 = g, p.b2 = bt;
    p.wqkv = wqkv, p.wo = wo, p.win = win, p.wout = wout;
    assert_int_equal(tpu_ref_block(&p, y, NULL), 0);
    /* the first P tokens' K and V, as the prefill computes them */
    for (int r = 0; r < D; r++)
        for (int c = 0; c < P; c++)
            xp[r * P + c] = x[r * T + c];
    tpu_nn_params lp = { TPU_NN_LAYERNORM, D, g, bt, 0x3727c5acu, 0, NULL };
    tpu_ref_nn(&lp, xp, ln, P, P, tmp);
    for (int i = 0; i < D * P; i++)
        xb[i] = tpu_bf16_from_f32(ln[i]);
    assert_int_equal(tpu_ref_matmul(wqkv, xb, qkv, 3 * D, D, P, 4), 0);
    for (int c = 0; c < P; c++)
        for (int f = 0; f < D; f++) {
            kp[c * D + f] = tpu_bf16_from_f32(qkv[(D + f) * P + c]);       /* K token-major */
            vp[f * P + c] = tpu_bf16_from_f32(qkv[(2 * D + f) * P + c]);   /* V feature-major */
        }
    for (int r = 0; r < D; r++)
        for (int c = 0; c < T - P; c++)
            xd[r * (T - P) + c] = x[r * T + P + c];
    p.t = T - P, p.past = P, p.x = xd, p.kpast = kp, p.vpast = vp;
    assert_int_equal(tpu_ref_block(&p, yd, NULL), 0);
    for (int r = 0; r < D; r++)
        assert_memory_equal(yd + r * (T - P), y + r * T + P, (T - P) * 4);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_softmax_worked),
        cmocka_unit_test(test_norms_worked),
        cmocka_unit_test(test_gelu_silu_specials),
        cmocka_unit_test(test_layout_pitch),
        cmocka_unit_test(test_against_f64),
        cmocka_unit_test(test_add),
        cmocka_unit_test(test_error_stats),
        cmocka_unit_test(test_softmax_keys),
        cmocka_unit_test(test_block),
        cmocka_unit_test(test_decode_continues_prefill),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
