# tpu-as: --config programs/tut4.cfg
#
# Lab 1 (docs/labs/01-stepper.md): read a weight-stationary matmul in the
# stepper.  Do not change this file: answer the questions of
# programs/labs/01-answers.txt from what the stepper shows.
#
#   Y[M,4] = X[M,4] . W[4,4]      M = 5 LHS rows; X, W bf16, Y fp32
#
# W[k][c] = k + 4c + 1 (column c holds 4c+1 .. 4c+4), X[b][k] = b + k + 1.
# X and W start in HBM; X is copied first, then W; MXU 0 loads the weights
# and streams the five rows through the 4 x 4 array.
#
#   tpu-as --config programs/tut4.cfg -o lab1.bin programs/labs/01-stepper.s
#   tpu-sim --config programs/tut4.cfg --step lab1.bin

        .equ    N, MXU_N
        .equ    M, 5
        .assert N == 4, "lab 1 runs on programs/tut4.cfg (a 4 x 4 MXU), not N = %d", N

        .hbm    0
W:      .set    k, 0
        .rept   N
          .set    c, 0
          .rept   N
            .bf16   k + 4*c + 1
            .set    c, c + 1
          .endr
          .set    k, k + 1
        .endr
X:      .set    b, 0
        .rept   M
          .set    k, 0
          .rept   N
            .bf16   b + k + 1
            .set    k, k + 1
          .endr
          .set    b, b + 1
        .endr

        .equ    WV, 0                   # W in VMEM: 4 rows of 8 bytes
        .equ    XV, 64                  # X in VMEM
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
