# tpu-as: --config tiny
#
# xlu_reduce.s - every instruction of the cross-lane unit (docs/isa.md,
# "Cross-lane unit"; timing.md section 5a) on one S x L register, each
# result stored and checked with `.expect copy` against a table the
# assembler computes from the same formula as isa.def's semantics:
#
#   X[s][l] = s*L + l - S*L/2          (integers: every sum is exact)
#   xlu.lsum/lmax   per sublane        xlu.ssum/smax   per lane
#   xlu.asum/amax   the whole register
#   xlu.srot 3, xlu.lrot 5, xlu.tr     the permutations
#
# and then a softmax-style use, row maxima subtracted on the VPU
# (vsub waits for the XLU's register, T35) and the row sums of the
# result taken again (the XLU waits for the VPU, T35).
#   tpu-as --config mid programs/xlu_reduce.s

        .equ    S, VPU_SUBLANES
        .equ    L, VPU_LANES
        .equ    H, S * L / 2
        .equ    VB, 4 * S * L                   # bytes of a vector register
        .equ    KS, 3                           # sublane rotate
        .equ    KL, 5                           # lane rotate
        .equ    B, S < L ? S : L                # transpose block
        .equ    NOUT, 11                        # results stored

        .vmem   0
X:
        .set    si, 0
        .rept   S
        .set    li, 0
        .rept   L
        .f32    si * L + li - H
        .set    li, li + 1
        .endr
        .set    si, si + 1
        .endr

# The reference results, in the order they are stored at Z.
R:
        .set    si, 0                            # lsum: sum_l (s L + l - H)
        .rept   S
        .rept   L
        .f32    si * L * L + L * (L - 1) / 2 - H * L
        .endr
        .set    si, si + 1
        .endr
        .set    si, 0                            # lmax
        .rept   S
        .rept   L
        .f32    si * L + L - 1 - H
        .endr
        .set    si, si + 1
        .endr
        .rept   S                               # ssum: sum_s (s L + l - H)
        .set    li, 0
        .rept   L
        .f32    L * S * (S - 1) / 2 + S * li - S * H
        .set    li, li + 1
        .endr
        .endr
        .rept   S                               # smax
        .set    li, 0
        .rept   L
        .f32    (S - 1) * L + li - H
        .set    li, li + 1
        .endr
        .endr
        .rept   S * L                           # asum
        .f32    (S * L) * (S * L - 1) / 2 - S * L * H
        .endr
        .rept   S * L                           # amax
        .f32    S * L - 1 - H
        .endr
        .set    si, 0                            # srot: vd[(s + KS) mod S] = va[s]
        .rept   S
        .set    li, 0
        .rept   L
        .f32    ((si - KS % S + S) % S) * L + li - H
        .set    li, li + 1
        .endr
        .set    si, si + 1
        .endr
        .set    si, 0                            # lrot: vd[s][(l + KL) mod L] = va[s][l]
        .rept   S
        .set    li, 0
        .rept   L
        .f32    si * L + (li - KL % L + L) % L - H
        .set    li, li + 1
        .endr
        .set    si, si + 1
        .endr
        .set    si, 0                            # tr
        .rept   S
        .set    li, 0
        .rept   L
        .set    bs, si - si % B
        .set    bl, li - li % B
        .set    ss, bs + li - bl
        .set    ll, bl + si - bs
        .f32    (ss < S && ll < L) ? ss * L + ll - H : si * L + li - H
        .set    li, li + 1
        .endr
        .set    si, si + 1
        .endr
        .set    si, 0                            # X minus its row maxima
        .rept   S
        .set    li, 0
        .rept   L
        .f32    li - (L - 1)
        .set    li, li + 1
        .endr
        .set    si, si + 1
        .endr
        .rept   S                               # their row sums
        .rept   L
        .f32    L * (L - 1) / 2 - L * (L - 1)
        .endr
        .endr

        .align  64
Z:      .zero   NOUT * VB
        .expect copy Z, R, NOUT * VB

        .text
        li      s1, X
        li      s2, Z
        vld     v0, s1, 0
        xlu.lsum v1, v0                         # waits for the vld to land (T35)
        xlu.lmax v2, v0
        xlu.ssum v3, v0
        xlu.smax v4, v0
        xlu.asum v5, v0
        xlu.amax v6, v0
        xlu.srot v7, v0, KS
        xlu.lrot v8, v0, KL
        xlu.tr  v9, v0
        vsub    v10, v0, v2                     # waits for the lmax (T35)
        xlu.lsum v11, v10                       # waits for the vsub (T35)
        vst     v1, s2, 0 * VB
        vst     v2, s2, 1 * VB
        vst     v3, s2, 2 * VB
        vst     v4, s2, 3 * VB
        vst     v5, s2, 4 * VB
        vst     v6, s2, 5 * VB
        vst     v7, s2, 6 * VB
        vst     v8, s2, 7 * VB
        vst     v9, s2, 8 * VB
        vst     v10, s2, 9 * VB
        vst     v11, s2, 10 * VB
        halt
