# vtr.s - RTL directed test of the VPU's transcendentals (vexp, vrcp,
# vrsqrt; numerics.md section 11, timing.md T27a): special values (NaN
# payloads, infinities, signed zeros, subnormals, negative inputs of
# vrsqrt, the overflow and flush boundaries of vexp), random values, and
# the pipeline's timing: three transcendentals issued back to back, a
# dependent chain, a store waiting for one (T27), an instruction that
# would take the result pipeline's entry in the cycle a transcendental
# leaves its pipeline and one that writes the register a transcendental
# is still computing (T27a), with vst issuing meanwhile.
        .equ    E, VPU_SUBLANES * VPU_LANES     # elements per register
        .vmem   0
A:      .rept   E / 8
        .f32    nan, -inf, inf, -0.0, bits(0x00000001), bits(0x807fffff), 1.0, -2.5
        .endr
B:      .rept   E / 8
        .f32    88.72283, 88.72284, -87.33654, -87.33655, bits(0x00800000), bits(0x7f7fffff), bits(0xff800001), 0.5
        .endr
C:      .random f32, E, 41, -100.0, 100.0
D:      .random f32, E, 42, 1e-30, 1e30
F:      .random f32, E, 43
        .align  64
OUT:    .zero   E * 4 * 24

        .text
        li      s1, A
        li      s2, OUT
        vld     v1, s1, 0
        vld     v2, s1, B - A
        vld     v3, s1, C - A
        vld     v4, s1, D - A
        vld     v5, s1, F - A
        vexp    v6, v1                          # back to back, one a cycle
        vrcp    v7, v1
        vrsqrt  v8, v1
        vexp    v9, v2
        vrcp    v10, v2
        vrsqrt  v11, v2
        vexp    v12, v3
        vrcp    v13, v4
        vrsqrt  v14, v4
        vexp    v15, v5
        vadd    v16, v3, v4                     # the entry of v6's cycle: waits a cycle
        vst     v6, s2, 0                       # waits for v6 (T27)
        vst     v7, s2, E*4
        vst     v8, s2, E*8
        vst     v9, s2, E*12
        vst     v10, s2, E*16
        vst     v11, s2, E*20
        vst     v12, s2, E*24
        vst     v13, s2, E*28
        vst     v14, s2, E*32
        vst     v15, s2, E*36
        vst     v16, s2, E*40
        vrcp    v17, v5
        vrsqrt  v18, v5
        vmul    v17, v3, v3                     # v17 still being computed: waits (T27a)
        vst     v17, s2, E*44
        vst     v18, s2, E*48
        vexp    v19, v3                         # a chain: exp, rcp, rsqrt, mul
        vrcp    v20, v19
        vrsqrt  v21, v20
        vmul    v22, v21, v19
        vst     v22, s2, E*52
        vrcp    v23, v4                         # vst and vld between: no wait
        vst     v3, s2, E*56
        vld     v24, s1, C - A
        vsub    v25, v24, v4
        vexp    v26, v25
        vst     v25, s2, E*60
        vst     v26, s2, E*64
        vst     v23, s2, E*68
        sync    vpu
        halt
