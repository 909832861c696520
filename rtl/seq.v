// seq: the sequencer of one core (docs/timing.md T1-T10, cmodel/seq.c).
//
// Registers: pc, sreg[1..30] (s0 reads 0, s31 reads core_id_i), sem[0..31],
// halted, error, the instruction memory and the dispatch queues (one per
// unit, `queue` instances).  Every cycle the word at pc is decoded (the
// table rtl/seq_decode.vh, generated from cmodel/isa.def) and either issues
// or stalls, all from registers (T1):
//   - scalar ALU, li, branches and jumps complete in the issue cycle (T2, T3);
//   - DMA, ICI, MXU and VPU instructions read their register operands and
//     push the values into the unit's queue, unless it is full (T4), after
//     the address checks of T5 (a failing check is a run-time error);
//   - sem.wait issues when sem[s] >= n and takes n (T6); sync and halt wait
//     for the named units to be idle (T7, T8);
//   - the units' semaphore increments of the cycle are added together with
//     the sem.wait decrement at the end of the cycle (T9).
// A run-time error (pc outside IMEM, illegal word, a T5 check) stops issue
// for good; error_code_o says which.
//
// A queue entry is the C model's tpu_qentry: operand values v[0..6] in
// assembly order (fields A..G; IMM for the immediate forms), pc and word,
// packed as rtl/queue_entry.def says (the macros of tpu_queue.vh).
`include "tpu_queue.vh"  // the queue entry's layout (rtl/queue_entry.def)
module seq #(
  parameter integer      NumMxu     = 1,
  parameter integer      MxuN       = 8,
  parameter integer      ImemWords  = 4096,
  parameter logic [63:0] VmemBytes  = 64'd262144,
  parameter logic [63:0] HbmBytes   = 64'd16777216,
  parameter integer      VecElems   = 64,
  parameter integer      QueueDepth = 4,
  parameter integer      NumInc     = 10,
  parameter integer      MxuInt8    = 1     // mxu_int8: 0 bf16 only, 1 both, 2 int8 only
) (
  input  logic                     clk_i,
  input  logic                     rst_ni,
  input  logic [15:0]              core_id_i,       // what s31 (cid) reads
  // instruction memory backdoor (loading): one word per cycle
  input  logic                     imem_we_i,
  input  logic [63:0]              imem_addr_i,     // word index
  input  logic [63:0]              imem_wdata_i,
  output logic [63:0]              imem_rdata_o,    // word at imem_addr_i
  // the units, from their registers
  input  logic [6:0]               unit_busy_i,     // sync operand bits; work in flight
  input  logic [5:0]               ici_ports_i,     // ports with a neighbour (NUM_PORTS)
  // dispatch queues: heads and pops
  output logic [`TPU_QE_BITS-1:0] dma_head_o,
  output logic                     dma_valid_o,
  input  logic                     dma_pop_i,
  output logic [`TPU_QE_BITS-1:0] ici_head_o,
  output logic                     ici_valid_o,
  input  logic                     ici_pop_i,
  output logic [`TPU_QE_BITS-1:0] vpu_head_o,
  output logic                     vpu_valid_o,
  input  logic                     vpu_pop_i,
  output logic [`TPU_QE_BITS-1:0] xlu_head_o,
  output logic                     xlu_valid_o,
  input  logic                     xlu_pop_i,
  output logic                     xlu_push_o,      // T35: an entry enters the XLU queue,
  output logic [9:0]               xlu_push_regs_o, // naming {va, vd}
  input  logic                     xlu_busy_i,      // the XLU runs an instruction
  output logic [NumMxu*`TPU_QE_BITS-1:0] mxu_head_o,
  output logic [NumMxu-1:0]        mxu_valid_o,
  input  logic [NumMxu-1:0]        mxu_pop_i,
  // semaphore increments of this cycle (DMA and ICI completions)
  input  logic [NumInc-1:0]        sem_inc_i,
  input  logic [NumInc*5-1:0]      sem_inc_idx_i,
  // status
  output logic                     halted_o,        // halt has issued (register)
  output logic                     error_o,         // a run-time error this cycle or before
  output logic [2:0]               error_code_o,
  output logic                     waiting_sem_o,   // stalled on sem.wait this cycle
  output logic [2:0]               stall_o,         // 0 or the stall reason + 1
  // trace (simulation; plain wires of the signals above)
  output logic                     tr_issue_o,
  output logic [63:0]              tr_pc_o,
  output logic [63:0]              tr_word_o,
  output logic                     tr_sreg_we_o,
  output logic [4:0]               tr_sreg_idx_o,
  output logic [63:0]              tr_sreg_val_o,
  output logic [31:0]              tr_sem_mask_o,
  output logic [1023:0]            tr_sem_val_o,
  output logic                     tr_halt_o
);
  `include "tpu_isa.vh"

  localparam integer EW  = `TPU_QE_BITS;
  localparam integer IW  = (ImemWords > 1) ? $clog2(ImemWords) : 1;
  localparam integer IncW = $clog2(NumInc + 1);

  // Error codes (error_code_o), for the test bench's messages.
  localparam logic [2:0] ErrNone    = 3'd0;
  localparam logic [2:0] ErrPc      = 3'd1;   // pc outside IMEM
  localparam logic [2:0] ErrIllegal = 3'd2;   // illegal instruction word
  localparam logic [2:0] ErrNoMxu   = 3'd3;   // MXU number beyond num_mxu
  localparam logic [2:0] ErrAddress = 3'd4;   // T5: range or alignment
  localparam logic [2:0] ErrPort    = 3'd5;   // ICI port without a neighbour
  localparam logic [2:0] ErrMode    = 3'd6;   // T5b: int8/bf16 mode of the machine or the weights

  // Stall reasons + 1 (TPU_SEQ_STALL_* of cmodel/seq.h).
  localparam logic [2:0] StallNone  = 3'd0;
  localparam logic [2:0] StallQueue = 3'd1;
  localparam logic [2:0] StallSem   = 3'd2;
  localparam logic [2:0] StallSync  = 3'd3;
  localparam logic [2:0] StallHalt  = 3'd4;
  localparam logic [2:0] StallVpu   = 3'd5;   // T35: an XLU instruction waits for the VPU

  // ---- registers --------------------------------------------------------
  // public_flat_rw: the bench writes the program's words straight into it
  // (sim/rtl/rtl_bench.cpp, load_rtl), not a clock edge per word through the
  // backdoor port; a comment to synthesis.
  (* tpu_macro *) logic [63:0] imem_q [ImemWords] /* verilator public_flat_rw */;   // a memory macro in synthesis
  logic [63:0] pc_q, pc_d;
  logic [63:0] sreg_q [1:30];
  logic [31:0] sem_q [32];
  logic [31:0] sem_d [32];
  logic        halted_q, halted_d;
  logic        error_q, error_d;
  logic [2:0]  error_code_q, error_code_d;

  // ---- T5: one region check (cmodel/seq.c check_region) ------------------
  // rows rows of rowbytes bytes, row i at base + i*stride, all inside a
  // memory of `size` bytes?  Negative counts fail; an empty region passes.
  // The arithmetic is exact, in 64-bit pieces (a Verilated model computes
  // wider vectors with library calls, in every cycle): with 0 < rows,
  // rowbytes < 2^63 the footprint is [base - p, base + rowbytes) for a
  // negative stride and [base, base + p + rowbytes) otherwise, where
  // p = (rows-1)*|stride| < 2^126 (mul64); it fits when base is not
  // negative, p <= base or p <= size - (base + rowbytes) respectively,
  // and base + rowbytes <= size (base + rowbytes < 2^64: no overflow).
  // {hi, lo} = a * b, from four 32 x 32-bit products.
  function automatic logic [127:0] mul64(input logic [63:0] a, input logic [63:0] b);
    logic [63:0] p00, p01, p10, p11;
    logic [33:0] mid;
    p00 = {32'd0, a[31:0]}  * {32'd0, b[31:0]};
    p01 = {32'd0, a[31:0]}  * {32'd0, b[63:32]};
    p10 = {32'd0, a[63:32]} * {32'd0, b[31:0]};
    p11 = {32'd0, a[63:32]} * {32'd0, b[63:32]};
    mid = {2'b00, p00[63:32]} + {2'b00, p01[31:0]} + {2'b00, p10[31:0]};
    mul64 = {p11 + {32'd0, p01[63:32]} + {32'd0, p10[63:32]} + {62'd0, mid[33:32]},
             mid[31:0], p00[31:0]};
  endfunction

  function automatic logic region_ok(input logic [63:0] base, input logic [63:0] rows,
                                     input logic [63:0] rowbytes, input logic [63:0] stride,
                                     input logic [63:0] size);
    logic [63:0]  mag, end_row;
    logic [127:0] prod;
    mag     = stride[63] ? (~stride + 64'd1) : stride;
    prod    = mul64(rows - 64'd1, mag);
    end_row = base + rowbytes;            // end of row 0
    if (rows[63] || rowbytes[63]) begin
      region_ok = 1'b0;
    end else if (rows == 64'd0 || rowbytes == 64'd0) begin
      region_ok = 1'b1;
    end else if (base[63] || end_row > size || prod[127:64] != 64'd0) begin
      region_ok = 1'b0;
    end else if (stride[63]) begin
      region_ok = prod[63:0] <= base;
    end else begin
      region_ok = prod[63:0] <= size - end_row;
    end
  endfunction

  // The core id is a strap like ici_ports_i below: sampled every clock, so
  // that the decode does not depend on an input combinationally (in a
  // Verilated top such logic is evaluated again on every eval); IMEM is
  // written only through the backdoor, which clocks, so the register holds
  // the id before any instruction can read s31.
  logic [15:0] core_id_q;
  always_ff @(posedge clk_i) begin
    core_id_q <= core_id_i;
  end

  // The scalar registers as operands read them: s0 = 0, s31 = the core id.
  logic [63:0] sregs [32];
  always_comb begin
    sregs[0]  = 64'd0;
    sregs[31] = 64'(core_id_q);
    for (int i = 1; i <= 30; i++) begin
      sregs[i] = sreg_q[i];
    end
  end

  // ---- fetch and decode -------------------------------------------------
  logic        pc_ok;
  logic [63:0] word;
  logic [7:0]  opcode;
  logic [4:0]  fld [7];                 // fields A..G
  logic [63:0] imm_s, imm_u;
  logic        bad_range, legal;

  assign pc_ok  = (pc_q < 64'(ImemWords));
  assign word   = pc_ok ? imem_q[pc_q[IW-1:0]] : 64'd0;
  assign opcode = word[F_OPCODE_LSB +: F_OPCODE_WIDTH];
  assign fld[0] = word[F_A_LSB +: F_A_WIDTH];
  assign fld[1] = word[F_B_LSB +: F_B_WIDTH];
  assign fld[2] = word[F_C_LSB +: F_C_WIDTH];
  assign fld[3] = word[F_D_LSB +: F_D_WIDTH];
  assign fld[4] = word[F_E_LSB +: F_E_WIDTH];
  assign fld[5] = word[F_F_LSB +: F_F_WIDTH];
  assign fld[6] = word[F_G_LSB +: F_G_WIDTH];
  assign imm_u  = {32'd0, word[F_IMM_LSB +: F_IMM_WIDTH]};
  assign imm_s  = {{32{word[63]}}, word[F_IMM_LSB +: F_IMM_WIDTH]};

  // The decode table, generated from cmodel/isa.def (tpu-isagen --seq-decode):
  // known, used, unit, cls, flags, sreg_fields, imm_ops, imm_sext and the
  // operand kinds that need a range check (op_sregw, op_mxu, op_port, op_shamt,
  // op_units), one row per instruction.
  `include "seq_decode.vh"

  // Operand ranges the field width does not imply (cmodel/isa.c
  // tpu_kind_range): a written register is not cid, mxu is 0..3, port is
  // 0..NUM_PORTS-1 (0..5), a shift is 0..63, a unit set is 1..0x7f.
  assign bad_range = (op_sregw && fld[0] == 5'd31)
                  || (op_mxu && fld[0] > 5'd3)
                  || (op_port && {27'd0, fld[0]} > NUM_PORTS - 1)
                  || (op_shamt && imm_u > 64'd63)
                  || (op_units && (imm_u == 64'd0 || imm_u > {57'd0, UNITS_ALL}));
  assign legal = known && ((word & ~used) == 64'd0) && !bad_range;

  // ---- operand values (T4) ----------------------------------------------
  // Operand i of a queued instruction is field i: the scalar register it
  // names (sreg_fields), or the number itself; the immediate forms take IMM
  // (imm_ops), sign-extended for a simm (seq_decode.vh).
  logic [63:0] v [7];
  always_comb begin
    for (int i = 0; i < 7; i++) begin
      if (imm_ops[i]) begin
        v[i] = imm_sext ? imm_s : imm_u;
      end else begin
        v[i] = sreg_fields[i] ? sregs[fld[i]] : {59'd0, fld[i]};
      end
    end
  end

  logic [EW-1:0] entry;
  always_comb begin
    for (int i = 0; i < `TPU_QE_OPND_COUNT; i++) begin
      entry[`TPU_QE_OPND_AT(i) +: `TPU_QE_OPND_BITS] = v[i];
    end
    entry[`TPU_QE_PC +: `TPU_QE_PC_BITS]     = pc_q;
    entry[`TPU_QE_WORD +: `TPU_QE_WORD_BITS] = word;
  end

  // ---- T5: the checks of a dispatched instruction -----------------------
  // Up to two regions (A, B) and the alignments, per unit as in seq.c.
  logic        is_h2v, is_wide, is_lw, is_vmem_op, is_bf16_op;
  logic [63:0] vaddr, vbytes;
  logic [63:0] ra_base, ra_rows, ra_rowbytes, ra_stride, ra_size;
  logic [63:0] rb_base, rb_rows, rb_rowbytes, rb_stride, rb_size;
  logic        rb_used, misaligned, ra_ok, rb_ok;
  localparam logic [63:0] N64     = 64'(MxuN);
  localparam logic [63:0] VBytes2 = 2 * VecElems;
  localparam logic [63:0] VBytes4 = 4 * VecElems;

  // From the unit, class and flags of the decode table.
  logic op_i8;
  assign op_i8      = flags[FL_I8];                 // an int8 form
  assign is_wide    = unit == UNIT_DMA && op_i8;    // rowbytes HBM bytes -> 2 x rowbytes of VMEM
  assign is_h2v     = unit == UNIT_DMA && cls == CLASS_LOAD;
  assign is_lw      = unit == UNIT_MXU && cls == CLASS_LOAD;
  assign is_bf16_op = unit == UNIT_VPU && flags[FL_BF16];
  assign is_vmem_op = unit == UNIT_VPU && (cls == CLASS_LOAD || cls == CLASS_STORE);
  assign vaddr      = v[1] + v[2];
  assign vbytes     = is_bf16_op ? VBytes2 : VBytes4;

  always_comb begin
    ra_base = v[1]; ra_rows = v[2]; ra_rowbytes = v[3]; ra_stride = v[4]; ra_size = VmemBytes;
    rb_base = v[0]; rb_rows = v[2]; rb_rowbytes = v[3]; rb_stride = v[5]; rb_size = VmemBytes;
    rb_used = 1'b0;
    misaligned = 1'b0;
    case (unit)
      UNIT_DMA: begin                     // dma.h2v vdst, hsrc, ... / dma.v2h hdst, vsrc, ...
        ra_size = is_h2v ? HbmBytes : VmemBytes;
        rb_size = is_h2v ? VmemBytes : HbmBytes;
        rb_used = 1'b1;
        if (is_wide) begin                // dma.h2v.i8: rows of 2 x rowbytes bf16 bytes
          misaligned  = v[0][0] || v[5][0];
          rb_rowbytes = v[3][63] ? v[3] : {v[3][62:0], 1'b0};
        end
      end
      UNIT_MXU: begin
        if (is_lw) begin                  // mxu.lw mxu, addr, stride
          misaligned = v[1][0] || v[2][0];
          ra_base = v[1]; ra_rows = N64; ra_rowbytes = 2 * N64; ra_stride = v[2];
        end else begin                    // mxu.mm mxu, dst, src, rows, sstride, dstride
          misaligned = v[2][0] || v[4][0] || (v[1][1:0] != 2'b00) || (v[5][1:0] != 2'b00);
          ra_base = v[2]; ra_rows = v[3]; ra_rowbytes = 2 * N64; ra_stride = v[4];
          rb_base = v[1]; rb_rows = v[3]; rb_rowbytes = 4 * N64; rb_stride = v[5];
          rb_used = 1'b1;
        end
      end
      UNIT_VPU: begin                     // vld/vst: rs + imm
        misaligned = is_vmem_op && (is_bf16_op ? vaddr[0] : (vaddr[1:0] != 2'b00));
        ra_base = vaddr; ra_rows = 64'd1; ra_rowbytes = is_vmem_op ? vbytes : 64'd0;
        ra_stride = 64'd0;
      end
      UNIT_ICI: begin                     // dma.ici port, rdst, vsrc, bytes, lsem, rsem
        ra_base = v[2]; ra_rows = 64'd1; ra_rowbytes = v[3]; ra_stride = 64'd0;
        rb_base = v[1]; rb_rows = 64'd1; rb_rowbytes = v[3]; rb_stride = 64'd0;
        rb_used = 1'b1;
      end
      default: ;
    endcase
  end

  // A DMA may move at most 2^63 - 1 bytes, dma.h2v.i8 write at most that
  // many (2 x rows x rowbytes) with rows of at most 2^62 - 1 HBM bytes
  // (seq.c check_dma).
  logic [127:0] dma_total;
  logic         dma_too_big;
  assign dma_total   = mul64(v[2], v[3]);
  assign dma_too_big = unit == UNIT_DMA && !v[2][63] && !v[3][63]
                    && (dma_total[127:64] != 64'd0 || dma_total[63]
                        || (is_wide && (dma_total[62] || v[3][62])));
  /* verilator tracing_off */  // a lint sink: not traced, not computed
  logic unused_dma_total;
  assign unused_dma_total = ^dma_total[61:0];
  /* verilator tracing_on */

  assign ra_ok = region_ok(ra_base, ra_rows, ra_rowbytes, ra_stride, ra_size);
  assign rb_ok = !rb_used || region_ok(rb_base, rb_rows, rb_rowbytes, rb_stride, rb_size);

  // ---- units: idle (T7) and queue state ---------------------------------
  logic        dma_full, ici_full, vpu_full, dma_empty, ici_empty, vpu_empty;
  logic        xlu_full, xlu_empty, vpu_idle;
  logic [3:0]  mxu_full, mxu_empty;
  logic [6:0]  idle;
  always_comb begin
    idle = 7'h7f;
    for (int m = 0; m < 4; m++) begin
      if (m < NumMxu && (unit_busy_i[m] || !mxu_empty[m])) begin
        idle[m] = 1'b0;
      end
    end
    idle[4] = !(unit_busy_i[4] || !vpu_empty || xlu_busy_i || !xlu_empty);  // `vpu`: and the XLU
    idle[5] = !(unit_busy_i[5] || !dma_empty);
    idle[6] = !(unit_busy_i[6] || !ici_empty);
  end

  assign vpu_idle = !(unit_busy_i[4] || !vpu_empty);    // the VPU alone (T35)

  // ---- issue ------------------------------------------------------------
  logic        issue, q_full, wants_sreg;
  logic        push_dma, push_ici, push_vpu, push_xlu;
  logic [3:0]  push_mxu;
  logic [2:0]  stall;
  logic        waiting_sem;
  logic [63:0] alu, a, b, x, next_pc;
  logic [5:0]  sh;
  logic [31:0] dec [32];
  logic [1:0]  mxu_sel;

  assign a = sregs[fld[1]];
  assign b = sregs[fld[2]];
  assign x = sregs[fld[0]];
  assign mxu_sel = fld[0][1:0];

  // T5b: the machine's MXU modes, and a stream's mode against that of the
  // last weight load issued to its MXU (w_i8_q: 1 after mxu.lw.i8, 0 after
  // mxu.lw and reset).  Queue order makes it the mode of the weights the
  // stream will multiply by (T21).
  logic [3:0] w_i8_q, w_i8_d;
  logic       mode_bad;
  assign mode_bad = unit == UNIT_MXU
                 && ((op_i8 && MxuInt8 == 0) || (!op_i8 && MxuInt8 == 2)
                     || (!is_lw && op_i8 != w_i8_q[mxu_sel]));

  // Scalar ALU, branches and jumps (seq.c scalar()).  mul and muli share
  // one multiplier.
  logic [63:0] prod;
  assign prod = a * ((opcode == OP_MULI) ? imm_s : b);
  always_comb begin
    alu        = 64'd0;
    wants_sreg = 1'b1;
    next_pc    = pc_q + 64'd1;
    sh         = 6'd0;
    case (opcode)
      OP_ADD:  alu = a + b;
      OP_SUB:  alu = a - b;
      OP_MUL:  alu = prod;
      OP_AND:  alu = a & b;
      OP_OR:   alu = a | b;
      OP_XOR:  alu = a ^ b;
      OP_SLL:  begin sh = b[5:0]; alu = a << sh; end
      OP_SRL:  begin sh = b[5:0]; alu = a >> sh; end
      OP_SRA:  begin sh = b[5:0]; alu = $unsigned($signed(a) >>> sh); end
      OP_SLT:  alu = {63'd0, $signed(a) < $signed(b)};
      OP_SLTU: alu = {63'd0, a < b};
      OP_ADDI: alu = a + imm_s;
      OP_MULI: alu = prod;
      OP_ANDI: alu = a & imm_s;
      OP_ORI:  alu = a | imm_s;
      OP_XORI: alu = a ^ imm_s;
      OP_SLLI: begin sh = imm_u[5:0]; alu = a << sh; end
      OP_SRLI: begin sh = imm_u[5:0]; alu = a >> sh; end
      OP_SRAI: begin sh = imm_u[5:0]; alu = $unsigned($signed(a) >>> sh); end
      OP_SLTI: alu = {63'd0, $signed(a) < $signed(imm_s)};
      OP_LI:   alu = imm_s;
      OP_JAL:  begin alu = pc_q + 64'd1; next_pc = imm_u; end
      default: begin
        wants_sreg = 1'b0;
        case (opcode)
          OP_BEQ:  if (x == a) next_pc = imm_u;
          OP_BNE:  if (x != a) next_pc = imm_u;
          OP_BLT:  if ($signed(x) < $signed(a)) next_pc = imm_u;
          OP_BGE:  if ($signed(x) >= $signed(a)) next_pc = imm_u;
          OP_BLTU: if (x < a) next_pc = imm_u;
          OP_BGEU: if (x >= a) next_pc = imm_u;
          OP_JMP:  next_pc = imm_u;
          OP_JR:   next_pc = x;
          default: ;
        endcase
      end
    endcase
  end

  // ---- the ports with a neighbour ----------------------------------------
  // ici_ports_i is static wiring (a strap).  It is sampled every clock, so
  // no logic depends on it combinationally (in a Verilated top, logic that
  // depends on an input is evaluated on every eval); IMEM is written only
  // through the backdoor, which clocks, so the register holds the value
  // before any instruction can issue.
  logic [NUM_PORTS-1:0] ici_ports_q;
  always_ff @(posedge clk_i) begin
    ici_ports_q <= ici_ports_i;
  end

  always_comb begin
    pc_d         = pc_q;
    halted_d     = halted_q;
    error_d      = error_q;
    error_code_d = error_code_q;
    issue        = 1'b0;
    stall        = StallNone;
    waiting_sem  = 1'b0;
    push_dma     = 1'b0;
    push_ici     = 1'b0;
    push_vpu     = 1'b0;
    push_xlu     = 1'b0;
    push_mxu     = 4'b0000;
    q_full       = 1'b0;
    for (int i = 0; i < 32; i++) begin
      dec[i] = 32'd0;
    end
    if (!halted_q && !error_q) begin
      if (!pc_ok) begin
        error_d = 1'b1;
        error_code_d = ErrPc;
      end else if (!legal) begin
        error_d = 1'b1;
        error_code_d = ErrIllegal;
      end else if (unit != UNIT_SEQ) begin                       // T4, T5
        case (unit)
          UNIT_DMA: q_full = dma_full;
          UNIT_ICI: q_full = ici_full;
          UNIT_VPU: q_full = vpu_full;
          UNIT_XLU: q_full = xlu_full;
          default:  q_full = mxu_full[mxu_sel];
        endcase
        if (unit == UNIT_MXU && {30'd0, mxu_sel} >= NumMxu) begin
          error_d = 1'b1;
          error_code_d = ErrNoMxu;
        end else if (unit == UNIT_XLU && !vpu_idle) begin      // T35
          stall = StallVpu;
        end else if (q_full) begin
          stall = StallQueue;
        end else if (unit == UNIT_ICI && !ici_ports_q[fld[0][2:0]]) begin
          error_d = 1'b1;
          error_code_d = ErrPort;
        end else if (mode_bad) begin
          error_d = 1'b1;
          error_code_d = ErrMode;
        end else if (dma_too_big || misaligned || !ra_ok || !rb_ok) begin
          error_d = 1'b1;
          error_code_d = ErrAddress;
        end else begin
          issue = 1'b1;
          pc_d  = pc_q + 64'd1;
          case (unit)
            UNIT_DMA: push_dma = 1'b1;
            UNIT_ICI: push_ici = 1'b1;
            UNIT_VPU: push_vpu = 1'b1;
            UNIT_XLU: push_xlu = 1'b1;
            default:  push_mxu[mxu_sel] = 1'b1;
          endcase
        end
      end else if (opcode == OP_HALT) begin                      // T8
        if (idle == 7'h7f) begin
          issue    = 1'b1;
          halted_d = 1'b1;
        end else begin
          stall = StallHalt;
        end
      end else if (opcode == OP_SYNC) begin                      // T7
        if ((idle & imm_u[6:0]) == imm_u[6:0]) begin
          issue = 1'b1;
          pc_d  = pc_q + 64'd1;
        end else begin
          stall = StallSync;
        end
      end else if (opcode == OP_SEM_WAIT) begin                  // T6
        if (sem_q[fld[0]] >= imm_u[31:0]) begin
          issue = 1'b1;
          pc_d  = pc_q + 64'd1;
          dec[fld[0]] = imm_u[31:0];
        end else begin
          stall = StallSem;
          waiting_sem = 1'b1;
        end
      end else begin                                             // T2, T3
        issue = 1'b1;
        pc_d  = next_pc;
      end
    end
  end

  // ---- semaphores (T6, T9) ----------------------------------------------
  // inc[IncW*i +: IncW]: the increments of semaphore i this cycle,
  // counted port by port (each port names one semaphore: NumInc steps, not
  // 32 x NumInc).
  logic [32*IncW-1:0] inc;
  logic [31:0]        sem_touched;
  always_comb begin
    inc = '0;
    for (int j = 0; j < NumInc; j++) begin
      if (sem_inc_i[j]) begin
        inc[IncW*sem_inc_idx_i[5*j +: 5] +: IncW] = inc[IncW*sem_inc_idx_i[5*j +: 5] +: IncW] + 1'b1;
      end
    end
    for (int i = 0; i < 32; i++) begin
      sem_d[i]       = sem_q[i] + {{(32 - IncW){1'b0}}, inc[IncW*i +: IncW]} - dec[i];
      sem_touched[i] = (inc[IncW*i +: IncW] != '0) || (dec[i] != 32'd0);
    end
  end

  // T5b: an issued weight load sets its MXU's mode bit.
  always_comb begin
    w_i8_d = w_i8_q;
    if (issue && unit == UNIT_MXU && is_lw) begin
      w_i8_d[mxu_sel] = op_i8;
    end
  end
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      w_i8_q <= 4'b0000;
    end else begin
      w_i8_q <= w_i8_d;
    end
  end

  // ---- scalar register write --------------------------------------------
  logic sreg_we;
  assign sreg_we = issue && unit == UNIT_SEQ && wants_sreg && fld[0] != 5'd0;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      pc_q         <= 64'd0;
      halted_q     <= 1'b0;
      error_q      <= 1'b0;
      error_code_q <= ErrNone;
      for (int i = 1; i <= 30; i++) begin
        sreg_q[i] <= 64'd0;
      end
      for (int i = 0; i < 32; i++) begin
        sem_q[i] <= 32'd0;
      end
    end else begin
      pc_q         <= pc_d;
      halted_q     <= halted_d;
      error_q      <= error_d;
      error_code_q <= error_code_d;
      if (sreg_we) begin
        sreg_q[fld[0]] <= alu;
      end
      for (int i = 0; i < 32; i++) begin
        sem_q[i] <= sem_d[i];
      end
    end
  end

  // IMEM: written through the backdoor only.
  always_ff @(posedge clk_i) begin
    if (imem_we_i && imem_addr_i < 64'(ImemWords)) begin
      imem_q[imem_addr_i[IW-1:0]] <= imem_wdata_i;
    end
  end
  assign imem_rdata_o = (imem_addr_i < 64'(ImemWords)) ? imem_q[imem_addr_i[IW-1:0]] : 64'd0;

  // ---- dispatch queues --------------------------------------------------
  queue #(.Width(EW), .Depth(QueueDepth)) u_q_dma (
    .clk_i, .rst_ni, .push_i(push_dma), .data_i(entry), .pop_i(dma_pop_i),
    .head_o(dma_head_o), .empty_o(dma_empty), .full_o(dma_full)
  );
  queue #(.Width(EW), .Depth(QueueDepth)) u_q_ici (
    .clk_i, .rst_ni, .push_i(push_ici), .data_i(entry), .pop_i(ici_pop_i),
    .head_o(ici_head_o), .empty_o(ici_empty), .full_o(ici_full)
  );
  queue #(.Width(EW), .Depth(QueueDepth)) u_q_xlu (
    .clk_i, .rst_ni, .push_i(push_xlu), .data_i(entry), .pop_i(xlu_pop_i),
    .head_o(xlu_head_o), .empty_o(xlu_empty), .full_o(xlu_full)
  );
  assign xlu_valid_o     = !xlu_empty;
  assign xlu_push_o      = push_xlu;
  assign xlu_push_regs_o = {fld[1], fld[0]};
  queue #(.Width(EW), .Depth(QueueDepth)) u_q_vpu (
    .clk_i, .rst_ni, .push_i(push_vpu), .data_i(entry), .pop_i(vpu_pop_i),
    .head_o(vpu_head_o), .empty_o(vpu_empty), .full_o(vpu_full)
  );
  for (genvar m = 0; m < 4; m++) begin : g_mxu_q
    if (m < NumMxu) begin : g_used
      queue #(.Width(EW), .Depth(QueueDepth)) u_q_mxu (
        .clk_i, .rst_ni, .push_i(push_mxu[m]), .data_i(entry), .pop_i(mxu_pop_i[m]),
        .head_o(mxu_head_o[m*EW +: EW]), .empty_o(mxu_empty[m]), .full_o(mxu_full[m])
      );
    end else begin : g_absent
      assign mxu_empty[m] = 1'b1;
      assign mxu_full[m]  = 1'b0;
    end
  end

  assign dma_valid_o = !dma_empty;
  assign ici_valid_o = !ici_empty;
  assign vpu_valid_o = !vpu_empty;
  assign mxu_valid_o = ~mxu_empty[NumMxu-1:0];
  /* verilator tracing_off */  // a lint sink: not traced, not computed
  logic unused_push_mxu;
  assign unused_push_mxu = ^push_mxu;
  /* verilator tracing_on */

  // ---- status and trace -------------------------------------------------
  assign halted_o      = halted_q;
  assign error_o       = error_d;
  assign error_code_o  = error_code_d;
  assign waiting_sem_o = waiting_sem;
  assign stall_o       = stall;
  assign tr_issue_o    = issue;
  assign tr_pc_o       = pc_q;
  assign tr_word_o     = word;
  assign tr_sreg_we_o  = sreg_we;
  assign tr_sreg_idx_o = fld[0];
  assign tr_sreg_val_o = alu;
  assign tr_sem_mask_o = sem_touched;
  assign tr_halt_o     = issue && opcode == OP_HALT;
  always_comb begin
    for (int i = 0; i < 32; i++) begin
      tr_sem_val_o[32*i +: 32] = sem_d[i];
    end
  end
endmodule
