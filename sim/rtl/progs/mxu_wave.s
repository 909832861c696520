# mxu_wave.s - RTL directed test of the MXU weight path (load waves,
# docs/timing.md T19-T21, T25): each stream right after its mxu.lw (it
# starts the next cycle, the swap follows the load's wavefront one cycle
# behind), short streams between loads (the next load's wavefront follows
# the swap), overlapping loads (with mxu_wloads = W >= 2 the second load
# starts the cycle after the first; a third waits for a free slot; a load
# that no stream uses is replaced), a stream of 0 rows between a load and
# its stream, and lw, mma, lw, mma ... with N/2 rows each, which keeps the
# array busy when W >= 2.  Part B runs on the last MXU (MXU 0 when there is
# only one) beside part A on MXU 0.
        .equ    N, MXU_N
        .equ    H, N/2
        .equ    B, NUM_MXU-1
        .vmem   0
X:      .random bf16, N*N, 31
        .align  64
W0:     .random bf16, N*N, 32
        .align  64
W1:     .random bf16, N*N, 33, -2, 2
        .align  64
W2:     .random bf16, N*N, 34
        .align  64
W3:     .random bf16, N*N, 35, -8, 8
        .align  64
YA:     .zero   N*4
YB:     .zero   N*4
YC:     .zero   2*N*4
YD:     .zero   N*N*4
YE:     .zero   N*N*4
YF:     .zero   N*4
YG:     .zero   2*N*4
YH:     .zero   H*N*4

        .text
        li      s1, W0
        li      s2, W1
        li      s3, W2
        li      s4, W3
        li      s5, 2*N                 # bf16 row stride
        li      s6, 4*N                 # fp32 row stride
        li      s7, X
        li      s8, 1
        li      s9, N
        li      s10, 2
        li      s11, H
        li      s12, YA
        li      s13, YB
        li      s14, YC
        li      s15, YD
        li      s16, YE
        li      s17, YF
        li      s18, YG
        li      s19, YH
# part A, MXU 0: every stream right after its load, 1, 1, 2 and N rows
        mxu.lw  0, s1, s5, 1
        mxu.mm  0, s12, s7, s8, s5, s6, 2       # YA = X[0] . W0
        mxu.lw  0, s2, s5, 1
        mxu.mm  0, s13, s7, s8, s5, s6, 2       # YB = X[0] . W1
        mxu.lw  0, s3, s5, 1
        mxu.mm  0, s14, s7, s10, s5, s6, 2      # YC = X[0..1] . W2
        mxu.lw  0, s4, s5, 1
        mxu.mm  0, s15, s7, s9, s5, s6, 2       # YD = X . W3
# part B, the last MXU: overlapping loads
        mxu.lw  B, s1, s5, 3                    # replaced by the next ...
        mxu.lw  B, s2, s5, 3                    # ... which starts right after (W >= 2)
        mxu.mm  B, s16, s7, s9, s5, s6, 4       # YE = X . W1
        mxu.lw  B, s3, s5, 3
        mxu.lw  B, s4, s5, 3
        mxu.lw  B, s1, s5, 3                    # a third load waits for a slot
        mxu.mm  B, s17, s7, s8, s5, s6, 4       # YF = X[0] . W0
        mxu.lw  B, s4, s5, 3
        mxu.mm  B, s18, s7, zero, s5, s6, 5     # 0 rows: the swap stays pending
        mxu.mm  B, s18, s7, s10, s5, s6, 4      # YG = X[0..1] . W3
# part A again: lw, mma, lw, mma ... with N/2 rows each into YH
        mxu.lw  0, s1, s5, 1
        mxu.mm  0, s19, s7, s11, s5, s6, 2
        mxu.lw  0, s2, s5, 1
        mxu.mma 0, s19, s7, s11, s5, s6, 2
        mxu.lw  0, s3, s5, 1
        mxu.mma 0, s19, s7, s11, s5, s6, 2
        mxu.lw  0, s4, s5, 1
        mxu.mma 0, s19, s7, s11, s5, s6, 2
        sem.wait 1, 8
        sem.wait 2, 8
        sem.wait 3, 6
        sem.wait 4, 3
        sem.wait 5, 1
        sync    mxu
        halt
        .expect matmul YA, X, W0, 1, N, N
        .expect matmul YB, X, W1, 1, N, N
        .expect matmul YC, X, W2, 2, N, N
        .expect matmul YD, X, W3, N, N, N
        .expect matmul YE, X, W1, N, N, N
        .expect matmul YF, X, W0, 1, N, N
        .expect matmul YG, X, W3, 2, N, N
