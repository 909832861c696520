# tpu-as: --config tiny
#
# alltoall.s - AllToAll over a bidirectional ring, a 2-D torus or a 2-D mesh
# (a line: a 1 x n mesh), with the routines of programs/lib/ring.inc
# (docs/collectives.md).
#
#   tpu-as -D K=6 programs/alltoall.s && tpu-sim --cores 6 programs/alltoall.bin
#   tpu-as -D R=4 -D C=4 programs/alltoall.s &&
#       tpu-sim --cores 16 --topology torus2d --grid 4x4 programs/alltoall.bin
#   ... -D WRAP=0 for --topology mesh2d
#
# Every core has NC = R*C chunks of CH bytes; at the end OUT holds, in slot
# o, the chunk core o meant for it.  Core (r, c) (cid = r*C + c) means its
# chunk dc*R + dr for core ((r + dr) mod R, (c + dc) mod C): on a ring
# (R = 1) chunk d is for the core d steps further round.
#
# On a ring, ring_alltoall does it all: a chunk meant for a core up to K/2
# steps away goes +1, the others -1, store and forward (a link carries
# about K^2/8 chunks).  Without wraparound (WRAP=0, a mesh) mesh_alltoall
# does it instead: a chunk meant for a core further along the line goes +1,
# one for a core before it -1, store and forward (the middle link carries
# about n^2/4 chunks, twice the ring's; whole bundles forwarded hop by hop
# make the time about n(n-1)/2 chunks' worth).  On a torus or a mesh, one
# axis after the other:
#   1. along the row: the R chunks dc*R .. dc*R + R-1 (every row distance,
#      column distance dc) are one super-chunk of R*CH bytes, meant for the
#      core dc steps along the row (mod C): an AllToAll of C super-chunks, into
#      ROW (slot oc: what core (r, oc) meant for this column, by row distance);
#   2. the re-arrangement (the VPU copies): column block dr of COL gathers
#      chunk dr of every ROW slot, C chunks, meant for the core dr steps down
#      the column;
#   3. along the column (after ring_barrier: the column's neighbours are done
#      with their rows): an AllToAll of R blocks of C*CH bytes into OUT;
#      block or holds core (or, oc)'s chunk at oc, so OUT is in core order.
# .expect copy checks every slot of every core.
#
# -D K=n         a ring of n cores (R = 1, C = n)
# -D R=r -D C=c  an r x c torus (WRAP=1, the default: ring_alltoall) or mesh
#                (WRAP=0, --topology mesh2d: mesh_alltoall; -D R=1 -D C=n
#                with --grid 1xn is a line)
# -D CH=b        bytes per chunk, a multiple of a vector register
# -D DATA=0      one input for every core and no check (timing runs)

        .equ    K, 4
        .equ    R, 1
        .equ    C, K
        .equ    WRAP, 1
        .equ    VB, VPU_SUBLANES * VPU_LANES * 4
        .equ    CH, VB
        .equ    DATA, 1
        .equ    NC, R * C
        .assert R >= 1 && C >= 1 && NC <= 64, "R and C must be >= 1 with R*C <= 64, got %d x %d", R, C
        .assert R == 1 || K == 4 || K == NC, "give either K (a ring) or R and C (a grid), not both"
        .assert CH >= VB && CH % VB == 0, "CH must be a multiple of a vector register (%d bytes), got %d", VB, CH
        .assert DATA == 0 || DATA == 1, "DATA must be 0 or 1, got %d", DATA
        .assert WRAP == 0 || WRAP == 1, "WRAP must be 0 or 1, got %d", WRAP
        # the forward areas, in chunks of the phase (lib/ring.inc): ring_alltoall's
        # LIB_A2A_WORK(n) with wraparound, mesh_alltoall's LIB_A2A_MESH_WORK(n)
        # (2 x (n-1)/2 x (n-1 - (n-1)/2): the middle core's) without
        .equ    DR0, C / 2
        .equ    DR1, C - 1 - DR0
        .equ    MR0, (C - 1) / 2
        .equ    WROW, (WRAP ? DR0 * (DR0 - 1) / 2 + DR1 * (DR1 - 1) / 2 : 2 * MR0 * (C - 1 - MR0)) * R
        .equ    DC0, R / 2
        .equ    DC1, R - 1 - DC0
        .equ    MC0, (R - 1) / 2
        .equ    WCOL, (WRAP ? DC0 * (DC0 - 1) / 2 + DC1 * (DC1 - 1) / 2 : 2 * MC0 * (R - 1 - MC0)) * C
        .equ    WCH, (WROW > WCOL ? WROW : WCOL) + 1
        .equ    TWO_D, R > 1
        .assert ((1 + (NC - 1) * DATA) * NC + NC * (1 + 2 * TWO_D) + WCH) * CH <= VMEM_BYTES, "%d cores' chunks of %d bytes do not fit VMEM (make CH smaller or -D DATA=0)", NC, CH

