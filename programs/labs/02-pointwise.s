# tpu-as: --config tiny
#
# Lab 2 starter (docs/labs/02-pointwise.md): a bias and a ReLU, elementwise,
#
#   Z[i] = relu(X[i] + Y[i])      X, Y, Z fp32 in HBM, NELEM elements
#
# It is correct but slow: it brings one chunk in, computes it, writes it
# back and waits for each step before starting the next, so HBM sits idle
# while the VPU works and the DMA engines wait for each other.  Your job:
# keep HBM busy all the time and reach 90% of the HBM roofline.
#
# Keep the labels X, Y and Z and their data lines as they are: the grader
# checks that the data are the lab's, and computes Z itself.  Sizes come
# from the grader: tpu-lab passes -D NELEM=... for each machine.
#
#   tpu-as --config tiny -D NELEM=32768 -o p.bin programs/labs/02-pointwise.s
#   tpu-sim --config tiny p.bin
#   tpu-lab grade 2 programs/labs/02-pointwise.s

        .equ    NELEM, 32768            # elements (the grader sets it)
        .equ    VBYTES, VPU_SUBLANES * VPU_LANES * 4   # bytes of a vector register
        .equ    CH, 8192                # bytes of one array in one chunk
        .equ    NCHUNK, NELEM * 4 / CH
        .assert NELEM * 4 % CH == 0, "NELEM*4 must be a multiple of CH (%d)", CH
        .assert CH % VBYTES == 0, "CH must be a multiple of a vector register (%d bytes)", VBYTES

# ---- HBM: the arrays (keep these lines) ---------------------------------------------
        .hbm    0
X:      .random f32, NELEM, 1, -4, 4
        .align  64
Y:      .random f32, NELEM, 2, -4, 4
        .align  64
Z:      .zero   NELEM*4

# ---- VMEM: one chunk of X and one of Y -----------------------------------------------
        .equ    XV, 0
        .equ    YV, CH

        .text
        li      s20, 1                  # rows of every DMA: a chunk is contiguous
        li      s21, CH                 # bytes of a chunk
        li      s22, 0                  # strides (one row)
        li      s10, 0                  # byte offset of the chunk
        li      s11, NELEM * 4          # the end
chunk:
        li      s1, XV                  # X chunk -> VMEM
        li      s2, X
        add     s2, s2, s10
        dma.h2v s1, s2, s20, s21, s22, s22, 0
        li      s1, YV                  # Y chunk -> VMEM
        li      s2, Y
        add     s2, s2, s10
        dma.h2v s1, s2, s20, s21, s22, s22, 0
        sem.wait 0, 2                   # both have landed
        li      s5, XV
        li      s6, XV + CH
vectors:
        vld     v0, s5, 0               # X
        vld     v1, s5, YV - XV         # Y
        vadd    v2, v0, v1
        vrelu   v3, v2
        vst     v3, s5, 0               # the result overwrites X's chunk
        addi    s5, s5, VBYTES
        bne     s5, s6, vectors
        sync    vpu                     # every vst has written VMEM
        li      s1, Z                   # the chunk of Z -> HBM
        add     s1, s1, s10
        li      s2, XV
        dma.v2h s1, s2, s20, s21, s22, s22, 1
        sem.wait 1, 1                   # and wait for it
        addi    s10, s10, CH
        bne     s10, s11, chunk
        halt

# ---- check: tpu-sim compares Z with this (the grader uses its own check) ----
        .expect add_relu Z, X, Y, NELEM
