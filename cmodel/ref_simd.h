/*
 * ref_simd.h - the fused kernels' vector steps (AVX2+FMA, AVX-512F),
 * inlined into ref_fma_rows.c and ref_fma_matmul.c, and what the two
 * share: the register block's rows and the kernel table (fused_isa).
 */
#ifndef TPU_REF_SIMD_H
#define TPU_REF_SIMD_H

#include "ref_impl.h"

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

#define MM_ROWS 6

typedef void (*mm_block_fn)(const float *xs, size_t ldx, const float *wf, size_t ldw,
                            unsigned nk, unsigned rows, const uint8_t *safe, uint32_t *y,
                            size_t ldy, unsigned ncols, int accumulate);

typedef void (*tile_block_fn)(const float *xs, size_t ldx, const uint16_t *w, size_t ldw,
                              unsigned nk, unsigned nc, unsigned rows, const uint8_t *safe,
                              uint32_t *y, size_t ldy);

/* A fused kernel: its row sums and its matmul block (bw columns wide). */
struct fused_isa {
    tile_block_fn rows;
    mm_block_fn block;
    unsigned bw;
};

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

/* ref_fma_rows.c: the row blocks of each ISA */
void tpu_refk_tile_block_avx512(const float *xs, size_t ldx, const uint16_t *w, size_t ldw,
                                unsigned nk, unsigned nc, unsigned rows, const uint8_t *safe,
                                uint32_t *y, size_t ldy);
void tpu_refk_tile_block_avx2(const float *xs, size_t ldx, const uint16_t *w, size_t ldw,
                              unsigned nk, unsigned nc, unsigned rows, const uint8_t *safe,
                              uint32_t *y, size_t ldy);

#endif /* REF_HAVE_AVX */

#endif /* TPU_REF_SIMD_H */