# ---- VMEM ---------------------------------------------------------------------------
        .vmem   0
OUT:    .zero   NC * CH
WORK:   .zero   WCH * CH                # the forward areas
        .rept   TWO_D
ROW:    .zero   NC * CH                 # after the row phase
COL:    .zero   NC * CH                 # re-arranged for the column phase
        .endr
IN:     .rept   DATA
        .set    h, 0
        .rept   NC
        .random f32, NC * CH / 4, 100 + h
        .set    h, h + 1
        .endr
        .endr
        .rept   1 - DATA
        .random f32, NC * CH / 4, 100
        .endr

# ---- code -----------------------------------------------------------------------------
        .text
        .include "lib/ring.inc"

        li      s1, 0                   # row = cid / C, col = cid % C
        add     s2, cid, zero
        li      s3, C
split:  blt     s2, s3, split_done
        sub     s2, s2, s3
        addi    s1, s1, 1
        jmp     split
split_done:
        li      s20, NC * CH * DATA     # our chunks: IN + cid * NC*CH (DATA=1)
        mul     s20, s20, cid
        li      s4, IN
        add     s20, s20, s4
        # along the row: C super-chunks of R*CH
        li      s21, R * CH
        li      s22, C
        add     s23, s2, zero
        li      s24, 0
        li      s25, WORK
        li      s26, OUT
        .rept   TWO_D
        li      s26, ROW
        .endr
        .rept   WRAP
        jal     s30, ring_alltoall
        .endr
        .rept   1 - WRAP
        jal     s30, mesh_alltoall
        .endr
        .rept   TWO_D
        # COL block dr, slot oc = ROW slot oc, chunk dr
        li      s5, 0                   # dr
        li      s19, COL
rearr_dr:
        li      s6, 0                   # oc
        li      s14, CH                 # ROW + dr*CH
        mul     s14, s14, s5
        li      s7, ROW
        add     s14, s14, s7
rearr_oc:
        li      s18, CH
        jal     s29, lib_vcopy          # s19 moves on with it
        addi    s14, s14, R * CH - CH   # the next slot's chunk dr
        addi    s6, s6, 1
        li      s7, C
        blt     s6, s7, rearr_oc
        addi    s5, s5, 1
        li      s7, R
        blt     s5, s7, rearr_dr
        sync    vpu
        # along the column: R blocks of C*CH, once the neighbours are done
        li      s22, R
        add     s23, s1, zero
        li      s24, 1
        li      s25, WRAP
        jal     s30, ring_barrier
        li      s20, COL
        li      s21, C * CH
        li      s25, WORK
        li      s26, OUT
        .rept   WRAP
        jal     s30, ring_alltoall
        .endr
        .rept   1 - WRAP
        jal     s30, mesh_alltoall
        .endr
        .endr
        halt

# slot o of core g: core o's chunk dc*R + dr, dr = (r_g - r_o) mod R, dc = (c_g - c_o) mod C
        .rept   DATA
        .set    g, 0
        .rept   NC
          .set    o, 0
          .rept   NC
            .expect copy@g OUT + o * CH, IN + (o * NC + ((g % C - o % C + C) % C) * R + (g / C - o / C + R) % R) * CH, CH
            .set    o, o + 1
          .endr
          .set    g, g + 1
        .endr
        .endr
