# err_pc.s - RTL directed test: a jump beyond IMEM stops the run with
# "pc outside IMEM" in the cycle the sequencer looks there.
        li      s1, 1
        slli    s1, s1, 40
        jr      s1
