# tpu-as: --config programs/tut4.cfg
#
# tutorial_4x4.s - the matmul that docs/tutorial.md steps through, cycle by
# cycle, on a 4 x 4 array (programs/tut4.cfg):
#
#   Y[M,N] = X[M,N] . W[N,N]      M = 6 LHS rows, N = MXU_N; X, W bf16, Y fp32
#
# The numbers are small integers chosen so that every cell can be read:
# W[k][c] = 10*(k+1) + c (row k of the weights is 10+c, 20+c, ...), and
# X[b][k] = b + 1 (every element of LHS row b is b + 1), so the partial sum
# leaving cell (k, c) for row b is (b+1) * (W[0][c] + ... + W[k][c]).
# W and X start in HBM; two DMAs bring them to VMEM, then MXU 0 loads the
# weights and streams the six rows through the array.
#
#   tpu-as --config programs/tut4.cfg programs/tutorial_4x4.s -o tut4.bin
#   tpu-sim --config programs/tut4.cfg --step tut4.bin
#
# It works for any array size N (odd ones too: Y is 4-byte aligned), e.g.
# a copy of tut4.cfg with mxu_n = 3.

        .equ    N, MXU_N                # any N the machine has (2, 3, 4, ... 256)
        .equ    M, 6
        .assert M >= 1 && M <= 4096, "M (rows of X) must be 1 to 4096, got %d", M

# ---- HBM: the operands ---------------------------------------------------------
        .hbm    0
W:      .set    k, 0
        .rept   N
          .set    c, 0
          .rept   N
            .bf16   10*(k+1) + c
            .set    c, c + 1
          .endr
          .set    k, k + 1
        .endr
X:      .set    b, 0
        .rept   M
          .rept   N
            .bf16   b + 1
          .endr
          .set    b, b + 1
        .endr

# ---- VMEM layout -----------------------------------------------------------------
        .equ    WV, 0                   # N x N bf16
        .equ    XV, 2*N*N               # M x N bf16
        .equ    YV, (2*N*N + 2*M*N + 3) / 4 * 4   # M x N fp32, 4-byte aligned (odd N)
        .assert YV + 4*M*N <= VMEM_BYTES, "N = %d and M = %d need %d bytes of VMEM, the machine has %d", N, M, YV + 4*M*N, VMEM_BYTES
        .vmem   YV
Y:      .zero   4*M*N

        .text
start:  li      s1, WV                  # W: HBM -> VMEM, one copy of N*N*2 bytes
        li      s2, W
        li      s3, 1
        li      s4, 2*N*N
        dma.h2v s1, s2, s3, s4, s4, s4, 0
        li      s1, XV                  # X: HBM -> VMEM
        li      s2, X
        li      s4, 2*M*N
        dma.h2v s1, s2, s3, s4, s4, s4, 0
landed: sem.wait 0, 2                   # both copies have landed

load:   li      s1, WV
        li      s2, 2*N                 # weight rows are 2N bytes apart
        mxu.lw  0, s1, s2, 1            # W into MXU 0 (sem 1 when it is read)

stream: li      s3, Y
        li      s4, XV
        li      s5, M
        li      s6, 4*N
        mxu.mm  0, s3, s4, s5, s2, s6, 2   # Y = X . W (sem 2 with the last row)
wait:   sem.wait 2, 1
done:   halt

        .expect matmul Y, X, W, M, N, N
