/*
 * test_fp.c - cmodel/fp.c against a plain reference, bit for bit.
 *
 * The reference below is deliberately the obvious thing: apply DAZ to the
 * inputs, compute in host double, apply FTZ by looking at the exact value,
 * let the (float) cast round to nearest even, make every NaN canonical.
 * fp.c works on integer bit patterns instead; the two must agree on every
 * special value pair, on millions of random operands and on the named
 * rule tests (one per rule of docs/numerics.md).
 *
 * Why double gives the exact answers the rules need:
 *  - mul: two 24-bit significands make a product of at most 48 bits and
 *    the exponent stays within -252..+256, so the double product is exact.
 *  - add/sub: both operands are normal floats, i.e. multiples of 2^-149.
 *    So is their exact sum.  A multiple of 2^-149 below 2^-96 in magnitude
 *    has at most 53 significant bits, so the double sum is exact whenever
 *    the exact sum is below 2^-96.  When the exact sum is >= 2^-96 the
 *    double sum may be rounded, but rounding is monotone and 2^-96 is a
 *    double, so it stays >= 2^-96.  Either way the test
 *    "nonzero and |exact| < 2^-126" (the FTZ decision, made before
 *    rounding) comes out the same on the double as on the exact value.
 *    The sign of a zero or tiny result is right too: an exact sum that is
 *    0 gives the double 0 (with the IEEE RNE sign), and a nonzero exact sum
 *    is exactly the double.
 *  - rounding to float: a binary32 +, - or * computed in binary64 and then
 *    rounded to binary32 gives the correctly rounded binary32 result,
 *    because 53 >= 2*24 + 2 ("double rounding is innocuous", Figueroa,
 *    "When is double rounding innocuous?", SIGNUM 1995).  Results that
 *    reach the cast are >= 2^-126 in magnitude, so the host's subnormal
 *    handling never comes into play, and the cast overflows to inf exactly
 *    when IEEE RNE does (Annex F; x86-64 SSE conversion).
 * The host must use round-to-nearest (the default) and FLT_EVAL_METHOD 0.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fp.h"

#define QNAN TPU_F32_QNAN
#define RANDOM_PAIRS 1000000

/* ---- the plain reference -------------------------------------------------- */

static float bits_to_float(uint32_t b) { float f; memcpy(&f, &b, 4); return f; }
static uint32_t float_to_bits(float f) { uint32_t b; memcpy(&b, &f, 4); return b; }

/* An fp32 input as a double, after DAZ. */
static double ref_in(uint32_t bits)
{
    if ((bits & 0x7f800000u) == 0)
        return (bits >> 31) ? -0.0 : 0.0;
    return (double)bits_to_float(bits);
}

/* The fp32 result for an exact (see the header comment) double value. */
static uint32_t ref_out(double exact)
{
    if (isnan(exact))
        return QNAN;
    if (exact != 0 && fabs(exact) < 0x1p-126)
        return signbit(exact) ? 0x80000000u : 0;       /* FTZ before rounding */
    return float_to_bits((float)exact);                /* RNE, overflow -> inf */
}

static uint32_t ref_add(uint32_t a, uint32_t b) { return ref_out(ref_in(a) + ref_in(b)); }
static uint32_t ref_sub(uint32_t a, uint32_t b) { return ref_out(ref_in(a) - ref_in(b)); }
static uint32_t ref_mul(uint32_t a, uint32_t b) { return ref_out(ref_in(a) * ref_in(b)); }

/* max/min return the chosen input after DAZ. */
static uint32_t ref_max(uint32_t a, uint32_t b)
{
    double x = ref_in(a), y = ref_in(b);
    if (isnan(x) || isnan(y))
        return QNAN;
    if (x == y && x == 0)
        return (signbit(x) && signbit(y)) ? 0x80000000u : 0;
    return float_to_bits((float)(x > y ? x : y));
}

static uint32_t ref_min(uint32_t a, uint32_t b)
{
    double x = ref_in(a), y = ref_in(b);
    if (isnan(x) || isnan(y))
        return QNAN;
    if (x == y && x == 0)
        return (signbit(x) || signbit(y)) ? 0x80000000u : 0;
    return float_to_bits((float)(x < y ? x : y));
}

static uint32_t ref_relu(uint32_t a) { return ref_max(a, 0); }

static uint32_t ref_cmplt(uint32_t a, uint32_t b)
{
    return ref_in(a) < ref_in(b) ? 0x3f800000u : 0;     /* NaN compares false */
}

static uint32_t ref_from_bf16(uint16_t h)
{
    int sign = h >> 15, e = (h >> 7) & 0xff, m = h & 0x7f;
    if (e == 255)
        return m ? QNAN : (sign ? 0xff800000u : 0x7f800000u);
    if (e == 0)
        return sign ? 0x80000000u : 0;
    double v = ldexp(1.0 + m / 128.0, e - 127);
    return float_to_bits((float)(sign ? -v : v));
}

/* Round |v| to 8 significant bits by hand: scale to [128, 256), split off
 * the fraction, nearest even. */
static uint16_t ref_to_bf16(uint32_t f)
{
    double v = ref_in(f);
    if (isnan(v))
        return TPU_BF16_QNAN;
    uint16_t sign = signbit(v) ? 0x8000 : 0;
    if (v == 0)
        return sign;
    if (isinf(v))
        return sign | 0x7f80;
    int e;
    double m = frexp(fabs(v), &e);          /* |v| = m * 2^e, m in [0.5, 1) */
    double scaled = ldexp(m, 8);            /* [128, 256) */
    double lo = floor(scaled), frac = scaled - lo;
    if (frac > 0.5 || (frac == 0.5 && fmod(lo, 2) == 1))
        lo += 1;
    double r = ldexp(lo, e - 8);
    if (r >= 0x1p128)
        return sign | 0x7f80;
    return sign | (uint16_t)(float_to_bits((float)r) >> 16);
}

