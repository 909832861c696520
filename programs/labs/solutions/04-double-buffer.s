# tpu-as: --config tiny
#
# Lab 4, a reference solution (docs/labs/04-double-buffer.md): two buffers
# for X and two for Y.  Block rb+2 of X comes into the buffer block rb
# used as soon as the MXU has finished with it, and block rb's rows of Y go
# back to HBM from their own buffer while the MXU works on block rb+1.  So
# HBM never waits for the MXU (the matmul is memory-bound here: 40 KiB of
# X and Y per block against 2048 MXU cycles) and the MXU waits for HBM only
# for the first block.
#
# Semaphores: 0 W landed; 2 a block's last rows are in VMEM; 4,5 X buffer
# landed; 6,7 Y buffer written back; 31 nobody waits.
#
# answer: speedup = 1.69

        .equ    B, 2048
        .equ    D, 64
        .equ    F, 8
        .equ    N, MXU_N
        .equ    BT, 256                 # rows of a block
        .assert F == N && D % N == 0 && B % BT == 0, "the sizes must fit the plan"
        .equ    KT, D / N
        .equ    NB, B / BT

        .hbm    0
X:      .random bf16, B*D, 1
        .align  64
W:      .random bf16, D*F, 2
        .align  64
Y:      .zero   B*F*4

        .equ    WV, 0
        .equ    XV, 1024                # two blocks of X
        .equ    YV, XV + 2*2*BT*D       # two blocks of Y

        .text
        li      s20, 1
        li      s1, WV                  # W -> VMEM, once
        li      s2, W
        li      s3, 2*D*F
        dma.h2v s1, s2, s20, s3, s3, s3, 0
        li      s21, 2*BT*D             # bytes of an X block
        li      s22, 4*BT*F             # bytes of a Y block
        li      s23, BT
        li      s24, 2*D
        li      s25, 4*F
        li      s26, 2*F
        .set    rb, 0
        .rept   NB < 2 ? NB : 2         # the first two blocks of X
          li      s1, XV + rb*2*BT*D
          li      s2, X + rb*2*BT*D
          dma.h2v s1, s2, s20, s21, s21, s21, 4 + rb
          .set    rb, rb + 1
        .endr
        sem.wait 0, 1
        .set    rb, 0
        .rept   NB
          sem.wait 4 + rb%2, 1          # X block rb has landed
          .rept   rb >= 2
            sem.wait 6 + rb%2, 1        # Y buffer rb%2 is back in HBM
          .endr
          .set    k, 0
          .rept   KT
            li      s1, WV + k*2*N*F
            mxu.lw  0, s1, s26, 31
            li      s2, XV + (rb%2)*2*BT*D + k*2*N
            li      s3, YV + (rb%2)*4*BT*F
            .rept   k == 0
              mxu.mm  0, s3, s2, s23, s24, s25, 31
            .endr
            .rept   k > 0
              mxu.mma 0, s3, s2, s23, s24, s25, (k == KT-1) ? 2 : 31
            .endr
            .set    k, k + 1
          .endr
          sem.wait 2, 1                 # block rb is done: its X buffer is free
          li      s1, Y + rb*4*BT*F
          li      s2, YV + (rb%2)*4*BT*F
          dma.v2h s1, s2, s20, s22, s22, s22, 6 + rb%2
          .rept   rb + 2 < NB
            li      s1, XV + (rb%2)*2*BT*D
            li      s2, X + (rb+2)*2*BT*D
            dma.h2v s1, s2, s20, s21, s21, s21, 4 + rb%2
          .endr
          .set    rb, rb + 1
        .endr
        halt

# ---- check: tpu-sim compares Y with this (the grader uses its own check) ----
        .expect matmul Y, X, W, B, D, F
