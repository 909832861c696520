# tpu-as: --config tiny
#
# matmul_twice.s - two tiled matmuls of different sizes, one after the
# other, with the macro of programs/lib/matmul.inc:
#
#   Y1[B1,F1] = X1[B1,D1] . W1[D1,F1]
#   Y2[B2,F2] = X2[B2,D2] . W2[D2,F2]
#
# The calls use different semaphores and VMEM, so the first returns as soon
# as its last instruction is issued (WAIT=0) and the second's prologue (its
# first W blocks and X) loads while the first's last tiles compute and its
# results go back to HBM; tiled_matmul_wait then waits for the first call.
# Sizes follow the machine (MXU_N, NUM_MXU) and may come from the command
# line: tpu-as --config mid -D B1=32 programs/matmul_twice.s

        .equ    B1, 16
        .equ    D1, 2 * MXU_N
        .equ    F1, 2 * MXU_N * NUM_MXU
        .equ    B2, 8
        .equ    D2, 3 * MXU_N
        .equ    F2, MXU_N * NUM_MXU
        .equ    R, 4                    # ring slots: 2*R + 5 = 13 semaphores a call

# ---- HBM: the operands and the results ----------------------------------------------
        .hbm    0
X1:     .random bf16, B1*D1, 1
        .align  64
W1:     .random bf16, D1*F1, 2
        .align  64
Y1:     .zero   B1*F1*4
        .align  64
X2:     .random bf16, B2*D2, 3
        .align  64
W2:     .random bf16, D2*F2, 4
        .align  64
Y2:     .zero   B2*F2*4

# ---- code -----------------------------------------------------------------------------
        .text
        .include "lib/matmul.inc"
        tiled_matmul X1, W1, Y1, B1, D1, F1, SEM=0, VBASE=0, R=R, WAIT=0
        tiled_matmul X2, W2, Y2, B2, D2, F2, SEM=2*R + 5, VBASE=mm.vmem_end, R=R
        tiled_matmul_wait B1, D1, F1, SEM=0, R=R
        halt

# ---- check ------------------------------------------------------------------------------
        .expect matmul Y1, X1, W1, B1, D1, F1
        .expect matmul Y2, X2, W2, B2, D2, F2
