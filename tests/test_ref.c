/*
 * test_ref.c - cmodel/ref.c against the plain definition, bit for bit.
 *
 * The definition of every result is a plain loop over tpu_mac() and
 * tpu_f32_add() (fp.c, integer soft-float, itself tested in test_fp.c).
 * ref.c computes the same thing fast (host floats under FTZ/DAZ on x86,
 * vectorised); these tests feed both random operands rich in the cases
 * where the fast path could differ: NaNs with payloads, infinities,
 * signed zeros, subnormals, products that overflow or fall below 2^-126,
 * and sums that cancel into the flush range.  Coverage counters make sure
 * the random data really contains those cases.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fp.h"
#include "ref.h"

#if (defined(__x86_64__) || defined(__i386__)) && defined(__SSE2__)
#include <xmmintrin.h>
#define HAVE_MXCSR 1
#else
#define HAVE_MXCSR 0
#endif

/* ---- random operands ------------------------------------------------------ */

typedef struct rng { uint64_t s; } rng;

static uint64_t rng_next(rng *r)
{
    r->s ^= r->s << 13;
    r->s ^= r->s >> 7;
    r->s ^= r->s << 17;
    return r->s;
}

static unsigned rng_below(rng *r, unsigned n) { return (unsigned)(rng_next(r) % n); }

/* Flavours of operand set: each picks bf16 values from a different mix. */
enum mix {
    MIX_NORMAL,   /* exponents near 1.0, random signs: rounding and cancellation */
    MIX_TINY,     /* exponents near 2^-63: products near 2^-126, sums flush */
    MIX_HUGE,     /* exponents near 2^64: products overflow to inf */
    MIX_SPECIAL,  /* a sprinkling of NaN, inf, zeros, subnormals among normals */
    MIX_BITS,     /* any 16-bit pattern */
    MIX_COUNT
};

/* One bf16 value drawn from the mix. */
static uint16_t rand_bf16(rng *r, enum mix m)
{
    uint16_t sign = (uint16_t)(rng_below(r, 2) << 15);
    uint16_t frac = (uint16_t)rng_below(r, 128);
    unsigned e;
    switch (m) {
    case MIX_NORMAL:
        e = 120 + rng_below(r, 15);
        break;
    case MIX_TINY:
        e = 62 + rng_below(r, 4);        /* 2^-65 .. 2^-62: products 2^-130 .. 2^-122 */
        break;
    case MIX_HUGE:
        e = 186 + rng_below(r, 10);      /* 2^59 .. 2^68: products up to 2^137 */
        break;
    case MIX_SPECIAL:
        switch (rng_below(r, 40)) {
        case 0: return (uint16_t)(sign | 0x7f80u | (1 + rng_below(r, 127)));  /* NaN, payload */
        case 1: return (uint16_t)(sign | 0x7f80u);                            /* +-inf */
        case 2: case 3: return sign;                                          /* +-0 */
        case 4: case 5: return (uint16_t)(sign | (1 + rng_below(r, 127)));    /* subnormal */
        case 6: return (uint16_t)(sign | (60u << 7) | frac);                  /* tiny */
        case 7: return (uint16_t)(sign | (190u << 7) | frac);                 /* huge */
        default: e = 115 + rng_below(r, 25); break;
        }
        break;
    default:
        return (uint16_t)rng_next(r);
    }
    return (uint16_t)(sign | (e << 7) | frac);
}

/* ---- the plain definition ---------------------------------------------------- */

static void plain_row(const uint16_t *x, const uint16_t *w, unsigned n, uint32_t *y)
{
    for (unsigned c = 0; c < n; c++) {
        uint32_t s = 0;
        for (unsigned k = 0; k < n; k++)
            s = tpu_mac(s, x[k], w[(size_t)k * n + c]);
        y[c] = s;
    }
}

static void plain_matmul(const uint16_t *x, const uint16_t *w, uint32_t *y,
                         uint64_t b, uint64_t d, uint64_t f, unsigned tile)
{
    for (uint64_t r = 0; r < b; r++)
        for (uint64_t c = 0; c < f; c++) {
            uint32_t out = 0;
            for (uint64_t k0 = 0; k0 < d; k0 += tile) {
                uint32_t s = 0;
                for (uint64_t k = k0; k < d && k < k0 + tile; k++)
                    s = tpu_mac(s, x[r * d + k], w[k * f + c]);
                out = k0 == 0 ? s : tpu_f32_add(out, s);
            }
            y[r * f + c] = out;
        }
}

/* What the random data exercised (so a test cannot pass vacuously). */
typedef struct coverage {
    unsigned long products_flushed, products_overflowed, sums_flushed;
    unsigned long out_nan, out_inf, out_negzero, out_normal;
} coverage;

