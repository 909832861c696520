/*
 * ref_nn.h - plain C references of the transformer layers tpu-gen writes
 * (sim/kernels/kgen_nn.c, docs/transformers.md): softmax, layernorm,
 * RMSnorm, GELU (tanh form) and SiLU, each in exactly the VPU's fp32
 * operations in the program's order (docs/numerics.md 11.7 and 12), so a
 * program's result equals these bit for bit; and the same functions in
 * float64 on the same inputs, to report the error.
 *
 * Layout: feature-major, "a row per lane": element (row i, column c) of
 * an N x C matrix is at x[c * pitch + i] (pitch >= N).  Reductions run
 * over the C columns of a row, left to right: in the program they are a
 * chain of elementwise vadd / vmax over vector registers, no cross-lane
 * operation.
 */
#ifndef TPU_REF_NN_H
#define TPU_REF_NN_H

#include <stddef.h>
#include <stdint.h>

typedef enum {
    TPU_NN_SOFTMAX = 0,      /* z = softmax(scale * x) over each row's C values */
    TPU_NN_LAYERNORM = 1,    /* z = (x - mean) * rsqrt(var + eps) * gamma + beta */
    TPU_NN_RMSNORM = 2,      /* z = x * rsqrt(mean(x^2) + eps) * gamma */
    TPU_NN_GELU = 3,         /* tanh form, elementwise */
    TPU_NN_SILU = 4,         /* x * sigmoid(x), elementwise */
    TPU_NN_ADD = 5,          /* z = x + y, elementwise: the residual (y a second input) */
    TPU_NN_COUNT
} tpu_nn_op;

/* The constants of the sequences (fp32 bit patterns). */
#define TPU_NN_ONE      0x3f800000u   /* 1.0 */
#define TPU_NN_HALF     0x3f000000u   /* 0.5 */
#define TPU_NN_GELU_A   0x3d372713u   /* 0.044715 */
#define TPU_NN_GELU_K   0x3f4c422au   /* 0.7978846 = sqrt(2/pi) rounded to fp32 */

/* One kernel's parameters: gamma and beta have C fp32 values (gamma for
 * layernorm and RMSnorm, beta for layernorm; NULL otherwise), eps and
 * scale are fp32 bit patterns (eps: the norms; scale: softmax). */
typedef struct {
    tpu_nn_op op;
    uint64_t c;
    const uint32_t *gamma, *beta;
    uint32_t eps, scale;
    const uint32_t *y;           /* TPU_NN_ADD: the second input, x's layout */
} tpu_nn_params;

/* fp32 of 1/C, correctly rounded (the norms' mean is a sum times it). */
uint32_t tpu_nn_inv(uint64_t c);

/* Elementwise GELU and SiLU, one value (numerics.md 12). */
uint32_t tpu_nn_gelu(uint32_t x);
uint32_t tpu_nn_silu(uint32_t x);

/* Rows [0, n) of x (feature-major, pitch elements between columns) into z
 * (the same layout), bit-exact with the program.  tmp: C fp32 of scratch. */
void tpu_ref_nn(const tpu_nn_params *p, const uint32_t *x, uint32_t *z, uint64_t n,
                uint64_t pitch, uint32_t *tmp);

/* The same rows in float64 (the fp32 inputs as they are, gamma, beta, eps
 * and scale as fp32 values; exp, tanh and sqrt of the host's libm). */
void tpu_ref_nn_f64(const tpu_nn_params *p, const uint32_t *x, double *z, uint64_t n,
                    uint64_t pitch);

/* The error of fp32 results z against float64 ones w over count values:
 * the largest |z - w|, and the largest |z - w| / |w| over |w| >= floor
 * (relative error is meaningless near zero: say which floor in a report). */
typedef struct {
    double max_abs, max_rel;
    uint64_t at_abs, at_rel;     /* where (index into the arrays) */
    uint64_t count;
} tpu_nn_error;
void tpu_nn_error_add(tpu_nn_error *e, const uint32_t *z, const double *w, uint64_t count,
                      double floor, uint64_t base);

