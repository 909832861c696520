// bf16_round: fp32 -> bf16, round to nearest even, as a combinational
// unit, bit-exact with tpu_bf16_from_f32() in cmodel/fp.c: the function
// bf16_round_f of bf16_round.vh.
//
// en_i: when 0, bf16_o is 0.  The datapath is called in the taken branch
// of an `if (en_i)`, so that Verilator's C++ computes it only in the
// cycles that use it (docs/rtl.md, "Simulation speed"); in synthesis it is
// the same logic with an AND on the output.

module bf16_round (
  input  logic        en_i,
  input  logic [31:0] f32_i,
  output logic [15:0] bf16_o
);

  `include "bf16_round.vh"

  // Not "if .. else": Verilator would turn that into a conditional
  // expression and compute the function in every cycle.
  always_comb begin
    bf16_o = 16'd0;
    if (en_i) begin
      bf16_o = bf16_round_f(f32_i);
    end
  end

endmodule
