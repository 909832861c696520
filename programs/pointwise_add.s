# tpu-as: --config tiny
#
# pointwise_add.s - elementwise fp32 addition, streamed through VMEM.
#
#   Z[i] = X[i] + Y[i]      fp32 arrays of NELEM elements in HBM
#
# The core computes only on VMEM, so the arrays are streamed through it in
# chunks: DMA a chunk of X and Y from HBM into VMEM, run the VPU over it
# one vector register (VPU_SUBLANES x VPU_LANES elements) at a time, and
# DMA the result chunk back to Z in HBM.
#
# Double buffering: two VMEM buffers.  While the VPU works on chunk c in
# buffer c%2, the DMA engines fetch chunk c+1 into buffer (c+1)%2 and write
# chunk c-1 back from it.  Semaphores:
#   0, 1   inputs of the chunk in buffer 0 / 1 have landed (2 DMAs each)
#   2, 3   the result in buffer 0 / 1 has been written back to HBM
#
# The chunk loop is unrolled by the assembler (`.rept` with `.set`, and
# `.rept COND` as an "if"); the vector loop inside a chunk is a subroutine
# with a run-time loop (`jal` to call it, `bne` to loop, `jr` to return).
#
# Size: NCHUNK chunks of CHV vectors; for a sweep, e.g.
#   tpu-as --config mid -D NCHUNK=64 programs/pointwise_add.s

        .equ    NCHUNK, 4               # chunks
        .equ    CHV, 4                  # vector registers per chunk
        .equ    VEC, VPU_SUBLANES * VPU_LANES # fp32 elements in a vector register
        .equ    VBYTES, VEC * 4
        .equ    CHUNK, CHV * VBYTES     # bytes of one array in one chunk
        .equ    NELEM, NCHUNK * CHV * VEC

# ---- HBM: inputs and result ------------------------------------------------------
        .hbm    0
X:      .random f32, NELEM, 11          # uniform in [-1, 1)
        .align  64
Y:      .random f32, NELEM, 12
        .align  64
Z:      .zero   NELEM*4                 # the result

# ---- VMEM layout: buffer b at b*BUF_BYTES holds x, y and z parts.
        .equ    XOFF, 0
        .equ    YOFF, CHUNK
        .equ    ZOFF, 2*CHUNK
        .equ    BUF_BYTES, ZOFF + CHUNK

# ---- code ----------------------------------------------------------------------------
        .text
        li      s20, 1                  # every DMA here copies one row ...
        li      s21, CHUNK              # ... of CHUNK bytes (so the strides do not matter)

        .set    t, 0
        .rept   NCHUNK + 1
          .rept t < NCHUNK              # ---- step t: fetch chunk t into buffer t%2
          li      s1, (t%2)*BUF_BYTES + XOFF
          li      s2, X + t*CHUNK
          dma.h2v s1, s2, s20, s21, s21, s21, t%2
          li      s1, (t%2)*BUF_BYTES + YOFF
          li      s2, Y + t*CHUNK
          dma.h2v s1, s2, s20, s21, s21, s21, t%2
          .endr

          .rept t >= 1                  # ---- and compute chunk c = t-1 in buffer c%2
          .set    c, t - 1
          sem.wait c%2, 2               # its inputs have landed
            .rept c >= 2
            sem.wait 2 + c%2, 1         # chunk c-2's result has left this buffer
            .endr
          li      s3, (c%2)*BUF_BYTES + XOFF
          li      s4, (c%2)*BUF_BYTES + YOFF
          li      s5, (c%2)*BUF_BYTES + ZOFF
          li      s6, CHV
          jal     s30, add_vectors      # the VPU loop over the chunk's vectors
          sync    vpu                   # every vst of the chunk has reached VMEM
          li      s1, Z + c*CHUNK
          li      s2, (c%2)*BUF_BYTES + ZOFF
          dma.v2h s1, s2, s20, s21, s21, s21, 2 + c%2
          .endr
        .set    t, t + 1
        .endr

        halt                            # waits for the last write-backs too

# add_vectors: z[i] = x[i] + y[i] for s6 vector registers' worth of elements
#   in:  s3 = x, s4 = y, s5 = z, s6 = number of vectors (>= 1)
#   out: returns to s30
add_vectors:
        vld     v0, s3, 0
        vld     v1, s4, 0
        vadd    v2, v0, v1
        vst     v2, s5, 0
        addi    s3, s3, VBYTES
        addi    s4, s4, VBYTES
        addi    s5, s5, VBYTES
        addi    s6, s6, -1
        bne     s6, zero, add_vectors
        jr      s30

# ---- check ------------------------------------------------------------------------------
        .expect add Z, X, Y, NELEM
