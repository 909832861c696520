// hbm_port: the HBM bandwidth credit of docs/timing.md T15 (in
// cmodel/dma.c it is tpu_dma's `acc`).
//
// HBM moves Num/Den bytes per cycle (a reduced fraction).  The accumulator
// acc_q counts 1/Den bytes.  In a cycle in which some DMA engine is in
// XFER, acc + Num is the credit and its whole bytes floor((acc + Num) / Den)
// are offered to the engines (avail_o); every byte an engine takes costs
// Den.  At the end of such a cycle acc becomes (acc + Num) mod Den if some
// engine still has bytes to move (still_i), else 0: unused whole bytes are
// lost.  Because acc < Den always holds, floor((acc + Num) / Den) is
// Num / Den or one more, and (acc + Num) mod Den does not depend on how
// many bytes were taken; so no divider is needed, only the constants
// Q0 = Num / Den and R0 = Num mod Den.
module hbm_port #(
  parameter logic [63:0] Num  = 64'd16,
  parameter logic [63:0] Den  = 64'd1,
  parameter integer      AvW  = 8         // width of avail_o
) (
  input  logic           clk_i,
  input  logic           rst_ni,
  input  logic           xfer_i,          // an engine is in XFER this cycle
  input  logic           still_i,         // an engine has bytes left after this cycle
  output logic [AvW-1:0] avail_o          // whole bytes offered this cycle
);
  localparam logic [63:0] Q0 = Num / Den;
  localparam logic [63:0] R0 = Num % Den;

  logic [63:0] acc_q, acc_d, sum;
  logic        carry;

  assign sum     = acc_q + R0;
  assign carry   = (sum >= Den);
  assign avail_o = AvW'(Q0 + {63'd0, carry});

  always_comb begin
    acc_d = acc_q;
    if (xfer_i) begin
      acc_d = still_i ? (carry ? sum - Den : sum) : 64'd0;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      acc_q <= 64'd0;
    end else begin
      acc_q <= acc_d;
    end
  end
endmodule
