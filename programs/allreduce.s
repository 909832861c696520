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
# -D K=n, -D R=r -D C=c, -D WRAP=0, -D CHUNK=b, -D DATA=0: as reducescatter.s

        .equ    K, 4
        .equ    R, 1
        .equ    C, K
        .equ    WRAP, 1
        .equ    VB, VPU_SUBLANES * VPU_LANES * 4
        .equ    CHUNK, 2 * VB
        .equ    DATA, 1
        .equ    NC, R * C
        .assert R >= 1 && C >= 1 && NC <= 4096, "R and C must be >= 1 with R*C <= 4096, got %d x %d", R, C
        .assert R == 1 || K == 4 || K == NC, "give either K (a ring) or R and C (a grid), not both"
        .assert CHUNK >= 2 * VB && CHUNK % (2 * VB) == 0, "CHUNK must be a multiple of two vector registers (%d bytes), got %d", 2 * VB, CHUNK
        .assert DATA == 0 || DATA == 1, "DATA must be 0 or 1, got %d", DATA
        .assert WRAP == 0 || WRAP == 1, "WRAP must be 0 or 1, got %d", WRAP
        .equ    IN_BYTES, NC * CHUNK
        # the routines' scratch: 4 chunks of the phase on a torus, n + 1 on a mesh
        .equ    WROW, (WRAP ? 4 : C + 1) * R * CHUNK
        .equ    WCOL, (WRAP ? 4 : R + 1) * CHUNK
        .equ    WBYTES, WROW > WCOL ? WROW : WCOL
        .assert (1 + (NC - 1) * DATA) * IN_BYTES + IN_BYTES + R * CHUNK + WBYTES <= VMEM_BYTES, "the inputs of %d cores of %d bytes do not fit VMEM (make CHUNK smaller or -D DATA=0)", NC, IN_BYTES

# ---- VMEM ---------------------------------------------------------------------
        .vmem   0
RES:    .zero   IN_BYTES                # the sum of every core's input
MID:    .zero   R * CHUNK               # our block after the row's reduction
WORK:   .zero   WBYTES                  # the reduction's scratch
        .include "lib/contrib.inc"      # CONTRIB: every core's input

# ---- code ------------------------------------------------------------------------
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
        li      s20, CONTRIB            # our input: CONTRIB + cid*IN_BYTES (DATA=1)
        li      s4, IN_BYTES * DATA
        mul     s4, s4, cid
        add     s20, s20, s4
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
        halt

        .rept   DATA
        .expect sum RES, CONTRIB, IN_BYTES, NC, IN_BYTES / 4
        .endr
