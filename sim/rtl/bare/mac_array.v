// mac_array: the bare reference of `make bench` (sim/scripts/bench.sh,
// docs/cosim.md "Where the RTL's time goes"): an N x N weight-stationary
// array of 32-bit integer multiply-accumulate cells with nothing around it
// (no queues, no memories, no trace port), Verilated with the flags of
// the core, so that the core's cycles per second can be read against the
// rate of a plain array, on the same machine in the same run.
// Not part of the design; simulation only.
module mac_array #(
  parameter integer N = 32
) (
  input  logic          clk_i,
  input  logic          rst_ni,
  input  logic [16*N-1:0] x_i,       // one activation per row, entering at the left
  input  logic [16*N-1:0] w_i,       // loaded into row 0's weights when load_i
  input  logic          load_i,
  output logic [32*N-1:0] y_o        // the bottom row's partial sums
);
  logic [16*N*N-1:0] x_q, w_q;     // cell (r, c) at index r*N + c
  logic [32*N*N-1:0] p_q;

  for (genvar r = 0; r < N; r++) begin : g_row
    for (genvar c = 0; c < N; c++) begin : g_col
      localparam integer I = r * N + c;
      logic [15:0] x_in, w_in;
      logic [31:0] p_in;
      // activations move right, weights down (while loading), partial sums down
      if (c == 0) begin : g_left
        assign x_in = x_i[16*r +: 16];
      end else begin : g_inner
        assign x_in = x_q[16*(I-1) +: 16];
      end
      if (r == 0) begin : g_top
        assign w_in = w_i[16*c +: 16];
        assign p_in = 32'd0;
      end else begin : g_below
        assign w_in = w_q[16*(I-N) +: 16];
        assign p_in = p_q[32*(I-N) +: 32];
      end
      always_ff @(posedge clk_i or negedge rst_ni) begin
        if (!rst_ni) begin
          x_q[16*I +: 16] <= '0;
          w_q[16*I +: 16] <= '0;
          p_q[32*I +: 32] <= '0;
        end else begin
          if (load_i) begin
            w_q[16*I +: 16] <= w_in;
          end
          x_q[16*I +: 16] <= x_in;
          p_q[32*I +: 32] <= p_in + {16'd0, x_q[16*I +: 16]} * {16'd0, w_q[16*I +: 16]};
        end
      end
    end
  end

  for (genvar c = 0; c < N; c++) begin : g_out
    assign y_o[32*c +: 32] = p_q[32*((N-1)*N + c) +: 32];
  end
endmodule
