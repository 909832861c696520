// vmem: the core's VMEM, its per-cycle byte budget and its write ports
// (docs/timing.md section 2, T11-T12a; cmodel/vmem.c).
//
// Storage is Bytes bytes.  Reads are combinational and see the memory as
// it was at the start of the cycle; writes land at the end of the cycle, in
// the fixed priority order of section 2 (incoming ICI, MXU 0..3, VPU, DMA
// engines in start order), so where two writes of a cycle overlap the later
// class wins (T12a).
//
// Two ways to hold the bytes, chosen by Dpi (core.v's VmemDpi: VMEM above
// 16 MiB or more than 4096 bytes written per cycle, as v5e's; docs/rtl.md,
// "Large arrays"), the arbiter the same for both:
//   - array (Dpi 0): one Verilated array of Bytes bytes, every read and
//     write port unrolled per byte; what synthesis sees (a memory macro);
//   - DPI (Dpi 1): the bytes live in the bench's C++ store,
//     sim/rtl/vmem_dpi.cpp (one per instance, made by its initial block),
//     and each class of ports is one DPI call that passes its packed
//     addresses, enables, lengths and data and lets C++ loop over the
//     bytes: O(ports) code for Verilator instead of O(bytes) (v5e:
//     10,764 unrolled byte writes of a 128 MiB array and 16,768 byte
//     reads).  The same semantics: the reads see the store as at the start
//     of the cycle, the writes are made at the clock edge in the array's
//     order, and wseq_q, a count of the cycles with a write, is an argument
//     of every read so that the reads are ordered after the writes of the
//     edge (as rtl/hbm_mem.v's sparse HBM).  Simulation only: synthesis
//     (SYNTHESIS) gets the array (Dpi 0 is the default).
//
// The arbiter is the budget of Bw bytes per cycle, reads and writes
// together, handed out in the same order:
//   1. incoming ICI and 2. the MXUs take what they need (T11: the config
//      makes sure it fits; the subtraction saturates like tpu_vmem_must);
//   3. the VPU gets its bytes all or nothing (T12): vpu_grant_o;
//   4. the DMA engines get what is left (dma_left_o) and say what they took;
//   5. outgoing ICI gets the rest (ici_left_o).
module vmem #(
  parameter integer      Bytes    = 262144,
  parameter logic [63:0] Bw       = 64'd512,
  parameter integer      AW       = 18,       // address bits, 2^AW >= Bytes
  parameter integer      NumMxu   = 1,
  parameter integer      MxuN     = 8,
  parameter integer      MxuW     = 1,        // weight read ports per MXU (mxu_wloads)
  parameter integer      VecB     = 256,      // bytes of one fp32 vector register
  parameter integer      DmaPorts = 32,       // DMA byte ports
  parameter integer      IciB     = 4,        // most bytes an ICI link moves per cycle
  parameter integer      NP       = 6,        // ICI ports (NUM_PORTS, tpu_isa.vh)
  parameter bit          Dpi      = 1'b0      // the bytes in the C++ store (above)
) (
  input  logic                         clk_i,
  // backdoor: 64 bytes at bd_addr_i (no budget, no order)
  input  logic                         bd_we_i,
  input  logic [63:0]                  bd_addr_i,
  input  logic [511:0]                 bd_wdata_i,
  input  logic [63:0]                  bd_wstrb_i,
  input  logic                         bd_re_i,
  output logic [511:0]                 bd_rdata_o,
  // arbiter
  input  logic [63:0]                  ici_in_bytes_i,   // class 1, this cycle
  input  logic [63:0]                  mxu_bytes_i,      // class 2, this cycle
  input  logic                         vpu_req_i,        // class 3
  input  logic [63:0]                  vpu_bytes_i,
  output logic                         vpu_grant_o,
  output logic [63:0]                  dma_left_o,       // class 4
  input  logic [63:0]                  dma_used_i,
  output logic [63:0]                  ici_left_o,       // class 5
  // MXU reads: weight rows (MxuW ports per MXU, port j of MXU m at
  // m*MxuW + j) and LHS rows (2N bytes), accumulator rows (4N)
  input  logic [NumMxu*MxuW*AW-1:0]      mxu_w_addr_i,
  output logic [NumMxu*MxuW*16*MxuN-1:0] mxu_w_data_o,
  input  logic [NumMxu*AW-1:0]         mxu_x_addr_i,
  output logic [NumMxu*16*MxuN-1:0]    mxu_x_data_o,
  input  logic [NumMxu*AW-1:0]         mxu_acc_addr_i,
  output logic [NumMxu*32*MxuN-1:0]    mxu_acc_data_o,
  // VPU read (vld: VecB bytes, vld.bf16 uses the first half)
  input  logic [AW-1:0]                vpu_raddr_i,
  output logic [VecB*8-1:0]            vpu_rdata_o,
  // DMA reads (dma.v2h), one byte per port
  input  logic [DmaPorts*AW-1:0]       dma_raddr_i,
  output logic [DmaPorts*8-1:0]        dma_rdata_o,
  // outgoing ICI reads, IciB bytes per port
  input  logic [NP*AW-1:0]             ici_raddr_i,
  output logic [NP*IciB*8-1:0]         ici_rdata_o,
  // writes, in landing order: incoming ICI (ports 0..NP-1) ...
  input  logic [NP-1:0]                ici_we_i,
  input  logic [NP*AW-1:0]             ici_waddr_i,
  input  logic [NP*16-1:0]             ici_wlen_i,
  input  logic [NP*IciB*8-1:0]         ici_wdata_i,
  // ... MXU result rows (4N bytes) ...
  input  logic [NumMxu-1:0]            mxu_we_i,
  input  logic [NumMxu*AW-1:0]         mxu_waddr_i,
  input  logic [NumMxu*32*MxuN-1:0]    mxu_wdata_i,
  // ... the VPU (vst: VecB bytes, vst.bf16: the first VecB/2) ...
  input  logic                         vpu_we_i,
  input  logic                         vpu_whalf_i,
  input  logic [AW-1:0]                vpu_waddr_i,
  input  logic [VecB*8-1:0]            vpu_wdata_i,
  // ... DMA bytes (dma.h2v), ports in start order of their engines
  input  logic [2*DmaPorts-1:0]        dma_we_i,     // two write ports per DMA byte port
  input  logic [2*DmaPorts*AW-1:0]     dma_waddr_i,
  input  logic [2*DmaPorts*8-1:0]      dma_wdata_i
);
  localparam integer RowB = 2 * MxuN;          // bytes of a bf16 row
  localparam integer AccB = 4 * MxuN;          // bytes of an fp32 row

  // ---- arbiter (T11, T12) -----------------------------------------------
  logic [63:0] after_ici, after_mxu, after_vpu;
  assign after_ici   = (ici_in_bytes_i < Bw) ? Bw - ici_in_bytes_i : 64'd0;
  assign after_mxu   = (mxu_bytes_i < after_ici) ? after_ici - mxu_bytes_i : 64'd0;
  assign vpu_grant_o = vpu_req_i && vpu_bytes_i <= after_mxu;
  assign after_vpu   = vpu_grant_o ? after_mxu - vpu_bytes_i : after_mxu;
  assign dma_left_o  = after_vpu;
  assign ici_left_o  = after_vpu - dma_used_i;

  // ---- storage: the array or the C++ store --------------------------------
  if (!Dpi) begin : g_array
    // public_flat_rd: the bench reads the bytes directly at the end of a run
    // (sim/rtl/rtl_bench.cpp, docs/rtl.md "Large arrays"), not 64 at a time
    // through the backdoor port; a comment to synthesis.
    (* tpu_macro *) logic [7:0] mem_q [Bytes] /* verilator public_flat_rd */;   // a memory macro in synthesis

    // ---- reads --------------------------------------------------------------
    // Read only when bd_re_i (else 0): the simulation reads nothing here
    // in the cycles of a run.
    always_comb begin
      bd_rdata_o = '0;
      if (bd_re_i) begin
        for (int i = 0; i < 64; i++) begin
          bd_rdata_o[8*i +: 8] = mem_q[bd_addr_i[AW-1:0] + AW'(i)];
        end
      end
    end

    for (genvar m = 0; m < NumMxu; m++) begin : g_mxu_rd
      for (genvar i = 0; i < RowB; i++) begin : g_row
        logic [AW-1:0] xa;
        assign xa = mxu_x_addr_i[m*AW +: AW] + AW'(i);
        assign mxu_x_data_o[(m*RowB + i)*8 +: 8] = mem_q[xa];
      end
      for (genvar j = 0; j < MxuW; j++) begin : g_wport
        for (genvar i = 0; i < RowB; i++) begin : g_row
          logic [AW-1:0] wa;
          assign wa = mxu_w_addr_i[(m*MxuW + j)*AW +: AW] + AW'(i);
          assign mxu_w_data_o[((m*MxuW + j)*RowB + i)*8 +: 8] = mem_q[wa];
        end
      end
      for (genvar i = 0; i < AccB; i++) begin : g_acc
        logic [AW-1:0] aa;
        assign aa = mxu_acc_addr_i[m*AW +: AW] + AW'(i);
        assign mxu_acc_data_o[(m*AccB + i)*8 +: 8] = mem_q[aa];
      end
    end

    // The VPU's bytes are read only while it asks for them (vpu_req_i; vld
    // uses them only when granted), else 0: no per-cycle work when idle.
    always_comb begin
      vpu_rdata_o = '0;
      if (vpu_req_i) begin
        for (int i = 0; i < VecB; i++) begin
          vpu_rdata_o[8*i +: 8] = mem_q[vpu_raddr_i + AW'(i)];
        end
      end
    end

    for (genvar p = 0; p < DmaPorts; p++) begin : g_dma_rd
      assign dma_rdata_o[8*p +: 8] = mem_q[dma_raddr_i[p*AW +: AW]];
    end

    for (genvar p = 0; p < NP; p++) begin : g_ici_rd
      for (genvar i = 0; i < IciB; i++) begin : g_byte
        logic [AW-1:0] a;
        assign a = ici_raddr_i[p*AW +: AW] + AW'(i);
        assign ici_rdata_o[(p*IciB + i)*8 +: 8] = mem_q[a];
      end
    end

    // ---- writes, at the end of the cycle in priority order (T12a) -----------
    always_ff @(posedge clk_i) begin
      if (bd_we_i) begin
        for (int i = 0; i < 64; i++) begin
          if (bd_wstrb_i[i]) begin
            mem_q[bd_addr_i[AW-1:0] + AW'(i)] <= bd_wdata_i[8*i +: 8];
          end
        end
      end
      for (int p = 0; p < NP; p++) begin
        if (ici_we_i[p]) begin
          for (int i = 0; i < IciB; i++) begin
            if (16'(i) < ici_wlen_i[16*p +: 16]) begin
              mem_q[ici_waddr_i[p*AW +: AW] + AW'(i)] <= ici_wdata_i[(p*IciB + i)*8 +: 8];
            end
          end
        end
      end
      for (int m = 0; m < NumMxu; m++) begin
        if (mxu_we_i[m]) begin
          for (int i = 0; i < AccB; i++) begin
            mem_q[mxu_waddr_i[m*AW +: AW] + AW'(i)] <= mxu_wdata_i[(m*AccB + i)*8 +: 8];
          end
        end
      end
      if (vpu_we_i) begin
        for (int i = 0; i < VecB; i++) begin
          if (!vpu_whalf_i || i < VecB / 2) begin
            mem_q[vpu_waddr_i + AW'(i)] <= vpu_wdata_i[8*i +: 8];
          end
        end
      end
      for (int p = 0; p < 2 * DmaPorts; p++) begin
        if (dma_we_i[p]) begin
          mem_q[dma_waddr_i[p*AW +: AW]] <= dma_wdata_i[8*p +: 8];
        end
      end
    end
  end else begin : g_dpi
`ifndef SYNTHESIS
    // sim/rtl/vmem_dpi.cpp; h is this memory's store (one per core; a
    // context import, so the store knows its instance's scope and the bench
    // finds each core's).  One import per class of ports (each has its own vector widths, so its own
    // C name); rows x bytes say how the vectors are laid out: address r at
    // bits [r*AW +: AW], its byte i at data bits [(r*bytes + i)*8 +: 8].
    // Addresses wrap at AW bits as the array's index does.
    import "DPI-C" context function chandle tpu_vmem_dpi_new(input longint unsigned bytes, input int unsigned aw);
    import "DPI-C" function void tpu_vmem_dpi_rd_bd(input chandle h, input int unsigned wseq,
      input int unsigned rows, input int unsigned bytes, input bit [AW-1:0] addr,
      output bit [511:0] data);
    import "DPI-C" function void tpu_vmem_dpi_rd_x(input chandle h, input int unsigned wseq,
      input int unsigned rows, input int unsigned bytes, input bit [NumMxu*AW-1:0] addr,
      output bit [NumMxu*RowB*8-1:0] data);
    import "DPI-C" function void tpu_vmem_dpi_rd_w(input chandle h, input int unsigned wseq,
      input int unsigned rows, input int unsigned bytes, input bit [NumMxu*MxuW*AW-1:0] addr,
      output bit [NumMxu*MxuW*RowB*8-1:0] data);
    import "DPI-C" function void tpu_vmem_dpi_rd_acc(input chandle h, input int unsigned wseq,
      input int unsigned rows, input int unsigned bytes, input bit [NumMxu*AW-1:0] addr,
      output bit [NumMxu*AccB*8-1:0] data);
    import "DPI-C" function void tpu_vmem_dpi_rd_vpu(input chandle h, input int unsigned wseq,
      input int unsigned rows, input int unsigned bytes, input bit [AW-1:0] addr,
      output bit [VecB*8-1:0] data);
    import "DPI-C" function void tpu_vmem_dpi_rd_dma(input chandle h, input int unsigned wseq,
      input int unsigned rows, input int unsigned bytes, input bit [DmaPorts*AW-1:0] addr,
      output bit [DmaPorts*8-1:0] data);
    import "DPI-C" function void tpu_vmem_dpi_rd_ici(input chandle h, input int unsigned wseq,
      input int unsigned rows, input int unsigned bytes, input bit [NP*AW-1:0] addr,
      output bit [NP*IciB*8-1:0] data);
    // writes: row r when its enable bit is set, its first len bytes (ICI:
    // its 16-bit length, at most bytes; the others: all of them; the
    // backdoor: the bytes whose strobe is set), rows in order
    import "DPI-C" function void tpu_vmem_dpi_wr_bd(input chandle h, input bit [AW-1:0] addr,
      input bit [63:0] strb, input bit [511:0] data);
    import "DPI-C" function void tpu_vmem_dpi_wr_ici(input chandle h, input int unsigned rows,
      input int unsigned bytes, input bit [NP-1:0] we, input bit [NP*AW-1:0] addr,
      input bit [NP*16-1:0] len, input bit [NP*IciB*8-1:0] data);
    import "DPI-C" function void tpu_vmem_dpi_wr_mxu(input chandle h, input int unsigned rows,
      input int unsigned bytes, input bit [NumMxu-1:0] we, input bit [NumMxu*AW-1:0] addr,
      input bit [NumMxu*AccB*8-1:0] data);
    import "DPI-C" function void tpu_vmem_dpi_wr_vpu(input chandle h, input int unsigned len,
      input bit [AW-1:0] addr, input bit [VecB*8-1:0] data);
    import "DPI-C" function void tpu_vmem_dpi_wr_dma(input chandle h, input int unsigned rows,
      input int unsigned bytes, input bit [2*DmaPorts-1:0] we, input bit [2*DmaPorts*AW-1:0] addr,
      input bit [2*DmaPorts*8-1:0] data);

    chandle      h;
    logic [31:0] wseq_q;                       // cycles with a write (orders the reads)
    initial begin
      h      = tpu_vmem_dpi_new(64'(Bytes), AW);
      wseq_q = 32'd0;
    end

    // ---- reads (as the array's: the backdoor and the VPU only when asked)
    always_comb begin
      bd_rdata_o = '0;
      if (bd_re_i) begin
        tpu_vmem_dpi_rd_bd(h, wseq_q, 1, 64, bd_addr_i[AW-1:0], bd_rdata_o);
      end
    end
    always_comb begin
      tpu_vmem_dpi_rd_x(h, wseq_q, NumMxu, RowB, mxu_x_addr_i, mxu_x_data_o);
    end
    always_comb begin
      tpu_vmem_dpi_rd_w(h, wseq_q, NumMxu * MxuW, RowB, mxu_w_addr_i, mxu_w_data_o);
    end
    always_comb begin
      tpu_vmem_dpi_rd_acc(h, wseq_q, NumMxu, AccB, mxu_acc_addr_i, mxu_acc_data_o);
    end
    always_comb begin
      vpu_rdata_o = '0;
      if (vpu_req_i) begin
        tpu_vmem_dpi_rd_vpu(h, wseq_q, 1, VecB, vpu_raddr_i, vpu_rdata_o);
      end
    end
    always_comb begin
      tpu_vmem_dpi_rd_dma(h, wseq_q, DmaPorts, 1, dma_raddr_i, dma_rdata_o);
    end
    always_comb begin
      tpu_vmem_dpi_rd_ici(h, wseq_q, NP, IciB, ici_raddr_i, ici_rdata_o);
    end

    // ---- writes, at the end of the cycle in priority order (T12a) ---------
    always_ff @(posedge clk_i) begin
      if (bd_we_i) begin
        tpu_vmem_dpi_wr_bd(h, bd_addr_i[AW-1:0], bd_wstrb_i, bd_wdata_i);
      end
      if (ici_we_i != '0) begin
        tpu_vmem_dpi_wr_ici(h, NP, IciB, ici_we_i, ici_waddr_i, ici_wlen_i, ici_wdata_i);
      end
      if (mxu_we_i != '0) begin
        tpu_vmem_dpi_wr_mxu(h, NumMxu, AccB, mxu_we_i, mxu_waddr_i, mxu_wdata_i);
      end
      if (vpu_we_i) begin
        tpu_vmem_dpi_wr_vpu(h, vpu_whalf_i ? VecB / 2 : VecB, vpu_waddr_i, vpu_wdata_i);
      end
      if (dma_we_i != '0) begin
        tpu_vmem_dpi_wr_dma(h, 2 * DmaPorts, 1, dma_we_i, dma_waddr_i, dma_wdata_i);
      end
      if (bd_we_i || ici_we_i != '0 || mxu_we_i != '0 || vpu_we_i || dma_we_i != '0) begin
        wseq_q <= wseq_q + 32'd1;
      end
    end
`else
    assign bd_rdata_o     = '0;                // synthesis: the array (Dpi 0)
    assign mxu_w_data_o   = '0;
    assign mxu_x_data_o   = '0;
    assign mxu_acc_data_o = '0;
    assign vpu_rdata_o    = '0;
    assign dma_rdata_o    = '0;
    assign ici_rdata_o    = '0;
    /* verilator tracing_off */
    logic unused_dpi;
    assign unused_dpi = ^{clk_i, bd_we_i, bd_wdata_i, bd_wstrb_i, bd_re_i, mxu_w_addr_i, mxu_x_addr_i,
                          mxu_acc_addr_i, vpu_raddr_i, dma_raddr_i, ici_raddr_i, ici_we_i, ici_waddr_i,
                          ici_wlen_i, ici_wdata_i, mxu_we_i, mxu_waddr_i, mxu_wdata_i, vpu_we_i,
                          vpu_whalf_i, vpu_waddr_i, vpu_wdata_i, dma_we_i, dma_waddr_i, dma_wdata_i};
    /* verilator tracing_on */
`endif
  end

  /* verilator tracing_off */  // a lint sink: not traced, not computed
  logic unused_bd_addr;
  assign unused_bd_addr = ^bd_addr_i[63:AW];
  /* verilator tracing_on */
endmodule
