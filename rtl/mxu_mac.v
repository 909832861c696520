// mxu_mac: the arithmetic of one MXU cell as a combinational unit, psum +
// x * w with x and w bf16, bit-exact with tpu_mac() in cmodel/fp.c: the
// function mxu_mac_f of the package in mxu_mac_pkg.vh, which mxu_cell
// calls in its clocked block.  This module is what `make rtl-fp-test` checks against the C
// model (sim/rtl_fp/rtl_fp_top.v), so the cells' arithmetic is tested
// operand by operand as well as in lockstep.
//
// en_i: when 0, psum_o is 0 and nothing is computed in the Verilated model
// (fp32_add.v, "en_i").

`include "mxu_mac_pkg.vh"

module mxu_mac (
  input  logic        en_i,
  input  logic [31:0] psum_i,
  input  logic [15:0] x_i,
  input  logic [15:0] w_i,
  output logic [31:0] psum_o
);

  // Not "if .. else": Verilator would turn that into a conditional
  // expression and compute the function in every cycle.
  always_comb begin
    psum_o = 32'd0;
    if (en_i) begin
      psum_o = mxu_mac_pkg::mxu_mac_f(psum_i, x_i, w_i);
    end
  end

endmodule
