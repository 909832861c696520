/*
 * ref.c - the reference kernels of ref.h: one MXU row, a tiled matmul and
 * the pointwise operations, bit-exact to docs/numerics.md.
 *
 * tpu_ref_row_tile is the MXU model's inner loop and tpu_ref_matmul is what
 * tpu-sim checks a matmul against, so both have to be fast (tens of
 * billions of multiply-adds per host second on one thread).  On x86-64
 * they use host float arithmetic, vectorised across columns, with the SSE
 * control register set to flush-to-zero (FTZ) and denormals-are-zero (DAZ)
 * and round-to-nearest for the duration of the call.  There are several
 * kernels (ref.h, enum tpu_ref_kernel), all giving the same bits:
 *   soft        the plain loops over tpu_mac() (fp.c, integer soft-float):
 *               the definition, and the only kernel off x86-64 or when
 *               built with -DTPU_REF_SOFT;
 *   sse2, avx2  a separate multiply and add per step, the compiler's
 *               vectorisation or AVX2 intrinsics;
 *   avx2-fma,   a fused multiply-add (one rounding) for every step whose
 *   avx512-fma  product is provably a normal fp32 number, the multiply and
 *               the add otherwise; AVX2+FMA or AVX-512F intrinsics.
 * The fastest kernel the host runs is used (checked with
 * __builtin_cpu_supports) unless TPU_REF_KERNEL or tpu_ref_kernel_set()
 * picks another.  tpu_ref_pointwise's add and sub are host float too (the
 * MXU model's mxu.mma accumulation uses them; with avx512-fma without
 * touching MXCSR, see add_avx512); mul, max, min and relu are always
 * soft-float.
 *
 * Why host float under FTZ+DAZ gives exactly fp.c's bits for a MAC chain
 * s = add(s, mul(x, w)) with bf16 x, w (docs/numerics.md section 2):
 *  - DAZ: fp.c reads an input with exponent field 0 as a signed zero; so
 *    does SSE/AVX with MXCSR.DAZ.  A widened bf16 subnormal is an fp32
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
 *  - Separate multiply and add (sse2, avx2): each is rounded on its own,
 *    as the rules say.  Host C may contract a*b+c into an FMA; the pragmas
 *    below forbid it and -std=c11 turns contraction off in gcc (but
 *    clang's explicit -ffp-contract=fast overrides pragmas: do not build
 *    with it).  The fused kernels call the FMA instruction explicitly.
 *
 * When a fused multiply-add gives the same bits (docs/numerics.md 8):
 * fma(x, w, s) rounds the exact x*w + s once; add(s, mul(x, w)) first
 * rounds the product.  With x and w bf16 and s an fp32 that is zero,
 * normal, infinite or NaN (never subnormal: every result is flushed):
 *  - x or w zero or subnormal (zero by DAZ, with its sign), infinite or
 *    NaN: the product is exact in both (a signed zero, a signed infinity,
 *    or NaN for 0 * inf and NaN inputs), and IEEE defines fma's result
 *    from it exactly as the add's: +-0 products follow the addition's zero
 *    sign rule, inf + -inf is NaN.  Same bits.
 *  - x and w normal with exponent fields Ex, Ew (1..254): the exact product
 *    p lies in [2^(Ex+Ew-254), 2^(Ex+Ew-252)) and has at most 16
 *    significant bits.  If Ex + Ew >= 128 and Ex + Ew <= 380, then
 *    2^-126 <= |p| < 2^128, so p is an fp32 normal number, mul(x, w) = p
 *    exactly, and fma(x, w, s) = round(s + p) = add(s, p): the same IEEE
 *    addition of the same two operands, with the FTZ argument above (s
 *    and p are both zero-or-normal fp32 values, so a tiny sum is exact).
 *  - Otherwise they can differ, so such a step is never fused:
 *    tiny products (|p| < 2^-126): mul flushes p to a signed zero and the
 *    add returns s (or +0 for s = +0), while fma adds p in: s = 2^-126,
 *    p = 2^-127 gives 1.5 * 2^-126 instead of 2^-126; s = +0, p = -2^-130
 *    gives -0 (the flushed sign of p) instead of +0;
 *    products >= 2^128: mul gives inf (and inf + -inf = NaN), while fma
 *    may land in range: s = -(2^128 - 2^104), p = 2^128 gives 2^104
 *    instead of inf; s = -inf gives -inf instead of NaN.
 * So the fused kernels fuse a step only when x[k] is not a normal number
 * or its exponent field lies in a window computed from the weights it
 * meets: for row k of a weight tile, with lo and hi the smallest and
 * largest exponent fields of its normal weights, every normal x with
 * 128 - lo <= Ex <= 380 - hi is safe against all of them.  The windows of
 * a tile are computed once (tpu_ref_tile_scan, when the MXU model loads
 * it; per K-tile and column block in tpu_ref_matmul); per row the range of
 * x's exponents is compared with the intersection of all windows, and
 * only when it does not fit is each step k checked on its own.  A step
 * that is not safe uses the separate multiply and add, in the same
 * vector code; steps of both kinds mix freely, since each gives exactly
 * add(s, mul(x, w)).  tests/test_ref.c checks all of this bit for bit
 * against tpu_mac(), for every kernel the host runs.
 */
#include "ref.h"

#include <float.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fp.h"
#include "hostmem.h"

/* -DTPU_REF_SOFT forces the portable path (to test it on x86).  The host
 * path needs SSE arithmetic for every float operation (x86-64, where
 * FLT_EVAL_METHOD is 0; 32-bit x86 may use the x87 with extra precision). */
#if !defined(TPU_REF_SOFT) && defined(__x86_64__) && defined(__SSE2__) && FLT_EVAL_METHOD == 0
#define REF_HOST_FLOAT 1
#include <xmmintrin.h>
#else
#define REF_HOST_FLOAT 0
#endif

/* AVX2, FMA and AVX-512F intrinsics in functions compiled for them alone
 * (target attributes), chosen at run time. */
#if REF_HOST_FLOAT && (defined(__clang__) || __GNUC__ >= 8)
#define REF_HAVE_AVX 1
#include <immintrin.h>
#else
#define REF_HAVE_AVX 0
#endif

#ifdef __clang__
#pragma STDC FP_CONTRACT OFF
#endif
#if defined(__GNUC__) && !defined(__clang__)
/* -O2 in gcc 12 vectorises only "very cheap" loops; these are worth more. */
#pragma GCC optimize("tree-vectorize", "fp-contract=off")
#endif

#define ROW_CHUNK 256        /* columns summed at once (the largest mxu_n) */

/* ---- which kernel ------------------------------------------------------------ */

static const char *const kernel_names[TPU_REF_KERNEL_COUNT] = {
    "auto", "soft", "sse2", "avx2", "avx2-fma", "avx512-fma",
};

const char *tpu_ref_kernel_name(enum tpu_ref_kernel k)
{
    return (unsigned)k < TPU_REF_KERNEL_COUNT ? kernel_names[k] : NULL;
}

int tpu_ref_kernel_parse(const char *name)
{
    if (!name)
        return -1;
    for (int k = 0; k < TPU_REF_KERNEL_COUNT; k++)
        if (!strcmp(name, kernel_names[k]))
            return k;
    if (!strcmp(name, "fma"))
        return TPU_REF_KERNEL_AVX2_FMA;
    if (!strcmp(name, "avx512"))
        return TPU_REF_KERNEL_AVX512_FMA;
    return -1;
}

int tpu_ref_kernel_supported(enum tpu_ref_kernel k)
{
    switch (k) {
    case TPU_REF_KERNEL_AUTO:
    case TPU_REF_KERNEL_SOFT:
        return 1;
#if REF_HOST_FLOAT
    case TPU_REF_KERNEL_SSE2:
        return 1;
#endif
#if REF_HAVE_AVX
    case TPU_REF_KERNEL_AVX2:
        return __builtin_cpu_supports("avx2");
    case TPU_REF_KERNEL_AVX2_FMA:
        return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    case TPU_REF_KERNEL_AVX512_FMA:
        return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")
               && __builtin_cpu_supports("avx512f");
#endif
    default:
        return 0;
    }
}

/* The fastest kernel first. */
static enum tpu_ref_kernel fastest_kernel(void)
{
    static const enum tpu_ref_kernel order[] = {
        TPU_REF_KERNEL_AVX512_FMA, TPU_REF_KERNEL_AVX2_FMA, TPU_REF_KERNEL_AVX2,
        TPU_REF_KERNEL_SSE2,
    };
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++)
        if (tpu_ref_kernel_supported(order[i]))
            return order[i];
    return TPU_REF_KERNEL_SOFT;
}

/* The kernel in use; 0 (AUTO) until decided.  Atomic: any thread may ask. */
static atomic_int kernel_in_use;

int tpu_ref_kernel_set(enum tpu_ref_kernel k)
{
    if ((unsigned)k >= TPU_REF_KERNEL_COUNT || !tpu_ref_kernel_supported(k))
        return -1;
    if (k == TPU_REF_KERNEL_AUTO)
        k = fastest_kernel();
    atomic_store_explicit(&kernel_in_use, (int)k, memory_order_relaxed);
    return 0;
}