static uint32_t ref_mac(uint32_t psum, uint16_t x, uint16_t w)
{
    return ref_add(psum, ref_mul(ref_from_bf16(x), ref_from_bf16(w)));
}

/* ---- helpers -------------------------------------------------------------- */

typedef struct rng { uint64_t s; } rng;

/* splitmix64: small, good enough, reproducible. */
static uint64_t rng_next(rng *r)
{
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
static uint32_t rng32(rng *r) { return (uint32_t)(rng_next(r) >> 32); }
static uint32_t rng_below(rng *r, uint32_t n) { return (uint32_t)((rng_next(r) >> 33) % n); }

static uint32_t make_f32(uint32_t sign, int exp, uint32_t frac)
{
    if (exp < 0) exp = 0;
    if (exp > 255) exp = 255;
    return (sign << 31) | ((uint32_t)exp << 23) | (frac & 0x7fffffu);
}

typedef uint32_t (*binop)(uint32_t, uint32_t);

/* Counts disagreements; prints the first few so a failure is readable. */
typedef struct checker { const char *what; unsigned long bad; } checker;

static void check2(checker *c, binop impl, binop ref, uint32_t a, uint32_t b)
{
    uint32_t got = impl(a, b), want = ref(a, b);
    if (got != want && c->bad++ < 8)
        print_error("%s(0x%08x, 0x%08x) = 0x%08x, reference 0x%08x\n",
                    c->what, a, b, got, want);
}

static void check_done(checker *c)
{
    if (c->bad)
        fail_msg("%s: %lu disagreements with the reference", c->what, c->bad);
}

/* Special values: each also appears negated. */
static const uint32_t specials[] = {
    0x00000000, 0x00000001, 0x00000002, 0x00400000, 0x007fffff,   /* zero, subnormals */
    0x00800000, 0x00800001, 0x00c00000, 0x00ffffff, 0x01000000,   /* near 2^-126 */
    0x01000001, 0x01800000, 0x0c000000,
    0x1f800000, 0x1fffffff, 0x20000000, 0x20000001,               /* ~2^-64, 2^-63 */
    0x33800000, 0x33800001, 0x33c00000, 0x34000000, 0x337fffff,   /* 2^-24 .. ties at 1 */
    0x3effffff, 0x3f000000, 0x3f000001, 0x3f7fffff, 0x3f800000,
    0x3f800001, 0x3f800002, 0x3f800800, 0x3fc00000, 0x3fffffff,
    0x40000000, 0x4b7fffff, 0x4b800000, 0x4b800001,
    0x5f800000, 0x5f7fffff, 0x72ffffff, 0x73000000, 0x73000001,   /* 2^64, half ulp of max */
    0x7effffff, 0x7f000000, 0x7f7ffffe, 0x7f7fffff,               /* near max normal */
    0x7f800000,                                                   /* inf */
    0x7f800001, 0x7fa00000, 0x7fbfffff, 0x7fc00000, 0x7fc00001,   /* NaNs with payloads */
    0x7fffffff,
};
#define NSPECIAL (sizeof specials / sizeof specials[0])

static uint32_t special(size_t i)
{
    return i < NSPECIAL ? specials[i] : specials[i - NSPECIAL] ^ 0x80000000u;
}

static void check_specials(binop impl, binop ref, const char *what)
{
    checker c = { what, 0 };
    for (size_t i = 0; i < 2 * NSPECIAL; i++)
        for (size_t j = 0; j < 2 * NSPECIAL; j++)
            check2(&c, impl, ref, special(i), special(j));
    check_done(&c);
}

/* Random operand pairs from several distributions:
 *   0: random bit patterns (all classes, mostly normals);
 *   1: b near a: exponent within +-2, random fraction and sign
 *      (cancellation in add/sub);
 *   2: b = -a with a few low bits changed (massive cancellation);
 *   3: both exponents small (results near 2^-126, FTZ);
 *   4: exponents summing near the bottom or top of the range (mul FTZ and
 *      overflow);
 *   5: both exponents near the top (add overflow). */
static void random_pair(rng *r, uint32_t *a, uint32_t *b)
{
    uint32_t x = rng32(r), y = rng32(r);
    int ea = 1 + (int)rng_below(r, 254);
    switch (rng_below(r, 6)) {
    case 0:
        break;
    case 1:
        x = make_f32(x >> 31, ea, x);
        y = make_f32(y >> 31, ea + (int)rng_below(r, 5) - 2, y);
        break;
    case 2:
        x = make_f32(x >> 31, ea, x);
        y = (x ^ 0x80000000u) ^ (y & 0x1f);
        break;
    case 3:
        x = make_f32(x >> 31, (int)rng_below(r, 30), x);
        y = make_f32(y >> 31, (int)rng_below(r, 30), y);
        break;
    case 4: {
        int target = rng_below(r, 2) ? 127 : 127 + 254;   /* ea + eb near these */
        x = make_f32(x >> 31, ea, x);
        y = make_f32(y >> 31, target - ea + (int)rng_below(r, 7) - 3, y);
        break;
    }
    case 5:
        x = make_f32(x >> 31, 250 + (int)rng_below(r, 5), x);
        y = make_f32(y >> 31, 250 + (int)rng_below(r, 5), y);
        break;
    }
    if (rng_below(r, 2)) {
        *a = x; *b = y;
    } else {
        *a = y; *b = x;
    }
}

static void check_random(binop impl, binop ref, const char *what, uint64_t seed)
{
    checker c = { what, 0 };
    rng r = { seed };
    for (long i = 0; i < RANDOM_PAIRS; i++) {
        uint32_t a, b;
        random_pair(&r, &a, &b);
        check2(&c, impl, ref, a, b);
    }
    check_done(&c);
}

/* ---- the reference itself, on a few values worked out by hand ----------- */

static void test_reference_sanity(void **state)
{
    (void)state;
    assert_int_equal(ref_add(0x3f800000, 0x3f800000), 0x40000000);   /* 1+1 = 2 */
    assert_int_equal(ref_mul(0x3fc00000, 0x40000000), 0x40400000);   /* 1.5*2 = 3 */
    assert_int_equal(ref_add(0x3f800000, 0x33800000), 0x3f800000);   /* tie -> even */
    assert_int_equal(ref_mul(0x3f7fffff, 0x00800000), 0);            /* FTZ */
    assert_int_equal(ref_to_bf16(0x3f818000), 0x3f82);
    assert_int_equal(ref_from_bf16(0x4049), 0x40490000);
}

/* ---- one named test per rule of docs/numerics.md --------------------------- */

/* Rule: subnormal inputs are zeros of the same sign. */
static void test_rule_daz_inputs(void **state)
{
    (void)state;
    assert_int_equal(tpu_f32_add(0x00000001, 0x3f800000), 0x3f800000);
    assert_int_equal(tpu_f32_add(0x007fffff, 0x00000001), 0x00000000);
    assert_int_equal(tpu_f32_add(0x807fffff, 0x80000001), 0x80000000);   /* (-0)+(-0) */
    assert_int_equal(tpu_f32_add(0x807fffff, 0x00000001), 0x00000000);   /* (-0)+(+0) */
    assert_int_equal(tpu_f32_add(0x007fffff, 0x00800000), 0x00800000);   /* not 0x00ffffff */
    assert_int_equal(tpu_f32_mul(0x00400000, 0x7f000000), 0x00000000);  /* IEEE: 1.0 */
    assert_int_equal(tpu_f32_mul(0x80400000, 0x3f800000), 0x80000000);
    assert_int_equal(tpu_f32_mul(0x00000001, 0x7f800000), QNAN);        /* 0 * inf */
}

/* Rule: a nonzero exact result below 2^-126 is flushed, decided before
 * rounding, with the sign of the exact result. */
static void test_rule_ftz_before_rounding(void **state)
{
    (void)state;
    /* (1 - 2^-24) * 2^-126 would round up to 2^-126 but is below it: 0. */
    assert_int_equal(tpu_f32_mul(0x3f7fffff, 0x00800000), 0x00000000);
    assert_int_equal(tpu_f32_mul(0xbf7fffff, 0x00800000), 0x80000000);
    /* Exactly 2^-126 is kept: 2^-63 * 2^-63. */
    assert_int_equal(tpu_f32_mul(0x20000000, 0x20000000), 0x00800000);
    assert_int_equal(tpu_f32_mul(0x20000000, 0xa0000000), 0x80800000);
    /* Tiny differences of normals. */
    assert_int_equal(tpu_f32_sub(0x00800001, 0x00800000), 0x00000000);   /* +2^-149 */
    assert_int_equal(tpu_f32_sub(0x00800000, 0x00800001), 0x80000000);   /* -2^-149 */
    assert_int_equal(tpu_f32_add(0x00c00000, 0x80800000), 0x00000000);   /* 2^-127 */
    assert_int_equal(tpu_f32_add(0x01000000, 0x80800000), 0x00800000);   /* = 2^-126 */
    assert_int_equal(tpu_f32_mul(0x9f800000, 0x1f800000), 0x80000000);   /* -2^-128 */
}

/* Rule: round to nearest, ties to even, 24 significant bits. */
static void test_rule_round_nearest_even(void **state)
{
    (void)state;
    assert_int_equal(tpu_f32_add(0x3f800000, 0x33800000), 0x3f800000);  /* 1 + 2^-24: tie, down */
    assert_int_equal(tpu_f32_add(0x3f800001, 0x33800000), 0x3f800002);  /* tie, up to even */
    assert_int_equal(tpu_f32_add(0x3f800000, 0x33800001), 0x3f800001);  /* above half */
    assert_int_equal(tpu_f32_add(0x3f800000, 0x337fffff), 0x3f800000);  /* below half */
    assert_int_equal(tpu_f32_sub(0x3f800000, 0x33000000), 0x3f800000);  /* 1 - 2^-25: tie */
    assert_int_equal(tpu_f32_add(0x4b7fffff, 0x3f000000), 0x4b800000);  /* 2^24-1 + 0.5: tie, up */
    /* (1 + 2^-12)^2 = 1 + 2^-11 + 2^-24: tie, stays even. */
    assert_int_equal(tpu_f32_mul(0x3f800800, 0x3f800800), 0x3f801000);
    /* Sticky bits shifted far out decide: 1 - (2^-25 + 2^-48) is just below the
     * tie between 1 - 2^-24 and 1, so it rounds down. */
    assert_int_equal(tpu_f32_sub(0x3f800000, 0x33000001), 0x3f7fffff);
    assert_int_equal(tpu_f32_add(0x4b800000, 0x3f800001), 0x4b800001);   /* 2^24 + (1+): up */
    assert_int_equal(tpu_f32_add(0x4b800000, 0x3f7fffff), 0x4b800000);   /* 2^24 + (1-): down */
}

/* Rule: overflow goes to +-inf (after rounding). */
static void test_rule_overflow_to_inf(void **state)
{
    (void)state;
    assert_int_equal(tpu_f32_add(0x7f7fffff, 0x73000000), 0x7f800000);  /* tie at max, odd: up */
    assert_int_equal(tpu_f32_add(0x7f7fffff, 0x72ffffff), 0x7f7fffff);
    assert_int_equal(tpu_f32_add(0xff7fffff, 0xf3000000), 0xff800000);
    assert_int_equal(tpu_f32_add(0x7f7fffff, 0x7f7fffff), 0x7f800000);
    assert_int_equal(tpu_f32_mul(0x5f800000, 0x5f800000), 0x7f800000);  /* 2^128 */
    assert_int_equal(tpu_f32_mul(0xdf800000, 0x5f800000), 0xff800000);
    assert_int_equal(tpu_f32_mul(0x5f800000, 0x5f7fffff), 0x7f7fffff);  /* just below */
    assert_int_equal(tpu_f32_add(0x7f800000, 0xff7fffff), 0x7f800000);  /* inf stays */
}

/* Rule: every NaN result is 0x7fc00000 (bf16 0x7fc0). */
static void test_rule_canonical_nan(void **state)
{
    (void)state;
    assert_int_equal(tpu_f32_add(0x7f800001, 0x3f800000), QNAN);
    assert_int_equal(tpu_f32_add(0x3f800000, 0xffc00001), QNAN);
    assert_int_equal(tpu_f32_sub(0x7fffffff, 0x7fffffff), QNAN);
    assert_int_equal(tpu_f32_mul(0xffa00000, 0x00000000), QNAN);
    assert_int_equal(tpu_f32_add(0x7f800000, 0xff800000), QNAN);        /* inf - inf */
    assert_int_equal(tpu_f32_sub(0xff800000, 0xff800000), QNAN);
    assert_int_equal(tpu_f32_mul(0x00000000, 0x7f800000), QNAN);        /* 0 * inf */
    assert_int_equal(tpu_f32_mul(0xff800000, 0x80000000), QNAN);
    assert_int_equal(tpu_f32_max(0x7fa00000, 0x3f800000), QNAN);
    assert_int_equal(tpu_f32_min(0x3f800000, 0xffffffff), QNAN);
    assert_int_equal(tpu_f32_relu(0xffc00000), QNAN);
    assert_int_equal(tpu_bf16_from_f32(0xff800001), TPU_BF16_QNAN);
    assert_int_equal(tpu_bf16_from_f32(0x7fffffff), TPU_BF16_QNAN);
    assert_int_equal(tpu_f32_from_bf16(0xff81), QNAN);
    assert_int_equal(tpu_mac(0x7fc00001, 0x3f80, 0x3f80), QNAN);
    assert_int_equal(tpu_mac(0x00000000, 0x7f80, 0x0000), QNAN);        /* inf * 0 in a cell */
}

/* Rule: zero signs follow IEEE round-to-nearest. */
static void test_rule_zero_signs(void **state)
{
    (void)state;
    assert_int_equal(tpu_f32_add(0x3f800000, 0xbf800000), 0x00000000);  /* x + (-x) = +0 */
    assert_int_equal(tpu_f32_add(0xff7fffff, 0x7f7fffff), 0x00000000);
    assert_int_equal(tpu_f32_sub(0x40490fdb, 0x40490fdb), 0x00000000);
    assert_int_equal(tpu_f32_add(0x80000000, 0x80000000), 0x80000000);  /* (-0)+(-0) = -0 */
    assert_int_equal(tpu_f32_add(0x80000000, 0x00000000), 0x00000000);
    assert_int_equal(tpu_f32_sub(0x80000000, 0x00000000), 0x80000000);  /* -0 - +0 */
    assert_int_equal(tpu_f32_sub(0x00000000, 0x00000000), 0x00000000);
    assert_int_equal(tpu_f32_add(0x80000000, 0x3f800000), 0x3f800000);
    assert_int_equal(tpu_f32_mul(0xbf800000, 0x00000000), 0x80000000);  /* sign = xor */
    assert_int_equal(tpu_f32_mul(0xbf800000, 0x80000000), 0x00000000);
    assert_int_equal(tpu_f32_mul(0xa0000000, 0x1f800000), 0x80000000);  /* flushed, sign xor */
}

/* Rule: max/min return canonical NaN for a NaN input; +0 > -0 for them. */
static void test_rule_max_min(void **state)
{
    (void)state;
    assert_int_equal(tpu_f32_max(0x80000000, 0x00000000), 0x00000000);
    assert_int_equal(tpu_f32_max(0x00000000, 0x80000000), 0x00000000);
    assert_int_equal(tpu_f32_min(0x80000000, 0x00000000), 0x80000000);
    assert_int_equal(tpu_f32_min(0x00000000, 0x80000000), 0x80000000);
    assert_int_equal(tpu_f32_max(0x80000000, 0x80000000), 0x80000000);
    assert_int_equal(tpu_f32_max(0x3f800000, 0x40000000), 0x40000000);
    assert_int_equal(tpu_f32_min(0x3f800000, 0x40000000), 0x3f800000);
    assert_int_equal(tpu_f32_max(0xbf800000, 0xc0000000), 0xbf800000);
    assert_int_equal(tpu_f32_min(0xff800000, 0xff7fffff), 0xff800000);
    assert_int_equal(tpu_f32_max(0x7f800000, 0x7f7fffff), 0x7f800000);
    assert_int_equal(tpu_f32_max(0x3f800000, 0x7f800001), QNAN);
    assert_int_equal(tpu_f32_min(0x7f800001, 0x3f800000), QNAN);
    /* Subnormal inputs are zeros, and come out as zeros. */
    assert_int_equal(tpu_f32_max(0x00000001, 0x80000000), 0x00000000);
    assert_int_equal(tpu_f32_max(0x00000001, 0x00000002), 0x00000000);
    assert_int_equal(tpu_f32_min(0x80000001, 0x00000000), 0x80000000);
    assert_int_equal(tpu_f32_max(0x807fffff, 0x80000001), 0x80000000);
}

/* Rule: relu(x) = max(x, +0). */
static void test_rule_relu(void **state)
{
    (void)state;
    assert_int_equal(tpu_f32_relu(0x80000000), 0x00000000);
    assert_int_equal(tpu_f32_relu(0x00000000), 0x00000000);
    assert_int_equal(tpu_f32_relu(0xbf800000), 0x00000000);
    assert_int_equal(tpu_f32_relu(0x40000000), 0x40000000);
    assert_int_equal(tpu_f32_relu(0xff800000), 0x00000000);
    assert_int_equal(tpu_f32_relu(0x7f800000), 0x7f800000);
    assert_int_equal(tpu_f32_relu(0x00000001), 0x00000000);
    assert_int_equal(tpu_f32_relu(0x7f800001), QNAN);
    assert_int_equal(tpu_f32_relu(0xffc00000), QNAN);
    for (size_t i = 0; i < 2 * NSPECIAL; i++)
        assert_int_equal(tpu_f32_relu(special(i)), ref_relu(special(i)));
}

/* Rule: cmplt is 1.0 or +0.0; false with a NaN; -0 < +0 is false. */
static void test_rule_cmplt(void **state)
{
    (void)state;
    assert_int_equal(tpu_f32_cmplt(0x3f800000, 0x40000000), 0x3f800000);
    assert_int_equal(tpu_f32_cmplt(0x40000000, 0x3f800000), 0x00000000);
    assert_int_equal(tpu_f32_cmplt(0x3f800000, 0x3f800000), 0x00000000);
    assert_int_equal(tpu_f32_cmplt(0x80000000, 0x00000000), 0x00000000);
    assert_int_equal(tpu_f32_cmplt(0x00000000, 0x80000000), 0x00000000);
    assert_int_equal(tpu_f32_cmplt(0xc0000000, 0xbf800000), 0x3f800000);
    assert_int_equal(tpu_f32_cmplt(0xff800000, 0x7f800000), 0x3f800000);
    assert_int_equal(tpu_f32_cmplt(0x7fc00000, 0x3f800000), 0x00000000);
    assert_int_equal(tpu_f32_cmplt(0x3f800000, 0x7fc00000), 0x00000000);
    assert_int_equal(tpu_f32_cmplt(0xff800000, 0xffc00000), 0x00000000);
    assert_int_equal(tpu_f32_cmplt(0x00000001, 0x00000002), 0x00000000);   /* DAZ */
    assert_int_equal(tpu_f32_cmplt(0x80000001, 0x00800000), 0x3f800000);
    assert_int_equal(tpu_f32_cmplt(0xbf800000, 0x00000000), 0x3f800000);
}

/* Rule: is_zero is true for +-0 and subnormals. */
static void test_rule_is_zero(void **state)
{
    (void)state;
    assert_true(tpu_f32_is_zero(0x00000000));
    assert_true(tpu_f32_is_zero(0x80000000));
    assert_true(tpu_f32_is_zero(0x00000001));
    assert_true(tpu_f32_is_zero(0x807fffff));
    assert_false(tpu_f32_is_zero(0x00800000));
    assert_false(tpu_f32_is_zero(0x80800000));
    assert_false(tpu_f32_is_zero(0x3f800000));
    assert_false(tpu_f32_is_zero(0x7f800000));
    assert_false(tpu_f32_is_zero(0x7fc00000));
    for (size_t i = 0; i < 2 * NSPECIAL; i++)
        assert_int_equal(tpu_f32_is_zero(special(i)), ref_in(special(i)) == 0);
}

/* Rule: fp32 -> bf16 is DAZ, RNE on the low 16 bits, overflow to inf. */
static void test_rule_bf16_narrow(void **state)
{
    (void)state;
    assert_int_equal(tpu_bf16_from_f32(0x3f800000), 0x3f80);
    assert_int_equal(tpu_bf16_from_f32(0x3f808000), 0x3f80);   /* tie, even down */
    assert_int_equal(tpu_bf16_from_f32(0x3f818000), 0x3f82);   /* tie, even up */
    assert_int_equal(tpu_bf16_from_f32(0x3f808001), 0x3f81);
    assert_int_equal(tpu_bf16_from_f32(0x3f807fff), 0x3f80);
    assert_int_equal(tpu_bf16_from_f32(0xbf818000), 0xbf82);
    assert_int_equal(tpu_bf16_from_f32(0x3fffffff), 0x4000);   /* carry into the exponent */
    assert_int_equal(tpu_bf16_from_f32(0x7f7f8000), 0x7f80);   /* tie at max, odd: inf */
    assert_int_equal(tpu_bf16_from_f32(0x7f7f7fff), 0x7f7f);
    assert_int_equal(tpu_bf16_from_f32(0xff7fffff), 0xff80);
    assert_int_equal(tpu_bf16_from_f32(0x7f800000), 0x7f80);
    assert_int_equal(tpu_bf16_from_f32(0x007fffff), 0x0000);   /* DAZ, not 0x0080 */
    assert_int_equal(tpu_bf16_from_f32(0x807fffff), 0x8000);
    assert_int_equal(tpu_bf16_from_f32(0x00800000), 0x0080);
    assert_int_equal(tpu_bf16_from_f32(0x00808000), 0x0080);
}

/* Rule: bf16 -> fp32 is exact; subnormal bf16 -> signed zero. */
static void test_rule_bf16_widen(void **state)
{
    (void)state;
    assert_int_equal(tpu_f32_from_bf16(0x3f80), 0x3f800000);
    assert_int_equal(tpu_f32_from_bf16(0xc049), 0xc0490000);
    assert_int_equal(tpu_f32_from_bf16(0x0080), 0x00800000);
    assert_int_equal(tpu_f32_from_bf16(0x0001), 0x00000000);
    assert_int_equal(tpu_f32_from_bf16(0x807f), 0x80000000);
    assert_int_equal(tpu_f32_from_bf16(0x8000), 0x80000000);
    assert_int_equal(tpu_f32_from_bf16(0xff80), 0xff800000);
    assert_int_equal(tpu_f32_from_bf16(0x7fc1), QNAN);
}

/* Rule: mac(psum, x, w) = add(psum, mul(widen(x), widen(w))). */
static void test_rule_mac(void **state)
{
    (void)state;
    /* (1 + 2^-7)^2 = 1 + 2^-6 + 2^-14, exact in fp32. */
    assert_int_equal(tpu_mac(0x00000000, 0x3f81, 0x3f81), 0x3f820200);
    assert_int_equal(tpu_mac(0x3f800000, 0x4000, 0x4040), 0x40e00000);  /* 1 + 2*3 = 7 */
    assert_int_equal(tpu_mac(0x00000000, 0xbf80, 0x0000), 0x00000000);  /* +0 + -0 = +0 */
    assert_int_equal(tpu_mac(0x80000000, 0xbf80, 0x0000), 0x80000000);  /* -0 + -0 = -0 */
    assert_int_equal(tpu_mac(0x3f800000, 0x0001, 0x7f00), 0x3f800000);  /* DAZ on x */
    assert_int_equal(tpu_mac(0x00000000, 0x7f00, 0x7f00), 0x7f800000);  /* product overflows */
    assert_int_equal(tpu_mac(0x00000000, 0x0080, 0x3f00), 0x00000000);  /* 2^-127: FTZ */

    checker c = { "mac", 0 };
    rng r = { 42 };
    for (long i = 0; i < RANDOM_PAIRS; i++) {
        uint32_t a, b;
        random_pair(&r, &a, &b);
        uint16_t x = (uint16_t)(b >> 16), w = (uint16_t)rng32(&r);
        if (i & 1)   /* w with an exponent that puts x*w near psum */
            w = (uint16_t)((w & 0x807f) | ((((a >> 23) & 0xff) + 127 - ((x >> 7) & 0xff)
                                           + rng_below(&r, 3) - 1) & 0xff) << 7);
        uint32_t got = tpu_mac(a, x, w), want = ref_mac(a, x, w);
        if (got != want && c.bad++ < 8)
            print_error("mac(0x%08x, 0x%04x, 0x%04x) = 0x%08x, reference 0x%08x\n",
                        a, x, w, got, want);
    }
    check_done(&c);
}

/* The worked example of docs/numerics.md, "MXU accumulation order":
 * N = 2, D = 4, x = [1, 1, 1, 1], W column = [2^24, 1, 1, -2^24]. */
static void test_mxu_order_worked_example(void **state)
{
    (void)state;
    const uint16_t one = 0x3f80, big = 0x4b80, mbig = 0xcb80;
    uint32_t s0 = tpu_mac(tpu_mac(0, one, big), one, one);       /* K-tile 0, mxu.mm */
    assert_int_equal(s0, 0x4b800000);                            /* 2^24 + 1 -> 2^24 (tie) */
    uint32_t y = s0;
    uint32_t s1 = tpu_mac(tpu_mac(0, one, one), one, mbig);      /* K-tile 1 */
    assert_int_equal(s1, 0xcb7fffff);                            /* 1 - 2^24 exactly */
    y = tpu_f32_add(y, s1);                                      /* mxu.mma */
    assert_int_equal(y, 0x3f800000);                             /* 1.0 */
    /* One running sum over all four would give 0.0: the order matters. */
    uint32_t seq = tpu_mac(tpu_mac(tpu_mac(tpu_mac(0, one, big), one, one), one, one), one, mbig);
    assert_int_equal(seq, 0x00000000);
}

/* ---- every special pair, then random pairs ---------------------------------- */

static void test_specials_add(void **state) { (void)state; check_specials(tpu_f32_add, ref_add, "add"); }
static void test_specials_sub(void **state) { (void)state; check_specials(tpu_f32_sub, ref_sub, "sub"); }
static void test_specials_mul(void **state) { (void)state; check_specials(tpu_f32_mul, ref_mul, "mul"); }
static void test_specials_max(void **state) { (void)state; check_specials(tpu_f32_max, ref_max, "max"); }
static void test_specials_min(void **state) { (void)state; check_specials(tpu_f32_min, ref_min, "min"); }
static void test_specials_cmplt(void **state) { (void)state; check_specials(tpu_f32_cmplt, ref_cmplt, "cmplt"); }

static void test_random_add(void **state) { (void)state; check_random(tpu_f32_add, ref_add, "add", 1); }
static void test_random_sub(void **state) { (void)state; check_random(tpu_f32_sub, ref_sub, "sub", 2); }
static void test_random_mul(void **state) { (void)state; check_random(tpu_f32_mul, ref_mul, "mul", 3); }
static void test_random_max(void **state) { (void)state; check_random(tpu_f32_max, ref_max, "max", 4); }
static void test_random_min(void **state) { (void)state; check_random(tpu_f32_min, ref_min, "min", 5); }
static void test_random_cmplt(void **state) { (void)state; check_random(tpu_f32_cmplt, ref_cmplt, "cmplt", 6); }

/* ---- bf16 conversions ----------------------------------------------------- */

static void test_bf16_widen_exhaustive(void **state)
{
    (void)state;
    unsigned long bad = 0;
    for (uint32_t h = 0; h < 0x10000; h++) {
        uint32_t got = tpu_f32_from_bf16((uint16_t)h), want = ref_from_bf16((uint16_t)h);
        if (got != want && bad++ < 8)
            print_error("f32_from_bf16(0x%04x) = 0x%08x, reference 0x%08x\n", h, got, want);
    }
    assert_int_equal(bad, 0);
}

static void check_narrow(uint32_t f, unsigned long *bad)
{
    uint16_t got = tpu_bf16_from_f32(f), want = ref_to_bf16(f);
    if (got != want && (*bad)++ < 8)
        print_error("bf16_from_f32(0x%08x) = 0x%04x, reference 0x%04x\n", f, got, want);
}

/* All fp32 patterns with a prime stride, and for every bf16 value the
 * low halves around the rounding point (0, 1, half-1, half, half+1, max). */
static void test_bf16_narrow_stride_and_boundaries(void **state)
{
    (void)state;
    static const uint32_t lows[] = { 0x0000, 0x0001, 0x7fff, 0x8000, 0x8001, 0xffff };
    unsigned long bad = 0;
    for (uint64_t f = 0; f <= 0xffffffffu; f += 4093)
        check_narrow((uint32_t)f, &bad);
    for (uint32_t hi = 0; hi < 0x10000; hi++)
        for (size_t i = 0; i < sizeof lows / sizeof lows[0]; i++)
            check_narrow((hi << 16) | lows[i], &bad);
    assert_int_equal(bad, 0);
}

/* Round trip: widening then narrowing returns every non-NaN, non-subnormal bf16. */
static void test_bf16_round_trip(void **state)
{
    (void)state;
    for (uint32_t h = 0; h < 0x10000; h++) {
        uint16_t back = tpu_bf16_from_f32(tpu_f32_from_bf16((uint16_t)h));
        int e = (h >> 7) & 0xff, m = h & 0x7f;
        uint16_t want = (e == 255 && m) ? TPU_BF16_QNAN
                      : (e == 0) ? (uint16_t)(h & 0x8000) : (uint16_t)h;
        assert_int_equal(back, want);
    }
}

static void test_host_conversions(void **state)
{
    (void)state;
    assert_int_equal(tpu_f32_from_float(1.0f), 0x3f800000);
    assert_int_equal(tpu_f32_from_float(-0.0f), 0x80000000);
    assert_true(tpu_f32_to_float(0x40490fdb) == 3.14159265f);
    assert_int_equal(tpu_f32_from_float(tpu_f32_to_float(0x7fa00001)), 0x7fa00001);
}

/* ---- section 11: the transcendentals ------------------------------------ */

/* |got - exact| in units of the last place of exact (a normal fp32 value). */
static double tr_ulps(uint32_t got, double exact)
{
    int e;
    frexp(fabs(exact), &e);
    return fabs((double)tpu_f32_to_float(got) - exact) / ldexp(1.0, e - 24);
}

static void test_tr_exp_specials(void **state)
{
    (void)state;
    const uint32_t nans[] = { 0x7fc00000, 0x7f800001, 0xffc00000, 0xffffffff, 0x7fa00000 };
    for (size_t i = 0; i < sizeof nans / sizeof nans[0]; i++)
        assert_int_equal(tpu_f32_exp(nans[i]), QNAN);
    assert_int_equal(tpu_f32_exp(0x7f800000), 0x7f800000);     /* +inf -> +inf */
    assert_int_equal(tpu_f32_exp(0xff800000), 0x00000000);     /* -inf -> +0 */
    assert_int_equal(tpu_f32_exp(0x00000000), 0x3f800000);     /* +-0 -> 1 */
    assert_int_equal(tpu_f32_exp(0x80000000), 0x3f800000);
    assert_int_equal(tpu_f32_exp(0x007fffff), 0x3f800000);     /* subnormals are zeros */
    assert_int_equal(tpu_f32_exp(0x80000001), 0x3f800000);
    assert_int_equal(tpu_f32_exp(0x3f800000), 0x402df854);     /* e, correctly rounded */
    assert_int_equal(tpu_f32_exp(0xbf800000), 0x3ebc5ab2);     /* 1/e */
    assert_int_equal(tpu_f32_exp(0x41200000), 0x46ac14ee);     /* e^10 */
    /* overflow: 88.72283 is the last finite, 88.72284 inf; the clamp */
    assert_int_equal(tpu_f32_exp(0x42b17217), 0x7f7fff84);
    assert_int_equal(tpu_f32_exp(0x42b17218), 0x7f800000);
    assert_int_equal(tpu_f32_exp(0x42c80000), 0x7f800000);     /* 100 */
    assert_int_equal(tpu_f32_exp(0x7f7fffff), 0x7f800000);
    /* flush: e^x below 2^-126 is +0 (numerics.md 2.4) */
    assert_int_equal(tpu_f32_exp(0xc2aeac4f), 0x00800026);     /* -87.33654: 2^-126 and a bit */
    assert_int_equal(tpu_f32_exp(0xc2aeac50), 0x00000000);
    assert_int_equal(tpu_f32_exp(0xc2d00000), 0x00000000);     /* -104 */
    assert_int_equal(tpu_f32_exp(0xff7fffff), 0x00000000);
    /* tiny x: 1 + x rounds to 1 */
    assert_int_equal(tpu_f32_exp(0x33000000), 0x3f800000);     /* 2^-25 */
    assert_int_equal(tpu_f32_exp(0x34000000), 0x3f800001);     /* 2^-23: 1 + 2^-23 */
}

static void test_tr_rcp_specials(void **state)
{
    (void)state;
    assert_int_equal(tpu_f32_rcp(0x7fc00000), QNAN);
    assert_int_equal(tpu_f32_rcp(0xff800001), QNAN);
    assert_int_equal(tpu_f32_rcp(0x7f800000), 0x00000000);     /* 1/+inf = +0 */
    assert_int_equal(tpu_f32_rcp(0xff800000), 0x80000000);     /* 1/-inf = -0 */
    assert_int_equal(tpu_f32_rcp(0x00000000), 0x7f800000);     /* 1/+0 = +inf */
    assert_int_equal(tpu_f32_rcp(0x80000000), 0xff800000);     /* 1/-0 = -inf */
    assert_int_equal(tpu_f32_rcp(0x00000001), 0x7f800000);     /* subnormal: a zero */
    assert_int_equal(tpu_f32_rcp(0x807fffff), 0xff800000);
    /* powers of two are exact */
    assert_int_equal(tpu_f32_rcp(0x3f800000), 0x3f800000);
    assert_int_equal(tpu_f32_rcp(0xbf800000), 0xbf800000);
    assert_int_equal(tpu_f32_rcp(0x40000000), 0x3f000000);
    assert_int_equal(tpu_f32_rcp(0x3e800000), 0x40800000);
    assert_int_equal(tpu_f32_rcp(0x00800000), 0x7e800000);     /* 1/2^-126 = 2^126 */
    assert_int_equal(tpu_f32_rcp(0x7e800000), 0x00800000);     /* 1/2^126 = 2^-126, kept */
    assert_int_equal(tpu_f32_rcp(0x7ec00000), 0x00000000);     /* below 2^-126: flushed */
    assert_int_equal(tpu_f32_rcp(0xff7fffff), 0x80000000);
    assert_int_equal(tpu_f32_rcp(0x41200000), 0x3dcccccd);     /* 1/10 */
}

static void test_tr_rsqrt_specials(void **state)
{
    (void)state;
    assert_int_equal(tpu_f32_rsqrt(0x7fc00000), QNAN);
    assert_int_equal(tpu_f32_rsqrt(0x7f800001), QNAN);
    assert_int_equal(tpu_f32_rsqrt(0xbf800000), QNAN);         /* x < 0 */
    assert_int_equal(tpu_f32_rsqrt(0x80800000), QNAN);
    assert_int_equal(tpu_f32_rsqrt(0xff800000), QNAN);         /* -inf */
    assert_int_equal(tpu_f32_rsqrt(0x7f800000), 0x00000000);   /* +inf -> +0 */
    assert_int_equal(tpu_f32_rsqrt(0x00000000), 0x7f800000);   /* +0 -> +inf */
    assert_int_equal(tpu_f32_rsqrt(0x80000000), 0xff800000);   /* -0 -> -inf */
    assert_int_equal(tpu_f32_rsqrt(0x00000001), 0x7f800000);   /* subnormals are zeros */
    assert_int_equal(tpu_f32_rsqrt(0x807fffff), 0xff800000);
    assert_int_equal(tpu_f32_rsqrt(0x3f800000), 0x3f800000);   /* 1 */
    assert_int_equal(tpu_f32_rsqrt(0x40800000), 0x3f000000);   /* 1/sqrt(4) = 0.5 */
    assert_int_equal(tpu_f32_rsqrt(0x3e800000), 0x40000000);   /* 1/sqrt(0.25) = 2 */
    assert_int_equal(tpu_f32_rsqrt(0x40000000), 0x3f3504f3);   /* 1/sqrt(2) */
    assert_int_equal(tpu_f32_rsqrt(0x00800000), 0x5f000000);   /* 2^63 */
    assert_int_equal(tpu_f32_rsqrt(0x7e800000), 0x20000000);   /* 2^-63 */
    assert_int_equal(tpu_f32_rsqrt(0x7f7fffff), 0x1f800000);
}

/* Within the measured bounds of numerics.md 11.5 on a spread of inputs:
 * exp over its unclamped range, rcp and rsqrt over every exponent. */
static void test_tr_accuracy_sample(void **state)
{
    (void)state;
    double worst[3] = { 0, 0, 0 };
    for (int i = 0; i <= 200000; i++) {
        float x = -87.0f + 175.5f * (float)i / 200000.0f;      /* e^x normal */
        double w = tr_ulps(tpu_f32_exp(tpu_f32_from_float(x)), exp((double)x));
        worst[0] = w > worst[0] ? w : worst[0];
    }
    uint32_t r = 12345;
    for (int i = 0; i < 200000; i++) {
        r = r * 1664525u + 1013904223u;
        uint32_t x = (r & 0x807fffffu) | ((1u + (uint32_t)i % 252u) << 23);  /* 1/x not flushed */
        double xd = tpu_f32_to_float(x);
        double w = tr_ulps(tpu_f32_rcp(x), 1.0 / xd);
        worst[1] = w > worst[1] ? w : worst[1];
        x &= 0x7fffffffu;
        w = tr_ulps(tpu_f32_rsqrt(x), 1.0 / sqrt(tpu_f32_to_float(x)));
        worst[2] = w > worst[2] ? w : worst[2];
    }
    assert_true(worst[0] <= 1.24);
    assert_true(worst[1] <= 1.15);
    assert_true(worst[2] <= 1.22);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reference_sanity),
        cmocka_unit_test(test_rule_daz_inputs),
        cmocka_unit_test(test_rule_ftz_before_rounding),
        cmocka_unit_test(test_rule_round_nearest_even),
        cmocka_unit_test(test_rule_overflow_to_inf),
        cmocka_unit_test(test_rule_canonical_nan),
        cmocka_unit_test(test_rule_zero_signs),
        cmocka_unit_test(test_rule_max_min),
        cmocka_unit_test(test_rule_relu),
        cmocka_unit_test(test_rule_cmplt),
        cmocka_unit_test(test_rule_is_zero),
        cmocka_unit_test(test_rule_bf16_narrow),
        cmocka_unit_test(test_rule_bf16_widen),
        cmocka_unit_test(test_rule_mac),
        cmocka_unit_test(test_mxu_order_worked_example),
        cmocka_unit_test(test_tr_exp_specials),
        cmocka_unit_test(test_tr_rcp_specials),
        cmocka_unit_test(test_tr_rsqrt_specials),
        cmocka_unit_test(test_tr_accuracy_sample),
        cmocka_unit_test(test_specials_add),
        cmocka_unit_test(test_specials_sub),
        cmocka_unit_test(test_specials_mul),
        cmocka_unit_test(test_specials_max),
        cmocka_unit_test(test_specials_min),
        cmocka_unit_test(test_specials_cmplt),
        cmocka_unit_test(test_random_add),
        cmocka_unit_test(test_random_sub),
        cmocka_unit_test(test_random_mul),
        cmocka_unit_test(test_random_max),
        cmocka_unit_test(test_random_min),
        cmocka_unit_test(test_random_cmplt),
        cmocka_unit_test(test_bf16_widen_exhaustive),
        cmocka_unit_test(test_bf16_narrow_stride_and_boundaries),
        cmocka_unit_test(test_bf16_round_trip),
        cmocka_unit_test(test_host_conversions),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
