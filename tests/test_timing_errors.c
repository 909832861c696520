/*
 * test_timing_errors.c - the run-time errors (T5): one or more tests per rule,
 * each asserting exact cycle numbers (timing_helpers.h).
 */
#include "timing_helpers.h"

/* ---- run-time errors (T5 and friends) ---------------------------------------------- */

static void error_case(const char *preset, const int64_t *regs, unsigned nregs, const char *mn,
                       const int64_t *ops, unsigned nops, const char *want)
{
    harness *h = h_new(preset, NULL);
    set_regs(h, regs, nregs);
    h_insn(h, mn, ops, nops);
    I0(h, "halt");
    h_expect_error(h, want);
    h_free(h);
}
#define ERR(regs, mn, ops, want) \
    error_case("tiny", regs, sizeof(regs) / sizeof(int64_t), mn, ops, \
               sizeof(ops) / sizeof(int64_t), want)

static void test_t5_errors_dma(void **state)
{
    (void)state;
    static const int64_t r1[] = { 1, 0x3fff8, 2, 0, 3, 1, 4, 16 };
    static const int64_t o1[] = { 1, 2, 3, 4, 0, 0, 0 };
    ERR(r1, "dma.h2v", o1, "core 0: cycle 4: pc 4 (dma.h2v s1, s2, s3, s4, zero, zero, 0): "
                           "VMEM address 0x40000 out of range (VMEM is 0x40000 bytes): "
                           "DMA destination");
    static const int64_t r2[] = { 1, 0, 2, 0xfffff0, 3, 2, 4, 16, 5, 16 };
    static const int64_t o2[] = { 1, 2, 3, 4, 5, 0, 0 };
    ERR(r2, "dma.h2v", o2, "HBM address 0x1000000 out of range (HBM is 0x1000000 bytes): "
                           "DMA source");
    static const int64_t r3[] = { 1, 0x100, 2, 0, 3, 4, 4, 16, 5, -128 };
    static const int64_t o3[] = { 1, 2, 3, 4, 0, 5, 0 };
    ERR(r3, "dma.v2h", o3, "HBM address -0x80 out of range");
    static const int64_t r4[] = { 1, 0x100, 2, 0, 3, -1, 4, 16 };
    static const int64_t o4[] = { 1, 2, 3, 4, 0, 0, 0 };
    ERR(r4, "dma.h2v", o4, "DMA source: negative row count -1");
    /* A strided copy whose rows skip over the end: the first byte outside. */
    static const int64_t r5[] = { 1, 0x3ff00, 2, 0, 3, 3, 4, 8, 5, 0x80 };
    static const int64_t o5[] = { 1, 2, 3, 4, 0, 5, 0 };
    ERR(r5, "dma.h2v", o5, "VMEM address 0x40000 out of range");
    static const int64_t r8[] = { 1, 0, 2, 0x3fff8, 3, 1, 4, 16 };
    ERR(r8, "dma.v2h", o1, "VMEM address 0x40000 out of range (VMEM is 0x40000 bytes): "
                           "DMA source");
    static const int64_t r9[] = { 1, 0, 2, 0, 3, 1, 4, -5 };
    ERR(r9, "dma.v2h", o1, "DMA source: negative row size -5");
    static const int64_t r6[] = { 1, 0x3ff00, 2, 0, 3, 3, 4, 8, 5, 0x90 };
    ERR(r6, "dma.h2v", o5, "VMEM address 0x40020 out of range");
    /* Rows that repeat one place (stride 0) are in range however many. */
    harness *h = h_new("tiny", NULL);
    REGS(h, 1, 0x100, 2, 0, 3, 1, 4, 1 << 24, 5, 0);
    I(h, "slli", 3, 3, 40);
    I(h, "dma.h2v", 1, 2, 3, 4, 5, 5, 0);
    h_expect_error(h, "DMA of 1099511627776 rows of 16777216 bytes: more than 2^63 bytes");
    h_free(h);
}

