# err_dma_wide.s - RTL directed test (T5b): dma.h2v.i8 checks its VMEM
# destination as rows of 2 x rowbytes bytes with a 2-byte aligned stride:
# a copy that fits as plain bytes but not widened, after one that fits
# exactly, stops the run at issue.
        .equ    VM, VMEM_BYTES
        li      s1, VM - 2*64           # 2 rows of 32 int8 -> 2 rows of 64 bytes: fits
        li      s2, 0
        li      s3, 2
        li      s4, 32
        li      s5, 64
        dma.h2v.i8 s1, s2, s3, s4, s4, s5, 1
        sem.wait 1, 1
        li      s5, 66                  # the last row at VM - 62: 32 bytes fit, 64 do not
        li      s1, VM - 66 - 62
        dma.h2v.i8 s1, s2, s3, s4, s4, s5, 1
        li      s5, 65                  # odd stride (never reached)
        dma.h2v.i8 s1, s2, s3, s4, s4, s5, 1
        halt
