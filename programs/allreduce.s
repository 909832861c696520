# tpu-as: --config tiny
#
# allreduce.s - AllReduce = ReduceScatter + AllGather, over a ring, a 2-D
# torus or a 2-D mesh, with the routines of programs/lib/ring.inc
# (docs/collectives.md).
#
#   tpu-as -D K=8 programs/allreduce.s && tpu-sim --cores 8 programs/allreduce.bin
#   tpu-as -D R=4 -D C=4 programs/allreduce.s &&
#       tpu-sim --cores 16 --topology torus2d --grid 4x4 programs/allreduce.bin
#   ... -D WRAP=0 for --topology mesh2d
#
# Every core has an input of K = R*C chunks of CHUNK bytes (fp32, from
# lib/contrib.inc); every core ends with the sum of all the inputs in RES.
# ReduceScatter leaves core (r, c) with chunk c*R + r of the sum, which it
# writes straight into its place in RES (reducescatter.s explains the order);
# the AllGather then runs the other way round: along the column (R chunks of
# block c), then along the row (C blocks of R chunks).  It moves every byte
# twice, so it takes about twice as long as either half.
#
# -D BOTH=1      on a torus (R, C >= 2, WRAP=1): both axes at once
#                (torus_allreduce in lib/torus.inc: torus_reducescatter, then
#                torus_allgather, a quarter of every chunk on each of the four
#                links; the bandwidth-bound AllReduce takes half the time)
# -D K=n, -D R=r -D C=c, -D WRAP=0, -D CHUNK=b, -D DATA=0: as reducescatter.s

        .equ    K, 4
        .equ    R, 1
        .equ    C, K
        .equ    WRAP, 1
        .equ    BOTH, 0
        .equ    VB, VPU_SUBLANES * VPU_LANES * 4
        .equ    CHUNK, (BOTH ? 4 : 2) * VB
        .equ    DATA, 1
        .equ    NC, R * C
        .assert R >= 1 && C >= 1 && NC <= 4096, "R and C must be >= 1 with R*C <= 4096, got %d x %d", R, C
        .assert R == 1 || K == 4 || K == NC, "give either K (a ring) or R and C (a grid), not both"
        .assert CHUNK >= 2 * VB && CHUNK % (2 * VB) == 0, "CHUNK must be a multiple of two vector registers (%d bytes), got %d", 2 * VB, CHUNK
        .assert DATA == 0 || DATA == 1, "DATA must be 0 or 1, got %d", DATA
        .assert WRAP == 0 || WRAP == 1, "WRAP must be 0 or 1, got %d", WRAP
        .assert BOTH == 0 || BOTH == 1, "BOTH must be 0 or 1, got %d", BOTH
        .assert BOTH == 0 || WRAP == 1, "BOTH=1 needs wraparound (WRAP=1): on a mesh the ends of an axis are not linked"
        .assert BOTH == 0 || (R >= 2 && C >= 2), "BOTH=1 needs a 2-D torus (-D R=r -D C=c, both >= 2), got %d x %d", R, C
        .assert BOTH == 0 || CHUNK % (4 * VB) == 0, "with BOTH=1 CHUNK must be a multiple of four vector registers (%d bytes), got %d", 4 * VB, CHUNK
        .equ    IN_BYTES, NC * CHUNK
        # the routines' scratch: 4 chunks of the phase on a torus, n + 1 on a
        # mesh; both axes at once: (max(R,C) - 1) (R + C + 2) / 2 chunks after RES
        .equ    WROW, (WRAP ? 4 : C + 1) * R * CHUNK
        .equ    WCOL, (WRAP ? 4 : R + 1) * CHUNK
        .equ    M, R > C ? R : C
        .equ    WBYTES, BOTH ? (M - 1) * (R + C + 2) * CHUNK / 2 : (WROW > WCOL ? WROW : WCOL) + R * CHUNK
        .assert (1 + (NC - 1) * DATA) * IN_BYTES + IN_BYTES + WBYTES <= VMEM_BYTES, "the inputs of %d cores of %d bytes do not fit VMEM (make CHUNK smaller or -D DATA=0)", NC, IN_BYTES

# ---- VMEM ---------------------------------------------------------------------
        .vmem   0
RES:    .zero   IN_BYTES                # the sum of every core's input
        .rept   1 - BOTH
MID:    .zero   R * CHUNK               # our block after the row's reduction
WORK:   .zero   WBYTES - R * CHUNK      # the reduction's scratch
        .endr
        .rept   BOTH
TWK:    .zero   WBYTES                  # torus_allreduce's scratch after RES
        .endr
        .include "lib/contrib.inc"      # CONTRIB: every core's input

# ---- code ------------------------------------------------------------------------
        .text
        .include "lib/ring.inc"
        .rept   BOTH
        .include "lib/torus.inc"
        .endr

        li      s1, 0                   # row = cid / C, col = cid % C
        add     s2, cid, zero
        li      s3, C
split:  blt     s2, s3, split_done
        sub     s2, s2, s3
        addi    s1, s1, 1
        jmp     split
split_done:
        li      s20, CONTRIB            # our input: CONTRIB + cid*IN_BYTES (DATA=1)
        li      s4, IN_BYTES * DATA
        mul     s4, s4, cid
        add     s20, s20, s4
        .rept   BOTH
        # both axes at once: ReduceScatter, then AllGather, a quarter of every
        # chunk on each link; the sum in RES, the scratch after it
        add     s26, s20, zero
        li      s20, RES
        li      s21, CHUNK
        li      s22, R
        li      s23, C
        add     s24, s1, zero
        add     s25, s2, zero
        jal     s30, torus_allreduce
        .endr
        .rept   1 - BOTH
        # ReduceScatter along the row: block c of R chunks -> MID
        li      s21, R * CHUNK
        li      s22, C
        add     s23, s2, zero
        li      s24, 0
        li      s25, WORK
        li      s26, MID
        .rept   WRAP
        jal     s30, ring_reducescatter
        .endr
        .rept   1 - WRAP
        jal     s30, mesh_reducescatter
        .endr
        # ... along the column (after a barrier: WORK is the neighbours' until
        # they are done with their rows): chunk c*R + r -> its place in RES
        li      s22, R
        add     s23, s1, zero
        li      s24, 1
        li      s25, WRAP
        jal     s30, ring_barrier
        li      s25, WORK
        li      s20, MID
        li      s21, CHUNK
        li      s5, R * CHUNK           # RES + (c*R + r)*CHUNK
        mul     s5, s5, s2
        li      s6, RES
        add     s5, s5, s6              # s5: block c of RES
        li      s6, CHUNK
        mul     s6, s6, s1
        add     s26, s5, s6
        .rept   WRAP
        jal     s30, ring_reducescatter
        .endr
        .rept   1 - WRAP
        jal     s30, mesh_reducescatter
        .endr
        # AllGather along the column: the R chunks of block c
        add     s20, s5, zero
        li      s21, CHUNK
        li      s22, R
        add     s23, s1, zero
        li      s24, 1
        li      s25, WRAP
        jal     s30, ring_allgather
        # ... along the row: the C blocks (after a barrier on the row)
        li      s22, C
        add     s23, s2, zero
        li      s24, 0
        jal     s30, ring_barrier
        li      s20, RES
        li      s21, R * CHUNK
        jal     s30, ring_allgather
        .endr
        halt

        .rept   DATA
        .expect sum RES, CONTRIB, IN_BYTES, NC, IN_BYTES / 4
        .endr
