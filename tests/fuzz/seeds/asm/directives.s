# every kind of statement in a few lines: sections, data, expressions, .rept, .expect
        .equ    N, 4
        .text
start:  li      s1, (N << 2) + 0x10
        addi    s2, s1, -1
        .rept   2
        nop
        .endr
        beq     s1, s2, start
        halt
        .hbm    0
X:      .random f32, N, 1, -1, 1
Y:      .bf16   1.5, -2, inf, nan
Z:      .zero   16
        .expect copy Z, Z, 16
