# tpu-as: --config programs/tut4.cfg
#
# Lab 1 (docs/labs/01-stepper.md): read a weight-stationary matmul in the
# stepper.  Do not change this file: answer the questions of
# programs/labs/01-answers.txt from what the stepper shows.
#
#   Y[M,4] = X[M,4] . W[4,4]      M = 5 LHS rows; X, W bf16, Y fp32
#
# W[k][c] = k + 4c + WOFF (column c holds 4c+WOFF .. 4c+WOFF+3), and
# X[b][k] = b + k + XOFF.  X and W start in HBM; X is copied first, then W;
# after DELAY nops MXU 0 loads the weights and streams the M rows through
# the 4 x 4 array.
#
#   tpu-as --config programs/tut4.cfg -o lab1.bin programs/labs/01-stepper.s
#   tpu-sim --config programs/tut4.cfg --step lab1.bin
#
# That is the handout's program (M = 5, WOFF = XOFF = 1, DELAY = 0).  Your
# own variant (tpu-lab variant 1 YOURNAME) gives other values with -D, e.g.
#   tpu-as --config programs/tut4.cfg -D M=7 -D WOFF=3 -D XOFF=2 -D DELAY=4 ...

        .equ    N, MXU_N
        .equ    M, 5                    # LHS rows
        .equ    WOFF, 1                 # W[0][0]
        .equ    XOFF, 1                 # X[0][0]
        .equ    DELAY, 0                # nops before the weight load
        .assert N == 4, "lab 1 runs on programs/tut4.cfg (a 4 x 4 MXU), not N = %d", N
        .assert M >= 1 && M <= 8, "M (LHS rows) must be 1 to 8, got %d", M
        .assert WOFF >= 0 && WOFF <= 100 && XOFF >= 0 && XOFF <= 100, "WOFF and XOFF must be 0 to 100, got %d and %d", WOFF, XOFF
        .assert DELAY >= 0 && DELAY <= 64, "DELAY (nops) must be 0 to 64, got %d", DELAY

        .hbm    0
W:      .set    k, 0
        .rept   N
          .set    c, 0
          .rept   N
            .bf16   k + 4*c + WOFF
            .set    c, c + 1
          .endr
          .set    k, k + 1
        .endr
X:      .set    b, 0
        .rept   M
          .set    k, 0
          .rept   N
            .bf16   b + k + XOFF
            .set    k, k + 1
          .endr
          .set    b, b + 1
        .endr

        .equ    WV, 0                   # W in VMEM: 4 rows of 8 bytes
        .equ    XV, 64                  # X in VMEM: M rows of 8 bytes
        .vmem   128
Y:      .zero   4*M*N

        .text
start:  li      s3, 1
        li      s1, XV                  # X: HBM -> VMEM
        li      s2, X
        li      s4, 2*M*N
        dma.h2v s1, s2, s3, s4, s4, s4, 0
        li      s1, WV                  # W: HBM -> VMEM
        li      s2, W
        li      s4, 2*N*N
        dma.h2v s1, s2, s3, s4, s4, s4, 1
        sem.wait 1, 1                   # W has landed
        .rept   DELAY
          nop
        .endr
load:   li      s1, WV
        li      s2, 2*N
        mxu.lw  0, s1, s2, 2            # W into MXU 0's shadow weights
        sem.wait 0, 1                   # X has landed
stream: li      s3, Y
        li      s4, XV
        li      s5, M
        li      s6, 4*N
        mxu.mm  0, s3, s4, s5, s2, s6, 3   # Y = X . W
wait:   sem.wait 3, 1
        halt

        .expect matmul Y, X, W, M, N, N
