// mxu_cell: cell (k, c) of the weight-stationary N x N array
// (docs/timing.md T20-T23; the C model computes the same values at the
// array's edges, cmodel/mxu.c, and shows them with tpu_mxu_cell_view).
//
// Registers: the active weight (the one the cell multiplies by), the
// shadow weight (the next tile's, loaded while the array streams) and the
// weight in transit (wload, with its valid bit and the number of the load
// slot it belongs to), all bf16; the activation, its valid and swap flags
// (moving right) and the partial sum (moving down).
//
// Each cycle:
//   - T23: psum_o (next cycle) = mac(psum_i, x_i, w) when valid_i (0
//     otherwise), with psum_i from cell
//     (k-1, c) and +0.0 on the top row; in int8 (i8_i, the stream's mode,
//     travelling with the activation like the swap flag; T26a and
//     docs/numerics.md section 9.1) psum_i + x0*w0 + x1*w1 on 32 bits
//     instead, the bytes of x and w as signed int8; w is the active weight, or the
//     shadow when the swap flag arrives with the activation (T22: the
//     first row of a stream after mxu.lw copies shadow into active and
//     uses it);
//   - T20: the load wavefront moves one column right per cycle: when
//     wload_valid_i arrives from the left (from the row's left edge for
//     column 0), the cell takes its element of the weight row from the
//     column's bus of that load slot (wslot_i), so that in the next cycle
//     wload holds element c with wload_valid set; at the end of that cycle
//     wload is written into the shadow register.  wload is 0 when not
//     valid (as the C model's view shows it).
//
// en_i is the array's clock enable (mxu.v, "clock enable"): while it is 0
// every register holds.  The MXU drops it only when the array has been
// empty long enough for every register to have reached the value it would
// keep anyway (the valid bits, the partial sums and the weight in transit
// 0, the weights unchanged); only the don't-care values (an activation
// without its valid bit, a slot number without its wavefront) stop moving.
//
// Waveforms show a cell's registers (x_q, psum_q, active_q, ...), not its
// ports: each port is a neighbour's register or one of the cell's own
// under another name, and tracing them tripled the waveform code of a
// big array (docs/cosim.md, "Build time").
`include "mxu_mac_pkg.vh"   // mxu_mac_f: psum + x * w in bf16 x bf16 -> fp32

module mxu_cell #(
  parameter integer W  = 1,                 // load slots (mxu_wloads)
  parameter integer SW = 1                  // bits of a slot number
) (
  /* verilator tracing_off */
  input  logic          clk_i,
  input  logic          rst_ni,
  input  logic          en_i,               // clock enable of the array
  // activation, from the left (registered outputs go right)
  input  logic [15:0]   x_i,
  input  logic          valid_i,
  input  logic          swap_i,
  input  logic          i8_i,               // int8 stream row (mxu.mm.i8, mxu.mma.i8)
  output logic [15:0]   x_o,
  output logic          valid_o,
  output logic          swap_o,
  output logic          i8_o,
  // partial sum, from above (registered output goes down)
  input  logic [31:0]   psum_i,
  output logic [31:0]   psum_o,
  // weight load wavefront, from the left (registered outputs go right);
  // the column's weight buses, one per load slot
  input  logic          wload_valid_i,
  input  logic [SW-1:0] wslot_i,
  input  logic [16*W-1:0] wbus_i,
  output logic          wload_valid_o,
  output logic [SW-1:0] wslot_o,
  // the weights, for views and traces
  output logic [15:0]   wload_o,
  output logic [15:0]   weight_o,
  output logic [15:0]   shadow_o
  /* verilator tracing_on */
);
  logic [15:0]   active_q, shadow_q;
  logic [15:0]   wload_q;
  logic          wload_valid_q;
  logic [SW-1:0] wslot_q;
  logic [15:0]   x_q;
  logic          valid_q, swap_q, i8_q;
  logic [31:0]   psum_q;

  // int8 (docs/numerics.md 9.1, tpu_mac_i8): two 8 x 8 signed products and
  // a 3-input adder, modulo 2^32; no rounding.
  function automatic logic [31:0] mac_i8(input logic [31:0] p, input logic [15:0] x,
                                         input logic [15:0] wt);
    logic signed [15:0] p0, p1;
    p0 = $signed(x[7:0]) * $signed(wt[7:0]);
    p1 = $signed(x[15:8]) * $signed(wt[15:8]);
    mac_i8 = p + 32'($signed(p0)) + 32'($signed(p1));
  endfunction

  // The element of the weight row on the bus of load slot s.
  function automatic logic [15:0] slot_word(input logic [16*W-1:0] bus, input logic [SW-1:0] s);
    slot_word = bus[15:0];
    for (int j = 1; j < W; j++) begin
      if (s == SW'(j)) begin
        slot_word = bus[16*j +: 16];
      end
    end
  endfunction
  if (W == 1) begin : g_one_slot
    /* verilator tracing_off */  // a lint sink: not traced, not computed
    logic unused_wslot;
    assign unused_wslot = ^wslot_i;
    /* verilator tracing_on */
  end

  function automatic logic [31:0] mac(input logic [31:0] p, input logic [15:0] x,
                                      input logic [15:0] wt);
    mac = mxu_mac_pkg::mxu_mac_f(p, x, wt);
  endfunction

  // Every register, in one clocked block: the next values are computed
  // here, at the clock edge, not by continuous assignments, so that the
  // Verilated model computes nothing for a cell while en_i is 0, and its
  // multiply-add only for a valid activation (docs/rtl.md, "Simulation
  // speed").  Weights are zero after reset (the C model's tile 0).
  always_ff @(posedge clk_i or negedge rst_ni) begin : p_regs
    logic [15:0] w;                           // the weight this activation meets
    if (!rst_ni) begin
      active_q      <= 16'd0;
      shadow_q      <= 16'd0;
      wload_q       <= 16'd0;
      wload_valid_q <= 1'b0;
      wslot_q       <= '0;
      x_q           <= 16'd0;
      valid_q       <= 1'b0;
      swap_q        <= 1'b0;
      i8_q          <= 1'b0;
      psum_q        <= 32'd0;
    end else if (en_i) begin
      // T22: the first row of a stream after mxu.lw (its swap flag) copies
      // the shadow into the active weight and multiplies by it.
      w             = (valid_i && swap_i) ? shadow_q : active_q;
      active_q      <= w;
      // T20: the weight in transit lands in the shadow a cycle after the
      // wavefront brought it.
      shadow_q      <= wload_valid_q ? wload_q : shadow_q;
      wload_q       <= wload_valid_i ? slot_word(wbus_i, wslot_i) : 16'd0;
      wload_valid_q <= wload_valid_i;
      wslot_q       <= wslot_i;
      x_q           <= x_i;
      valid_q       <= valid_i;
      swap_q        <= valid_i && swap_i;
      i8_q          <= i8_i;
      // T23: only a valid activation makes a partial sum that anyone reads
      // (the row below takes it together with the same row's valid bit);
      // without one it is 0.
      psum_q        <= 32'd0;
      if (valid_i) begin
        if (i8_i) begin
          psum_q    <= mac_i8(psum_i, x_i, w);
        end else begin
          psum_q    <= mac(psum_i, x_i, w);
        end
      end
    end
  end

  assign x_o           = x_q;
  assign valid_o       = valid_q;
  assign swap_o        = swap_q;
  assign i8_o          = i8_q;
  assign psum_o        = psum_q;
  assign wload_valid_o = wload_valid_q;
  assign wslot_o       = wslot_q;
  assign wload_o       = wload_q;
  assign weight_o      = active_q;
  assign shadow_o      = shadow_q;
endmodule