int tpu_ref_kernel_from_env(char *err, size_t errsize)
{
    const char *name = getenv("TPU_REF_KERNEL");
    if (!name || !*name)
        return 0;
    int k = tpu_ref_kernel_parse(name);
    if (k < 0) {
        snprintf(err, errsize, "TPU_REF_KERNEL=%s: no such kernel (auto, soft, sse2, avx2, "
                 "avx2-fma, avx512-fma)", name);
        return -1;
    }
    if (tpu_ref_kernel_set((enum tpu_ref_kernel)k)) {
        snprintf(err, errsize, "TPU_REF_KERNEL=%s: this host does not run that kernel", name);
        return -1;
    }
    return 0;
}

enum tpu_ref_kernel tpu_ref_kernel_current(void)
{
    int k = atomic_load_explicit(&kernel_in_use, memory_order_relaxed);
    if (k != TPU_REF_KERNEL_AUTO)
        return (enum tpu_ref_kernel)k;
    char err[160];
    if (tpu_ref_kernel_from_env(err, sizeof err) == 0) {
        k = atomic_load_explicit(&kernel_in_use, memory_order_relaxed);
        if (k != TPU_REF_KERNEL_AUTO)
            return (enum tpu_ref_kernel)k;
    }
    tpu_ref_kernel_set(TPU_REF_KERNEL_AUTO);
    return (enum tpu_ref_kernel)atomic_load_explicit(&kernel_in_use, memory_order_relaxed);
}

/* ---- the soft-float definition (the "soft" kernel) ---------------------------- */

static void soft_row(const uint16_t *x, const uint16_t *w, unsigned n, uint32_t *y)
{
    for (unsigned c = 0; c < n; c++) {
        uint32_t s = 0;
        for (unsigned k = 0; k < n; k++)
            s = tpu_mac(s, x[k], w[(size_t)k * n + c]);
        y[c] = s;
    }
}

