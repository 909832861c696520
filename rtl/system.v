// system: NCores cores in a ring joined by their ICI links, for multi-core
// co-simulation (the C model's tpu_system with a ring topology,
// cmodel/system.c).  Built with NCores = 2 (rtl-bench2, every two-core
// program) and 4 (rtl-bench4, the collectives on a ring of four).
//
// Ring (docs/timing.md section 6): port 0 of core c leads to core
// (c + 1) mod NCores and port 1 to core (c - 1) mod NCores; a word core c
// sends on port p arrives at the neighbour's port p ^ 1 (system.c: link
// (c, p) to the neighbour's port p ^ 1).  Ports 2 and 3 are not connected.
//
// The backdoor goes to the core bd_core_i names.  Every status and trace
// output of core.v appears here NCores times as wide: core c's bits are the
// c-th slice (for example tr_pc_o[64*c +: 64]).  deadlock_o is T10 across
// the system: every core that has not halted is stalled on a sem.wait with
// all its units idle, and no link carries anything; links_busy_o tells
// whether some link still carries bytes (a run has ended when every core
// halted and no link is busy, as tpu_system_step decides).
`include "tpu_trace.vh"

module system #(
  parameter integer NCores = 2
) (
  clk_i,
  rst_ni,
  bd_core_i,
  bd_we_i,
  bd_space_i,
  bd_addr_i,
  bd_wdata_i,
  bd_wstrb_i,
  bd_rdata_o,
  deadlock_o,
  links_busy_o,
  halted_o,
  error_o,
  error_code_o,
  `TPU_TRACE_PORTS        // rtl/trace_ports.def (tpu_trace.vh)
);
  `include "tpu_cfg.vh"

  // ---- derived parameters: the same as core.v's -------------------------------
  localparam integer VAW        = $clog2(CFG_VMEM_BYTES);
  localparam integer DmaEngines = CFG_DMA_ENGINES;
  localparam integer DmaMaxB    = 32'((CFG_HBM_NUM + CFG_HBM_DEN - 64'd1) / CFG_HBM_DEN);
  localparam integer DmaPorts   = DmaEngines * DmaMaxB;
  localparam integer IciB       = 32'((CFG_ICI_NUM + CFG_ICI_DEN - 64'd1) / CFG_ICI_DEN);
  localparam integer VecB       = 4 * CFG_SUBLANES * CFG_LANES;
  localparam integer LinkW      = 1 + 1 + 5 + 16 + VAW + 64 + 8 * IciB;
  localparam integer CW         = NCores > 1 ? $clog2(NCores) : 1;

  // ---- ports --------------------------------------------------------------------
  input  logic                  clk_i;
  input  logic                  rst_ni;
  input  logic [CW-1:0]         bd_core_i;
  input  logic                  bd_we_i;
  input  logic [1:0]            bd_space_i;
  input  logic [63:0]           bd_addr_i;
  input  logic [511:0]          bd_wdata_i;
  input  logic [63:0]           bd_wstrb_i;
  output logic [511:0]          bd_rdata_o;
  output logic                  deadlock_o;
  output logic                  links_busy_o;
  output logic [NCores-1:0]     halted_o;
  output logic [NCores-1:0]     error_o;
  output logic [3*NCores-1:0]   error_code_o;
  `TPU_TRACE_DECLS(NCores)      // rtl/trace_ports.def, core c in slice c

  // ---- the link wires: port 0 of core c -> port 1 of core c+1, port 1 of
  // core c -> port 0 of core c-1 -----------------------------------------------
  logic [4*LinkW-1:0] link_out [NCores];
  logic [4*LinkW-1:0] link_in  [NCores];
  logic [NCores-1:0]  link_busy, stuck, halted;
  logic [511:0]       rdata [NCores];
  always_comb begin
    for (int c = 0; c < NCores; c++) begin
      link_in[c] = '0;
      link_in[c][1*LinkW +: LinkW] = link_out[(c + NCores - 1) % NCores][0*LinkW +: LinkW];
      link_in[c][0*LinkW +: LinkW] = link_out[(c + 1) % NCores][1*LinkW +: LinkW];
    end
  end

  for (genvar c = 0; c < NCores; c++) begin : g_core
    core u_core (
      .clk_i           (clk_i),
      .rst_ni          (rst_ni),
      .core_id_i       (16'(c)),
      .bd_we_i         (bd_we_i && bd_core_i == CW'(c)),
      .bd_space_i      (bd_space_i),
      .bd_addr_i       (bd_addr_i),
      .bd_wdata_i      (bd_wdata_i),
      .bd_wstrb_i      (bd_wstrb_i),
      .bd_rdata_o      (rdata[c]),
      .ici_connected_i (4'b0011),
      .ici_link_o      (link_out[c]),
      .ici_link_i      (link_in[c]),
      .ici_link_busy_o (link_busy[c]),
      .stuck_o         (stuck[c]),
      .halted_o        (halted_o[c]),
      .error_o         (error_o[c]),
      .error_code_o    (error_code_o[3*c +: 3]),
      `TPU_TRACE_CONNECT(c)
    );
    assign halted[c] = halted_o[c];
  end

  assign bd_rdata_o   = rdata[bd_core_i];
  assign links_busy_o = (link_busy != '0);
  // T10 across the system (system.c check_deadlock)
  assign deadlock_o   = !links_busy_o && (halted | stuck) == '1 && halted != '1;
endmodule
