# tpu-as: --config tiny
#
# Lab 8 (docs/labs/08-find-the-bug.md): find the bug.  This program is
# right, and the C model runs it bit-exact.  The lab's RTL
# (build/rtl/lab8/rtl-bench, `make lab8-mutant`) has a bug that this
# program runs into; find it with tpu-cosim and the waveform.  Do not
# change this file: answer the questions of programs/labs/08-answers.txt.
#
# P = X . W with X 8 x 8 and W 8 x 16 (two tiles: W's left and right
# halves), the two 8 x 8 results side by side in the 8 x 16 fp32 P in HBM;
# plus a copy of X's first 4 rows to C.
#
#   tpu-as --config tiny -o bug.bin programs/labs/08-find-bug.s
#   tpu-sim --config tiny bug.bin                             # the C model: bit-exact
#   tpu-cosim --bench build/rtl/lab8/rtl-bench bug.bin        # the RTL in lockstep
#
# That is the handout's program.  Your own variant (tpu-lab variant 8
# YOURNAME) sets, with -D: POFF (P starts 64 POFF bytes further into HBM),
# PAD (nops before P is written back) and ORDER (1: Y1 goes back first).

        .equ    N, MXU_N
        .assert N == 8, "lab 8 runs on tiny (N = 8), not N = %d", N
        .equ    POFF, 0                 # P's offset in HBM, in 64-byte steps
        .equ    PAD, 0                  # nops before the write-back of P
        .equ    ORDER, 0                # 0: Y0 first, 1: Y1 first
        .assert POFF >= 0 && POFF <= 64, "POFF must be 0 to 64, got %d", POFF
        .assert PAD >= 0 && PAD <= 64, "PAD (nops) must be 0 to 64, got %d", PAD
        .assert ORDER == 0 || ORDER == 1, "ORDER must be 0 or 1, got %d", ORDER

        .hbm    0
X:      .random bf16, 8*N, 1            # 8 rows of N
        .align  64
W:      .random bf16, N*2*N, 2      # N rows of 2N
        .align  64
C:      .zero   2*4*N                   # a copy of X's first 4 rows
        .align  64
        .rept   POFF
          .zero   64
        .endr
P:      .zero   8*2*N*4                 # 8 rows of 2N fp32: [Y0 | Y1]

        .equ    XV, 0
        .equ    WV, 256                 # W as in HBM: rows of 4N bytes
        .equ    Y0V, 1024               # 8 rows of N fp32, packed
        .equ    Y1V, 2048

        .text
        li      s20, 1
        li      s1, XV                  # X -> VMEM
        li      s2, X
        li      s3, 8*2*N
        dma.h2v s1, s2, s20, s3, s3, s3, 0
        li      s1, WV                  # W -> VMEM
        li      s2, W
        li      s3, 2*N*2*N
        dma.h2v s1, s2, s20, s3, s3, s3, 0
        sem.wait 0, 2
        li      s1, C                   # X's first 4 rows back to HBM, as they are
        li      s2, XV
        li      s3, 4
        li      s4, 2*N
        dma.v2h s1, s2, s3, s4, s4, s4, 1
        li      s4, 2*N                 # the two tiles
        li      s5, 8
        li      s6, 4*N
        li      s1, WV                  # W's left half: rows 4N bytes apart
        mxu.lw  0, s1, s6, 2
        li      s2, Y0V
        li      s3, XV
        mxu.mm  0, s2, s3, s5, s4, s6, 2
        li      s1, WV + 2*N            # its right half
        mxu.lw  0, s1, s6, 2
        li      s2, Y1V
        mxu.mm  0, s2, s3, s5, s4, s6, 2
        sem.wait 2, 4
        .rept   PAD
          nop
        .endr
        li      s7, 8*N                 # P's row stride: 2N fp32
        .rept   ORDER == 0
          li      s1, P                 # Y0 into the left half of P
          li      s2, Y0V
          dma.v2h s1, s2, s5, s6, s6, s7, 1
          li      s1, P + 4*N           # Y1 into the right half
          li      s2, Y1V
          dma.v2h s1, s2, s5, s6, s6, s7, 1
        .endr
        .rept   ORDER == 1
          li      s1, P + 4*N           # Y1 into the right half of P
          li      s2, Y1V
          dma.v2h s1, s2, s5, s6, s6, s7, 1
          li      s1, P                 # Y0 into the left half
          li      s2, Y0V
          dma.v2h s1, s2, s5, s6, s6, s7, 1
        .endr
        sem.wait 1, 3
        halt

        .expect copy C, X, 2*4*N
        .expect matmul P, X, W, 8, N, 2*N
