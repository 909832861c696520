# tpu-as: --config programs/labs/03-tiny32k.cfg
#
# Lab 3, a reference solution (docs/labs/03-tiling.md): Y = X . W in
# blocks of BT rows of X and strips of N columns of W.
#
# For each row block rb (BT rows of X, in one of two buffers) and each
# column strip n (all D rows of W's N columns: a D x N strip, one 2-D DMA,
# in one of two slots), MXU 0 goes over the K-tiles: mxu.lw the N x N
# tile k of the strip, stream the BT rows of X's K-tile k into Y's tile
# (rb, n).  The next strip and the next row block come in while the
# current ones are computed (double buffering); Y's block goes back to
# HBM when its last strip is done, from one of two buffers.  W is read
# once per row block: B/BT times in all, which HBM affords (the matmul is
# compute-bound here).
#
# Semaphores: 0,1 strip slot landed; 2,3 X buffer landed; 4,5 strip slot
# read by its KT mxu.lw's; 6 a step's last stream is done; 7,8 Y buffer
# written back; 31 nobody waits.

        .equ    B, 16
        .equ    D, 16
        .equ    F, 16
        .equ    N, MXU_N
        .equ    BT, B < 16 ? B : 16      # rows of a block
        .assert D % N == 0 && F % N == 0, "D and F must be multiples of %d", N
        .assert B % BT == 0, "B must be a multiple of %d", BT
        .equ    KT, D / N
        .equ    NT, F / N
        .equ    NB, B / BT
        .equ    STEPS, NB * NT

        .hbm    0
X:      .random bf16, B*D, 1
        .align  64
W:      .random bf16, D*F, 2
        .align  64
Y:      .zero   B*F*4

        .equ    XBYTES, 2*BT*D          # an X block
        .equ    SBYTES, 2*D*N           # a W strip
        .equ    YBYTES, 4*BT*F          # a Y block
        .equ    XB, 0                   # two X buffers
        .equ    WS, XB + 2*XBYTES       # two strip slots
        .equ    YB, WS + 2*SBYTES       # two Y buffers
        .assert YB + 2*YBYTES <= VMEM_BYTES, "the buffers need %d bytes of VMEM, the machine has %d", YB + 2*YBYTES, VMEM_BYTES

        .text
        li      s20, 1
        li      s21, 2*N                # strip row: N bf16
        li      s22, 2*F                # W row stride in HBM
        li      s23, D                  # rows of a strip
        li      s24, BT                 # rows of a stream
        li      s25, 2*D                # X row stride
        li      s26, 4*F                # Y row stride
        li      s27, XBYTES
        li      s28, YBYTES
        # the first strip and the first X block
        li      s1, WS
        li      s2, W
        dma.h2v s1, s2, s23, s21, s22, s21, 0
        li      s1, XB
        li      s2, X
        dma.h2v s1, s2, s20, s27, s27, s27, 2

        .set    j, 0
        .rept   STEPS
          .set    rb, j / NT
          .set    n, j % NT
          # ---- prefetch: strip j+1 into the other slot, X block rb+1 into the other buffer
          .rept   j + 1 < STEPS
            .rept   j >= 1
              sem.wait 4 + (j+1)%2, KT  # strip j-1's tiles have all been read
            .endr
            li      s1, WS + ((j+1)%2)*SBYTES
            li      s2, W + ((j+1)%NT)*2*N
            dma.h2v s1, s2, s23, s21, s22, s21, (j+1)%2
          .endr
          .rept   n == 0 && rb + 1 < NB
            li      s1, XB + ((rb+1)%2)*XBYTES
            li      s2, X + (rb+1)*XBYTES
            dma.h2v s1, s2, s20, s27, s27, s27, 2 + (rb+1)%2
          .endr
          # ---- compute step j = (rb, n)
          sem.wait j%2, 1
          .rept   n == 0
            sem.wait 2 + rb%2, 1
            .rept   rb >= 2
              sem.wait 7 + rb%2, 1      # Y buffer rb%2 has gone back to HBM
            .endr
          .endr
          li      s1, WS + (j%2)*SBYTES         # tile k of the strip
          li      s2, XB + (rb%2)*XBYTES        # X[:, k]
          li      s3, YB + (rb%2)*YBYTES + n*4*N
          mxu.lw  0, s1, s21, 4 + j%2
          mxu.mm  0, s3, s2, s24, s25, s26, KT == 1 ? 6 : 31
          .rept   KT >= 3 && j%2 == 0
            jal     s30, middle0        # the K-tiles 1 .. KT-2
          .endr
          .rept   KT >= 3 && j%2 == 1
            jal     s30, middle1
          .endr
          .rept   KT >= 2
            addi    s1, s1, 2*N*N
            addi    s2, s2, 2*N
            mxu.lw  0, s1, s21, 4 + j%2
            mxu.mma 0, s3, s2, s24, s25, s26, 6
          .endr
          # ---- the block's last strip: Y block rb back to HBM
          .rept   n == NT - 1
            sem.wait 6, NT
            li      s1, Y + rb*YBYTES
            li      s2, YB + (rb%2)*YBYTES
            dma.v2h s1, s2, s20, s28, s28, s28, 7 + rb%2
          .endr
          .set    j, j + 1
        .endr
        halt

# middle0/middle1: the K-tiles 1 .. KT-2 of a step whose strip is in slot
# 0/1 (the slot's semaphore is an operand, so one routine per slot).  s1,
# s2: the tile and X addresses of K-tile 0; returns to s30 with those of
# K-tile KT-2.
        .set    slot, 0
        .rept   2
          .rept   slot == 0
middle0:  li      s8, KT - 2
          .endr
          .rept   slot == 1
middle1:  li      s8, KT - 2
          .endr
          .rept   slot == 0
mloop0:
          .endr
          .rept   slot == 1
mloop1:
          .endr
          addi    s1, s1, 2*N*N
          addi    s2, s2, 2*N
          mxu.lw  0, s1, s21, 4 + slot
          mxu.mma 0, s3, s2, s24, s25, s26, 31
          addi    s8, s8, -1
          .rept   slot == 0
          bne     s8, zero, mloop0
          .endr
          .rept   slot == 1
          bne     s8, zero, mloop1
          .endr
          jr      s30
          .set    slot, slot + 1
        .endr

# ---- check: tpu-sim compares Y with this (the grader uses its own check) ----
        .expect matmul Y, X, W, B, D, F
