# scalar.s - RTL directed test: every scalar ALU operation, branches, jumps,
# sem.wait with a zero count and sync on idle units (sequencer only).
# rtl-bench --lockstep compares each register write with the C model.
        li      s1, 5
        li      s2, -3
        li      s3, 0x7fffffff
        li      s4, -2147483648
        add     s5, s1, s2
        sub     s6, s2, s1
        mul     s7, s3, s3
        mul     s8, s7, s7
        and     s9, s2, s3
        or      s10, s1, s4
        xor     s11, s2, s4
        li      s12, 63
        sll     s13, s2, s12
        srl     s14, s2, s1
        sra     s15, s2, s1
        sra     s16, s13, s12
        slt     s17, s2, s1
        slt     s18, s1, s2
        sltu    s19, s2, s1
        sltu    s20, s1, s2
        addi    s21, s2, -7
        muli    s22, s8, -12345
        andi    s23, s2, 0xff
        ori     s24, s1, -256
        xori    s25, s2, 0x55
        slli    s26, s1, 62
        srli    s27, s2, 1
        srai    s28, s2, 2
        slti    s29, s2, -2
        slti    s30, s2, -4
        add     zero, s1, s1            # dropped
        add     s1, cid, s1
        sem.wait 7, 0
        sync    all
        nop
# a counted loop with every branch kind
        li      s1, 0
        li      s2, 10
loop:   addi    s1, s1, 1
        blt     s1, s2, loop
        bge     s2, s1, ge_ok
        li      s3, 99
ge_ok:  bltu    s2, s1, bad
        bgeu    s1, s2, geu_ok
bad:    li      s4, 1
geu_ok: beq     s1, s2, eq_ok
        li      s5, 1
eq_ok:  bne     s1, s2, bad
        jal     s6, sub1
        jmp     done
sub1:   addi    s7, s6, 100
        jr      s6
done:   li      s8, -1
        sltu    s9, zero, s8
        halt
