# tpu-as: --config tiny
#
# race_a.s - a seeded race of kind (a), read before the copy-in
# (tests/races.sh, docs/tpu-sim.md "Races"): X is copied from HBM and
# streamed through the MXU without waiting for the copy.  The mxu.mm reads
# every row of X before the dma.h2v has written it.

        .equ    N, MXU_N
        .equ    M, 4
        .hbm    0
XH:     .random bf16, M*N, 1
WH:     .random bf16, N*N, 2

        .vmem   0
X:      .zero   2*M*N
W:      .zero   2*N*N
Y:      .zero   4*M*N

        .text
        li      s1, W
        li      s2, WH
        li      s3, 1
        li      s4, 2*N*N
        dma.h2v s1, s2, s3, s4, zero, zero, 0   # W, then wait for it: right
        sem.wait 0, 1
        li      s5, 2*N
        mxu.lw  0, s1, s5, 1
        li      s6, X
        li      s7, XH
        li      s8, 2*M*N
        dma.h2v s6, s7, s3, s8, zero, zero, 2   # X ...
        li      s9, Y                           # ... but no sem.wait 2, 1 here
        li      s10, M
        li      s11, 4*N
        mxu.mm  0, s9, s6, s10, s5, s11, 3
        sem.wait 3, 1
        sem.wait 2, 1
        halt
