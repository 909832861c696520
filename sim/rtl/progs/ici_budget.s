# ici_budget.s - RTL directed test of the VMEM budget shared by the VPU,
# the DMA and outgoing ICI (T11, T12; docs/cosim.md, "Mutants"): both
# cores send 400 bytes while the VPU loads a vector (256 bytes) nearly every
# cycle and the DMA runs copies of 5 bytes, fewer than HBM offers in a
# cycle.  On a machine whose budget binds (sim/cosim/tiny-odd.cfg: 272
# bytes a cycle) outgoing ICI gets what the VPU and the DMA leave: the
# bytes the DMA really used, not its whole offer (mutant 22 of
# sim/cosim/mutants.def, which no other test caught).  Whether a cycle
# shows it depends on where the HBM
# and ICI credits are in their carries, so the same traffic runs twice, the
# second send starting one cycle later.
        .vmem   0
MSG:    .random f32, 100, 43
        .align  256
IN0:    .zero   512
IN1:    .zero   512
V:      .random f32, 64, 44
        .align  256
OUT:    .zero   256
        .hbm    0
H:      .random f32, 64, 45

        .text
        li      s1, IN0
        li      s2, MSG
        li      s3, 400
        li      s4, V
        li      s5, OUT
        li      s6, H
        li      s7, 1
        li      s8, 5
        dma.ici 0, s1, s2, s3, 0, 1             # -> IN0 on the other core
        .rept 12
        dma.h2v s5, s6, s7, s8, zero, zero, 2
        vld     v0, s4, 0
        vld     v1, s4, 0
        vld     v2, s4, 0
        vld     v3, s4, 0
        vld     v4, s4, 0
        vld     v5, s4, 0
        vld     v6, s4, 0
        vld     v7, s4, 0
        .endr
        sem.wait 0, 1
        sem.wait 2, 12
        sem.wait 1, 1                           # the other core's send landed
        li      s1, IN1
        nop                                     # one cycle later than above
        dma.ici 1, s1, s2, s3, 3, 4             # -> IN1 on the other core
        .rept 12
        dma.h2v s5, s6, s7, s8, zero, zero, 2
        vld     v0, s4, 0
        vld     v1, s4, 0
        vld     v2, s4, 0
        vld     v3, s4, 0
        vld     v4, s4, 0
        vld     v5, s4, 0
        vld     v6, s4, 0
        vld     v7, s4, 0
        .endr
        sem.wait 3, 1
        sem.wait 2, 12
        sem.wait 4, 1
        halt
