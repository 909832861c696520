/*
 * fp.h - the core's floating point, bit-exact and specified.
 *
 * Values travel as raw bit patterns (uint32_t for fp32, uint16_t for bf16)
 * so that the C model, the tests and the RTL talk about the same bits; no
 * host float rounding mode or flag leaks in.  The rules (round to nearest
 * even, subnormals flushed, one canonical NaN) are written in
 * docs/numerics.md; the RTL's fp units implement the same text.
 */
#ifndef TPU_FP_H
#define TPU_FP_H

#include <stdint.h>

#define TPU_F32_QNAN   0x7fc00000u   /* the one NaN every operation returns */
#define TPU_BF16_QNAN  0x7fc0u

/* bf16 <-> fp32 */
uint32_t tpu_f32_from_bf16(uint16_t b);        /* exact widening (subnormal -> signed 0) */
uint16_t tpu_bf16_from_f32(uint32_t f);        /* round to nearest even */

/* fp32 arithmetic */
uint32_t tpu_f32_add(uint32_t a, uint32_t b);
uint32_t tpu_f32_sub(uint32_t a, uint32_t b);
uint32_t tpu_f32_mul(uint32_t a, uint32_t b);
uint32_t tpu_f32_max(uint32_t a, uint32_t b);
uint32_t tpu_f32_min(uint32_t a, uint32_t b);
uint32_t tpu_f32_relu(uint32_t a);             /* max(a, +0) */
uint32_t tpu_f32_cmplt(uint32_t a, uint32_t b);/* 1.0f or +0.0f */
int      tpu_f32_is_zero(uint32_t a);          /* +0, -0 or a subnormal */

/* One MXU cell: psum + x * w, with x and w bf16 and the product and the sum
 * each rounded as fp32 (the product of two bf16 values is exact in fp32
 * unless it overflows or is tiny). */
uint32_t tpu_mac(uint32_t psum, uint16_t x, uint16_t w);

/* One MXU cell in int8 mode (numerics.md section 9): x and w each hold two
 * int8 values, element 0 in the low byte; the result is
 * psum + x0*w0 + x1*w1 as a 32-bit two's-complement integer (mod 2^32). */
uint32_t tpu_mac_i8(uint32_t psum, uint16_t x, uint16_t w);
/* bf16 of an int8 (exact: |v| <= 128 needs 8 significant bits); dma.h2v.i8. */
uint16_t tpu_bf16_from_i8(uint8_t v);

/* Transcendentals (numerics.md section 11): each one fixed sequence of
 * the fp32 add and multiply above plus integer exponent steps, the same
 * sequence the RTL's pipeline (rtl/fp32_tr.v) computes stage by stage.
 * Not correctly rounded: the errors are measured in numerics.md 11.5. */
/* The stages of the transcendentals' pipeline: one multiply-add each
 * (the VPU, T27a; rtl/fp32_tr.v's Steps). */
#define TPU_TR_STEPS 10

uint32_t tpu_f32_exp(uint32_t x);              /* vexp:   e^x */
uint32_t tpu_f32_rcp(uint32_t x);              /* vrcp:   1/x */
uint32_t tpu_f32_rsqrt(uint32_t x);            /* vrsqrt: 1/sqrt(x) */

/* The cross-lane unit's pairwise trees (numerics.md section 13): the
 * number of tree levels of n elements, ceil(log2 n); one level a cycle
 * (timing.md section 5a). */
unsigned tpu_xlu_levels(unsigned n);

/* Host conversions, for printing and for tests. */
float    tpu_f32_to_float(uint32_t bits);
uint32_t tpu_f32_from_float(float f);          /* raw bits, no rounding rule applied */

#endif /* TPU_FP_H */
