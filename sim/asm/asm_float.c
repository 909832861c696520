/*
 * asm_float.c - float literals to fp32 / bf16 bit patterns, correctly
 * rounded (to nearest, ties to even) straight from the decimal text.
 *
 * strtod gives the nearest double.  Rounding that double again to 24 or 8
 * bits is only wrong when it lands exactly half-way between two results
 * while the decimal value was not: then the exact decimal digits of the
 * double (glibc prints them exactly) are compared with the literal's to
 * learn which side the literal really is on.  Subnormal results are kept
 * (the assembler writes bits; the core flushes them when it reads).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "asm_impl.h"

static int frac_bits(enum fmt f) { return f == FMT_F32 ? 23 : 7; }

/* Round (-1)^neg * m * 2^e to the format; `dir` says where the true value
 * lies relative to m * 2^e when that matters (-1 below, 0 exactly, +1
 * above).  *half is set when m * 2^e is exactly half-way between two
 * results.  Returns the bits; *overflow when the result is infinite. */
static uint32_t round_bits(int neg, uint64_t m, int e, int dir, enum fmt f, int *half,
                           int *overflow)
{
    int fb = frac_bits(f);
    uint32_t sign = neg ? (f == FMT_F32 ? 0x80000000u : 0x8000u) : 0;
    *half = 0;
    *overflow = 0;
    if (m == 0)
        return sign;
    int msb = 63 - __builtin_clzll(m);
    int E = msb + e;                       /* value in [2^E, 2^(E+1)) */
    int q = (E >= -126 ? E : -126) - fb;   /* exponent of the last kept bit */
    int shift = q - e;
    uint64_t mant;
    if (shift <= 0) {
        mant = m << -shift;                /* exact: at most fb+1 bits */
    } else {
        int cmp;                           /* the dropped part vs. half a unit */
        if (shift > 64) {
            mant = 0, cmp = -1;
        } else if (shift == 64) {
            mant = 0;
            cmp = m < (1ull << 63) ? -1 : m > (1ull << 63) ? 1 : 0;
        } else {
            uint64_t rem = m & ((1ull << shift) - 1), halfu = 1ull << (shift - 1);
            mant = m >> shift;
            cmp = rem < halfu ? -1 : rem > halfu ? 1 : 0;
        }
        if (cmp == 0) {
            *half = 1;
            cmp = dir;
        }
        if (cmp > 0 || (cmp == 0 && (mant & 1)))
            mant++;
        if (mant >> (fb + 1)) {            /* rounded up to the next power of two */
            mant >>= 1;
            q++;
        }
    }
    uint32_t expf, frac;
    if (mant < (1ull << fb)) {             /* subnormal (or zero) */
        expf = 0, frac = (uint32_t)mant;
    } else {
        int biased = q + fb + 127;
        if (biased >= 255) {
            *overflow = 1;
            return sign | (f == FMT_F32 ? 0x7f800000u : 0x7f80u);
        }
        expf = (uint32_t)biased, frac = (uint32_t)(mant - (1ull << fb));
    }
    return sign | (expf << fb) | frac;
}

uint32_t asm_float_from_int(int64_t v, enum fmt f)
{
    int half, ovf;
    uint64_t mag = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    return round_bits(v < 0, mag, 0, 0, f, &half, &ovf);
}

/* Significant digits and decimal exponent of a decimal string: the value is
 * 0.DIGITS * 10^exp.  Leading and trailing zeros are dropped. */
static void normalize(const char *s, size_t len, char *digits, size_t cap, size_t *nd,
                      long *exp, int *sticky)
{
    long e = 0, point = -1;
    size_t k = 0, n = 0, pos = 0;
    int started = 0;
    *sticky = 0;
    for (; k < len && s[k] != 'e' && s[k] != 'E'; k++) {
        if (s[k] == '.') {
            point = (long)pos;
            continue;
        }
        if (s[k] < '0' || s[k] > '9')
            continue;
        pos++;
        if (!started && s[k] == '0') {
            e--;                           /* a leading zero shifts the point */
            continue;
        }
        started = 1;
        if (n < cap)
            digits[n++] = s[k];
        else if (s[k] != '0')
            *sticky = 1;
    }
    if (point < 0)
        point = (long)pos;
    e += point;
    if (k < len) {                         /* exponent */
        long x = 0;
        int neg = 0;
        k++;
        if (k < len && (s[k] == '+' || s[k] == '-'))
            neg = s[k] == '-', k++;
        for (; k < len; k++)
            if (x < 100000000)
                x = x * 10 + (s[k] - '0');
        e += neg ? -x : x;
    }
    while (n > 0 && digits[n - 1] == '0')
        n--;
    *nd = n;
    *exp = e;
}

/* Compare the (positive) decimal literal with the double d exactly. */
static int decimal_vs_double(const char *s, size_t len, double d)
{
    enum { CAP = 1200 };
    char a[CAP], b[CAP], txt[CAP + 32];
    size_t na, nb;
    long ea, eb;
    int sa, sb;
    normalize(s, len, a, CAP, &na, &ea, &sa);
    snprintf(txt, sizeof txt, "%.1150e", d);
    normalize(txt, strlen(txt), b, CAP, &nb, &eb, &sb);
    if (na == 0 || nb == 0)
        return na == 0 ? (nb == 0 ? 0 : -1) : 1;
    if (ea != eb)
        return ea < eb ? -1 : 1;
    size_t n = na < nb ? na : nb;
    int c = memcmp(a, b, n);
    if (c)
        return c < 0 ? -1 : 1;
    if (na != nb)
        return na > nb ? 1 : -1;
    return sa ? 1 : 0;
}

/* s[0..len) is an unsigned decimal float literal (asm_lex.c checked its
 * form) or "inf"/"nan". */
int asm_float_from_decimal(const char *s, size_t len, int neg, enum fmt f, uint32_t *bits)
{
    uint32_t sign = neg ? (f == FMT_F32 ? 0x80000000u : 0x8000u) : 0;
    if (len == 3 && memcmp(s, "inf", 3) == 0) {
        *bits = sign | (f == FMT_F32 ? 0x7f800000u : 0x7f80u);
        return 0;
    }
    if (len == 3 && memcmp(s, "nan", 3) == 0) {
        *bits = sign | (f == FMT_F32 ? 0x7fc00000u : 0x7fc0u);
        return 0;
    }
    char *buf = malloc(len + 1);
    if (!buf)
        return -1;
    memcpy(buf, s, len);
    buf[len] = '\0';
    double d = strtod(buf, NULL);
    free(buf);
    uint64_t db;
    memcpy(&db, &d, sizeof db);
    unsigned dexp = (unsigned)(db >> 52) & 0x7ff;
    uint64_t m = db & ((1ull << 52) - 1);
    int e;
    if (dexp == 0x7ff)                     /* the literal overflowed a double */
        return -1;
    if (dexp == 0) {
        e = -1074;
    } else {
        m |= 1ull << 52;
        e = (int)dexp - 1075;
    }
    int half, ovf;
    uint32_t r = round_bits(neg, m, e, 0, f, &half, &ovf);
    if (half) {
        int dir = decimal_vs_double(s, len, d);
        r = round_bits(neg, m, e, dir, f, &half, &ovf);
    }
    if (ovf)
        return -1;
    *bits = r;
    return 0;
}
