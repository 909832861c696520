# err_ici_port.s - RTL directed test (T5, section 6): dma.ici on port 2,
# which a ring leaves unconnected, stops the run at issue.
        li      s1, 64
        dma.ici 2, s1, s1, s1, 0, 0
        halt
