// hbm_mem: the storage behind the HBM port (simulation only; a real chip
// has HBM stacks here).  Bytes bytes, all zero after construction as the
// C model's lazily allocated HBM reads 0 where nothing was written
// (cmodel/hbm.c).  Reads are combinational and see the memory as it was at
// the start of the cycle; writes land at the end of the cycle in port
// order, which is the DMA engines' start order (T12a).
module hbm_mem #(
  parameter integer Bytes    = 16777216,
  parameter integer AW       = 24,        // address bits, 2^AW >= Bytes
  parameter integer DmaPorts = 32         // DMA byte ports
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
  logic [7:0] mem_q [Bytes];

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

  /* verilator tracing_off */  // a lint sink: not traced, not computed
  logic unused_bd_addr;
  assign unused_bd_addr = ^bd_addr_i[63:AW];
  /* verilator tracing_on */
endmodule
