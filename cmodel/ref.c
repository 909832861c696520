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
#include "ref_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* ---- the entry points ------------------------------------------------------------ */

void tpu_ref_rows_tile(const uint16_t *x, size_t ldx, unsigned rows, const uint16_t *w,
                       const tpu_ref_tile *t, unsigned n, uint32_t *y, size_t ldy)
{
    enum tpu_ref_kernel k = tpu_ref_kernel_current();
#if REF_HAVE_AVX
    if (k == TPU_REF_KERNEL_AVX512_FMA && n <= TPU_REF_MAX_N) {
        tpu_refk_rows_fused(&tpu_refk_isa_avx512_fma, x, ldx, rows, w, t, n, y, ldy);
        return;
    }
    if (k == TPU_REF_KERNEL_AVX2_FMA && n <= TPU_REF_MAX_N) {
        tpu_refk_rows_fused(&tpu_refk_isa_avx2_fma, x, ldx, rows, w, t, n, y, ldy);
        return;
    }
#endif
    (void)t;
    for (unsigned i = 0; i < rows; i++) {
#if REF_HOST_FLOAT
        if (k != TPU_REF_KERNEL_SOFT) {
            tpu_refk_row_muladd(tpu_refk_muladd_kernel(k), x + i * ldx, w, n, y + i * ldy);
            continue;
        }
#endif
        tpu_refk_soft_row(x + i * ldx, w, n, y + i * ldy);
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
            return tpu_refk_matmul_fused(&tpu_refk_isa_avx512_fma, x, w, y, b, d, f, tile);
        if (k == TPU_REF_KERNEL_AVX2_FMA)
            return tpu_refk_matmul_fused(&tpu_refk_isa_avx2_fma, x, w, y, b, d, f, tile);
    }
#endif
#if REF_HOST_FLOAT
    if (k != TPU_REF_KERNEL_SOFT) {
        tpu_refk_matmul_muladd(tpu_refk_muladd_kernel(k), x, w, y, b, d, f, tile);
        return 0;
    }
#endif
    tpu_refk_soft_matmul(x, w, y, b, d, f, tile);
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
        tpu_refk_host_add(a, b, z, n, op == TPU_REF_SUB ? 0x80000000u : 0);
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

