# tpu-as: --config tiny
#
# race_ici.s - a seeded race of kind (a) across cores (tests/races.sh; run
# with --cores 2): core 0 sends a vector to core 1 with dma.ici, and core 1
# loads it with vld without waiting for the copy's rsem.  The vld reads
# the inbox before the incoming bytes have landed.

        .equ    VEC, VPU_SUBLANES * VPU_LANES
        .equ    NBYTES, VEC * 4

        .vmem   0
MSG:    .random f32, VEC, 7
        .align  64
INBOX:  .zero   NBYTES

        .text
        bne     cid, zero, receiver

sender:
        li      s1, INBOX
        li      s2, MSG
        li      s3, NBYTES
        dma.ici 0, s1, s2, s3, 0, 1
        sem.wait 0, 1
        halt

receiver:
        li      s1, INBOX
        nop
        nop
        vld     v0, s1, 0               # no sem.wait 1, 1 before it
        sem.wait 1, 1
        halt
