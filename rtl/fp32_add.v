// fp32_add: a + b in the core's fp32 arithmetic, bit-exact with
// tpu_f32_add() in cmodel/fp.c.  Combinational: the unit that uses it
// decides where the registers go.
//
// en_i: when 0, sum_o is 0.  The datapath is the function fp32_add_f of
// fp32_add.vh (docs/numerics.md section 4, "Add"), called in the taken
// branch of an `if (en_i)`, so that Verilator's C++ computes it only in
// the cycles that use it (docs/rtl.md, "Simulation speed"); in synthesis
// it is the same logic with an AND on the output.

module fp32_add (
  input  logic        en_i,
  input  logic [31:0] a_i,
  input  logic [31:0] b_i,
  output logic [31:0] sum_o
);

  `include "fp32_add.vh"

  // Not "if .. else": Verilator would turn that into a conditional
  // expression and compute the function in every cycle.
  always_comb begin
    sum_o = 32'd0;
    if (en_i) begin
      sum_o = fp32_add_f(a_i, b_i);
    end
  end

endmodule
