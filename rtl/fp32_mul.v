// fp32_mul: a * b in the core's fp32 arithmetic, bit-exact with
// tpu_f32_mul() in cmodel/fp.c.  Combinational.
//
// InFracW is how many fraction bits of each input the multiplier uses,
// counted from the top of the 23-bit fraction.  23 (the default) is the
// full fp32 multiply.  The MXU cell uses 7: its inputs are bf16 values
// widened to fp32, whose low 16 fraction bits are zero, so an 8 x 8-bit
// significand multiplier gives the same bits as the 24 x 24 one.  With
// InFracW < 23 the low fraction bits of the inputs are ignored and must be
// zero for the result to be tpu_f32_mul's.
//
// en_i: when 0, prod_o is 0.  The datapath is the function fp32_mul_f of
// fp32_mul.vh (docs/numerics.md section 4, "Multiply"), called in the
// taken branch of an `if (en_i)`, so that Verilator's C++ computes it only
// in the cycles that use it (docs/rtl.md, "Simulation speed"); in
// synthesis it is the same logic with an AND on the output.

module fp32_mul #(
  parameter integer InFracW = 23
) (
  input  logic        en_i,
  input  logic [31:0] a_i,
  input  logic [31:0] b_i,
  output logic [31:0] prod_o
);

  localparam integer MulInFracW = InFracW;
  `include "fp32_mul.vh"

  if (MulPadW != 0) begin : g_narrow
    // The fraction bits below the InFracW used ones are zero by contract.
    logic unused_low_frac;
    assign unused_low_frac = ^{a_i[MulPadW/2-1:0], b_i[MulPadW/2-1:0]};
  end

  // Not "if .. else": Verilator would turn that into a conditional
  // expression and compute the function in every cycle.
  always_comb begin
    prod_o = 32'd0;
    if (en_i) begin
      prod_o = fp32_mul_f(a_i[31 -: MulUsedW], b_i[31 -: MulUsedW]);
    end
  end

endmodule
