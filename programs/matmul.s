# tpu-as: --config tiny
#
# matmul.s - a tiled bf16 matrix multiply streamed from HBM, fast enough to
# reach the roofline on every preset.
#
#   Y[B,F] = X[B,D] . W[D,F]      X, W bf16 in HBM; Y fp32 in HBM
#
# Sizes come from the command line for a sweep (defaults follow the machine):
#   tpu-as --config v5e -D B=1024 -D D=4096 -D F=4096 programs/matmul.s
# D must be a multiple of N = MXU_N, F a multiple of N * NUM_MXU.
#
# The plan
# --------
# W is cut into "blocks": block (g, k) is rows k*N .. k*N+N-1 of W and the
# NUM_MXU*N columns of group g.  Column tile m of the block goes to MXU m, so
# the MXUs work side by side on NUM_MXU column tiles of Y.  The steps are
#
#   for g < GROUPS, for k < KT:     step j = g*KT + k
#     every MXU m: mxu.lw  its N x N tile of block (g, k)
#                  mxu.mm  (k = 0) or mxu.mma (k > 0): the B rows of X's
#                          K-tile k through the array, into Y_m
#
# - X is loaded into VMEM once, during group 0, in chunks of XC K-tiles
#   (at least 128 KiB a DMA when X is that big: every DMA holds an engine
#   for the whole HBM latency, so small copies waste engines), and stays:
#   every group reads it again from VMEM, not from HBM.
# - Blocks of W stream through a ring of R slots in VMEM.  The DMA for step
#   j + P (P = R - 1) is issued while step j computes, so P DMAs are in
#   flight: enough to hide the HBM latency (v5e: 500 cycles) behind the
#   transfers of the blocks before.
# - Y has two sets of NUM_MXU result tiles: group g accumulates into set
#   g%2 while the DMA engines write group g-1's set back to HBM.  In a set,
#   row b of every MXU's tile lie side by side (MXU m writes its rows at
#   stride NUM_MXU*4N), so one 2-D DMA writes the whole set back.
#
# Every hand-over is a semaphore, so nothing ever waits for a unit to drain:
#   sem 0..R-1     block in slot r has landed          (dma.h2v)
#   sem R..2R-1    slot r has been read by every MXU   (mxu.lw, T20a)
#   sem 2R         a chunk of X has landed             (dma.h2v)
#   sem 2R+1+s     set s has all its result rows       (last mxu.mma, T24a)
#   sem 2R+3+s     set s has been written back         (dma.v2h)
#   sem 31         counts everything nobody waits for

        .equ    B, 16                   # rows of X and Y (the batch)
        .equ    D, 2 * MXU_N            # inner dimension
        .equ    F, 2 * MXU_N * NUM_MXU  # columns of W and Y
        .equ    R, 6                    # slots in the ring of W blocks

# The sizes are checked before anything uses them (-D B=0 stops here, not
# at a division by zero further down).  MAXDIM keeps the products below in
# 64 bits.
        .equ    MAXDIM, 1 << 24
        .equ    NF, MXU_N * NUM_MXU     # F comes in groups of NF columns
        .assert B >= 1 && B <= MAXDIM, "B must be 1 to %d (rows of X), got %d", MAXDIM, B
        .assert D > 0 && D <= MAXDIM && D % MXU_N == 0, "D must be a multiple of MXU_N (%d) from %d to %d, got %d", MXU_N, MXU_N, MAXDIM, D
        .assert F > 0 && F <= MAXDIM && F % NF == 0, "F must be a multiple of MXU_N * NUM_MXU (%d) from %d to %d, got %d", NF, NF, MAXDIM, F
        .assert R >= 2 && R <= 13, "R (slots in the W ring) must be 2 to 13, got %d", R

        .equ    N, MXU_N
        .equ    NM, NUM_MXU
        .equ    KT, D / N               # K-tiles
        .equ    GROUPS, F / (N * NM)    # groups of NM column tiles
        .equ    STEPS, GROUPS * KT
        .equ    P, R - 1                # steps of look-ahead
        .equ    XC0, 131072 / (B*2*N)   # K-tiles of X in 128 KiB
        .equ    XC, XC0 < 1 ? 1 : (XC0 > KT ? KT : XC0)   # K-tiles per X chunk

        .equ    SEM_X, 2*R
        .equ    SEM_YDONE, 2*R + 1
        .equ    SEM_YWB, 2*R + 3
        .equ    SEM_NONE, 31

