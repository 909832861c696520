# tpu-as: --config tiny
#
# allgather.s - AllGather over a ring, a 2-D torus or a 2-D mesh, with the
# ring routine of programs/lib/ring.inc (docs/collectives.md).
#
#   tpu-as -D K=8 programs/allgather.s && tpu-sim --cores 8 programs/allgather.bin
#   tpu-as -D R=4 -D C=4 programs/allgather.s &&
#       tpu-sim --cores 16 --topology torus2d --grid 4x4 programs/allgather.bin
#   ... -D WRAP=0 for --topology mesh2d
#
# Every core owns one shard of SHARD bytes; at the end every core holds all
# K = R*C shards, in core order, in OUT.  The cores' shards are different:
# the data of all of them sits in every core's VMEM (SRC, K shards) and core c
# starts by copying shard c into OUT + c*SHARD; the others reach it only over
# ICI.  `.expect copy OUT, SRC, K*SHARD` checks every core.  On a 2-D grid the
# gather runs along the rows first (every core then holds its row's C
# shards, which are contiguous in OUT) and then along the columns, with
# blocks of C shards.  With -D BOTH=1 (a torus) it runs on both axes at
# once (lib/torus.inc): half of every shard rows-then-columns, the other half
# columns-then-rows, so all four links of a core carry data all the time and
# a large gather takes about half as long.
#
# -D K=n         a ring of n cores (R = 1, C = n)
# -D R=r -D C=c  an r x c torus (WRAP=1, the default) or mesh (WRAP=0)
# -D WHOLE=1     with wraparound: whole shards half way round each way (n/2
#                hops per axis instead of n - 1; the latency-bound gathers
#                take about half as long, the bandwidth-bound ones the same,
#                n/(n-1) of it on an even axis)
# -D BOTH=1      on a torus (R, C >= 2, WRAP=1): both axes at once
#                (torus_allgather: a quarter of every shard on each of the
#                four links; the bandwidth-bound gathers take half the time)
# -D SHARD=b     bytes per shard (default 1 KiB)
# -D DATA=0      no copy of the other shards and no check: the timing runs of
#                tpu-collectives, whose shards reach tens of MB

        .equ    K, 4
        .equ    R, 1
        .equ    C, K
        .equ    WRAP, 1
        .equ    WHOLE, 0
        .equ    BOTH, 0
        .equ    SHARD, 1024
        .equ    DATA, 1
        .equ    NC, R * C
        .assert R >= 1 && C >= 1 && NC <= 4096, "R and C must be >= 1 with R*C <= 4096, got %d x %d", R, C
        .assert R == 1 || K == 4 || K == NC, "give either K (a ring) or R and C (a grid), not both"
        .assert WRAP == 0 || WRAP == 1, "WRAP must be 0 or 1, got %d", WRAP
        .assert WHOLE == 0 || WHOLE == 1, "WHOLE must be 0 or 1, got %d", WHOLE
        .assert WHOLE == 0 || WRAP == 1, "WHOLE=1 needs wraparound (WRAP=1): on a mesh whole shards go all the way"
        .assert BOTH == 0 || BOTH == 1, "BOTH must be 0 or 1, got %d", BOTH
        .assert BOTH == 0 || WRAP == 1, "BOTH=1 needs wraparound (WRAP=1): on a mesh the ends of an axis are not linked"
        .assert BOTH == 0 || (R >= 2 && C >= 2), "BOTH=1 needs a 2-D torus (-D R=r -D C=c, both >= 2), got %d x %d", R, C
        .assert BOTH == 0 || WHOLE == 0, "BOTH=1 and WHOLE=1 are two different AllGathers: give one"
        .assert SHARD >= 1 && SHARD % 4 == 0, "SHARD must be a positive multiple of 4 bytes, got %d", SHARD
        .assert DATA == 0 || DATA == 1, "DATA must be 0 or 1, got %d", DATA
        .equ    VB, VPU_SUBLANES * VPU_LANES * 4    # bytes of a vector register
        .assert DATA == 0 || SHARD % VB == 0, "with DATA=1 SHARD must be a multiple of a vector register (%d bytes), got %d", VB, SHARD
        .assert (1 + DATA) * NC * SHARD <= VMEM_BYTES, "%d shards of %d bytes do not fit VMEM twice (make SHARD smaller or -D DATA=0)", NC, SHARD

# ---- VMEM ---------------------------------------------------------------------
        .vmem   0
OUT:    .zero   NC * SHARD              # the gathered shards
        .rept   DATA
SRC:    .random f32, NC * SHARD / 4, 11 # shard c of every core, as the checks expect
        .endr

# ---- code ------------------------------------------------------------------------
        .text
        .include "lib/ring.inc"
        .rept   BOTH
        .include "lib/torus.inc"
        .endr

        # row = cid / C, col = cid % C (no divide: count)
        li      s1, 0                   # row
        add     s2, cid, zero           # col
        li      s3, C
split:  blt     s2, s3, split_done
        sub     s2, s2, s3
        addi    s1, s1, 1
        jmp     split
split_done:
        li      s4, SHARD
        mul     s5, cid, s4             # our slot: OUT + cid*SHARD
        li      s6, OUT
        add     s5, s5, s6
        .rept   DATA
        li      s6, SRC                 # our shard, from the data of all
        mul     s7, cid, s4
        add     s6, s6, s7
        li      s7, 0
copy:   vld     v0, s6, 0               # a vector register at a time
        vst     v0, s5, 0
        addi    s6, s6, VB
        addi    s5, s5, VB
        addi    s7, s7, VB
        blt     s7, s4, copy
        sync    vpu
        .endr

        .rept   BOTH
        # both axes at once: a quarter of every shard on each link
        li      s20, OUT
        li      s21, SHARD
        li      s22, R
        li      s23, C
        add     s24, s1, zero
        add     s25, s2, zero
        jal     s30, torus_allgather
        .endr
        .rept   1 - BOTH
        # along the row: C slots of SHARD bytes from OUT + row*C*SHARD
        li      s20, C * SHARD
        mul     s20, s20, s1
        li      s7, OUT
        add     s20, s20, s7
        li      s21, SHARD
        li      s22, C
        add     s23, s2, zero
        li      s24, 0
        li      s25, WRAP + WHOLE       # ring_allgather's wrap: 0, 1 or 2 (whole slots half way)
        jal     s30, ring_allgather
        # along the column: R blocks of C*SHARD bytes from OUT, once the
        # column's neighbours are done with their rows
        li      s22, R
        add     s23, s1, zero
        li      s24, 1
        jal     s30, ring_barrier
        li      s20, OUT
        li      s21, C * SHARD
        jal     s30, ring_allgather
        .endr
        halt

        .rept   DATA
        .expect copy OUT, SRC, NC * SHARD
        .endr
