# err_illegal.s - RTL directed test: an illegal word (a reserved bit set in
# an add) stops the run at issue; both models must stop in the same cycle.
        li      s1, 1
        add     s2, s1, s1
        .insn   0x0000000100000010
        halt
