/*
 * test_ref.c - cmodel/ref.c against the plain definition, bit for bit.
 *
 * The definition of every result is a plain loop over tpu_mac() and
 * tpu_f32_add() (fp.c, integer soft-float, itself tested in test_fp.c).
 * ref.c computes the same thing fast with several kernels (host floats
 * under FTZ/DAZ on x86, vectorised; multiply then add, or a fused
 * multiply-add where the product is provably normal); every test runs
 * every kernel this host has (tpu_ref_kernel_set) and feeds it random
 * operands rich in the cases where a fast path could differ: NaNs with
 * payloads, infinities, signed zeros, subnormals, products that overflow
 * or fall below 2^-126 (where a fused multiply-add would give other bits),
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

/* ---- every kernel ------------------------------------------------------------ */

/* The next kernel after k that this host runs, now in use; -1 (and the
 * default restored) after the last.  for (k = next_kernel(0); k >= 0;
 * k = next_kernel(k)) runs a body once per kernel: never break out. */
static int next_kernel(int k)
{
    while (++k < TPU_REF_KERNEL_COUNT)
        if (tpu_ref_kernel_set((enum tpu_ref_kernel)k) == 0)
            return k;
    assert_int_equal(tpu_ref_kernel_set(TPU_REF_KERNEL_AUTO), 0);
    return -1;
}

static const char *kname(int k)
{
    return tpu_ref_kernel_name((enum tpu_ref_kernel)k);
}

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
    /* steps where a fused multiply-add could give other bits (ref.c's top
     * comment): a tiny product meeting a nonzero sum or, negative, +0; an
     * overflowing one meeting a sum of the other sign */
    unsigned long fma_tiny, fma_huge;
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
            if (finite_nonzero && tpu_f32_is_zero(p)) {
                cv->products_flushed++;
                if (!tpu_f32_is_zero(s) || (s == 0 && (p >> 31)))
                    cv->fma_tiny++;
            }
            if (finite_nonzero && (p & 0x7fffffffu) == 0x7f800000u) {
                cv->products_overflowed++;
                if (s != TPU_F32_QNAN && !tpu_f32_is_zero(s) && (s >> 31) != (p >> 31))
                    cv->fma_huge++;
            }
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

/* ---- tpu_ref_row ---------------------------------------------------------------- */

/* For one N: many random rows/tiles from every mix, plain vs every kernel:
 * tpu_ref_row, tpu_ref_row_tile with a scanned tile, and tpu_ref_rows_tile
 * on several rows at once (rows of the same mix, at a stride). */
enum { ROWS = 14 };   /* two blocks of 6 and a part */

