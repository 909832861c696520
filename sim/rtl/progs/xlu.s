# xlu.s - RTL directed test of the cross-lane unit's hazards with the VPU
# (timing.md section 5a, T35) on special values: a VPU instruction that
# writes the XLU's source (it must wait until the XLU has read it), one
# that writes the XLU's destination (it must land after the XLU's result),
# a store of the XLU's destination (it must wait for it), a reduction
# right behind a transcendental (the XLU waits for the VPU to be idle),
# and XLU instructions back to back (one at a time, T34).
        .equ    E, VPU_SUBLANES * VPU_LANES     # elements per register
        .equ    VB, 4 * E
        .vmem   0
A:      .rept   E / 8
        .f32    nan, -inf, inf, -0.0, bits(0x00000001), bits(0x807fffff), 1.0, -2.5
        .endr
B:      .random f32, E, 11, -100.0, 100.0
        .align  64
OUT:    .zero   8 * VB

        .text
        li      s1, A
        li      s2, B
        li      s3, OUT
        li      s4, 0x40400000                  # 3.0
        vld     v0, s2, 0
        vld     v1, s1, 0
        xlu.asum v2, v0                         # reads v0 ...
        vbcast  v0, s4                          # ... before this overwrites it (WAR)
        xlu.lmax v3, v1                         # NaN rows
        vbcast  v3, s4                          # lands after the XLU's v3 (WAW)
        vst     v2, s3, 0 * VB                  # waits for the XLU's v2
        vst     v3, s3, 1 * VB
        vexp    v4, v0
        xlu.ssum v5, v4                         # waits for the vexp (the VPU idle)
        xlu.srot v6, v5, 5                      # back to back
        xlu.tr  v7, v6
        xlu.smax v8, v1
        vst     v5, s3, 2 * VB
        vst     v6, s3, 3 * VB
        vst     v7, s3, 4 * VB
        vst     v8, s3, 5 * VB
        vst     v0, s3, 6 * VB
        halt