static void soft_matmul(const uint16_t *x, const uint16_t *w, uint32_t *y,
                        uint64_t b, uint64_t d, uint64_t f, unsigned tile)
{
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

/* Every NaN becomes the canonical one (see the top of the file): a NaN is
 * exactly a magnitude above infinity's pattern (one compare: vectorises). */
static inline uint32_t canonical(uint32_t b)
{
    return (b & 0x7fffffffu) > 0x7f800000u ? TPU_F32_QNAN : b;
}

/* ---- exponent windows (the fused kernels' safety test) ------------------------ */

/* The exponent field of a bf16. */
static inline unsigned bf16_exp(uint16_t v)
{
    return (v >> 7) & 0xffu;
}

/* The window of x exponent fields that are safe against weights whose
 * normal exponent fields lie in [lo, hi] (lo > hi: none is normal, so every
 * x is safe): Ex + lo >= 128 and Ex + hi <= 380.  Empty: xlo > xhi. */
static void exp_window(unsigned lo, unsigned hi, uint8_t *xlo, uint8_t *xhi)
{
    if (lo > hi) {
        *xlo = 1;
        *xhi = 254;
        return;
    }
    int a = 128 - (int)lo, b = 380 - (int)hi;
    if (a < 1)
        a = 1;
    if (b > 254)
        b = 254;
    if (a > b) {
        a = 255;
        b = 0;
    }
    *xlo = (uint8_t)a;
    *xhi = (uint8_t)b;
}

/* Is x times every weight of a row with window [xlo, xhi] safe to fuse? */
static inline int x_safe(uint16_t x, unsigned xlo, unsigned xhi)
{
    unsigned e = bf16_exp(x);
    return e == 0 || e == 255 || (e >= xlo && e <= xhi);
}

/* out[i] = v[i] widened to fp32 bits (out may be NULL); *lo, *hi = the
 * smallest and largest exponent field among the normal v[i] (lo = 255,
 * hi = 0 if none is normal). */
static void widen_range_plain(const uint16_t *v, unsigned n, float *out, unsigned *lo,
                              unsigned *hi)
{
    unsigned l = 255, h = 0;
    for (unsigned i = 0; i < n; i++) {
        unsigned e = bf16_exp(v[i]);
        if (e - 1u < 254u) {
            l = e < l ? e : l;
            h = e > h ? e : h;
        }
        if (out)
            out[i] = float_of_bits((uint32_t)v[i] << 16);
    }
    *lo = l;
    *hi = h;
}

#if REF_HAVE_AVX
#define AVX2_TARGET   __attribute__((target("avx2")))
#define FMA_TARGET    __attribute__((target("avx2,fma")))
#define AVX512_TARGET __attribute__((target("avx512f,avx2,fma")))
#define INLINE        static inline __attribute__((always_inline))

/* The same with AVX2, 16 values at a time.  The exponent field of a bf16
 * is bits 14:7; with e = v & 0x7f80 as a 16-bit integer, e - 0x80 taken
 * unsigned orders the normal values first (fields 1..254 -> 0..0x7e80, 255
 * -> 0x7f00, 0 -> 0xff80) and e + 0x80 taken signed orders them last
 * (0 -> 0x80, 1..254 -> 0x100..0x7f80, 255 -> -0x8000), so an unsigned
 * minimum and a signed maximum give the normal range. */
AVX2_TARGET INLINE void widen_acc_avx2(const uint16_t *v, unsigned n, float *out,
                                     __m256i *umin, __m256i *smax, unsigned *lo, unsigned *hi)
{
    const __m256i field = _mm256_set1_epi16(0x7f80), one = _mm256_set1_epi16(0x80);
    unsigned i = 0;
    for (; i + 16 <= n; i += 16) {
        __m256i a = _mm256_loadu_si256((const __m256i *)(const void *)(v + i));
        __m256i e = _mm256_and_si256(a, field);
        *umin = _mm256_min_epu16(*umin, _mm256_sub_epi16(e, one));
        *smax = _mm256_max_epi16(*smax, _mm256_add_epi16(e, one));
        if (out) {
            __m256i w0 = _mm256_slli_epi32(_mm256_cvtepu16_epi32(_mm256_castsi256_si128(a)), 16);
            __m256i w1 = _mm256_slli_epi32(_mm256_cvtepu16_epi32(_mm256_extracti128_si256(a, 1)), 16);
            _mm256_storeu_ps(out + i, _mm256_castsi256_ps(w0));
            _mm256_storeu_ps(out + i + 8, _mm256_castsi256_ps(w1));
        }
    }
    if (i < n) {
        unsigned tl, th;
        widen_range_plain(v + i, n - i, out ? out + i : NULL, &tl, &th);
        *lo = tl < *lo ? tl : *lo;
        *hi = th > *hi ? th : *hi;
    }
}

/* minpos finds an unsigned minimum; v ^ 0x7fff turns a signed maximum into
 * one (0x7fff - v, decreasing). */
AVX2_TARGET INLINE void widen_reduce_avx2(__m256i umin, __m256i smax, unsigned *lo,
                                          unsigned *hi)
{
    __m128i m = _mm_min_epu16(_mm256_castsi256_si128(umin), _mm256_extracti128_si256(umin, 1));
    __m128i s = _mm_max_epi16(_mm256_castsi256_si128(smax), _mm256_extracti128_si256(smax, 1));
    unsigned um = (unsigned)_mm_extract_epi16(_mm_minpos_epu16(m), 0);
    unsigned sm = (unsigned)_mm_extract_epi16(
        _mm_minpos_epu16(_mm_xor_si128(s, _mm_set1_epi16(0x7fff))), 0) ^ 0x7fffu;
    if (um <= 0x7e80u && (um >> 7) + 1 < *lo)
        *lo = (um >> 7) + 1;
    if (sm >= 0x100u && sm <= 0x7f80u && (sm >> 7) - 1 > *hi)
        *hi = (sm >> 7) - 1;
}

AVX2_TARGET __attribute__((noinline))
static void widen_range_avx2(const uint16_t *v, unsigned n, float *out, unsigned *lo,
                             unsigned *hi)
{
    __m256i umin = _mm256_set1_epi16(-1), smax = _mm256_set1_epi16(INT16_MIN);
    *lo = 255;
    *hi = 0;
    widen_acc_avx2(v, n, out, &umin, &smax, lo, hi);
    widen_reduce_avx2(umin, smax, lo, hi);
}

/* The same for `rows` rows of n at x (stride ldx) into out (stride n), one
 * range for all of them. */
AVX2_TARGET __attribute__((noinline))
static void widen_rows_range_avx2(const uint16_t *x, size_t ldx, unsigned rows, unsigned n,
                                  float *out, unsigned *lo, unsigned *hi)
{
    __m256i umin = _mm256_set1_epi16(-1), smax = _mm256_set1_epi16(INT16_MIN);
    *lo = 255;
    *hi = 0;
    for (unsigned r = 0; r < rows; r++)
        widen_acc_avx2(x + r * ldx, n, out + (size_t)r * n, &umin, &smax, lo, hi);
    widen_reduce_avx2(umin, smax, lo, hi);
}
#endif

/* The exponent range of n bf16 values, widening them into out (if not NULL). */
static void widen_range(const uint16_t *v, unsigned n, float *out, unsigned *lo,
                        unsigned *hi)
{
#if REF_HAVE_AVX
    if (__builtin_cpu_supports("avx2")) {
        widen_range_avx2(v, n, out, lo, hi);
        return;
    }
#endif
    widen_range_plain(v, n, out, lo, hi);
}

/* Windows of rows k < nk of the nc columns at w (row stride ldw), into
 * row_xlo/row_xhi, and their intersection into *xlo, *xhi; each row
 * widened into out + k * ldo if out is not NULL. */
static void scan_windows(const uint16_t *w, size_t ldw, unsigned nk, unsigned nc,
                         uint8_t *row_xlo, uint8_t *row_xhi, uint8_t *xlo, uint8_t *xhi,
                         float *out, size_t ldo)
{
    unsigned all_lo = 1, all_hi = 254;
    for (unsigned k = 0; k < nk; k++) {
        unsigned lo, hi;
        /* rows far apart (a matmul's W): each in another page, so the
         * host's prefetcher does not see them coming; ask for row k + 8 */
        if (k + 8 < nk)
            for (unsigned c = 0; c < nc; c += 32)
                __builtin_prefetch(w + (size_t)(k + 8) * ldw + c);
        widen_range(w + (size_t)k * ldw, nc, out ? out + (size_t)k * ldo : NULL, &lo, &hi);
        exp_window(lo, hi, &row_xlo[k], &row_xhi[k]);
        all_lo = row_xlo[k] > all_lo ? row_xlo[k] : all_lo;
        all_hi = row_xhi[k] < all_hi ? row_xhi[k] : all_hi;
    }
    if (all_lo > all_hi) {
        all_lo = 255;
        all_hi = 0;
    }
    *xlo = (uint8_t)all_lo;
    *xhi = (uint8_t)all_hi;
}

void tpu_ref_tile_scan(const uint16_t *w, unsigned n, tpu_ref_tile *t)
{
    t->n = n;
    if (n > TPU_REF_MAX_N) {                 /* unusable: the row kernels do not fuse */
        t->n = 0;
        return;
    }
    scan_windows(w, n, n, n, t->row_xlo, t->row_xhi, &t->xlo, &t->xhi, NULL, 0);
}

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

/* ---- multiply then add (sse2, avx2) ------------------------------------------ */

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

#if REF_HAVE_AVX
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
#endif

typedef void (*row_kernel_fn)(const uint16_t *, const uint16_t *, size_t, unsigned, unsigned,
                              float *);

static row_kernel_fn muladd_kernel(enum tpu_ref_kernel k)
{
#if REF_HAVE_AVX
    if (k != TPU_REF_KERNEL_SSE2)            /* avx2 and the fused ones' hosts */
        return row_kernel_avx2;
#endif
    (void)k;
    return row_kernel_base;
}

static void row_muladd(row_kernel_fn kern, const uint16_t *x, const uint16_t *w, unsigned n,
                       uint32_t *y)
{
    float acc[ROW_CHUNK];
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

static void matmul_muladd(row_kernel_fn kern, const uint16_t *x, const uint16_t *w, uint32_t *y,
                          uint64_t b, uint64_t d, uint64_t f, unsigned tile)
{
    float acc[ROW_CHUNK];
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
}

/* ---- fused multiply-add where exact (avx2-fma, avx512-fma) -------------------- */

#if REF_HAVE_AVX

/* One step of a chain: fused when the step is safe (see the top). */
FMA_TARGET INLINE __m256 mac256(__m256 acc, __m256 x, __m256 w, int fused)
{
    return fused ? _mm256_fmadd_ps(x, w, acc) : _mm256_add_ps(acc, _mm256_mul_ps(x, w));
}

AVX512_TARGET INLINE __m512 mac512(__m512 acc, __m512 x, __m512 w, int fused)
{
    return fused ? _mm512_fmadd_ps(x, w, acc) : _mm512_add_ps(acc, _mm512_mul_ps(x, w));
}

/* Widening 2n bf16 weights loaded as n 32-bit lanes: the even columns are
 * the low halves shifted up, the odd ones the high halves with the low
 * bits cleared (two integer operations per 2n weights, no shuffle). */
FMA_TARGET INLINE __m256 even256(__m256i v)
{
    return _mm256_castsi256_ps(_mm256_slli_epi32(v, 16));
}

FMA_TARGET INLINE __m256 odd256(__m256i v)
{
    return _mm256_castsi256_ps(_mm256_and_si256(v, _mm256_set1_epi32((int)0xffff0000u)));
}

AVX512_TARGET INLINE __m512 even512(__m512i v)
{
    return _mm512_castsi512_ps(_mm512_slli_epi32(v, 16));
}

AVX512_TARGET INLINE __m512 odd512(__m512i v)
{
    return _mm512_castsi512_ps(_mm512_and_si512(v, _mm512_set1_epi32((int)0xffff0000u)));
}

/* Columns 0..15 in order from e (0, 2, .., 14) and o (1, 3, .., 15). */
FMA_TARGET INLINE void store16(float *out, __m256 e, __m256 o)
{
    __m256 lo = _mm256_unpacklo_ps(e, o), hi = _mm256_unpackhi_ps(e, o);
    _mm256_storeu_ps(out, _mm256_permute2f128_ps(lo, hi, 0x20));
    _mm256_storeu_ps(out + 8, _mm256_permute2f128_ps(lo, hi, 0x31));
}

/* Columns 0..31 in order from e (0, 2, .., 30) and o (1, 3, .., 31). */
AVX512_TARGET INLINE void store32(float *out, __m512 e, __m512 o)
{
    const __m512i i0 = _mm512_setr_epi32(0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
    const __m512i i1 = _mm512_setr_epi32(8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30,
                                         15, 31);
    _mm512_storeu_ps(out, _mm512_permutex2var_ps(e, i0, o));
    _mm512_storeu_ps(out + 16, _mm512_permutex2var_ps(e, i1, o));
}

/* v with every NaN lane made canonical (TPU_F32_QNAN): a quiet compare,
 * which FTZ and DAZ do not change. */
FMA_TARGET INLINE __m256 canon256(__m256 v)
{
    const __m256 qnan = _mm256_castsi256_ps(_mm256_set1_epi32((int)TPU_F32_QNAN));
    return _mm256_blendv_ps(v, qnan, _mm256_cmp_ps(v, v, _CMP_UNORD_Q));
}

AVX512_TARGET INLINE __m512 canon512(__m512 v)
{
    const __m512 qnan = _mm512_castsi512_ps(_mm512_set1_epi32((int)TPU_F32_QNAN));
    return _mm512_mask_mov_ps(v, _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q), qnan);
}

#define LOAD256(p) _mm256_loadu_si256((const __m256i *)(const void *)(p))
#define LOAD512(p) _mm512_loadu_si512((const void *)(p))

/* Column sums of one row, blocks of 64, 16 and 8 columns (8, 2 and 1
 * accumulators) for AVX2.  xf is x widened; safe[k] says whether step k
 * may be fused (NULL: every step; a constant after inlining). */
FMA_TARGET INLINE void cols64_fma(const float *xf, const uint16_t *w, size_t ldw, unsigned nk,
                                  const uint8_t *safe, float *out)
{
    __m256 e0 = _mm256_setzero_ps(), e1 = e0, e2 = e0, e3 = e0;
    __m256 o0 = e0, o1 = e0, o2 = e0, o3 = e0;
    for (unsigned k = 0; k < nk; k++) {
        const uint16_t *wr = w + (size_t)k * ldw;
        __m256 xk = _mm256_broadcast_ss(xf + k);
        __m256i v0 = LOAD256(wr), v1 = LOAD256(wr + 16), v2 = LOAD256(wr + 32),
                v3 = LOAD256(wr + 48);
        int fu = !safe || safe[k];
        e0 = mac256(e0, xk, even256(v0), fu);
        o0 = mac256(o0, xk, odd256(v0), fu);
        e1 = mac256(e1, xk, even256(v1), fu);
        o1 = mac256(o1, xk, odd256(v1), fu);
        e2 = mac256(e2, xk, even256(v2), fu);
        o2 = mac256(o2, xk, odd256(v2), fu);
        e3 = mac256(e3, xk, even256(v3), fu);
        o3 = mac256(o3, xk, odd256(v3), fu);
    }
    store16(out, e0, o0);
    store16(out + 16, e1, o1);
    store16(out + 32, e2, o2);
    store16(out + 48, e3, o3);
}

FMA_TARGET INLINE void cols16_fma(const float *xf, const uint16_t *w, size_t ldw, unsigned nk,
                                  const uint8_t *safe, float *out)
{
    __m256 e = _mm256_setzero_ps(), o = e;
    for (unsigned k = 0; k < nk; k++) {
        __m256 xk = _mm256_broadcast_ss(xf + k);
        __m256i v = LOAD256(w + (size_t)k * ldw);
        int fu = !safe || safe[k];
        e = mac256(e, xk, even256(v), fu);
        o = mac256(o, xk, odd256(v), fu);
    }
    store16(out, e, o);
}

FMA_TARGET INLINE void cols8_fma(const float *xf, const uint16_t *w, size_t ldw, unsigned nk,
                                 const uint8_t *safe, float *out)
{
    __m256 a = _mm256_setzero_ps();
    for (unsigned k = 0; k < nk; k++)
        a = mac256(a, _mm256_broadcast_ss(xf + k), AVX2_W8(w + (size_t)k * ldw),
                   !safe || safe[k]);
    _mm256_storeu_ps(out, a);
}

/* Fewer than 8 columns: multiply then add, always exact. */
FMA_TARGET INLINE void cols_plain(const float *xf, const uint16_t *w, size_t ldw, unsigned nk,
                                  unsigned c0, unsigned nc, float *out)
{
    for (unsigned c = c0; c < nc; c++) {
        float s = 0.0f;
        for (unsigned k = 0; k < nk; k++) {
            float p = xf[k] * float_of_bits((uint32_t)w[(size_t)k * ldw + c] << 16);
            s = s + p;
        }
        out[c] = s;
    }
}

FMA_TARGET INLINE void cols_tail_fma(const float *xf, const uint16_t *w, size_t ldw,
                                     unsigned nk, unsigned c, unsigned nc, const uint8_t *safe,
                                     float *out)
{
    for (; c + 16 <= nc; c += 16)
        cols16_fma(xf, w + c, ldw, nk, safe, out + c);
    for (; c + 8 <= nc; c += 8)
        cols8_fma(xf, w + c, ldw, nk, safe, out + c);
    cols_plain(xf, w, ldw, nk, c, nc, out);
}

/* out[c] = the column sums (from +0) of xf[k] * w[k*ldw + c] over k < nk,
 * c < nc, fused where safe allows. */
FMA_TARGET __attribute__((noinline))
static void row_fma_avx2(const float *xf, const uint16_t *w, size_t ldw, unsigned nk,
                         unsigned nc, const uint8_t *safe, float *out)
{
    unsigned c = 0;
    if (!safe) {
        for (; c + 64 <= nc; c += 64)
            cols64_fma(xf, w + c, ldw, nk, NULL, out + c);
        cols_tail_fma(xf, w, ldw, nk, c, nc, NULL, out);
    } else {
        for (; c + 64 <= nc; c += 64)
            cols64_fma(xf, w + c, ldw, nk, safe, out + c);
        cols_tail_fma(xf, w, ldw, nk, c, nc, safe, out);
    }
}

/* The same for AVX-512: blocks of 128 columns (8 accumulators, enough to
 * keep both FMA ports busy through the 4-cycle latency) and 32. */
AVX512_TARGET INLINE void cols128_512(const float *xf, const uint16_t *w, size_t ldw,
                                      unsigned nk, const uint8_t *safe, float *out)
{
    __m512 e0 = _mm512_setzero_ps(), e1 = e0, e2 = e0, e3 = e0;
    __m512 o0 = e0, o1 = e0, o2 = e0, o3 = e0;
    for (unsigned k = 0; k < nk; k++) {
        const uint16_t *wr = w + (size_t)k * ldw;
        __m512 xk = _mm512_set1_ps(xf[k]);
        __m512i v0 = LOAD512(wr), v1 = LOAD512(wr + 32), v2 = LOAD512(wr + 64),
                v3 = LOAD512(wr + 96);
        int fu = !safe || safe[k];
        e0 = mac512(e0, xk, even512(v0), fu);
        o0 = mac512(o0, xk, odd512(v0), fu);
        e1 = mac512(e1, xk, even512(v1), fu);
        o1 = mac512(o1, xk, odd512(v1), fu);
        e2 = mac512(e2, xk, even512(v2), fu);
        o2 = mac512(o2, xk, odd512(v2), fu);
        e3 = mac512(e3, xk, even512(v3), fu);
        o3 = mac512(o3, xk, odd512(v3), fu);
    }
    store32(out, e0, o0);
    store32(out + 32, e1, o1);
    store32(out + 64, e2, o2);
    store32(out + 96, e3, o3);
}

AVX512_TARGET INLINE void cols32_512(const float *xf, const uint16_t *w, size_t ldw,
                                     unsigned nk, const uint8_t *safe, float *out)
{
    __m512 e = _mm512_setzero_ps(), o = e;
    for (unsigned k = 0; k < nk; k++) {
        __m512 xk = _mm512_set1_ps(xf[k]);
        __m512i v = LOAD512(w + (size_t)k * ldw);
        int fu = !safe || safe[k];
        e = mac512(e, xk, even512(v), fu);
        o = mac512(o, xk, odd512(v), fu);
    }
    store32(out, e, o);
}

AVX512_TARGET __attribute__((noinline))
static void row_fma_avx512(const float *xf, const uint16_t *w, size_t ldw, unsigned nk,
                           unsigned nc, const uint8_t *safe, float *out)
{
    unsigned c = 0;
    if (!safe) {
        for (; c + 128 <= nc; c += 128)
            cols128_512(xf, w + c, ldw, nk, NULL, out + c);
        for (; c + 32 <= nc; c += 32)
            cols32_512(xf, w + c, ldw, nk, NULL, out + c);
        cols_tail_fma(xf, w, ldw, nk, c, nc, NULL, out);
    } else {
        for (; c + 128 <= nc; c += 128)
            cols128_512(xf, w + c, ldw, nk, safe, out + c);
        for (; c + 32 <= nc; c += 32)
            cols32_512(xf, w + c, ldw, nk, safe, out + c);
        cols_tail_fma(xf, w, ldw, nk, c, nc, safe, out);
    }
}

/* y[c] = the bits of acc[c], every NaN canonical. */
AVX2_TARGET __attribute__((noinline))
static void store_canonical(const float *acc, uint32_t *y, unsigned n)
{
    const __m256 qnan = _mm256_castsi256_ps(_mm256_set1_epi32((int)TPU_F32_QNAN));
    unsigned c = 0;
    for (; c + 8 <= n; c += 8) {
        __m256 v = _mm256_loadu_ps(acc + c);
        v = _mm256_blendv_ps(v, qnan, _mm256_cmp_ps(v, v, _CMP_UNORD_Q));
        _mm256_storeu_ps((float *)(void *)(y + c), v);
    }
    for (; c < n; c++)
        y[c] = canonical(bits_of_float(acc[c]));
}

/* ---- the matmul's register blocks ---------------------------------------------- */

/* A block of MM_ROWS rows of X by 64 (AVX-512) or 16 (AVX2) columns of W,
 * the sums in registers over a whole K-tile: per step, each row's x is
 * broadcast and multiplied with the same weight vectors.  xs: the rows'
 * widened x, row stride ldx; wf: the widened weights, row stride ldw,
 * padded with zeros to the block width.  The rows' sums go to y (row
 * stride ldy, the first ncols columns): y = s for the first K-tile
 * (accumulate 0), y = y + s (tpu_f32_add) after it. */
#define MM_ROWS 6

typedef void (*mm_block_fn)(const float *xs, size_t ldx, const float *wf, size_t ldw,
                            unsigned nk, unsigned rows, const uint8_t *safe, uint32_t *y,
                            size_t ldy, unsigned ncols, int accumulate);

AVX512_TARGET INLINE void mm_rows_512(const float *xs, size_t ldx, const float *wf, size_t ldw,
                                      unsigned nk, const unsigned rows, const uint8_t *safe,
                                      uint32_t *y, size_t ldy, unsigned ncols, int accumulate)
{
    __m512 a[MM_ROWS][4];
#pragma GCC unroll 6
    for (unsigned i = 0; i < rows; i++)
        a[i][0] = a[i][1] = a[i][2] = a[i][3] = _mm512_setzero_ps();
    for (unsigned k = 0; k < nk; k++) {
        const float *wr = wf + (size_t)k * ldw;
        __m512 w0 = _mm512_loadu_ps(wr), w1 = _mm512_loadu_ps(wr + 16),
               w2 = _mm512_loadu_ps(wr + 32), w3 = _mm512_loadu_ps(wr + 48);
        int fu = !safe || safe[k];
#pragma GCC unroll 6
        for (unsigned i = 0; i < rows; i++) {
            __m512 xb = _mm512_set1_ps(xs[i * ldx + k]);
            a[i][0] = mac512(a[i][0], xb, w0, fu);
            a[i][1] = mac512(a[i][1], xb, w1, fu);
            a[i][2] = mac512(a[i][2], xb, w2, fu);
            a[i][3] = mac512(a[i][3], xb, w3, fu);
        }
    }
#pragma GCC unroll 6
    for (unsigned i = 0; i < rows; i++)
#pragma GCC unroll 4
        for (unsigned j = 0; j < 4; j++) {
            int left = (int)ncols - 16 * (int)j;
            if (left <= 0)
                break;
            __mmask16 m = left >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << left) - 1);
            void *p = y + i * ldy + 16 * j;
            __m512 v = a[i][j];
            if (accumulate)
                v = _mm512_add_ps(_mm512_maskz_loadu_ps(m, p), v);
            _mm512_mask_storeu_ps(p, m, v);
        }
}