static void test_t5_errors_mxu(void **state)
{
    (void)state;
    static const int64_t r[] = { 1, 0x1000, 2, 16, 3, 0x2000, 4, 4, 5, 32, 6, 0x3, 7, 0x3ffc0,
                                 8, 6, 9, 0x2002 };
    static const int64_t lw1[] = { 1, 1, 2, 31 };
    ERR(r, "mxu.lw", lw1, "mxu 1 does not exist (the config has 1 MXU)");
    static const int64_t lw2[] = { 0, 6, 2, 31 };
    ERR(r, "mxu.lw", lw2, "misaligned VMEM address 0x3: bf16 weight rows must be 2-byte aligned");
    static const int64_t lw3[] = { 0, 7, 2, 31 };
    ERR(r, "mxu.lw", lw3, "VMEM address 0x40000 out of range (VMEM is 0x40000 bytes): "
                          "weight tile");
    static const int64_t mm1[] = { 0, 3, 6, 4, 2, 5, 31 };
    ERR(r, "mxu.mm", mm1, "misaligned VMEM address 0x3: bf16 LHS rows");
    static const int64_t mm2[] = { 0, 9, 1, 4, 2, 5, 31 };
    ERR(r, "mxu.mm", mm2, "misaligned VMEM address 0x2002: fp32 result rows must be 4-byte");
    static const int64_t mm3[] = { 0, 3, 1, 4, 2, 8, 31 };
    ERR(r, "mxu.mma", mm3, "misaligned stride 0x6: the result row stride must be 4-byte");
    static const int64_t mm4[] = { 0, 7, 1, 4, 2, 5, 31 };
    ERR(r, "mxu.mm", mm4, "out of range (VMEM is 0x40000 bytes): result rows");
    static const int64_t lw4[] = { 0, 1, 6, 31 };
    ERR(r, "mxu.lw", lw4, "misaligned stride 0x3: the weight row stride must be 2-byte");
    static const int64_t mm5[] = { 0, 3, 1, 4, 6, 5, 31 };
    ERR(r, "mxu.mm", mm5, "misaligned stride 0x3: the LHS row stride must be 2-byte");
    static const int64_t mm6[] = { 0, 3, 7, 8, 2, 5, 31 };
    ERR(r, "mxu.mm", mm6, "VMEM address 0x40000 out of range (VMEM is 0x40000 bytes): LHS rows");
    static const int64_t mm7[] = { 3, 3, 1, 4, 2, 5, 31 };
    ERR(r, "mxu.mma", mm7, "mxu 3 does not exist (the config has 1 MXU)");
}

/* T5b: the MXU's modes at issue: int8 on a machine without it, bf16 on an
 * int8-only one, a stream against weights of the other mode; and the
 * widening DMA's destination (2 bytes of VMEM per HBM byte, bf16-aligned). */
static void test_t5b_errors_int8(void **state)
{
    (void)state;
    static const int64_t r[] = { 1, 0x1000, 2, 16, 3, 0x2000, 4, 4, 5, 32, 6, 0x3ff00, 7, 0x81,
                                 8, 0x90, 9, 1 };
    static const int64_t mm[] = { 0, 3, 1, 4, 2, 5, 31 };
    ERR(r, "mxu.mm.i8", mm, "core 0: cycle 9: pc 9 (mxu.mm.i8 0, s3, s1, s4, s2, s5, 31): an "
                            "int8 stream against bf16 weights (the last weight load of mxu 0 "
                            "was mxu.lw, or none since reset)");
    static const int64_t lw[] = { 0, 7, 2, 31 };
    ERR(r, "mxu.lw.i8", lw, "misaligned VMEM address 0x81: int8 weight row pairs must be "
                            "2-byte aligned");
    /* a row of 0x90 int8 -> 0x120 bytes of VMEM from 0x3ff00: past the end
     * (as bf16 copy the same row would fit) */
    static const int64_t d1[] = { 6, 0, 9, 8, 8, 8, 0 };
    ERR(r, "dma.h2v.i8", d1, "VMEM address 0x40000 out of range (VMEM is 0x40000 bytes): DMA "
                             "destination");
    static const int64_t d2[] = { 7, 0, 4, 5, 5, 5, 0 };
    ERR(r, "dma.h2v.i8", d2, "misaligned VMEM address 0x81: bf16 destination rows must be "
                             "2-byte aligned");

    harness *h = h_new("tiny", NULL);                    /* a bf16 stream after int8 weights */
    REGS(h, 1, 0x1000, 2, 16, 3, 0x2000, 4, 4, 5, 32);
    I(h, "mxu.lw.i8", 0, 1, 2, 31);
    I(h, "mxu.mm.i8", 0, 3, 1, 4, 2, 5, 31);             /* fine */
    I(h, "mxu.mma", 0, 3, 1, 4, 2, 5, 31);
    h_expect_error(h, "pc 7 (mxu.mma 0, s3, s1, s4, s2, s5, 31): a bf16 stream against int8 "
                      "weights (the last weight load of mxu 0 was mxu.lw.i8)");
    h_free(h);
    /* each MXU remembers its own: int8 weights on mxu 1 do not make mxu 0's int8 */
    h = h_new("mid", NULL);
    REGS(h, 1, 0x1000, 2, 32, 3, 0x2000, 4, 4, 5, 64);
    I(h, "mxu.lw.i8", 1, 1, 2, 31);
    I(h, "mxu.mm.i8", 1, 3, 1, 4, 2, 5, 31);
    I(h, "mxu.mm.i8", 0, 3, 1, 4, 2, 5, 31);
    h_expect_error(h, "pc 7 (mxu.mm.i8 0, s3, s1, s4, s2, s5, 31): an int8 stream against bf16 "
                      "weights");
    h_free(h);
    /* a machine without int8, and an int8-only one */
    h = h_new("tiny", "mxu_int8=0", NULL);
    REGS(h, 1, 0x1000, 2, 16);
    I(h, "mxu.lw.i8", 0, 1, 2, 31);
    h_expect_error(h, "pc 2 (mxu.lw.i8 0, s1, s2, 31): this machine's MXUs have no int8 mode "
                      "(config mxu_int8 = 0)");
    h_free(h);
    h = h_new("tiny", "mxu_int8=2", NULL);
    REGS(h, 1, 0x1000, 2, 16);
    I(h, "mxu.lw", 0, 1, 2, 31);
    h_expect_error(h, "pc 2 (mxu.lw 0, s1, s2, 31): this machine's MXUs are int8 only (config "
                      "mxu_int8 = 2): bf16 MXU instructions cannot run");
    h_free(h);
}

