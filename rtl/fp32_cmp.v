// fp32_cmp: the comparing operations of the VPU as a combinational unit
// (max, min, relu, cmplt; op_i as fp32_cmp_f's sel), bit-exact with
// tpu_f32_max/min/relu/cmplt() in cmodel/fp.c: the function fp32_cmp_f of
// fp32_cmp.vh.
//
// en_i: when 0, res_o is 0.  The datapath is called in the taken branch of
// an `if (en_i)`, so that Verilator's C++ computes it only in the cycles
// that use it (docs/rtl.md, "Simulation speed"); in synthesis it is the
// same logic with an AND on the output.

module fp32_cmp (
  input  logic        en_i,
  input  logic [31:0] a_i,
  input  logic [31:0] b_i,
  input  logic [1:0]  op_i,
  output logic [31:0] res_o
);

  `include "fp32_cmp.vh"

  // Not "if .. else": Verilator would turn that into a conditional
  // expression and compute the function in every cycle.
  always_comb begin
    res_o = 32'd0;
    if (en_i) begin
      res_o = fp32_cmp_f(a_i, b_i, op_i);
    end
  end

endmodule
