/*
 * ref_add.c - tpu_ref_pointwise's add and sub in host floats (the MXU
 * model's mxu.mma accumulates with them), exact by the argument of ref.c's
 * top comment.
 */
#include "ref_impl.h"

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

void tpu_refk_host_add(const uint32_t *a, const uint32_t *b, uint32_t *z, size_t n, uint32_t flip)
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
