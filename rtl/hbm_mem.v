// hbm_mem: the storage behind the HBM port (simulation only; a real chip
// has HBM stacks here).  Bytes bytes, all zero after construction as the
// C model's lazily allocated HBM reads 0 where nothing was written
// (cmodel/hbm.c).  Reads are combinational and see the memory as it was at
// the start of the cycle; writes land at the end of the cycle in port
// order, which is the DMA engines' start order (T12a).
//
// Two ways to hold the bytes, chosen by Sparse (core.v: above 1 GiB, as
// v5e's 16 GiB; docs/rtl.md, "Large arrays"):
//   - dense (Sparse 0): one Verilated array of Bytes bytes, as before;
//   - sparse (Sparse 1): the bytes live in the bench's C++ store,
//     sim/rtl/hbm_sparse.cpp, 64 KiB pages allocated on the first write,
//     read and written through DPI calls, one per class of ports (the
//     backdoor, the DMA's byte ports) with the class's packed addresses,
//     enables and data, so that C++ loops over the bytes and Verilator sees
//     O(classes) calls, not one per byte port (as rtl/vmem.v's Dpi
//     branch).  A Verilated array is a member of the model's class, so 16
//     GiB of it does not fit in the host (and an integer parameter cannot
//     even say its size).  The writes are made at the clock edge in the
//     same order as the dense array's; wseq_q, a count of the cycles with
//     a write, is an argument of every read, so the reads are ordered
//     after the writes of the edge (a DPI call's effect on the store is
//     invisible to its scheduling otherwise).  Addresses wrap at AW bits,
//     as the array's index.  Simulation only, like the array: synthesis
//     (SYNTHESIS) sees a black box either way (sim/rtl/synth.sh).
module hbm_mem #(
  parameter logic [63:0] Bytes    = 64'd16777216,
  parameter integer      AW       = 24,        // address bits, 2^AW >= Bytes
  parameter integer      DmaPorts = 32,        // DMA byte ports
  parameter bit          Sparse   = 1'b0       // the bytes in the C++ store (above)
) (
  input  logic                   clk_i,
  // backdoor: 64 bytes at bd_addr_i
  input  logic                   bd_we_i,
  input  logic [63:0]            bd_addr_i,
  input  logic [511:0]           bd_wdata_i,
  input  logic [63:0]            bd_wstrb_i,
  input  logic                   bd_re_i,
  output logic [511:0]           bd_rdata_o,
  // DMA reads (dma.h2v) and writes (dma.v2h), one byte per port
  input  logic [DmaPorts*AW-1:0] raddr_i,
  output logic [DmaPorts*8-1:0]  rdata_o,
  input  logic [DmaPorts-1:0]    we_i,
  input  logic [DmaPorts*AW-1:0] waddr_i,
  input  logic [DmaPorts*8-1:0]  wdata_i
);
  if (!Sparse) begin : g_dense
    localparam integer Size = 32'(Bytes);
    logic [7:0] mem_q [Size] /* verilator public_flat_rw */;   // loaded and read by the bench directly (as vmem.v's)

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

    for (genvar p = 0; p < DmaPorts; p++) begin : g_rd
      assign rdata_o[8*p +: 8] = mem_q[raddr_i[p*AW +: AW]];
    end

    always_ff @(posedge clk_i) begin
      if (bd_we_i) begin
        for (int i = 0; i < 64; i++) begin
          if (bd_wstrb_i[i]) begin
            mem_q[bd_addr_i[AW-1:0] + AW'(i)] <= bd_wdata_i[8*i +: 8];
          end
        end
      end
      for (int p = 0; p < DmaPorts; p++) begin
        if (we_i[p]) begin
          mem_q[waddr_i[p*AW +: AW]] <= wdata_i[8*p +: 8];
        end
      end
    end
  end else begin : g_sparse
`ifndef SYNTHESIS
    // sim/rtl/hbm_sparse.cpp; h is this memory's store (one per core; a
    // context import, so the store knows its instance's scope and the bench
    // finds each core's).
    import "DPI-C" context function chandle tpu_hbm_sparse_new(input longint unsigned bytes,
                                                               input int unsigned aw);
    // reads: the 64 bytes at addr (the backdoor), or byte p at address
    // field p (the DMA's ports); wseq only orders the call (above)
    import "DPI-C" function void tpu_hbm_sparse_rd_bd(input chandle h, input int unsigned wseq,
      input bit [AW-1:0] addr, output bit [511:0] data);
    import "DPI-C" function void tpu_hbm_sparse_rd_dma(input chandle h, input int unsigned wseq,
      input int unsigned ports, input bit [DmaPorts*AW-1:0] addr, output bit [DmaPorts*8-1:0] data);
    // writes: the backdoor's bytes whose strobe is set, the ports whose
    // enable is set, in port order
    import "DPI-C" function void tpu_hbm_sparse_wr_bd(input chandle h, input bit [AW-1:0] addr,
      input bit [63:0] strb, input bit [511:0] data);
    import "DPI-C" function void tpu_hbm_sparse_wr_dma(input chandle h, input int unsigned ports,
      input bit [DmaPorts-1:0] we, input bit [DmaPorts*AW-1:0] addr, input bit [DmaPorts*8-1:0] data);
    chandle      h;
    logic [31:0] wseq_q;                       // cycles with a write (orders the reads)
    initial begin
      h      = tpu_hbm_sparse_new(Bytes, AW);
      wseq_q = 32'd0;
    end

    always_comb begin
      bd_rdata_o = '0;
      if (bd_re_i) begin
        tpu_hbm_sparse_rd_bd(h, wseq_q, bd_addr_i[AW-1:0], bd_rdata_o);
      end
    end

    always_comb begin
      tpu_hbm_sparse_rd_dma(h, wseq_q, DmaPorts, raddr_i, rdata_o);
    end

    always_ff @(posedge clk_i) begin
      if (bd_we_i) begin
        tpu_hbm_sparse_wr_bd(h, bd_addr_i[AW-1:0], bd_wstrb_i, bd_wdata_i);
      end
      if (we_i != '0) begin
        tpu_hbm_sparse_wr_dma(h, DmaPorts, we_i, waddr_i, wdata_i);
      end
      if (bd_we_i || we_i != '0) begin
        wseq_q <= wseq_q + 32'd1;
      end
    end
`else
    assign bd_rdata_o = '0;                    // synthesis: a black box (sim/rtl/synth.sh)
    assign rdata_o    = '0;
    /* verilator tracing_off */
    logic unused_sparse;
    assign unused_sparse = ^{clk_i, bd_we_i, bd_wdata_i, bd_wstrb_i, bd_re_i, raddr_i, we_i, waddr_i,
                             wdata_i};
    /* verilator tracing_on */
`endif
  end

  /* verilator tracing_off */  // a lint sink: not traced, not computed
  logic unused_bd_addr;
  assign unused_bd_addr = ^bd_addr_i[63:AW];
  /* verilator tracing_on */
endmodule