FMA_TARGET INLINE void mm_rows_256(const float *xs, size_t ldx, const float *wf, size_t ldw,
                                   unsigned nk, const unsigned rows, const uint8_t *safe,
                                   uint32_t *y, size_t ldy, unsigned ncols, int accumulate)
{
    __m256 a[MM_ROWS][2];
#pragma GCC unroll 6
    for (unsigned i = 0; i < rows; i++)
        a[i][0] = a[i][1] = _mm256_setzero_ps();
    for (unsigned k = 0; k < nk; k++) {
        const float *wr = wf + (size_t)k * ldw;
        __m256 w0 = _mm256_loadu_ps(wr), w1 = _mm256_loadu_ps(wr + 8);
        int fu = !safe || safe[k];
#pragma GCC unroll 6
        for (unsigned i = 0; i < rows; i++) {
            __m256 xb = _mm256_broadcast_ss(xs + i * ldx + k);
            a[i][0] = mac256(a[i][0], xb, w0, fu);
            a[i][1] = mac256(a[i][1], xb, w1, fu);
        }
    }
    const __m256i iota = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
#pragma GCC unroll 6
    for (unsigned i = 0; i < rows; i++)
#pragma GCC unroll 2
        for (unsigned j = 0; j < 2; j++) {
            int left = (int)ncols - 8 * (int)j;
            if (left <= 0)
                break;
            __m256i m = _mm256_cmpgt_epi32(_mm256_set1_epi32(left), iota);
            float *p = (float *)(void *)(y + i * ldy + 8 * j);
            __m256 v = a[i][j];
            if (accumulate)
                v = _mm256_add_ps(_mm256_maskload_ps(p, m), v);
            _mm256_maskstore_ps(p, m, v);
        }
}

