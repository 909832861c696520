/*
 * ref.c - the reference kernels of ref.h: one MXU row, a tiled matmul and
 * the pointwise operations, bit-exact to docs/numerics.md.
 *
 * tpu_ref_row is the MXU model's inner loop, so it has to be fast (the
 * goal is well over 1e9 multiply-adds per host second on one thread).  On
 * x86 it uses host float arithmetic, vectorised across columns, with the
 * SSE control register set to flush-to-zero (FTZ) and denormals-are-zero
 * (DAZ) and round-to-nearest for the duration of the call (AVX2 when the
 * host has it, chosen per call).  Elsewhere, or built with -DTPU_REF_SOFT,
 * it is the plain loop over tpu_mac() (fp.c, integer soft-float).  The
 * same holds for tpu_ref_matmul and for tpu_ref_pointwise's add and sub
 * (the MXU model's mxu.mma accumulation may use them); mul, max, min and
 * relu are always soft-float.
 *
 * Why host float under FTZ+DAZ gives exactly fp.c's bits for a MAC chain
 * s = add(s, mul(x, w)) with bf16 x, w (docs/numerics.md section 2):
 *  - DAZ: fp.c reads an input with exponent field 0 as a signed zero; so
 *    does SSE with MXCSR.DAZ.  A widened bf16 subnormal is an fp32
 *    subnormal, hence a signed zero to both.
 *  - The product of two normal bf16 values has at most 8 + 8 = 16
 *    significant bits, so it is exact unless it overflows or is tiny.  If
 *    the exact product is below 2^-126, rounding it to 24 bits with an
 *    unbounded exponent gives the same (exact) value, still below 2^-126:
 *    x86 detects tininess after rounding, and finds it tiny exactly when
 *    our rule (FTZ judged before rounding) flushes.  FTZ then returns a
 *    zero with the sign of the true result, as rule 2.7 says.  Overflow:
 *    an exact 16-bit product is >= (2 - 2^-24) * 2^127 iff it is >= 2^128,
 *    and both give a signed infinity.
 *  - The sum of two normal fp32 values (the running sum is never
 *    subnormal: FTZ) is a multiple of 2^-149.  If it is below 2^-126 in
 *    magnitude it is exactly representable (as a subnormal), so again the
 *    rounded and the exact value agree on being tiny, and FTZ flushes it
 *    to the signed zero of the exact result.  Otherwise both round to
 *    nearest even and overflow to infinity the same way (IEEE 754).  An
 *    exact zero sum is +0 except (-0) + (-0) = -0 in both.
 *  - NaN: any NaN operand gives a NaN, inf - inf and 0 * inf give a NaN,
 *    and a NaN stays a NaN through every later add, in both.  The host's
 *    NaN may have another sign or payload, but fp.c's only NaN is
 *    0x7fc00000, so turning every NaN result into it at the end is exact.
 *  - No FMA: the multiply and the add are separate, each rounded.  Host C
 *    may contract a*b+c into an FMA; the pragmas below forbid it, and no
 *    target here enables the FMA instructions anyway (but clang's explicit
 *    -ffp-contract=fast overrides pragmas: do not build with it).
 * tests/test_ref.c checks all of this bit for bit against tpu_mac().
 */
#include "ref.h"

#include <float.h>
#include <stdlib.h>
#include <string.h>

#include "fp.h"

/* -DTPU_REF_SOFT forces the portable path (to test it on x86).  The host
 * path needs SSE arithmetic for every float operation (x86-64, where
 * FLT_EVAL_METHOD is 0; 32-bit x86 may use the x87 with extra precision). */
#if !defined(TPU_REF_SOFT) && defined(__x86_64__) && defined(__SSE2__) && FLT_EVAL_METHOD == 0
#define REF_HOST_FLOAT 1
#include <xmmintrin.h>
#else
#define REF_HOST_FLOAT 0
#endif

#ifdef __clang__
#pragma STDC FP_CONTRACT OFF
#endif
#if defined(__GNUC__) && !defined(__clang__)
/* -O2 in gcc 12 vectorises only "very cheap" loops; these are worth more. */
#pragma GCC optimize("tree-vectorize", "fp-contract=off")
#endif

