# tpu-as: --config tiny
#
# matmul.s - a tiled bf16 matrix multiply streamed from HBM.
#
#   Y[B,F] = X[B,D] . W[D,F]      X, W bf16 in HBM; Y fp32 in HBM
#
# The array is N x N (N = MXU_N).  W is cut into N x N tiles: K-tile k
# covers rows k*N .. k*N+N-1 of W (and columns k*N .. of X), column tile j
# covers columns j*N .. j*N+N-1.  Every MXU owns one column tile at a time,
# so NUM_MXU column tiles form a "group" that the MXUs work on together:
#
#   for each group g:                           (F / (N*NUM_MXU) groups, at run time)
#     for each K-tile k:                        (D / N K-tiles)
#       DMA the X K-tile  X[0..B, k*N..k*N+N)  and, for every MXU m, its
#           weight tile  W[k*N.., (g*NUM_MXU+m)*N..]  from HBM into VMEM
#       every MXU m: mxu.lw its tile, then stream the B rows of the X tile:
#           mxu.mm  for k = 0 (writes Y_m), mxu.mma for k > 0 (adds to Y_m)
#     DMA each Y_m (B x N fp32) back to its columns of Y in HBM
#
# Double buffering: VMEM holds two input buffers.  While the MXUs work on
# K-tile k from buffer k%2, the DMA engines already fill buffer (k+1)%2
# with K-tile k+1.  Semaphore b (0 or 1) counts the DMAs into buffer b;
# semaphore 2 counts the write-backs.
#
# The group loop is a run-time loop (a counter register and `bne`).  The
# K-tile loop inside it is unrolled by the assembler: `.rept` repeats lines,
# `.set` moves the loop variables, and `.rept COND` (COND is 1 or 0) is an
# "if", so each K-tile gets its own buffer, semaphore and mm/mma.
#
# Sizes: B, D, F can be set from the command line for a sweep, e.g.
#   tpu-as --config mid -D B=64 -D D=64 -D F=64 programs/matmul.s
# D must be a multiple of MXU_N and F a multiple of MXU_N * NUM_MXU.
# The defaults (for --config tiny: B = D = F = 16) follow the machine.

        .equ    B, 16                   # rows of X and Y (the batch)
        .equ    D, 2 * MXU_N            # inner dimension: two K-tiles
        .equ    F, 2 * MXU_N * NUM_MXU  # columns of W and Y: two groups

        .equ    N, MXU_N
        .equ    KT, D / N               # K-tiles
        .equ    GROUPS, F / (N * NUM_MXU)

# ---- HBM: the operands and the result -----------------------------------------
        .hbm    0
X:      .random bf16, B*D, 1            # row-major B x D, uniform in [-1, 1)
        .align  64
W:      .random bf16, D*F, 2            # row-major D x F
        .align  64
Y:      .zero   B*F*4                   # row-major B x F fp32

# ---- VMEM layout (addresses only: nothing is placed there before the run) ----
        .equ    XT_BYTES, B*N*2         # one X K-tile: B rows of N bf16
        .equ    WT_BYTES, N*N*2         # one weight tile: N rows of N bf16
        .equ    BUF_BYTES, XT_BYTES + NUM_MXU*WT_BYTES
        .equ    BUF, 0                  # buffer b starts at BUF + b*BUF_BYTES:
                                        #   the X tile, then one weight tile per MXU
        .equ    YT, 2*BUF_BYTES         # Y_m (B x N fp32) at YT + m*YT_BYTES
        .equ    YT_BYTES, B*N*4

# ---- code ------------------------------------------------------------------------
        .text
        li      s20, B                  # rows of every stream and of X/Y tiles
        li      s21, 2*N                # bytes in a row of a bf16 tile
        li      s22, 4*N                # bytes in a row of an fp32 tile
        li      s23, 2*D                # bytes between rows of X in HBM
        li      s24, 2*F                # bytes between rows of W in HBM
        li      s25, 4*F                # bytes between rows of Y in HBM
        li      s26, N                  # rows of a weight tile
        li      s27, W                  # W[0, g*NUM_MXU*N]: the group's first weight column
        li      s28, Y                  # Y[0, g*NUM_MXU*N]: where its results go
        li      s29, GROUPS             # groups left to do
        beq     s29, zero, done         # F < N*NUM_MXU: nothing to do (and .expect fails)

group:                                  # ---- one group of NUM_MXU column tiles
        # Step t issues the DMAs of K-tile t (if t < KT) and then computes
        # K-tile t-1 (if t >= 1): the copy of one tile overlaps the work on
        # the one before it.
        .set    t, 0
        .rept   KT + 1

          .rept t < KT                  # ---- fetch K-tile t into buffer t%2
          # The buffer last held K-tile t-2: wait until the MXUs are done
          # with it before overwriting it.
          sync    mxu
          li      s1, BUF + (t%2)*BUF_BYTES
          li      s2, X + t*N*2         # X[0, t*N]
          dma.h2v s1, s2, s20, s21, s23, s21, t%2
          .set    m, 0
          .rept   NUM_MXU
            li      s1, BUF + (t%2)*BUF_BYTES + XT_BYTES + m*WT_BYTES
            addi    s2, s27, t*N*F*2 + m*N*2    # W[t*N, (g*NUM_MXU+m)*N]
            dma.h2v s1, s2, s26, s21, s24, s21, t%2
            .set    m, m + 1
          .endr
          .endr

          .rept t >= 1                  # ---- compute K-tile k = t-1 from buffer k%2
          .set    k, t - 1
          sem.wait k%2, 1 + NUM_MXU     # its X tile and NUM_MXU weight tiles have landed
          .set    m, 0
          .rept   NUM_MXU
            li      s3, BUF + (k%2)*BUF_BYTES + XT_BYTES + m*WT_BYTES
            mxu.lw  m, s3, s21, 31      # weights of MXU m for this K-tile
            li      s4, YT + m*YT_BYTES
            li      s5, BUF + (k%2)*BUF_BYTES
            .rept k == 0
            mxu.mm  m, s4, s5, s20, s21, s22, 31    # first K-tile: Y_m = X_k . W_km
            .endr
            .rept k != 0
            mxu.mma m, s4, s5, s20, s21, s22, 31    # later ones:   Y_m += X_k . W_km
            .endr
            .set    m, m + 1
          .endr
          .endr

        .set    t, t + 1
        .endr

        # ---- write the group's NUM_MXU result tiles back to HBM
        sync    mxu                     # every stream of this group is finished
        .set    m, 0
        .rept   NUM_MXU
          addi    s1, s28, m*N*4        # Y[0, (g*NUM_MXU+m)*N]
          li      s2, YT + m*YT_BYTES
          dma.v2h s1, s2, s20, s22, s22, s25, 2
          .set    m, m + 1
        .endr
        sem.wait 2, NUM_MXU             # Y_m is free again for the next group

        addi    s27, s27, NUM_MXU*N*2   # next group: NUM_MXU*N columns to the right
        addi    s28, s28, NUM_MXU*N*4
        addi    s29, s29, -1
        bne     s29, zero, group

done:   halt

# ---- check --------------------------------------------------------------------------
        .expect matmul Y, X, W, B, D, F
