# err_mxu_align.s - RTL directed test (T5): an mxu.mm whose fp32 result
# rows are not 4-byte aligned stops the run at issue, after a queue of
# good instructions.
        li      s1, 0
        li      s2, 16
        mxu.lw  0, s1, s2, 0
        li      s3, 1024
        li      s4, 4
        li      s5, 32
        mxu.mm  0, s3, s1, s4, s2, s5, 1
        li      s3, 1026                        # misaligned destination
        mxu.mm  0, s3, s1, s4, s2, s5, 1
        halt
