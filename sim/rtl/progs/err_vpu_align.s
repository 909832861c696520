# err_vpu_align.s - RTL directed test (T5): vld and vst need 4-byte aligned
# addresses, vld.bf16 and vst.bf16 2-byte aligned ones.  A vld.bf16 at an
# address that is 2 mod 4 is fine; a vst at one stops the run at issue (an
# address that is 2 mod 4 is the case a check of bit 0 alone would miss).
        li      s1, 64
        vld     v0, s1, 0
        vld.bf16 v1, s1, 2
        vst     v0, s1, 258                     # 322 = 2 mod 4: misaligned
        halt
