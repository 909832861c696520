// vpu: the vector unit, Elems = sublanes x lanes fp32 elements per
// register, 32 registers (docs/timing.md T27-T29, cmodel/vpu.c).
//
// One instruction issues per cycle from the VPU queue, in order, when
//   T27  its source registers are ready (no result still on its way to
//        them in the pipeline) and, for vld/vst, the VMEM arbiter grants
//        its bytes all or nothing (T12; the request is made only when the
//        sources are ready, as vpu.c asks the arbiter after the hazard
//        check).
// At issue the result is computed from the register file (every element
// through the fp units, docs/numerics.md) and enters a pipeline of
// Latency - 1 stages; it is written into the register file at the end of
// cycle t + Latency - 1 and can be read from t + Latency.  With Latency 1
// it is written at the end of the issue cycle.
//   T28  vld reads VMEM in its issue cycle; vst reads its register and
//        writes VMEM (VMEM write class 3) in its issue cycle.
//   T27a vexp, vrcp and vrsqrt go through the lanes' fp32_tr pipelines
//        first (TrSteps stages; the register and valid bit travel in
//        tv_q/trd_q here) and enter the result pipeline in cycle
//        t + TrSteps, in place of an issue: no other instruction that
//        writes a register issues in that cycle, nor while a
//        transcendental still on its way writes its destination.
//   T29  busy while a result is in the pipeline (the queue is the
//        sequencer's).
//   T35  an instruction that names (reads or writes) a register the XLU
//        still holds (xlu_vmask_i) does not issue; the XLU reads and
//        writes the register file through ports of its own.
`include "tpu_queue.vh"  // the queue entry's layout (rtl/queue_entry.def)
module vpu #(
  parameter integer Elems   = 64,
  parameter integer Latency = 2,
  parameter integer VAW     = 18
) (
  input  logic                  clk_i,
  input  logic                  rst_ni,
  // the VPU queue (entry layout: seq.v)
  input  logic [`TPU_QE_BITS-1:0] head_i,
  input  logic                  head_valid_i,
  output logic                  pop_o,
  // VMEM (class 3)
  output logic                  req_o,
  output logic [63:0]           bytes_o,
  input  logic                  grant_i,
  output logic [VAW-1:0]        raddr_o,
  input  logic [32*Elems-1:0]   rdata_i,
  output logic                  we_o,
  output logic                  whalf_o,     // vst.bf16: the first 2*Elems bytes
  output logic [VAW-1:0]        waddr_o,
  output logic [32*Elems-1:0]   wdata_o,
  // the XLU (rtl/xlu.v): a read port, a write port, and the registers
  // it still holds (T35)
  input  logic [4:0]            xlu_ra_i,
  input  logic                  xlu_re_i,    // the XLU reads xlu_ra_i in this cycle (its start)
  output logic [32*Elems-1:0]   xlu_rdata_o,
  input  logic                  xlu_we_i,
  input  logic [4:0]            xlu_rd_i,
  input  logic [32*Elems-1:0]   xlu_wdata_i,
  input  logic [31:0]           xlu_vmask_i,
  // T29
  output logic                  busy_o
);
  `include "tpu_isa.vh"

  localparam integer RW = 32 * Elems;                 // register width
  localparam integer PS = (Latency > 1) ? Latency - 1 : 1;   // pipeline stages (declared)
  localparam logic [63:0] Bytes4 = 64'(4 * Elems);
  localparam logic [63:0] Bytes2 = 64'(2 * Elems);
  localparam logic [31:0] QNaN   = 32'h7fc0_0000;
  localparam integer TrSteps = 10;                    // TPU_TR_STEPS (cmodel/vpu.h)

  // ---- queue head ------------------------------------------------------------
  logic [7:0]  op;
  logic [63:0] hv [4];
  logic [4:0]  r0, r1, r2, r3;
  always_comb begin
    for (int i = 0; i < 4; i++) begin
      hv[i] = head_i[`TPU_QE_OPND_AT(i) +: `TPU_QE_OPND_BITS];
    end
  end
  assign op = head_i[`TPU_QE_WORD +: 8];
  assign r0 = hv[0][4:0];
  assign r1 = hv[1][4:0];
  assign r2 = hv[2][4:0];
  assign r3 = hv[3][4:0];

  // ---- registers -----------------------------------------------------------------
  logic [RW-1:0] vreg_q [32];
  logic          pv_q [PS];                           // pipeline: valid, register, data
  logic [4:0]    prd_q [PS];
  logic [RW-1:0] pdata_q [PS];
  logic [TrSteps-1:0] tv_q;                           // T27a: the transcendentals' stages
  logic [4:0]    trd_q [TrSteps];

  // ---- T27: sources ready? ----------------------------------------------------------
  // The registers the head reads (nsrc, src[]), whether it writes r0
  // (vwrite), its class and flags: generated from cmodel/isa.def's operand
  // kinds (tpu-isagen --vpu-decode), as vpu.c reads them.
  `include "vpu_decode.vh"

  logic hazard;
  always_comb begin
    hazard = 1'b0;
    if (Latency > 1) begin
      for (int j = 0; j < PS; j++) begin
        for (int i = 0; i < 3; i++) begin
          if (pv_q[j] && i < nsrc && prd_q[j] == src[i]) begin
            hazard = 1'b1;
          end
        end
      end
    end
    for (int j = 0; j < TrSteps; j++) begin
      for (int i = 0; i < 3; i++) begin
        if (tv_q[j] && i < nsrc && trd_q[j] == src[i]) begin
          hazard = 1'b1;
        end
      end
    end
    if (xlu_vmask_i[r0]) begin                        // T35: vd, or vst's source
      hazard = 1'b1;
    end
    for (int i = 0; i < 3; i++) begin
      if (i < nsrc && xlu_vmask_i[src[i]]) begin
        hazard = 1'b1;
      end
    end
  end

  // ---- T27a: the transcendentals ------------------------------------------------------
  // tr_out: the one issued TrSteps cycles ago leaves its pipeline now and
  // takes the result pipeline's entry.  tr_block: the head writes a
  // register, is not a transcendental, and either that entry is taken or
  // a transcendental in an earlier stage writes the same register.
  logic is_tr, tr_out, tr_block, tr_en;
  logic [1:0] tr_fn;
  assign is_tr  = (cls == CLASS_TRANS);
  assign tr_fn  = (op == OP_VRCP) ? 2'd1 : (op == OP_VRSQRT) ? 2'd2 : 2'd0;
  assign tr_out = tv_q[TrSteps-1];
  always_comb begin
    tr_block = tr_out;
    for (int j = 0; j < TrSteps - 1; j++) begin
      if (tv_q[j] && trd_q[j] == r0) begin
        tr_block = 1'b1;
      end
    end
    if (is_tr || !vwrite) begin
      tr_block = 1'b0;
    end
  end

  // ---- T12, T28: VMEM --------------------------------------------------------------
  logic is_bf16, is_mem, is_store, issue;
  assign is_bf16  = flags[FL_BF16];
  assign is_mem   = (cls == CLASS_LOAD || cls == CLASS_STORE);
  assign is_store = (cls == CLASS_STORE);
  assign req_o    = head_valid_i && !hazard && !tr_block && is_mem;
  assign bytes_o  = is_bf16 ? Bytes2 : Bytes4;
  assign issue    = head_valid_i && !hazard && !tr_block && (!is_mem || grant_i);
  assign pop_o    = issue;
  assign tr_en    = issue && is_tr;                   // one enters the lanes' pipelines
  assign raddr_o  = hv[1][VAW-1:0] + hv[2][VAW-1:0];    // rs + imm
  assign waddr_o  = raddr_o;
  assign we_o     = issue && is_store;
  assign whalf_o  = (op == OP_VST_BF16);
  logic writes;                                       // a result for the register file now
  assign writes   = issue && vwrite && !is_tr;

  // ---- the elements ------------------------------------------------------------------
  logic [RW-1:0] a, b, c, s, result, tr_result;
  logic [16*Elems-1:0] st_bf16;
  // The head's registers are read only while there is a head (else 0,
  // which no one uses: every use needs an issue): no per-cycle copies of
  // four 2048-bit registers while the VPU is idle.
  always_comb begin
    a = '0;
    b = '0;
    c = '0;
    s = '0;
    if (head_valid_i) begin
      a = vreg_q[r1];
      b = vreg_q[r2];
      c = vreg_q[r3];
      s = vreg_q[r0];
    end
  end

  // Each fp unit computes only in the cycle an instruction that uses it
  // issues (en_i, rtl/fp32_add.v): the Verilated model then spends no
  // time on idle lanes.
  logic en_add, en_mul, en_cmp, en_round;
  assign en_add   = writes && (op == OP_VADD || op == OP_VSUB);
  assign en_mul   = writes && (op == OP_VMUL);
  assign en_cmp   = writes && (op == OP_VMAX || op == OP_VMIN || op == OP_VRELU || op == OP_VCMPLT);
  assign en_round = issue && (op == OP_VST_BF16);

  logic [1:0] cmp_op;
  always_comb begin
    case (op)
      OP_VMIN:   cmp_op = 2'd1;
      OP_VRELU:  cmp_op = 2'd2;
      OP_VCMPLT: cmp_op = 2'd3;
      default:   cmp_op = 2'd0;                          // vmax
    endcase
  end

  // vld.bf16: exact widening, except a zero exponent (signed zero) and
  // NaN (the canonical NaN) (numerics.md "bf16 -> fp32")
  function automatic logic [31:0] widen_bf16(input logic [15:0] h);
    if (h[14:7] == 8'h00) begin
      widen_bf16 = {h[15], 31'd0};
    end else if (h[14:7] == 8'hff && h[6:0] != 7'd0) begin
      widen_bf16 = QNaN;
    end else begin
      widen_bf16 = {h, 16'h0000};
    end
  endfunction

  for (genvar i = 0; i < Elems; i++) begin : g_elem
    logic [31:0] ea, eb, ec, sum, prod, cmp;
    logic [15:0] narrowed, h;
    assign ea = a[32*i +: 32];
    assign eb = b[32*i +: 32];
    assign ec = c[32*i +: 32];

    fp32_add u_add (
      .en_i  (en_add),
      .a_i   (ea),
      .b_i   ((op == OP_VSUB) ? {~eb[31], eb[30:0]} : eb),  // a - b = a + (-b)
      .sum_o (sum)
    );
    fp32_mul u_mul (
      .en_i   (en_mul),
      .a_i    (ea),
      .b_i    (eb),
      .prod_o (prod)
    );
    fp32_cmp u_cmp (
      .en_i  (en_cmp),
      .a_i   (ea),
      .b_i   (eb),
      .op_i  (cmp_op),
      .res_o (cmp)
    );
    // vst.bf16: round to nearest even (numerics.md "fp32 -> bf16")
    bf16_round u_round (
      .en_i   (en_round),
      .f32_i  (s[32*i +: 32]),
      .bf16_o (narrowed)
    );
    assign h = rdata_i[16*i +: 16];

    // The default first, then `if`: an if/else would be a ?: in the
    // Verilated model, which computes both sides in every cycle.
    always_comb begin
      result[32*i +: 32] = 32'd0;                          // not used
      if (writes) begin
        case (op)
          OP_VLD:      result[32*i +: 32] = rdata_i[32*i +: 32];
          OP_VLD_BF16: result[32*i +: 32] = widen_bf16(h);
          OP_VBCAST:   result[32*i +: 32] = hv[1][31:0];
          OP_VADD, OP_VSUB: result[32*i +: 32] = sum;
          OP_VMUL:     result[32*i +: 32] = prod;
          OP_VSEL:     result[32*i +: 32] = (ea[30:23] != 8'h00) ? eb : ec;  // vm != 0.0
          default:     result[32*i +: 32] = cmp;            // vmax vmin vrelu vcmplt
        endcase
      end
    end

    assign st_bf16[16*i +: 16] = narrowed;

    // T27a: this lane's transcendental pipeline (numerics.md section 11)
    fp32_tr #(
      .Steps    (TrSteps),
      .ExtValid (1'b1)                                 // the lanes share tv_q
    ) u_tr (
      .clk_i  (clk_i),
      .rst_ni (rst_ni),
      .en_i   (tr_en),
      .v_i    (tv_q),
      .fn_i   (tr_fn),
      .x_i    (ea),
      .y_o    (tr_result[32*i +: 32])
    );
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      tv_q <= '0;
    end else begin
      tv_q <= {tv_q[TrSteps-2:0], tr_en};
    end
  end
  always_ff @(posedge clk_i) begin
    if (tr_en) begin                                   // read only with tv_q
      trd_q[0] <= r0;
    end
    for (int j = 1; j < TrSteps; j++) begin
      trd_q[j] <= trd_q[j-1];
    end
  end
  // vst writes the register; vst.bf16 its elements rounded, 2 bytes each
  // (only for a store: also the trace port's vpu_data, copied every cycle)
  always_comb begin
    wdata_o = '0;
    if (we_o) begin
      wdata_o = (op == OP_VST_BF16) ? {{(16 * Elems){1'b0}}, st_bf16} : s;
    end
  end

  // ---- the result pipeline and the register file (T27) -----------------------------------
  logic          wb;
  logic [4:0]    wb_rd;
  logic [RW-1:0] wb_data;
  // what enters the pipeline: the instruction issuing now, or (T27a) the
  // transcendental leaving its pipeline (never both: tr_block)
  logic          in_v;
  logic [4:0]    in_rd;
  logic [RW-1:0] in_data;
  assign in_v    = writes || tr_out;
  assign in_rd   = tr_out ? trd_q[TrSteps-1] : r0;
  assign in_data = tr_out ? tr_result : result;

  if (Latency > 1) begin : g_pipe
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        for (int j = 0; j < PS; j++) begin
          pv_q[j] <= 1'b0;
        end
      end else begin
        pv_q[0] <= in_v;
        for (int j = 1; j < PS; j++) begin
          pv_q[j] <= pv_q[j-1];
        end
      end
    end
    always_ff @(posedge clk_i) begin
      if (in_v) begin                                    // read only with pv_q
        prd_q[0]   <= in_rd;
        pdata_q[0] <= in_data;
      end
      for (int j = 1; j < PS; j++) begin
        prd_q[j]   <= prd_q[j-1];
        pdata_q[j] <= pdata_q[j-1];
      end
    end
    assign wb      = pv_q[PS-1];
    assign wb_rd   = prd_q[PS-1];
    assign wb_data = pdata_q[PS-1];
    always_comb begin
      busy_o = 1'b0;
      for (int j = 0; j < PS; j++) begin
        busy_o = busy_o || pv_q[j];
      end
      for (int j = 0; j < TrSteps; j++) begin
        busy_o = busy_o || tv_q[j];
      end
    end
  end else begin : g_nopipe
    assign pv_q[0]    = 1'b0;
    assign prd_q[0]   = 5'd0;
    assign pdata_q[0] = '0;
    assign wb         = in_v;
    assign wb_rd      = in_rd;
    assign wb_data    = in_data;
    always_comb begin
      busy_o = 1'b0;
      for (int j = 0; j < TrSteps; j++) begin
        busy_o = busy_o || tv_q[j];
      end
    end
  end

  // Registers are zero after reset, as the C model's.
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      for (int r = 0; r < 32; r++) begin
        vreg_q[r] <= '0;
      end
    end else begin
      if (wb) begin
        vreg_q[wb_rd] <= wb_data;
      end
      if (xlu_we_i) begin                              // T35: never the same register
        vreg_q[xlu_rd_i] <= xlu_wdata_i;
      end
    end
  end
  // read only when the XLU starts (else 0): no 2048-bit copy per cycle
  always_comb begin
    xlu_rdata_o = '0;
    if (xlu_re_i) begin
      xlu_rdata_o = vreg_q[xlu_ra_i];
    end
  end

  /* verilator tracing_off */  // a lint sink: not traced, not computed
  logic unused_vpu;
  assign unused_vpu = ^{head_i[`TPU_QE_BITS-1:`TPU_QE_WORD+8], head_i[`TPU_QE_WORD-1:`TPU_QE_OPND_AT(4)], hv[0][63:5], hv[1][63:32],
                        hv[2][63:VAW], hv[3][63:5], pdata_q[0], prd_q[0], flags};
  /* verilator tracing_on */
endmodule
