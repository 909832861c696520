# tpu-as: --config tiny
#
# softmax.s - row-wise softmax with the maximum subtracted, on the VPU:
#
#   Z[i][c] = e^(X[i][c] - m_i) / sum_c' e^(X[i][c'] - m_i),  m_i = max_c X[i][c]
#
# for N rows of C values.  The VPU has no cross-lane operations, so a row
# lives in one lane: column c of all rows is a run of N fp32 at X + 4 N c
# (the layout `.expect softmax` reads), and a vector register holds one
# column of E = VPU_SUBLANES x VPU_LANES rows.  For each block of E rows:
#
#   vld    C columns                    v0 .. v(C-1)
#   vmax   the running maximum          m = max(x_0, x_1), max(m, x_2), ...
#   vsub   x_c - m
#   vexp   e_c                          (numerics.md section 11; T27a: 12 cycles)
#   vadd   the running sum              s = e_0 + e_1, s + e_2, ...
#   vrcp   1 / s
#   vmul   e_c * (1 / s), vst
#
# The maximum makes every exponent <= 0, so e^x cannot overflow and the sum
# is at least 1.  The checker does the same operations in the same order
# (numerics.md 11.7), so the result is bit-exact.
#   tpu-as --config mid -D NB=3 programs/softmax.s

        .equ    E, VPU_SUBLANES * VPU_LANES     # rows in a block (one per lane)
        .equ    C, 8                            # columns (values in a row)
        .equ    NB, 2                           # blocks of E rows
        .equ    N, NB * E                       # rows
        .assert NB >= 1 && NB <= 64, "NB (blocks of rows) must be 1 to 64, got %d", NB
        .assert 2 * N * C * 4 + 64 <= VMEM_BYTES, "X and Z need %d bytes of VMEM", 2 * N * C * 4

        .vmem   0
X:      .random f32, N * C, 7, -30.0, 30.0
        .align  64
Z:      .zero   N * C * 4
        .expect softmax Z, X, N, C

        .text
        li      s1, X                           # this block's rows of X
        li      s2, Z
        li      s3, NB
loop:
        vld     v0, s1, 0 * N * 4
        vld     v1, s1, 1 * N * 4
        vld     v2, s1, 2 * N * 4
        vld     v3, s1, 3 * N * 4
        vld     v4, s1, 4 * N * 4
        vld     v5, s1, 5 * N * 4
        vld     v6, s1, 6 * N * 4
        vld     v7, s1, 7 * N * 4
        vmax    v8, v0, v1                      # m, left to right
        vmax    v8, v8, v2
        vmax    v8, v8, v3
        vmax    v8, v8, v4
        vmax    v8, v8, v5
        vmax    v8, v8, v6
        vmax    v8, v8, v7
        vsub    v0, v0, v8
        vsub    v1, v1, v8
        vsub    v2, v2, v8
        vsub    v3, v3, v8
        vsub    v4, v4, v8
        vsub    v5, v5, v8
        vsub    v6, v6, v8
        vsub    v7, v7, v8
        vexp    v0, v0                          # eight in flight, one a cycle
        vexp    v1, v1
        vexp    v2, v2
        vexp    v3, v3
        vexp    v4, v4
        vexp    v5, v5
        vexp    v6, v6
        vexp    v7, v7
        vadd    v9, v0, v1                      # s, left to right
        vadd    v9, v9, v2
        vadd    v9, v9, v3
        vadd    v9, v9, v4
        vadd    v9, v9, v5
        vadd    v9, v9, v6
        vadd    v9, v9, v7
        vrcp    v9, v9
        vmul    v0, v0, v9
        vmul    v1, v1, v9
        vmul    v2, v2, v9
        vmul    v3, v3, v9
        vmul    v4, v4, v9
        vmul    v5, v5, v9
        vmul    v6, v6, v9
        vmul    v7, v7, v9
        vst     v0, s2, 0 * N * 4
        vst     v1, s2, 1 * N * 4
        vst     v2, s2, 2 * N * 4
        vst     v3, s2, 3 * N * 4
        vst     v4, s2, 4 * N * 4
        vst     v5, s2, 5 * N * 4
        vst     v6, s2, 6 * N * 4
        vst     v7, s2, 7 * N * 4
        addi    s1, s1, E * 4
        addi    s2, s2, E * 4
        addi    s3, s3, -1
        bne     s3, zero, loop
        sync    vpu
        halt