/* The MXU model's rows in blocks: MM_ROWS rows of x by 64 (AVX-512) or 16
 * (AVX2) columns of a bf16 tile, widened as they are loaded, each widened
 * weight vector serving every row of the block.  y: the sums' bits, NaNs
 * canonical, row stride ldy. */
AVX512_TARGET INLINE void tile_rows_512(const float *xs, size_t ldx, const uint16_t *w,
                                        size_t ldw, unsigned nk, const unsigned rows,
                                        const uint8_t *safe, uint32_t *y, size_t ldy)
{
    __m512 a[MM_ROWS][4];
#pragma GCC unroll 6
    for (unsigned i = 0; i < rows; i++)
        a[i][0] = a[i][1] = a[i][2] = a[i][3] = _mm512_setzero_ps();
    for (unsigned k = 0; k < nk; k++) {
        const uint16_t *wr = w + (size_t)k * ldw;
        __m512i v0 = LOAD512(wr), v1 = LOAD512(wr + 32);
        __m512 w0 = even512(v0), w1 = odd512(v0), w2 = even512(v1), w3 = odd512(v1);
        int fu = !safe || safe[k];
#pragma GCC unroll 6
        for (unsigned i = 0; i < rows; i++) {
            __m512 xb = _mm512_set1_ps(xs[i * ldx + k]);
            a[i][0] = mac512(a[i][0], xb, w0, fu);
            a[i][1] = mac512(a[i][1], xb, w1, fu);
            a[i][2] = mac512(a[i][2], xb, w2, fu);
            a[i][3] = mac512(a[i][3], xb, w3, fu);
        }
    }
#pragma GCC unroll 6
    for (unsigned i = 0; i < rows; i++) {
        float *out = (float *)(void *)(y + i * ldy);
        store32(out, canon512(a[i][0]), canon512(a[i][1]));
        store32(out + 32, canon512(a[i][2]), canon512(a[i][3]));
    }
}

FMA_TARGET INLINE void tile_rows_256(const float *xs, size_t ldx, const uint16_t *w,
                                     size_t ldw, unsigned nk, const unsigned rows,
                                     const uint8_t *safe, uint32_t *y, size_t ldy)
{
    __m256 a[MM_ROWS][2];
#pragma GCC unroll 6
    for (unsigned i = 0; i < rows; i++)
        a[i][0] = a[i][1] = _mm256_setzero_ps();
    for (unsigned k = 0; k < nk; k++) {
        __m256i v = LOAD256(w + (size_t)k * ldw);
        __m256 w0 = even256(v), w1 = odd256(v);
        int fu = !safe || safe[k];
#pragma GCC unroll 6
        for (unsigned i = 0; i < rows; i++) {
            __m256 xb = _mm256_broadcast_ss(xs + i * ldx + k);
            a[i][0] = mac256(a[i][0], xb, w0, fu);
            a[i][1] = mac256(a[i][1], xb, w1, fu);
        }
    }
#pragma GCC unroll 6
    for (unsigned i = 0; i < rows; i++)
        store16((float *)(void *)(y + i * ldy), canon256(a[i][0]), canon256(a[i][1]));
}

/* The dispatch on rows (1..MM_ROWS) and on safe (NULL or not), so every
 * variant has constant loop bounds and no per-step test when all fuse. */
#define MM_SWITCH(body)                                                                  \
    do {                                                                                 \
        switch (rows) {                                                                  \
        case 1: body(1); break;                                                          \
        case 2: body(2); break;                                                          \
        case 3: body(3); break;                                                          \
        case 4: body(4); break;                                                          \
        case 5: body(5); break;                                                          \
        default: body(MM_ROWS); break;                                                   \
        }                                                                                \
    } while (0)

#define MM_CALL_512(R)                                                                   \
    (safe ? mm_rows_512(xs, ldx, wf, ldw, nk, R, safe, y, ldy, ncols, accumulate)        \
          : mm_rows_512(xs, ldx, wf, ldw, nk, R, NULL, y, ldy, ncols, accumulate))
#define MM_CALL_256(R)                                                                   \
    (safe ? mm_rows_256(xs, ldx, wf, ldw, nk, R, safe, y, ldy, ncols, accumulate)        \
          : mm_rows_256(xs, ldx, wf, ldw, nk, R, NULL, y, ldy, ncols, accumulate))

AVX512_TARGET __attribute__((noinline))
static void mm_block_avx512(const float *xs, size_t ldx, const float *wf, size_t ldw,
                            unsigned nk, unsigned rows, const uint8_t *safe, uint32_t *y,
                            size_t ldy, unsigned ncols, int accumulate)
{
    MM_SWITCH(MM_CALL_512);
}

FMA_TARGET __attribute__((noinline))
static void mm_block_avx2(const float *xs, size_t ldx, const float *wf, size_t ldw,
                          unsigned nk, unsigned rows, const uint8_t *safe, uint32_t *y,
                          size_t ldy, unsigned ncols, int accumulate)
{
    MM_SWITCH(MM_CALL_256);
}

#define TR_CALL_512(R)                                                                   \
    (safe ? tile_rows_512(xs, ldx, w + c, ldw, nk, R, safe, y + c, ldy)                  \
          : tile_rows_512(xs, ldx, w + c, ldw, nk, R, NULL, y + c, ldy))
#define TR_CALL_256(R)                                                                   \
    (safe ? tile_rows_256(xs, ldx, w + c, ldw, nk, R, safe, y + c, ldy)                  \
          : tile_rows_256(xs, ldx, w + c, ldw, nk, R, NULL, y + c, ldy))

typedef void (*row_fma_fn)(const float *xf, const uint16_t *w, size_t ldw, unsigned nk,
                           unsigned nc, const uint8_t *safe, float *out);

/* Columns c .. nc - 1 of the rows, which the register blocks left, row by
 * row through the row kernel; their bits into y (row stride ldy), NaNs
 * canonical. */
static void rows_rest(row_fma_fn row, const float *xs, size_t ldx, const uint16_t *w,
                      size_t ldw, unsigned nk, unsigned c, unsigned nc, unsigned rows,
                      const uint8_t *safe, uint32_t *y, size_t ldy)
{
    float acc[TPU_REF_MAX_N];
    for (unsigned i = 0; i < rows; i++) {
        row(xs + i * ldx, w + c, ldw, nk, nc - c, safe, acc);
        store_canonical(acc, y + i * ldy + c, nc - c);
    }
}

/* rows (<= MM_ROWS) rows' column sums over nc columns, their bits into y
 * (row stride ldy), NaNs canonical: whole blocks of columns together, the
 * rest row by row.  A block of fewer rows than its kernel needs to cover
 * the FMA latency (8 chains: one row's 4 or 2 accumulators are not enough)
 * goes row by row, 8 accumulators each. */
AVX512_TARGET __attribute__((noinline))
static void tile_block_avx512(const float *xs, size_t ldx, const uint16_t *w, size_t ldw,
                              unsigned nk, unsigned nc, unsigned rows, const uint8_t *safe,
                              uint32_t *y, size_t ldy)
{
    unsigned c = 0;
    if (rows >= 2)                           /* else all columns to the row kernel */
        for (; c + 64 <= nc; c += 64)
            MM_SWITCH(TR_CALL_512);
    if (c < nc)
        rows_rest(row_fma_avx512, xs, ldx, w, ldw, nk, c, nc, rows, safe, y, ldy);
}

