        li s1, 1
        bogus s1
        halt
