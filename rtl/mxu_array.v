// mxu_array: the MXU's N x N cell array (rtl/mxu.v): N rows (rtl/mxu_row.v)
// of N cells, row k's partial sums down to row k + 1, the top row's in at
// +0.0 (T23), the bottom row's out to mxu.v's de-skew.  Each row's left
// edge (activation, wavefront) comes from mxu.v's skew registers; column
// c's weight buses (one per load slot) reach every row.
//
// One module for the array so that a large array can be Verilated with the
// whole array as one hierarchy block (sim/rtl/hier.vlt; docs/rtl.md,
// "Large arrays"): Verilator compiles its N x N cells once as one flat
// model, which the core calls once per evaluation instead of once per row.
// A flat build inlines it as before.
module mxu_array #(
  parameter integer N  = 8,
  parameter integer W  = 1,                   // load slots (mxu_wloads)
  parameter integer SW = 1                    // bits of a slot number
) (
  input  logic              clk_i,
  input  logic              rst_ni,
  input  logic              en_i,             // clock enable of the array
  // left edge of row k: the input of cell (k, 0), at [16*k +: 16], [k],
  // [SW*k +: SW]
  input  logic [16*N-1:0]   x_i,
  input  logic [N-1:0]      valid_i,
  input  logic [N-1:0]      swap_i,
  input  logic [N-1:0]      i8_i,
  input  logic [N-1:0]      wv_i,
  input  logic [SW*N-1:0]   wslot_i,
  // column c's W weight buses at [16*W*c +: 16*W]
  input  logic [16*W*N-1:0] wbus_i,
  // the bottom row's partial sums, column c at [32*c +: 32]
  output logic [32*N-1:0]   psum_o
);
  logic [32*N-1:0] row_psum [N+1];            // into row k: row_psum[k]; out of the array: [N]
  assign row_psum[0] = {N{32'h0000_0000}};    // +0.0 into the top row (T23)
  for (genvar k = 0; k < N; k++) begin : g_row
    mxu_row #(
      .N  (N),
      .W  (W),
      .SW (SW)
    ) u_row (
      .clk_i   (clk_i),
      .rst_ni  (rst_ni),
      .en_i    (en_i),
      .x_i     (x_i[16*k +: 16]),
      .valid_i (valid_i[k]),
      .swap_i  (swap_i[k]),
      .i8_i    (i8_i[k]),
      .wv_i    (wv_i[k]),
      .wslot_i (wslot_i[SW*k +: SW]),
      .wbus_i  (wbus_i),
      .psum_i  (row_psum[k]),
      .psum_o  (row_psum[k+1])
    );
  end
  assign psum_o = row_psum[N];
endmodule
