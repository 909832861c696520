# err_deadlock2.s - RTL directed test (T10 across cores): core 1 halts,
# core 0 waits for a semaphore only core 1 could have bumped.  The
# deadlock is found once core 1 has halted and no link carries bytes.
# (dma.ici below is never executed; it marks this as a two-core program.)
        bne     cid, zero, one
        sem.wait 9, 1
        halt
one:    li      s1, 5
        halt
        dma.ici 0, s1, s1, zero, 0, 0