FMA_TARGET __attribute__((noinline))
static void tile_block_avx2(const float *xs, size_t ldx, const uint16_t *w, size_t ldw,
                            unsigned nk, unsigned nc, unsigned rows, const uint8_t *safe,
                            uint32_t *y, size_t ldy)
{
    unsigned c = 0;
    if (rows >= 4)                           /* else all columns to the row kernel */
        for (; c + 16 <= nc; c += 16)
            MM_SWITCH(TR_CALL_256);
    if (c < nc)
        rows_rest(row_fma_avx2, xs, ldx, w, ldw, nk, c, nc, rows, safe, y, ldy);
}

typedef void (*tile_block_fn)(const float *xs, size_t ldx, const uint16_t *w, size_t ldw,
                              unsigned nk, unsigned nc, unsigned rows, const uint8_t *safe,
                              uint32_t *y, size_t ldy);

/* A fused kernel: its row sums and its matmul block (bw columns wide). */
typedef struct fused_isa {
    tile_block_fn rows;
    mm_block_fn block;
    unsigned bw;
} fused_isa;

static const fused_isa isa_avx2_fma = { tile_block_avx2, mm_block_avx2, 16 };
static const fused_isa isa_avx512_fma = { tile_block_avx512, mm_block_avx512, 64 };

/* Rows of x through a tile with the fused kernel, MM_ROWS at a time: per
 * block the rows' x are widened, and when one of them has a normal value
 * outside the tile's window each step k is checked for every row. */
static void rows_fused(const fused_isa *isa, const uint16_t *x, size_t ldx, unsigned rows,
                       const uint16_t *w, const tpu_ref_tile *t, unsigned n, uint32_t *y,
                       size_t ldy)
{
    tpu_ref_tile scanned;
    if (!t || t->n != n) {
        tpu_ref_tile_scan(w, n, &scanned);
        t = &scanned;
    }
    float xs[MM_ROWS * TPU_REF_MAX_N];
    uint8_t flags[TPU_REF_MAX_N];
    unsigned old = mxcsr_enter();
    for (unsigned r0 = 0; r0 < rows; r0 += MM_ROWS) {
        unsigned nr = rows - r0 < MM_ROWS ? rows - r0 : MM_ROWS;
        unsigned lo, hi;
        widen_rows_range_avx2(x + r0 * ldx, ldx, nr, n, xs, &lo, &hi);
        const uint8_t *safe = NULL;
        if (lo <= hi && (lo < t->xlo || hi > t->xhi)) {   /* a normal x outside the window */
            for (unsigned k = 0; k < n; k++) {
                int ok = 1;
                for (unsigned i = 0; i < nr && ok; i++)
                    ok = x_safe(x[(r0 + i) * ldx + k], t->row_xlo[k], t->row_xhi[k]);
                flags[k] = (uint8_t)ok;
            }
            safe = flags;
        }
        isa->rows(xs, n, w, n, n, n, nr, safe, y + r0 * ldy, ldy);
    }
    mxcsr_restore(old);
}

/* The matmul with the fused kernel, for tile <= TPU_REF_MAX_N.  Rows go in
 * panels whose x, widened once with each K-tile's exponent range, fit in
 * about MM_XS_BYTES; columns in chunks of MM_CHUNK.  Per K-tile of a chunk
 * the weights are widened once (with their windows) into wf, then blocks
 * of bw columns and MM_ROWS rows sweep them, each block's weights staying
 * in the L1 cache while the rows go through, and each row block's sums in
 * registers for the whole K-tile. */
#define MM_CHUNK 256
#define MM_XS_BYTES (16u << 20)

/* The host cache: the weights scan_windows widens next, asked for a few
 * 64-byte lines at a time while the register blocks of the current K-tile
 * run.  Their rows lie kilobytes apart, where the host's own prefetcher
 * does not follow, and the widening would otherwise wait for memory row by
 * row.  (Nothing changes but when the bytes reach the cache.) */
typedef struct w_ahead {
    const uint16_t *w;          /* row 0 of the block */
    size_t ldw, nbytes, off;    /* row stride (elements), bytes per row, next line */
    unsigned nk, k;             /* rows, next row */
} w_ahead;

/* The block of W[d][f] after the one at K-tile row k0, column c0: the next
 * K-tile of the chunk, else the first of the next chunk (none at the end). */
static void ahead_start(w_ahead *a, const uint16_t *w, uint64_t d, uint64_t f, unsigned tile,
                        uint64_t k0, uint64_t c0)
{
    uint64_t nk0 = k0 + tile < d ? k0 + tile : 0;
    uint64_t nc0 = k0 + tile < d ? c0 : c0 + MM_CHUNK;
    *a = (w_ahead){ .ldw = (size_t)f };
    if (nc0 >= f)
        return;
    a->w = w + nk0 * f + nc0;
    a->nk = (unsigned)(d - nk0 < tile ? d - nk0 : tile);
    a->nbytes = (size_t)(f - nc0 < MM_CHUNK ? f - nc0 : MM_CHUNK) * sizeof *w;
}

static void ahead_step(w_ahead *a, unsigned lines)
{
    for (; lines && a->k < a->nk; lines--) {
        __builtin_prefetch((const uint8_t *)(a->w + (size_t)a->k * a->ldw) + a->off);
        a->off += 64;
        if (a->off >= a->nbytes) {
            a->off = 0;
            a->k++;
        }
    }
}

static int matmul_fused(const fused_isa *isa, const uint16_t *x, const uint16_t *w, uint32_t *y,
                        uint64_t b, uint64_t d, uint64_t f, unsigned tile)
{
    uint64_t ntiles = (d + tile - 1) / tile;
    uint64_t panel = MM_XS_BYTES / (d * sizeof(float));
    if (panel < MM_ROWS)
        panel = MM_ROWS;
    if (panel > b)
        panel = b;
    if (panel == 0 || d > SIZE_MAX / sizeof(float) / panel || ntiles > SIZE_MAX / 2 / panel)
        return -1;
    float *wf = malloc((size_t)TPU_REF_MAX_N * MM_CHUNK * sizeof *wf);
    float *xs = malloc((size_t)(panel * d) * sizeof *xs);
    tpu_hostmem_huge(xs, (size_t)(panel * d) * sizeof *xs);   /* up to MM_XS_BYTES */
    uint8_t *xr = malloc((size_t)(panel * ntiles) * 2);   /* lo, hi per row and K-tile */
    if (!wf || !xs || !xr) {
        free(wf);
        free(xs);
        free(xr);
        return -1;
    }
    uint8_t wlo[TPU_REF_MAX_N], whi[TPU_REF_MAX_N], flags[TPU_REF_MAX_N];
    unsigned bw = isa->bw;
    unsigned old = mxcsr_enter();
    for (uint64_t p0 = 0; p0 < b; p0 += panel) {
        unsigned np = (unsigned)(b - p0 < panel ? b - p0 : panel);
        for (unsigned r = 0; r < np; r++)
            for (uint64_t kt = 0; kt < ntiles; kt++) {
                uint64_t k0 = kt * tile;
                unsigned nk = (unsigned)(d - k0 < tile ? d - k0 : tile), lo, hi;
                widen_range_avx2(x + (p0 + r) * d + k0, nk, xs + r * d + k0, &lo, &hi);
                xr[2 * (r * ntiles + kt)] = (uint8_t)lo;
                xr[2 * (r * ntiles + kt) + 1] = (uint8_t)hi;
            }
        for (uint64_t c0 = 0; c0 < f; c0 += MM_CHUNK) {
            unsigned nc = (unsigned)(f - c0 < MM_CHUNK ? f - c0 : MM_CHUNK);
            unsigned ncp = (nc + bw - 1) / bw * bw;
            for (uint64_t kt = 0; kt < ntiles; kt++) {
                uint64_t k0 = kt * tile;
                unsigned nk = (unsigned)(d - k0 < tile ? d - k0 : tile);
                uint8_t all_lo, all_hi;
                scan_windows(w + k0 * f + c0, (size_t)f, nk, nc, wlo, whi, &all_lo, &all_hi,
                             wf, MM_CHUNK);
                w_ahead ahead;
                ahead_start(&ahead, w, d, f, tile, k0, c0);
                if (ncp > nc)
                    for (unsigned k = 0; k < nk; k++)
                        memset(wf + (size_t)k * MM_CHUNK + nc, 0, (ncp - nc) * sizeof *wf);
                for (unsigned j0 = 0; j0 < nc; j0 += bw)
                    for (unsigned r0 = 0; r0 < np; r0 += MM_ROWS) {
                        unsigned rows = np - r0 < MM_ROWS ? np - r0 : MM_ROWS;
                        unsigned lo = 255, hi = 0;
                        for (unsigned i = 0; i < rows; i++) {
                            const uint8_t *e = xr + 2 * ((r0 + i) * ntiles + kt);
                            lo = e[0] < lo ? e[0] : lo;
                            hi = e[1] > hi ? e[1] : hi;
                        }
                        const uint8_t *safe = NULL;
                        if (lo <= hi && (lo < all_lo || hi > all_hi)) {
                            for (unsigned k = 0; k < nk; k++) {
                                int ok = 1;
                                for (unsigned i = 0; i < rows && ok; i++)
                                    ok = x_safe(x[(p0 + r0 + i) * d + k0 + k], wlo[k], whi[k]);
                                flags[k] = (uint8_t)ok;
                            }
                            safe = flags;
                        }
                        ahead_step(&ahead, 4);
                        isa->block(xs + (size_t)r0 * d + k0, (size_t)d, wf + j0, MM_CHUNK, nk,
                                   rows, safe, y + (p0 + r0) * f + c0 + j0, (size_t)f,
                                   nc - j0 < bw ? nc - j0 : bw, kt > 0);
                    }
            }
        }
    }
    mxcsr_restore(old);
    for (uint64_t i = 0; i < b * f; i++)
        y[i] = canonical(y[i]);
    free(wf);
    free(xs);
    free(xr);
    return 0;
}