/* Walk the plain MAC chains once more and count the interesting steps. */
static void count_row(const uint16_t *x, const uint16_t *w, unsigned n, coverage *cv)
{
    for (unsigned c = 0; c < n; c++) {
        uint32_t s = 0;
        for (unsigned k = 0; k < n; k++) {
            uint32_t xf = tpu_f32_from_bf16(x[k]), wf = tpu_f32_from_bf16(w[(size_t)k * n + c]);
            uint32_t p = tpu_f32_mul(xf, wf);
            int finite_nonzero = !tpu_f32_is_zero(xf) && !tpu_f32_is_zero(wf)
                                 && (xf & 0x7f800000u) != 0x7f800000u
                                 && (wf & 0x7f800000u) != 0x7f800000u;
            if (finite_nonzero && tpu_f32_is_zero(p))
                cv->products_flushed++;
            if (finite_nonzero && (p & 0x7fffffffu) == 0x7f800000u)
                cv->products_overflowed++;
            uint32_t t = tpu_f32_add(s, p);
            /* a flushed sum: zero result of two nonzero finite operands that are not negatives */
            if (tpu_f32_is_zero(t) && !tpu_f32_is_zero(s) && !tpu_f32_is_zero(p)
                && (s ^ 0x80000000u) != p && (s & 0x7f800000u) != 0x7f800000u)
                cv->sums_flushed++;
            s = t;
        }
        if (s == TPU_F32_QNAN) cv->out_nan++;
        else if ((s & 0x7fffffffu) == 0x7f800000u) cv->out_inf++;
        else if (s == 0x80000000u) cv->out_negzero++;
        else if (!tpu_f32_is_zero(s)) cv->out_normal++;
    }
}

static void print_mismatch(const char *what, unsigned n, size_t i, uint32_t want, uint32_t got)
{
    print_error("%s n=%u: element %zu: plain 0x%08x, ref 0x%08x\n", what, n, i, want, got);
}

/* ---- tpu_ref_row ---------------------------------------------------------------- */

/* For one N: many random rows/tiles from every mix, plain vs ref. */
static void check_row_random(unsigned n, unsigned trials, coverage *cv)
{
    rng r = { 0x9e3779b97f4a7c15ull ^ n };
    uint16_t *x = malloc(n * sizeof *x);
    uint16_t *w = malloc((size_t)n * n * sizeof *w);
    uint32_t *want = malloc(n * sizeof *want), *got = malloc(n * sizeof *got);
    assert_non_null(x); assert_non_null(w); assert_non_null(want); assert_non_null(got);
    for (unsigned t = 0; t < trials; t++) {
        enum mix mx = (enum mix)(t % MIX_COUNT), mw = (enum mix)((t / MIX_COUNT) % MIX_COUNT);
        for (unsigned i = 0; i < n; i++)
            x[i] = rand_bf16(&r, mx);
        for (size_t i = 0; i < (size_t)n * n; i++)
            w[i] = rand_bf16(&r, mw);
        plain_row(x, w, n, want);
        memset(got, 0xa5, n * sizeof *got);
        tpu_ref_row(x, w, n, got);
        for (unsigned c = 0; c < n; c++)
            if (want[c] != got[c]) {
                print_mismatch("tpu_ref_row", n, c, want[c], got[c]);
                fail();
            }
        count_row(x, w, n, cv);
    }
    free(x); free(w); free(want); free(got);
}

static void test_row_random_all_sizes(void **state)
{
    (void)state;
    static const unsigned sizes[] = { 1, 2, 7, 8, 16, 33, 128 };
    coverage cv = { 0 };
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        unsigned n = sizes[i];
        check_row_random(n, n >= 128 ? 4 * MIX_COUNT * MIX_COUNT : 40 * MIX_COUNT * MIX_COUNT, &cv);
    }
    print_message("coverage: %lu products flushed, %lu overflowed, %lu sums flushed; outputs: %lu NaN, %lu inf, %lu -0, %lu normal\n", cv.products_flushed, cv.products_overflowed, cv.sums_flushed, cv.out_nan, cv.out_inf, cv.out_negzero, cv.out_normal);
    /* The data must have reached every case the fast path has to get right. */
    assert_true(cv.products_flushed > 100);
    assert_true(cv.products_overflowed > 100);
    assert_true(cv.sums_flushed > 100);
    assert_true(cv.out_nan > 100);
    assert_true(cv.out_inf > 100);
    assert_true(cv.out_negzero > 10);
    assert_true(cv.out_normal > 100);
}

