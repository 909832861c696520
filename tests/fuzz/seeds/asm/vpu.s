# vpu.s - RTL directed test of the VPU (T27-T29): every operation on
# special values (NaN payloads, infinities, signed zeros, subnormals,
# rounding ties, the largest normals), back-to-back dependent
# instructions (vreg hazard), two writes of one register in flight,
# vld.bf16 / vst.bf16 conversions, vsel masks and vbcast.
        .equ    E, VPU_SUBLANES * VPU_LANES     # elements per register
        .vmem   0
A:      .rept   E / 8
        .f32    nan, -inf, inf, -0.0, bits(0x00000001), bits(0x807fffff), 1.0, -2.5
        .endr
B:      .rept   E / 8
        .f32    1.0, inf, -inf, 0.0, bits(0x80000003), 3.0e38, bits(0x7fc12345), 1.5
        .endr
C:      .random f32, E, 31, -1e30, 1e30
D:      .random f32, E, 32
T:      .rept   E / 8
        .f32    bits(0x3f808000), bits(0x3f818000), bits(0x7f7fffff), bits(0x00800000), bits(0xff800001), bits(0x3f80ffff), bits(0x80008000), bits(0x4b7f8000)
        .endr
H:      .rept   E / 4
        .bf16   nan, bits(0x0001), bits(0x8040), -inf, 1.5, bits(0xffc1), 0.0, -0.0
        .endr
        .align  64
OUT:    .zero   E * 4 * 16

        .text
        li      s1, A
        li      s2, OUT
        vld     v1, s1, 0
        vld     v2, s1, B - A
        vld     v3, s1, C - A
        vld     v4, s1, D - A
        vadd    v5, v1, v2                      # waits for v2 (hazard)
        vsub    v6, v1, v2
        vmul    v7, v1, v2
        vmax    v8, v1, v2
        vmin    v9, v1, v2
        vrelu   v10, v1
        vcmplt  v11, v1, v2
        vsel    v12, v1, v3, v4
        vadd    v13, v3, v4
        vmul    v13, v13, v3                    # v13 in flight twice
        vsub    v14, v13, v4
        li      s3, 0x3fc00000
        vbcast  v15, s3
        vmul    v16, v15, v14
        vst     v5, s2, 0
        vst     v6, s2, E*4
        vst     v7, s2, E*8
        vst     v8, s2, E*12
        vst     v9, s2, E*16
        vst     v10, s2, E*20
        vst     v11, s2, E*24
        vst     v12, s2, E*28
        vst     v16, s2, E*32
        vld     v17, s1, T - A
        vst.bf16 v17, s2, E*36                 # rounding ties, overflow, NaN
        vld.bf16 v18, s1, H - A                # widening NaN, subnormals
        vst     v18, s2, E*40
        vst.bf16 v1, s2, E*44
        vld.bf16 v19, s2, E*44
        vadd    v20, v19, v19
        vst     v20, s2, E*48
        sync    vpu
        halt
