# tpu-as: --config tiny
#
# race_b.s - a seeded race of kind (b), overwrite before read
# (tests/races.sh): the next batch of X is copied in over the last rows of
# X while the mxu.mm still streams them (it should wait for the stream's
# semaphore first).  The dma.h2v writes rows M-2 and M-1 before the MXU
# reads them.

        .equ    N, MXU_N
        .equ    M, 64
        .hbm    0
XH:     .random bf16, 2*N, 3

        .vmem   0
X:      .random bf16, M*N, 1
W:      .random bf16, N*N, 2
Y:      .zero   4*M*N

        .text
        li      s1, W
        li      s2, 2*N
        mxu.lw  0, s1, s2, 0
        li      s3, Y
        li      s4, X
        li      s5, M
        li      s6, 4*N
        mxu.mm  0, s3, s4, s5, s2, s6, 1
        li      s7, X + 2*N*(M-2)               # the last two rows of X
        li      s8, XH
        li      s9, 1
        li      s10, 4*N
        dma.h2v s7, s8, s9, s10, zero, zero, 2  # no sem.wait 1, 1 before it
        sem.wait 2, 1
        sem.wait 1, 1
        halt
