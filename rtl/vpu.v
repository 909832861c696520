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
//   T29  busy while a result is in the pipeline (the queue is the
//        sequencer's).
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
  // T29
  output logic                  busy_o
);
  `include "tpu_isa.vh"

  localparam integer RW = 32 * Elems;                 // register width
  localparam integer PS = (Latency > 1) ? Latency - 1 : 1;   // pipeline stages (declared)
  localparam logic [63:0] Bytes4 = 64'(4 * Elems);
  localparam logic [63:0] Bytes2 = 64'(2 * Elems);
  localparam logic [31:0] QNaN   = 32'h7fc0_0000;

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

  // ---- T27: sources ready? ----------------------------------------------------------
  logic [2:0] nsrc;
  logic [4:0] src [3];
  always_comb begin
    nsrc   = 3'd0;
    src[0] = r1;
    src[1] = r2;
    src[2] = r3;
    case (op)
      OP_VST, OP_VST_BF16: begin
        nsrc   = 3'd1;
        src[0] = r0;
      end
      OP_VRELU:                                          nsrc = 3'd1;
      OP_VADD, OP_VSUB, OP_VMUL, OP_VMAX, OP_VMIN, OP_VCMPLT: nsrc = 3'd2;
      OP_VSEL:                                           nsrc = 3'd3;
      default:                                           nsrc = 3'd0;  // vld, vld.bf16, vbcast
    endcase
  end

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
  end

  // ---- T12, T28: VMEM --------------------------------------------------------------
  logic is_bf16, is_mem, is_store, issue;
  assign is_bf16  = (op == OP_VLD_BF16 || op == OP_VST_BF16);
  assign is_mem   = (op == OP_VLD || op == OP_VST || is_bf16);
  assign is_store = (op == OP_VST || op == OP_VST_BF16);
  assign req_o    = head_valid_i && !hazard && is_mem;
  assign bytes_o  = is_bf16 ? Bytes2 : Bytes4;
  assign issue    = head_valid_i && !hazard && (!is_mem || grant_i);
  assign pop_o    = issue;
  assign raddr_o  = hv[1][VAW-1:0] + hv[2][VAW-1:0];    // rs + imm
  assign waddr_o  = raddr_o;
  assign we_o     = issue && is_store;
  assign whalf_o  = (op == OP_VST_BF16);
  logic writes;                                       // a result for the register file
  assign writes   = issue && !is_store;

  // ---- the elements ------------------------------------------------------------------
  // The fp datapaths as functions (docs/numerics.md), the same ones the
  // units fp32_add, fp32_mul, fp32_cmp and bf16_round wrap.
  `include "fp32_add.vh"
  localparam integer MulInFracW = 23;                 // the full fp32 multiply
  `include "fp32_mul.vh"
  `include "fp32_cmp.vh"
  `include "bf16_round.vh"

  // One element of the result of an instruction that writes a register:
  // ea, eb, ec the element of its sources, ld the element VMEM gave vld,
  // h the bf16 VMEM gave vld.bf16, bc the scalar of vbcast.
  function automatic logic [31:0] elem_result(input logic [7:0] o, input logic [31:0] ea,
                                              input logic [31:0] eb, input logic [31:0] ec,
                                              input logic [31:0] ld, input logic [15:0] h,
                                              input logic [31:0] bc);
    case (o)
      OP_VLD:      elem_result = ld;
      OP_VLD_BF16: begin
        // vld.bf16: exact widening, except a zero exponent (signed zero)
        // and NaN (the canonical NaN) (numerics.md "bf16 -> fp32")
        if (h[14:7] == 8'h00) begin
          elem_result = {h[15], 31'd0};
        end else if (h[14:7] == 8'hff && h[6:0] != 7'd0) begin
          elem_result = QNaN;
        end else begin
          elem_result = {h, 16'h0000};
        end
      end
      OP_VBCAST:   elem_result = bc;
      OP_VADD:     elem_result = fp32_add_f(ea, eb);
      OP_VSUB:     elem_result = fp32_add_f(ea, {~eb[31], eb[30:0]});   // a - b = a + (-b)
      OP_VMUL:     elem_result = fp32_mul_f(ea, eb);
      OP_VSEL:     elem_result = (ea[30:23] != 8'h00) ? eb : ec;        // vm != 0.0
      OP_VMIN:     elem_result = fp32_cmp_f(ea, eb, CmpOpMin);
      OP_VRELU:    elem_result = fp32_cmp_f(ea, eb, CmpOpRelu);
      OP_VCMPLT:   elem_result = fp32_cmp_f(ea, eb, CmpOpCmplt);
      default:     elem_result = fp32_cmp_f(ea, eb, CmpOpMax);          // vmax
    endcase
  endfunction

  // vst writes the register; vst.bf16 its elements rounded, 2 bytes each
  // (numerics.md "fp32 -> bf16").  Computed only in the cycle a store
  // issues (0 otherwise: VMEM reads it only with we_o).
  always_comb begin
    wdata_o = '0;
    if (we_o) begin
      if (op == OP_VST_BF16) begin
        for (int i = 0; i < Elems; i++) begin
          wdata_o[16*i +: 16] = bf16_round_f(vreg_q[r0][32*i +: 32]);
        end
      end else begin
        wdata_o = vreg_q[r0];
      end
    end
  end

  // ---- the result pipeline and the register file (T27) -----------------------------------
  // The result is computed only in the cycle its instruction issues: in
  // the clocked block of the first pipeline stage (Latency > 1), so that
  // the Verilated model computes nothing in the other cycles (docs/rtl.md,
  // "Simulation speed"), or combinationally under `if (writes)` for
  // Latency 1.
  logic          wb;
  logic [4:0]    wb_rd;
  logic [RW-1:0] wb_data;

  if (Latency > 1) begin : g_pipe
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        for (int j = 0; j < PS; j++) begin
          pv_q[j] <= 1'b0;
        end
      end else begin
        pv_q[0] <= writes;
        for (int j = 1; j < PS; j++) begin
          pv_q[j] <= pv_q[j-1];
        end
      end
    end
    always_ff @(posedge clk_i) begin : p_stage
      logic [RW-1:0] res;                                // the result, element by element
      if (writes) begin                                  // read only with pv_q
        for (int i = 0; i < Elems; i++) begin
          res[32*i +: 32] = elem_result(op, vreg_q[r1][32*i +: 32], vreg_q[r2][32*i +: 32],
                                        vreg_q[r3][32*i +: 32], rdata_i[32*i +: 32],
                                        rdata_i[16*i +: 16], hv[1][31:0]);
        end
        prd_q[0]   <= r0;
        pdata_q[0] <= res;
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
    end
  end else begin : g_nopipe
    logic [RW-1:0] result;
    always_comb begin
      result = '0;
      if (writes) begin
        for (int i = 0; i < Elems; i++) begin
          result[32*i +: 32] = elem_result(op, vreg_q[r1][32*i +: 32], vreg_q[r2][32*i +: 32],
                                           vreg_q[r3][32*i +: 32], rdata_i[32*i +: 32],
                                           rdata_i[16*i +: 16], hv[1][31:0]);
        end
      end
    end
    assign pv_q[0]    = 1'b0;
    assign prd_q[0]   = 5'd0;
    assign pdata_q[0] = '0;
    assign wb         = writes;
    assign wb_rd      = r0;
    assign wb_data    = result;
    assign busy_o     = 1'b0;
  end

  // Registers are zero after reset, as the C model's.
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      for (int r = 0; r < 32; r++) begin
        vreg_q[r] <= '0;
      end
    end else if (wb) begin
      vreg_q[wb_rd] <= wb_data;
    end
  end

  /* verilator tracing_off */  // a lint sink: not traced, not computed
  logic unused_vpu;
  assign unused_vpu = ^{head_i[`TPU_QE_BITS-1:`TPU_QE_WORD+8], head_i[`TPU_QE_WORD-1:`TPU_QE_OPND_AT(4)], hv[0][63:5], hv[1][63:32],
                        hv[2][63:VAW], hv[3][63:5], pdata_q[0], prd_q[0]};
  /* verilator tracing_on */
endmodule
