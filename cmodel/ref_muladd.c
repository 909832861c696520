/*
 * ref_muladd.c - the kernels that multiply then add, each step rounded on
 * its own: the soft-float definition (the "soft" kernel, tpu_mac) and the
 * host-float sse2 and avx2 kernels (ref.c's top comment).
 */
#include "ref_impl.h"

/* ---- the soft-float definition (the "soft" kernel) ---------------------------- */

void tpu_refk_soft_row(const uint16_t *x, const uint16_t *w, unsigned n, uint32_t *y)
{
    for (unsigned c = 0; c < n; c++) {
        uint32_t s = 0;
        for (unsigned k = 0; k < n; k++)
            s = tpu_mac(s, x[k], w[(size_t)k * n + c]);
        y[c] = s;
    }
}

void tpu_refk_soft_matmul(const uint16_t *x, const uint16_t *w, uint32_t *y,
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

#if REF_HOST_FLOAT

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

row_kernel_fn tpu_refk_muladd_kernel(enum tpu_ref_kernel k)
{
#if REF_HAVE_AVX
    if (k != TPU_REF_KERNEL_SSE2)            /* avx2 and the fused ones' hosts */
        return row_kernel_avx2;
#endif
    (void)k;
    return row_kernel_base;
}

void tpu_refk_row_muladd(row_kernel_fn kern, const uint16_t *x, const uint16_t *w, unsigned n,
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

void tpu_refk_matmul_muladd(row_kernel_fn kern, const uint16_t *x, const uint16_t *w, uint32_t *y,
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

#endif /* REF_HOST_FLOAT */
