// mxu: one weight-stationary N x N matrix unit (docs/timing.md T19-T26,
// cmodel/mxu.c): the cell array (mxu_cell), the skew registers in front of
// it, the de-skew registers behind it and the read-add-write of mxu.mma.
//
// Instructions come from the MXU's queue, at most one start per cycle:
//   mxu.lw   (T19) starts when the load chain is free: N cycles after the
//            previous mxu.lw started.  In cycle l + i it reads weight row
//            N-1-i (T20); the row enters the weight skew, element c
//            reaching the top of column c in cycle l + i + 1 + c, where the
//            column's chain shifts down; the N-th shift also copies the
//            chain into the column's shadow registers.
//   mxu.mm / mxu.mma (T21) start when the previous stream has read all
//            its rows and, if an mxu.lw came after the last stream, N
//            cycles after that mxu.lw started; row 0 then carries the swap
//            flag.  A stream of 0 rows does nothing (the swap stays
//            pending) but increment its semaphore (T24a).  Row b is read in cycle s + b (T22) and enters the
//            activation skew: element k reaches cell (k, 0) in cycle
//            s + b + 1 + k and moves one column right per cycle.
// Results (T24): y[b][c] leaves the bottom of column c at the end of cycle
// s + b + N + c; column c's de-skew delays it N-1-c cycles, so the row is
// complete at the end of s + b + 2N - 1 and is written in s + b + 2N.  For
// mxu.mma the old row is read in s + b + 2N - 1 (old_q) and old + y is
// written.  A row's destination and kind travel beside it in a 2N-stage
// pipeline (md_*).  Semaphores: an mxu.lw's at the end of the cycle its
// last weight row is read (T20a), a stream's with its last result row
// (T24a).  The MXU is busy (T26) while a weight row is being read
// or is in the skew, or a stream row is being read or is in the array.
module mxu #(
  parameter integer N   = 8,
  parameter integer VAW = 18             // VMEM address bits
) (
  input  logic              clk_i,
  input  logic              rst_ni,
  // the MXU's queue (entry layout: seq.v)
  input  logic [575:0]      head_i,
  input  logic              head_valid_i,
  output logic              pop_o,
  // VMEM (class 2: never waits, T11)
  output logic [VAW-1:0]    w_addr_o,    // weight row read
  input  logic [16*N-1:0]   w_data_i,
  output logic [VAW-1:0]    x_addr_o,    // LHS row read
  input  logic [16*N-1:0]   x_data_i,
  output logic [VAW-1:0]    acc_addr_o,  // mxu.mma: old output row read
  input  logic [32*N-1:0]   acc_data_i,
  output logic              we_o,        // result row write
  output logic [VAW-1:0]    waddr_o,
  output logic [32*N-1:0]   wdata_o,
  output logic [63:0]       bytes_o,     // VMEM bytes this cycle
  // semaphore increments (T20a, T24a): mxu.lw, stream end, empty stream
  output logic [2:0]        sem_inc_o,
  output logic [14:0]       sem_idx_o,
  // T26
  output logic              busy_o
);
  `include "tpu_isa.vh"

  localparam integer CW = $clog2(N + 1);
  localparam integer MD = 2 * N;                  // metadata pipeline stages
  localparam logic [63:0] RowB = 64'(2 * N);
  localparam logic [63:0] AccB = 64'(4 * N);

  // ---- queue head ------------------------------------------------------------
  logic [7:0]  h_op;
  logic [63:0] hv [7];
  always_comb begin
    for (int i = 0; i < 7; i++) begin
      hv[i] = head_i[64*i +: 64];
    end
  end
  assign h_op = head_i[512 +: 8];

  // ---- registers ---------------------------------------------------------------
  logic [CW-1:0]  lw_cnt_q, lw_cnt_d;         // cycles until the load chain is free
  logic           lw_reading_q, lw_reading_d;
  logic [CW-1:0]  lw_i_q, lw_i_d;             // weight rows read so far
  logic [VAW-1:0] lw_ptr_q, lw_ptr_d;         // address of the next weight row
  logic [VAW-1:0] lw_stride_q, lw_stride_d;
  logic [4:0]     lw_sem_q, lw_sem_d;
  logic           pending_q, pending_d;       // weights loaded, not yet swapped in
  logic           streaming_q, streaming_d;
  logic [63:0]    s_left_q, s_left_d;         // rows still to read
  logic [VAW-1:0] src_q, src_d, dst_q, dst_d;
  logic [VAW-1:0] sstride_q, sstride_d, dstride_q, dstride_d;
  logic           mma_q, mma_d;
  logic [4:0]     s_sem_q, s_sem_d;

  // ---- T19, T21: start the queue head if its rule allows ---------------------
  logic start_lw, start_mm, drop_mm, is_lw;
  assign is_lw = (h_op == OP_MXU_LW);
  always_comb begin
    start_lw = 1'b0;
    start_mm = 1'b0;
    drop_mm  = 1'b0;
    if (head_valid_i) begin
      if (is_lw) begin
        start_lw = (lw_cnt_q == '0);
      end else if (!streaming_q && !(pending_q && lw_cnt_q != '0)) begin
        if (hv[3] == 64'd0) begin
          drop_mm = 1'b1;                       // 0 rows: nothing to do
        end else begin
          start_mm = 1'b1;
        end
      end
    end
  end
  assign pop_o = start_lw || start_mm || drop_mm;

  // ---- T20: weight rows, bottom row first ------------------------------------------
  logic           w_read, w_last;
  logic [VAW-1:0] w_row_addr, lw_first;
  assign lw_first   = hv[1][VAW-1:0] + VAW'(N - 1) * hv[2][VAW-1:0];
  assign w_read     = start_lw || lw_reading_q;
  assign w_row_addr = start_lw ? lw_first : lw_ptr_q;
  assign w_last     = start_lw ? (N == 1) : (lw_i_q == CW'(N - 1));
  assign w_addr_o   = w_row_addr;

  always_comb begin
    lw_cnt_d     = (lw_cnt_q != '0) ? lw_cnt_q - 1'b1 : lw_cnt_q;
    lw_reading_d = lw_reading_q;
    lw_i_d       = lw_i_q;
    lw_ptr_d     = lw_ptr_q;
    lw_stride_d  = lw_stride_q;
    lw_sem_d     = lw_sem_q;
    pending_d    = pending_q;
    if (start_lw) begin                         // mxu.lw mxu, addr, stride, sem
      lw_sem_d     = hv[3][4:0];
      lw_cnt_d     = CW'(N - 1);
      lw_reading_d = (N > 1);
      lw_i_d       = CW'(1);
      lw_stride_d  = hv[2][VAW-1:0];
      lw_ptr_d     = lw_first - hv[2][VAW-1:0];
      pending_d    = 1'b1;
    end else if (lw_reading_q) begin
      lw_reading_d = !w_last;
      lw_i_d       = lw_i_q + 1'b1;
      lw_ptr_d     = lw_ptr_q - lw_stride_q;
    end
    if (start_mm) begin
      pending_d = 1'b0;                         // row 0 carries the swap
    end
  end

  // ---- T22: LHS rows -----------------------------------------------------------------
  logic           x_read, x_swap, x_mma, x_last;
  logic [4:0]     x_sem;
  logic [VAW-1:0] x_row_addr, x_row_dst;
  assign x_read     = start_mm || streaming_q;
  assign x_row_addr = start_mm ? hv[2][VAW-1:0] : src_q;
  assign x_row_dst  = start_mm ? hv[1][VAW-1:0] : dst_q;
  assign x_swap     = start_mm && pending_q;
  assign x_mma      = start_mm ? (h_op == OP_MXU_MMA) : mma_q;
  assign x_last     = start_mm ? (hv[3] == 64'd1) : (s_left_q == 64'd1);
  assign x_sem      = start_mm ? hv[6][4:0] : s_sem_q;
  assign x_addr_o   = x_row_addr;

  always_comb begin
    streaming_d = streaming_q;
    s_left_d    = s_left_q;
    src_d       = src_q;
    dst_d       = dst_q;
    sstride_d   = sstride_q;
    dstride_d   = dstride_q;
    mma_d       = mma_q;
    s_sem_d     = s_sem_q;
    if (start_mm) begin                         // mxu.mm mxu, dst, src, rows, sstride, dstride, sem
      streaming_d = (hv[3] != 64'd1);
      s_left_d    = hv[3] - 64'd1;
      src_d       = hv[2][VAW-1:0] + hv[4][VAW-1:0];
      dst_d       = hv[1][VAW-1:0] + hv[5][VAW-1:0];
      sstride_d   = hv[4][VAW-1:0];
      dstride_d   = hv[5][VAW-1:0];
      mma_d       = (h_op == OP_MXU_MMA);
      s_sem_d     = hv[6][4:0];
    end else if (streaming_q) begin
      streaming_d = (s_left_q != 64'd1);
      s_left_d    = s_left_q - 64'd1;
      src_d       = src_q + sstride_q;
      dst_d       = dst_q + dstride_q;
    end
  end

  // ---- skew registers in front of the array ---------------------------------------------
  // Activation row k: k + 1 stages, the last feeds cell (k, 0).
  // Weight column c: c + 1 stages, the last feeds the top of column c.
  logic [16*N-1:0] row_x;                     // per row k: input of cell (k, 0)
  logic [N-1:0]    row_valid, row_swap;
  logic [16*N-1:0] col_w;                     // per column c: input of cell (0, c)
  logic [N-1:0]    col_shift, col_copy;
  logic [N-1:0]    skew_busy;

  for (genvar k = 0; k < N; k++) begin : g_xskew
    logic [15:0] x_q [k + 1];
    logic        v_q [k + 1];
    logic        s_q [k + 1];
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        for (int j = 0; j <= k; j++) begin
          v_q[j] <= 1'b0;
          s_q[j] <= 1'b0;
        end
      end else begin
        v_q[0] <= x_read;
        s_q[0] <= x_swap;
        for (int j = 1; j <= k; j++) begin
          v_q[j] <= v_q[j-1];
          s_q[j] <= s_q[j-1];
        end
      end
    end
    always_ff @(posedge clk_i) begin
      x_q[0] <= x_data_i[16*k +: 16];
      for (int j = 1; j <= k; j++) begin
        x_q[j] <= x_q[j-1];
      end
    end
    assign row_x[16*k +: 16] = x_q[k];
    assign row_valid[k]      = v_q[k];
    assign row_swap[k]       = s_q[k];
  end

  for (genvar c = 0; c < N; c++) begin : g_wskew
    logic [15:0] w_q [c + 1];
    logic        v_q [c + 1];
    logic        l_q [c + 1];
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        for (int j = 0; j <= c; j++) begin
          v_q[j] <= 1'b0;
          l_q[j] <= 1'b0;
        end
      end else begin
        v_q[0] <= w_read;
        l_q[0] <= w_read && w_last;
        for (int j = 1; j <= c; j++) begin
          v_q[j] <= v_q[j-1];
          l_q[j] <= l_q[j-1];
        end
      end
    end
    always_ff @(posedge clk_i) begin
      w_q[0] <= w_data_i[16*c +: 16];
      for (int j = 1; j <= c; j++) begin
        w_q[j] <= w_q[j-1];
      end
    end
    always_comb begin
      skew_busy[c] = 1'b0;
      for (int j = 0; j <= c; j++) begin
        skew_busy[c] = skew_busy[c] || v_q[j];
      end
    end
    assign col_w[16*c +: 16] = w_q[c];
    assign col_shift[c]      = v_q[c];
    assign col_copy[c]       = v_q[c] && l_q[c];
  end

  // ---- the cell array ----------------------------------------------------------------------
  // Flattened nets, cell (k, c) at index k*N + c.
  logic [16*N*N-1:0] x_out, chain_out, weight, shadow;
  logic [32*N*N-1:0] psum_out;
  logic [N*N-1:0]    valid_out, swap_out;

  for (genvar k = 0; k < N; k++) begin : g_row
    for (genvar c = 0; c < N; c++) begin : g_col
      localparam integer I = k * N + c;
      logic [15:0] x_in, chain_in;
      logic        valid_in, swap_in;
      logic [31:0] psum_in;
      if (c == 0) begin : g_left
        assign x_in     = row_x[16*k +: 16];
        assign valid_in = row_valid[k];
        assign swap_in  = row_swap[k];
      end else begin : g_inner
        assign x_in     = x_out[16*(I-1) +: 16];
        assign valid_in = valid_out[I-1];
        assign swap_in  = swap_out[I-1];
      end
      if (k == 0) begin : g_top
        assign psum_in  = 32'h0000_0000;          // +0.0 (T23)
        assign chain_in = col_w[16*c +: 16];
      end else begin : g_below
        assign psum_in  = psum_out[32*(I-N) +: 32];
        assign chain_in = chain_out[16*(I-N) +: 16];
      end
      mxu_cell u_cell (
        .clk_i    (clk_i),
        .rst_ni   (rst_ni),
        .x_i      (x_in),
        .valid_i  (valid_in),
        .swap_i   (swap_in),
        .x_o      (x_out[16*I +: 16]),
        .valid_o  (valid_out[I]),
        .swap_o   (swap_out[I]),
        .psum_i   (psum_in),
        .psum_o   (psum_out[32*I +: 32]),
        .chain_i  (chain_in),
        .shift_i  (col_shift[c]),
        .copy_i   (col_copy[c]),
        .chain_o  (chain_out[16*I +: 16]),
        .weight_o (weight[16*I +: 16]),
        .shadow_o (shadow[16*I +: 16])
      );
    end
  end

  // ---- de-skew: column c waits N-1-c cycles below the array (T24) --------------------------
  logic [32*N-1:0] y;                         // the complete result row
  for (genvar c = 0; c < N; c++) begin : g_deskew
    if (c == N - 1) begin : g_direct
      assign y[32*c +: 32] = psum_out[32*((N-1)*N + c) +: 32];
    end else begin : g_delay
      logic [31:0] d_q [N - 1 - c];
      always_ff @(posedge clk_i) begin
        d_q[0] <= psum_out[32*((N-1)*N + c) +: 32];
        for (int j = 1; j < N - 1 - c; j++) begin
          d_q[j] <= d_q[j-1];
        end
      end
      assign y[32*c +: 32] = d_q[N - 2 - c];
    end
  end

  // ---- row metadata beside the array: valid, destination, mxu.mma ---------------------------
  logic           md_v_q   [MD];
  logic [VAW-1:0] md_dst_q [MD];
  logic           md_mma_q [MD];
  logic           md_last_q [MD];
  logic [4:0]     md_sem_q [MD];
  logic           md_busy;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      for (int j = 0; j < MD; j++) begin
        md_v_q[j] <= 1'b0;
      end
    end else begin
      md_v_q[0] <= x_read;
      for (int j = 1; j < MD; j++) begin
        md_v_q[j] <= md_v_q[j-1];
      end
    end
  end
  always_ff @(posedge clk_i) begin
    md_dst_q[0] <= x_row_dst;
    md_mma_q[0]  <= x_mma;
    md_last_q[0] <= x_last;
    md_sem_q[0]  <= x_sem;
    for (int j = 1; j < MD; j++) begin
      md_dst_q[j]  <= md_dst_q[j-1];
      md_mma_q[j]  <= md_mma_q[j-1];
      md_last_q[j] <= md_last_q[j-1];
      md_sem_q[j]  <= md_sem_q[j-1];
    end
  end
  always_comb begin
    md_busy = 1'b0;
    for (int j = 0; j < MD; j++) begin
      md_busy = md_busy || md_v_q[j];
    end
  end

  // ---- T24: mxu.mma reads the old row one cycle before the write -----------------------------
  logic            acc_read;
  logic [32*N-1:0] old_q, sum;
  assign acc_read   = md_v_q[MD-2] && md_mma_q[MD-2];
  assign acc_addr_o = md_dst_q[MD-2];
  always_ff @(posedge clk_i) begin
    old_q <= acc_data_i;
  end
  for (genvar c = 0; c < N; c++) begin : g_acc
    fp32_add u_add (
      .a_i   (old_q[32*c +: 32]),
      .b_i   (y[32*c +: 32]),
      .sum_o (sum[32*c +: 32])
    );
  end

  assign we_o    = md_v_q[MD-1];
  assign waddr_o = md_dst_q[MD-1];
  assign wdata_o = md_mma_q[MD-1] ? sum : y;
  assign bytes_o = (we_o ? AccB : 64'd0) + (acc_read ? AccB : 64'd0)
                 + (w_read ? RowB : 64'd0) + (x_read ? RowB : 64'd0);
  // T20a, T24a
  assign sem_inc_o = {drop_mm, we_o && md_last_q[MD-1], w_read && w_last};
  assign sem_idx_o = {hv[6][4:0], md_sem_q[MD-1], start_lw ? hv[3][4:0] : lw_sem_q};
  assign busy_o  = lw_reading_q || (skew_busy != '0) || streaming_q || md_busy;

  // ---- registers -------------------------------------------------------------------------------
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      lw_cnt_q     <= '0;
      lw_reading_q <= 1'b0;
      pending_q    <= 1'b0;
      streaming_q  <= 1'b0;
    end else begin
      lw_cnt_q     <= lw_cnt_d;
      lw_reading_q <= lw_reading_d;
      pending_q    <= pending_d;
      streaming_q  <= streaming_d;
    end
  end
  always_ff @(posedge clk_i) begin
    lw_i_q      <= lw_i_d;
    lw_ptr_q    <= lw_ptr_d;
    lw_stride_q <= lw_stride_d;
    lw_sem_q    <= lw_sem_d;
    s_sem_q     <= s_sem_d;
    s_left_q    <= s_left_d;
    src_q       <= src_d;
    dst_q       <= dst_d;
    sstride_q   <= sstride_d;
    dstride_q   <= dstride_d;
    mma_q       <= mma_d;
  end

  logic unused_mxu;
  assign unused_mxu = ^{head_i[575:520], head_i[511:448], hv[0], hv[6][63:5], hv[1][63:VAW], hv[2][63:VAW],
                        hv[4][63:VAW], hv[5][63:VAW], weight, shadow, chain_out, x_out, valid_out,
                        swap_out};
endmodule
