# tpu-as: --config tiny
#
# torus3d.s - AllGather, ReduceScatter or AllReduce over one, two or three
# axes of a 3-D torus (the v4p/v5p slices), with the macros of
# programs/lib/torus3d.inc, or over the three at once with those of
# lib/torus3d_once.inc (docs/collectives.md, "3-D torus").
#
#   tpu-as -D X=2 -D Y=2 -D Z=2 -D OP=2 programs/torus3d.s &&
#       tpu-sim --cores 8 --topology torus3d --grid 2x2x2 programs/torus3d.bin
#
# -D X=a -D Y=b -D Z=c  the torus (default 2 x 2 x 2); core cid = (z*Y + y)*X + x
# -D A=n         the collective runs over the first n axes (1: x, 2: x and y,
#                3: all; default 3): each group of G = X, X*Y or X*Y*Z cores
#                with the same position on the other axes runs its own
# -D OP=k        0 AllGather, 1 ReduceScatter, 2 AllReduce (default)
# -D SHARD=b     AllGather: bytes per core (default two vector registers)
# -D CHUNK=b     ReduceScatter, AllReduce: bytes per chunk, a multiple of two
#                vector registers (default two); a core's input is G chunks
# -D DATA=0      no data and no check: the timing runs of tpu-collectives
# -D ONCE=1      all three axes at once (lib/torus3d_once.inc; A=3): each
#                shard or chunk in three parts, each part visiting the axes
#                in its own rotation, all six links busy; SHARD a multiple
#                of 24 bytes and CHUNK of six vector registers (defaults:
#                six vector registers)
#
# In a group, core h (h = x*Y*Z + y*Z + z for A = 3, x*Y + y for 2, x for 1)
# owns shard h (AllGather) or ends with chunk h of the sum (ReduceScatter).
# Every core checks its result with .expect: AllGather the whole SRC in OUT,
# ReduceScatter its chunk of the sum of its group's inputs (lib/contrib.inc:
# core c's input is CONTRIB + c*IN_BYTES), AllReduce the whole sum.

        .equ    X, 2
        .equ    Y, 2
        .equ    Z, 2
        .equ    A, 3
        .equ    OP, 2
        .equ    ONCE, 0
        .equ    VB, VPU_SUBLANES * VPU_LANES * 4
        .equ    SHARD, (ONCE ? 6 : 2) * VB
        .equ    CHUNK, (ONCE ? 6 : 2) * VB
        .equ    DATA, 1
        .equ    NC, X * Y * Z
        .assert X >= 1 && Y >= 1 && Z >= 1 && NC <= 4096, "X, Y and Z must be >= 1 with X*Y*Z <= 4096, got %d x %d x %d", X, Y, Z
        .assert A >= 1 && A <= 3, "A (the axes) must be 1, 2 or 3, got %d", A
        .assert OP >= 0 && OP <= 2, "OP must be 0 (AllGather), 1 (ReduceScatter) or 2 (AllReduce), got %d", OP
        .assert DATA == 0 || DATA == 1, "DATA must be 0 or 1, got %d", DATA
        .assert SHARD >= 1 && SHARD % 4 == 0, "SHARD must be a positive multiple of 4 bytes, got %d", SHARD
        .assert DATA == 0 || SHARD % VB == 0, "with DATA=1 SHARD must be a multiple of a vector register (%d bytes), got %d", VB, SHARD
        .assert CHUNK >= 2 * VB && CHUNK % (2 * VB) == 0, "CHUNK must be a multiple of two vector registers (%d bytes), got %d", 2 * VB, CHUNK
        .assert ONCE == 0 || ONCE == 1, "ONCE must be 0 or 1, got %d", ONCE
        .assert ONCE == 0 || A == 3, "ONCE=1 runs the three axes at once: it needs A=3, got A=%d", A
        .assert ONCE == 0 || OP != 0 || SHARD % 24 == 0, "with ONCE=1 SHARD must be a multiple of 24 bytes (six parts of whole words), got %d", SHARD
        .assert ONCE == 0 || OP == 0 || CHUNK % (6 * VB) == 0, "with ONCE=1 CHUNK must be a multiple of six vector registers (%d bytes), got %d", 6 * VB, CHUNK
        .equ    G, A == 3 ? NC : (A == 2 ? X * Y : X)   # cores in a group
        .equ    AG, OP == 0
        .equ    RED, OP != 0
        .equ    IN_BYTES, G * CHUNK
        .equ    MIDB, ONCE ? 0 : A == 3 ? (G / X + Z) * CHUNK : (A == 2 ? G / X * CHUNK : 0)
        # all axes at once: (sum_d max(n_d - 1, 1) (G / n_d + n_(d+1) + 1)) x CHUNK / 3
        .equ    WORK3, ((X > 1 ? X - 1 : 1) * (G / X + Y + 1) + (Y > 1 ? Y - 1 : 1) * (G / Y + Z + 1) + (Z > 1 ? Z - 1 : 1) * (G / Z + X + 1)) * CHUNK / 3
        .equ    WORKB, ONCE ? WORK3 : 4 * G / X * CHUNK
        .equ    OUTB, OP == 1 ? CHUNK : IN_BYTES
        .assert AG == 0 || (1 + DATA) * G * SHARD <= VMEM_BYTES, "%d shards of %d bytes do not fit VMEM twice (make SHARD smaller or -D DATA=0)", G, SHARD
        .assert RED == 0 || (1 + (NC - 1) * DATA) * IN_BYTES + OUTB + MIDB + WORKB <= VMEM_BYTES, "the inputs of %d cores of %d bytes do not fit VMEM (make CHUNK smaller or -D DATA=0)", NC, IN_BYTES

