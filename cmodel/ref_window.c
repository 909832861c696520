/*
 * ref_window.c - exponent windows, the fused kernels' safety test (ref.c's
 * top comment): which x exponents may meet a weight row's in a fused
 * multiply-add, and the widening of bf16 to fp32 that finds them.
 */
#include "ref_impl.h"

/* ---- exponent windows (the fused kernels' safety test) ------------------------ */

/* The window of x exponent fields that are safe against weights whose
 * normal exponent fields lie in [lo, hi] (lo > hi: none is normal, so every
 * x is safe): Ex + lo >= 128 and Ex + hi <= 380.  Empty: xlo > xhi. */
void tpu_refk_exp_window(unsigned lo, unsigned hi, uint8_t *xlo, uint8_t *xhi)
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
void tpu_refk_widen_range_avx2(const uint16_t *v, unsigned n, float *out, unsigned *lo,
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
void tpu_refk_widen_rows_range_avx2(const uint16_t *x, size_t ldx, unsigned rows, unsigned n,
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
void tpu_refk_widen_range(const uint16_t *v, unsigned n, float *out, unsigned *lo,
                        unsigned *hi)
{
#if REF_HAVE_AVX
    if (__builtin_cpu_supports("avx2")) {
        tpu_refk_widen_range_avx2(v, n, out, lo, hi);
        return;
    }
#endif
    widen_range_plain(v, n, out, lo, hi);
}

/* Windows of rows k < nk of the nc columns at w (row stride ldw), into
 * row_xlo/row_xhi, and their intersection into *xlo, *xhi; each row
 * widened into out + k * ldo if out is not NULL. */
void tpu_refk_scan_windows(const uint16_t *w, size_t ldw, unsigned nk, unsigned nc,
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
        tpu_refk_widen_range(w + (size_t)k * ldw, nc, out ? out + (size_t)k * ldo : NULL, &lo, &hi);
        tpu_refk_exp_window(lo, hi, &row_xlo[k], &row_xhi[k]);
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
    tpu_refk_scan_windows(w, n, n, n, t->row_xlo, t->row_xhi, &t->xlo, &t->xhi, NULL, 0);
}
