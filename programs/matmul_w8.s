# tpu-as: --config tiny
#
# matmul_w8.s - int8 weights, bf16 compute: W stays int8 in HBM (half the
# bytes of bf16) and is widened to bf16 on its way into VMEM by
# dma.h2v.i8 (exact: every int8 is a bf16); the MXUs run the bf16 matmul;
# a per-column scale factor turns the integer weights back into the real
# ones, applied by the VPU to the fp32 results (docs/numerics.md section 9):
#
#   Y[b][c] = (X[B,D] . bf16(Wq[D,F]))[b][c] * S[c]
#
#   X bf16 in HBM, Wq int8 in HBM (row-major D x F), S fp32 in HBM, Y fp32
#   in HBM.  Scaling the results, not the weights, is exact algebra
#   (X . (Wq diag(S)) = (X . Wq) diag(S)) and costs B*F multiplies instead
#   of D*F; the rounding is once per result, after the fp32 sum.
#
#   tpu-as --config mid -D B=24 -D D=48 -D F=64 programs/matmul_w8.s
# D must be a multiple of N = MXU_N, F of N * NUM_MXU; B*F a multiple of a
# vector register's S*L elements, and F a multiple of S*L or S*L of F (the
# scale pattern of a register of Y then repeats).
#
# The plan is plain, not pipelined (matmul.s and matmul_sweep.s -D MODE=2
# are the fast ones): everything into VMEM, every K-tile of every column
# group through the MXUs into Y, then the VPU scales Y a register at a time
# and one DMA writes it back.
        .equ    SL, VPU_SUBLANES * VPU_LANES      # fp32 elements in a vector register
        .equ    D, 2 * MXU_N            # inner dimension
        .equ    F, 2 * MXU_N * NUM_MXU  # columns of W and Y
        # rows of X and Y: 8, or more where 8 rows of Y fill less than a
        # vector register (a wide VPU, sim/rtl/wide.cfg)
        .equ    B, 8 * F >= SL ? 8 : SL / F

        .equ    N, MXU_N
        .equ    NM, NUM_MXU
        .equ    MAXDIM, 1 << 20
        .assert B >= 1 && B <= MAXDIM, "B must be 1 to %d, got %d", MAXDIM, B
        .assert D > 0 && D <= MAXDIM && D % N == 0, "D must be a multiple of MXU_N (%d), got %d", N, D
        .assert F > 0 && F <= MAXDIM && F % (N*NM) == 0, "F must be a multiple of MXU_N * NUM_MXU (%d), got %d", N*NM, F
        .assert (B*F) % SL == 0, "B*F (%d) must be a multiple of a vector register's %d elements", B*F, SL
        .assert F % SL == 0 || SL % F == 0, "F (%d) must be a multiple of %d or divide it", F, SL
        .equ    KT, D / N               # K-tiles
        .equ    GROUPS, F / (N*NM)      # groups of NM column tiles
        .equ    SVN, F > SL ? F : SL    # elements of the scale pattern in VMEM
        .equ    REP, SVN / F            # copies of S in it

# ---- VMEM layout ------------------------------------------------------------------
        .equ    XV, 0                           # X, bf16 B x D
        .equ    WV, (XV + 2*B*D + 63) / 64 * 64 # W widened: bf16 D x F
        .equ    YV, (WV + 2*D*F + 63) / 64 * 64 # Y, fp32 B x F
        .equ    SV, (YV + 4*B*F + 63) / 64 * 64 # S, REP times: SV[i] = S[i % F]
        .assert SV + 4*SVN <= VMEM_BYTES, "B, D and F need %d bytes of VMEM, the machine has %d", SV + 4*SVN, VMEM_BYTES

# ---- HBM: the operands and the result ------------------------------------------------
        .hbm    0
X:      .random bf16, B*D, 1            # row-major B x D
        .align  64
W:      .random i8, D*F, 2              # row-major D x F int8, every value
        .align  64
S:      .random f32, F, 3, 0.001, 0.02  # a scale factor per column
        .align  64
Y:      .zero   B*F*4                   # row-major B x F fp32

        .text
        li      s1, XV                  # ---- everything into VMEM
        li      s2, X
        li      s3, B
        li      s4, 2*D
        dma.h2v s1, s2, s3, s4, s4, s4, 0
        li      s1, WV                  # W: D rows of F int8 -> rows of 2F bytes of bf16
        li      s2, W
        li      s3, D
        li      s4, F
        li      s5, 2*F
        dma.h2v.i8 s1, s2, s3, s4, s4, s5, 0
        li      s2, S
        li      s3, 1
        li      s4, 4*F
        .set    i, 0
        .rept   REP
          li      s1, SV + i*4*F
          dma.h2v s1, s2, s3, s4, s4, s4, 0
          .set    i, i + 1
        .endr
        sem.wait 0, 2 + REP

        li      s20, B                  # ---- the matmul: group g, K-tile k, MXU m
        li      s21, 2*F                # row stride of W in VMEM
        li      s22, 2*D                # row stride of X
        li      s23, 4*F                # row stride of Y
        .set    g, 0
        .rept   GROUPS
          .set    k, 0
          .rept   KT
            .set    m, 0
            .rept   NM
              li      s1, WV + k*N*2*F + (g*NM + m)*2*N
              mxu.lw  m, s1, s21, 31
              li      s2, YV + (g*NM + m)*4*N
              li      s3, XV + k*2*N
              .rept   k == 0
                mxu.mm  m, s2, s3, s20, s22, s23, 31
              .endr
              .rept   k != 0
                mxu.mma m, s2, s3, s20, s22, s23, 31
              .endr
              .set    m, m + 1
            .endr
            .set    k, k + 1
          .endr
          .set    g, g + 1
        .endr
        sync    mxu                     # every result row is in VMEM (T24a, T26)

        .set    j, 0                    # ---- Y *= S, a vector register at a time
        .rept   B*F / SL
          li      s1, YV + j*SL*4
          li      s2, SV + (j*SL % SVN)*4
          vld     v1, s1, 0
          vld     v2, s2, 0
          vmul    v3, v1, v2
          vst     v3, s1, 0
          .set    j, j + 1
        .endr
        sync    vpu

        li      s1, Y                   # ---- Y back to HBM
        li      s2, YV
        li      s3, 1
        li      s4, 4*B*F
        dma.v2h s1, s2, s3, s4, s4, s4, 1
        halt

        .expect matmul_w8s Y, X, W, S, B, D, F
