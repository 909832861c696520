# tpu-as: --config tiny
#
# matmul_2chip.s - Y[B,F] = X[B,D] . W[D,F] on two chips with D split
# between them (docs/collectives.md, "Sharded matmuls", case c): each chip
# multiplies its half of X's columns by its half of W's rows, chip 1 sends
# its partial sums, rounded to bf16, to chip 0 over the one link, and chip 0
# adds them to its own and writes Y to its HBM.
#
#   tpu-as --config v5e -D B=512 -D D=8192 -D F=4096 -D DATA=0 programs/matmul_2chip.s
#   tpu-sim --config v5e --cores 2 programs/matmul_2chip.bin
#
# The book's example ("Sharded matrices"): per chip T_math = B.D.F / peak
# (2 B (D/2) F FLOPs), and T_comms = 2 B F / 4.5e10 (the bf16 partial sums,
# one way over one link), so the work is compute-bound only when
# D > 2 peak / 4.5e10 = 8755 on v5e.  tpu-collectives --matmul-2chip (or
# tests/collectives.sh) measures where the MXUs' busy time overtakes the
# link's.
#
# Each chip runs matmul.s's pipeline on its half (see matmul.s for the W
# ring, the X chunks and the sets of result tiles), with three sets of
# result tiles instead of two, because a group's partial sums stay while the
# next groups compute:
#   chip 1: during group g+1 it converts group g's tiles to bf16 (VPU), a
#           slice per K-step, then sends them into chip 0's RB[g];
#   chip 0: during group g+2 (by then chip 1's group g has landed) it adds
#           RB[g] to its own tiles of group g, a slice per K-step, then
#           writes the group to Y in HBM.
# The last groups are finished after the loop.  Both chips run the same
# straight-line pipeline, so it sits in matmul_2chip_body.inc, included once
# per chip with CHIP set.
#
# -D DATA=1 (the default): X and W hold small integers (-2 .. 2), so that
# the partial sums are exact in bf16 and `.expect matmul@0 Y, X, W` holds bit
# for bit; D/2 is then at most 64.  -D DATA=0: random X and W, no check (the
# timing runs).

        .equ    B, 8                    # rows of X and Y (the batch)
        .equ    D, 4 * MXU_N            # inner dimension, split in two
        .equ    F, 2 * MXU_N * NUM_MXU  # columns of W and Y
        .equ    R, 6                    # slots in the ring of W blocks
        .equ    DATA, 1

        .equ    MAXDIM, 1 << 24
        .equ    N, MXU_N
        .equ    NM, NUM_MXU
        .equ    NF, N * NM              # F comes in groups of NF columns
        .equ    DL, D / 2               # each chip's part of D
        .assert B >= 1 && B <= MAXDIM, "B must be 1 to %d (rows of X), got %d", MAXDIM, B
        .assert D > 0 && D <= MAXDIM && D % (2 * N) == 0, "D must be a multiple of 2 * MXU_N (%d) up to %d, got %d", 2 * N, MAXDIM, D
        .assert F > 0 && F <= MAXDIM && F % NF == 0, "F must be a multiple of MXU_N * NUM_MXU (%d) up to %d, got %d", NF, MAXDIM, F
        .assert R >= 2 && R <= 11, "R (slots in the W ring) must be 2 to 11, got %d", R
        .assert DATA == 0 || DATA == 1, "DATA must be 0 or 1, got %d", DATA
        .assert DATA == 0 || DL <= 64, "with DATA=1 D/2 must be at most 64 (the partial sums stay exact in bf16), got %d", DL

        .equ    KT, DL / N              # K-tiles per chip
        .equ    GROUPS, F / NF
        .equ    STEPS, GROUPS * KT
        .equ    P, R - 1
        .equ    XC0, 131072 / (B*2*N)
        .equ    XC, XC0 < 1 ? 1 : (XC0 > KT ? KT : XC0)

        .equ    SEM_X, 2*R
        .equ    SEM_YDONE, 2*R + 1      # + set (0..2): the set has all its rows
        .equ    SEM_YWB, 2*R + 4        # + set: the set is free again (sent / written back)
        .equ    SEM_RB, 2*R + 7         # chip 0: a group of chip 1's partial sums landed
        .equ    SEM_NONE, 31

