// mxu_cell: cell (k, c) of the weight-stationary N x N array
// (docs/timing.md T20-T23; the C model computes the same values at the
// array's edges, cmodel/mxu.c, and shows them with tpu_mxu_cell_view).
//
// Registers: the active weight (the one the cell multiplies by), the
// shadow weight (the next tile's, loaded while the array streams) and the
// load-chain register, all bf16; the activation, its valid and swap flags
// (moving right) and the partial sum (moving down).
//
// Each cycle:
//   - T23: psum_o (next cycle) = mac(psum_i, x_i, w), with psum_i from cell
//     (k-1, c) and +0.0 on the top row; w is the active weight, or the
//     shadow when the swap flag arrives with the activation (T22: the
//     first row of a stream after mxu.lw copies shadow into active and
//     uses it);
//   - T20: when the column shifts, the chain register takes the value
//     from above; on the column's N-th shift (copy_i) the shadow takes the
//     chain's new value.
module mxu_cell (
  input  logic        clk_i,
  input  logic        rst_ni,
  // activation, from the left (registered outputs go right)
  input  logic [15:0] x_i,
  input  logic        valid_i,
  input  logic        swap_i,
  output logic [15:0] x_o,
  output logic        valid_o,
  output logic        swap_o,
  // partial sum, from above (registered output goes down)
  input  logic [31:0] psum_i,
  output logic [31:0] psum_o,
  // weight load chain, from above; shift and copy are the column's
  input  logic [15:0] chain_i,
  input  logic        shift_i,
  input  logic        copy_i,
  output logic [15:0] chain_o,
  // the weights, for views and traces
  output logic [15:0] weight_o,
  output logic [15:0] shadow_o
);
  logic [15:0] active_q, active_d, shadow_q, shadow_d, chain_q, chain_d, w;
  logic [15:0] x_q;
  logic        valid_q, swap_q, swap_now;
  logic [31:0] psum_q, psum_d;

  assign swap_now = valid_i && swap_i;
  assign w        = swap_now ? shadow_q : active_q;
  assign active_d = w;
  assign chain_d  = shift_i ? chain_i : chain_q;
  assign shadow_d = copy_i ? chain_d : shadow_q;

  mxu_mac u_mac (
    .psum_i (psum_i),
    .x_i    (x_i),
    .w_i    (w),
    .psum_o (psum_d)
  );

  // Weights are zero after reset (the C model's tile 0).
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      active_q <= 16'd0;
      shadow_q <= 16'd0;
      valid_q  <= 1'b0;
      swap_q   <= 1'b0;
    end else begin
      active_q <= active_d;
      shadow_q <= shadow_d;
      valid_q  <= valid_i;
      swap_q   <= swap_now;
    end
  end

  always_ff @(posedge clk_i) begin
    chain_q <= chain_d;
    x_q     <= x_i;
    psum_q  <= psum_d;
  end

  assign x_o      = x_q;
  assign valid_o  = valid_q;
  assign swap_o   = swap_q;
  assign psum_o   = psum_q;
  assign chain_o  = chain_q;
  assign weight_o = active_q;
  assign shadow_o = shadow_q;
endmodule
