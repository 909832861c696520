# err_dma_carry.s - RTL directed test (T5): a DMA just over 2^64 bytes in
# all, whose size only the carry between the middle partial products of
# seq.v's mul64 reveals.  rows = 2^46 + 2^32 - 1, row bytes = 2^18 - 1:
# rows x rowbytes = 2^64 + about 2^50, so the low 64 bits of the product
# are below 2^63 and only the high half says "too big"; that high half is
# 0 but for the carry of (a0*b0 >> 32) + low32(a1*b0) (mutant 69 drops it).
# Stride 0 keeps every row inside both memories, so no range check fails
# first: the C model stops with "more than 2^63 bytes", the RTL with
# ErrAddress, in the same cycle.
        li      s1, 1
        slli    s2, s1, 46                      # 2^46
        slli    s3, s1, 32                      # 2^32
        add     s2, s2, s3
        addi    s2, s2, -1                      # rows = 2^46 + 2^32 - 1
        slli    s3, s1, 18
        addi    s3, s3, -1                      # row bytes = 2^18 - 1
        dma.h2v zero, zero, s2, s3, zero, zero, 0
        halt
