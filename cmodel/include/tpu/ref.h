/*
 * ref.h - fast kernels for the operations the core computes, in exactly the
 * order docs/numerics.md fixes.  The MXU model computes each LHS row with
 * tpu_ref_row_tile; tpu-sim checks `.expect` results with tpu_ref_matmul and
 * tpu_ref_pointwise.  tests/test_ref.c checks every kernel bit for bit
 * against a plain loop over tpu_mac()/tpu_f32_add() (the soft-float
 * definition in fp.c), including NaN, Inf, signed zeros and subnormals.
 *
 * Several kernels compute the same bits (ref.c's top comment and
 * docs/numerics.md section 8 say why each is exact); the fastest one the
 * host runs is used unless TPU_REF_KERNEL or tpu_ref_kernel_set() says
 * otherwise.
 */
#ifndef TPU_REF_H
#define TPU_REF_H

#include <stddef.h>
#include <stdint.h>

/* ---- kernels ------------------------------------------------------------ */

enum tpu_ref_kernel {
    TPU_REF_KERNEL_AUTO,       /* "auto": the fastest one the host runs */
    TPU_REF_KERNEL_SOFT,       /* "soft": loops over tpu_mac() (fp.c), any host */
    TPU_REF_KERNEL_SSE2,       /* "sse2": host float, multiply then add (x86-64) */
    TPU_REF_KERNEL_AVX2,       /* "avx2": the same with AVX2 */
    TPU_REF_KERNEL_AVX2_FMA,   /* "avx2-fma": AVX2, fused multiply-add where exact */
    TPU_REF_KERNEL_AVX512_FMA, /* "avx512-fma": AVX-512F, fused multiply-add where exact */
    TPU_REF_KERNEL_COUNT
};

/* The kernel's name as above ("avx512-fma"), NULL if out of range. */
const char *tpu_ref_kernel_name(enum tpu_ref_kernel k);
/* The kernel named `name` (the names above; "fma" and "avx512" are short
 * for avx2-fma and avx512-fma), or -1. */
int tpu_ref_kernel_parse(const char *name);
/* 1 if this host (CPU and build) runs kernel k; AUTO and SOFT always. */
int tpu_ref_kernel_supported(enum tpu_ref_kernel k);
/* Use kernel k from now on (AUTO: the fastest supported), in every thread;
 * -1 if the host does not run it. */
int tpu_ref_kernel_set(enum tpu_ref_kernel k);
/* The kernel in use (never AUTO).  Until the first tpu_ref_kernel_set(), it
 * is the one the environment variable TPU_REF_KERNEL names if the host runs
 * it, else the fastest. */
enum tpu_ref_kernel tpu_ref_kernel_current(void);
/* Apply TPU_REF_KERNEL now: 0 if it is unset, empty or applied; -1 with a
 * message in err if it names no kernel or one this host does not run. */
int tpu_ref_kernel_from_env(char *err, size_t errsize);

/* ---- one MXU row ------------------------------------------------------------ */

#define TPU_REF_MAX_N 256     /* the largest mxu_n (config.def) */

/* What the fused kernels need to know about a weight tile, from
 * tpu_ref_tile_scan: for each row k, the window of exponent fields
 * [row_xlo[k], row_xhi[k]] (an empty one has lo > hi) such that a normal
 * bf16 x with its exponent field in it times any weight of row k is a
 * normal fp32 number, and the intersection of all rows' windows. */
typedef struct tpu_ref_tile {
    unsigned n;
    uint8_t xlo, xhi;
    uint8_t row_xlo[TPU_REF_MAX_N], row_xhi[TPU_REF_MAX_N];
} tpu_ref_tile;

/* Fill *t for the n x n tile w (n <= TPU_REF_MAX_N; about as much work as
 * one row).  Scan again after the tile changes. */
void tpu_ref_tile_scan(const uint16_t *w, unsigned n, tpu_ref_tile *t);

/* One row through an N x N array: y[c] = mac(...mac(+0, x[0], w[0][c])...,
 * x[N-1], w[N-1][c]) for c < N.  w is row-major: w[k*N + c].  bf16/fp32 as
 * raw bits.  t is tpu_ref_tile_scan(w, n) or NULL (then the tile is
 * scanned on every call: for a tile used more than once, scan it once). */
void tpu_ref_row_tile(const uint16_t *x, const uint16_t *w, const tpu_ref_tile *t, unsigned n,
                      uint32_t *y);
void tpu_ref_row(const uint16_t *x, const uint16_t *w, unsigned n, uint32_t *y);
/* `rows` rows through the same tile at once (faster per row: each weight
 * is loaded once for several rows): row i is x + i*ldx, its result
 * y + i*ldy, the same bits as tpu_ref_row_tile on each. */
void tpu_ref_rows_tile(const uint16_t *x, size_t ldx, unsigned rows, const uint16_t *w,
                       const tpu_ref_tile *t, unsigned n, uint32_t *y, size_t ldy);

/* int8 mode (numerics.md section 9): `rows` rows through an N x N tile of
 * int8 pairs, y[c] = sum over k < N of tpu_mac_i8 terms, exactly (a tile's
 * sum cannot overflow int32: |sum| <= 2N * 2^14 <= 2^23). */
void tpu_ref_rows_i8(const uint16_t *x, size_t ldx, unsigned rows, const uint16_t *w,
                     unsigned n, uint32_t *y, size_t ldy);

