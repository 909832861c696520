/*
 * ref_fma_matmul.c - the fused kernels (avx2-fma, avx512-fma) on a whole
 * matmul (tpu_ref_matmul): register blocks of MM_ROWS rows over widened
 * K-tiles of the weights.
 */
#include "ref_simd.h"

#include <stdlib.h>

#include "hostmem.h"

#if REF_HAVE_AVX

/* ---- the matmul's register blocks ---------------------------------------------- */

/* A block of MM_ROWS rows of X by 64 (AVX-512) or 16 (AVX2) columns of W,
 * the sums in registers over a whole K-tile: per step, each row's x is
 * broadcast and multiplied with the same weight vectors.  xs: the rows'
 * widened x, row stride ldx; wf: the widened weights, row stride ldw,
 * padded with zeros to the block width.  The rows' sums go to y (row
 * stride ldy, the first ncols columns): y = s for the first K-tile
 * (accumulate 0), y = y + s (tpu_f32_add) after it. */
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

const fused_isa tpu_refk_isa_avx2_fma = { tpu_refk_tile_block_avx2, mm_block_avx2, 16 };
const fused_isa tpu_refk_isa_avx512_fma = { tpu_refk_tile_block_avx512, mm_block_avx512, 64 };

/* The matmul with the fused kernel, for tile <= TPU_REF_MAX_N.  Rows go in
 * panels whose x, widened once with each K-tile's exponent range, fit in
 * about MM_XS_BYTES; columns in chunks of MM_CHUNK.  Per K-tile of a chunk
 * the weights are widened once (with their windows) into wf, then blocks
 * of bw columns and MM_ROWS rows sweep them, each block's weights staying
 * in the L1 cache while the rows go through, and each row block's sums in
 * registers for the whole K-tile. */
#define MM_CHUNK 256
#define MM_XS_BYTES (16u << 20)

/* The host cache: the weights tpu_refk_scan_windows widens next, asked for a few
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

int tpu_refk_matmul_fused(const fused_isa *isa, const uint16_t *x, const uint16_t *w, uint32_t *y,
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
                tpu_refk_widen_range_avx2(x + (p0 + r) * d + k0, nk, xs + r * d + k0, &lo, &hi);
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
                tpu_refk_scan_windows(w + k0 * f + c0, (size_t)f, nk, nc, wlo, whi, &all_lo, &all_hi,
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

