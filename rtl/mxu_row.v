// mxu_row: row k of the MXU's N x N cell array (rtl/mxu.v): N cells
// (rtl/mxu_cell.v) side by side.  The row's left edge takes the activation
// and the weight wavefront of row k from the skew registers; each cell
// passes them one column right; the partial sums come in from the row
// above (psum_i, zero for row 0) and go out to the row below (psum_o).
// Column c's weight buses (one per load slot) reach every row.
//
// One module per row so that a large array can be Verilated with the row
// as a hierarchy block (docs/rtl.md, "Large arrays"): Verilator compiles
// the row once, not the N x N cells of the array as one model; a flat
// build inlines it as before.
module mxu_row #(
  parameter integer N  = 8,
  parameter integer W  = 1,                   // load slots (mxu_wloads)
  parameter integer SW = 1                    // bits of a slot number
) (
  input  logic              clk_i,
  input  logic              rst_ni,
  input  logic              en_i,             // clock enable of the array
  // left edge: the input of cell (k, 0)
  input  logic [15:0]       x_i,
  input  logic              valid_i,
  input  logic              swap_i,
  input  logic              i8_i,
  input  logic              wv_i,
  input  logic [SW-1:0]     wslot_i,
  // column c's W weight buses at [16*W*c +: 16*W]
  input  logic [16*W*N-1:0] wbus_i,
  // partial sums of column c at [32*c +: 32]: from the row above, to the row below
  input  logic [32*N-1:0]   psum_i,
  output logic [32*N-1:0]   psum_o
);
  // The cells' outputs to their right-hand neighbour, cell c at index c.
  logic [15:0]   x_out     [N];
  logic          valid_out [N];
  logic          swap_out  [N];
  logic          i8_out    [N];
  logic          wv_out    [N];
  logic [SW-1:0] wslot_out [N];
  /* verilator tracing_off */   // the cells' state, seen only in a waveform of the cells
  logic [15:0]   wload     [N];
  logic [15:0]   weight    [N];
  logic [15:0]   shadow    [N];
  /* verilator tracing_on */

  for (genvar c = 0; c < N; c++) begin : g_col
    /* verilator tracing_off */   // the neighbours' registers: traced in the cells
    logic [15:0]   x_in;
    logic          valid_in, swap_in, i8_in, wv_in;
    logic [SW-1:0] wslot_in;
    /* verilator tracing_on */
    if (c == 0) begin : g_left
      assign x_in     = x_i;
      assign valid_in = valid_i;
      assign swap_in  = swap_i;
      assign i8_in    = i8_i;
      assign wv_in    = wv_i;
      assign wslot_in = wslot_i;
    end else begin : g_inner
      assign x_in     = x_out[c-1];
      assign valid_in = valid_out[c-1];
      assign swap_in  = swap_out[c-1];
      assign i8_in    = i8_out[c-1];
      assign wv_in    = wv_out[c-1];
      assign wslot_in = wslot_out[c-1];
    end
    mxu_cell #(
      .W  (W),
      .SW (SW)
    ) u_cell (
      .clk_i         (clk_i),
      .rst_ni        (rst_ni),
      .en_i          (en_i),
      .x_i           (x_in),
      .valid_i       (valid_in),
      .swap_i        (swap_in),
      .i8_i          (i8_in),
      .x_o           (x_out[c]),
      .valid_o       (valid_out[c]),
      .swap_o        (swap_out[c]),
      .i8_o          (i8_out[c]),
      .psum_i        (psum_i[32*c +: 32]),
      .psum_o        (psum_o[32*c +: 32]),
      .wload_valid_i (wv_in),
      .wslot_i       (wslot_in),
      .wbus_i        (wbus_i[16*W*c +: 16*W]),
      .wload_valid_o (wv_out[c]),
      .wslot_o       (wslot_out[c]),
      .wload_o       (wload[c]),
      .weight_o      (weight[c]),
      .shadow_o      (shadow[c])
    );
  end

  // Not traced, so that Verilator does not compute the sinks (as every
  // unused_* sink of rtl/): the last column's outputs to the right and the
  // cells' weights, which only a waveform shows.
  /* verilator tracing_off */
  logic unused_cells;
  always_comb begin
    unused_cells = 1'b0;
    for (int i = 0; i < N; i++) begin
      unused_cells = unused_cells ^ (^{weight[i], shadow[i], wload[i]});
    end
  end
  logic unused_row;
  assign unused_row = ^{x_out[N-1], valid_out[N-1], swap_out[N-1], i8_out[N-1], wv_out[N-1],
                        wslot_out[N-1], unused_cells};
  /* verilator tracing_on */
endmodule
