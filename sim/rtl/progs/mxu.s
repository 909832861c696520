# mxu.s - RTL directed test of the MXU (T19-T26): back-to-back weight
# loads and streams (swap on row 0, no bubble), a load that no stream uses
# (replaced), streams of 0 rows (swap stays pending, semaphore at once),
# mxu.mma over K-tiles, mxu.mma with dstride 0, negative strides, and
# special values (NaN, infinities, signed zeros, subnormals, ties) in the
# activations and weights.
        .equ    N, MXU_N
        .equ    M, 12
        .vmem   0
X:      .random bf16, M*N, 21
        .align  64
W0:     .random bf16, N*N, 22
        .align  64
W1:     .random bf16, N*N, 23, -4, 4
        .align  64
SPX:    .rept   N
        .bf16   nan, inf, -inf, -0.0, 0.0, bits(0x0001), bits(0x8050), 1.0078125
        .endr
        .align  64
SPW:    .rept   N
        .bf16   1.0, -1.0, 0.5, bits(0x0003), 3.0e38, -3.0e38, 1.0e-38, 2.0
        .endr
        .align  64
Y0:     .zero   M*N*4
Y1:     .zero   M*N*4
Y2:     .zero   M*N*4
Y3:     .zero   N*N*4
Y4:     .zero   N*4

        .text
        li      s1, W0
        li      s2, 2*N
        li      s3, Y0
        li      s4, X
        li      s5, M
        li      s6, 4*N
        li      s7, W1
        li      s8, Y1
        li      s9, Y2
        mxu.mm  0, s3, s4, s5, s2, s6, 9        # zero weights: all +0
        mxu.lw  0, s1, s2, 1
        mxu.mm  0, s3, s4, s5, s2, s6, 2        # Y0 = X . W0, waits N after the lw
        mxu.lw  0, s7, s2, 1                    # next tile while the stream runs
        mxu.mm  0, s8, s4, s5, s2, s6, 2        # Y1 = X . W1, no bubble
        mxu.mma 0, s8, s4, s5, s2, s6, 2        # Y1 += X . W1 (same weights)
        mxu.lw  0, s1, s2, 1                    # loaded, never used ...
        mxu.lw  0, s7, s2, 1                    # ... replaced
        mxu.mm  0, s9, s4, zero, s2, s6, 3      # 0 rows: sem 3 at once, swap pending
        mxu.mm  0, s9, s4, s5, s2, s6, 2        # uses W1
        sem.wait 1, 4
        sem.wait 3, 1
        sem.wait 2, 4
# special values: rows of SPX against SPW, then the same with a negative
# source stride walking up from the last row
        li      s1, SPW
        li      s3, Y3
        li      s4, SPX
        li      s5, N
        mxu.lw  0, s1, s2, 4
        mxu.mm  0, s3, s4, s5, s2, s6, 4
        li      s10, -2*N
        li      s11, SPX + (N-1)*2*N
        mxu.mma 0, s3, s11, s5, s10, s6, 4
# mxu.mma with dstride 0: every row lands on Y4 (T24: only the last is kept)
        li      s12, Y4
        mxu.mma 0, s12, s4, s5, s2, zero, 4
        li      s13, -2*N                       # weight rows walking down
        li      s14, W1 + (N-1)*2*N
        mxu.lw  0, s14, s13, 5
        mxu.mma 0, s12, s4, s5, s2, zero, 4
        sync    mxu0
        sem.wait 4, 5
        sem.wait 5, 1
        halt
