# tpu-as: --config tiny
#
# race_c.s - a seeded race of kind (c), read before the result
# (tests/races.sh): Y is copied back to HBM right after the mxu.mm that
# makes it is issued, without waiting for the stream's semaphore.  The
# dma.v2h of the last rows of Y reads them before the MXU has written them
# (a copy of the whole Y would start 20 cycles later, HBM's latency, and
# then read at half the MXU's pace behind it: no race there, by luck).

        .equ    N, MXU_N
        .equ    M, 64
        .hbm    0
YH:     .zero   4*M*N

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
        li      s7, YH
        li      s8, Y + 4*N*(M-4)               # the last four rows of Y
        li      s9, 1
        li      s10, 4*4*N
        dma.v2h s7, s8, s9, s10, zero, zero, 2  # no sem.wait 1, 1 before it
        sem.wait 2, 1
        sem.wait 1, 1
        halt
