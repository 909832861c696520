# err_vpu_range.s - RTL directed test (T5): vld at rs + imm with a
# negative sum (the address wraps below 0).
        li      s1, 64
        vld     v0, s1, 0
        vld     v1, s1, -128
        halt