#endif /* REF_HAVE_AVX */

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

#if REF_HAVE_AVX
/* The same with AVX-512F and no MXCSR switch (the MXU model's mxu.mma
 * calls it once a row): round to nearest with the instruction's embedded
 * rounding and exceptions suppressed; DAZ by hand on the inputs (exponent
 * field 0 -> the signed zero); FTZ by hand on the result, which is exact
 * because a sum of two zero-or-normal fp32 values below 2^-126 is an exact
 * subnormal (rounding cannot carry it to 2^-126), flushed here to the
 * signed zero of the exact sum; NaNs canonical.  The caller's MXCSR
 * (whatever its FTZ, DAZ and rounding) changes none of these steps (the
 * NaN test is a quiet compare, which no MXCSR bit changes either). */
AVX512_TARGET INLINE __m512i add16_avx512(__m512i va, __m512i vb, __mmask16 m)
{
    const __m512i expo = _mm512_set1_epi32(0x7f800000), sign = _mm512_set1_epi32(INT32_MIN);
    const __m512i qnan = _mm512_set1_epi32(0x7fc00000);
    /* Most sums need none of the fixes: only an input or a result with
     * exponent field 0 (zero or subnormal) or a NaN result takes them, in
     * the lanes m in use. */
    __mmask16 a0 = _mm512_mask_testn_epi32_mask(m, va, expo);
    __mmask16 b0 = _mm512_mask_testn_epi32_mask(m, vb, expo);
    if (a0 | b0) {
        va = _mm512_mask_and_epi32(va, a0, va, sign);
        vb = _mm512_mask_and_epi32(vb, b0, vb, sign);
    }
    __m512 f = _mm512_add_round_ps(_mm512_castsi512_ps(va), _mm512_castsi512_ps(vb),
                                   _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m512i r = _mm512_castps_si512(f);
    __mmask16 nan = _mm512_mask_cmp_ps_mask(m, f, f, _CMP_UNORD_Q);
    __mmask16 out0 = _mm512_mask_testn_epi32_mask(m, r, expo);
    if (out0 | nan) {
        r = _mm512_mask_and_epi32(r, out0, r, sign);
        r = _mm512_mask_mov_epi32(r, nan, qnan);
    }
    return r;
}

AVX512_TARGET __attribute__((noinline))
static void add_avx512(const uint32_t *a, const uint32_t *b, uint32_t *z, size_t n,
                       uint32_t flip)
{
    const __m512i fl = _mm512_set1_epi32((int)flip);
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m512i va = _mm512_loadu_si512((const void *)(a + i));
        __m512i vb = _mm512_xor_si512(_mm512_loadu_si512((const void *)(b + i)), fl);
        _mm512_storeu_si512((void *)(z + i), add16_avx512(va, vb, 0xffff));
    }
    if (i < n) {
        __mmask16 m = (__mmask16)((1u << (n - i)) - 1);
        __m512i va = _mm512_maskz_loadu_epi32(m, a + i);
        __m512i vb = _mm512_xor_si512(_mm512_maskz_loadu_epi32(m, b + i), fl);
        _mm512_mask_storeu_epi32(z + i, m, add16_avx512(va, vb, m));
    }
}
#endif

static void host_add(const uint32_t *a, const uint32_t *b, uint32_t *z, size_t n, uint32_t flip)
{
#if REF_HAVE_AVX
    if (tpu_ref_kernel_current() == TPU_REF_KERNEL_AVX512_FMA) {
        add_avx512(a, b, z, n, flip);
        return;
    }
#endif
    unsigned old = mxcsr_enter();
    add_kernel(a, b, z, n, flip);
    mxcsr_restore(old);
    for (size_t i = 0; i < n; i++)
        z[i] = canonical(z[i]);
}

#endif /* REF_HOST_FLOAT */

/* ---- the entry points ------------------------------------------------------------ */

void tpu_ref_rows_tile(const uint16_t *x, size_t ldx, unsigned rows, const uint16_t *w,
                       const tpu_ref_tile *t, unsigned n, uint32_t *y, size_t ldy)
{
    enum tpu_ref_kernel k = tpu_ref_kernel_current();
#if REF_HAVE_AVX
    if (k == TPU_REF_KERNEL_AVX512_FMA && n <= TPU_REF_MAX_N) {
        rows_fused(&isa_avx512_fma, x, ldx, rows, w, t, n, y, ldy);
        return;
    }
    if (k == TPU_REF_KERNEL_AVX2_FMA && n <= TPU_REF_MAX_N) {
        rows_fused(&isa_avx2_fma, x, ldx, rows, w, t, n, y, ldy);
        return;
    }
#endif
    (void)t;
    for (unsigned i = 0; i < rows; i++) {
#if REF_HOST_FLOAT
        if (k != TPU_REF_KERNEL_SOFT) {
            row_muladd(muladd_kernel(k), x + i * ldx, w, n, y + i * ldy);
            continue;
        }
#endif
        soft_row(x + i * ldx, w, n, y + i * ldy);
    }
}

void tpu_ref_row_tile(const uint16_t *x, const uint16_t *w, const tpu_ref_tile *t, unsigned n,
                      uint32_t *y)
{
    tpu_ref_rows_tile(x, n, 1, w, t, n, y, n);
}

void tpu_ref_row(const uint16_t *x, const uint16_t *w, unsigned n, uint32_t *y)
{
    tpu_ref_rows_tile(x, n, 1, w, NULL, n, y, n);
}

int tpu_ref_matmul(const uint16_t *x, const uint16_t *w, uint32_t *y,
                   uint64_t b, uint64_t d, uint64_t f, unsigned tile)
{
    if (tile == 0 || tile > d)
        tile = d > 0 && d < UINT32_MAX ? (unsigned)d : UINT32_MAX;
    enum tpu_ref_kernel k = tpu_ref_kernel_current();
#if REF_HAVE_AVX
    /* The fused kernels hold a K-tile's widened weights: tile <= 256 (mxu_n). */
    if (d > 0 && tile <= TPU_REF_MAX_N) {
        if (k == TPU_REF_KERNEL_AVX512_FMA)
            return matmul_fused(&isa_avx512_fma, x, w, y, b, d, f, tile);
        if (k == TPU_REF_KERNEL_AVX2_FMA)
            return matmul_fused(&isa_avx2_fma, x, w, y, b, d, f, tile);
    }
#endif
#if REF_HOST_FLOAT
    if (k != TPU_REF_KERNEL_SOFT) {
        matmul_muladd(muladd_kernel(k), x, w, y, b, d, f, tile);
        return 0;
    }
#endif
    soft_matmul(x, w, y, b, d, f, tile);
    return 0;
}

void tpu_ref_pointwise(enum tpu_ref_op op, const uint32_t *a, const uint32_t *b, uint32_t *z,
                       size_t n)
{
    /* add and sub are fast on x86 (the MXU model's mxu.mma accumulates
     * with them); the others are plain soft-float: a host fp32 multiply
     * would not be exact (two 24-bit significands can round up to 2^-126
     * and escape FTZ), and they are not on a hot path. */
#if REF_HOST_FLOAT
    int host = (op == TPU_REF_ADD || op == TPU_REF_SUB)
               && tpu_ref_kernel_current() != TPU_REF_KERNEL_SOFT;
    if (host) {
        host_add(a, b, z, n, op == TPU_REF_SUB ? 0x80000000u : 0);
        return;
    }
#endif
    switch (op) {
    case TPU_REF_ADD: for (size_t i = 0; i < n; i++) z[i] = tpu_f32_add(a[i], b[i]); break;
    case TPU_REF_SUB: for (size_t i = 0; i < n; i++) z[i] = tpu_f32_sub(a[i], b[i]); break;
    case TPU_REF_MUL: for (size_t i = 0; i < n; i++) z[i] = tpu_f32_mul(a[i], b[i]); break;
    case TPU_REF_MAX: for (size_t i = 0; i < n; i++) z[i] = tpu_f32_max(a[i], b[i]); break;
    case TPU_REF_MIN: for (size_t i = 0; i < n; i++) z[i] = tpu_f32_min(a[i], b[i]); break;
    case TPU_REF_RELU: for (size_t i = 0; i < n; i++) z[i] = tpu_f32_relu(a[i]); break;
    }
}

/* ---- int8 ---------------------------------------------------------------------- */

