# ici.s - RTL directed test of the ICI ports (T30-T31) on two cores: both
# cores send at once on both ports (the ring of two: ports 0 and 1 both
# lead to the other core), a transfer of 0 bytes, transfers queued behind a
# busy port, odd sizes, two ports writing the same bytes in one cycle, and
# DMA traffic beside them.
        .vmem   0
MSG:    .random f32, 64, 41
        .align  64
IN0:    .zero   512
IN1:    .zero   512
        .hbm    0
H:      .random f32, 64, 42

        .text
        li      s1, IN0
        li      s2, MSG
        li      s3, 37                          # odd size
        li      s4, IN1
        li      s5, 100
        dma.ici 0, s1, s2, s3, 0, 1             # -> IN0 on the other core
        dma.ici 1, s4, s2, s5, 2, 3             # -> IN1, at the same time
        dma.ici 0, s1, s2, zero, 4, 5           # 0 bytes, waits for port 0
        addi    s6, s1, 16
        dma.ici 1, s6, s2, s3, 2, 3             # overlaps the first at IN0+16
        li      s7, 256
        li      s8, H
        li      s9, 1
        dma.h2v s7, s8, s9, s5, zero, zero, 6   # DMA beside the ICI
        sem.wait 0, 1
        sem.wait 2, 2
        sem.wait 4, 1
        sem.wait 6, 1
        sem.wait 1, 1                           # the other core's sends landed here
        sem.wait 3, 2
        sem.wait 5, 1
        halt
