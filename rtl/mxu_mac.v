// mxu_mac: the arithmetic of one MXU cell, psum + x * w with x and w bf16,
// bit-exact with tpu_mac() in cmodel/fp.c.  Combinational: the cell
// (docs/timing.md T23) registers its output, computing
// psum_o = mac(psum_i, x_i, w_i) in one cycle.
//
// docs/numerics.md section 3, "mac": f32_add(psum, f32_mul(f32(x), f32(w))).
// The product is formed and rounded as an fp32 multiply (exact unless it
// overflows or is flushed: two 8-bit significands make at most 16 bits),
// then added to psum as an fp32 add; there is no fused multiply-add.
//
// Widening bf16 -> fp32 is appending 16 zero bits.  The rule's exceptions
// (a subnormal bf16 becomes a signed zero, a bf16 NaN the canonical NaN)
// need no logic here: fp32_mul reads exponent field 0 as a zero (DAZ) and
// turns every NaN into the canonical NaN, which is what it would do with
// the widened values.  Because the low 16 fraction bits are zero, the
// multiplier only needs the top 7 fraction bits (InFracW = 7): an 8 x 8-bit
// significand product instead of 24 x 24, same bits.

module mxu_mac (
  input  logic [31:0] psum_i,
  input  logic [15:0] x_i,
  input  logic [15:0] w_i,
  output logic [31:0] psum_o
);

  logic [31:0] prod;

  fp32_mul #(
    .InFracW (7)
  ) u_mul (
    .a_i    ({x_i, 16'h0000}),
    .b_i    ({w_i, 16'h0000}),
    .prod_o (prod)
  );

  fp32_add u_add (
    .a_i   (psum_i),
    .b_i   (prod),
    .sum_o (psum_o)
  );

endmodule
