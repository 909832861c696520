# int8_budget.s - RTL directed test of dma.h2v.i8 under a VMEM budget that
# binds (T18a; docs/timing.md section 2): a widening copy and a plain one
# run beside vld of a whole vector nearly every cycle.  A widening engine
# takes min(credit, left / 2) HBM bytes (two VMEM bytes each), a plain one
# min(credit, left).  On tiny the budget (512 bytes a cycle) never binds;
# on sim/cosim/tiny-odd.cfg (272: a vld leaves 16) it does, which is what
# kills mutant 63 of sim/cosim/mutants.def (the widening engine charged one
# byte an HBM byte).
        .vmem   0
V:      .random f32, VPU_SUBLANES*VPU_LANES, 51
        .align  256
DW:     .zero   2*1500
        .align  64
DP:     .zero   700
        .hbm    0
HW:     .random i8, 1500, 52
        .align  64
HP:     .random i8, 700, 53

        .text
        li      s1, DW
        li      s2, HW
        li      s3, 1
        li      s4, 1500
        li      s5, DP
        li      s6, HP
        li      s7, 700
        li      s8, V
        dma.h2v.i8 s1, s2, s3, s4, s4, s4, 1    # one row of 1500 int8 -> 3000 bytes
        dma.h2v    s5, s6, s3, s7, s7, s7, 2    # beside it, 700 plain bytes
        .rept   150
        vld     v0, s8, 0
        .endr
        sem.wait 1, 1
        sem.wait 2, 1
        .rept   40                              # the budget free again
        vld     v1, s8, 0
        .endr
        halt
