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
# -D CHUNK=b     bytes per chunk, a multiple of two vector registers (default
#                two; R*CHUNK too, for the rows)
# -D DATA=0      one random input for every core and no check (timing runs)

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
        .assert (1 + (NC - 1) * DATA) * IN_BYTES + R * CHUNK + WBYTES + CHUNK <= VMEM_BYTES, "the inputs of %d cores of %d bytes do not fit VMEM (make CHUNK smaller or -D DATA=0)", NC, IN_BYTES

# ---- VMEM ---------------------------------------------------------------------
        .vmem   0
OUT:    .zero   CHUNK                   # our chunk, reduced
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
        halt

# core g = (r, c) holds chunk c*R + r of the sum of all inputs
        .rept   DATA
        .set    g, 0
        .rept   NC
        .expect sum@g OUT, CONTRIB + ((g % C) * R + g / C) * CHUNK, IN_BYTES, NC, CHUNK / 4
        .set    g, g + 1
        .endr
        .endr
