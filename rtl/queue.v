// queue: a FIFO of Depth entries of Width bits, one per unit between the
// sequencer and the unit (docs/timing.md T4, cmodel/queue.h).
//
// A push in cycle t is visible at the head in cycle t + 1; a pop in cycle
// t removes the head at the end of t.  Both may happen in one cycle.  The
// sequencer never pushes into a full queue (it stalls instead) and the
// unit never pops an empty one; the registers are a ring of entries with a
// head index and a count, as in the C model.
module queue #(
  parameter integer Width = 64,
  parameter integer Depth = 4
) (
  input  logic             clk_i,
  input  logic             rst_ni,
  input  logic             push_i,
  input  logic [Width-1:0] data_i,
  input  logic             pop_i,
  output logic [Width-1:0] head_o,
  output logic             empty_o,
  output logic             full_o
);
  localparam integer IdxW = (Depth > 1) ? $clog2(Depth) : 1;
  localparam integer CntW = $clog2(Depth + 1);

  logic [Width-1:0] mem_q [Depth];
  logic [IdxW-1:0]  head_q, head_d, tail;
  logic [CntW-1:0]  count_q, count_d;

  // Index arithmetic modulo Depth (which need not be a power of two).
  function automatic logic [IdxW-1:0] wrap_inc(input logic [IdxW-1:0] i, input logic [CntW-1:0] k);
    logic [IdxW+CntW:0] s;
    s = {{(CntW + 1){1'b0}}, i} + {{(IdxW + 1){1'b0}}, k};
    if (s >= Depth[IdxW+CntW:0]) begin
      s = s - Depth[IdxW+CntW:0];
    end
    wrap_inc = s[IdxW-1:0];
  endfunction

  assign empty_o = (count_q == '0);
  assign full_o  = (count_q == Depth[CntW-1:0]);
  assign head_o  = mem_q[head_q];
  assign tail    = wrap_inc(head_q, count_q);

  always_comb begin
    head_d  = head_q;
    count_d = count_q;
    if (pop_i && !empty_o) begin
      head_d  = wrap_inc(head_q, {{(CntW - 1){1'b0}}, 1'b1});
      count_d = count_d - 1'b1;
    end
    if (push_i && !full_o) begin
      count_d = count_d + 1'b1;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      head_q  <= '0;
      count_q <= '0;
    end else begin
      head_q  <= head_d;
      count_q <= count_d;
    end
  end

  // Entries are data: no reset.
  always_ff @(posedge clk_i) begin
    if (push_i && !full_o) begin
      mem_q[tail] <= data_i;
    end
  end
endmodule