/* Hand-picked rows where host float without FTZ/DAZ, with FMA, or with
 * a non-canonical NaN would give other bits. */
static void test_row_edge_cases(void **state)
{
    (void)state;
    uint32_t y[2];
    /* 2^-63 * 2^-64 = 2^-127: exactly representable as a subnormal, flushed to +0. */
    uint16_t x1[2] = { 0x2000, 0x0000 }, w1[4] = { 0x1f80, 0x1f80, 0x0000, 0x0000 };
    tpu_ref_row(x1, w1, 2, y);
    assert_int_equal(y[0], 0x00000000u);
    /* -2^-63 * 2^-64 flushes to -0, but the sum starts at +0: +0 + -0 = +0,
     * and so does the next -0 product (numerics.md section 5). */
    uint16_t x2[2] = { 0xa000, 0x8000 }, w2[4] = { 0x1f80, 0x1f80, 0x3f80, 0x3f80 };
    tpu_ref_row(x2, w2, 2, y);
    assert_int_equal(y[0], 0x00000000u);
    /* subnormal bf16 input is zero: 0x0001 * inf = NaN (0 * inf), canonical. */
    uint16_t x3[2] = { 0x0001, 0x3f80 }, w3[4] = { 0x7f80, 0xff80, 0x3f80, 0x3f80 };
    tpu_ref_row(x3, w3, 2, y);
    assert_int_equal(y[0], TPU_F32_QNAN);
    assert_int_equal(y[1], TPU_F32_QNAN);
    /* a negative NaN with a payload comes out canonical */
    uint16_t x4[2] = { 0xffc1, 0x3f80 }, w4[4] = { 0x3f80, 0x3f80, 0x3f80, 0x3f80 };
    tpu_ref_row(x4, w4, 2, y);
    assert_int_equal(y[0], TPU_F32_QNAN);
    /* inf - inf in the sum */
    uint16_t x5[2] = { 0x3f80, 0x3f80 }, w5[4] = { 0x7f80, 0x3f80, 0xff80, 0x3f80 };
    tpu_ref_row(x5, w5, 2, y);
    assert_int_equal(y[0], TPU_F32_QNAN);
    assert_int_equal(y[1], 0x40000000u);
    /* 2^-126 + (-(2^-126 - 2^-133))... : sum 2^-133 tiny -> +0 */
    uint16_t x6[2] = { 0x3f80, 0x3f80 }, w6[4] = { 0x0080, 0x0080, 0x807f, 0x807f };
    /* 0x807f is a subnormal (-0 by DAZ): sum stays 2^-126 */
    tpu_ref_row(x6, w6, 2, y);
    assert_int_equal(y[0], 0x00800000u);
    /* a sum that cancels into the flush range: 1.5*2^-126 - 2^-126 = 2^-127 -> +0,
     * 2^-126 - 1.5*2^-126 = -2^-127 -> -0 */
    uint16_t x7[2] = { 0x3f80, 0x3f80 }, w7[4] = { 0x00c0, 0x0080, 0x8080, 0x80c0 };
    tpu_ref_row(x7, w7, 2, y);
    assert_int_equal(y[0], 0x00000000u);
    assert_int_equal(y[1], 0x80000000u);
    /* product overflow: 2^127 * 2 = inf */
    uint16_t x8[2] = { 0x7f00, 0x0000 }, w8[4] = { 0x4000, 0xc000, 0x3f80, 0x3f80 };
    tpu_ref_row(x8, w8, 2, y);
    assert_int_equal(y[0], 0x7f800000u);
    assert_int_equal(y[1], 0xff800000u);
}

#if HAVE_MXCSR
/* The caller's SSE control register (rounding mode, FTZ/DAZ) is left as it
 * was, and the kernel ignores a non-default caller mode. */
static void test_row_restores_mxcsr(void **state)
{
    (void)state;
    unsigned saved = _mm_getcsr();
    unsigned mode = (saved & ~0xe040u) | 0x6000u;   /* round toward zero, no FTZ/DAZ */
    _mm_setcsr(mode);
    uint16_t x[2] = { 0x3f80, 0x3f80 }, w[4] = { 0x4b80, 0x3f80, 0x3f81, 0x0000 };
    uint32_t y[2];
    tpu_ref_row(x, w, 2, y);
    unsigned after = _mm_getcsr();
    _mm_setcsr(saved);
    assert_int_equal(after & 0xffc0u, mode & 0xffc0u);   /* control bits (flags may change) */
    /* column 0: 2^24 + 1.0078125 rounds to nearest (2^24 + 2), not toward zero */
    uint32_t want[2];
    plain_row(x, w, 2, want);
    assert_int_equal(y[0], want[0]);
    assert_int_equal(y[0], 0x4b800001u);
    assert_int_equal(y[1], want[1]);
}
#endif