static void check_row_random(unsigned n, unsigned trials, coverage *cv)
{
    /* large N: fewer rows (still a block of 6 and a part), and not the soft
     * kernel, which is the plain loop again (slow) */
    unsigned nr_all = n >= 100 ? 8 : ROWS;
    rng r = { 0x9e3779b97f4a7c15ull ^ n };
    size_t ldx = n + 3, ldy = n + 5;
    uint16_t *x = malloc(ROWS * ldx * sizeof *x);
    uint16_t *w = malloc((size_t)n * n * sizeof *w);
    uint32_t *want = malloc(ROWS * n * sizeof *want), *got = malloc(ROWS * ldy * sizeof *got);
    tpu_ref_tile *tile = malloc(sizeof *tile);
    assert_non_null(x); assert_non_null(w); assert_non_null(want); assert_non_null(got);
    assert_non_null(tile);
    for (unsigned t = 0; t < trials; t++) {
        enum mix mx = (enum mix)(t % MIX_COUNT), mw = (enum mix)((t / MIX_COUNT) % MIX_COUNT);
        for (unsigned i = 0; i < nr_all; i++)
            for (unsigned k = 0; k < n; k++)
                x[i * ldx + k] = rand_bf16(&r, i == 3 ? (enum mix)((mx + 1) % MIX_COUNT) : mx);
        for (size_t i = 0; i < (size_t)n * n; i++)
            w[i] = rand_bf16(&r, mw);
        for (unsigned i = 0; i < nr_all; i++) {
            plain_row(x + i * ldx, w, n, want + i * n);
            if (i < 2)                       /* plenty: it walks the chains again */
                count_row(x + i * ldx, w, n, cv);
        }
        tpu_ref_tile_scan(w, n, tile);
        for (int k = next_kernel(0); k >= 0; k = next_kernel(k)) {
            if (k == TPU_REF_KERNEL_SOFT && n > 64)
                continue;
            for (int way = 0; way < 3; way++) {
                memset(got, 0xa5, ROWS * ldy * sizeof *got);
                const char *what = way == 0 ? "tpu_ref_row" : way == 1 ? "tpu_ref_row_tile"
                                                                       : "tpu_ref_rows_tile";
                unsigned nrows = way == 2 ? nr_all : 2;
                if (way == 0)
                    for (unsigned i = 0; i < nrows; i++)
                        tpu_ref_row(x + i * ldx, w, n, got + i * ldy);
                else if (way == 1)
                    for (unsigned i = 0; i < nrows; i++)
                        tpu_ref_row_tile(x + i * ldx, w, n <= TPU_REF_MAX_N ? tile : NULL, n,
                                         got + i * ldy);
                else
                    tpu_ref_rows_tile(x, ldx, nrows, w, n <= TPU_REF_MAX_N ? tile : NULL, n, got,
                                      ldy);
                for (unsigned i = 0; i < nrows; i++)
                    for (unsigned c = 0; c < n; c++)
                        if (want[i * n + c] != got[i * ldy + c]) {
                            print_error("%s, kernel %s, n=%u, mixes %d/%d: row %u column %u: "
                                        "plain 0x%08x, ref 0x%08x\n", what, kname(k), n,
                                        (int)mx, (int)mw, i, c, want[i * n + c],
                                        got[i * ldy + c]);
                            fail();
                        }
                /* nothing written past a row's n results */
                if (way == 2)
                    for (unsigned i = 0; i < nrows; i++)
                        for (size_t c = n; c < ldy; c++)
                            assert_int_equal(got[i * ldy + c], 0xa5a5a5a5u);
            }
        }
    }
    free(x); free(w); free(want); free(got); free(tile);
}

static void test_row_random_all_sizes(void **state)
{
    (void)state;
    /* Every column-block width of every kernel and their remainders:
     * 128/64/32/16/8-column blocks, the plain tail, N above the largest
     * mxu_n (no tile windows: multiply then add). */
    static const unsigned sizes[] = { 1, 2, 7, 8, 16, 24, 33, 64, 100, 128, 200, 256, 300 };
    coverage cv = { 0 };
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        unsigned n = sizes[i];
        check_row_random(n, n >= 100 ? MIX_COUNT * MIX_COUNT : 4 * MIX_COUNT * MIX_COUNT, &cv);
    }
    print_message("coverage: %lu products flushed, %lu overflowed, %lu sums flushed; a fused "
                  "multiply-add could differ at %lu tiny and %lu huge products; outputs: %lu "
                  "NaN, %lu inf, %lu -0, %lu normal\n", cv.products_flushed,
                  cv.products_overflowed, cv.sums_flushed, cv.fma_tiny, cv.fma_huge, cv.out_nan,
                  cv.out_inf, cv.out_negzero, cv.out_normal);
    /* The data must have reached every case the fast paths have to get right. */
    assert_true(cv.products_flushed > 100);
    assert_true(cv.products_overflowed > 100);
    assert_true(cv.sums_flushed > 100);
    assert_true(cv.fma_tiny > 100);
    assert_true(cv.fma_huge > 100);
    assert_true(cv.out_nan > 100);
    assert_true(cv.out_inf > 100);
    assert_true(cv.out_negzero > 10);
    assert_true(cv.out_normal > 100);
}

/* Hand-picked rows where host float without FTZ/DAZ, with FMA, or with
 * a non-canonical NaN would give other bits. */
