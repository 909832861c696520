// fp32_mul.vh: fp32_mul_f(a, b) = a * b in the core's fp32 arithmetic,
// bit-exact with tpu_f32_mul() in cmodel/fp.c.  A function, included in the
// body of the modules that use it: fp32_mul.v (the combinational unit of
// the VPU lanes), and in the package of mxu_mac_pkg.vh, whose mxu_mac_f
// mxu_cell.v calls inside its clocked block (docs/rtl.md, "Simulation
// speed").  The includer
// declares the integer localparam MulInFracW first; this file declares
// MulManW, MulPadW, MulUsedW, MulQNaN and MulInf.
//
// The specification is docs/numerics.md (rule numbers 2.1 ... below are its
// sections); the datapath is its section 4 "Multiply":
//
//   unpack -> multiply the significands (exact) -> normalise (the leading
//   one is at bit 46 or 47) -> round -> pack
//
// and the special cases (NaN, 0 * inf, infinities, zeros) select the
// result at the end.
//
// MulInFracW is how many fraction bits of each input the multiplier uses,
// counted from the top of the 23-bit fraction; a and b are the top
// 9 + MulInFracW bits of the fp32 operands (sign, exponent, the used
// fraction bits).  23 is the full fp32 multiply.  The MXU cell uses 7: its
// inputs are bf16 values, which widen to fp32 with 16 zero fraction bits, so
// an 8 x 8-bit significand multiplier gives the same bits as the 24 x 24 one.

localparam integer MulManW  = MulInFracW + 1;         // significand width with the hidden bit
localparam integer MulPadW  = 2 * (23 - MulInFracW);  // product bits below the used ones (all 0)

localparam logic [31:0] MulQNaN   = 32'h7fc0_0000;    // 2.2: the one NaN
localparam logic [31:0] MulInf    = 32'h7f80_0000;    // +inf: exponent 255, fraction 0

// a and b: the sign, the exponent and the MulInFracW used fraction bits.
localparam integer MulUsedW = 9 + MulInFracW;
function automatic logic [31:0] fp32_mul_f(input logic [MulUsedW-1:0] a, input logic [MulUsedW-1:0] b);
  logic                  a_sign, b_sign, prod_sign;
  logic [7:0]            a_exp, b_exp;
  logic [MulInFracW-1:0] a_frac, b_frac;
  logic                  a_zero, b_zero, a_max, b_max;  // exponent field 0 / 255
  logic [MulManW-1:0]    a_man, b_man;               // 1.F with the hidden bit
  logic [2*MulManW-1:0]  man_prod;
  logic [47:0]           prod, prod_norm;
  logic                  prod_hi;
  logic [9:0]            exp_sum;                    // e + 127: a_exp + b_exp + prod_hi
  logic [23:0]           man_trunc;
  logic                  guard, sticky, round_up;
  logic [31:0]           packed_rnd;                 // exponent and fraction, rounded
  logic                  tiny, overflow;

  // ---- Unpack -------------------------------------------------------
  // 2.1 DAZ: exponent field 0 is a zero of the same sign, whatever the
  // fraction.  The significand of a zero is not used (zeros are a
  // special case), so it is not masked.
  a_sign    = a[MulUsedW-1];
  b_sign    = b[MulUsedW-1];
  prod_sign = a_sign ^ b_sign;                      // 2.7: also for zero and inf products
  a_exp     = a[MulUsedW-2 -: 8];
  b_exp     = b[MulUsedW-2 -: 8];
  a_frac    = a[MulInFracW-1:0];
  b_frac    = b[MulInFracW-1:0];
  a_zero    = (a_exp == 8'h00);
  b_zero    = (b_exp == 8'h00);
  a_max     = (a_exp == 8'hff);                    // an infinity or a NaN
  b_max     = (b_exp == 8'hff);
  a_man     = {1'b1, a_frac};
  b_man     = {1'b1, b_frac};

  // ---- Multiply -----------------------------------------------------
  // The exact product of the significands, placed as the 48-bit product
  // of two 24-bit significands: 1.F * 1.F in [1, 4), the value
  // prod * 2^(a_exp + b_exp - 300).  With MulInFracW < 23 the bits below
  // the used ones are zero (fp32_mul.v's g_narrow sinks them).
  man_prod = {{MulManW{1'b0}}, a_man} * {{MulManW{1'b0}}, b_man};
  prod     = 48'(man_prod) << MulPadW;

  // ---- Normalise ----------------------------------------------------
  // The leading one is at bit 47 or 46: shift by at most one so that it
  // sits at bit 47.  The exact result's biased exponent is then
  // e = a_exp + b_exp - 127, plus 1 if the product was >= 2 (section 4:
  // e = m + k + 127), in -125 .. 382; exp_sum = e + 127, unsigned.
  prod_hi   = prod[47];
  prod_norm = prod << !prod_hi;                     // a shift, not a mux: no branch in C++
  exp_sum   = {2'b00, a_exp} + {2'b00, b_exp} + {9'd0, prod_hi};

  // ---- Round (2.5: nearest, ties to even) and pack --------------------
  // The significand is prod_norm[47:24]; below it the guard bit and the
  // sticky OR of the rest.  The exponent and the significand are packed
  // as (e - 1) * 2^23 + significand: the hidden bit (bit 23) makes the
  // exponent field e, and the rounding bit added there carries out of a
  // fraction of all ones into the exponent by itself.  e - 1 =
  // exp_sum - 128 is at most 381: 9 bits, the packed value below 2^32.
  man_trunc  = prod_norm[47:24];
  guard      = prod_norm[23];
  sticky     = |prod_norm[22:0];
  round_up   = guard & (sticky | man_trunc[0]);
  packed_rnd = {exp_sum[8:0] - 9'd128, 23'd0} + {8'd0, man_trunc} + {31'd0, round_up};

  // 2.4 FTZ, decided on the exact value before rounding: e < 1, that is
  // exp_sum < 128 (then e - 1 wraps, but tiny wins below); 2.6 overflow,
  // after rounding: the packed exponent field is 255 or more.
  tiny     = (exp_sum < 10'd128);
  overflow = (packed_rnd >= MulInf);

  // ---- Select the result ----------------------------------------------
  // Special cases in the order of section 4: NaN (2.2: a NaN input or
  // 0 * inf), infinities, zeros (2.7: the XOR sign), then FTZ, overflow
  // and the rounded value.  The infinities and NaNs (exponent field 255,
  // rare) are told apart inside their own branch, so the common path
  // tests only a_max and b_max.
  if (a_max || b_max) begin
    if ((a_max && a_frac != '0) || (b_max && b_frac != '0)
        || (a_max && b_zero) || (a_zero && b_max)) begin
      fp32_mul_f = MulQNaN;
    end else begin
      fp32_mul_f = {prod_sign, MulInf[30:0]};
    end
  end else if (a_zero || b_zero || tiny) begin
    fp32_mul_f = {prod_sign, 31'd0};
  end else if (overflow) begin
    fp32_mul_f = {prod_sign, MulInf[30:0]};
  end else begin
    fp32_mul_f = {prod_sign, packed_rnd[30:0]};
  end
endfunction
