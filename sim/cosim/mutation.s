# mutation.s - the trigger of the mutation test (tests/cosim_mutation.sh,
# docs/cosim.md).  The mutant RTL (make cosim-mutant, TPU_MUTATION in
# rtl/mxu_mac.v) computes 1.5 x 3.0 wrongly in cell (3, 5) only.  Here
# weight W[3][5] = 3.0 and activation X[2][3] = 1.5 meet in that cell, in
# row 2 of the stream and in no other row, so lockstep must stop at the
# cycle mxu0 writes result row 2 (T24: s + 2 + 2N).  Every other product is
# 1 x 2 = 2, so the unmutated result row is 2N everywhere except Y[2][5].
# tpu-as: --config tiny   (needs MXU_N >= 6)
        .equ    N, MXU_N
        .vmem   0
W:      .set    r, 0
        .rept   N
        .set    c, 0
        .rept   N
        .bf16   (r == 3 && c == 5) ? 3 : 1
        .set    c, c + 1
        .endr
        .set    r, r + 1
        .endr
X:      .set    b, 0
        .rept   4
        .set    k, 0
        .rept   N
        .rept   b == 2 && k == 3
        .bf16   1.5
        .endr
        .rept   !(b == 2 && k == 3)
        .bf16   2
        .endr
        .set    k, k + 1
        .endr
        .set    b, b + 1
        .endr
        .align  64
Y:      .zero   4 * 4 * N

        .text
        li      s1, W
        li      s2, 2*N
        mxu.lw  0, s1, s2, 0
        li      s3, Y
        li      s4, X
        li      s5, 4
        li      s6, 4*N
        mxu.mm  0, s3, s4, s5, s2, s6, 1
        sem.wait 1, 1
        sem.wait 0, 1
        halt
