// bf16_round.vh: bf16_round_f(f32), fp32 -> bf16, round to nearest even,
// bit-exact with tpu_bf16_from_f32() in cmodel/fp.c.  A function, included
// in the body of the module that uses it, bf16_round.v (the unit that the
// VPU's lanes instantiate for vst.bf16 and `make rtl-fp-test` checks),
// like the other fp datapaths (docs/rtl.md).  It declares the localparam
// RoundQNaN.
//
// docs/numerics.md section 3, "fp32 -> bf16":
//   NaN                      -> 0x7fc0 (rule 2.2, the one bf16 NaN)
//   exponent field 0         -> the signed bf16 zero (2.1 DAZ)
//   infinity                 -> the bf16 infinity of the same sign
//   normal                   -> keep the top 16 bits u, round on the low
//                               16 bits l: u + 1 if l > 0x8000, or if
//                               l == 0x8000 and u is odd (2.5)
// A carry out of the 7-bit fraction bumps the exponent, and out of 0x7f7f
// it gives 0x7f80 = inf: that is the overflow rule 2.6.  A normal input
// never rounds below the smallest normal, so no flush is needed.

localparam logic [15:0] RoundQNaN = 16'h7fc0;

function automatic logic [15:0] bf16_round_f(input logic [31:0] f32);
  logic        is_zero, is_nan, is_inf;
  logic [15:0] upper;
  logic        guard, sticky, round_up;

  is_zero  = (f32[30:23] == 8'h00);
  is_nan   = (f32[30:23] == 8'hff) && (f32[22:0] != 23'd0);
  is_inf   = (f32[30:23] == 8'hff) && (f32[22:0] == 23'd0);

  // Nearest even on the 16 dropped bits: the guard bit is l's top bit,
  // the sticky bit the OR of the other 15.
  upper    = f32[31:16];
  guard    = f32[15];
  sticky   = |f32[14:0];
  round_up = guard & (sticky | upper[0]);

  if (is_nan) begin
    bf16_round_f = RoundQNaN;
  end else if (is_zero) begin
    bf16_round_f = {f32[31], 15'd0};
  end else if (is_inf) begin
    bf16_round_f = upper;                       // its low 16 bits are zero
  end else begin
    bf16_round_f = upper + {15'd0, round_up};   // 0x7f7f + 1 = 0x7f80: inf (2.6)
  end
endfunction
