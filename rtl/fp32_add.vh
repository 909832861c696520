// fp32_add.vh: fp32_add_f(a, b) = a + b in the core's fp32 arithmetic,
// bit-exact with tpu_f32_add() in cmodel/fp.c.  A function, included in the
// body of the modules that use it: fp32_add.v (the combinational unit of
// the VPU lanes and mxu.mma), and in the package of mxu_mac_pkg.vh, whose
// mxu_mac_f mxu_cell.v calls inside its clocked block (docs/rtl.md,
// "Simulation speed").
// It declares the localparams AddQNaN, AddInf and AddAlignMax.
//
// The specification is docs/numerics.md; the rule numbers below (2.1 ...)
// are its sections, and the datapath is its section 4 "Add":
//
//   unpack -> order by magnitude -> align (guard, round, sticky)
//   -> add or subtract -> leading-zero count -> normalise -> round -> pack
//
// and the special cases (NaN, infinities, two zeros) select the result at
// the end.  Subtraction is not a separate unit: a - b is a + (-b), the
// user flips b's sign bit (numerics.md section 3, vsub); a NaN b stays a
// NaN, so that is exact.

localparam logic [31:0] AddQNaN     = 32'h7fc0_0000;  // 2.2: the one NaN
localparam logic [31:0] AddInf      = 32'h7f80_0000;  // +inf: exponent 255, fraction 0
localparam logic [4:0]  AddAlignMax = 5'd27;           // 24 significand + 3 guard bits

