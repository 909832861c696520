// xlu: the cross-lane unit (docs/timing.md section 5a, T33-T36;
// docs/numerics.md section 13; cmodel/xlu.c).  Reductions across lanes
// and sublanes (sum, max), lane and sublane rotates and the B x B block
// transpose of one vector register of Sub x Lanes fp32, read from and
// written back into the VPU's register file.
//
// One instruction at a time, in order, from the XLU queue:
//   T33  start (cycle s, when nothing runs and the queue has a head): the
//        source register, rotated or transposed for those, goes into the
//        work register `work_q`; nl_q/ns_q = lanes/sublanes to reduce.
//   T34  each following cycle: one level of the pairwise tree, across
//        lanes while nl_q > 1, then across sublanes while ns_q > 1
//        (work[i] = op(work[2i], work[2i+1]) where 2i+1 < n, work[2i]
//        where 2i+1 = n, the rest unchanged; n = ceil(n/2)); then a cycle
//        that writes the result, broadcast along what was reduced, into
//        the register file at its end (we_o).  The next start is in the
//        cycle after.
//   T35  vmask_o: the registers named by an instruction queued or running
//        (a count per register, up at a push, down at the write-back);
//        the VPU holds back an instruction that names one of them.
//   busy_o: an instruction is running (the queue is the sequencer's).
`include "tpu_queue.vh"  // the queue entry's layout (rtl/queue_entry.def)
module xlu #(
  parameter integer Sub        = 8,
  parameter integer Lanes      = 8,
  parameter integer QueueDepth = 4
) (
  input  logic                     clk_i,
  input  logic                     rst_ni,
  // the XLU queue (entry layout: seq.v)
  input  logic [`TPU_QE_BITS-1:0] head_i,
  input  logic                     head_valid_i,
  output logic                     pop_o,
  // the sequencer pushes an entry naming these registers (T35)
  input  logic                     push_i,
  input  logic [4:0]               push_rd_i,
  input  logic [4:0]               push_ra_i,
  // the VPU's register file: a read port and a write port
  output logic [4:0]               ra_o,
  input  logic [32*Sub*Lanes-1:0]  rdata_i,
  output logic                     we_o,
  output logic [4:0]               wrd_o,
  output logic [32*Sub*Lanes-1:0]  wdata_o,
  output logic [31:0]              vmask_o,
  output logic                     busy_o
);
  `include "tpu_isa.vh"

  localparam integer E   = Sub * Lanes;
  localparam integer RW  = 32 * E;
  localparam integer B   = (Sub < Lanes) ? Sub : Lanes;     // transpose block
  localparam integer CW  = $clog2(2 * QueueDepth + 3);      // a register's count
  localparam integer NLW = $clog2(Lanes + 1);
  localparam integer NSW = $clog2(Sub + 1);

  // ---- queue head -------------------------------------------------------------
  logic [7:0]  hop;
  logic [63:0] hv [3];
  always_comb begin
    for (int i = 0; i < 3; i++) begin
      hv[i] = head_i[`TPU_QE_OPND_AT(i) +: `TPU_QE_OPND_BITS];
    end
  end
  assign hop = head_i[`TPU_QE_WORD +: 8];

  // ---- registers -----------------------------------------------------------------
  logic           run_q;
  logic [7:0]     op_q;
  logic [4:0]     rd_q, ra_q;
  logic [NLW-1:0] nl_q;
  logic [NSW-1:0] ns_q;
  // Packed vectors (element j at [32*j +: 32], register r's count at
  // [CW*r +: CW]), each written whole by one assignment: an unpacked
  // array's elements written with `<=` get a delayed-assignment flag each
  // in the Verilated model, cleared and tested in every cycle (96 here).
  logic [RW-1:0]    work_q;
  logic [32*CW-1:0] cnt_q;
  logic [31:0]      vmask_q;                       // cnt_q's counts != 0

  logic start, wb, lane_lvl, sub_lvl, is_max;
  assign start    = !run_q && head_valid_i;
  assign lane_lvl = run_q && nl_q > NLW'(1);
  assign sub_lvl  = run_q && !lane_lvl && ns_q > NSW'(1);
  assign wb       = run_q && !lane_lvl && !sub_lvl;
  assign is_max   = (op_q == OP_XLU_LMAX || op_q == OP_XLU_SMAX || op_q == OP_XLU_AMAX);
  assign pop_o    = start;
  assign busy_o   = run_q;
  assign ra_o     = hv[1][4:0];

  logic h_lanes, h_subl;
  assign h_lanes = (hop == OP_XLU_LSUM || hop == OP_XLU_LMAX || hop == OP_XLU_ASUM
                    || hop == OP_XLU_AMAX);
  assign h_subl  = (hop == OP_XLU_SSUM || hop == OP_XLU_SMAX || hop == OP_XLU_ASUM
                    || hop == OP_XLU_AMAX);

  // ---- T33: the start's permutation ------------------------------------------------
  // rotate amounts modulo S and L
  logic [31:0] ks, kl;
  assign ks = hv[2][31:0] % 32'(Sub);
  assign kl = hv[2][31:0] % 32'(Lanes);
  logic [RW-1:0] perm;
  for (genvar s = 0; s < Sub; s++) begin : g_ps
    for (genvar l = 0; l < Lanes; l++) begin : g_pl
      // xlu.tr: the element's mirror in its B x B block, where it exists
      localparam integer S0 = s - s % B;
      localparam integer L0 = l - l % B;
      localparam integer TS = S0 + (l - L0);
      localparam integer TL = L0 + (s - S0);
      localparam integer TI = (TS < Sub && TL < Lanes) ? TS * Lanes + TL : s * Lanes + l;
      logic [31:0] rs, rl, pv;
      // the source sublane of srot, (s - ks) mod S, and lane of lrot
      assign rs = (32'(s) >= ks) ? 32'(s) - ks : 32'(s) + 32'(Sub) - ks;
      assign rl = (32'(l) >= kl) ? 32'(l) - kl : 32'(l) + 32'(Lanes) - kl;
      // only in a start's cycle (else 0, not used): nothing per idle cycle
      always_comb begin
        pv = 32'd0;
        if (start) begin
          case (hop)
            OP_XLU_SROT: pv = rdata_i[32*(rs*32'(Lanes) + 32'(l)) +: 32];
            OP_XLU_LROT: pv = rdata_i[32*(32'(s*Lanes) + rl) +: 32];
            OP_XLU_TR:   pv = rdata_i[32*TI +: 32];
            default:     pv = rdata_i[32*(s*Lanes+l) +: 32];
          endcase
        end
      end
      assign perm[32*(s*Lanes+l) +: 32] = pv;
    end
  end

  // ---- T34: a tree level ---------------------------------------------------------------
  // Lane pairs (s, 2i), (s, 2i+1) and sublane pairs (2i, l), (2i+1, l),
  // each with an adder and a comparator that compute only in a level.
  localparam integer LP = Lanes / 2;
  localparam integer SP = Sub / 2;
  logic [31:0] lres [Sub*(LP > 0 ? LP : 1)];
  logic [31:0] sres [(SP > 0 ? SP : 1)*Lanes];
  for (genvar s = 0; s < Sub; s++) begin : g_ls
    for (genvar i = 0; i < LP; i++) begin : g_li
      logic [31:0] sum, mx;
      fp32_add u_add (
        .en_i  (lane_lvl && !is_max),
        .a_i   (work_q[32*(s*Lanes+2*i) +: 32]),
        .b_i   (work_q[32*(s*Lanes+2*i+1) +: 32]),
        .sum_o (sum)
      );
      fp32_cmp u_max (
        .en_i  (lane_lvl && is_max),
        .a_i   (work_q[32*(s*Lanes+2*i) +: 32]),
        .b_i   (work_q[32*(s*Lanes+2*i+1) +: 32]),
        .op_i  (2'd0),
        .res_o (mx)
      );
      assign lres[s*LP+i] = is_max ? mx : sum;
    end
  end
  for (genvar i = 0; i < SP; i++) begin : g_si
    for (genvar l = 0; l < Lanes; l++) begin : g_sl
      logic [31:0] sum, mx;
      fp32_add u_add (
        .en_i  (sub_lvl && !is_max),
        .a_i   (work_q[32*(2*i*Lanes+l) +: 32]),
        .b_i   (work_q[32*((2*i+1)*Lanes+l) +: 32]),
        .sum_o (sum)
      );
      fp32_cmp u_max (
        .en_i  (sub_lvl && is_max),
        .a_i   (work_q[32*(2*i*Lanes+l) +: 32]),
        .b_i   (work_q[32*((2*i+1)*Lanes+l) +: 32]),
        .op_i  (2'd0),
        .res_o (mx)
      );
      assign sres[i*Lanes+l] = is_max ? mx : sum;
    end
  end
  if (LP == 0) begin : g_nolp
    assign lres[0] = 32'd0;
  end
  if (SP == 0) begin : g_nosp
    assign sres[0] = 32'd0;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      run_q <= 1'b0;
    end else if (start) begin
      run_q <= 1'b1;
    end else if (wb) begin
      run_q <= 1'b0;
    end
  end
  // data: no reset (read only while run_q).  The next work register is
  // computed here, in the clocked block, only in the cycles it changes
  // (a start or a level): the Verilated model then does nothing for it in
  // an idle cycle, where an always_comb would be evaluated every cycle.
  always_ff @(posedge clk_i) begin : p_work
    logic [RW-1:0] w;
    if (start) begin
      op_q   <= hop;
      rd_q   <= hv[0][4:0];
      ra_q   <= hv[1][4:0];
      nl_q   <= h_lanes ? NLW'(Lanes) : NLW'(1);
      ns_q   <= h_subl ? NSW'(Sub) : NSW'(1);
      work_q <= perm;
    end else if (lane_lvl) begin
      nl_q <= (nl_q + NLW'(1)) >> 1;
      w = work_q;
      for (int s = 0; s < Sub; s++) begin
        for (int i = 0; 2 * i < Lanes; i++) begin
          if (32'(2 * i + 1) < 32'(nl_q)) begin
            w[32*(s*Lanes+i) +: 32] = lres[s*LP+i];
          end else if (32'(2 * i) < 32'(nl_q)) begin
            w[32*(s*Lanes+i) +: 32] = work_q[32*(s*Lanes+2*i) +: 32];
          end
        end
      end
      work_q <= w;
    end else if (sub_lvl) begin
      ns_q <= (ns_q + NSW'(1)) >> 1;
      w = work_q;
      for (int i = 0; 2 * i < Sub; i++) begin
        for (int l = 0; l < Lanes; l++) begin
          if (32'(2 * i + 1) < 32'(ns_q)) begin
            w[32*(i*Lanes+l) +: 32] = sres[i*Lanes+l];
          end else if (32'(2 * i) < 32'(ns_q)) begin
            w[32*(i*Lanes+l) +: 32] = work_q[32*(2*i*Lanes+l) +: 32];
          end
        end
      end
      work_q <= w;
    end
  end

  // ---- the write-back: broadcast along what was reduced -------------------------------
  assign we_o  = wb;
  assign wrd_o = rd_q;
  // the broadcast only in the write-back's cycle (else 0, not used; the
  // trace port copies wdata_o in every cycle)
  always_comb begin
    wdata_o = '0;
    if (wb) begin
      for (int s = 0; s < Sub; s++) begin
        for (int l = 0; l < Lanes; l++) begin
          case (op_q)
            OP_XLU_LSUM, OP_XLU_LMAX: wdata_o[32*(s*Lanes+l) +: 32] = work_q[32*(s*Lanes) +: 32];
            OP_XLU_SSUM, OP_XLU_SMAX: wdata_o[32*(s*Lanes+l) +: 32] = work_q[32*l +: 32];
            OP_XLU_ASUM, OP_XLU_AMAX: wdata_o[32*(s*Lanes+l) +: 32] = work_q[31:0];
            default:                  wdata_o[32*(s*Lanes+l) +: 32] = work_q[32*(s*Lanes+l) +: 32];
          endcase
        end
      end
    end
  end

  // ---- T35: the registers the XLU still holds --------------------------------------------
  // Counted only in the cycles a count changes (a push or a write-back);
  // vmask_q is the new counts' != 0, so vmask_o is what it was as a
  // function of cnt_q.
  always_ff @(posedge clk_i or negedge rst_ni) begin : p_cnt
    logic [32*CW-1:0] n;
    logic [31:0]      m;
    if (!rst_ni) begin
      cnt_q   <= '0;
      vmask_q <= '0;
    end else if (push_i || wb) begin
      for (int r = 0; r < 32; r++) begin
        n[CW*r +: CW] = cnt_q[CW*r +: CW]
                        + ((push_i && push_rd_i == 5'(r)) ? CW'(1) : CW'(0))
                        + ((push_i && push_ra_i == 5'(r)) ? CW'(1) : CW'(0))
                        - ((wb && rd_q == 5'(r)) ? CW'(1) : CW'(0))
                        - ((wb && ra_q == 5'(r)) ? CW'(1) : CW'(0));
        m[r] = (n[CW*r +: CW] != '0);
      end
      cnt_q   <= n;
      vmask_q <= m;
    end
  end
  assign vmask_o = vmask_q;

  /* verilator tracing_off */  // a lint sink: not traced, not computed
  logic unused_xlu;
  assign unused_xlu = ^{head_i[`TPU_QE_BITS-1:`TPU_QE_WORD+8], head_i[`TPU_QE_WORD-1:`TPU_QE_OPND_AT(3)],
                        hv[0][63:5], hv[1][63:5], hv[2][63:32]};
  /* verilator tracing_on */
endmodule