/* ---- tpu_ref_matmul --------------------------------------------------------------- */

static void check_matmul(uint64_t b, uint64_t d, uint64_t f, unsigned tile, uint64_t seed,
                         enum mix mx, enum mix mw)
{
    rng r = { seed };
    uint16_t *x = malloc((b * d + 1) * sizeof *x), *w = malloc((d * f + 1) * sizeof *w);
    uint32_t *want = malloc((b * f + 1) * 4), *got = malloc((b * f + 1) * 4);
    assert_non_null(x); assert_non_null(w); assert_non_null(want); assert_non_null(got);
    for (uint64_t i = 0; i < b * d; i++)
        x[i] = rand_bf16(&r, mx);
    for (uint64_t i = 0; i < d * f; i++)
        w[i] = rand_bf16(&r, mw);
    plain_matmul(x, w, want, b, d, f, tile);
    memset(got, 0x5a, b * f * 4);
    assert_int_equal(tpu_ref_matmul(x, w, got, b, d, f, tile), 0);
    for (uint64_t i = 0; i < b * f; i++)
        if (want[i] != got[i]) {
            print_error("matmul B=%llu D=%llu F=%llu tile=%u: Y[%llu][%llu]: plain 0x%08x, "
                        "ref 0x%08x\n", (unsigned long long)b, (unsigned long long)d,
                        (unsigned long long)f, tile, (unsigned long long)(i / f),
                        (unsigned long long)(i % f), want[i], got[i]);
            fail();
        }
    free(x); free(w); free(want); free(got);
}

static void test_matmul_shapes(void **state)
{
    (void)state;
    /* D a multiple of tile, D not a multiple (last partial tile), D < tile,
     * D = 1, F wider than one 256-column chunk and not a multiple of it. */
    static const struct { uint64_t b, d, f; unsigned tile; } shapes[] = {
        { 1, 8, 8, 8 }, { 3, 16, 8, 8 }, { 5, 20, 7, 8 }, { 4, 13, 9, 4 }, { 2, 5, 3, 8 },
        { 6, 1, 5, 2 }, { 3, 130, 300, 128 }, { 2, 300, 17, 128 }, { 9, 33, 513, 16 },
        { 1, 7, 1, 1 }, { 17, 24, 24, 8 },
    };
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
        for (int m = 0; m < MIX_COUNT; m++)
            check_matmul(shapes[i].b, shapes[i].d, shapes[i].f, shapes[i].tile,
                         0x1234567ull + i * 77 + (uint64_t)m, (enum mix)m,
                         (enum mix)((m + (int)i) % MIX_COUNT));
}

/* numerics.md section 5's worked example: N = 2, D = 4 gives 1.0 (not 2.0
 * or 0.0), because of the K-tile order. */
static void test_matmul_worked_example(void **state)
{
    (void)state;
    uint16_t x[4] = { 0x3f80, 0x3f80, 0x3f80, 0x3f80 };
    uint16_t w[4] = { 0x4b80, 0x3f80, 0x3f80, 0xcb80 };   /* a 4x1 column */
    uint32_t y = 0;
    assert_int_equal(tpu_ref_matmul(x, w, &y, 1, 4, 1, 2), 0);
    assert_int_equal(y, 0x3f800000u);
    assert_int_equal(tpu_ref_matmul(x, w, &y, 1, 4, 1, 4), 0);   /* one tile: 0.0 */
    assert_int_equal(y, 0x00000000u);
}

/* ---- tpu_ref_pointwise ------------------------------------------------------------ */

static uint32_t rand_f32(rng *r)
{
    switch (rng_below(r, 8)) {
    case 0: return (uint32_t)rng_next(r);                                       /* any bits */
    case 1: return ((uint32_t)rng_below(r, 2) << 31) | (uint32_t)rng_below(r, 0x800000); /* sub */
    case 2: return ((uint32_t)rng_below(r, 2) << 31) | 0x7f800000u
                   | (uint32_t)rng_below(r, 2) * (1 + (uint32_t)rng_below(r, 0x7fffff)); /* inf/NaN */
    default: return ((uint32_t)rng_below(r, 2) << 31) | ((uint32_t)(1 + rng_below(r, 20)) << 23)
                    | (uint32_t)rng_below(r, 0x800000);                          /* tiny normals */
    }
}