/* ---- matmul, pointwise ------------------------------------------------------- */

/* Y[B,F] = X[B,D] . W[D,F] the way the MXU does it with K-tiles of `tile`
 * rows of W (tile = mxu_n): each K-tile is a column sum from +0 (as
 * tpu_ref_row), the first tile's sum is the result, later ones are added
 * with tpu_f32_add in tile order.  A last partial tile (D not a multiple of
 * tile) sums only its rows.  Row-major operands; returns -1 if out of memory. */
int tpu_ref_matmul(const uint16_t *x, const uint16_t *w, uint32_t *y,
                   uint64_t b, uint64_t d, uint64_t f, unsigned tile);

/* int8: Y[B,F] = X[B,D] . W[D,F] mod 2^32 (int32 bits), X int8 row-major,
 * W int8 in the K-pair-interleaved layout of mxu.lw.i8 (element (k, c) at
 * byte (k/2)*2F + 2c + k%2; D even).  Integer sums do not depend on the
 * order, so there is no tile argument.  Returns -1 if d is odd. */
int tpu_ref_matmul_i8(const uint8_t *x, const uint8_t *w, uint32_t *y,
                      uint64_t b, uint64_t d, uint64_t f);

enum tpu_ref_op { TPU_REF_ADD, TPU_REF_SUB, TPU_REF_MUL, TPU_REF_MAX, TPU_REF_MIN, TPU_REF_RELU };
/* z[i] = a[i] op b[i] (b unused for RELU) with the fp.c rules. */
void tpu_ref_pointwise(enum tpu_ref_op op, const uint32_t *a, const uint32_t *b, uint32_t *z,
                       size_t n);

/* ---- layers: GEMM epilogue, conv2d, pooling (numerics.md section 11) ---------- */

/* Epilogue flags (the FLAGS operand of .expect matmul_epi and conv2d). */
enum {
    TPU_REF_EPI_BIAS = 1,     /* y = y + bias[c] (fp32 add, rounded) */
    TPU_REF_EPI_RELU = 2,     /* then y = max(y, +0) */
    TPU_REF_EPI_XOUT = 4,     /* (expect) X is read after the run: an intermediate */
    TPU_REF_EPI_BF16 = 8,     /* (expect) Y is stored as bf16, rounded to nearest even */
    TPU_REF_EPI_VPU = 16,     /* conv2d: the VPU's order (depthwise), not the MXU's */
    TPU_REF_EPI_W8 = 32,      /* (matmul_epi) W is int8, widened to bf16 as dma.h2v.i8 does */
    TPU_REF_EPI_WOUT = 64,    /* (matmul_epi) W is read after the run: an intermediate */
    TPU_REF_EPI_ALL = 31
};

/* rows x f fp32 results, row-major: the epilogue flags' bias and relu in
 * that order (bias: f fp32 values, one per column; NULL without BIAS). */
void tpu_ref_epilogue(uint32_t *y, uint64_t rows, uint64_t f, const uint32_t *bias,
                      unsigned flags);

/* A 2-D convolution, NHWC activations, HWIO filters [R][S][C/G][F]. */
typedef struct tpu_ref_conv {
    uint64_t nb, h, w, c, f, r, s, stride, pad, groups;
    uint64_t oh, ow;          /* the output size: tpu_ref_conv_shape fills them */
} tpu_ref_conv;

/* Check the shape (every size >= 1, groups divide C and F, the window fits
 * the padded input) and fill oh, ow.  0, or -1 with a reason in why. */
int tpu_ref_conv_shape(tpu_ref_conv *c, char *why, size_t whylen);

/* Output pixels p0 .. p0 + np - 1 (p = (n * OH + oh) * OW + ow), all F
 * channels, fp32, row-major into y.  x: bf16 [NB][H][W][C], w: bf16
 * [R][S][C/G][F].  The MXU order (flags without TPU_REF_EPI_VPU): per group,
 * an im2col row of K = R*S*C/G values in (r, s, c) order, taps outside the
 * input +0, multiplied by the group's [K][F/G] filter as tpu_ref_matmul does
 * with K-tiles of `tile`.  The VPU order (C/G = F/G = 1, depthwise): per
 * channel, acc = x0*w0, then acc = acc + xi*wi for the taps in (r, s)
 * order, every product and sum rounded to fp32, outside taps +0.  Then the
 * epilogue (bias, relu).  Returns -1 if out of memory. */
int tpu_ref_conv2d(const tpu_ref_conv *c, const uint16_t *x, const uint16_t *w,
                   const uint32_t *bias, unsigned flags, uint64_t p0, uint64_t np,
                   uint32_t *y, unsigned tile);

/* Pooling of fp32 NHWC x (conv's shape with f = c, groups = 1): per output
 * element, acc = the first tap, then acc = max(acc, t) (mode 0) or acc =
 * acc + t (mode 1) over the taps in (r, s) order; taps outside the input
 * are -inf (max) or +0 (avg); avg then multiplies by fp32(1 / (R*S)). */
enum { TPU_REF_POOL_MAX = 0, TPU_REF_POOL_AVG = 1 };
void tpu_ref_pool(const tpu_ref_conv *c, unsigned mode, const uint32_t *x, uint64_t p0,
                  uint64_t np, uint32_t *y);
/* fp32(1 / n) as the avg pool multiplies by it */
uint32_t tpu_ref_pool_scale(uint64_t taps);

#endif /* TPU_REF_H */
