# err_deadlock.s - RTL directed test (T10): a sem.wait that nothing can
# satisfy, with every unit idle, is a deadlock error in its first cycle.
        li      s1, 3
        sem.wait 4, 1
        halt
