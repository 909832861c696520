// ici: the six ICI ports of a core (+x -x +y -y +z -z; a ring or 2-D
// grid wires the first two or four) (docs/timing.md T30-T31, cmodel/ici.c)
// and the outgoing half of each link.
//
// Sending (T30): the ICI queue's head starts on its port when that port is
// not sending (at most one start per cycle) and sends from the same cycle.
// Each port has its own credit, as T15 but per link: while bytes are left,
// acc + Num (in 1/Den bytes) offers floor((acc + Num) / Den) bytes; the
// ports take them in port order from what the VMEM arbiter left (class 5),
// reading them from VMEM.  When the last byte has left, lsem is incremented
// at the end of that cycle and the port is free from the next one; else acc
// becomes (acc + Num) mod Den.  As in hbm_port, acc < Den makes both a
// comparison against the constants Num / Den and Num mod Den.
//
// The link (T31): what a port sends in cycle t (a chunk: its bytes, their
// address in the neighbour's VMEM, and on the last chunk of a transfer its
// rsem) goes through Latency registers, so the neighbour writes it into its
// VMEM in cycle t + Latency (class 1) and, on the last chunk, increments
// rsem at the end of that cycle.  The first Latency - 1 registers are the
// sender's (link_o is the last of them, or the word itself with Latency 1),
// the last one is the receiver's (in_q): so nothing in a core depends
// combinationally on link_i, which keeps the Verilated model's
// input-driven logic small.  link_busy_o covers both: the sender's stages
// and the receiver's register (a system ORs the cores' link_busy_o).  A
// transfer of 0 bytes sends one empty last chunk.  (Latency 0 is treated
// as 1: the C model refuses a multi-core system with ici_latency 0, and a
// single core has no links.)
//
// Link word layout (LW bits, see LinkW below), low bits first:
//   valid, last, rsem[5], len[16], addr[VAW], total[64], data[8*IciB]
`include "tpu_queue.vh"  // the queue entry's layout (rtl/queue_entry.def)
module ici #(
  parameter logic [63:0] Num     = 64'd4,
  parameter logic [63:0] Den     = 64'd1,
  parameter logic [63:0] Latency = 64'd10,
  parameter integer      VAW     = 18,
  parameter integer      IciB    = 4,          // ceil(Num / Den)
  parameter integer      LinkW   = 1 + 1 + 5 + 16 + 18 + 64 + 8 * 4,
  parameter integer      NP      = 6           // ports (NUM_PORTS, tpu_isa.vh)
) (
  input  logic                  clk_i,
  input  logic                  rst_ni,
  // the ICI queue (entry layout: seq.v)
  input  logic [`TPU_QE_BITS-1:0] head_i,
  input  logic                  head_valid_i,
  output logic                  pop_o,
  input  logic [NP-1:0]         connected_i,
  // VMEM: class 5 reads for sending
  input  logic [63:0]           vmem_left_i,
  output logic [63:0]           vmem_used_o,
  output logic [NP*VAW-1:0]     raddr_o,
  input  logic [NP*IciB*8-1:0]  rdata_i,
  // the links: outgoing (one register before the latency ends) and incoming, per port
  output logic [NP*LinkW-1:0]   link_o,
  input  logic [NP*LinkW-1:0]   link_i,
  output logic                  link_busy_o,  // a chunk is on an outgoing link or in in_q
  // VMEM: class 1 writes of what arrives
  output logic [NP-1:0]         we_o,
  output logic [NP*VAW-1:0]     waddr_o,
  output logic [NP*16-1:0]      wlen_o,
  output logic [NP*IciB*8-1:0]  wdata_o,
  output logic [63:0]           in_bytes_o,
  // semaphores: lsem per sending port, rsem per receiving port
  output logic [NP-1:0]         lsem_inc_o,
  output logic [NP*5-1:0]       lsem_idx_o,
  output logic [NP-1:0]         rsem_inc_o,
  output logic [NP*5-1:0]       rsem_idx_o,
  // trace: transfers finished, bytes of each
  output logic [NP*64-1:0]      send_bytes_o,
  output logic [NP*64-1:0]      recv_bytes_o,
  // T7: a port is sending (the queue is the sequencer's)
  output logic                  busy_o
);
  localparam logic [63:0] Q0 = Num / Den;
  localparam logic [63:0] R0 = Num % Den;
  localparam integer      GW = $clog2(IciB + 1);
  localparam integer      L  = (Latency == 64'd0) ? 1 : 32'(Latency);
  // link word fields
  localparam integer FValid = 0;
  localparam integer FLast  = 1;
  localparam integer FRsem  = 2;
  localparam integer FLen   = 7;
  localparam integer FAddr  = 23;
  localparam integer FTotal = 23 + VAW;
  localparam integer FData  = 87 + VAW;

  // ---- queue head: dma.ici port, rdst, vsrc, bytes, lsem, rsem ------------------
  logic [63:0] hv [6];
  always_comb begin
    for (int i = 0; i < 6; i++) begin
      hv[i] = head_i[`TPU_QE_OPND_AT(i) +: `TPU_QE_OPND_BITS];
    end
  end

  // ---- registers per port --------------------------------------------------------
  logic [NP-1:0]  sending_q;
  logic [VAW-1:0] rdst_q  [NP];
  logic [VAW-1:0] src_q   [NP];
  logic [63:0]    bytes_q [NP];
  logic [63:0]    sent_q  [NP];
  logic [4:0]     lsem_q  [NP];
  logic [4:0]     rsem_q  [NP];
  logic [63:0]    acc_q   [NP];

  // ---- T30: start ------------------------------------------------------------------
  logic [2:0] start_p;
  logic       start;
  assign start_p = hv[0][2:0];   // < NP: the sequencer issues only connected ports
  assign start   = head_valid_i && !sending_q[start_p];
  assign pop_o   = start;

  logic [NP-1:0]  cur_sending;
  logic [VAW-1:0] cur_rdst  [NP];
  logic [VAW-1:0] cur_src   [NP];
  logic [63:0]    cur_bytes [NP];
  logic [63:0]    cur_sent  [NP];
  logic [4:0]     cur_lsem  [NP];
  logic [4:0]     cur_rsem  [NP];
  logic [63:0]    cur_acc   [NP];
  // active: a port sends or one starts.  Otherwise every port's state
  // stays as it is, so the per-port signals below are left at 0 and the
  // Verilated model does no per-port work in an idle cycle: the per-port
  // registers then load those zeros, which no one reads (a port's state is
  // read only while it sends; a start takes the head's).
  logic active;
  assign active = start || (sending_q != '0);
  always_comb begin
    for (int p = 0; p < NP; p++) begin
      cur_sending[p] = 1'b0;
      cur_rdst[p]    = '0;
      cur_src[p]     = '0;
      cur_bytes[p]   = 64'd0;
      cur_sent[p]    = 64'd0;
      cur_lsem[p]    = 5'd0;
      cur_rsem[p]    = 5'd0;
      cur_acc[p]     = 64'd0;
    end
    for (int p = 0; p < NP; p++) begin
      if (!active) begin
        // nothing (the defaults above)
      end else if (start && start_p == 3'(p)) begin
        cur_sending[p] = 1'b1;
        cur_rdst[p]    = hv[1][VAW-1:0];
        cur_src[p]     = hv[2][VAW-1:0];
        cur_bytes[p]   = hv[3];
        cur_sent[p]    = 64'd0;
        cur_lsem[p]    = hv[4][4:0];
        cur_rsem[p]    = hv[5][4:0];
        cur_acc[p]     = 64'd0;
      end else begin
        cur_sending[p] = sending_q[p];
        cur_rdst[p]    = rdst_q[p];
        cur_src[p]     = src_q[p];
        cur_bytes[p]   = bytes_q[p];
        cur_sent[p]    = sent_q[p];
        cur_lsem[p]    = lsem_q[p];
        cur_rsem[p]    = rsem_q[p];
        cur_acc[p]     = acc_q[p];
      end
    end
  end

  // The ports with a neighbour: static wiring, sampled every clock like the
  // sequencer's copy (seq.v), so that nothing depends on an input
  // combinationally.  A transfer starts only after its dma.ici has issued,
  // which the sequencer allows on a connected port only.
  logic [NP-1:0] connected_q;
  always_ff @(posedge clk_i) begin
    connected_q <= connected_i;
  end

  // ---- T30: send, ports in order, from what the arbiter left -------------------------
  logic [63:0]     rem;
  logic [GW-1:0]   got    [NP];
  logic [NP-1:0]   chunk, last;
  logic [NP-1:0]   sending_d;
  logic [63:0]     sent_d [NP];
  logic [63:0]     acc_d  [NP];
  always_comb begin : p_send
    logic [63:0] left, sum, avail, want;
    logic        carry;
    rem   = vmem_left_i;
    left  = 64'd0;
    sum   = 64'd0;
    avail = 64'd0;
    want  = 64'd0;
    carry = 1'b0;
    for (int p = 0; p < NP; p++) begin
      got[p]       = '0;
      chunk[p]     = 1'b0;
      last[p]      = 1'b0;
      sending_d[p] = 1'b0;
      sent_d[p]    = 64'd0;
      acc_d[p]     = 64'd0;
    end
    if (active) begin
      for (int p = 0; p < NP; p++) begin
        left  = cur_bytes[p] - cur_sent[p];
        sum   = cur_acc[p] + R0;
        carry = (sum >= Den);
        avail = Q0 + {63'd0, carry};
        want  = (left < avail) ? left : avail;
        sending_d[p] = cur_sending[p];
        sent_d[p]    = cur_sent[p];
        acc_d[p]     = cur_acc[p];
        if (cur_sending[p] && connected_q[p]) begin
          if (left != 64'd0) begin
            got[p] = GW'((want < rem) ? want : rem);
            rem    = rem - {{(64 - GW){1'b0}}, got[p]};
          end
          last[p]   = (cur_sent[p] + {{(64 - GW){1'b0}}, got[p]} == cur_bytes[p]);
          chunk[p]  = (got[p] != '0) || last[p];
          sent_d[p] = cur_sent[p] + {{(64 - GW){1'b0}}, got[p]};
          if (last[p]) begin
            sending_d[p] = 1'b0;
            acc_d[p]     = 64'd0;
          end else begin
            acc_d[p]     = carry ? sum - Den : sum;
          end
        end
      end
    end
  end

  assign vmem_used_o = vmem_left_i - rem;

  // ---- the outgoing links: Latency - 1 stages per port ----------------------------------
  logic [NP-1:0] link_busy;
  for (genvar p = 0; p < NP; p++) begin : g_link
    logic [LinkW-1:0] word;
    assign raddr_o[p*VAW +: VAW] = cur_src[p] + cur_sent[p][VAW-1:0];
    // an invalid word is all 0 (its fields are don't-cares)
    always_comb begin
      word = '0;
      if (chunk[p]) begin
        word[FValid]          = 1'b1;
        word[FLast]           = last[p];
        word[FRsem +: 5]      = cur_rsem[p];
        word[FLen +: 16]      = 16'(got[p]);
        word[FAddr +: VAW]    = cur_rdst[p] + cur_sent[p][VAW-1:0];
        word[FTotal +: 64]    = cur_bytes[p];
        word[FData +: 8*IciB] = rdata_i[p*IciB*8 +: IciB*8];
      end
    end
    if (L > 1) begin : g_stages
      // stage j at [j*LinkW +: LinkW], a packed vector shifted by one
      // assignment (an unpacked array's elements written with `<=` each
      // get a delayed-assignment flag and value in the Verilated model,
      // cleared every cycle)
      logic [(L-1)*LinkW-1:0] st_q;
      always_comb begin
        link_busy[p] = 1'b0;
        for (int j = 0; j < L - 1; j++) begin
          link_busy[p] = link_busy[p] || st_q[j*LinkW + FValid];
        end
      end
      always_ff @(posedge clk_i or negedge rst_ni) begin
        if (!rst_ni) begin
          st_q <= '0;
        end else if (chunk[p] || link_busy[p]) begin
          // A clock enable: the stages move only while a chunk enters or
          // is in them.  When every stage holds an invalid word they keep
          // it (its other fields are don't-cares), so the Verilated model
          // copies nothing for an idle link (docs/rtl.md, "Simulation
          // speed").
          st_q <= ((L-1)*LinkW)'({st_q, word});
        end
      end
      assign link_o[p*LinkW +: LinkW] = st_q[(L-2)*LinkW +: LinkW];
    end else begin : g_direct
      assign link_busy[p] = 1'b0;
      assign link_o[p*LinkW +: LinkW] = word;
    end
  end

  // ---- T31: what arrives: the link's last register, then VMEM ------------------------------
  // Port p's word at [p*LinkW +: LinkW], loaded only while a valid word
  // arrives or is here (an invalid word's fields are don't-cares): an idle
  // core copies nothing.
  logic [NP*LinkW-1:0] in_q;
  logic [NP-1:0]       in_busy, arriving;
  always_comb begin
    for (int p = 0; p < NP; p++) begin
      arriving[p] = link_i[p*LinkW + FValid];
    end
  end
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      in_q <= '0;
    end else if (arriving != '0 || in_busy != '0) begin
      in_q <= link_i;
    end
  end
  assign link_busy_o = (link_busy != '0) || (in_busy != '0);

  always_comb begin
    for (int p = 0; p < NP; p++) begin
      in_busy[p] = in_q[p*LinkW + FValid];
    end
  end
  always_comb begin : p_recv
    logic [LinkW-1:0] w;
    w            = '0;
    in_bytes_o   = 64'd0;
    we_o         = '0;
    waddr_o      = '0;
    wlen_o       = '0;
    wdata_o      = '0;
    rsem_inc_o   = '0;
    rsem_idx_o   = '0;
    recv_bytes_o = '0;
    if (in_busy != '0) begin
      for (int p = 0; p < NP; p++) begin
        w = in_q[p*LinkW +: LinkW];
        we_o[p]                       = w[FValid] && w[FLen +: 16] != 16'd0;
        waddr_o[p*VAW +: VAW]         = w[FAddr +: VAW];
        wlen_o[16*p +: 16]            = w[FLen +: 16];
        wdata_o[p*IciB*8 +: IciB*8]   = w[FData +: 8*IciB];
        rsem_inc_o[p]                 = w[FValid] && w[FLast];
        rsem_idx_o[5*p +: 5]          = w[FRsem +: 5];
        recv_bytes_o[64*p +: 64]      = w[FTotal +: 64];
        if (w[FValid]) begin
          in_bytes_o = in_bytes_o + {48'd0, w[FLen +: 16]};
        end
      end
    end
  end

  // ---- completions and registers --------------------------------------------------------------
  for (genvar p = 0; p < NP; p++) begin : g_done
    assign lsem_inc_o[p]            = cur_sending[p] && connected_q[p] && last[p];
    assign lsem_idx_o[5*p +: 5]     = cur_lsem[p];
    assign send_bytes_o[64*p +: 64] = cur_bytes[p];
  end
  assign busy_o = (sending_q != '0);

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      sending_q <= '0;
    end else begin
      sending_q <= sending_d;
    end
  end
  always_ff @(posedge clk_i) begin
    for (int p = 0; p < NP; p++) begin
      rdst_q[p]  <= cur_rdst[p];
      src_q[p]   <= cur_src[p];
      bytes_q[p] <= cur_bytes[p];
      sent_q[p]  <= sent_d[p];
      lsem_q[p]  <= cur_lsem[p];
      rsem_q[p]  <= cur_rsem[p];
      acc_q[p]   <= acc_d[p];
    end
  end

  /* verilator tracing_off */  // a lint sink: not traced, not computed
  logic unused_ici;
  assign unused_ici = ^{head_i[`TPU_QE_BITS-1:`TPU_QE_OPND_AT(6)], hv[0][63:3], hv[1][63:VAW], hv[2][63:VAW],
                        hv[4][63:5], hv[5][63:5]};
  /* verilator tracing_on */
endmodule
