/*
 * ref_impl.h - what the files of the reference kernels share (ref.h is the
 * interface; ref.c's top comment says why the bits are exact):
 *
 *   ref.c            which kernel, and the entry points
 *   ref_window.c     exponent windows: which steps a fused kernel may fuse
 *   ref_muladd.c     multiply then add: the soft-float definition, sse2, avx2
 *   ref_fma_rows.c   the fused kernels' rows (the MXU model's inner loop)
 *   ref_fma_matmul.c the fused kernels' matmul (tpu_ref_matmul)
 *   ref_add.c        the host add and sub of tpu_ref_pointwise
 *   ref_layers.c     int8, the GEMM epilogue, conv2d and pooling
 *
 * Every file includes this one first: the pragmas below must hold for all
 * of their float code.
 */
#ifndef TPU_REF_IMPL_H
#define TPU_REF_IMPL_H

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

/* The exponent field of a bf16. */
static inline unsigned bf16_exp(uint16_t v)
{
    return (v >> 7) & 0xffu;
}

/* Is x times every weight of a row with window [xlo, xhi] safe to fuse? */
static inline int x_safe(uint16_t x, unsigned xlo, unsigned xhi)
{
    unsigned e = bf16_exp(x);
    return e == 0 || e == 255 || (e >= xlo && e <= xhi);
}

#if REF_HAVE_AVX
#define AVX2_TARGET   __attribute__((target("avx2")))
#define FMA_TARGET    __attribute__((target("avx2,fma")))
#define AVX512_TARGET __attribute__((target("avx512f,avx2,fma")))
#define INLINE        static inline __attribute__((always_inline))

/* 8 bf16 weights at p widened to 8 floats (zero-extend, shift: no arithmetic). */
#define AVX2_W8(p) _mm256_castsi256_ps(_mm256_slli_epi32(                       \
    _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(const void *)(p))), 16))
#endif

#if REF_HOST_FLOAT
#define MXCSR_DAZ       0x0040u
#define MXCSR_EXC_MASKS 0x1f80u   /* all six exceptions masked */
#define MXCSR_ROUNDING  0x6000u   /* 00 = round to nearest even */
#define MXCSR_FTZ       0x8000u

/* Set FTZ, DAZ, round-to-nearest and masked exceptions; return the old
 * register value for mxcsr_restore(). */
static inline unsigned mxcsr_enter(void)
{
    unsigned old = _mm_getcsr();
    _mm_setcsr((old & ~MXCSR_ROUNDING) | MXCSR_DAZ | MXCSR_FTZ | MXCSR_EXC_MASKS);
    return old;
}

static inline void mxcsr_restore(unsigned old)
{
    _mm_setcsr(old);
}
#endif

/* ---- between the files ---------------------------------------------------------- */

/* ref_window.c: the window of x exponents safe against weights whose normal
 * exponent fields lie in [lo, hi]; the exponent range of n bf16 values,
 * widening them into out (if not NULL); the windows of rows k < nk of the
 * nc columns at w (row stride ldw), their intersection, each row widened
 * into out + k * ldo if out is not NULL. */
void tpu_refk_exp_window(unsigned lo, unsigned hi, uint8_t *xlo, uint8_t *xhi);
void tpu_refk_widen_range(const uint16_t *v, unsigned n, float *out, unsigned *lo,
                          unsigned *hi);
void tpu_refk_scan_windows(const uint16_t *w, size_t ldw, unsigned nk, unsigned nc,
                           uint8_t *row_xlo, uint8_t *row_xhi, uint8_t *xlo, uint8_t *xhi,
                           float *out, size_t ldo);

/* ref_muladd.c */
void tpu_refk_soft_row(const uint16_t *x, const uint16_t *w, unsigned n, uint32_t *y);
void tpu_refk_soft_matmul(const uint16_t *x, const uint16_t *w, uint32_t *y,
                          uint64_t b, uint64_t d, uint64_t f, unsigned tile);
#if REF_HOST_FLOAT
typedef void (*row_kernel_fn)(const uint16_t *, const uint16_t *, size_t, unsigned, unsigned,
                              float *);
row_kernel_fn tpu_refk_muladd_kernel(enum tpu_ref_kernel k);
void tpu_refk_row_muladd(row_kernel_fn kern, const uint16_t *x, const uint16_t *w, unsigned n,
                         uint32_t *y);
void tpu_refk_matmul_muladd(row_kernel_fn kern, const uint16_t *x, const uint16_t *w,
                            uint32_t *y, uint64_t b, uint64_t d, uint64_t f, unsigned tile);

/* ref_add.c: z = a + (b ^ flip) */
void tpu_refk_host_add(const uint32_t *a, const uint32_t *b, uint32_t *z, size_t n,
                       uint32_t flip);
#endif

#if REF_HAVE_AVX
/* ref_window.c */
void tpu_refk_widen_rows_range_avx2(const uint16_t *x, size_t ldx, unsigned rows, unsigned n,
                                    float *out, unsigned *lo, unsigned *hi);
void tpu_refk_widen_range_avx2(const uint16_t *v, unsigned n, float *out, unsigned *lo,
                               unsigned *hi);

/* The fused kernels (ref_simd.h): ref_fma_rows.c and ref_fma_matmul.c */
typedef struct fused_isa fused_isa;
extern const fused_isa tpu_refk_isa_avx2_fma, tpu_refk_isa_avx512_fma;
void tpu_refk_rows_fused(const fused_isa *isa, const uint16_t *x, size_t ldx, unsigned rows,
                         const uint16_t *w, const tpu_ref_tile *t, unsigned n, uint32_t *y,
                         size_t ldy);
int tpu_refk_matmul_fused(const fused_isa *isa, const uint16_t *x, const uint16_t *w,
                          uint32_t *y, uint64_t b, uint64_t d, uint64_t f, unsigned tile);
#endif

#endif /* TPU_REF_IMPL_H */
