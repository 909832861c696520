# dma.s - RTL directed test of the DMA engines (T13-T18): 2-D copies both
# ways with odd row sizes and negative strides, copies of 0 bytes, more
# copies than engines and queue entries (queue full, no idle engine), two
# engines sharing the HBM credit and landing on the same bytes in one
# cycle (the later start wins), semaphores counting several completions.
        .hbm    0
SRC:    .random f32, 256, 11
        .hbm    0x2000
HOUT:   .zero   4096
        .vmem   0
V:      .zero   2048
        .vmem   0x1000
V2:     .random f32, 64, 12

        .text
        li      s1, V
        li      s2, SRC
        li      s3, 16                  # rows
        li      s4, 3                   # bytes per row
        li      s5, 7                   # source stride
        li      s6, 5                   # destination stride
        dma.h2v s1, s2, s3, s4, s5, s6, 0
        li      s7, 1
        li      s8, 37
        addi    s9, s1, 200
        dma.h2v s9, s2, s7, s8, zero, zero, 0      # one row of 37 bytes
        li      s10, 0
        dma.h2v s9, s2, s10, s8, zero, zero, 1     # 0 rows: done after the wait
        dma.h2v s9, s2, s7, s10, zero, zero, 1     # 0 bytes per row
        addi    s11, s1, 400
        li      s12, 1
        li      s13, 40
        li      s14, -2
        addi    s15, s2, 300
        dma.h2v s11, s15, s13, s12, s14, s12, 2    # 40 rows of 1 byte, source going down
        sem.wait 0, 2
        sem.wait 1, 2
        sem.wait 2, 1
# VMEM -> HBM, two engines in flight, overlapping destinations
        li      s1, HOUT
        li      s2, V2
        li      s3, 4
        li      s4, 64
        li      s5, 64
        li      s6, 96
        dma.v2h s1, s2, s3, s4, s5, s6, 3
        addi    s7, s1, 32
        dma.v2h s7, s2, s3, s4, s5, s6, 3          # overlaps the first
        li      s8, 2
        li      s9, 5
        li      s10, 1
        dma.v2h s1, s2, s8, s9, s10, s10, 4
        dma.v2h s1, s2, s8, s9, s10, s10, 4
        dma.v2h s1, s2, s8, s9, s10, s10, 4
        dma.v2h s1, s2, s8, s9, s10, s10, 4
        dma.v2h s1, s2, s8, s9, s10, s10, 4
        dma.v2h s1, s2, s8, s9, s10, s10, 4
        sync    dma
        sem.wait 3, 2
        sem.wait 4, 6
# HBM -> VMEM -> HBM round trip of a bigger block
        li      s1, 0x1800
        li      s2, SRC
        li      s3, 1
        li      s4, 1000
        dma.h2v s1, s2, s3, s4, zero, zero, 5
        sem.wait 5, 1
        li      s5, HOUT + 2048
        dma.v2h s5, s1, s3, s4, zero, zero, 5
        sem.wait 5, 1
        halt
