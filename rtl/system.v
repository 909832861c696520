// system: NCores cores joined by their ICI links, for multi-core
// co-simulation (the C model's tpu_system, cmodel/system.c).  Built with
// NCores = 2 and 4 in a ring (rtl-bench2, every two-core program;
// rtl-bench4, the collectives on a ring of four) and 8 as a 2 x 2 x 2
// torus3d (rtl-bench8, the 3-D collectives).
//
// Topology (docs/timing.md section 6, system.c tpu_system_neighbour):
// Topo 0, a ring: port 0 of core c leads to core (c + 1) mod NCores and
// port 1 to core (c - 1) mod NCores; ports 2..5 are not connected.
// Topo 1 (torus2d) / 2 (mesh2d, no wraparound): Dy rows of Dx columns,
// core c = row * Dx + col; ports 0 +col, 1 -col, 2 +row, 3 -row.
// Topo 3 (torus3d): Dx x Dy x Dz, core c = (z * Dy + y) * Dx + x; ports
// 0 +x, 1 -x, 2 +y, 3 -y, 4 +z, 5 -z, wraparound on every axis.  A word
// core c sends on port p arrives at the neighbour's port p ^ 1 (system.c:
// link (c, p) to the neighbour's port p ^ 1), so core c's port q receives
// what its port-q neighbour sends on port q ^ 1.  The wiring is constant:
// nb() is evaluated at elaboration.
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
  parameter integer NCores = 2,
  parameter integer Topo   = 0,        // 0 ring, 1 torus2d, 2 mesh2d, 3 torus3d
  parameter integer Dx     = NCores,   // columns (x); Dx * Dy * Dz = NCores
  parameter integer Dy     = 1,        // rows (y)
  parameter integer Dz     = 1         // planes (z, torus3d)
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
  localparam integer DmaPorts   = DmaMaxB;             // shared by the engines (dma.v)
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

  // ---- the link wires: core c's port q <- port q ^ 1 of nb(c, q) ------------------
  localparam integer NumPorts = 6;     // NUM_PORTS of tpu_isa.vh (core.v)

  // The core port p of core c leads to, or -1 (system.c tpu_system_neighbour).
  function automatic integer nb(input integer c, input integer p);
    integer x, y, z;
    nb = -1;
    if (Topo == 0) begin
      if (p == 0) nb = (c + 1) % NCores;
      if (p == 1) nb = (c + NCores - 1) % NCores;
    end else begin
      x = c % Dx;
      y = (c / Dx) % Dy;
      z = c / (Dx * Dy);
      if (p == 0) x = x + 1;
      if (p == 1) x = x - 1;
      if (p == 2) y = y + 1;
      if (p == 3) y = y - 1;
      if (p == 4) z = z + 1;
      if (p == 5) z = z - 1;
      if (Topo == 2 && (x < 0 || x >= Dx || y < 0 || y >= Dy)) begin
        nb = -1;
      end else if (Topo != 3 && p >= 4) begin
        nb = -1;
      end else begin
        nb = (((z + Dz) % Dz) * Dy + (y + Dy) % Dy) * Dx + (x + Dx) % Dx;
      end
    end
  endfunction

  logic [NumPorts*LinkW-1:0] link_out [NCores];
  logic [NumPorts*LinkW-1:0] link_in  [NCores];
  logic [NCores-1:0]  link_busy, stuck, halted;
  logic [511:0]       rdata [NCores];
  for (genvar c = 0; c < NCores; c++) begin : g_wire
    for (genvar q = 0; q < NumPorts; q++) begin : g_port
      if (nb(c, q) >= 0) begin : g_link
        assign link_in[c][q*LinkW +: LinkW] = link_out[nb(c, q)][(q ^ 1)*LinkW +: LinkW];
      end else begin : g_none
        assign link_in[c][q*LinkW +: LinkW] = '0;
      end
    end
  end

  // The ports of core c with a neighbour.
  function automatic logic [NumPorts-1:0] connected(input integer c);
    for (int p = 0; p < NumPorts; p++) begin
      connected[p] = nb(c, p) >= 0;
    end
  endfunction

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
      .ici_connected_i (connected(c)),
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
