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
// (the exponent put back, the special values).  Every step is one madd:
// a * b + c as an fp32 multiply then an fp32 add, each rounded
// (fp32_mul_f, fp32_add_f: no fused multiply-add), with a, b and c chosen
// by the function and the step; so a stage is one multiplier and one adder.  The shorter
// sequences (rcp: 7 steps, rsqrt: 8) pass the last stages through.
//
// The steps are the task tr_stage of the package fp32_tr_pkg
// (rtl/fp32_tr_pkg.vh, one C++ function for every stage of every lane);
// this module unpacks, runs the pipeline of stages and packs.
//
// A stage computes only in the cycles it holds an instruction (v_q), in
// the taken branch of an `if`, so that Verilator's C++ spends nothing on
// an idle pipeline (docs/rtl.md, "Simulation speed").  The VPU
// (rtl/vpu.v) keeps the instruction's destination register and the
// timing; this module only the values.

`include "fp32_tr_pkg.vh"   // fp32_tr_pkg: the constants, the state, tr_stage

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

  // The names of the package (rtl/fp32_tr_pkg.vh) that unpack and pack
  // use (Yosys 0.23 reads no `import`).
  localparam integer StW = fp32_tr_pkg::StW;   // the state between two stages
  localparam integer PY = fp32_tr_pkg::PY, PU = fp32_tr_pkg::PU, PW = fp32_tr_pkg::PW;
  localparam integer PN = fp32_tr_pkg::PN, PO = fp32_tr_pkg::PO;
  localparam integer PSp = fp32_tr_pkg::PSp, PSg = fp32_tr_pkg::PSg;
  localparam logic [1:0] TrExp = fp32_tr_pkg::TrExp, TrRcp = fp32_tr_pkg::TrRcp;
  localparam logic [1:0] TrRsqrt = fp32_tr_pkg::TrRsqrt;
  localparam logic [1:0] SpNone = fp32_tr_pkg::SpNone, SpNaN = fp32_tr_pkg::SpNaN;
  localparam logic [1:0] SpZero = fp32_tr_pkg::SpZero, SpInf = fp32_tr_pkg::SpInf;
  localparam logic [31:0] ExpLo = fp32_tr_pkg::ExpLo, ExpHi = fp32_tr_pkg::ExpHi;
  localparam logic [31:0] TrQNaN = fp32_tr_pkg::TrQNaN;
  `include "fp32_cmp.vh"

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

  // Stage j computes step j + 1 on the state of stage j - 1 (stage 0 on
  // the unpacked input), only in the cycles it has an input.
  for (genvar j = 0; j < Steps; j++) begin : g_stage
    logic [1:0]     fn_q;                          // the instruction's function
    logic [StW-1:0] st_q;                          // its state after step j + 1
    if (j == 0) begin : g_first
      always_ff @(posedge clk_i) begin : p_stage
        logic [StW-1:0] st;
        if (en_i) begin
          fp32_tr_pkg::tr_stage(fn_i, 1, tr_unpack(fn_i, x_i), st);
          fn_q <= fn_i;
          st_q <= st;
        end
      end
    end else begin : g_next
      always_ff @(posedge clk_i) begin : p_stage
        logic [StW-1:0] st;
        if (v_q[j-1]) begin
          fp32_tr_pkg::tr_stage(g_stage[j-1].fn_q, j + 1, g_stage[j-1].st_q, st);
          fn_q <= g_stage[j-1].fn_q;
          st_q <= st;
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
