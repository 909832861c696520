# tpu-as: --config tiny
#
# Lab 2, a reference solution (docs/labs/02-pointwise.md): Z = relu(X + Y)
# at over 90% of the HBM roofline.  Chunks go through a ring of R slots in
# VMEM; while chunk c is computed the inputs of the next R-1 chunks are on
# their way, so the DMA engines overlap each other's HBM latency and HBM
# never waits for the VPU.  Chunks are large (CH bytes per array) because
# every DMA holds an engine for the whole HBM latency.
#
# Semaphores: 0..R-1 inputs of slot r landed; R..2R-1 result of slot r
# written back.

        .equ    NELEM, 65536
        .equ    VBYTES, VPU_SUBLANES * VPU_LANES * 4
        .equ    CH, 16384
        .equ    NCHUNK, NELEM * 4 / CH
        .equ    R, 4
        .assert NELEM * 4 % CH == 0, "NELEM*4 must be a multiple of CH (%d)", CH
        .assert 2 * R * CH <= VMEM_BYTES, "the ring needs %d bytes of VMEM", 2 * R * CH

        .hbm    0
X:      .random f32, NELEM, 1, -4, 4
        .align  64
Y:      .random f32, NELEM, 2, -4, 4
        .align  64
Z:      .zero   NELEM*4

        .equ    SLOT, 0                 # slot r: X chunk at SLOT + r*2*CH, Y chunk after it

        .text
        li      s20, 1
        li      s21, CH
        li      s22, 0
        .set    t, 0
        .rept   NCHUNK + R - 1
          .set    c, t - (R - 1)
          .rept   c >= 0                # compute chunk c in slot c%R
            sem.wait c%R, 2
            li      s5, SLOT + (c%R)*2*CH
            li      s6, SLOT + (c%R)*2*CH + CH
            jal     s30, vectors
            sync    vpu
            li      s1, Z + c*CH
            li      s2, SLOT + (c%R)*2*CH
            dma.v2h s1, s2, s20, s21, s22, s22, R + c%R
          .endr
          .rept   t < NCHUNK            # fetch chunk t
            .rept   t >= R
              sem.wait R + t%R, 1       # chunk t-R's result has left the slot
            .endr
            li      s1, SLOT + (t%R)*2*CH
            li      s2, X + t*CH
            dma.h2v s1, s2, s20, s21, s22, s22, t%R
            li      s1, SLOT + (t%R)*2*CH + CH
            li      s2, Y + t*CH
            dma.h2v s1, s2, s20, s21, s22, s22, t%R
          .endr
          .set    t, t + 1
        .endr
        halt

vectors:
        vld     v0, s5, 0
        vld     v1, s5, CH
        vadd    v2, v0, v1
        vrelu   v3, v2
        vst     v3, s5, 0
        addi    s5, s5, VBYTES
        bne     s5, s6, vectors
        jr      s30

# ---- check: tpu-sim compares Z with this (the grader uses its own check) ----
        .expect add_relu Z, X, Y, NELEM