#define ROW_CHUNK 256        /* columns summed at once (the largest mxu_n) */

#if REF_HOST_FLOAT

#define MXCSR_DAZ       0x0040u
#define MXCSR_EXC_MASKS 0x1f80u   /* all six exceptions masked */
#define MXCSR_ROUNDING  0x6000u   /* 00 = round to nearest even */
#define MXCSR_FTZ       0x8000u

/* Set FTZ, DAZ, round-to-nearest and masked exceptions; return the old
 * register value for mxcsr_restore(). */
static unsigned mxcsr_enter(void)
{
    unsigned old = _mm_getcsr();
    _mm_setcsr((old & ~MXCSR_ROUNDING) | MXCSR_DAZ | MXCSR_FTZ | MXCSR_EXC_MASKS);
    return old;
}

static void mxcsr_restore(unsigned old)
{
    _mm_setcsr(old);
}

static inline float float_of_bits(uint32_t b)
{
    float f;
    memcpy(&f, &b, sizeof f);
    return f;
}

static inline uint32_t bits_of_float(float f)
{
    uint32_t b;
    memcpy(&b, &f, sizeof b);
    return b;
}

/* Every NaN becomes the canonical one (see the top of the file). */
static inline uint32_t canonical(uint32_t b)
{
    return ((b & 0x7f800000u) == 0x7f800000u && (b & 0x007fffffu)) ? TPU_F32_QNAN : b;
}

/* acc[c] = column sums over rows k < nk of x[k] * w[k*ldw + c], c < nc,
 * starting from +0 and adding in increasing k.  Each column's sum is a
 * plain sequential chain; the work is vectorised across columns.
 * noinline keeps the float work between the MXCSR writes of the caller. */
#define PLAIN_COLUMNS(x, w, ldw, nk, c0, nc, acc)                              \
    do {                                                                       \
        for (unsigned c = (c0); c < (nc); c++)                                 \
            (acc)[c] = 0.0f;                                                   \
        for (unsigned k = 0; k < (nk); k++) {                                  \
            float xk = float_of_bits((uint32_t)(x)[k] << 16);                  \
            const uint16_t *wr = (w) + (size_t)k * (ldw);                      \
            for (unsigned c = (c0); c < (nc); c++) {                           \
                float p = xk * float_of_bits((uint32_t)wr[c] << 16);           \
                (acc)[c] = (acc)[c] + p;                                       \
            }                                                                  \
        }                                                                      \
    } while (0)

__attribute__((noinline))
static void row_kernel_base(const uint16_t *restrict x, const uint16_t *restrict w, size_t ldw,
                            unsigned nk, unsigned nc, float *restrict acc)
{
    PLAIN_COLUMNS(x, w, ldw, nk, 0u, nc, acc);
}

#if defined(__clang__) || __GNUC__ >= 5
#define REF_HAVE_AVX2 1
#include <immintrin.h>

/* 8 bf16 weights at p widened to 8 floats (zero-extend, shift: no arithmetic). */
#define AVX2_W8(p) _mm256_castsi256_ps(_mm256_slli_epi32(                       \
    _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(const void *)(p))), 16))

/* The same sums with AVX2 intrinsics: blocks of 32 columns keep their sums
 * in four registers over the whole k loop (separate multiply and add, no
 * FMA: "avx2" does not enable it); leftover columns use the plain loop. */
