/*
 * ref_fma_rows.c - the fused kernels (avx2-fma, avx512-fma) on rows of a
 * weight tile: the MXU model's inner loop (tpu_ref_rows_tile).
 */
#include "ref_simd.h"

#if REF_HAVE_AVX

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
void tpu_refk_tile_block_avx512(const float *xs, size_t ldx, const uint16_t *w, size_t ldw,
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
void tpu_refk_tile_block_avx2(const float *xs, size_t ldx, const uint16_t *w, size_t ldw,
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

/* Rows of x through a tile with the fused kernel, MM_ROWS at a time: per
 * block the rows' x are widened, and when one of them has a normal value
 * outside the tile's window each step k is checked for every row. */
void tpu_refk_rows_fused(const fused_isa *isa, const uint16_t *x, size_t ldx, unsigned rows,
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
        tpu_refk_widen_rows_range_avx2(x + r0 * ldx, ldx, nr, n, xs, &lo, &hi);
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


#endif /* REF_HAVE_AVX */
