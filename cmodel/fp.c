/*
 * fp.c - the core's fp32 / bf16 arithmetic, bit-exact, on bit patterns.
 *
 * docs/numerics.md is the specification; this file is its reference
 * implementation and reads like the datapath the RTL builds: unpack
 * (sign, exponent, significand), handle the special cases, align, add or
 * multiply the integer significands, then one shared normalise-and-round
 * stage (round_pack).  Only integer operations are used: no host float
 * arithmetic, rounding mode or flag can leak into the results.
 *
 * Summary of the rules (the document has the precise text):
 *   - subnormal inputs are zeros of the same sign (DAZ);
 *   - a nonzero exact result below 2^-126 in magnitude, judged BEFORE
 *     rounding, becomes a zero with the sign of the exact result (FTZ);
 *   - otherwise round to nearest, ties to even; overflow gives +-inf;
 *   - every NaN result is the canonical 0x7fc00000 (bf16 0x7fc0).
 */
#include "cmutant.h"
#include "fp.h"

#include <string.h>

#define F32_SIGN      0x80000000u
#define F32_EXP_MASK  0x7f800000u
#define F32_FRAC_MASK 0x007fffffu
#define F32_HIDDEN    0x00800000u    /* the implicit leading 1 of a normal */
#define F32_INF       0x7f800000u
#define F32_EXP_MAX   254            /* largest biased exponent of a finite value */

/* Guard bits kept below the significand while adding: guard, round and a
 * sticky bit, enough for round-to-nearest-even (see docs/numerics.md). */
#define ADD_GUARD_BITS 3

typedef enum fp_class { FP_ZERO, FP_NORMAL, FP_INF, FP_NAN } fp_class;

/* An operand after unpacking, as the datapath sees it. */
typedef struct fp_unpacked {
    uint32_t sign;   /* 0 or 1 */
    int      exp;    /* biased exponent 1..254 for FP_NORMAL */
    uint32_t man;    /* 24-bit significand 1.f with the hidden bit (FP_NORMAL) */
    fp_class cls;
} fp_unpacked;

/* Split an fp32 bit pattern into its fields.  Subnormals become zeros of
 * the same sign here (DAZ), so nothing after this sees one. */
static fp_unpacked unpack(uint32_t bits)
{
    fp_unpacked u;
    u.sign = bits >> 31;
    u.exp = (int)((bits & F32_EXP_MASK) >> 23);
    u.man = 0;
    if (u.exp == 255)
        u.cls = (bits & F32_FRAC_MASK) ? FP_NAN : FP_INF;
    else if (u.exp == 0)
        u.cls = FP_ZERO;                     /* +-0 and subnormals (DAZ) */
    else {
        u.cls = FP_NORMAL;
        u.man = F32_HIDDEN | (bits & F32_FRAC_MASK);
    }
    return u;
}

static uint32_t signed_zero(uint32_t sign) { return sign << 31; }
static uint32_t signed_inf(uint32_t sign)  { return (sign << 31) | F32_INF; }

/* Index of the most significant set bit of s (s != 0): a priority encoder. */
static int msb_index(uint64_t s)
{
    int i = 63;
    while (!(s >> i))
        i--;
    return i;
}

/* Normalise and round: the exact result is (-1)^sign * s * 2^scale, with
 * s != 0 except that s may carry a sticky bit in bit 0 standing for a
 * nonzero remainder below it (only where that cannot change a decision,
 * see f32_add_normals).  Flush if the exact value is below 2^-126,
 * else round to 24 significant bits, nearest even, and saturate to inf. */
static uint32_t round_pack(uint32_t sign, int scale, uint64_t s)
{
    int msb = msb_index(s);
    int exp = msb + scale + 127;             /* biased exponent of the exact value */
    if (CMUTANT(111, exp < 1, exp < 0))
        return signed_zero(sign);            /* FTZ, decided before rounding */
    if (exp > F32_EXP_MAX)
        return signed_inf(sign);

    int shift = msb - 23;                    /* bits below the 24-bit significand */
    uint64_t man;
    if (shift <= 0) {
        man = s << -shift;                   /* exact, nothing to round */
    } else {
        man = s >> shift;
        uint64_t rem = s & ((UINT64_C(1) << shift) - 1);
        uint64_t half = UINT64_C(1) << (shift - 1);
        if (CMUTANT(109, rem > half || (rem == half && (man & 1)), rem >= half))
            man++;                           /* round to nearest, ties to even */
        if (man == (UINT64_C(1) << 24)) {    /* rounding carried out: 1.111.. -> 10.000.. */
            man >>= 1;
            exp++;
            if (exp > F32_EXP_MAX)
                return signed_inf(sign);
        }
    }
    return (sign << 31) | ((uint32_t)exp << 23) | ((uint32_t)man & F32_FRAC_MASK);
}

