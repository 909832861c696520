# tpu-as: --config tiny
#
# reducescatter.s - ReduceScatter over a ring, a 2-D torus or a 2-D mesh,
# with the routines of programs/lib/ring.inc (docs/collectives.md).
#
#   tpu-as -D K=8 programs/reducescatter.s && tpu-sim --cores 8 programs/reducescatter.bin
#   tpu-as -D R=4 -D C=4 programs/reducescatter.s &&
#       tpu-sim --cores 16 --topology torus2d --grid 4x4 programs/reducescatter.bin
#   ... -D WRAP=0 for --topology mesh2d
#
# Every core has an input of K = R*C chunks of CHUNK bytes (fp32); core g ends
# with chunk g summed over all the cores' inputs, in OUT.  The VPU adds each
# incoming piece to the core's own before passing it on.  On a grid the chunk
# of core (r, c) is chunk c*R + r of the input, so that a row's reduction
# works on contiguous blocks of R chunks: first along the row (core (r, c)
# ends with block c summed over its row), then along the column (chunk
# c*R + r of that block summed over the column).  On a ring (R = 1) chunk g
# is core g's.  The inputs come from lib/contrib.inc: small integers, so the
# check (`.expect sum`, in core order) is exact whatever order the ring adds in.
#
# -D K=n         a ring of n cores
# -D R=r -D C=c  an r x c torus (WRAP=1, the default: ring_reducescatter) or
#                mesh (WRAP=0, --topology mesh2d: mesh_reducescatter, whole
#                chunks from both ends of every line, about twice as long)
# -D BOTH=1      on a torus (R, C >= 2, WRAP=1): both axes at once
#                (torus_reducescatter in lib/torus.inc: a quarter of every chunk
#                on each of the four links; the bandwidth-bound reductions take
#                half the time); the same result in OUT, the same check
# -D CHUNK=b     bytes per chunk, a multiple of two vector registers (default
#                two; R*CHUNK too, for the rows); with BOTH=1 a multiple of
#                four (default four)
# -D DATA=0      one random input for every core and no check (timing runs)

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
        # the routines' scratch: 4 chunks of the phase on a torus, n + 1 on a mesh;
        # both axes at once: OUT and (max(R,C) - 1) (R + C + 2) / 2 - 1 chunks after it
        .equ    WROW, (WRAP ? 4 : C + 1) * R * CHUNK
        .equ    WCOL, (WRAP ? 4 : R + 1) * CHUNK
        .equ    M, R > C ? R : C
        .equ    TWORK, (M - 1) * (R + C + 2) * CHUNK / 2
        .equ    WBYTES, BOTH ? TWORK - CHUNK : (WROW > WCOL ? WROW : WCOL) + R * CHUNK
        .assert (1 + (NC - 1) * DATA) * IN_BYTES + WBYTES + CHUNK <= VMEM_BYTES, "the inputs of %d cores of %d bytes do not fit VMEM (make CHUNK smaller or -D DATA=0)", NC, IN_BYTES

# ---- VMEM ---------------------------------------------------------------------
        .vmem   0
OUT:    .zero   CHUNK                   # our chunk, reduced
        .rept   1 - BOTH
MID:    .zero   R * CHUNK               # our block after the row's reduction
WORK:   .zero   WBYTES - R * CHUNK      # the reduction's scratch
        .endr
        .rept   BOTH
TWK:    .zero   WBYTES                  # torus_reducescatter's scratch after OUT
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
        # both axes at once: a quarter of every chunk on each link; the result
        # in the first chunk of the scratch, OUT
        li      s21, CHUNK
        li      s22, R
        li      s23, C
        add     s24, s1, zero
        add     s25, s2, zero
        li      s26, OUT
        jal     s30, torus_reducescatter
        .endr
        .rept   1 - BOTH
        # along the row: C blocks of R chunks -> MID
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
        # along the column: R chunks of MID -> OUT, once the column's
        # neighbours are done with their rows (WORK is theirs until then)
        li      s22, R
        add     s23, s1, zero
        li      s24, 1
        li      s25, WRAP
        jal     s30, ring_barrier
        li      s20, MID
        li      s21, CHUNK
        li      s25, WORK
        li      s26, OUT
        .rept   WRAP
        jal     s30, ring_reducescatter
        .endr
        .rept   1 - WRAP
        jal     s30, mesh_reducescatter
        .endr
        .endr
        halt

# core g = (r, c) holds chunk c*R + r of the sum of all inputs
        .rept   DATA
        .set    g, 0
        .rept   NC
        .expect sum@g OUT, CONTRIB + ((g % C) * R + g / C) * CHUNK, IN_BYTES, NC, CHUNK / 4
        .set    g, g + 1
        .endr
        .endr