static void test_t5_errors_vpu_ici_and_illegal(void **state)
{
    (void)state;
    static const int64_t r[] = { 1, 0x102, 2, 0x3ff04, 3, 0x101, 4, 16 };
    static const int64_t v1[] = { 0, 1, 0 };
    ERR(r, "vld", v1, "misaligned VMEM address 0x102: an fp32 vector must be 4-byte aligned");
    static const int64_t v2[] = { 0, 2, 0 };
    ERR(r, "vst", v2, "VMEM address 0x40000 out of range (VMEM is 0x40000 bytes): vector");
    static const int64_t v3[] = { 0, 3, 0 };
    ERR(r, "vst.bf16", v3, "misaligned VMEM address 0x101: a bf16 vector must be 2-byte");
    static const int64_t v4[] = { 0, 0, -4 };
    ERR(r, "vld", v4, "VMEM address -0x4 out of range");
    static const int64_t i1[] = { 0, 1, 1, 4, 0, 0 };
    ERR(r, "dma.ici", i1, "ICI port 0 is not connected to a neighbour");
    static const int64_t i2[] = { 2, 1, 1, 4, 0, 0 };
    ERR(r, "dma.ici", i2, "ICI port 2 is not connected to a neighbour");

    harness *h = h_new("tiny", NULL);                    /* runs off the end of the text */
    I0(h, "nop");
    h_expect_error(h, "core 0: cycle 1: pc 1 (.insn 0x0000000000000000): illegal instruction "
                      "0x0000000000000000 (unknown opcode)");
    h_free(h);

    h = h_new("tiny", NULL);
    assert_int_equal(tpu_obj_add_text(&h->obj, 0x0000000000000101ull), 0);  /* nop + junk */
    h_expect_error(h, "illegal instruction 0x0000000000000101 (reserved bits set)");
    h_free(h);

    h = h_new("tiny", NULL);
    I(h, "jmp", 5000);
    h_expect_error(h, "core 0: cycle 1: pc 5000 (outside IMEM): pc 5000 is outside IMEM "
                      "(4096 words)");
    h_free(h);
}

static void test_t5_ici_destination_checked_against_neighbour(void **state)
{
    (void)state;
    harness *h = h_new("tiny", NULL);
    h->opts = (tpu_system_opts){ .cores = 2, .topology = TPU_TOPO_RING };
    REGS(h, 1, 0x3fff0, 2, 0x100, 3, 32);
    I(h, "dma.ici", 1, 1, 2, 3, 0, 0);
    I0(h, "halt");
    h_expect_error(h, "VMEM address 0x40000 out of range (VMEM is 0x40000 bytes): ICI "
                      "destination (neighbour's VMEM)");
    h_free(h);

    h = h_new("tiny", NULL);
    h->opts = (tpu_system_opts){ .cores = 2, .topology = TPU_TOPO_RING };
    REGS(h, 1, 0x100, 2, 0x3fff0, 3, 32);
    I(h, "dma.ici", 0, 1, 2, 3, 0, 0);
    I0(h, "halt");
    h_expect_error(h, "VMEM address 0x40000 out of range (VMEM is 0x40000 bytes): ICI source");
    h_free(h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_t5_errors_dma),
        cmocka_unit_test(test_t5_errors_mxu),
        cmocka_unit_test(test_t5b_errors_int8),
        cmocka_unit_test(test_t5_errors_vpu_ici_and_illegal),
        cmocka_unit_test(test_t5_ici_destination_checked_against_neighbour),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
