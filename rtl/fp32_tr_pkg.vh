// fp32_tr_pkg.vh: the package fp32_tr_pkg, the arithmetic of the VPU's
// transcendental pipeline (rtl/fp32_tr.v): e^x (vexp), 1/x (vrcp) and
// 1/sqrt(x) (vrsqrt), bit-exact with tpu_f32_exp/rcp/rsqrt() in
// cmodel/fp.c (docs/numerics.md section 11 is the specification and its
// table of steps is this code): the constants, the layout of the state
// between two stages, and one step (the task tr_stage: one madd, an fp32
// multiply then an fp32 add, each rounded).  The unpacking before step 1
// and the packing after the last stay in fp32_tr.v (one of each per lane).
//
// Why a package (as rtl/mxu_mac_pkg.vh): a function declared in a module
// is copied into every instance, and Verilator inlines it at every call;
// fp32_tr has Steps stages and the VPU one fp32_tr per element, so tiny's
// 64 elements had 640 inlined copies of a stage: three quarters of the
// core's generated C++ (56 of 74 MB).  A package task exists once, and
// `verilator no_inline_task` makes it one C++ function that every stage
// calls.  It is a simulation directive only; synthesis still gives every
// stage its own multiplier and adder (Yosys: the same 1,221 cells and 10
// multipliers as before).  The meta-mutant build (tpu-mutate) drops the
// directive here, as in mxu_mac_pkg.vh: the fp mutants of fp32_add.vh and
// fp32_mul.vh, included below, read the mutant selector, and a function
// that is not inlined may not (Verilator's IMPURE); so that one build
// still inlines the step.  The mutants of this pipeline (73-76) are in
// fp32_tr.v's unpack and pack.
`ifndef FP32_TR_PKG_VH
`define FP32_TR_PKG_VH
package fp32_tr_pkg;
  localparam integer MulInFracW = 23;              // the full fp32 multiply
  `include "fp32_add.vh"
  `include "fp32_mul.vh"

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

  // One stage: step j on state st, one multiplier and one adder.  A task
  // with an output, not a function: Verilator cannot keep a function whose
  // result is wider than 64 bits out of line.
  task automatic tr_stage(input logic [1:0] fn, input integer j, input logic [StW-1:0] st,
                          output logic [StW-1:0] st_o);
    /*verilator no_inline_task*/
    logic [97:0] ops;
    ops  = tr_ops(fn, j, st);
    st_o = tr_dst(fn, j, st, ops[97:96],
                  fp32_add_f(fp32_mul_f(ops[95:64], ops[63:32]), ops[31:0]));
  endtask
endpackage
`endif
