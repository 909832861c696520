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
//
// en_i: when 0, psum_o is 0 and neither unit computes anything in the
// Verilated model (fp32_add.v, "en_i"); the cell enables it when a valid
// activation is present.

module mxu_mac (
  input  logic        en_i,
  input  logic [31:0] psum_i,
  input  logic [15:0] x_i,
  input  logic [15:0] w_i,
  output logic [31:0] psum_o
);

  logic [31:0] prod;

  fp32_mul #(
    .InFracW (7)
  ) u_mul (
    .en_i   (en_i),
    .a_i    ({x_i, 16'h0000}),
    .b_i    ({w_i, 16'h0000}),
    .prod_o (prod)
  );

`ifdef TPU_MUTATION
  // Mutation test (docs/cosim.md, sim/cosim/cosim.mk): a deliberately
  // injected rare bug that lockstep must catch.  In the one cell whose
  // instance path contains g_row[3].g_col[5] (cell k = 3, c = 5 of every
  // MXU), the product 1.5 x 3.0 (x = 0x3fc0, w = 0x4040) has fraction bit
  // 22 flipped (4.5 becomes 6.5).  Simulation only; never in a normal build.
  logic [31:0] prod_used;
  logic        mut_here;
  initial begin
    string path;
    path = $sformatf("%m");
    mut_here = 1'b0;
    for (int i = 0; i + 17 <= path.len(); i++)
      if (path.substr(i, i + 16) == "g_row[3].g_col[5]")
        mut_here = 1'b1;
  end
  assign prod_used = (mut_here && x_i == 16'h3fc0 && w_i == 16'h4040)
                     ? prod ^ 32'h0040_0000 : prod;
`else
  logic [31:0] prod_used;
  assign prod_used = prod;
`endif

  fp32_add u_add (
    .en_i  (en_i),
    .a_i   (psum_i),
    .b_i   (prod_used),
    .sum_o (psum_o)
  );

endmodule