/* Add two normal operands: align the smaller to the larger with guard,
 * round and sticky bits, add or subtract the significands, round.
 * When the exponents differ by 2 or more the result keeps at least
 * 2^25 in the 27-bit scale, so the sticky bit sits two places below the
 * lowest rounding position and cannot change a decision; when they differ
 * by 0 or 1 nothing is shifted out and the sum is exact. */
static uint32_t f32_add_normals(fp_unpacked a, fp_unpacked b)
{
    /* Order by magnitude: a is the larger. */
    if (b.exp > a.exp || (b.exp == a.exp && b.man > a.man)) {
        fp_unpacked t = a;
        a = b;
        b = t;
    }
    int d = a.exp - b.exp;
    uint64_t sa = (uint64_t)a.man << ADD_GUARD_BITS;
    uint64_t sb = (uint64_t)b.man << ADD_GUARD_BITS;
    if (d > 0) {
        if (d >= 24 + ADD_GUARD_BITS) {
            sb = 1;                          /* everything shifted out: sticky only */
        } else {
            uint64_t lost = sb & ((UINT64_C(1) << d) - 1);
            sb = (sb >> d) | (lost != 0);
        }
    }
    uint64_t s = (a.sign == b.sign) ? sa + sb : sa - sb;
    if (s == 0)
        return 0;                            /* x + (-x) = +0 */
    return round_pack(a.sign, a.exp - 127 - 23 - ADD_GUARD_BITS, s);
}

uint32_t tpu_f32_add(uint32_t a, uint32_t b)
{
    fp_unpacked ua = unpack(a), ub = unpack(b);
    if (ua.cls == FP_NAN || ub.cls == FP_NAN)
        return TPU_F32_QNAN;
    if (ua.cls == FP_INF || ub.cls == FP_INF) {
        if (ua.cls == FP_INF && ub.cls == FP_INF && ua.sign != ub.sign)
            return TPU_F32_QNAN;             /* inf - inf */
        return signed_inf(ua.cls == FP_INF ? ua.sign : ub.sign);
    }
    if (ua.cls == FP_ZERO && ub.cls == FP_ZERO)
        return signed_zero(ua.sign & ub.sign);   /* -0 only for (-0) + (-0) */
    if (ua.cls == FP_ZERO)
        return b;                            /* b is normal: exact */
    if (ub.cls == FP_ZERO)
        return a;
    return f32_add_normals(ua, ub);
}

uint32_t tpu_f32_sub(uint32_t a, uint32_t b)
{
    return tpu_f32_add(a, b ^ F32_SIGN);     /* NaN b stays NaN: canonical anyway */
}

/* Multiply: the 24x24-bit significand product (48 bits, exact) goes
 * straight to the rounding stage. */
uint32_t tpu_f32_mul(uint32_t a, uint32_t b)
{
    fp_unpacked ua = unpack(a), ub = unpack(b);
    uint32_t sign = ua.sign ^ ub.sign;
    if (ua.cls == FP_NAN || ub.cls == FP_NAN)
        return TPU_F32_QNAN;
    if (ua.cls == FP_INF || ub.cls == FP_INF) {
        if (ua.cls == FP_ZERO || ub.cls == FP_ZERO)
            return TPU_F32_QNAN;             /* 0 * inf */
        return signed_inf(sign);
    }
    if (ua.cls == FP_ZERO || ub.cls == FP_ZERO)
        return signed_zero(sign);
    uint64_t p = (uint64_t)ua.man * ub.man;
    return round_pack(sign, (ua.exp - 150) + (ub.exp - 150), p);
}

/* Compare two non-NaN unpacked values: -1, 0 or 1 for a < b, a == b,
 * a > b, in IEEE order (so -0 == +0). */
