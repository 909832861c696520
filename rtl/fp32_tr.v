// fp32_tr: the transcendentals of one VPU lane, e^x (vexp), 1/x (vrcp)
// and 1/sqrt(x) (vrsqrt), bit-exact with tpu_f32_exp/rcp/rsqrt() in
// cmodel/fp.c: docs/numerics.md section 11 is the specification and its
// table of steps is this pipeline.
//
// A pipeline of Steps (10) stages, one instruction a cycle.  An input that
// enters with en_i in cycle t is unpacked and goes through step 1 in t
// (its state lands in g_stage[0].st_q at the end of t), through step j+1
// in t + j (g_stage[j].st_q), and its result y_o is on the output in
// cycle t + Steps, from the last stage's state, packed combinationally
// (the exponent put back, the special values).  Every step is one madd: a * b + c as an fp32
// multiply then an fp32 add, each rounded (fp32_mul_f, fp32_add_f: no
// fused multiply-add), with a, b and c chosen by the function and the
// step; so a stage is one multiplier and one adder.  The shorter
// sequences (rcp: 7 steps, rsqrt: 8) pass the last stages through.
//
// A stage computes only in the cycles it holds an instruction (v_q), in
// the taken branch of an `if`, so that Verilator's C++ spends nothing on
// an idle pipeline (docs/rtl.md, "Simulation speed").  The VPU
// (rtl/vpu.v) keeps the instruction's destination register and the
// timing; this module only the values.

