# tpu-as: --config tiny
#
# ici_exchange.s - two cores: core 0 sends a vector to core 1 over ICI.
#
# Run it on a system of two cores (a ring: port 0 of core 0 leads to core 1),
# e.g.  tpu-sim --cores 2 programs/ici_exchange.bin
#
# Every core runs the same program; each finds out which one it is from the
# read-only register `cid` (the core id) and branches.
#
#   core 0: dma.ici copies MSG from its own VMEM into core 1's VMEM at INBOX.
#           Its semaphore 0 counts up when the last byte has left; it waits
#           for that before halting (its VMEM must not change under the send).
#   core 1: waits on its semaphore 1, which counts up when the last byte has
#           landed in its VMEM, then halts.
#
# `.expect copy@1 INBOX, MSG, NBYTES` checks, on core 1 only, that INBOX ends
# up holding the bytes MSG was loaded with.

        .equ    VEC, VPU_SUBLANES * VPU_LANES   # one vector register of fp32
        .equ    NBYTES, VEC * 4
        .equ    PORT, 0                 # ring: port 0 goes to core (cid + 1) mod 2
        .equ    SENT, 0                 # semaphore: the sender's "all bytes left"
        .equ    ARRIVED, 1              # semaphore: the receiver's "all bytes landed"
        .assert PORT == 0 || PORT == 1, "PORT must be 0 or 1 (a ring's ports: both lead to the other core of two), got %d", PORT
        .assert SENT >= 0 && SENT <= 31 && ARRIVED >= 0 && ARRIVED <= 31, "SENT and ARRIVED must be semaphores 0 to 31, got %d and %d", SENT, ARRIVED

# ---- VMEM of every core (each core gets its own copy of this data) -------------
        .vmem   0
MSG:    .random f32, VEC, 7             # the vector to send
        .align  64
INBOX:  .zero   NBYTES                  # where core 1 receives it

# ---- code ------------------------------------------------------------------------
        .text
        bne     cid, zero, receiver     # core 1 (any core but 0) receives

sender:                                 # ---- core 0
        li      s1, INBOX               # destination address in the neighbour's VMEM
        li      s2, MSG                 # source address in our VMEM
        li      s3, NBYTES
        dma.ici PORT, s1, s2, s3, SENT, ARRIVED
        sem.wait SENT, 1                # the last byte is on the wire
        halt

receiver:                               # ---- core 1
        sem.wait ARRIVED, 1             # the last byte has been written here
        halt

# ---- check ----------------------------------------------------------------------------
        .expect copy@1 INBOX, MSG, NBYTES
