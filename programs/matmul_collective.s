# tpu-as: --config tiny
#
# matmul_collective.s - a collective matmul on a ring of K cores
# (docs/collectives.md, "Sharded matmuls", cases b and d):
#
#   Y[B, F] = X[B, D] . W[D, F],  X sharded over the cores on D (core c has
#   the columns of block c, DK = D/K of them), W sharded on F (core c has
#   the FL = F/K columns of its block, all D rows), Y sharded on F like W.
#
# Core c needs all of X: case b gathers X first (an AllGather), then
# multiplies.  This program overlaps the two (case d, "collective matmul"):
# at step s = 0 .. K-1 a core multiplies the block of X it holds by the
# matching rows of its W while it passes the block on around the ring, so
# the MXUs work while the links carry the next block.  Both directions carry
# half of each block: the +1 stream the first DK/2 columns of block
# (c - s) mod K, the -1 stream the second half of block (c + s) mod K.
#
#   tpu-as -D K=4 programs/matmul_collective.s && tpu-sim --cores 4 programs/matmul_collective.bin
#   -D OVERLAP=0: case b, the gather first (K buffers a direction), then the
#                 multiplies: T_ici + T_math instead of about the larger
#   -D DATA=0: random data, no check (timing; the benchmark's 16 v5e cores)
#
# Per step the MXUs do B x DK x FL multiply-adds and each link carries
# B x DK/2 bf16: compute-bound when FL > peak MACs per cycle / link bytes
# per cycle (v5e: 65536 / 30 = 2185 columns).
#
# Layout of every core's VMEM: its W block (D x FL bf16, row-major; loaded
# from HBM first with DATA=1, already there with DATA=0), three
# buffers per direction for halves of X blocks (B x DK/2 bf16), Y (B x FL
# fp32).  A receiver frees a buffer by an empty transfer back (a credit)
# once its MXUs have read it; the sender needs it two steps later.
# -D DATA=1 (default): X and W small integers (-2 .. 2) so that Y is exact
# in any order of accumulation and `.expect matmul@c` checks it bit for bit.

        .equ    K, 4
        .equ    B, 8
        .equ    D, 2 * MXU_N * K
        .equ    F, MXU_N * NUM_MXU * K
        .equ    DATA, 1
        .equ    OVERLAP, 1
        .equ    N, MXU_N
        .equ    NM, NUM_MXU
        .equ    DK, D / K               # X columns per core
        .equ    DH, DK / 2              # per direction
        .equ    FL, F / K               # W and Y columns per core
        .assert K >= 1 && K <= 64, "K must be 1 to 64, got %d", K
        .assert B >= 1 && B <= 65536, "B must be 1 to 65536, got %d", B
        .assert D % (2 * N * K) == 0 && D > 0, "D must be a positive multiple of 2 * MXU_N * K (%d), got %d", 2 * N * K, D
        .assert F % (N * K) == 0 && F > 0, "F must be a positive multiple of MXU_N * K (%d), got %d", N * K, F
        .assert DATA == 0 || DATA == 1, "DATA must be 0 or 1, got %d", DATA
        .assert OVERLAP == 0 || OVERLAP == 1, "OVERLAP must be 0 or 1, got %d", OVERLAP
        .equ    NB, OVERLAP ? 3 : K     # buffers of halves per direction
        .assert DATA == 0 || D <= 1 << 20, "with DATA=1 D must be at most %d (Y stays exact in fp32 in any order), got %d", 1 << 20, D

        .equ    KT, DH / N              # K-tiles in half a block
        .equ    CT, FL / N              # column tiles of Y

# ---- semaphores ---------------------------------------------------------------------
        .equ    SEM_W, 0                # our W block is in VMEM
        .equ    SEM_X, 1                # our X halves are in VMEM (2 DMAs)
        .equ    SEM_A, 2                # a +1 half landed (from the -1 neighbour)
        .equ    SEM_C, 3                # a -1 half landed
        .equ    SEM_MM, 4               # the MXUs finished a step (NM per step)
        .equ    SEM_CA, 5               # the +1 neighbour freed a buffer of ours
        .equ    SEM_CC, 6               # the -1 neighbour freed one
        .equ    SEM_NONE, 31

# ---- VMEM ----------------------------------------------------------------------------
        .equ    WV, 0                   # D x FL bf16
        .equ    XA, (WV + D * FL * 2 + 63) / 64 * 64    # NB x (B x DH bf16)
        .equ    HB, B * DH * 2          # bytes of half a block
        .equ    XC, XA + NB * HB
        .equ    YV, (XC + NB * HB + 63) / 64 * 64       # B x FL fp32
        .equ    VMEM_NEED, YV + B * FL * 4
        .assert VMEM_NEED <= VMEM_BYTES, "B, D, F and K need %d bytes of VMEM, the machine has %d", VMEM_NEED, VMEM_BYTES
        .vmem   YV
Y:      .zero   B * FL * 4
        .rept   1 - DATA                # timing runs: W is in VMEM from the start
        .vmem   WV
        .random bf16, D * FL, 2
        .endr

# ---- HBM: X (B x D) and the K blocks of W (D x FL each) ---------------------------------
        .hbm    0