__attribute__((noinline, target("avx2")))
static void row_kernel_avx2(const uint16_t *restrict x, const uint16_t *restrict w, size_t ldw,
                            unsigned nk, unsigned nc, float *restrict acc)
{
    unsigned c0 = 0;
    for (; c0 + 32 <= nc; c0 += 32) {
        __m256 a0 = _mm256_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
        const uint16_t *wr = w + c0;
        for (unsigned k = 0; k < nk; k++, wr += ldw) {
            __m256 xk = _mm256_set1_ps(float_of_bits((uint32_t)x[k] << 16));
            a0 = _mm256_add_ps(a0, _mm256_mul_ps(xk, AVX2_W8(wr)));
            a1 = _mm256_add_ps(a1, _mm256_mul_ps(xk, AVX2_W8(wr + 8)));
            a2 = _mm256_add_ps(a2, _mm256_mul_ps(xk, AVX2_W8(wr + 16)));
            a3 = _mm256_add_ps(a3, _mm256_mul_ps(xk, AVX2_W8(wr + 24)));
        }
        _mm256_storeu_ps(acc + c0, a0);
        _mm256_storeu_ps(acc + c0 + 8, a1);
        _mm256_storeu_ps(acc + c0 + 16, a2);
        _mm256_storeu_ps(acc + c0 + 24, a3);
    }
    if (c0 < nc)
        PLAIN_COLUMNS(x, w, ldw, nk, c0, nc, acc);
}
#else
#define REF_HAVE_AVX2 0
#endif

typedef void (*row_kernel_fn)(const uint16_t *, const uint16_t *, size_t, unsigned, unsigned,
                              float *);

/* The fastest kernel this host runs (decided per call: no global state). */
static row_kernel_fn row_kernel(void)
{
#if REF_HAVE_AVX2
    if (__builtin_cpu_supports("avx2"))
        return row_kernel_avx2;
#endif
    return row_kernel_base;
}

void tpu_ref_row(const uint16_t *x, const uint16_t *w, unsigned n, uint32_t *y)
{
    float acc[ROW_CHUNK];
    row_kernel_fn kern = row_kernel();
    unsigned old = mxcsr_enter();
    for (unsigned c0 = 0; c0 < n; c0 += ROW_CHUNK) {
        unsigned nc = n - c0 < ROW_CHUNK ? n - c0 : ROW_CHUNK;
        kern(x, w + c0, n, n, nc, acc);
        for (unsigned c = 0; c < nc; c++)
            y[c0 + c] = bits_of_float(acc[c]);
    }
    mxcsr_restore(old);
    for (unsigned c = 0; c < n; c++)
        y[c] = canonical(y[c]);
}

/* y[c] += acc[c] for a K-tile after the first, as host floats (same
 * argument as the MAC chain: both operands normal or zero), NaNs made
 * canonical by the caller at the end. */
__attribute__((noinline))
static void add_tile(uint32_t *restrict y, const float *restrict acc, unsigned nc)
{
    for (unsigned c = 0; c < nc; c++)
        y[c] = bits_of_float(float_of_bits(y[c]) + acc[c]);
}

int tpu_ref_matmul(const uint16_t *x, const uint16_t *w, uint32_t *y,
                   uint64_t b, uint64_t d, uint64_t f, unsigned tile)
{
    if (tile == 0 || tile > d)
        tile = d > 0 && d < UINT32_MAX ? (unsigned)d : UINT32_MAX;
    float acc[ROW_CHUNK];
    row_kernel_fn kern = row_kernel();
    unsigned old = mxcsr_enter();
    /* Column chunks outermost so one chunk of W stays in cache while every
     * row of X goes through it; K-tiles in increasing order per element. */
    for (uint64_t c0 = 0; c0 < f; c0 += ROW_CHUNK) {
        unsigned nc = (unsigned)(f - c0 < ROW_CHUNK ? f - c0 : ROW_CHUNK);
        for (uint64_t k0 = 0; k0 < d || (d == 0 && k0 == 0); k0 += tile) {
            unsigned nk = (unsigned)(d - k0 < tile ? d - k0 : tile);
            for (uint64_t r = 0; r < b; r++) {
                uint32_t *yr = y + r * f + c0;
                kern(x + r * d + k0, w + k0 * f + c0, (size_t)f, nk, nc, acc);
                if (k0 == 0)
                    memcpy(yr, acc, (size_t)nc * sizeof *yr);
                else
                    add_tile(yr, acc, nc);
            }
            if (d == 0)
                break;
        }
    }
    mxcsr_restore(old);
    for (uint64_t i = 0; i < b * f; i++)
        y[i] = canonical(y[i]);
    return 0;
}

