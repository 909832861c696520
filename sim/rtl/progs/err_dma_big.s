# err_dma_big.s - RTL directed test (T5): a DMA of more than 2^63 bytes
# (rows x row bytes; stride 0 keeps every row inside memory).
        li      s1, 1
        slli    s2, s1, 40                      # 2^40 rows
        slli    s3, s1, 24                      # of 2^24 bytes
        dma.h2v zero, zero, s2, s3, zero, zero, 0
        halt
