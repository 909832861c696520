// dma: the DMA engines, 2-D strided copies between HBM and VMEM
// (docs/timing.md T13-T18, cmodel/dma.c).
//
// Each engine is IDLE, WAIT or XFER.  Per cycle, as dma.c:
//   T13  the queue head starts on the lowest-numbered IDLE engine (WAIT,
//        with Latency cycles to count), at most one start per cycle;
//   T14  a WAIT engine with bytes to move whose count is down to 0 is in
//        XFER from this cycle on (with Latency = 0 in its start cycle);
//   T15  the HBM port offers avail_i whole bytes; the XFER engines take
//        them in start order, each as many as it still needs, limited by
//        the VMEM bytes the arbiter left (vmem_left_i);
//   T16  the bytes move in row order, each row low to high address, in this
//        cycle, on MaxB byte ports shared by the engines (T15 lets them
//        take at most avail_i <= MaxB HBM bytes a cycle together): the
//        engine at start-order position k has the ports [start_k, start_k
//        + got_k), start_k = got_0 + ... + got_{k-1}, its i-th byte of the
//        cycle on port start_k + i;
//   T17  an engine that moved its last byte (a copy of 0 bytes: at the end
//        of its WAIT) increments its semaphore at the end of the cycle and
//        is IDLE from the next one.
//   T18a dma.h2v.i8 (a "wide" engine) moves HBM bytes as dma.h2v does, but
//        each costs two bytes of the VMEM budget (it takes min(credit,
//        left / 2)) and lands as the bf16 of its int8 value, two bytes at
//        vdst + row*dstride + 2*col.
// Ports: MaxB HBM read, HBM write and VMEM read ports (port p: byte p of
// the cycle) and 2*MaxB VMEM write ports, two per byte port: VMEM write
// port 2p is the byte of port p for a plain dma.h2v, 2p and 2p+1 the low
// and high byte of its bf16 for a wide one (2p+1 unused by a plain one).
// Port order is landing order: position, then row order, so the writes of
// a cycle land in start order (T12a) as with a port block per position.
// Registers per engine: state, direction, semaphore, the WAIT count, the
// copy cursor (address of the current source and destination row, column
// in the row), the row geometry, bytes left and in all; and the start
// order of the busy engines (order_q, norder_q), which is also the order
// their bytes land in (T12a).  Addresses are kept modulo 2^AW: every byte
// a copy touches was checked at issue (T5) to lie inside its memory, so
// the low AW bits of base + row*stride + col are exact.
`include "tpu_queue.vh"  // the queue entry's layout (rtl/queue_entry.def)
module dma #(
  parameter integer      Engines = 2,
  parameter integer      MaxB    = 16,         // ceil(HBM bytes per cycle)
  parameter logic [63:0] Latency = 64'd20,
  parameter integer      VAW     = 18,         // VMEM address bits
  parameter integer      HAW     = 24,         // HBM address bits
  parameter integer      AvW     = 8           // width of avail_i
) (
  input  logic                   clk_i,
  input  logic                   rst_ni,
  // the DMA queue (entry layout: seq.v)
  input  logic [`TPU_QE_BITS-1:0] head_i,
  input  logic                   head_valid_i,
  output logic                   pop_o,
  // HBM bandwidth credit (hbm_port)
  output logic                   xfer_o,
  output logic                   still_o,
  input  logic [AvW-1:0]         avail_i,
  // VMEM budget (vmem arbiter, class 4)
  input  logic [63:0]            vmem_left_i,
  output logic [63:0]            vmem_used_o,
  // byte ports, shared by the engines (above): port p = byte p of the cycle
  output logic [2*MaxB-1:0]     vmem_we_o,      // two VMEM write ports a byte port
  output logic [2*MaxB*VAW-1:0] vmem_waddr_o,
  output logic [2*MaxB*8-1:0]   vmem_wdata_o,
  output logic [MaxB*VAW-1:0]   vmem_raddr_o,
  input  logic [MaxB*8-1:0]     vmem_rdata_i,
  output logic [MaxB-1:0]       hbm_we_o,
  output logic [MaxB*HAW-1:0]   hbm_waddr_o,
  output logic [MaxB*8-1:0]     hbm_wdata_o,
  output logic [MaxB*HAW-1:0]   hbm_raddr_o,
  input  logic [MaxB*8-1:0]     hbm_rdata_i,
  // completions (T17): semaphore increments and the trace
  output logic [Engines-1:0]     done_o,
  output logic [Engines*5-1:0]   done_sem_o,
  output logic [Engines*64-1:0]  done_bytes_o,
  // T7: an engine is busy (the queue is the sequencer's)
  output logic                   busy_o
);
  `include "tpu_isa.vh"

  localparam integer AW  = (VAW > HAW) ? VAW : HAW;
  localparam integer EIW = (Engines > 1) ? $clog2(Engines) : 1;
  localparam integer OCW = $clog2(Engines + 1);
  localparam integer GW  = $clog2(MaxB + 1);

  localparam logic [1:0] Idle = 2'd0;
  localparam logic [1:0] Wait = 2'd1;
  localparam logic [1:0] Xfer = 2'd2;

  // ---- registers ------------------------------------------------------------
  logic [1:0]    state_q    [Engines];
  logic          to_vmem_q  [Engines];
  logic          wide_q     [Engines];        // dma.h2v.i8
  logic [4:0]    sem_q      [Engines];
  logic [63:0]   wait_q     [Engines];
  logic [AW-1:0] srow_q     [Engines];
  logic [AW-1:0] drow_q     [Engines];
  logic [AW-1:0] sstride_q  [Engines];
  logic [AW-1:0] dstride_q  [Engines];
  logic [AW:0]   rowbytes_q [Engines];
  logic [AW:0]   col_q      [Engines];
  logic [63:0]   left_q     [Engines];
  logic [63:0]   total_q    [Engines];
  logic [EIW-1:0] order_q   [Engines];
  logic [OCW-1:0] norder_q;

  // ---- T13: start --------------------------------------------------------------
  logic           start;
  logic [EIW-1:0] start_e;
  logic [63:0]    hv [7];
  logic [7:0]     h_op;
  logic [63:0]    h_total;

  always_comb begin
    for (int i = 0; i < 7; i++) begin
      hv[i] = head_i[`TPU_QE_OPND_AT(i) +: `TPU_QE_OPND_BITS];
    end
  end
  assign h_op    = head_i[`TPU_QE_WORD +: 8];
  assign h_total = hv[2] * hv[3];             // < 2^63: checked at issue

  always_comb begin
    start   = 1'b0;
    start_e = '0;
    for (int e = Engines - 1; e >= 0; e--) begin
      if (state_q[e] == Idle) begin
        start   = head_valid_i;
        start_e = EIW'(e);
      end
    end
  end
  assign pop_o = start;

  // The engines as this cycle sees them: the one starting now with its new
  // values (dma.c start() runs before the rest of the step).
  logic [1:0]    cur_state    [Engines];
  logic          cur_to_vmem  [Engines];
  logic          cur_wide     [Engines];
  logic [4:0]    cur_sem      [Engines];
  logic [63:0]   cur_wait     [Engines];
  logic [AW-1:0] cur_srow     [Engines];
  logic [AW-1:0] cur_drow     [Engines];
  logic [AW-1:0] cur_sstride  [Engines];
  logic [AW-1:0] cur_dstride  [Engines];
  logic [AW:0]   cur_rowbytes [Engines];
  logic [AW:0]   cur_col      [Engines];
  logic [63:0]   cur_left     [Engines];
  logic [63:0]   cur_total    [Engines];

  always_comb begin
    for (int e = 0; e < Engines; e++) begin
      if (start && start_e == EIW'(e)) begin
        // dma.h2v vdst, hsrc, ... / dma.v2h hdst, vsrc, ...: dst first
        cur_state[e]    = Wait;
        cur_to_vmem[e]  = (h_op == OP_DMA_H2V || h_op == OP_DMA_H2V_I8);
        cur_wide[e]     = (h_op == OP_DMA_H2V_I8);
        cur_sem[e]      = hv[6][4:0];
        cur_wait[e]     = Latency;
        cur_srow[e]     = hv[1][AW-1:0];
        cur_drow[e]     = hv[0][AW-1:0];
        cur_sstride[e]  = hv[4][AW-1:0];
        cur_dstride[e]  = hv[5][AW-1:0];
        cur_rowbytes[e] = hv[3][AW:0];
        cur_col[e]      = '0;
        cur_left[e]     = h_total;
        cur_total[e]    = h_total;
      end else begin
        cur_state[e]    = state_q[e];
        cur_to_vmem[e]  = to_vmem_q[e];
        cur_wide[e]     = wide_q[e];
        cur_sem[e]      = sem_q[e];
        cur_wait[e]     = wait_q[e];
        cur_srow[e]     = srow_q[e];
        cur_drow[e]     = drow_q[e];
        cur_sstride[e]  = sstride_q[e];
        cur_dstride[e]  = dstride_q[e];
        cur_rowbytes[e] = rowbytes_q[e];
        cur_col[e]      = col_q[e];
        cur_left[e]     = left_q[e];
        cur_total[e]    = total_q[e];
      end
      // T14: the WAIT is over
      if (cur_state[e] == Wait && cur_total[e] != 64'd0 && cur_wait[e] == 64'd0) begin
        cur_state[e] = Xfer;
      end
    end
  end

  // The start order including the engine starting now.
  logic [EIW-1:0] ord [Engines];
  logic [OCW-1:0] ord_n;
  always_comb begin
    for (int k = 0; k < Engines; k++) begin
      ord[k] = order_q[k];
    end
    ord_n = norder_q;
    if (start) begin
      for (int k = 0; k < Engines; k++) begin
        if (OCW'(k) == norder_q) begin
          ord[k] = start_e;
        end
      end
      ord_n = norder_q + 1'b1;
    end
  end

  // ---- T15: the bytes of this cycle, oldest engine first ---------------------
  // budget: the VMEM bytes on offer, min(left, avail), or min(left,
  // 2*avail) while a wide engine moves (2 VMEM bytes an HBM byte); rem what
  // is left of it, hrem of the HBM credit.  A plain engine takes
  // min(its bytes, hrem, rem), a wide one min(its bytes, hrem, rem / 2)
  // (dma.c: got = min(want, left / 2)).
  logic          any_xfer, any_wide;
  logic [63:0]   budget, rem, offer, hrem, cap;
  logic [GW-1:0] got [Engines];               // per start-order position
  logic [GW-1:0] pstart [Engines];            // its first byte port
  logic [GW-1:0] nbytes;                      // the bytes of the cycle (<= avail_i <= MaxB)
  always_comb begin
    any_xfer = 1'b0;
    any_wide = 1'b0;
    for (int e = 0; e < Engines; e++) begin
      any_xfer = any_xfer || cur_state[e] == Xfer;
      any_wide = any_wide || (cur_state[e] == Xfer && cur_wide[e]);
    end
    hrem   = {{(64 - AvW){1'b0}}, avail_i};
    offer  = any_wide ? {hrem[62:0], 1'b0} : hrem;
    budget = (offer < vmem_left_i) ? offer : vmem_left_i;
    if (!any_xfer) begin
      budget = 64'd0;
    end
    rem    = budget;
    cap    = 64'd0;
    nbytes = '0;
    for (int k = 0; k < Engines; k++) begin
      got[k]    = '0;
      pstart[k] = nbytes;
      if (OCW'(k) < ord_n && cur_state[ord[k]] == Xfer) begin
        cap    = cur_wide[ord[k]] ? {1'b0, rem[63:1]} : rem;
        cap    = (hrem < cap) ? hrem : cap;
        got[k] = GW'((cur_left[ord[k]] < cap) ? cur_left[ord[k]] : cap);
        hrem   = hrem - {{(64 - GW){1'b0}}, got[k]};
        rem    = rem - (cur_wide[ord[k]] ? {{(63 - GW){1'b0}}, got[k], 1'b0}
                                          : {{(64 - GW){1'b0}}, got[k]});
        nbytes = nbytes + got[k];
      end
    end
  end
  assign xfer_o      = any_xfer;
  assign vmem_used_o = budget - rem;

  // ---- T16: the byte ports, one step of a copy cursor per port ------------------
  // One cursor runs over the ports: at the first port of a position it is
  // loaded with that engine's row addresses and column, at each port it
  // steps one byte in that engine's geometry, and after a position's last
  // port it is where that engine's copy stands at the end of the cycle
  // (fin_*).  pfirst marks the ports where a position that moves bytes
  // begins, pown_first which position that is.  The ports are computed
  // only up to nbytes (0 beyond: docs/rtl.md, "Simulation speed").  Each
  // port's statements are one `if` (and a port costs a flag test, not a
  // search of the positions): Verilator's statement reordering is
  // quadratic in the statements of a block's list, and a list of
  // thousands of unrolled statements held v5e's build (docs/rtl.md,
  // "v5e's shape").
  logic [MaxB:0]  pfirst;                     // bit p: port p (bit MaxB: none)
  logic [EIW-1:0] pown_first [MaxB+1];
  always_comb begin
    pfirst = '0;
    for (int p = 0; p <= MaxB; p++) begin
      pown_first[p] = '0;
    end
    for (int k = 0; k < Engines; k++) begin
      if (got[k] != '0) begin                 // then pstart[k] < MaxB
        pfirst[pstart[k]]     = 1'b1;
        pown_first[pstart[k]] = EIW'(k);
      end
    end
  end

  logic          port_valid   [MaxB];       // (below)
  logic          port_wide    [MaxB];
  logic          port_to_vmem [MaxB];
  logic [AW-1:0] port_saddr   [MaxB];
  logic [AW-1:0] port_daddr   [MaxB];
  logic [AW-1:0] nxt_srow     [MaxB+1];       // the cursor after port p
  logic [AW-1:0] nxt_drow     [MaxB+1];
  logic [AW:0]   nxt_col      [MaxB+1];
  always_comb begin
    logic [AW-1:0]  s, d;
    logic [AW:0]    c;
    logic [EIW-1:0] e;
    s = '0;
    d = '0;
    c = '0;
    e = '0;
    nxt_srow[MaxB] = '0;
    nxt_drow[MaxB] = '0;
    nxt_col[MaxB]  = '0;
    for (int p = 0; p < MaxB; p++) begin
      if (GW'(p) < nbytes) begin
        if (pfirst[p]) begin                  // a position's first byte: its cursor
          e = ord[pown_first[p]];
          s = cur_srow[e];
          d = cur_drow[e];
          c = cur_col[e];
        end
        port_wide[p]    = cur_wide[e];
        port_to_vmem[p] = cur_to_vmem[e];
        port_saddr[p]   = s + c[AW-1:0];
        port_daddr[p]   = d + (cur_wide[e] ? {c[AW-2:0], 1'b0} : c[AW-1:0]);
        if (c + 1'b1 == cur_rowbytes[e]) begin
          s = s + cur_sstride[e];
          d = d + cur_dstride[e];
          c = '0;
        end else begin
          c = c + 1'b1;
        end
        nxt_srow[p] = s;
        nxt_drow[p] = d;
        nxt_col[p]  = c;
      end else begin
        port_wide[p]    = 1'b0;
        port_to_vmem[p] = 1'b0;
        port_saddr[p]   = '0;
        port_daddr[p]   = '0;
        nxt_srow[p]     = '0;
        nxt_drow[p]     = '0;
        nxt_col[p]      = '0;
      end
    end
  end

  // The ports that carry a byte; and where each position's copy stands at
  // the end of the cycle: the cursor after its last port, pstart[k] +
  // got[k] - 1 (as it was if it moved none).
  logic [AW-1:0] fin_srow [Engines];
  logic [AW-1:0] fin_drow [Engines];
  logic [AW:0]   fin_col  [Engines];
  always_comb begin
    for (int p = 0; p < MaxB; p++) begin
      port_valid[p] = (GW'(p) < nbytes);
    end
    for (int k = 0; k < Engines; k++) begin
      fin_srow[k] = cur_srow[ord[k]];
      fin_drow[k] = cur_drow[ord[k]];
      fin_col[k]  = cur_col[ord[k]];
      if (got[k] != '0) begin
        fin_srow[k] = nxt_srow[pstart[k] + got[k] - 1'b1];
        fin_drow[k] = nxt_drow[pstart[k] + got[k] - 1'b1];
        fin_col[k]  = nxt_col[pstart[k] + got[k] - 1'b1];
      end
    end
  end

  // T18a: the bf16 of an int8 (tpu_bf16_from_i8 in cmodel/fp.c): 0 for 0,
  // else the sign, exponent 127 + floor(log2 |v|) and the bits of |v| below
  // its leading one (|v| <= 128: exact).
  function automatic logic [15:0] bf16_from_i8(input logic [7:0] b);
    logic [7:0] m;
    logic [6:0] f;                            // m's bits below its leading one
    logic [2:0] lz;                           // floor(log2 m)
    bf16_from_i8 = 16'd0;
    if (b != 8'd0) begin
      m  = b[7] ? (~b + 8'd1) : b;           // 1 .. 128 (128 is 8'h80)
      lz = 3'd0;
      for (int i = 1; i < 8; i++) begin
        if (m[i]) begin
          lz = 3'(i);
        end
      end
      f = 7'(m << (3'd7 - lz));               // the leading one at bit 7, dropped
      bf16_from_i8 = {b[7], 8'd127 + {5'd0, lz}, f};
    end
  endfunction

  // The bf16 of each HBM byte a wide engine moves this cycle; computed only
  // for those (docs/rtl.md, "Simulation speed").
  logic [15:0] wide_h [MaxB];
  always_comb begin
    for (int p = 0; p < MaxB; p++) begin
      if (port_wide[p]) begin
        wide_h[p] = bf16_from_i8(hbm_rdata_i[p*8 +: 8]);
      end else begin
        wide_h[p] = 16'd0;
      end
    end
  end

  // The byte ports, computed only for the valid ones (all 0 otherwise),
  // so that an idle DMA costs the Verilated model a few stores (docs/rtl.md,
  // "Simulation speed"), one `if` a port (above).  Read and HBM port p:
  // byte p; VMEM write ports 2p and 2p+1: byte p, of a plain copy on 2p,
  // of a wide one the low (2p) and high (2p+1) byte of its bf16.  Three
  // blocks: the read addresses, and the writes of each memory, which
  // depend on what the other memory reads (one block would be a
  // combinational loop to Verilator).
  always_comb begin
    vmem_raddr_o = '0;
    hbm_raddr_o  = '0;
    for (int p = 0; p < MaxB; p++) begin
      if (port_valid[p]) begin
        vmem_raddr_o[p*VAW +: VAW] = port_saddr[p][VAW-1:0];
        hbm_raddr_o[p*HAW +: HAW]  = port_saddr[p][HAW-1:0];
      end
    end
  end

  always_comb begin
    vmem_we_o    = '0;
    vmem_waddr_o = '0;
    vmem_wdata_o = '0;
    for (int p = 0; p < MaxB; p++) begin
      if (port_valid[p] && port_wide[p]) begin
        vmem_we_o[2*p]                   = 1'b1;
        vmem_we_o[2*p+1]                 = 1'b1;   // the high byte
        vmem_waddr_o[(2*p)*VAW +: VAW]   = port_daddr[p][VAW-1:0];
        vmem_waddr_o[(2*p+1)*VAW +: VAW] = port_daddr[p][VAW-1:0] + 1'b1;
        vmem_wdata_o[(2*p)*8 +: 8]       = wide_h[p][7:0];
        vmem_wdata_o[(2*p+1)*8 +: 8]     = wide_h[p][15:8];
      end else if (port_valid[p] && port_to_vmem[p]) begin
        vmem_we_o[2*p]                   = 1'b1;
        vmem_waddr_o[(2*p)*VAW +: VAW]   = port_daddr[p][VAW-1:0];
        vmem_wdata_o[(2*p)*8 +: 8]       = hbm_rdata_i[8*p +: 8];
      end
    end
  end

  always_comb begin
    hbm_we_o    = '0;
    hbm_waddr_o = '0;
    hbm_wdata_o = '0;
    if (any_xfer) begin
      for (int p = 0; p < MaxB; p++) begin
        if (port_valid[p] && !port_to_vmem[p]) begin
          hbm_we_o[p]               = 1'b1;
          hbm_waddr_o[p*HAW +: HAW] = port_daddr[p][HAW-1:0];
          hbm_wdata_o[p*8 +: 8]     = vmem_rdata_i[p*8 +: 8];
        end
      end
    end
  end

  // ---- T17: next state, completions, the new start order -----------------------
  logic [1:0]    state_d    [Engines];
  logic [63:0]   wait_d     [Engines];
  logic [AW-1:0] srow_d     [Engines];
  logic [AW-1:0] drow_d     [Engines];
  logic [AW:0]   col_d      [Engines];
  logic [63:0]   left_d     [Engines];
  logic [Engines-1:0] done;
  logic          still;
  logic [EIW-1:0] order_d [Engines];
  logic [OCW-1:0] norder_d;
  always_comb begin
    still = 1'b0;
    for (int e = 0; e < Engines; e++) begin
      srow_d[e] = cur_srow[e];
      drow_d[e] = cur_drow[e];
      col_d[e]  = cur_col[e];
      left_d[e] = cur_left[e];
      for (int k = 0; k < Engines; k++) begin
        if (OCW'(k) < ord_n && ord[k] == EIW'(e)) begin
          srow_d[e] = fin_srow[k];
          drow_d[e] = fin_drow[k];
          col_d[e]  = fin_col[k];
          left_d[e] = cur_left[e] - {{(64 - GW){1'b0}}, got[k]};
        end
      end
      done[e] = (cur_state[e] == Xfer && left_d[e] == 64'd0)
             || (cur_state[e] == Wait && cur_total[e] == 64'd0 && cur_wait[e] <= 64'd1);
      still   = still || (cur_state[e] == Xfer && left_d[e] != 64'd0);
      state_d[e] = done[e] ? Idle : cur_state[e];
      wait_d[e]  = (cur_state[e] == Wait && cur_wait[e] != 64'd0) ? cur_wait[e] - 64'd1
                                                                  : cur_wait[e];
    end
    norder_d = '0;
    for (int k = 0; k < Engines; k++) begin
      order_d[k] = '0;
    end
    for (int k = 0; k < Engines; k++) begin
      if (OCW'(k) < ord_n && !done[ord[k]]) begin
        for (int j = 0; j < Engines; j++) begin
          if (OCW'(j) == norder_d) begin
            order_d[j] = ord[k];
          end
        end
        norder_d = norder_d + 1'b1;
      end
    end
  end
  assign still_o = still;

  for (genvar e = 0; e < Engines; e++) begin : g_done
    assign done_o[e]              = done[e];
    assign done_sem_o[5*e +: 5]   = cur_sem[e];
    assign done_bytes_o[64*e +: 64] = cur_total[e];
  end
  assign busy_o = (norder_q != '0);

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      norder_q <= '0;
      for (int e = 0; e < Engines; e++) begin
        state_q[e] <= Idle;
        order_q[e] <= '0;
      end
    end else begin
      norder_q <= norder_d;
      for (int e = 0; e < Engines; e++) begin
        state_q[e] <= state_d[e];
        order_q[e] <= order_d[e];
      end
    end
  end

  // The rest are data registers: meaningful only while the engine is busy.
  always_ff @(posedge clk_i) begin
    for (int e = 0; e < Engines; e++) begin
      to_vmem_q[e]  <= cur_to_vmem[e];
      wide_q[e]     <= cur_wide[e];
      sem_q[e]      <= cur_sem[e];
      wait_q[e]     <= wait_d[e];
      srow_q[e]     <= srow_d[e];
      drow_q[e]     <= drow_d[e];
      sstride_q[e]  <= cur_sstride[e];
      dstride_q[e]  <= cur_dstride[e];
      rowbytes_q[e] <= cur_rowbytes[e];
      col_q[e]      <= col_d[e];
      left_q[e]     <= left_d[e];
      total_q[e]    <= cur_total[e];
    end
  end

  /* verilator tracing_off */  // a lint sink: not traced, not computed
  logic unused_head;
  assign unused_head = ^{head_i[`TPU_QE_BITS-1:`TPU_QE_WORD+8], head_i[`TPU_QE_WORD-1:`TPU_QE_PC], hv[6][63:5], hv[0][63:AW],
                         hv[1][63:AW], hv[3][63:AW+1], hv[4][63:AW], hv[5][63:AW]};
  /* verilator tracing_on */
endmodule