function automatic logic [31:0] fp32_add_f(input logic [31:0] a, input logic [31:0] b);
  logic        a_sign, b_sign;
  logic [7:0]  a_exp, b_exp;
  logic        a_zero, b_zero, a_max, b_max;          // exponent field 0 / 255
  logic [23:0] a_man, b_man;                        // 1.F with the hidden bit
  logic        swap, big_sign;
  logic [31:0] swap_d;                              // a ^ b if swapped, else 0
  logic [7:0]  big_exp, small_exp;
  logic [23:0] big_man, small_man;
  logic [7:0]  exp_diff;
  logic [4:0]  align_shift;
  logic [53:0] small_wide;                          // [53:27] kept, [26:0] shifted out
  logic [26:0] big_sig, small_sig;
  logic        eff_sub;
  logic [27:0] sum_raw;
  logic [4:0]  lead_zeros;
  logic        lz16, lz8, lz4, lz2, lz1;          // the five steps of the count
  logic [27:0] sum_norm;
  logic [23:0] man_trunc;
  logic        guard, sticky, round_up;
  logic [31:0] packed_rnd;                          // exponent and fraction, rounded
  logic        tiny, overflow;

  // ---- Unpack -------------------------------------------------------
  // 2.1 DAZ: exponent field 0 is a zero of the same sign, whatever the
  // fraction; its significand is 0 so the datapath below adds nothing.
  a_sign = a[31];
  b_sign = b[31];
  a_exp  = a[30:23];
  b_exp  = b[30:23];
  a_zero = (a_exp == 8'h00);
  b_zero = (b_exp == 8'h00);
  a_max  = (a_exp == 8'hff);                        // an infinity or a NaN
  b_max  = (b_exp == 8'hff);
  a_man  = a_zero ? 24'd0 : {1'b1, a[22:0]};
  b_man  = b_zero ? 24'd0 : {1'b1, b[22:0]};

  // ---- Order by magnitude -------------------------------------------
  // "big" has the larger magnitude (larger exponent, or equal exponent
  // and larger significand; a on a tie), so big - small is never
  // negative and the result takes big's sign.  A zero operand
  // (significand 0) is always "small" and adds nothing: the other
  // operand comes out unchanged, as section 4 requires.
  // The swap is written with XOR masks, a mux in hardware; in the
  // Verilated model five `swap ? b : a` became one if/else, a branch the
  // host mispredicts on random data, and the masks have none.
  swap      = {b_exp, b_man} > {a_exp, a_man};
  swap_d    = ({a_exp, a_man} ^ {b_exp, b_man}) & {32{swap}};
  {big_exp, big_man}     = {a_exp, a_man} ^ swap_d;
  {small_exp, small_man} = {b_exp, b_man} ^ swap_d;
  big_sign  = a_sign ^ (swap & (a_sign ^ b_sign));

  // ---- Align --------------------------------------------------------
  // Both significands get 3 zero bits below (guard, round, sticky): 27
  // bits.  The small one shifts right by the exponent difference d;
  // bits shifted out are ORed into bit 0 (sticky).  d >= 27 shifts
  // everything out, leaving only the sticky bit.  Section 4 shows why
  // this sticky bit gives exactly the rounding of the exact sum.
  exp_diff    = big_exp - small_exp;
  align_shift = (exp_diff > {3'b000, AddAlignMax}) ? AddAlignMax : exp_diff[4:0];
  small_wide  = {small_man, 3'b000, 27'd0} >> align_shift;
  big_sig     = {big_man, 3'b000};
  small_sig   = {small_wide[53:28], small_wide[27] | (|small_wide[26:0])};

  // ---- Add or subtract ----------------------------------------------
  // 28 bits: one carry bit above the 27.  Never negative (big >= small).
  eff_sub = a_sign ^ b_sign;
  sum_raw = eff_sub ? ({1'b0, big_sig} - {1'b0, small_sig})
                    : ({1'b0, big_sig} + {1'b0, small_sig});

  // ---- Normalise ----------------------------------------------------
  // Shift the leading one of the 28-bit sum up to bit 27 and count the
  // shift (the leading zeros), in five steps of 16, 8, 4, 2 and 1 bits:
  // each step shifts when the top bits it looks at are all zero, and its
  // bit of the count says whether it did.  (Written as shifts by the
  // count's bits rather than ifs: the Verilated model then has no
  // data-dependent branch here for the host to mispredict; docs/rtl.md,
  // "Simulation speed".)  For a sum of 0 the count is unused (2.7 below).
  lz16       = (sum_raw[27:12] == 16'd0);
  sum_norm   = sum_raw << {lz16, 4'd0};
  lz8        = (sum_norm[27:20] == 8'd0);
  sum_norm   = sum_norm << {lz8, 3'd0};
  lz4        = (sum_norm[27:24] == 4'd0);
  sum_norm   = sum_norm << {lz4, 2'd0};
  lz2        = (sum_norm[27:26] == 2'd0);
  sum_norm   = sum_norm << {lz2, 1'b0};
  lz1        = !sum_norm[27];
  sum_norm   = sum_norm << lz1;
  lead_zeros = {lz16, lz8, lz4, lz2, lz1};

  // The exact result is sum_raw * 2^(big_exp - 153); its leading one is
  // at bit 27 - lead_zeros, so its biased exponent is e = big_exp + 1 -
  // lead_zeros (section 4: e = m + k + 127), in -26 .. 255 for a sum that
  // is not 0.  It is used as e - 1 = big_exp - lead_zeros, unsigned.

  // ---- Round (2.5: nearest, ties to even) and pack --------------------
  // The significand is sum_norm[27:4]; below it the guard bit and the
  // sticky OR of the rest.  The exponent and the significand are packed
  // as (e - 1) * 2^23 + significand: the hidden bit (bit 23) makes the
  // exponent field e, and the rounding bit added there carries out of a
  // fraction of all ones into the exponent (1.11..1 -> 10.00..0) by
  // itself.  While e is in 1 .. 255, e - 1 fits the 8 bits.
  man_trunc  = sum_norm[27:4];
  guard      = sum_norm[3];
  sticky     = |sum_norm[2:0];
  round_up   = guard & (sticky | man_trunc[0]);
  packed_rnd = {1'b0, big_exp - {3'b000, lead_zeros}, 23'd0} + {8'd0, man_trunc}
             + {31'd0, round_up};

  // 2.4 FTZ, decided on the exact value before rounding: e < 1, that is
  // big_exp < lead_zeros.  2.6 overflow, after rounding: the packed
  // exponent field is 255 or more (e is at most 255, so the packed value
  // is at most 2^31: it does not wrap).
  tiny     = (big_exp < {3'b000, lead_zeros});
  overflow = (packed_rnd >= AddInf);

  // ---- Select the result ----------------------------------------------
  // Special cases in the order of section 4: NaN (2.2: a NaN input or
  // inf - inf), infinities, two zeros (2.7: -0 only for (-0) + (-0)), an
  // exact zero sum (2.7: x + (-x) = +0), then the rounded value.  The
  // infinities and NaNs (exponent field 255, rare) are told apart inside
  // their own branch, so the common path tests only a_max and b_max.
  if (a_max || b_max) begin
    if ((a_max && a[22:0] != 23'd0) || (b_max && b[22:0] != 23'd0) || (a_max && b_max && eff_sub)) begin
      fp32_add_f = AddQNaN;
    end else begin
      fp32_add_f = {a_max ? a_sign : b_sign, AddInf[30:0]};
    end
  end else if (a_zero && b_zero) begin
    fp32_add_f = {a_sign & b_sign, 31'd0};
  end else if (sum_raw == 28'd0) begin
    fp32_add_f = 32'd0;
  end else if (tiny) begin
    fp32_add_f = {big_sign, 31'd0};
  end else if (overflow) begin
    fp32_add_f = {big_sign, AddInf[30:0]};
  end else begin
    fp32_add_f = {big_sign, packed_rnd[30:0]};
  end
endfunction