# ---- VMEM layout (addresses only: nothing is placed there before the run) ----------
        .equ    XV, 0                   # X, row-major as in HBM
        .equ    SLOT_ROW, 2*N*NM        # bytes in a row of a W block
        .equ    SLOT_BYTES, N*SLOT_ROW
        .equ    SLOTS, (XV + 2*B*D + 63) / 64 * 64
        .equ    YROW, 4*N*NM            # a row of a set: row b of every Y_m
        .equ    YSET_BYTES, B*YROW
        .equ    YSET, SLOTS + R*SLOT_BYTES   # set s at YSET + s*YSET_BYTES, Y_m at + m*4N
        .equ    VMEM_NEED, YSET + 2*YSET_BYTES
        .assert VMEM_NEED <= VMEM_BYTES, "B, D and F need %d bytes of VMEM (X, the W ring and two sets of Y tiles), the machine has %d", VMEM_NEED, VMEM_BYTES
        .equ    HBM_NEED, ((2*B*D + 63) / 64 * 64 + 2*D*F + 63) / 64 * 64 + 4*B*F
        .assert HBM_NEED <= HBM_BYTES, "B, D and F need %d bytes of HBM (X, W and Y), the machine has %d", HBM_NEED, HBM_BYTES
        .assert HBM_NEED < 1 << 31 && VMEM_NEED < 1 << 31, "B, D and F need addresses beyond 2 GiB, which li cannot load"

# ---- HBM: the operands and the result ---------------------------------------------
        .hbm    0
X:      .random bf16, B*D, 1            # row-major B x D, uniform in [-1, 1)
        .align  64
W:      .random bf16, D*F, 2            # row-major D x F
        .align  64
Y:      .zero   B*F*4                   # row-major B x F fp32

# ---- code -----------------------------------------------------------------------------
        .text
        li      s20, B                  # rows of every stream
        li      s21, SLOT_ROW           # row stride of a W block (and its DMA row size)
        li      s22, 2*D                # row stride of X, in HBM and in VMEM
        li      s23, YROW               # row stride of a set of result tiles
        li      s24, 2*F                # row stride of W in HBM
        li      s25, 4*F                # row stride of Y in HBM
        li      s26, N                  # rows of a W block

# One loop does it all: iteration t computes step j = t - P (when there is
# one), writes a finished group back, and then fetches step t's W block.
# The first P iterations only fetch (the prologue); the last one only writes
# the last group back.
        .equ    WB_STEP, KT > 1 ? 1 : 0 # in which K-step of group g to write g-1 back
        .set    t, 0
        .rept   STEPS + P + 1
          .set    j, t - P
          .set    g, j / KT
          .set    k, j % KT

          .rept   j >= 0 && j < STEPS   # ---- compute step j = (g, k)
            .rept   g == 0 && k % XC == 0
              sem.wait SEM_X, 1         # X's K-tiles k .. k+XC-1 are in VMEM
            .endr
            sem.wait j%R, 1             # block (g, k) is in its slot
            .rept   k == 0 && g >= 2
              sem.wait SEM_YWB + g%2, 1 # set g%2 is back in HBM: reuse it
            .endr
            .set    m, 0
            .rept   NM                  # every MXU m
              li      s1, SLOTS + (j%R)*SLOT_BYTES + m*2*N
              mxu.lw  m, s1, s21, R + j%R         # its tile of the block
              li      s2, YSET + (g%2)*YSET_BYTES + m*4*N
              li      s3, XV + k*2*N              # X[0, k*N]
              .rept   k == 0
                mxu.mm  m, s2, s3, s20, s22, s23, (k == KT-1) ? SEM_YDONE + g%2 : SEM_NONE
              .endr
              .rept   k != 0
                mxu.mma m, s2, s3, s20, s22, s23, (k == KT-1) ? SEM_YDONE + g%2 : SEM_NONE
              .endr
              .set    m, m + 1
            .endr
          .endr

          # ---- write group wb back: group g-1 during step (g, WB_STEP), the
          # last group in the last iteration
          .set    wb, j == STEPS ? GROUPS - 1 : (j < STEPS && g >= 1 && k == WB_STEP ? g - 1 : -1)
          .rept   wb >= 0
            sem.wait SEM_YDONE + wb%2, NM
            li      s1, Y + wb*NM*N*4
            li      s2, YSET + (wb%2)*YSET_BYTES
            dma.v2h s1, s2, s20, s23, s23, s25, SEM_YWB + wb%2
          .endr

          .set    q, t
          .rept   q < STEPS             # ---- fetch step q into the slot step q-R used
            .rept   q >= R
              sem.wait R + q%R, NM      # every MXU has read that slot
            .endr
            li      s1, SLOTS + (q%R)*SLOT_BYTES
            li      s2, W + (q%KT)*N*2*F + (q/KT)*NM*N*2
            dma.h2v s1, s2, s26, s21, s24, s21, q%R
            .rept   q < KT && q % XC == 0   # and X's K-tiles q .. q+XC-1
              li      s1, XV + q*2*N
              li      s2, X + q*2*N
              li      s3, ((q + XC > KT ? KT : q + XC) - q) * 2*N
              dma.h2v s1, s2, s20, s3, s22, s22, SEM_X
            .endr
          .endr
          .set    t, t + 1
        .endr
        halt                            # waits for the DMA engines to finish

# ---- check ------------------------------------------------------------------------------
        .expect matmul Y, X, W, B, D, F
