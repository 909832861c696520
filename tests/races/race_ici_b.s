# tpu-as: --config tiny
#
# race_ici_b.s - a seeded race of kind (b) across cores (tests/races.sh;
# run with --cores 2): core 1 copies its inbox out to HBM while core 0's
# dma.ici is already filling it (core 1 should have copied it out first
# and then told core 0 to send).  The incoming bytes land on the first
# bytes of the inbox before the dma.v2h reads them.

        .equ    VEC, VPU_SUBLANES * VPU_LANES
        .equ    NBYTES, VEC * 4
        .hbm    0
OUT:    .zero   NBYTES

        .vmem   0
MSG:    .random f32, VEC, 7
        .align  64
INBOX:  .random f32, VEC, 8

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
        li      s2, OUT
        li      s3, 1
        li      s4, NBYTES
        dma.v2h s2, s1, s3, s4, zero, zero, 2   # the old inbox, read too late
        sem.wait 2, 1
        sem.wait 1, 1
        halt