static void row_edge_cases(void)
{
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

static void test_row_edge_cases(void **state)
{
    (void)state;
    for (int k = next_kernel(0); k >= 0; k = next_kernel(k))
        row_edge_cases();
}

/* One column (N = 1 .. 4, the other columns zero weights) through every
 * way in: tpu_ref_row, a scanned tile, several rows at once, and the same
 * column in the middle of 128 (the wide blocks) and of 200 columns (the
 * narrow blocks and the tail).  want: the plain definition's bits. */
static void column_is(const char *what, const char *how, unsigned n, uint32_t got,
                      uint32_t want)
{
    if (got != want) {
        print_error("%s (kernel %s, %s, N = %u): 0x%08x, want 0x%08x\n", what,
                    kname(tpu_ref_kernel_current()), how, n, got, want);
        fail();
    }
}

static void check_column(const char *what, const uint16_t *xk, const uint16_t *wk, unsigned nk,
                         uint32_t want)
{
    static const unsigned widths[] = { 0, 128, 200 };
    for (size_t wi = 0; wi < sizeof widths / sizeof widths[0]; wi++) {
        unsigned n = widths[wi] ? widths[wi] : nk, col = widths[wi] ? 61 : 0;
        uint16_t *x = calloc(n, sizeof *x), *w = calloc((size_t)n * n, sizeof *w);
        uint32_t *y = calloc(2 * (size_t)n, sizeof *y), plain[256];
        tpu_ref_tile *t = malloc(sizeof *t);
        assert_non_null(x); assert_non_null(w); assert_non_null(y); assert_non_null(t);
        /* the steps in rows 0 .. nk-1; later rows: x = +0, so s + (+-0) */
        for (unsigned k = 0; k < nk; k++) {
            x[k] = xk[k];
            w[(size_t)k * n + col] = wk[k];
        }
        plain_row(x, w, n, plain);
        column_is(what, "plain", n, plain[col], want);   /* the case is what it says */
        tpu_ref_tile_scan(w, n, t);
        tpu_ref_row(x, w, n, y);
        column_is(what, "tpu_ref_row", n, y[col], want);
        tpu_ref_row_tile(x, w, t, n, y);
        column_is(what, "tpu_ref_row_tile", n, y[col], want);
        uint16_t *x2 = malloc(2 * (size_t)n * sizeof *x2);
        assert_non_null(x2);
        memcpy(x2, x, n * sizeof *x2);
        memcpy(x2 + n, x, n * sizeof *x2);
        x2[n + (nk < n ? nk : 0)] = 0x3f80;          /* the second row differs elsewhere */
        tpu_ref_rows_tile(x2, n, 2, w, t, n, y, n);
        column_is(what, "tpu_ref_rows_tile", n, y[col], want);
        free(x); free(w); free(y); free(t); free(x2);
    }
}

/* Where a fused multiply-add, rounding x*w + s once, differs from the
 * rules' multiply then add (ref.c's top comment, docs/numerics.md 8): the
 * fused kernels must fall back to multiply then add for these steps, and
 * fuse the neighbouring safe ones. */
static void test_row_fma_hazards(void **state)
{
    (void)state;
    static const struct {
        const char *what;
        unsigned nk;
        uint16_t x[4], w[4];
        uint32_t want;
    } cases[] = {
        /* s = 2^-126, p = 2^-63 * 2^-64 = 2^-127: flushed, s stays (fma: 1.5 * 2^-126) */
        { "tiny product on 2^-126", 2, { 0x3f80, 0x2000 }, { 0x0080, 0x1f80 }, 0x00800000u },
        /* s = 2^-126, p = -2^-127: s stays (fma: 2^-127, flushed to +0) */
        { "tiny product cancels", 2, { 0x3f80, 0xa000 }, { 0x0080, 0x1f80 }, 0x00800000u },
        /* s = +0, p = -2^-130: +0 + -0 = +0 (fma: -2^-130 flushed to -0) */
        { "tiny negative product on +0", 1, { 0xa000 }, { 0x1d80 }, 0x00000000u },
        /* s = 1.5 * 2^-126, p = -1.5 * 2^-127 flushed: s stays (fma: 0.75 * 2^-126 -> +0) */
        { "tiny product halves a tiny sum", 2, { 0x3f80, 0xa040 }, { 0x00c0, 0x1f80 },
          0x00c00000u },
        /* s = -(2^128 - 2^120), p = 2^64 * 2^64 = 2^128: inf (fma: 2^120) */
        { "overflow against -max", 2, { 0x3f80, 0x5f80 }, { 0xff7f, 0x5f80 }, 0x7f800000u },
        /* s = -inf, p = 2^128: -inf + inf = NaN (fma: -inf) */
        { "overflow against -inf", 2, { 0x3f80, 0x5f80 }, { 0xff80, 0x5f80 }, TPU_F32_QNAN },
        /* s = 2^127, p = -(1.5 * 2^64)^2 = -2.25 * 2^128: -inf, then + 2^127 stays -inf
         * ... and the exponent sum 381 can still give a finite product: */
        { "overflow, then more", 3, { 0x3f80, 0xdfc0, 0x3f80 }, { 0x7f00, 0x5fc0, 0x7f00 },
          0xff800000u },
        /* Ex + Ew = 381 but 2^64 * 2^63 = 2^127 is finite: both ways the same */
        { "exponent sum 381, finite", 2, { 0x3f80, 0x5f80 }, { 0xff00, 0x5f00 }, 0x00000000u },
        /* Ex + Ew = 127 (1.5 * 2^-63 times 1.5 * 2^-64) but the product 2.25 * 2^-127
         * = 1.125 * 2^-126 is normal: 2^-126 + 1.125 * 2^-126 = 1.0625 * 2^-125 */
        { "exponent sum 127, normal", 2, { 0x3f80, 0x2040 }, { 0x0080, 0x1fc0 }, 0x01080000u },
        /* Ex + Ew = 126 and 1.5 * 1.5 * 2^-128 = 1.125 * 2^-127 is tiny: flushed */
        { "exponent sum 126, tiny", 2, { 0x3f80, 0x1fc0 }, { 0x0080, 0x1fc0 }, 0x00800000u },
        /* Ex + Ew = 128: the smallest normal product, exact */
        { "exponent sum 128", 2, { 0x3f80, 0x2000 }, { 0x0080, 0x2000 }, 0x01000000u },
        /* a safe step, a tiny one, a safe one: 1 + 2^-127 (flushed) + 1 = 2 */
        { "safe, tiny, safe", 3, { 0x3f80, 0x2000, 0x3f80 }, { 0x3f80, 0x1f80, 0x3f80 },
          0x40000000u },
        /* subnormal weight (zero by DAZ) times a huge x: -0 product, s = +0 stays +0 */
        { "subnormal weight", 2, { 0x7f00, 0xff00 }, { 0x0001, 0x8001 }, 0x00000000u },
        /* 0 * inf = NaN in the middle of safe steps */
        { "zero times inf", 3, { 0x3f80, 0x0000, 0x3f80 }, { 0x3f80, 0x7f80, 0x3f80 },
          TPU_F32_QNAN },
    };
    unsigned kernels = 0;
    for (int k = next_kernel(0); k >= 0; k = next_kernel(k)) {
        kernels++;
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
            check_column(cases[i].what, cases[i].x, cases[i].w, cases[i].nk, cases[i].want);
    }
    assert_true(kernels >= 1);
}

#if HAVE_MXCSR
/* The caller's SSE control register (rounding mode, FTZ/DAZ) is left as it
 * was, and the kernel ignores a non-default caller mode. */
static void row_restores_mxcsr(void)
{
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
    /* and the matmul */
    _mm_setcsr(mode);
    tpu_ref_matmul(x, w, y, 1, 2, 2, 2);
    after = _mm_getcsr();
    _mm_setcsr(saved);
    assert_int_equal(after & 0xffc0u, mode & 0xffc0u);
    assert_int_equal(y[0], 0x4b800001u);
    /* and the pointwise add, under every caller mode: round toward zero or
     * nearest, FTZ and DAZ off or on */
    static const uint32_t pa[] = { 0x4b800000u, 0x00800000u, 0x00000001u, 0x80800000u,
                                   0x7f7fffffu, 0x00c00000u, 0x80000000u, 0x3f800001u };
    static const uint32_t pb[] = { 0x3f800001u, 0x00000003u, 0x80000001u, 0x00400000u,
                                   0x73800000u, 0x80800000u, 0x80000000u, 0xb3800000u };
    enum { NP = sizeof pa / sizeof pa[0] };
    static const unsigned modes[] = { 0x6000u, 0x0000u, 0x8040u, 0xe040u, 0x2000u };
    for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++) {
        uint32_t z[NP];
        unsigned md = (saved & ~0xe040u) | modes[m];
        _mm_setcsr(md);
        tpu_ref_pointwise(TPU_REF_ADD, pa, pb, z, NP);
        after = _mm_getcsr();
        _mm_setcsr(saved);
        assert_int_equal(after & 0xffc0u, md & 0xffc0u);
        for (size_t i = 0; i < NP; i++)
            assert_int_equal(z[i], tpu_f32_add(pa[i], pb[i]));
    }
}