static int compare(fp_unpacked a, fp_unpacked b)
{
    if (a.cls == FP_ZERO && b.cls == FP_ZERO)
        return 0;
    /* A sign-magnitude key: zero < normal < inf in magnitude. */
    uint64_t ka = (a.cls == FP_ZERO) ? 0 : (a.cls == FP_INF) ? UINT64_C(1) << 40
                : ((uint64_t)a.exp << 24) | a.man;
    uint64_t kb = (b.cls == FP_ZERO) ? 0 : (b.cls == FP_INF) ? UINT64_C(1) << 40
                : ((uint64_t)b.exp << 24) | b.man;
    /* A zero's sign does not matter here (both zero was handled above). */
    uint32_t sa = (a.cls == FP_ZERO) ? 0 : a.sign;
    uint32_t sb = (b.cls == FP_ZERO) ? 0 : b.sign;
    if (sa != sb)
        return sa ? -1 : 1;
    if (ka == kb)
        return 0;
    int mag = ka < kb ? -1 : 1;
    return sa ? -mag : mag;
}

/* The bits of an input after DAZ (a subnormal becomes its signed zero). */
static uint32_t daz(uint32_t bits)
{
    return (bits & F32_EXP_MASK) ? bits : (bits & F32_SIGN);
}

uint32_t tpu_f32_max(uint32_t a, uint32_t b)
{
    fp_unpacked ua = unpack(a), ub = unpack(b);
    if (ua.cls == FP_NAN || ub.cls == FP_NAN)
        return TPU_F32_QNAN;
    int c = compare(ua, ub);
    if (c == 0)                              /* equal: the same bits, or two zeros */
        return ua.cls == FP_ZERO ? signed_zero(ua.sign & ub.sign) : a;   /* +0 wins */
    return c > 0 ? daz(a) : daz(b);
}

uint32_t tpu_f32_min(uint32_t a, uint32_t b)
{
    fp_unpacked ua = unpack(a), ub = unpack(b);
    if (ua.cls == FP_NAN || ub.cls == FP_NAN)
        return TPU_F32_QNAN;
    int c = compare(ua, ub);
    if (c == 0)                              /* equal: the same bits, or two zeros */
        return ua.cls == FP_ZERO ? signed_zero(ua.sign | ub.sign) : a;   /* -0 wins */
    return c < 0 ? daz(a) : daz(b);
}

uint32_t tpu_f32_relu(uint32_t a)
{
    return tpu_f32_max(a, 0);
}

uint32_t tpu_f32_cmplt(uint32_t a, uint32_t b)
{
    fp_unpacked ua = unpack(a), ub = unpack(b);
    if (ua.cls == FP_NAN || ub.cls == FP_NAN)
        return 0;
    return compare(ua, ub) < 0 ? 0x3f800000u : 0;
}

int tpu_f32_is_zero(uint32_t a)
{
    return (a & F32_EXP_MASK) == 0;
}

uint32_t tpu_f32_from_bf16(uint16_t b)
{
    uint32_t f = (uint32_t)b << 16;
    fp_unpacked u = unpack(f);
    if (u.cls == FP_NAN)
        return TPU_F32_QNAN;
    if (u.cls == FP_ZERO)
        return signed_zero(u.sign);          /* subnormal bf16 -> signed zero */
    return f;                                /* exact */
}

/* Keep the top 16 bits, rounding on the low 16 to nearest even.  A carry
 * out of the 7-bit fraction bumps the exponent, and out of 0x7f7f it
 * gives 0x7f80 = inf, which is the overflow rule. */
uint16_t tpu_bf16_from_f32(uint32_t f)
{
    fp_unpacked u = unpack(f);
    if (u.cls == FP_NAN)
        return TPU_BF16_QNAN;
    if (u.cls == FP_ZERO)
        return (uint16_t)(u.sign << 15);
    if (u.cls == FP_INF)
        return (uint16_t)(f >> 16);
    uint32_t upper = f >> 16;
    uint32_t rem = f & 0xffffu;
    if (CMUTANT(110, rem > 0x8000u || (rem == 0x8000u && (upper & 1)), rem >= 0x8000u))
        upper++;
    return (uint16_t)upper;
}

uint32_t tpu_mac(uint32_t psum, uint16_t x, uint16_t w)
{
    return tpu_f32_add(psum, tpu_f32_mul(tpu_f32_from_bf16(x), tpu_f32_from_bf16(w)));
}

uint32_t tpu_mac_i8(uint32_t psum, uint16_t x, uint16_t w)
{
    int32_t p0 = (int32_t)(int8_t)(uint8_t)(x & 0xff) * (int8_t)(uint8_t)(w & 0xff);
    int32_t p1 = (int32_t)(int8_t)(uint8_t)(x >> 8) * (int8_t)(uint8_t)(w >> 8);
    return psum + (uint32_t)p0 + (uint32_t)p1;      /* unsigned: wraps mod 2^32 */
}

