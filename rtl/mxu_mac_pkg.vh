// mxu_mac_pkg.vh: the package mxu_mac_pkg, whose function
// mxu_mac_f(psum, x, w) = psum + x * w with x and w bf16 is the arithmetic
// of one MXU cell, bit-exact with tpu_mac() in cmodel/fp.c.  Included at
// the top of mxu_cell.v (which calls it inside its clocked block: docs/rtl.md,
// "Simulation speed") and of mxu_mac.v (the combinational unit that
// `make rtl-fp-test` checks against the C model); the guard declares the
// package once however many files include it.  It includes fp32_mul.vh
// with MulInFracW = 7 and fp32_add.vh.
//
// docs/numerics.md section 3, "mac": f32_add(psum, f32_mul(f32(x), f32(w))).
// The product is formed and rounded as an fp32 multiply (exact unless it
// overflows or is flushed: two 8-bit significands make at most 16 bits),
// then added to psum as an fp32 add; there is no fused multiply-add.
//
// Widening bf16 -> fp32 is appending 16 zero bits.  The rule's exceptions
// (a subnormal bf16 becomes a signed zero, a bf16 NaN the canonical NaN)
// need no logic here: fp32_mul_f reads exponent field 0 as a zero (DAZ) and
// turns every NaN into the canonical NaN, which is what it would do with
// the widened values.  Because the low 16 fraction bits are zero, the
// multiplier only needs the top 7 fraction bits (MulInFracW = 7): an 8 x
// 8-bit significand product instead of 24 x 24, same bits; its operands
// are then the bf16 values themselves.
//
// Why a package: a function declared in a module is copied into every
// instance, and Verilator inlines it at every call, so an N x N array had
// N * N copies of the multiply-add in the generated C++ (mid's 512 cells
// about 0.5 MB of code, more than the host's caches hold per cycle).  A
// package function exists once, and `verilator no_inline_task` makes it
// one C++ function that every cell calls: mid's matmul ran about a
// quarter faster and its model built in about 40% less CPU time.  It is a
// simulation directive only; synthesis still gives every cell its own
// multiply-add.
`ifndef MXU_MAC_PKG_VH
`define MXU_MAC_PKG_VH
package mxu_mac_pkg;
  localparam integer MulInFracW = 7;
  `include "fp32_mul.vh"
  `include "fp32_add.vh"

  function automatic logic [31:0] mxu_mac_f(input logic [31:0] psum, input logic [15:0] x,
                                            input logic [15:0] w);
    /*verilator no_inline_task*/
    mxu_mac_f = fp32_add_f(psum, fp32_mul_f(x, w));
  endfunction
endpackage
`endif