/* ---- the transformer block (tpu-gen block, docs/transformers.md) ----------
 *
 * Pre-norm, feature-major, bf16 weights and an fp32 residual stream:
 *
 *   X   = bf16(layernorm(x; g1, b1))                 x^T [D][T] fp32
 *   QKV = bf16(Wqkv^T X)                             [3D][T]: Q, K, V rows
 *   per head h (dh = D / heads, rows h dh .. h dh + dh - 1 of Q, K, V):
 *     S^T = K_h Q_h^T                                [Tk][Tq] fp32, K_h token-major
 *     P^T = bf16(softmax over the keys of S^T)       scale fp32(1/sqrt(dh)); --causal:
 *                                                    a key after the query gives -inf
 *     O^T rows of head h = bf16(V_h^T P^T)           the heads side by side, [D][T]
 *   x1  = x + Wo^T O^T                               fp32
 *   y   = x1 + Wout^T bf16(gelu(Win^T bf16(layernorm(x1; g2, b2))))
 *
 * Every GEMM as tpu_ref_matmul with K-tiles of `tile` rows (the MXU's N),
 * every VPU step as ref_nn's sequences (numerics.md section 12).  Decode:
 * the `past` tokens' K and V (kpast [P][D], token-major, vpast^T [D][P]
 * feature-major, bf16, as the prefill writes them) come first; the T new
 * tokens are queries P .. P + T - 1 and their keys follow the past ones
 * (t_keys of them: tokens that only pad the lanes are no keys).  With
 * kblock, attention goes a block of keys at a time with a running maximum
 * and sum and the output rescaled (numerics.md 12, "Flash"). */
typedef struct {
    uint64_t t, d, f, heads;     /* new tokens, width, hidden width, heads */
    uint64_t past;               /* decode: tokens already in the KV cache (0: prefill) */
    uint64_t t_keys;             /* decode: the new tokens that become keys, the first t_keys
                                  * (0: all t; the rest pad the lanes and are no keys) */
    int causal;                  /* mask the keys after each query (-inf before the softmax) */
    unsigned tile;               /* the MXU's N: the GEMMs' K-tile */
    uint64_t kblock;             /* flash: keys a block (a multiple of tile; one block or more), 0: one softmax
                                  * over all the keys (numerics.md 12, "Flash") */
    uint32_t eps;                /* both layernorms' epsilon (fp32 bits) */
    const uint32_t *x;           /* x^T [D][T] fp32 */
    const uint32_t *g1, *b1, *g2, *b2;   /* D fp32 each */
    const uint16_t *wqkv;        /* Wqkv^T [3D][D] bf16 */
    const uint16_t *wo;          /* Wo^T [D][D] */
    const uint16_t *win;         /* Win^T [F][D] */
    const uint16_t *wout;        /* Wout^T [D][F] */
    const uint16_t *kpast;       /* decode: K of the past tokens, [P][D] bf16 */
    const uint16_t *vpast;       /* decode: V^T of the past tokens, [D][P] bf16 */
} tpu_block_params;

/* y^T [D][T] (fp32) bit for bit as the program; x1 (optional, [D][T]) the
 * residual stream after the attention half.  -1 when out of memory. */
int tpu_ref_block(const tpu_block_params *p, uint32_t *y, uint32_t *x1);

/* The same in float64 from the same fp32 x and bf16 weights, nothing
 * rounded on the way (libm's exp, tanh, sqrt).  -1 when out of memory. */
int tpu_ref_block_f64(const tpu_block_params *p, double *y);

/* The softmax over the keys of S^T [tk][tq] (row c = key c, pitch tq)
 * into z: v = scale s, -inf for a key c > qpos[i] when qpos is given (the
 * causal mask; qpos[i]: query i's position), then numerics.md 12's
 * sequence.  tmp: tk fp32 of scratch. */
void tpu_ref_softmax_keys(const uint32_t *s, uint32_t *z, uint64_t tk, uint64_t tq, uint32_t scale,
                          const uint64_t *qpos, uint32_t *tmp);

#endif
