# tpu-as: --config tiny
#
# pointwise.s - elementwise fp32 work streamed through VMEM:
#
#   OP = 0 (add):   Z[i] = X[i] + Y[i]
#   OP = 1 (mul):   Z[i] = X[i] * Y[i]
#   OP = 2 (relu):  Z[i] = max(X[i], +0)
#
# for NELEM elements in HBM, e.g.
#   tpu-as --config v5e -D OP=1 -D NCHUNK=64 programs/pointwise.s
#
# Elementwise work does 1 FLOP per 12 bytes (add, mul) or 8 bytes (relu) of
# HBM traffic: far left of any ridge, so it is memory-bound on every
# machine.  The program's job is to keep HBM busy all the time.
#
# The plan
# --------
# The arrays are cut into NCHUNK chunks of CH bytes.  A ring of R slots in
# VMEM holds chunks in flight: slot r has room for a chunk of X and a chunk
# of Y.  For chunk c (slot c%R):
#   - wait until its inputs have landed,
#   - run the VPU over it one vector register (VPU_SUBLANES x VPU_LANES
#     fp32) at a time: vld, vld, op, vst (the result overwrites X's chunk),
#   - `sync vpu`, then DMA the result chunk back to Z,
#   - fetch chunk c + R - 1 into the slot chunk c - 1 used, once its result
#     has left (its write-back semaphore).
# So R - 1 chunks are on their way in while one is computed: the DMA
# engines hide the HBM latency behind each other's transfers.  Chunks are
# large (up to 256 KiB) because every DMA holds an engine for the whole
# latency.
#
# Semaphores: 0..R-1 inputs of slot r landed; R..2R-1 result of slot r
# written back.

        .equ    ADD, 0
        .equ    MUL, 1
        .equ    RELU, 2
        .equ    OP, ADD                 # which operation (-D OP=1 for mul)
        .equ    NCHUNK, 8               # chunks

        .equ    VBYTES, VPU_SUBLANES * VPU_LANES * 4  # bytes of a vector register
        .equ    CH0, VMEM_BYTES / 32 < 262144 ? VMEM_BYTES / 32 : 262144
        .equ    CH, CH0 / VBYTES * VBYTES  # bytes of one array in one chunk
        .equ    NELEM, NCHUNK * CH / 4
        .equ    R, 4                    # slots in the ring
        .equ    BINARY, OP != RELU      # does the op read Y?
        .equ    NIN, BINARY ? 2 : 1     # input DMAs per chunk

# The parameters are checked before anything uses them.
        .assert OP >= 0 && OP <= 2, "OP must be 0 (add), 1 (mul) or 2 (relu), got %d", OP
        .assert NCHUNK >= 1 && NCHUNK <= 1 << 20, "NCHUNK (chunks) must be 1 to %d, got %d", 1 << 20, NCHUNK
        .assert CH > 0 && CH <= 1 << 30 && CH % VBYTES == 0, "CH (bytes of a chunk) must be a positive multiple of %d (a vector register), got %d", VBYTES, CH
        .assert R >= 2 && R <= 16, "R (slots in the ring) must be 2 to 16, got %d", R
        .assert 2*R*CH <= VMEM_BYTES, "R slots of 2 chunks of CH bytes need %d bytes of VMEM, the machine has %d", 2*R*CH, VMEM_BYTES
        .equ    HBM_NEED, 3 * ((NELEM*4 + 63) / 64 * 64)
        .assert HBM_NEED <= HBM_BYTES, "NCHUNK chunks of X, Y and Z need %d bytes of HBM, the machine has %d", HBM_NEED, HBM_BYTES
        .assert HBM_NEED < 1 << 31, "NCHUNK chunks of X, Y and Z need addresses beyond 2 GiB, which li cannot load"

# ---- HBM: the arrays --------------------------------------------------------------
        .hbm    0
X:      .random f32, NELEM, 1, -4, 4
        .align  64
Y:      .random f32, NELEM, 2, -4, 4
        .align  64
Z:      .zero   NELEM*4

# ---- VMEM: the ring ---------------------------------------------------------------
        .equ    SLOT, 0                 # slot r: X chunk at SLOT + r*2*CH, Y chunk after it

# ---- code -------------------------------------------------------------------------
        .text
        li      s20, 1                  # rows of every DMA: chunks are contiguous
        li      s21, CH                 # bytes of a chunk
        li      s22, 0                  # strides (one row)

        # Iteration t computes chunk c = t - (R-1) (when there is one), then
        # fetches chunk t into the slot chunk t-R used.  The first R-1
        # iterations only fetch.
        .set    t, 0
        .rept   NCHUNK + R - 1
          .set    c, t - (R - 1)
          .rept   c >= 0                # ---- compute chunk c in slot c%R
            sem.wait c%R, NIN           # its inputs have landed
            li      s5, SLOT + (c%R)*2*CH       # its first vector register
            li      s6, SLOT + (c%R)*2*CH + CH  # the end of its X part
            jal     s30, vectors        # the VPU over the chunk, back to here
            sync    vpu                 # every vst has written VMEM
            li      s1, Z + c*CH
            li      s2, SLOT + (c%R)*2*CH
            dma.v2h s1, s2, s20, s21, s22, s22, R + c%R
          .endr
          .rept   t < NCHUNK            # ---- fetch chunk t
            .rept   t >= R
              sem.wait R + t%R, 1       # chunk t-R's result has left the slot
            .endr
            li      s1, SLOT + (t%R)*2*CH
            li      s2, X + t*CH
            dma.h2v s1, s2, s20, s21, s22, s22, t%R
            .rept   BINARY
              li      s1, SLOT + (t%R)*2*CH + CH
              li      s2, Y + t*CH
              dma.h2v s1, s2, s20, s21, s22, s22, t%R
            .endr
          .endr
          .set    t, t + 1
        .endr
        halt                            # waits for the last write-backs

# vectors: Z = X op Y over [s5, s6), one vector register at a time; Y lies
# CH bytes after X; the result overwrites X.  Returns to s30.
vectors:
        vld     v0, s5, 0
        .rept   BINARY
        vld     v1, s5, CH
        .endr
        .rept   OP == ADD
        vadd    v2, v0, v1
        .endr
        .rept   OP == MUL
        vmul    v2, v0, v1
        .endr
        .rept   OP == RELU
        vrelu   v2, v0
        .endr
        vst     v2, s5, 0
        addi    s5, s5, VBYTES
        bne     s5, s6, vectors
        jr      s30

# ---- check -------------------------------------------------------------------------
        .rept   OP == ADD
        .expect add Z, X, Y, NELEM
        .endr
        .rept   OP == MUL
        .expect mul Z, X, Y, NELEM
        .endr
        .rept   OP == RELU
        .expect relu Z, X, NELEM
        .endr