static void test_row_restores_mxcsr(void **state)
{
    (void)state;
    for (int k = next_kernel(0); k >= 0; k = next_kernel(k))
        row_restores_mxcsr();
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
    /* rows of different mixes, so a block of rows may have to check each step */
    for (uint64_t i = 0; i < b * d; i++)
        x[i] = rand_bf16(&r, (i / d) % 7 == 5 ? (enum mix)((mx + 2) % MIX_COUNT) : mx);
    for (uint64_t i = 0; i < d * f; i++)
        w[i] = rand_bf16(&r, mw);
    plain_matmul(x, w, want, b, d, f, tile ? tile : (unsigned)d);   /* 0: one K-tile */
    for (int k = next_kernel(0); k >= 0; k = next_kernel(k)) {
        memset(got, 0x5a, b * f * 4);
        assert_int_equal(tpu_ref_matmul(x, w, got, b, d, f, tile), 0);
        for (uint64_t i = 0; i < b * f; i++)
            if (want[i] != got[i]) {
                print_error("matmul, kernel %s, B=%llu D=%llu F=%llu tile=%u mixes %d/%d: "
                            "Y[%llu][%llu]: plain 0x%08x, ref 0x%08x\n", kname(k),
                            (unsigned long long)b, (unsigned long long)d, (unsigned long long)f,
                            tile, (int)mx, (int)mw, (unsigned long long)(i / f),
                            (unsigned long long)(i % f), want[i], got[i]);
                fail();
            }
    }
    free(x); free(w); free(want); free(got);
}