void tpu_ref_rows_i8(const uint16_t *x, size_t ldx, unsigned rows, const uint16_t *w,
                     unsigned n, uint32_t *y, size_t ldy)
{
    int32_t acc[TPU_REF_MAX_N];
    for (unsigned r = 0; r < rows; r++) {
        const uint16_t *xr = x + r * ldx;
        for (unsigned c = 0; c < n; c++)
            acc[c] = 0;
        for (unsigned k = 0; k < n; k++) {
            int32_t a0 = (int8_t)(uint8_t)(xr[k] & 0xff), a1 = (int8_t)(uint8_t)(xr[k] >> 8);
            if (!a0 && !a1)
                continue;
            const uint16_t *wk = w + (size_t)k * n;
            for (unsigned c = 0; c < n; c++)
                acc[c] += a0 * (int8_t)(uint8_t)(wk[c] & 0xff) + a1 * (int8_t)(uint8_t)(wk[c] >> 8);
        }
        for (unsigned c = 0; c < n; c++)
            y[r * ldy + c] = (uint32_t)acc[c];
    }
}

int tpu_ref_matmul_i8(const uint8_t *x, const uint8_t *w, uint32_t *y,
                      uint64_t b, uint64_t d, uint64_t f)
{
    if (d % 2)
        return -1;
    for (uint64_t i = 0; i < b; i++) {
        uint32_t *yr = y + i * f;
        for (uint64_t c = 0; c < f; c++)
            yr[c] = 0;
        for (uint64_t k = 0; k < d; k++) {
            uint32_t a = (uint32_t)(int32_t)(int8_t)x[i * d + k];
            const uint8_t *wk = w + (k / 2) * 2 * f + k % 2;
            for (uint64_t c = 0; c < f; c++)
                yr[c] += a * (uint32_t)(int32_t)(int8_t)wk[2 * c];   /* mod 2^32 */
        }
    }
    return 0;
}

/* ---- layers: GEMM epilogue, conv2d, pooling -------------------------------------- */

void tpu_ref_epilogue(uint32_t *y, uint64_t rows, uint64_t f, const uint32_t *bias,
                      unsigned flags)
{
    for (uint64_t i = 0; i < rows; i++) {
        uint32_t *yr = y + i * f;
        if ((flags & TPU_REF_EPI_BIAS) && bias)
            for (uint64_t c = 0; c < f; c++)
                yr[c] = tpu_f32_add(yr[c], bias[c]);
        if (flags & TPU_REF_EPI_RELU)
            for (uint64_t c = 0; c < f; c++)
                yr[c] = tpu_f32_relu(yr[c]);
    }
}

int tpu_ref_conv_shape(tpu_ref_conv *c, char *why, size_t whylen)
{
    const uint64_t lim = 1ull << 31;
    if (!c->nb || !c->h || !c->w || !c->c || !c->f || !c->r || !c->s || !c->stride
        || !c->groups) {
        snprintf(why, whylen, "NB, H, W, C, F, R, S, STRIDE and GROUPS must be positive");
        return -1;
    }
    if (c->nb > lim || c->h > lim || c->w > lim || c->c > lim || c->f > lim || c->r > lim
        || c->s > lim || c->stride > lim || c->pad > lim || c->groups > lim) {
        snprintf(why, whylen, "a size is larger than 2^31");
        return -1;
    }
    if (c->c % c->groups || c->f % c->groups) {
        snprintf(why, whylen, "GROUPS %llu must divide C %llu and F %llu",
                 (unsigned long long)c->groups, (unsigned long long)c->c,
                 (unsigned long long)c->f);
        return -1;
    }
    if (c->h + 2 * c->pad < c->r || c->w + 2 * c->pad < c->s) {
        snprintf(why, whylen, "the %llux%llu window does not fit the padded %llux%llu input",
                 (unsigned long long)c->r, (unsigned long long)c->s,
                 (unsigned long long)(c->h + 2 * c->pad), (unsigned long long)(c->w + 2 * c->pad));
        return -1;
    }
    if (c->pad >= c->r || c->pad >= c->s) {
        snprintf(why, whylen, "PAD %llu must be smaller than the window %llux%llu",
                 (unsigned long long)c->pad, (unsigned long long)c->r, (unsigned long long)c->s);
        return -1;
    }
    c->oh = (c->h + 2 * c->pad - c->r) / c->stride + 1;
    c->ow = (c->w + 2 * c->pad - c->s) / c->stride + 1;
    return 0;
}

/* The input pixel of output pixel p's tap (r, s), or -1 outside the input. */
static int64_t conv_src(const tpu_ref_conv *c, uint64_t p, uint64_t r, uint64_t s)
{
    uint64_t ow = p % c->ow, q = p / c->ow, oh = q % c->oh, n = q / c->oh;
    int64_t ih = (int64_t)(oh * c->stride + r) - (int64_t)c->pad;
    int64_t iw = (int64_t)(ow * c->stride + s) - (int64_t)c->pad;
    if (ih < 0 || iw < 0 || ih >= (int64_t)c->h || iw >= (int64_t)c->w)
        return -1;
    return (int64_t)((n * c->h + (uint64_t)ih) * c->w + (uint64_t)iw);
}

int tpu_ref_conv2d(const tpu_ref_conv *c, const uint16_t *x, const uint16_t *w,
                   const uint32_t *bias, unsigned flags, uint64_t p0, uint64_t np,
                   uint32_t *y, unsigned tile)
{
    uint64_t cg = c->c / c->groups, fg = c->f / c->groups, taps = c->r * c->s;
    if (flags & TPU_REF_EPI_VPU) {
        /* depthwise on the VPU: one channel per group, products and sums in fp32 */
        for (uint64_t i = 0; i < np; i++)
            for (uint64_t ch = 0; ch < c->f; ch++) {
                uint64_t g = ch / fg, ci = g * cg;
                uint32_t acc = 0;
                for (uint64_t t = 0; t < taps; t++) {
                    int64_t src = conv_src(c, p0 + i, t / c->s, t % c->s);
                    uint32_t xv = src < 0 ? 0 : tpu_f32_from_bf16(x[(uint64_t)src * c->c + ci]);
                    uint32_t wv = tpu_f32_from_bf16(w[t * cg * c->f + ch]);
                    uint32_t prod = tpu_f32_mul(xv, wv);
                    acc = t == 0 ? prod : tpu_f32_add(acc, prod);
                }
                y[i * c->f + ch] = acc;
            }
    } else {
        uint64_t kg = taps * cg;
        uint16_t *a = malloc((size_t)(np * kg * 2 + 2));
        uint16_t *wg = malloc((size_t)(kg * fg * 2 + 2));
        uint32_t *yg = malloc((size_t)(np * fg * 4 + 4));
        if (!a || !wg || !yg) {
            free(a); free(wg); free(yg);
            return -1;
        }
        for (uint64_t g = 0; g < c->groups; g++) {
            for (uint64_t k = 0; k < kg; k++)          /* HWIO: [t][ci][g*fg + fo] */
                memcpy(wg + k * fg, w + k * c->f + g * fg, (size_t)fg * 2);
            for (uint64_t i = 0; i < np; i++)
                for (uint64_t t = 0; t < taps; t++) {
                    int64_t src = conv_src(c, p0 + i, t / c->s, t % c->s);
                    uint16_t *dst = a + i * kg + t * cg;
                    if (src < 0)
                        memset(dst, 0, (size_t)cg * 2);
                    else
                        memcpy(dst, x + (uint64_t)src * c->c + g * cg, (size_t)cg * 2);
                }
            if (tpu_ref_matmul(a, wg, yg, np, kg, fg, tile) < 0) {
                free(a); free(wg); free(yg);
                return -1;
            }
            for (uint64_t i = 0; i < np; i++)
                memcpy(y + i * c->f + g * fg, yg + i * fg, (size_t)fg * 4);
        }
        free(a); free(wg); free(yg);
    }
    tpu_ref_epilogue(y, np, c->f, bias, flags);
    return 0;
}

uint32_t tpu_ref_pool_scale(uint64_t taps)
{
    return tpu_f32_from_float(1.0f / (float)taps);
}

void tpu_ref_pool(const tpu_ref_conv *c, unsigned mode, const uint32_t *x, uint64_t p0,
                  uint64_t np, uint32_t *y)
{
    uint64_t taps = c->r * c->s;
    uint32_t padv = mode == TPU_REF_POOL_MAX ? 0xff800000u : 0;
    uint32_t scale = tpu_ref_pool_scale(taps);
    for (uint64_t i = 0; i < np; i++)
        for (uint64_t ch = 0; ch < c->c; ch++) {
            uint32_t acc = 0;
            for (uint64_t t = 0; t < taps; t++) {
                int64_t src = conv_src(c, p0 + i, t / c->s, t % c->s);
                uint32_t v = src < 0 ? padv : x[(uint64_t)src * c->c + ch];
                acc = t == 0 ? v : mode == TPU_REF_POOL_MAX ? tpu_f32_max(acc, v)
                                                            : tpu_f32_add(acc, v);
            }
            if (mode == TPU_REF_POOL_AVG)
                acc = tpu_f32_mul(acc, scale);
            y[i * c->c + ch] = acc;
        }
}