module fp32_tr #(
  parameter integer Steps    = 10,                 // TPU_TR_STEPS in cmodel/include/tpu/fp.h
  parameter bit     ExtValid = 1'b0                // 1: the stages' valid bits are v_i
) (
  input  logic        clk_i,
  input  logic        rst_ni,
  input  logic        en_i,                        // an input enters (step 1 in this cycle)
  // With ExtValid: which stages hold an instruction, kept by the owner
  // exactly as v_q below would be (bit j: en_i j + 1 cycles ago).  The
  // VPU passes the one copy its lanes share, so that in the Verilated
  // model every lane's stage j tests the same bit and the tests are
  // merged into one per stage instead of one per lane and stage.
  input  logic [Steps-1:0] v_i,
  input  logic [1:0]  fn_i,                        // TrExp, TrRcp, TrRsqrt
  input  logic [31:0] x_i,
  output logic [31:0] y_o                          // the input of Steps cycles ago; 0 when none
);

  localparam integer MulInFracW = 23;              // the full fp32 multiply
  `include "fp32_add.vh"
  `include "fp32_mul.vh"
  `include "fp32_cmp.vh"

  localparam logic [1:0] TrExp   = 2'd0;
  localparam logic [1:0] TrRcp   = 2'd1;
  localparam logic [1:0] TrRsqrt = 2'd2;

  // Constants (numerics.md 11.2-11.4; the same bits as cmodel/fp.c).
  localparam logic [31:0] One      = 32'h3f80_0000;  // 1.0
  localparam logic [31:0] Half     = 32'h3f00_0000;  // 0.5
  localparam logic [31:0] ExpLo    = 32'hc2d0_0000;  // -104.0
  localparam logic [31:0] ExpHi    = 32'h42c8_0000;  //  100.0
  localparam logic [31:0] InvLn2   = 32'h3fb8_aa3b;  // 1/ln2
  localparam logic [31:0] Magic    = 32'h4b40_0000;  // 1.5 * 2^23
  localparam logic [31:0] Ln2Hi    = 32'hbf31_7200;  // -0.693145751953125
  localparam logic [31:0] Ln2Lo    = 32'hb5bf_be8e;  // -(ln2 - 0.693145751953125)
  localparam logic [31:0] ExpC6    = 32'h3ab6_34fb;
  localparam logic [31:0] ExpC5    = 32'h3c09_0592;
  localparam logic [31:0] ExpC4    = 32'h3d2a_aadd;
  localparam logic [31:0] ExpC3    = 32'h3e2a_aa6f;
  localparam logic [31:0] ExpC2    = 32'h3f00_0000;
  localparam logic [31:0] RcpC0    = 32'h3fb4_b4b5;  //  24/17
  localparam logic [31:0] RcpC1    = 32'hbef0_f0f1;  // -8/17
  localparam logic [31:0] RsqQ2E   = 32'h3e17_3b6a;  // m in [1, 2) (E - 127 even)
  localparam logic [31:0] RsqQ1E   = 32'hbf3b_02fd;
  localparam logic [31:0] RsqQ0E   = 32'h3fca_319d;
  localparam logic [31:0] RsqQ2O   = 32'h3cd5_dfdd;  // m in [2, 4) (odd)
  localparam logic [31:0] RsqQ1O   = 32'hbe84_3cba;
  localparam logic [31:0] RsqQ0O   = 32'h3f8e_f8fd;
  localparam logic [31:0] TrQNaN   = 32'h7fc0_0000;

  // The state of one input between two stages, packed (positions below):
  // y the running value, u and w the operands kept for later steps, n the
  // exponent to add at the end (signed), o rsqrt's odd-exponent bit, spec
  // the special result (SpNone, SpNaN, SpZero, SpInf) and its sign.
  localparam integer StW = 32 * 3 + 10 + 1 + 2 + 1;
  localparam integer PY = 0, PU = 32, PW = 64, PN = 96, PO = 106, PSp = 107, PSg = 109;
  localparam logic [1:0] SpNone = 2'd0, SpNaN = 2'd1, SpZero = 2'd2, SpInf = 2'd3;

  // Unpack (integer work, before step 1): the first state of x.
  function automatic logic [StW-1:0] tr_unpack(input logic [1:0] fn, input logic [31:0] x);
    logic [StW-1:0] s;
    logic [7:0]     e;
    logic           zero, max, nan, o;
    s    = '0;
    e    = x[30:23];
    zero = (e == 8'h00);                           // 2.1: subnormals are zeros
    max  = (e == 8'hff);
    nan  = max && (x[22:0] != 23'd0);
    s[PSg] = x[31];
    case (fn)
      TrExp: begin
        // clamp: also +-inf to 100 / -104, subnormals to +-0
        s[PU +: 32] = fp32_cmp_f(fp32_cmp_f(x, ExpLo, CmpOpMax), ExpHi, CmpOpMin);
        if (nan) begin
          s[PSp +: 2] = SpNaN;
        end
      end
      TrRcp: begin
        s[PU +: 32] = {9'b0_0111_1111, x[22:0]};   // 1.f
        s[PN +: 10] = 10'd127 - {2'b00, e};        // 127 - E
        if (nan) begin
          s[PSp +: 2] = SpNaN;
        end else if (max) begin
          s[PSp +: 2] = SpZero;                    // 1/+-inf = +-0
        end else if (zero) begin
          s[PSp +: 2] = SpInf;                     // 1/+-0 = +-inf
        end
      end
      TrRsqrt: begin
        // E - 127 = 2n + o: o = 1 when E is even; then n = E[7:1] - o - 63
        o           = !e[0];
        s[PO]       = o;
        s[PU +: 32] = {1'b0, 8'd127 + {7'd0, o}, x[22:0]};  // m = 1.f * 2^o
        s[PW +: 32] = {1'b0, 8'd126 + {7'd0, o}, x[22:0]};  // m / 2
        s[PN +: 10] = 10'd63 + {9'd0, o} - {3'b000, e[7:1]};  // -n
        if (nan || (x[31] && !zero)) begin
          s[PSp +: 2] = SpNaN;                     // NaN, x < 0, -inf
        end else if (max) begin
          s[PSp +: 2] = SpZero;                    // +inf -> +0
        end else if (zero) begin
          s[PSp +: 2] = SpInf;                     // +-0 -> +-inf
        end
      end
      default: ;                                   // not an instruction
    endcase
    tr_unpack = s;
  endfunction

  // Step j (1 .. Steps) of function fn is one madd a * b + c whose result
  // goes into y, u or w (or, for the steps a sequence does not have,
  // nowhere).  tr_ops picks {dst, a, b, c} (dst: DstNone, DstY, DstU, DstW);
  // each stage has one multiplier and one adder, shared by the functions.
  localparam logic [1:0] DstNone = 2'd0, DstY = 2'd1, DstU = 2'd2, DstW = 2'd3;

  function automatic logic [97:0] tr_ops(input logic [1:0] fn, input integer j,
                                         input logic [StW-1:0] st);
    logic [1:0]  d;
    logic [31:0] a, b, c, y, u, w, nu;
    logic        o;
    y  = st[PY +: 32];
    u  = st[PU +: 32];
    w  = st[PW +: 32];
    o  = st[PO];
    nu = {1'b1, u[30:0]};                          // -u (u > 0)
    d  = DstNone;
    a  = y;
    b  = u;
    c  = y;
    case (fn)
      TrExp: begin
        case (j)
          1: begin d = DstY; a = u;     b = InvLn2; c = Magic; end  // m = x/ln2 + 1.5 * 2^23
          2: begin d = DstW; a = y;     b = One;    c = {1'b1, Magic[30:0]}; end  // kf = m - 1.5 * 2^23
          3: begin d = DstY; a = w;     b = Ln2Hi;  c = u; end      // x - k ln2_hi (exact)
          4: begin d = DstU; a = w;     b = Ln2Lo;  c = y; end      // r
          5: begin d = DstY; a = ExpC6; b = u;      c = ExpC5; end  // the polynomial, Horner
          6: begin d = DstY; a = y;     b = u;      c = ExpC4; end
          7: begin d = DstY; a = y;     b = u;      c = ExpC3; end
          8: begin d = DstY; a = y;     b = u;      c = ExpC2; end
          9, 10: begin d = DstY; a = y; b = u;      c = One; end
          default: ;
        endcase
      end
      TrRcp: begin
        case (j)
          1: begin d = DstY; a = u;  b = RcpC1; c = RcpC0; end      // first estimate
          2, 4, 6: begin d = DstW; a = nu; b = y; c = One; end      // e = 1 - m y
          3, 5, 7: begin d = DstY; a = y;  b = w; c = y; end        // y = y + y e
          default: ;
        endcase
      end
      TrRsqrt: begin
        case (j)
          1: begin d = DstY; a = u; b = o ? RsqQ2O : RsqQ2E; c = o ? RsqQ1O : RsqQ1E; end
          2: begin d = DstY; a = y; b = u;                   c = o ? RsqQ0O : RsqQ0E; end
          3, 6: begin d = DstU; a = w;  b = y; c = 32'd0; end       // h = (m/2) y
          4, 7: begin d = DstU; a = nu; b = y; c = Half; end        // e = 1/2 - h y
          5, 8: begin d = DstY; a = y;  b = u; c = y; end           // y = y + y e
          default: ;
        endcase
      end
      default: ;
    endcase
    tr_ops = {d, a, b, c};
  endfunction

  // The state after the madd's result r: r in its destination; step 1 of
  // exp also takes k = round(x / ln2) from r's bits.
  function automatic logic [StW-1:0] tr_dst(input logic [1:0] fn, input integer j,
                                            input logic [StW-1:0] st, input logic [1:0] d,
                                            input logic [31:0] r);
    logic [StW-1:0] s;
    s = st;
    case (d)
      DstY: s[PY +: 32] = r;
      DstU: s[PU +: 32] = r;
      DstW: s[PW +: 32] = r;
      default: ;
    endcase
    if (fn == TrExp && j == 1) begin
      s[PN +: 10] = 10'(r - Magic);                // -150 .. 145
    end
    tr_dst = s;
  endfunction

  // Pack (integer work, after the last step): y * 2^n, or the special value.
  function automatic logic [31:0] tr_pack(input logic [1:0] fn, input logic [StW-1:0] st);
    logic [30:0] y;                                // y > 0: no sign
    logic [10:0] e;                                // signed: exponent field of y + n
    logic        sg;
    y  = st[PY +: 31];
    sg = (fn == TrExp) ? 1'b0 : st[PSg];
    e  = {3'b000, y[30:23]} + {st[PN + 9], st[PN +: 10]};
    case (st[PSp +: 2])
      SpZero: tr_pack = {sg, 31'd0};
      SpInf:  tr_pack = {sg, 8'hff, 23'd0};
      SpNone: begin
        if (!e[10] && e[9:0] >= 10'd255) begin
          tr_pack = {sg, 8'hff, 23'd0};            // exp: overflow
        end else if (e[10] || e == 11'd0) begin
          tr_pack = {sg, 31'd0};                   // below 2^-126: flushed (2.4)
        end else begin
          tr_pack = {sg, e[7:0], y[22:0]};
        end
      end
      default: tr_pack = TrQNaN;                   // SpNaN
    endcase
  endfunction

  // ---- the pipeline ---------------------------------------------------------
  // v_q[j]: stage j holds an instruction.  A packed vector shifted by one
  // assignment, and each stage's function and state (fn_q, st_q) a
  // register of its own in g_stage[j], not elements of unpacked arrays,
  // each of which the Verilated model gives a delayed-assignment flag that
  // it clears and tests in every cycle (30 per lane, 1,920 on tiny's 64
  // lanes, busy or not; docs/rtl.md, "Simulation speed").
  logic [Steps-1:0]     v_q;

  if (ExtValid) begin : g_ext
    assign v_q = v_i;
    /* verilator tracing_off */  // a lint sink: not traced, not computed
    logic unused_rst;
    assign unused_rst = rst_ni;
    /* verilator tracing_on */
  end else begin : g_own
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        v_q <= '0;
      end else begin
        v_q <= {v_q[Steps-2:0], en_i};
      end
    end
    /* verilator tracing_off */  // a lint sink: not traced, not computed
    logic unused_v;
    assign unused_v = ^v_i;
    /* verilator tracing_on */
  end

  function automatic logic [StW-1:0] tr_stage(input logic [1:0] fn, input integer j,
                                              input logic [StW-1:0] st);
    logic [97:0] ops;
    ops      = tr_ops(fn, j, st);
    tr_stage = tr_dst(fn, j, st, ops[97:96],
                      fp32_add_f(fp32_mul_f(ops[95:64], ops[63:32]), ops[31:0]));
  endfunction

  // Stage j computes step j + 1 on the state of stage j - 1 (stage 0 on
  // the unpacked input), only in the cycles it has an input.
  for (genvar j = 0; j < Steps; j++) begin : g_stage
    logic [1:0]     fn_q;                          // the instruction's function
    logic [StW-1:0] st_q;                          // its state after step j + 1
    if (j == 0) begin : g_first
      always_ff @(posedge clk_i) begin
        if (en_i) begin
          fn_q <= fn_i;
          st_q <= tr_stage(fn_i, 1, tr_unpack(fn_i, x_i));
        end
      end
    end else begin : g_next
      always_ff @(posedge clk_i) begin
        if (v_q[j-1]) begin
          fn_q <= g_stage[j-1].fn_q;
          st_q <= tr_stage(g_stage[j-1].fn_q, j + 1, g_stage[j-1].st_q);
        end
      end
    end
  end

  // Not "if .. else": Verilator would compute the function in every cycle.
  always_comb begin
    y_o = 32'd0;
    if (v_q[Steps-1]) begin
      y_o = tr_pack(g_stage[Steps-1].fn_q, g_stage[Steps-1].st_q);
    end
  end

endmodule
