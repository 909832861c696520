# err_mode.s - RTL directed test (T5b): an int8 stream against the bf16
# weights of the last weight load of its MXU stops the run at issue
# ("an int8 stream against bf16 weights"), after good int8 and bf16 work.
        li      s1, 0
        li      s2, 16
        li      s3, 1024
        li      s4, 4
        li      s5, 32
        mxu.lw.i8  0, s1, s2, 0
        mxu.mm.i8  0, s3, s1, s4, s2, s5, 1
        mxu.lw     0, s1, s2, 0
        mxu.mm     0, s3, s1, s4, s2, s5, 1
        mxu.mm.i8  0, s3, s1, s4, s2, s5, 1    # the weights are bf16 now
        halt