uint16_t tpu_bf16_from_i8(uint8_t v)
{
    int32_t i = (int8_t)v;
    if (i == 0)
        return 0;
    uint16_t sign = i < 0 ? 0x8000 : 0;
    uint32_t m = (uint32_t)(i < 0 ? -i : i);        /* 1 .. 128 */
    unsigned e = 0;
    while ((m >> e) > 1)
        e++;                                        /* m = 1.f x 2^e, e <= 7 */
    uint32_t frac = (m << (7 - e)) & 0x7f;          /* the 7 fraction bits: exact */
    return (uint16_t)(sign | (127 + e) << 7 | frac);
}

float tpu_f32_to_float(uint32_t bits)
{
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

uint32_t tpu_f32_from_float(float f)
{
    uint32_t bits;
    memcpy(&bits, &f, sizeof bits);
    return bits;
}

/* ---- transcendentals (docs/numerics.md section 11) ----------------------
 *
 * Each function is one fixed sequence of steps, and every step is a
 * "madd": madd(a, b, c) = add(mul(a, b), c), the product rounded, then the
 * sum rounded (two fp32 operations of the rules above, no fused
 * multiply-add).  Besides the madds there are integer steps on the bit
 * patterns: splitting off the exponent at the start, putting it back at
 * the end, the special values.  rtl/fp32_tr.vh has the same steps, one
 * pipeline stage per madd (TPU_TR_STEPS of them; the shorter sequences
 * pass the unused stages through). */

#define F32_ONE   0x3f800000u                /* 1.0 */
#define F32_HALF  0x3f000000u                /* 0.5 */

static uint32_t madd(uint32_t a, uint32_t b, uint32_t c)
{
    return tpu_f32_add(tpu_f32_mul(a, b), c);
}

/* exp: x = k ln2 + r, e^x = 2^k e^r. */
#define EXP_LO       0xc2d00000u             /* -104.0: e^-104 < 2^-149, flushed whatever k */
#define EXP_HI       0x42c80000u             /*  100.0: e^100 > 2^144, overflows whatever k */
#define EXP_INV_LN2  0x3fb8aa3bu             /* 1/ln2 */
#define EXP_MAGIC    0x4b400000u             /* 1.5 * 2^23: adding it rounds to an integer */
#define EXP_LN2_HI   0xbf317200u             /* -0.693145751953125 (15 significant bits) */
#define EXP_LN2_LO   0xb5bfbe8eu             /* -(ln2 - 0.693145751953125) */

/* e^r ~ 1 + r + r^2 (c2 + c3 r + c4 r^2 + c5 r^3 + c6 r^4) on |r| <= 0.3466,
 * the minimax polynomial for (e^r - 1 - r) / r^2 (relative error 1.2e-7
 * of that term, 2e-8 of e^r), coefficients rounded to fp32. */
static const uint32_t exp_poly[5] = {        /* c6, c5, c4, c3, c2 */
    0x3ab634fbu, 0x3c090592u, 0x3d2aaaddu, 0x3e2aaa6fu, 0x3f000000u,
};

uint32_t tpu_f32_exp(uint32_t x)
{
    if ((x & F32_EXP_MASK) == F32_EXP_MASK && (x & F32_FRAC_MASK))
        return TPU_F32_QNAN;
    /* Clamp (this also takes +-inf to 100 and -104, subnormals to +-0). */
    uint32_t xc = tpu_f32_min(tpu_f32_max(x, EXP_LO), EXP_HI);
    /* 1: m = 1.5 * 2^23 + round(x / ln2): m's last significand bit has
     *    weight 1, so the add rounds x/ln2 to the nearest integer (ties to
     *    even) and k can be read from the bits. */
    uint32_t m = madd(xc, EXP_INV_LN2, EXP_MAGIC);
    int32_t k = (int32_t)(m - EXP_MAGIC);    /* -150 .. 145 */
    /* 2: kf = k as fp32 (exact). */
    uint32_t kf = madd(m, F32_ONE, EXP_MAGIC | F32_SIGN);
    /* 3, 4: r = x - k ln2 in two parts (Cody-Waite); k * LN2_HI is exact
     *    and so is x - k * LN2_HI (Sterbenz). */
    uint32_t r = madd(kf, EXP_LN2_HI, xc);
    r = madd(kf, EXP_LN2_LO, r);
    /* 5..10: the polynomial, Horner. */
    uint32_t p = exp_poly[0];
    for (unsigned i = 1; i < 5; i++)
        p = madd(p, r, exp_poly[i]);
    p = madd(p, r, F32_ONE);
    p = madd(p, r, F32_ONE);
    /* 2^k: p is in [0.7, 1.42], normal; add k to its exponent field. */
    int32_t e = (int32_t)((p & F32_EXP_MASK) >> 23) + k;
    if (e >= 255)
        return F32_INF;
    if (e <= 0)
        return 0;                            /* below 2^-126: flushed (2.4) */
    return (p & ~F32_EXP_MASK) | ((uint32_t)e << 23);
}

/* rcp: x = +-1.f * 2^(E-127); 1/x = +-(1/1.f) * 2^(127-E). */
#define RCP_C0  0x3fb4b4b5u                  /*  24/17 */
#define RCP_C1  0xbef0f0f1u                  /* -8/17: 24/17 - 8/17 m, error <= 1/17 */

uint32_t tpu_f32_rcp(uint32_t x)
{
    fp_unpacked u = unpack(x);
    if (u.cls == FP_NAN)
        return TPU_F32_QNAN;
    if (u.cls == FP_INF)
        return signed_zero(u.sign);
    if (u.cls == FP_ZERO)
        return signed_inf(u.sign);
    uint32_t m = F32_ONE | (x & F32_FRAC_MASK);   /* 1.f in [1, 2) */
    /* 1: the first estimate; 2..7: three Newton-Raphson steps
     *    y = y + y (1 - m y), each error squared. */
    uint32_t y = madd(m, RCP_C1, RCP_C0);
    for (unsigned i = 0; i < 3; i++) {
        uint32_t e = madd(m | F32_SIGN, y, F32_ONE);
        y = madd(y, e, y);
    }
    /* y in (0.5, 1]: multiply by 2^(127-E) in its exponent field. */
    int32_t e = (int32_t)((y & F32_EXP_MASK) >> 23) + 127 - u.exp;
    if (e <= 0)
        return signed_zero(u.sign);          /* |x| > 2^126: 1/x below 2^-126 */
    return (u.sign << 31) | ((uint32_t)e << 23) | (y & F32_FRAC_MASK);
}

/* rsqrt: x = 1.f * 2^(E-127); with E-127 = 2n + o (o = 0 or 1),
 * m = 1.f * 2^o in [1, 4) and 1/sqrt(x) = (1/sqrt(m)) * 2^-n. */
static const uint32_t rsqrt_poly[2][3] = {   /* q2, q1, q0 for m in [1,2) and [2,4) */
    { 0x3e173b6au, 0xbf3b02fdu, 0x3fca319du },
    { 0x3cd5dfddu, 0xbe843cbau, 0x3f8ef8fdu },
};

uint32_t tpu_f32_rsqrt(uint32_t x)
{
    fp_unpacked u = unpack(x);
    if (u.cls == FP_NAN || (u.sign && u.cls != FP_ZERO))
        return TPU_F32_QNAN;                 /* NaN, x < 0, -inf */
    if (u.cls == FP_INF)
        return 0;                            /* +inf -> +0 */
    if (u.cls == FP_ZERO)
        return signed_inf(u.sign);           /* +-0 -> +-inf */
    unsigned o = !(u.exp & 1);               /* E - 127 odd */
    int32_t n = (u.exp - 127 - (int32_t)o) / 2;  /* exact: an even number halved */
    uint32_t frac = x & F32_FRAC_MASK;
    uint32_t m  = ((127u + o) << 23) | frac; /* 1.f * 2^o */
    uint32_t mh = ((126u + o) << 23) | frac; /* m / 2 */
    /* 1, 2: the first estimate, a quadratic (minimax, error <= 0.0032);
     * 3..8: two Newton-Raphson steps y = y + y (1/2 - (m/2) y y). */
    const uint32_t *q = rsqrt_poly[o];
    uint32_t y = madd(m, q[0], q[1]);
    y = madd(y, m, q[2]);
    for (unsigned i = 0; i < 2; i++) {
        uint32_t h = madd(mh, y, 0);
        uint32_t e = madd(h | F32_SIGN, y, F32_HALF);
        y = madd(y, e, y);
    }
    /* y in (0.5, 1]: multiply by 2^-n (|n| <= 63: no overflow, no flush). */
    int32_t e = (int32_t)((y & F32_EXP_MASK) >> 23) - n;
    return ((uint32_t)e << 23) | (y & F32_FRAC_MASK);
}