# ---- VMEM ---------------------------------------------------------------------
        .vmem   0
        .rept   AG
OUT:    .zero   G * SHARD               # the gathered shards
        .rept   DATA
SRC:    .random f32, G * SHARD / 4, 11  # shard h of every group, as the checks expect
        .endr
        .endr
        .rept   RED
OUT:    .zero   OUTB                    # our chunk (ReduceScatter) or the sum (AllReduce)
MID:    .zero   MIDB + VB               # the blocks between the axes
WORK:   .zero   WORKB                   # ring_reducescatter's scratch
        .align  64
        .include "lib/contrib.inc"      # CONTRIB: every core's input
        .endr

# ---- code ------------------------------------------------------------------------
        .text
        .include "lib/ring.inc"
        .include "lib/torus3d.inc"
        .include "lib/torus3d_once.inc"

        t3_coords X, Y, s1, s2, s3      # s1 = x, s2 = y, s3 = z
        # s4 = h, our place in the group
        .rept   A == 3
        li      s4, Y * Z
        mul     s4, s4, s1
        li      s5, Z
        mul     s5, s5, s2
        add     s4, s4, s5
        add     s4, s4, s3
        .endr
        .rept   A == 2
        li      s4, Y
        mul     s4, s4, s1
        add     s4, s4, s2
        .endr
        .rept   A == 1
        add     s4, s1, zero
        .endr

        .rept   AG
        .rept   DATA
        li      s5, SHARD               # our shard: SRC slot h -> OUT slot h
        mul     s5, s5, s4
        li      s6, SRC
        add     s6, s6, s5
        li      s7, OUT
        add     s7, s7, s5
        li      s8, 0
copy:   vld     v0, s6, 0
        vst     v0, s7, 0
        addi    s6, s6, VB
        addi    s7, s7, VB
        addi    s8, s8, VB
        li      s9, SHARD
        blt     s8, s9, copy
        sync    vpu
        .endr
        .rept   1 - ONCE
        t3_allgather OUT, SHARD, X, Y, Z, A, s1, s2, s3
        .endr
        .rept   ONCE
        t3_allgather_once OUT, SHARD, X, Y, Z, s1, s2, s3
        .endr
        .endr

        .rept   RED
        li      s6, CONTRIB             # our input: CONTRIB + cid*IN_BYTES (DATA=1)
        li      s5, IN_BYTES * DATA
        mul     s5, s5, cid
        add     s6, s6, s5
        .rept   OP == 1 && !ONCE
        li      s7, OUT
        t3_reducescatter s6, CHUNK, X, Y, Z, A, WORK, MID, s7, s1, s2, s3
        .endr
        .rept   OP == 2 && !ONCE
        t3_allreduce s6, CHUNK, X, Y, Z, A, WORK, MID, OUT, s1, s2, s3, s7
        .endr
        .rept   OP == 1 && ONCE
        li      s7, OUT
        t3_reducescatter_once s6, CHUNK, X, Y, Z, WORK, WORKB, s7, s1, s2, s3
        .endr
        .rept   OP == 2 && ONCE
        t3_allreduce_once s6, CHUNK, X, Y, Z, WORK, WORKB, OUT, s1, s2, s3, s7
        .endr
        .endr
        halt

# ---- the checks: core g of group base b = g - g % G --------------------------------
        .rept   DATA
        .rept   AG
        .expect copy OUT, SRC, G * SHARD
        .endr
        .set    g, 0
        .rept   NC * RED
        .set    gx, g % X
        .set    gy, (g / X) % Y
        .set    gz, g / (X * Y)
        .set    gh, A == 3 ? gx * Y * Z + gy * Z + gz : (A == 2 ? gx * Y + gy : gx)
        .set    gb, g - g % G
        .rept   OP == 1
        .expect sum@g OUT, CONTRIB + gb * IN_BYTES + gh * CHUNK, IN_BYTES, G, CHUNK / 4
        .endr
        .rept   OP == 2
        .expect sum@g OUT, CONTRIB + gb * IN_BYTES, IN_BYTES, G, IN_BYTES / 4
        .endr
        .set    g, g + 1
        .endr
        .endr
