// fp32_cmp.vh: fp32_cmp_f(a, b, sel), the comparing operations of the VPU,
// bit-exact with tpu_f32_max/min/relu/cmplt() in cmodel/fp.c.  A function,
// included in the body of the module that uses it, fp32_cmp.v (the unit
// that the VPU's lanes instantiate and `make rtl-fp-test` checks), like
// the other fp datapaths (docs/rtl.md).  It declares the localparams
// CmpOpMax, CmpOpMin, CmpOpRelu, CmpOpCmplt, CmpQNaN and CmpOne.
//
//   sel   operation  result (docs/numerics.md section 3)
//   2'd0  max        max(a, b); NaN if either is NaN; max(-0, +0) = +0
//   2'd1  min        min(a, b); NaN if either is NaN; min(-0, +0) = -0
//   2'd2  relu       max(a, +0); b is ignored
//   2'd3  cmplt      1.0 (0x3f800000) if a < b, else +0.0; NaN -> +0.0;
//                    -0 < +0 is false (IEEE: the zeros are equal)
//
// Inputs are read after DAZ (rule 2.1): a subnormal is its signed zero,
// and max/min/relu return it as that zero.

localparam logic [1:0]  CmpOpMax   = 2'd0;
localparam logic [1:0]  CmpOpMin   = 2'd1;
localparam logic [1:0]  CmpOpRelu  = 2'd2;
localparam logic [1:0]  CmpOpCmplt = 2'd3;

localparam logic [31:0] CmpQNaN    = 32'h7fc0_0000;   // 2.2: the one NaN
localparam logic [31:0] CmpOne     = 32'h3f80_0000;   // cmplt's "true"

function automatic logic [31:0] fp32_cmp_f(input logic [31:0] a, input logic [31:0] b,
                                           input logic [1:0] sel);
  logic [31:0] b_op, a_daz, b_daz;
  logic        a_nan, b_nan;
  logic [31:0] a_key, b_key;
  logic        a_ge_b, both_zero, a_lt_b;
  logic        any_nan;
  logic [31:0] max_res, min_res, cmplt_res;

  // ---- Unpack -------------------------------------------------------
  // relu is max against +0.  2.1 DAZ: exponent field 0 becomes the
  // signed zero, so the comparison and the returned bits both see the
  // zero.
  b_op  = (sel == CmpOpRelu) ? 32'd0 : b;
  a_daz = (a[30:23] == 8'h00) ? {a[31], 31'd0} : a;
  b_daz = (b_op[30:23] == 8'h00) ? {b_op[31], 31'd0} : b_op;
  a_nan = (a[30:23] == 8'hff) && (a[22:0] != 23'd0);
  b_nan = (b_op[30:23] == 8'hff) && (b_op[22:0] != 23'd0);

  // ---- Compare ------------------------------------------------------
  // Sign-magnitude to an unsigned key that orders like the real numbers
  // (NaNs aside): a negative value is inverted (larger magnitude,
  // smaller key), a positive one gets its top bit set.  -0 (key
  // 0x7fffffff) sorts just below +0 (0x80000000): the order max and min
  // use.  cmplt uses IEEE's order, in which the two zeros are equal.
  a_key     = a_daz[31] ? ~a_daz : {1'b1, a_daz[30:0]};
  b_key     = b_daz[31] ? ~b_daz : {1'b1, b_daz[30:0]};
  a_ge_b    = (a_key >= b_key);
  both_zero = (a_daz[30:0] == 31'd0) && (b_daz[30:0] == 31'd0);
  a_lt_b    = !a_ge_b && !both_zero;

  // ---- Select the result ----------------------------------------------
  // Equal keys mean equal bits, so which one max/min returns then does
  // not matter.  2.2: any NaN input makes max/min/relu the canonical NaN
  // and cmplt false.
  any_nan   = a_nan || b_nan;
  max_res   = any_nan ? CmpQNaN : (a_ge_b ? a_daz : b_daz);
  min_res   = any_nan ? CmpQNaN : (a_ge_b ? b_daz : a_daz);
  cmplt_res = (!any_nan && a_lt_b) ? CmpOne : 32'd0;

  case (sel)
    CmpOpMax, CmpOpRelu: fp32_cmp_f = max_res;
    CmpOpMin:            fp32_cmp_f = min_res;
    CmpOpCmplt:          fp32_cmp_f = cmplt_res;
    default:             fp32_cmp_f = 32'd0;        // unreachable: all four codes used
  endcase
endfunction
