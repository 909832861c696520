# err_mode2.s - RTL directed test (T5b): a bf16 stream (mxu.mma) against
# the int8 weights of the last weight load of its MXU stops the run at
# issue ("a bf16 stream against int8 weights").
        li      s1, 0
        li      s2, 16
        li      s3, 1024
        li      s4, 4
        li      s5, 32
        mxu.lw     0, s1, s2, 0
        mxu.mma    0, s3, s1, s4, s2, s5, 1
        mxu.lw.i8  0, s1, s2, 0
        mxu.mma.i8 0, s3, s1, s4, s2, s5, 1
        mxu.mma    0, s3, s1, s4, s2, s5, 1    # the weights are int8 now
        halt