X:      .rept   DATA
        .set    i, 0
        .rept   B * D
        .bf16   (i * 7 + i / 3) % 5 - 2
        .set    i, i + 1
        .endr
        .endr
        .rept   1 - DATA
        .random bf16, B * D, 1
        .endr
        .align  64
WB:     .rept   DATA
        .set    i, 0
        .rept   D * F
        .bf16   (i * 3 + i / 11) % 5 - 2
        .set    i, i + 1
        .endr
        .endr

# ---- code ----------------------------------------------------------------------------
        .text
        li      s20, B
        li      s21, 2 * D              # row stride of X in HBM
        li      s22, DH * 2             # row stride of a half in VMEM (and its row bytes)
        li      s23, FL * 2             # row stride of W in VMEM
        li      s24, FL * 4             # row stride of Y
        li      s25, HB
        # our W block: D x FL from WB + cid * D*FL*2 (DATA=1; else it is there)
        .rept   DATA
        li      s1, WV
        li      s2, D * FL * 2
        mul     s3, cid, s2
        li      s4, WB
        add     s3, s3, s4
        li      s5, 1
        dma.h2v s1, s3, s5, s2, s2, s2, SEM_W
        sem.wait SEM_W, 1
        .endr
        # our X block's halves: columns cid*DK .. +DH and +DH .. +DK
        li      s1, XA
        li      s2, DK * 2
        mul     s3, cid, s2
        li      s4, X
        add     s3, s3, s4
        dma.h2v s1, s3, s20, s22, s21, s22, SEM_X
        li      s1, XC
        addi    s3, s3, DH * 2
        dma.h2v s1, s3, s20, s22, s21, s22, SEM_X
        sem.wait SEM_X, 2

        .set    phase, 0
        .rept   2 - OVERLAP             # one pass; or pass 0 moves X, pass 1 multiplies
        .set    s, 0
        .rept   K
          .set    b, s % NB
          # the blocks of this step: s6 = (cid - s) mod K, s7 = (cid + s) mod K
          li      s8, K
          li      s9, s
          sub     s6, cid, s9
          slt     s10, s6, zero
          mul     s10, s10, s8
          add     s6, s6, s10
          add     s7, cid, s9
          slt     s10, s7, s8
          addi    s10, s10, -1          # -1 when cid + s >= K, else 0
          mul     s10, s10, s8
          add     s7, s7, s10
          .rept   s >= 1 && phase == 0
            sem.wait SEM_A, 1           # step s's halves have landed
            sem.wait SEM_C, 1
          .endr
          # pass them on (not in the last step); the neighbours' buffer b+1
          # was read by their MXUs two steps ago
          .rept   s < K - 1 && phase == 0
            .rept   s >= 2 && OVERLAP
              sem.wait SEM_CA, 1
              sem.wait SEM_CC, 1
            .endr
            li      s11, XA + b * HB
            li      s12, XA + ((s + 1) % NB) * HB
            dma.ici 0, s12, s11, s25, SEM_NONE, SEM_A
            li      s11, XC + b * HB
            li      s12, XC + ((s + 1) % NB) * HB
            dma.ici 1, s12, s11, s25, SEM_NONE, SEM_C
          .endr
          # multiply: the +1 half is rows s6*DK .. +DH of W, the -1 half rows
          # s7*DK + DH .. +DH
          .rept   OVERLAP || phase == 1
          li      s13, DK * FL * 2
          mul     s14, s6, s13
          mul     s15, s7, s13
          addi    s15, s15, DH * FL * 2
          .set    h, 0
          .rept   2
            .set    kt, 0
            .rept   KT
              .set    m, 0
              .rept   CT
                li      s16, WV + kt * N * FL * 2 + m * N * 2
                .rept   h == 0
                  add     s16, s16, s14
                .endr
                .rept   h == 1
                  add     s16, s16, s15
                .endr
                mxu.lw  m % NM, s16, s23, SEM_NONE
                li      s17, YV + m * N * 4
                li      s18, (h == 0 ? XA : XC) + b * HB + kt * N * 2
                mxu.mma m % NM, s17, s18, s20, s22, s24, (h == 1 && kt == KT - 1 && m >= CT - NM) ? SEM_MM : SEM_NONE
                .set    m, m + 1
              .endr
              .set    kt, kt + 1
            .endr
            .set    h, h + 1
          .endr
          .endr
          # once our MXUs have read the previous step's buffers (its work was
          # queued before this step's, so waiting here costs them nothing),
          # free them for the senders, who fill them again at step s + 2
          .rept   OVERLAP && s >= 1 && s + 2 <= K - 1
            sem.wait SEM_MM, NM < CT ? NM : CT
            dma.ici 1, zero, zero, zero, SEM_NONE, SEM_CA
            dma.ici 0, zero, zero, zero, SEM_NONE, SEM_CC
          .endr
          .set    s, s + 1
        .endr
        .set    phase, phase + 1
        .endr
        halt

        .rept   DATA
        .set    c, 0
        .rept   K
        .expect matmul@c Y, X, WB + c * D * FL * 2, B, D, FL
        .set    c, c + 1
        .endr
        .endr
