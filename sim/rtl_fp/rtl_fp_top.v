// rtl_fp_top: the test harness's view of the fp units.  Simulation only:
// one instance of each unit on its own inputs, so that one Verilated model
// serves the whole comparison in sim/rtl_fp/rtl_fp_test.cpp.  The
// transcendentals' pipeline (fp32_tr) is the one clocked unit: the
// harness feeds it an input a cycle and reads each result Steps cycles
// later.

module rtl_fp_top (
  input  logic        clk_i,      // fp32_tr's clock and reset
  input  logic        rst_ni,
  input  logic        tr_en_i,    // fp32_tr: an input enters
  input  logic [1:0]  tr_fn_i,    //   0 exp, 1 rcp, 2 rsqrt
  input  logic [31:0] tr_x_i,
  output logic [31:0] tr_y_o,     //   the result of the input of 10 cycles ago
  input  logic [31:0] a_i,        // fp32 operands of add, mul, cmp
  input  logic [31:0] b_i,
  input  logic [1:0]  cmp_op_i,   // fp32_cmp's op code
  input  logic [31:0] f32_i,      // bf16_round's input
  input  logic [31:0] psum_i,     // mxu_mac's operands
  input  logic [15:0] x_i,
  input  logic [15:0] w_i,
  output logic [31:0] sum_o,
  output logic [31:0] prod_o,
  output logic [31:0] cmp_o,
  output logic [15:0] bf16_o,
  output logic [31:0] mac_o
);

  fp32_add u_add (
    .en_i   (1'b1),
    .a_i   (a_i),
    .b_i   (b_i),
    .sum_o (sum_o)
  );

  fp32_mul u_mul (
    .en_i   (1'b1),
    .a_i    (a_i),
    .b_i    (b_i),
    .prod_o (prod_o)
  );

  fp32_cmp u_cmp (
    .en_i   (1'b1),
    .a_i   (a_i),
    .b_i   (b_i),
    .op_i  (cmp_op_i),
    .res_o (cmp_o)
  );

  bf16_round u_bf16_round (
    .en_i   (1'b1),
    .f32_i  (f32_i),
    .bf16_o (bf16_o)
  );

  fp32_tr u_tr (
    .clk_i  (clk_i),
    .rst_ni (rst_ni),
    .en_i   (tr_en_i),
    .v_i    ('0),          // not used: ExtValid 0, the pipeline keeps its own valid bits
    .fn_i   (tr_fn_i),
    .x_i    (tr_x_i),
    .y_o    (tr_y_o)
  );

  mxu_mac u_mac (
    .en_i   (1'b1),
    .psum_i (psum_i),
    .x_i    (x_i),
    .w_i    (w_i),
    .psum_o (mac_o)
  );

endmodule
