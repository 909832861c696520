# int8.s - RTL directed test of int8 (docs/timing.md T18a, T26a; numerics.md
# section 9): int8 and bf16 streams back to back on one MXU, so that rows of
# both modes are in the array at once (the mode travels with each row);
# mxu.mma.i8 accumulating until int32 wraps; the int8 extremes (-128, 127)
# in activations and weights; a widening dma.h2v.i8 beside a plain dma.h2v
# (both engines in one cycle, VMEM bytes of both kinds), with strides, into
# rows that start at odd multiples of 2.
        .equ    N, MXU_N
        .equ    M, 10
        .hbm    0
HI8:    .random i8, 3*2*N, 31           # 3 rows of 2N int8
        .i8     -128, 127, -1, 0, 1, -127, 64, -64
        .align  64
HB:     .random bf16, 4*N, 32
        .align  64
        .vmem   0
XI:     .random i8, M*2*N, 41           # M rows of 2N int8
        .align  64
WI:     .random i8, N*2*N, 42           # a K-pair-interleaved tile
        .align  64
WB:     .random bf16, N*N, 43
        .align  64
XB:     .random bf16, M*N, 44
        .align  64
EXX:    .rept   N                       # the extremes: every product is +-2^14
        .i8     -128, -128
        .endr
        .align  64
EXW:    .rept   N*N
        .i8     -128, -128
        .endr
        .align  64
YI:     .zero   M*N*4
YB:     .zero   M*N*4
YE:     .rept   N                       # near the top of int32: the sums wrap
        .i32    0x7ff00000
        .endr
        .align  64
DW:     .zero   4*4*N + 64              # dma.h2v.i8 destination
DP:     .zero   4*2*N + 64              # dma.h2v destination

        .text
        li      s1, WI
        li      s2, 2*N
        li      s3, YI
        li      s4, XI
        li      s5, M
        li      s6, 4*N
        li      s7, WB
        li      s8, YB
        li      s9, XB
        mxu.lw.i8  0, s1, s2, 1
        mxu.mm.i8  0, s3, s4, s5, s2, s6, 2     # YI = XI . WI (int8)
        mxu.lw     0, s7, s2, 1                 # bf16 weights while int8 rows stream
        mxu.mm     0, s8, s9, s5, s2, s6, 2     # YB = XB . WB, right behind them
        mxu.lw.i8  0, s1, s2, 1
        mxu.mma.i8 0, s3, s4, s5, s2, s6, 2     # YI += XI . WI, behind the bf16 rows
        sem.wait 1, 3
        sem.wait 2, 3
# extremes: 2N products of 2^14 a row (2^18 on tiny) per pass, added by 40
# passes of mxu.mma.i8 to a row that starts near 2^31: it wraps
        li      s1, EXW
        li      s3, YE
        li      s4, EXX
        li      s5, 1
        mxu.lw.i8  0, s1, s2, 1
        li      s10, 40
loop:   mxu.mma.i8 0, s3, s4, s5, s2, s6, 2
        addi    s10, s10, -1
        bne     s10, zero, loop
        sem.wait 1, 1
        sem.wait 2, 40
# the widening DMA beside a plain one: 3 rows of 2N int8 -> rows of 4N
# bytes at stride 4N + 2 (2-aligned), and 4 rows of 2N bytes
        li      s11, DW + 2
        li      s12, HI8
        li      s13, 3
        li      s14, 2*N
        li      s15, 4*N + 2
        li      s16, DP
        li      s17, HB
        li      s18, 4
        li      s19, 2*N
        dma.h2v.i8 s11, s12, s13, s14, s14, s15, 5
        dma.h2v    s16, s17, s18, s19, s19, s19, 6
        li      s12, HI8 + 3*2*N
        li      s20, 1
        li      s21, 8
        li      s11, DW + 3*(4*N + 2) + 2
        dma.h2v.i8 s11, s12, s20, s21, s21, s21, 5   # the extremes, one row of 8
        sem.wait 5, 2
        sem.wait 6, 1
        halt
