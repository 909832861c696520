// mxu: one weight-stationary N x N matrix unit (docs/timing.md T19-T26,
// cmodel/mxu.c): the cell array (mxu_array: N rows, mxu_row, of N mxu_cells), the weight skew of each load
// slot and the activation skew in front of it, the de-skew registers behind
// it and the read-add-write of mxu.mma.
//
// Instructions come from the MXU's queue, at most one start per cycle:
//   mxu.lw   (T19) starts when one of the W load slots is free: fewer than
//            W earlier mxu.lws are still reading.  A load started in l
//            reads weight row i in cycle l + i (T20), top row first, on
//            its slot's VMEM port.  Element 0 of the row enters cell (i, 0)
//            from the left at the end of the cycle; element c waits c
//            cycles in the slot's skew and reaches cell (i, c) in
//            l + i + 1 + c, when the wavefront (valid and slot number,
//            moving right one column per cycle) gets there; the cell
//            writes it into its shadow at the end of that cycle.
//   mxu.mm / mxu.mma (T21) start when the previous stream has read all
//            its rows; row 0 carries the swap flag if an mxu.lw came after
//            the last stream.  A stream of 0 rows does nothing (the swap
//            stays pending) but increment its semaphore (T24a).  Row b is
//            read in cycle s + b (T22) and enters the activation skew:
//            element k reaches cell (k, 0) in cycle s + b + 1 + k and moves
//            one column right per cycle.
// Results (T24): y[b][c] leaves the bottom of column c at the end of cycle
// s + b + N + c; column c's de-skew delays it N-1-c cycles, so the row is
// complete at the end of s + b + 2N - 1 and is written in s + b + 2N.  For
// mxu.mma the old row is read in s + b + 2N - 1 (old_q) and old + y is
// written.  A row's destination and kind travel beside it in a 2N-stage
// pipeline (md_*).  int8 (mxu.lw.i8, mxu.mm.i8, mxu.mma.i8; T26a) has
// the same timing: the stream's mode (i8) travels with each row beside the
// swap flag and selects the cells' int8 arithmetic, and in the metadata
// pipeline, where it makes mxu.mma.i8's add an int32 one.  Semaphores: an mxu.lw's at the end of the cycle its
// last weight row is read (T20a), a stream's with its last result row
// (T24a).  The MXU is busy (T26) until 2N cycles after its last mxu.lw
// started (cell (N-1, N-1) writes its shadow at the end of l + 2N - 1)
// and while a stream row is being read or is in the array.
`include "tpu_queue.vh"  // the queue entry's layout (rtl/queue_entry.def)
module mxu #(
  parameter integer N   = 8,
  parameter integer W   = 1,             // load slots (mxu_wloads), W <= N
  parameter integer VAW = 18             // VMEM address bits
) (
  input  logic              clk_i,
  input  logic              rst_ni,
  // the MXU's queue (entry layout: seq.v)
  input  logic [`TPU_QE_BITS-1:0] head_i,
  input  logic              head_valid_i,
  output logic              pop_o,
  // VMEM (class 2: never waits, T11)
  output logic [W*VAW-1:0]  w_addr_o,    // weight row reads, one per slot
  input  logic [W*16*N-1:0] w_data_i,
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
  localparam integer SW = (W > 1) ? $clog2(W) : 1;  // bits of a slot number
  localparam integer BW = $clog2(2 * N);            // the busy counter
  localparam integer MD = 2 * N;                  // metadata pipeline stages
  localparam logic [63:0] RowB = 64'(2 * N);
  localparam logic [63:0] AccB = 64'(4 * N);

  // ---- queue head ------------------------------------------------------------
  logic [7:0]  h_op;
  logic [63:0] hv [7];
  always_comb begin
    for (int i = 0; i < 7; i++) begin
      hv[i] = head_i[`TPU_QE_OPND_AT(i) +: `TPU_QE_OPND_BITS];
    end
  end
  assign h_op = head_i[`TPU_QE_WORD +: 8];

  // ---- registers ---------------------------------------------------------------
  // Load slot j: reading (rows 1 .. N-1 after its start cycle), the next
  // row's number and address, the stride and the semaphore.
  logic [W-1:0]   lw_reading_q, lw_reading_d;
  logic [CW-1:0]  lw_row_q [W];
  logic [CW-1:0]  lw_row_d [W];
  logic [VAW-1:0] lw_ptr_q [W];
  logic [VAW-1:0] lw_ptr_d [W];
  logic [VAW-1:0] lw_stride_q [W];
  logic [VAW-1:0] lw_stride_d [W];
  logic [4:0]     lw_sem_q [W];
  logic [4:0]     lw_sem_d [W];
  logic [BW-1:0]  lw_left_q, lw_left_d;       // cycles until the last load's wavefront is out
  logic           pending_q, pending_d;       // weights loaded, not yet swapped in
  logic           streaming_q, streaming_d;
  logic [63:0]    s_left_q, s_left_d;         // rows still to read
  logic [VAW-1:0] src_q, src_d, dst_q, dst_d;
  logic [VAW-1:0] sstride_q, sstride_d, dstride_q, dstride_d;
  logic           mma_q, mma_d;
  logic           i8_q, i8_d;                 // the stream is int8 (mxu.mm.i8, mxu.mma.i8)
  logic [4:0]     s_sem_q, s_sem_d;

  // ---- T19, T21: start the queue head if its rule allows ---------------------
  logic          start_lw, start_mm, drop_mm, is_lw, slot_free;
  logic [SW-1:0] new_slot;                    // the lowest free load slot
  assign is_lw = (h_op == OP_MXU_LW || h_op == OP_MXU_LW_I8);
  always_comb begin
    slot_free = 1'b0;
    new_slot  = '0;
    for (int j = W - 1; j >= 0; j--) begin
      if (!lw_reading_q[j]) begin
        slot_free = 1'b1;
        new_slot  = SW'(j);
      end
    end
  end
  always_comb begin
    start_lw = 1'b0;
    start_mm = 1'b0;
    drop_mm  = 1'b0;
    if (head_valid_i) begin
      if (is_lw) begin
        start_lw = slot_free;
      end else if (!streaming_q) begin
        if (hv[3] == 64'd0) begin
          drop_mm = 1'b1;                       // 0 rows: nothing to do
        end else begin
          start_mm = 1'b1;
        end
      end
    end
  end
  assign pop_o = start_lw || start_mm || drop_mm;

  // ---- T20: weight rows, top row first, one per reading slot --------------------------
  logic [W-1:0]   rd_v, rd_last, rd_start;
  logic [CW-1:0]  rd_row [W];
  logic [VAW-1:0] rd_addr [W];
  logic [4:0]     rd_sem [W];
  for (genvar j = 0; j < W; j++) begin : g_slot
    assign rd_start[j] = start_lw && new_slot == SW'(j);
    assign rd_v[j]     = rd_start[j] || lw_reading_q[j];
    assign rd_row[j]   = rd_start[j] ? '0 : lw_row_q[j];
    assign rd_addr[j]  = rd_start[j] ? hv[1][VAW-1:0] : lw_ptr_q[j];
    assign rd_sem[j]   = rd_start[j] ? hv[3][4:0] : lw_sem_q[j];
    assign rd_last[j]  = rd_row[j] == CW'(N - 1);
    assign w_addr_o[j*VAW +: VAW] = rd_addr[j];
  end

  always_comb begin
    lw_reading_d = lw_reading_q;
    lw_left_d    = (lw_left_q != '0) ? lw_left_q - 1'b1 : lw_left_q;
    pending_d    = pending_q;
    for (int j = 0; j < W; j++) begin
      lw_row_d[j]    = lw_row_q[j];
      lw_ptr_d[j]    = lw_ptr_q[j];
      lw_stride_d[j] = lw_stride_q[j];
      lw_sem_d[j]    = lw_sem_q[j];
      if (rd_start[j]) begin                    // mxu.lw mxu, addr, stride, sem
        lw_stride_d[j] = hv[2][VAW-1:0];
        lw_sem_d[j]    = hv[3][4:0];
      end
      if (rd_v[j]) begin
        lw_reading_d[j] = !rd_last[j];
        lw_row_d[j]     = rd_row[j] + 1'b1;
        lw_ptr_d[j]     = rd_addr[j] + (rd_start[j] ? hv[2][VAW-1:0] : lw_stride_q[j]);
      end
    end
    if (start_lw) begin
      lw_left_d = BW'(2 * N - 1);
      pending_d = 1'b1;
    end
    if (start_mm) begin
      pending_d = 1'b0;                         // row 0 carries the swap
    end
  end

  // ---- T22: LHS rows -----------------------------------------------------------------
  logic           x_read, x_swap, x_mma, x_last, x_i8;
  logic [4:0]     x_sem;
  logic [VAW-1:0] x_row_addr, x_row_dst;
  assign x_read     = start_mm || streaming_q;
  assign x_row_addr = start_mm ? hv[2][VAW-1:0] : src_q;
  assign x_row_dst  = start_mm ? hv[1][VAW-1:0] : dst_q;
  assign x_swap     = start_mm && pending_q;
  assign x_mma      = start_mm ? (h_op == OP_MXU_MMA || h_op == OP_MXU_MMA_I8) : mma_q;
  assign x_i8       = start_mm ? (h_op == OP_MXU_MM_I8 || h_op == OP_MXU_MMA_I8) : i8_q;
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
    i8_d        = i8_q;
    s_sem_d     = s_sem_q;
    if (start_mm) begin                         // mxu.mm mxu, dst, src, rows, sstride, dstride, sem
      streaming_d = (hv[3] != 64'd1);
      s_left_d    = hv[3] - 64'd1;
      src_d       = hv[2][VAW-1:0] + hv[4][VAW-1:0];
      dst_d       = hv[1][VAW-1:0] + hv[5][VAW-1:0];
      sstride_d   = hv[4][VAW-1:0];
      dstride_d   = hv[5][VAW-1:0];
      mma_d       = x_mma;
      i8_d        = x_i8;
      s_sem_d     = hv[6][4:0];
    end else if (streaming_q) begin
      streaming_d = (s_left_q != 64'd1);
      s_left_d    = s_left_q - 64'd1;
      src_d       = src_q + sstride_q;
      dst_d       = dst_q + dstride_q;
    end
  end

  // ---- clock enable of the array ---------------------------------------------------------
  // The skew registers, the cells and the de-skew registers change only
  // while rows or weights are in the array.  After the last cycle that
  // reads an LHS row or a weight row they settle within 4N cycles: the row
  // reaches the last column after at most 2N, its partial sums leave the
  // de-skew N cycles later, and the zeros behind them need as long again.
  // Then they keep their values (valid bits, partial sums and the weight
  // in transit 0, the weights unchanged) and en is dropped, so that the
  // Verilated model skips the array in the cycles it would not change; only
  // don't-care values (the activations and weight-bus values that travel
  // without a valid bit) stop moving.  In hardware: a clock gate.
  localparam integer SettleN = 4 * N + 2;
  localparam integer EW      = $clog2(SettleN + 1);
  logic          fill;                        // a row enters the array this cycle
  logic [EW-1:0] en_left_q;                   // cycles until the array has settled
  logic          en;
  assign fill = x_read || (|rd_v);
  assign en   = fill || (en_left_q != '0);
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      en_left_q <= '0;
    end else if (fill) begin
      en_left_q <= EW'(SettleN);
    end else if (en_left_q != '0) begin
      en_left_q <= en_left_q - 1'b1;
    end
  end

  // ---- skew registers in front of the array ---------------------------------------------
  // Activation row k: k + 1 stages, the last feeds cell (k, 0).
  logic [16*N-1:0] row_x;                     // per row k: input of cell (k, 0)
  logic [N-1:0]    row_valid, row_swap, row_i8;

  // Each row's stages are one packed vector, stage j at bits [j]: the
  // shift is one assignment (as unpacked arrays, every element got its
  // own delayed-assignment flag in the Verilated model; docs/rtl.md,
  // "Simulation speed").  Stage 0 takes the input; stage k feeds the cell.
  for (genvar k = 0; k < N; k++) begin : g_xskew
    logic [16*(k+1)-1:0] x_q;                 // stage j at [16*j +: 16]
    logic [k:0]          v_q, s_q, i_q;       // stage j at [j]
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        v_q <= '0;
        s_q <= '0;
        i_q <= '0;
      end else if (en) begin
        v_q <= (k+1)'({v_q, x_read});         // the top stage drops out
        s_q <= (k+1)'({s_q, x_swap});
        i_q <= (k+1)'({i_q, x_i8});
      end
    end
    always_ff @(posedge clk_i) begin
      if (en) begin
        x_q <= (16*(k+1))'({x_q, x_data_i[16*k +: 16]});
      end
    end
    assign row_x[16*k +: 16] = x_q[16*k +: 16];
    assign row_valid[k]      = v_q[k];
    assign row_swap[k]       = s_q[k];
    assign row_i8[k]         = i_q[k];
  end

  // Weights (T20).  Column c's bus of slot j carries element c of the row
  // slot j read c cycles ago: c skew stages (column 0 is the VMEM data).
  // Every cell of column c sees the column's W buses; the wavefront tells
  // it when and which.
  logic [16*W-1:0] col_w [N];                 // per column: the slots' buses
  for (genvar j = 0; j < W; j++) begin : g_wslot
    for (genvar c = 0; c < N; c++) begin : g_wskew
      if (c == 0) begin : g_direct
        assign col_w[c][16*j +: 16] = w_data_i[16*(j*N + c) +: 16];
      end else begin : g_delay
        logic [16*c-1:0] w_q;                 // stage i at [16*i +: 16], as g_xskew
        always_ff @(posedge clk_i) begin
          if (en) begin
            w_q <= (16*c)'({w_q, w_data_i[16*(j*N + c) +: 16]});
          end
        end
        assign col_w[c][16*j +: 16] = w_q[16*(c-1) +: 16];
      end
    end
  end

  // The wavefront's start: row i's left edge gets the row that a slot
  // reads this cycle (loads in flight read different rows, T20).
  logic [N-1:0]  row_wv;
  logic [SW-1:0] row_wslot [N];
  always_comb begin
    for (int i = 0; i < N; i++) begin
      row_wv[i]    = 1'b0;
      row_wslot[i] = '0;
      for (int j = 0; j < W; j++) begin
        if (rd_v[j] && rd_row[j] == CW'(i)) begin
          row_wv[i]    = 1'b1;
          row_wslot[i] = SW'(j);
        end
      end
    end
  end

  // ---- the cell array ----------------------------------------------------------------------
  // N rows of N cells (rtl/mxu_array.v, rtl/mxu_row.v); the bottom row's
  // partial sums (array_psum) go to the de-skew.  Column c's weight buses
  // (col_w[c]) reach every row, packed at [16*W*c +: 16*W].
  logic [16*W*N-1:0] wbus;
  for (genvar c = 0; c < N; c++) begin : g_wbus
    assign wbus[16*W*c +: 16*W] = col_w[c];
  end
  logic [SW*N-1:0] row_wslot_p;               // row_wslot packed, row k at [SW*k +: SW]
  for (genvar k = 0; k < N; k++) begin : g_wslot
    assign row_wslot_p[SW*k +: SW] = row_wslot[k];
  end
  logic [32*N-1:0] array_psum;
  mxu_array #(
    .N  (N),
    .W  (W),
    .SW (SW)
  ) u_array (
    .clk_i   (clk_i),
    .rst_ni  (rst_ni),
    .en_i    (en),
    .x_i     (row_x),
    .valid_i (row_valid),
    .swap_i  (row_swap),
    .i8_i    (row_i8),
    .wv_i    (row_wv),
    .wslot_i (row_wslot_p),
    .wbus_i  (wbus),
    .psum_o  (array_psum)
  );

  // ---- de-skew: column c waits N-1-c cycles below the array (T24) --------------------------
  logic [32*N-1:0] y;                         // the complete result row
  for (genvar c = 0; c < N; c++) begin : g_deskew
    if (c == N - 1) begin : g_direct
      assign y[32*c +: 32] = array_psum[32*c +: 32];
    end else begin : g_delay
      logic [32*(N-1-c)-1:0] d_q;             // stage j at [32*j +: 32], as g_xskew
      always_ff @(posedge clk_i) begin
        if (en) begin
          d_q <= (32*(N-1-c))'({d_q, array_psum[32*c +: 32]});
        end
      end
      assign y[32*c +: 32] = d_q[32*(N-2-c) +: 32];
    end
  end

  // ---- row metadata beside the array: valid, destination, mxu.mma ---------------------------
  logic           md_v_q   [MD];
  logic [VAW-1:0] md_dst_q [MD];
  logic           md_mma_q [MD];
  logic           md_i8_q  [MD];
  logic           md_last_q [MD];
  logic [4:0]     md_sem_q [MD];
  logic           md_busy;
  // Stage 0 takes the row read this cycle, stage j stage j-1's.  One block
  // per stage (a generate loop, not a for loop in one block): Verilator
  // cannot keep a loop of non-blocking array writes rolled (BLKLOOPINIT),
  // and MD = 2N stages of 256 on a 128 x 128 array are more than its
  // default unroll count (docs/rtl.md, "Large arrays").
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      md_v_q[0] <= 1'b0;
    end else begin
      md_v_q[0] <= x_read;
    end
  end
  always_ff @(posedge clk_i) begin
    md_dst_q[0] <= x_row_dst;
    md_mma_q[0]  <= x_mma;
    md_i8_q[0]   <= x_i8;
    md_last_q[0] <= x_last;
    md_sem_q[0]  <= x_sem;
  end
  for (genvar j = 1; j < MD; j++) begin : g_md
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        md_v_q[j] <= 1'b0;
      end else begin
        md_v_q[j] <= md_v_q[j-1];
      end
    end
    always_ff @(posedge clk_i) begin
      md_dst_q[j]  <= md_dst_q[j-1];
      md_mma_q[j]  <= md_mma_q[j-1];
      md_i8_q[j]   <= md_i8_q[j-1];
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
  logic acc_f, acc_i;                         // an mxu.mma row, bf16 / int8
  assign acc_f = md_v_q[MD-1] && md_mma_q[MD-1] && !md_i8_q[MD-1];
  assign acc_i = md_v_q[MD-1] && md_mma_q[MD-1] && md_i8_q[MD-1];
  for (genvar c = 0; c < N; c++) begin : g_acc
    logic [31:0] old, fsum, isum;
    assign old = old_q[32*c +: 32];
    fp32_add u_add (
      .en_i  (acc_f),                         // computed only for mxu.mma's rows
      .a_i   (old),
      .b_i   (y[32*c +: 32]),
      .sum_o (fsum)
    );
    // mxu.mma.i8: int32 + int32 modulo 2^32 (numerics.md 9.2), enabled
    // the same way
    always_comb begin
      isum = 32'd0;
      if (acc_i) begin
        isum = old + y[32*c +: 32];
      end
    end
    assign sum[32*c +: 32] = md_i8_q[MD-1] ? isum : fsum;
  end

  assign we_o    = md_v_q[MD-1];
  assign waddr_o = md_dst_q[MD-1];
  assign wdata_o = md_mma_q[MD-1] ? sum : y;
  logic [63:0] w_bytes;
  logic        lw_sem_inc;
  logic [4:0]  lw_sem_idx;
  always_comb begin
    w_bytes    = 64'd0;
    lw_sem_inc = 1'b0;
    lw_sem_idx = lw_sem_q[0];
    for (int j = 0; j < W; j++) begin
      if (rd_v[j]) begin
        w_bytes = w_bytes + RowB;
      end
      if (rd_v[j] && rd_last[j]) begin        // at most one: loads start apart
        lw_sem_inc = 1'b1;
        lw_sem_idx = rd_sem[j];
      end
    end
  end
  assign bytes_o = (we_o ? AccB : 64'd0) + (acc_read ? AccB : 64'd0)
                 + w_bytes + (x_read ? RowB : 64'd0);
  // T20a, T24a
  assign sem_inc_o = {drop_mm, we_o && md_last_q[MD-1], lw_sem_inc};
  assign sem_idx_o = {hv[6][4:0], md_sem_q[MD-1], lw_sem_idx};
  assign busy_o  = (lw_left_q != '0) || streaming_q || md_busy;

  // ---- registers -------------------------------------------------------------------------------
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      lw_reading_q <= '0;
      lw_left_q    <= '0;
      pending_q    <= 1'b0;
      streaming_q  <= 1'b0;
    end else begin
      lw_reading_q <= lw_reading_d;
      lw_left_q    <= lw_left_d;
      pending_q    <= pending_d;
      streaming_q  <= streaming_d;
    end
  end
  always_ff @(posedge clk_i) begin
    for (int j = 0; j < W; j++) begin
      lw_row_q[j]    <= lw_row_d[j];
      lw_ptr_q[j]    <= lw_ptr_d[j];
      lw_stride_q[j] <= lw_stride_d[j];
      lw_sem_q[j]    <= lw_sem_d[j];
    end
    s_sem_q     <= s_sem_d;
    s_left_q    <= s_left_d;
    src_q       <= src_d;
    dst_q       <= dst_d;
    sstride_q   <= sstride_d;
    dstride_q   <= dstride_d;
    mma_q       <= mma_d;
    i8_q        <= i8_d;
  end

  // Not traced, so that Verilator does not compute the sinks (as every
  // unused_* sink of rtl/).
  /* verilator tracing_off */
  logic unused_mxu;
  assign unused_mxu = ^{head_i[`TPU_QE_BITS-1:`TPU_QE_WORD+8], head_i[`TPU_QE_WORD-1:`TPU_QE_PC], hv[0], hv[6][63:5], hv[1][63:VAW], hv[2][63:VAW],
                        hv[4][63:VAW], hv[5][63:VAW]};
  /* verilator tracing_on */
endmodule