static void test_pointwise(void **state)
{
    (void)state;
    enum { N = 1 << 18 };
    uint32_t *a = malloc(N * 4), *b = malloc(N * 4), *z = malloc(N * 4), *z2 = malloc(N * 4);
    assert_non_null(a); assert_non_null(b); assert_non_null(z); assert_non_null(z2);
    rng r = { 42 };
    for (int i = 0; i < N; i++) {
        a[i] = rand_f32(&r);
        switch (i % 4) {
        case 0: b[i] = a[i] ^ 0x80000000u; break;                     /* exact cancellation */
        case 1: b[i] = (a[i] ^ 0x80000000u) + (uint32_t)rng_below(&r, 64) - 32; break; /* near */
        case 2: b[i] = a[i] + (uint32_t)rng_below(&r, 64) - 32; break; /* near, same sign */
        default: b[i] = rand_f32(&r); break;
        }
    }
    static const struct { enum tpu_ref_op op; uint32_t (*fn)(uint32_t, uint32_t); } ops[] = {
        { TPU_REF_ADD, tpu_f32_add }, { TPU_REF_SUB, tpu_f32_sub }, { TPU_REF_MUL, tpu_f32_mul },
        { TPU_REF_MAX, tpu_f32_max }, { TPU_REF_MIN, tpu_f32_min },
    };
    unsigned long flushed = 0, nans = 0, negzero = 0;
    for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++) {
        tpu_ref_pointwise(ops[k].op, a, b, z, N);
        for (int i = 0; i < N; i++) {
            uint32_t want = ops[k].fn(a[i], b[i]);
            if (z[i] != want) {
                print_error("op %d: a 0x%08x b 0x%08x: plain 0x%08x, ref 0x%08x\n", (int)ops[k].op,
                            a[i], b[i], want, z[i]);
                fail();
            }
            if (k < 2 && tpu_f32_is_zero(want) && !tpu_f32_is_zero(a[i]) && !tpu_f32_is_zero(b[i])
                && (a[i] ^ (k ? 0 : 0x80000000u)) != b[i] && (a[i] & 0x7f800000u) != 0x7f800000u)
                flushed++;
            nans += want == TPU_F32_QNAN;
            negzero += want == 0x80000000u;
        }
        /* z may be the same array as a or b */
        memcpy(z2, a, N * 4);
        tpu_ref_pointwise(ops[k].op, z2, b, z2, N);
        assert_memory_equal(z2, z, N * 4);
        memcpy(z2, b, N * 4);
        tpu_ref_pointwise(ops[k].op, a, z2, z2, N);
        assert_memory_equal(z2, z, N * 4);
    }
    assert_true(flushed > 1000);        /* sums that cancel below 2^-126 */
    assert_true(nans > 1000);
    assert_true(negzero > 100);
    tpu_ref_pointwise(TPU_REF_RELU, a, NULL, z, N);
    for (int i = 0; i < N; i++)
        assert_int_equal(z[i], tpu_f32_relu(a[i]));
    /* a few fixed points of the rules */
    uint32_t pa[4] = { 0x00800000u, 0x7fc12345u, 0x80000000u, 0x00c00000u };
    uint32_t pb[4] = { 0x3f000000u, 0x3f800000u, 0x00000000u, 0x80800000u };
    tpu_ref_pointwise(TPU_REF_MUL, pa, pb, z, 4);
    assert_int_equal(z[0], 0x00000000u);        /* 2^-127: flushed */
    assert_int_equal(z[1], TPU_F32_QNAN);
    assert_int_equal(z[2], 0x80000000u);        /* -0 * +0 = -0 */
    tpu_ref_pointwise(TPU_REF_ADD, pa, pb, z, 4);
    assert_int_equal(z[3], 0x00000000u);        /* 1.5*2^-126 - 2^-126 = 2^-127: flushed */
    assert_int_equal(z[1], TPU_F32_QNAN);
    uint32_t sa[1] = { 0x00800000u }, sb[1] = { 0x00c00000u };
    tpu_ref_pointwise(TPU_REF_SUB, sa, sb, z, 1);
    assert_int_equal(z[0], 0x80000000u);        /* 2^-126 - 1.5*2^-126 = -2^-127: -0 */
    tpu_ref_pointwise(TPU_REF_RELU, pa, NULL, z, 4);
    assert_int_equal(z[2], 0x00000000u);        /* relu(-0) = +0 */
    free(a); free(b); free(z); free(z2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_row_random_all_sizes),
        cmocka_unit_test(test_row_edge_cases),
#if HAVE_MXCSR
        cmocka_unit_test(test_row_restores_mxcsr),
#endif
        cmocka_unit_test(test_matmul_shapes),
        cmocka_unit_test(test_matmul_worked_example),
        cmocka_unit_test(test_pointwise),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