#else /* !REF_HOST_FLOAT: the soft-float definition itself */

void tpu_ref_row(const uint16_t *x, const uint16_t *w, unsigned n, uint32_t *y)
{
    for (unsigned c = 0; c < n; c++) {
        uint32_t s = 0;
        for (unsigned k = 0; k < n; k++)
            s = tpu_mac(s, x[k], w[(size_t)k * n + c]);
        y[c] = s;
    }
}

int tpu_ref_matmul(const uint16_t *x, const uint16_t *w, uint32_t *y,
                   uint64_t b, uint64_t d, uint64_t f, unsigned tile)
{
    if (tile == 0)
        tile = d > 0 && d < UINT32_MAX ? (unsigned)d : UINT32_MAX;
    for (uint64_t r = 0; r < b; r++)
        for (uint64_t c = 0; c < f; c++) {
            uint32_t out = 0;
            for (uint64_t k0 = 0; k0 < d || (d == 0 && k0 == 0); k0 += tile) {
                uint32_t s = 0;
                for (uint64_t k = k0; k < d && k < k0 + tile; k++)
                    s = tpu_mac(s, x[r * d + k], w[k * f + c]);
                out = k0 == 0 ? s : tpu_f32_add(out, s);
                if (d == 0)
                    break;
            }
            y[r * f + c] = out;
        }
    return 0;
}

#endif /* REF_HOST_FLOAT */

#if REF_HOST_FLOAT
/* z[i] = a[i] + (b[i] ^ flip) as host floats (flip = sign bit: a - b).
 * Exact under FTZ/DAZ by the argument at the top of the file: after DAZ
 * both operands are zero or normal, so their sum is a multiple of 2^-149
 * and a tiny sum is representable; NaNs are made canonical after.  z may
 * be a or b (element i is read before it is written). */
__attribute__((noinline))
static void add_kernel(const uint32_t *a, const uint32_t *b, uint32_t *z, size_t n,
                       uint32_t flip)
{
    for (size_t i = 0; i < n; i++)
        z[i] = bits_of_float(float_of_bits(a[i]) + float_of_bits(b[i] ^ flip));
}

static void host_add(const uint32_t *a, const uint32_t *b, uint32_t *z, size_t n, uint32_t flip)
{
    unsigned old = mxcsr_enter();
    add_kernel(a, b, z, n, flip);
    mxcsr_restore(old);
    for (size_t i = 0; i < n; i++)
        z[i] = canonical(z[i]);
}
#endif

void tpu_ref_pointwise(enum tpu_ref_op op, const uint32_t *a, const uint32_t *b, uint32_t *z,
                       size_t n)
{
    /* add and sub are fast on x86 (the MXU model's mxu.mma accumulates
     * with them); the others are plain soft-float: a host fp32 multiply
     * would not be exact (two 24-bit significands can round up to 2^-126
     * and escape FTZ), and they are not on a hot path. */
    switch (op) {
#if REF_HOST_FLOAT
    case TPU_REF_ADD: host_add(a, b, z, n, 0); break;
    case TPU_REF_SUB: host_add(a, b, z, n, 0x80000000u); break;
#else
    case TPU_REF_ADD: for (size_t i = 0; i < n; i++) z[i] = tpu_f32_add(a[i], b[i]); break;
    case TPU_REF_SUB: for (size_t i = 0; i < n; i++) z[i] = tpu_f32_sub(a[i], b[i]); break;
#endif
    case TPU_REF_MUL: for (size_t i = 0; i < n; i++) z[i] = tpu_f32_mul(a[i], b[i]); break;
    case TPU_REF_MAX: for (size_t i = 0; i < n; i++) z[i] = tpu_f32_max(a[i], b[i]); break;
    case TPU_REF_MIN: for (size_t i = 0; i < n; i++) z[i] = tpu_f32_min(a[i], b[i]); break;
    case TPU_REF_RELU: for (size_t i = 0; i < n; i++) z[i] = tpu_f32_relu(a[i]); break;
    }
}
