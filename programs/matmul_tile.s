# tpu-as: --config tiny
#
# matmul_tile.s - the smallest matrix multiply: one weight tile, one stream.
#
#   Y[M,N] = X[M,N] . W[N,N]      X, W bf16; Y fp32; N = MXU_N (the array size)
#
# Everything already sits in VMEM (placed by the object file), so there is
# no DMA: load the weights into MXU 0, stream the M rows of X through the
# array, and let the MXU write the M result rows.  `.expect matmul` at the
# end asks the simulator to compare Y with the reference result, bit for bit.
#
# Try:  tpu-as --config tiny programs/matmul_tile.s && tpu-sim programs/matmul_tile.bin

        .equ    N, MXU_N                # array size, from --config
        .equ    M, 16                   # rows of X streamed through the array
        .assert M >= 1 && M <= 1 << 20, "M (rows of X) must be 1 to %d, got %d", 1 << 20, M
        .equ    VMEM_NEED, ((2*M*N + 63) / 64 * 64 + 2*N*N + 63) / 64 * 64 + 4*M*N
        .assert VMEM_NEED <= VMEM_BYTES, "M = %d rows need %d bytes of VMEM (X, W and Y), the machine has %d", M, VMEM_NEED, VMEM_BYTES

# ---- data: VMEM layout ------------------------------------------------------
# Labels in a data section are byte addresses.  The MXU wants bf16 operands
# 2-byte aligned and fp32 results 4-byte aligned; .align makes that explicit.

        .vmem   0
X:      .random bf16, M*N, 1            # M x N bf16, row-major, uniform in [-1, 1)
        .align  64
W:      .random bf16, N*N, 2            # N x N bf16, row r at W + r*2N
        .align  64
Y:      .zero   M*N*4                   # M x N fp32 result

# ---- code ---------------------------------------------------------------------
        .text
        li      s1, W                   # weights: address of row 0 ...
        li      s2, 2*N                 # ... and the distance between rows (bytes)
        mxu.lw  0, s1, s2, 0            # load W into MXU 0's shadow buffer;
                                        # semaphore 0 counts 1 when W has been read

        li      s3, Y                   # destination of result row 0
        li      s4, X                   # source of LHS row 0
        li      s5, M                   # number of rows to stream
        li      s6, 4*N                 # result row stride: N fp32 values
        # Row i: Y[i] = X[i] . W.  The first stream after mxu.lw switches to the
        # new weights by itself.  Source stride 2N: X rows are packed.
        # Semaphore 1 counts 1 when the last result row is in VMEM.
        mxu.mm  0, s3, s4, s5, s2, s6, 1

        sem.wait 1, 1                   # every result row has been written
        halt

# ---- check ----------------------------------------------------------------------
        .expect matmul Y, X, W, M, N, N
