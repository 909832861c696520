# err_dma_range.s - RTL directed test (T5): a 2-D DMA whose last source
# row ends past the end of HBM (negative destination stride, so the
# destination check alone would pass).
        li      s1, 4096                        # vdst
        li      s2, HBM_BYTES - 1000            # hsrc
        li      s3, 11                          # rows
        li      s4, 64                          # row bytes
        li      s5, 100                         # source stride: row 10 ends at +1064
        li      s6, -64
        dma.h2v s1, s2, s3, s4, s5, s6, 0
        halt
