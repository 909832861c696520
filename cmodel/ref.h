/*
 * ref.h - fast kernels for the operations the core computes, in exactly the
 * order docs/numerics.md fixes.  The MXU model computes each LHS row with
 * tpu_ref_row; tpu-sim checks `.expect` results with tpu_ref_matmul and
 * tpu_ref_pointwise.  tests/test_ref.c checks every kernel bit for bit
 * against a plain loop over tpu_mac()/tpu_f32_add() (the soft-float
 * definition in fp.c), including NaN, Inf, signed zeros and subnormals.
 */
#ifndef TPU_REF_H
#define TPU_REF_H

#include <stddef.h>
#include <stdint.h>

/* One row through an N x N array: y[c] = mac(...mac(+0, x[0], w[0][c])...,
 * x[N-1], w[N-1][c]) for c < N.  w is row-major: w[k*N + c].  bf16/fp32 as
 * raw bits. */
void tpu_ref_row(const uint16_t *x, const uint16_t *w, unsigned n, uint32_t *y);

/* Y[B,F] = X[B,D] . W[D,F] the way the MXU does it with K-tiles of `tile`
 * rows of W (tile = mxu_n): each K-tile is a column sum from +0 (as
 * tpu_ref_row), the first tile's sum is the result, later ones are added
 * with tpu_f32_add in tile order.  A last partial tile (D not a multiple of
 * tile) sums only its rows.  Row-major operands; returns -1 if out of memory. */
int tpu_ref_matmul(const uint16_t *x, const uint16_t *w, uint32_t *y,
                   uint64_t b, uint64_t d, uint64_t f, unsigned tile);

enum tpu_ref_op { TPU_REF_ADD, TPU_REF_SUB, TPU_REF_MUL, TPU_REF_MAX, TPU_REF_MIN, TPU_REF_RELU };
/* z[i] = a[i] op b[i] (b unused for RELU) with the fp.c rules. */
void tpu_ref_pointwise(enum tpu_ref_op op, const uint32_t *a, const uint32_t *b, uint32_t *z,
                       size_t n);

#endif /* TPU_REF_H */
