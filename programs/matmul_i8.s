# tpu-as: --config tiny
#
# matmul_i8.s - the tiled matmul of matmul.s in int8: int8 x int8 products
# summed in int32 (docs/numerics.md section 9), at twice the bf16 MAC rate.
#
#   Y[B,F] = X[B,D] . W[D,F]      X, W int8 in HBM; Y int32 in HBM (mod 2^32)
#
#   tpu-as --config v5e -D B=512 -D D=4096 -D F=4096 programs/matmul_i8.s
# D must be a multiple of 2N (N = MXU_N), F a multiple of N * NUM_MXU; the
# machine needs mxu_int8 >= 1 (the assembler says so otherwise).
#
# W is stored K-pair-interleaved, as mxu.lw.i8 reads it: pair-row p (K rows
# 2p and 2p+1) is 2F bytes, byte 2c + j holding W[2p + j][c].  So a K-tile
# of 2N rows of W is N pair-rows of 2N bytes per MXU, exactly the bytes of a
# bf16 tile, and X's rows of D int8 are the bytes of D/2 bf16: the plan,
# the semaphores and the DMAs are matmul.s's with D/2 in place of D (its
# header explains them), the MXU instructions are the .i8 ones, and each
# K-tile covers 2N of D.

        .equ    B, 16                   # rows of X and Y (the batch)
        .equ    D, 4 * MXU_N            # inner dimension (int8: two K-tiles of 2N)
        .equ    F, 2 * MXU_N * NUM_MXU  # columns of W and Y
        .equ    R, 6                    # slots in the ring of W blocks

# The sizes are checked before anything uses them (-D B=0 stops here, not
# at a division by zero further down).  MAXDIM keeps the products below in
# 64 bits.
        .equ    MAXDIM, 1 << 24
        .equ    NF, MXU_N * NUM_MXU     # F comes in groups of NF columns
        .assert B >= 1 && B <= MAXDIM, "B must be 1 to %d (rows of X), got %d", MAXDIM, B
        .assert D > 0 && D <= MAXDIM && D % (2*MXU_N) == 0, "D must be a multiple of 2*MXU_N (%d) from %d to %d, got %d", 2*MXU_N, 2*MXU_N, MAXDIM, D
        .assert F > 0 && F <= MAXDIM && F % NF == 0, "F must be a multiple of MXU_N * NUM_MXU (%d) from %d to %d, got %d", NF, NF, MAXDIM, F
        .assert R >= 2 && R <= 13, "R (slots in the W ring) must be 2 to 13, got %d", R

        .equ    N, MXU_N
        .equ    NM, NUM_MXU
        .equ    KT, D / (2*N)           # K-tiles of 2N
        .equ    GROUPS, F / (N * NM)    # groups of NM column tiles
        .equ    STEPS, GROUPS * KT
        .equ    P, R - 1                # steps of look-ahead
        .equ    XC0, 131072 / (B*2*N)   # K-tiles of X in 128 KiB (2N int8 a row each)
        .equ    XC, XC0 < 1 ? 1 : (XC0 > KT ? KT : XC0)   # K-tiles per X chunk

        .equ    SEM_X, 2*R
        .equ    SEM_YDONE, 2*R + 1
        .equ    SEM_YWB, 2*R + 3
        .equ    SEM_NONE, 31

# ---- VMEM layout (addresses only: nothing is placed there before the run) ----------
        .equ    XV, 0                   # X, row-major as in HBM
        .equ    SLOT_ROW, 2*N*NM        # bytes in a row of a W block
        .equ    SLOT_BYTES, N*SLOT_ROW
        .equ    SLOTS, (XV + B*D + 63) / 64 * 64
        .equ    YROW, 4*N*NM            # a row of a set: row b of every Y_m
        .equ    YSET_BYTES, B*YROW
        .equ    YSET, SLOTS + R*SLOT_BYTES   # set s at YSET + s*YSET_BYTES, Y_m at + m*4N
        .equ    VMEM_NEED, YSET + 2*YSET_BYTES
        .assert VMEM_NEED <= VMEM_BYTES, "B, D and F need %d bytes of VMEM (X, the W ring and two sets of Y tiles), the machine has %d", VMEM_NEED, VMEM_BYTES
        .equ    HBM_NEED, ((B*D + 63) / 64 * 64 + D*F + 63) / 64 * 64 + 4*B*F
        .assert HBM_NEED <= HBM_BYTES, "B, D and F need %d bytes of HBM (X, W and Y), the machine has %d", HBM_NEED, HBM_BYTES
        .assert HBM_NEED < 1 << 31 && VMEM_NEED < 1 << 31, "B, D and F need addresses beyond 2 GiB, which li cannot load"

# ---- HBM: the operands and the result ---------------------------------------------
        .hbm    0
X:      .random i8, B*D, 1              # row-major B x D, every int8 value
        .align  64
W:      .random i8, D*F, 2              # D x F, K-pair-interleaved (above)
        .align  64
Y:      .zero   B*F*4                   # row-major B x F int32

# ---- code -----------------------------------------------------------------------------
        .text
        li      s20, B                  # rows of every stream
        li      s21, SLOT_ROW           # row stride of a W block (and its DMA row size)
        li      s22, D                  # row stride of X (int8), in HBM and in VMEM
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
              mxu.lw.i8 m, s1, s21, R + j%R         # its tile of the block
              li      s2, YSET + (g%2)*YSET_BYTES + m*4*N
              li      s3, XV + k*2*N              # X[0, k*N]
              .rept   k == 0
                mxu.mm.i8 m, s2, s3, s20, s22, s23, (k == KT-1) ? SEM_YDONE + g%2 : SEM_NONE
              .endr
              .rept   k != 0
                mxu.mma.i8 m, s2, s3, s20, s22, s23, (k == KT-1) ? SEM_YDONE + g%2 : SEM_NONE
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
        .expect matmul_i8 Y, X, W, B, D, F