# ---- VMEM layout ---------------------------------------------------------------------
        .equ    VB, VPU_SUBLANES * VPU_LANES * 4    # bytes of a vector register
        .equ    XV, 0                   # this chip's half of X, B x DL
        .equ    SLOT_ROW, 2*N*NM
        .equ    SLOT_BYTES, N*SLOT_ROW
        .equ    SLOTS, (XV + 2*B*DL + 63) / 64 * 64
        .equ    YROW, 4*N*NM
        .equ    YSET_BYTES, B*YROW      # a group's result tiles, fp32, contiguous
        .equ    YSET, SLOTS + R*SLOT_BYTES
        .equ    GB, YSET_BYTES / 2      # a group's partial sums in bf16
        .equ    SB, YSET + 3*YSET_BYTES # chip 1: two send buffers of GB bytes
        .equ    RB, SB + 2*GB           # chip 0: a receive buffer per group
        .equ    VMEM_NEED, RB + GROUPS*GB
        .assert YSET_BYTES % VB == 0, "a group's tiles (B x MXU_N*NUM_MXU fp32 = %d bytes) must be whole vector registers (%d bytes): make B a multiple of %d", YSET_BYTES, VB, VB / YROW < 1 ? 1 : VB / YROW
        .assert VMEM_NEED <= VMEM_BYTES, "B, D and F need %d bytes of VMEM, the machine has %d", VMEM_NEED, VMEM_BYTES
        .equ    NV, YSET_BYTES / VB     # vector registers in a set
        .equ    SL, (NV + KT - 1) / KT  # of them per K-step

# ---- HBM: X, W, Y (every chip has the same; chip 0's Y is the result) ------------------
        .hbm    0
X:      .rept   DATA                    # row-major B x D
        .set    i, 0
        .rept   B * D
        .bf16   (i * 7 + i / 5) % 5 - 2
        .set    i, i + 1
        .endr
        .endr
        .rept   1 - DATA
        .random bf16, B*D, 1
        .endr
        .align  64
W:      .rept   DATA                    # row-major D x F
        .set    i, 0
        .rept   D * F
        .bf16   (i * 3 + i / 7) % 5 - 2
        .set    i, i + 1
        .endr
        .endr
        .rept   1 - DATA
        .random bf16, D*F, 2
        .endr
        .align  64
Y:      .zero   B*F*4                   # row-major B x F fp32
        .assert (Y + B*F*4) - X < 1 << 31, "B, D and F need addresses beyond 2 GiB"

# ---- code -----------------------------------------------------------------------------
        .text
        li      s20, B
        li      s21, SLOT_ROW
        li      s22, 2*DL               # row stride of X in VMEM
        li      s23, YROW
        li      s24, 2*F
        li      s25, 4*F
        li      s26, N
        li      s27, 2*D                # row stride of X in HBM
        bne     cid, zero, chip1
chip0:
        li      s28, X                  # our half of X: columns 0 .. DL-1
        li      s29, W                  # our half of W: rows 0 .. DL-1
        .set    CHIP, 0
        .include "matmul_2chip_body.inc"
        halt
chip1:
        li      s28, X + 2*DL           # columns DL .. D-1
        li      s29, W + DL*2*F         # rows DL .. D-1
        .set    CHIP, 1
        .include "matmul_2chip_body.inc"
        halt

# ---- the VPU's part (subroutines, return through s30) ---------------------------------
# cvt_slice: s12 vector registers of fp32 at s10 -> bf16 at s11
cvt_slice:
        beq     s12, zero, cvt_done
        vld     v0, s10, 0
        vst.bf16 v0, s11, 0
        addi    s10, s10, VB
        addi    s11, s11, VB / 2
        addi    s12, s12, -1
        jmp     cvt_slice
cvt_done:
        jr      s30

# add_slice: s12 vector registers: fp32 at s10 += bf16 at s11
add_slice:
        beq     s12, zero, add_done
        vld     v0, s10, 0
        vld.bf16 v1, s11, 0
        vadd    v2, v0, v1
        vst     v2, s10, 0
        addi    s10, s10, VB
        addi    s11, s11, VB / 2
        addi    s12, s12, -1
        jmp     add_slice
add_done:
        jr      s30

# ---- check ------------------------------------------------------------------------------
        .rept   DATA
        .expect matmul@0 Y, X, W, B, D, F
        .endr