static void test_matmul_shapes(void **state)
{
    (void)state;
    /* D a multiple of tile, D not a multiple (last partial tile), D < tile,
     * D = 1, F wider than one 256-column chunk and not a multiple of it,
     * F not a multiple of the 64- or 16-column blocks, B not a multiple
     * of the 6-row blocks, tile 0 (one K-tile of D rows) and tiles above
     * 256 (the fused kernels fall back), tile = 256. */
    static const struct { uint64_t b, d, f; unsigned tile; } shapes[] = {
        { 1, 8, 8, 8 }, { 3, 16, 8, 8 }, { 5, 20, 7, 8 }, { 4, 13, 9, 4 }, { 2, 5, 3, 8 },
        { 6, 1, 5, 2 }, { 3, 130, 300, 128 }, { 2, 300, 17, 128 }, { 9, 33, 513, 16 },
        { 1, 7, 1, 1 }, { 17, 24, 24, 8 }, { 13, 256, 80, 128 }, { 7, 40, 70, 0 },
        { 8, 300, 40, 300 }, { 6, 512, 33, 256 }, { 25, 64, 129, 64 },
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
    for (int k = next_kernel(0); k >= 0; k = next_kernel(k)) {
        uint32_t y = 0;
        assert_int_equal(tpu_ref_matmul(x, w, &y, 1, 4, 1, 2), 0);
        assert_int_equal(y, 0x3f800000u);
        assert_int_equal(tpu_ref_matmul(x, w, &y, 1, 4, 1, 4), 0);   /* one tile: 0.0 */
        assert_int_equal(y, 0x00000000u);
    }
}

/* The same hazards in a matmul: one row, the steps in K-tile 0 or split
 * over two K-tiles of 2 (the second tile's sum added with tpu_f32_add). */
static void test_matmul_fma_hazards(void **state)
{
    (void)state;
    /* Column 0: s = 2^-126, p = 2^-63 * 2^-64 = 2^-127 flushed (tile 0: 2^-126);
     * s = -(2^128 - 2^120), p = 2^64 * 2^64 = 2^128 (tile 1: inf); Y = inf.
     * Fused without care: 1.5 * 2^-126 and 2^120, Y = 2^120.  Column 1: all
     * weights 1: 1 + 2^-63 = 1, then 1 + 2^64 = 2^64; Y = 2^64. */
    uint16_t x[4] = { 0x3f80, 0x2000, 0x3f80, 0x5f80 };
    uint16_t w[8] = { 0x0080, 0x3f80, 0x1f80, 0x3f80, 0xff7f, 0x3f80, 0x5f80, 0x3f80 };
    for (unsigned tile = 2; tile <= 4; tile += 2) {
        uint32_t want[2];
        plain_matmul(x, w, want, 1, 4, 2, tile);
        assert_int_equal(want[0], 0x7f800000u);
        assert_int_equal(want[1], 0x5f800000u);
        for (int k = next_kernel(0); k >= 0; k = next_kernel(k)) {
            uint32_t y[2];
            assert_int_equal(tpu_ref_matmul(x, w, y, 1, 4, 2, tile), 0);
            assert_memory_equal(y, want, sizeof want);
        }
    }
}

/* The kernel names, the choice, and TPU_REF_KERNEL. */
static void test_kernel_choice(void **state)
{
    (void)state;
    for (int k = 0; k < TPU_REF_KERNEL_COUNT; k++) {
        assert_non_null(kname(k));
        assert_int_equal(tpu_ref_kernel_parse(kname(k)), k);
    }
    assert_null(tpu_ref_kernel_name(TPU_REF_KERNEL_COUNT));
    assert_int_equal(tpu_ref_kernel_parse("fma"), TPU_REF_KERNEL_AVX2_FMA);
    assert_int_equal(tpu_ref_kernel_parse("avx512"), TPU_REF_KERNEL_AVX512_FMA);
    assert_int_equal(tpu_ref_kernel_parse("avx1024"), -1);
    assert_true(tpu_ref_kernel_supported(TPU_REF_KERNEL_SOFT));
    assert_true(tpu_ref_kernel_supported(TPU_REF_KERNEL_AUTO));
    /* AUTO resolves to the fastest supported kernel: the last in the enum
     * (they are in order of speed) */
    assert_int_equal(tpu_ref_kernel_set(TPU_REF_KERNEL_AUTO), 0);
    int fastest = TPU_REF_KERNEL_SOFT;
    for (int k = TPU_REF_KERNEL_SOFT; k < TPU_REF_KERNEL_COUNT; k++)
        if (tpu_ref_kernel_supported((enum tpu_ref_kernel)k))
            fastest = k;
    assert_int_equal(tpu_ref_kernel_current(), fastest);
    print_message("kernels here:");
    for (int k = TPU_REF_KERNEL_SOFT; k < TPU_REF_KERNEL_COUNT; k++)
        if (tpu_ref_kernel_supported((enum tpu_ref_kernel)k))
            print_message(" %s", kname(k));
    print_message("; default %s\n", kname(fastest));
    for (int k = TPU_REF_KERNEL_SOFT; k < TPU_REF_KERNEL_COUNT; k++)
        if (!tpu_ref_kernel_supported((enum tpu_ref_kernel)k))
            assert_int_equal(tpu_ref_kernel_set((enum tpu_ref_kernel)k), -1);
    assert_int_equal(tpu_ref_kernel_set(TPU_REF_KERNEL_COUNT), -1);
    /* the environment */
    char err[200] = "";
    assert_int_equal(setenv("TPU_REF_KERNEL", "soft", 1), 0);
    assert_int_equal(tpu_ref_kernel_from_env(err, sizeof err), 0);
    assert_int_equal(tpu_ref_kernel_current(), TPU_REF_KERNEL_SOFT);
    assert_int_equal(setenv("TPU_REF_KERNEL", "nonesuch", 1), 0);
    assert_int_equal(tpu_ref_kernel_from_env(err, sizeof err), -1);
    assert_non_null(strstr(err, "no such kernel"));
    assert_int_equal(tpu_ref_kernel_current(), TPU_REF_KERNEL_SOFT);   /* unchanged */
    assert_int_equal(setenv("TPU_REF_KERNEL", "", 1), 0);
    assert_int_equal(tpu_ref_kernel_from_env(err, sizeof err), 0);
    assert_int_equal(unsetenv("TPU_REF_KERNEL"), 0);
    assert_int_equal(tpu_ref_kernel_from_env(err, sizeof err), 0);
    assert_int_equal(tpu_ref_kernel_set(TPU_REF_KERNEL_AUTO), 0);
}

/* The exponent windows of tpu_ref_tile_scan: row k's window is exactly the
 * normal x exponents whose products with every normal weight of the row
 * are normal for sure (Ex + Ew in [128, 380]). */
static void test_tile_scan_windows(void **state)
{
    (void)state;
    enum { N = 40 };
    static uint16_t w[N * N];
    rng r = { 7 };
    for (int trial = 0; trial < 200; trial++) {
        for (size_t i = 0; i < N * N; i++)
            w[i] = rand_bf16(&r, (enum mix)(trial % MIX_COUNT));
        /* some rows all zero or special, one row with exponents 1 and 254 */
        for (unsigned c = 0; c < N; c++) {
            w[3 * N + c] = (uint16_t)(c % 3 == 0 ? 0x7f80 : c % 3 == 1 ? 0x0001 : 0x8000);
            w[5 * N + c] = (uint16_t)(c == 7 ? 0x0080 : c == 9 ? 0x7f00 : 0x3f80);
        }
        tpu_ref_tile t;
        tpu_ref_tile_scan(w, N, &t);
        assert_int_equal(t.n, N);
        unsigned all_lo = 1, all_hi = 254;
        for (unsigned k = 0; k < N; k++) {
            unsigned lo = 255, hi = 0;
            for (unsigned c = 0; c < N; c++) {
                unsigned e = (w[k * N + c] >> 7) & 0xff;
                if (e >= 1 && e <= 254) {
                    lo = e < lo ? e : lo;
                    hi = e > hi ? e : hi;
                }
            }
            for (unsigned ex = 1; ex <= 254; ex++) {
                int safe = lo > hi || (ex + lo >= 128 && ex + hi <= 380);
                int in = ex >= t.row_xlo[k] && ex <= t.row_xhi[k];
                if (safe != in) {
                    print_error("row %u (exponents %u..%u), x exponent %u: window [%u, %u]\n", k,
                                lo, hi, ex, t.row_xlo[k], t.row_xhi[k]);
                    fail();
                }
            }
            if (t.row_xlo[k] <= t.row_xhi[k]) {
                all_lo = t.row_xlo[k] > all_lo ? t.row_xlo[k] : all_lo;
                all_hi = t.row_xhi[k] < all_hi ? t.row_xhi[k] : all_hi;
            } else {
                all_lo = 255;
                all_hi = 0;
            }
        }
        assert_int_equal(t.row_xlo[3], 1);               /* no normal weight: every x */
        assert_int_equal(t.row_xhi[3], 254);
        assert_true(t.row_xlo[5] > t.row_xhi[5]);        /* 1 and 254: no x is safe */
        if (all_lo <= all_hi) {
            assert_int_equal(t.xlo, all_lo);
            assert_int_equal(t.xhi, all_hi);
        } else {
            assert_true(t.xlo > t.xhi);
        }
    }
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

static void pointwise_once(void)
{
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

/* ---- int8 (numerics.md section 9) --------------------------------------------- */

/* tpu_mac_i8 by its definition, one value at a time: psum + x0*w0 + x1*w1
 * mod 2^32, element 0 in the low byte. */
static uint32_t mac_i8_plain(uint32_t psum, uint16_t x, uint16_t w)
{
    int64_t x0 = (int8_t)(x & 0xff), x1 = (int8_t)(x >> 8);
    int64_t w0 = (int8_t)(w & 0xff), w1 = (int8_t)(w >> 8);
    int64_t sum = (int64_t)psum + x0 * w0 + x1 * w1;
    return (uint32_t)((uint64_t)sum & 0xffffffffu);
}

static void test_int8_mac_and_widening(void **state)
{
    (void)state;
    rng r = { 99 };
    for (int i = 0; i < 200000; i++) {
        uint32_t p = (uint32_t)rng_next(&r);
        uint16_t x = (uint16_t)rng_next(&r), w = (uint16_t)rng_next(&r);
        if (i < 4)                                   /* the extremes: (-128)^2 twice, wrap */
            x = w = 0x8080, p = i % 2 ? 0x7fffffffu : 0x80000000u;
        assert_int_equal(tpu_mac_i8(p, x, w), mac_i8_plain(p, x, w));
    }
    assert_int_equal(tpu_mac_i8(0x7fffffffu, 0x0101, 0x0101), 0x80000001u);   /* wraps */
    for (int v = -128; v < 128; v++) {               /* every int8 is a bf16, exactly */
        uint16_t b = tpu_bf16_from_i8((uint8_t)(int8_t)v);
        assert_true(tpu_f32_to_float(tpu_f32_from_bf16(b)) == (float)v);
        assert_int_equal(b, tpu_bf16_from_f32(tpu_f32_from_float((float)v)));
    }
}

/* tpu_ref_rows_i8 (the MXU's row kernel) and tpu_ref_matmul_i8 (the
 * .expect reference) against the plain loop over tpu_mac_i8, on sizes up
 * to 256 and random int8 data with many -128s. */
static void test_int8_rows_and_matmul(void **state)
{
    (void)state;
    rng r = { 7 };
    static const unsigned ns[] = { 1, 2, 3, 8, 16, 37, 128, 256 };
    for (size_t t = 0; t < sizeof ns / sizeof ns[0]; t++) {
        unsigned n = ns[t], rows = 5;
        uint16_t *w = malloc((size_t)n * n * 2), *x = malloc((size_t)rows * n * 2);
        uint32_t *y = malloc((size_t)rows * n * 4);
        assert_non_null(w); assert_non_null(x); assert_non_null(y);
        for (size_t i = 0; i < (size_t)n * n; i++)
            w[i] = rng_next(&r) % 4 ? (uint16_t)rng_next(&r) : 0x8080;
        for (size_t i = 0; i < (size_t)rows * n; i++)
            x[i] = rng_next(&r) % 4 ? (uint16_t)rng_next(&r) : 0x8080;
        tpu_ref_rows_i8(x, n, rows, w, n, y, n);
        for (unsigned b = 0; b < rows; b++)
            for (unsigned c = 0; c < n; c++) {
                uint32_t p = 0;
                for (unsigned k = 0; k < n; k++)
                    p = mac_i8_plain(p, x[b * n + k], w[(size_t)k * n + c]);
                assert_int_equal(y[b * n + c], p);
            }
        free(w); free(x); free(y);
    }
    /* the matmul: X[B,D] int8, W K-pair-interleaved (k, c) at (k/2)*2F + 2c + k%2 */
    static const struct { uint64_t b, d, f; } sh[] = { { 1, 2, 1 }, { 3, 16, 8 }, { 7, 130, 33 },
                                                       { 2, 512, 40 } };
    for (size_t t = 0; t < sizeof sh / sizeof sh[0]; t++) {
        uint64_t b = sh[t].b, d = sh[t].d, f = sh[t].f;
        uint8_t *x = malloc(b * d), *w = malloc(d * f);
        uint32_t *y = malloc(b * f * 4);
        assert_non_null(x); assert_non_null(w); assert_non_null(y);
        for (uint64_t i = 0; i < b * d; i++)
            x[i] = (uint8_t)rng_next(&r);
        for (uint64_t i = 0; i < d * f; i++)
            w[i] = (uint8_t)rng_next(&r);
        assert_int_equal(tpu_ref_matmul_i8(x, w, y, b, d, f), 0);
        for (uint64_t i = 0; i < b; i++)
            for (uint64_t c = 0; c < f; c++) {
                uint32_t p = 0;
                for (uint64_t k = 0; k < d; k += 2) {
                    uint16_t xx = (uint16_t)(x[i * d + k] | x[i * d + k + 1] << 8);
                    uint16_t ww = (uint16_t)(w[(k / 2) * 2 * f + 2 * c]
                                             | w[(k / 2) * 2 * f + 2 * c + 1] << 8);
                    p = mac_i8_plain(p, xx, ww);
                }
                assert_int_equal(y[i * f + c], p);
            }
        free(x); free(w); free(y);
    }
    assert_int_equal(tpu_ref_matmul_i8(NULL, NULL, NULL, 1, 3, 1), -1);   /* odd D */
}

static void test_pointwise(void **state)
{
    (void)state;
    for (int k = next_kernel(0); k >= 0; k = next_kernel(k))
        pointwise_once();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kernel_choice),
        cmocka_unit_test(test_tile_scan_windows),
        cmocka_unit_test(test_row_random_all_sizes),
        cmocka_unit_test(test_row_edge_cases),
        cmocka_unit_test(test_row_fma_hazards),
#if HAVE_MXCSR
        cmocka_unit_test(test_row_restores_mxcsr),
#endif
        cmocka_unit_test(test_matmul_shapes),
        cmocka_unit_test(test_matmul_worked_example),
        cmocka_unit_test(test_matmul_fma_hazards),
        cmocka_unit_test(test_pointwise),
        cmocka_unit_test(test_int8_mac_and_widening),
        cmocka_unit_test(test_int8_rows_and_matmul),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
