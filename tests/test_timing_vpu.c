/*
 * test_timing_vpu.c - section 5, the VPU (T27-T29): one or more tests per rule,
 * each asserting exact cycle numbers (timing_helpers.h).
 */
#include "timing_helpers.h"
#include "fp.h"               /* TPU_TR_STEPS */

/* ---- section 5: VPU ---------------------------------------------------------------- */

static void vpu_latency_case(const char *vl_key, uint64_t vl)
{
    harness *h = h_new("tiny", vl_key, NULL);
    I(h, "li", 1, 0x3f800000);
    uint64_t a = I(h, "vbcast", 1, 1);           /* 1: VPU issues it in 2 */
    uint64_t b = I(h, "vbcast", 2, 1);           /* independent: issues in 3 */
    uint64_t c = I(h, "vadd", 3, 1, 1);          /* needs v1: issues in 2 + VL */
    uint64_t d = I(h, "vadd", 4, 3, 2);          /* needs v3: issues VL after c */
    uint64_t sync = I(h, "sync", TPU_UNITS_VPU);
    I0(h, "halt");
    h_run_ok(h);
    /* RETIRE is the result landing: end of issue + VL - 1. */
    assert_int_equal(h_find(h, TPU_EV_RETIRE, 0, a, 0)->cycle, 2 + vl - 1);
    assert_int_equal(h_find(h, TPU_EV_RETIRE, 0, b, 0)->cycle, 3 + vl - 1);
    uint64_t ic = vl > 1 ? 2 + vl : 4;
    assert_int_equal(h_find(h, TPU_EV_RETIRE, 0, c, 0)->cycle, ic + vl - 1);
    assert_int_equal(h_find(h, TPU_EV_RETIRE, 0, d, 0)->cycle, ic + vl + vl - 1);
    /* T29: busy until the last result has landed. */
    assert_int_equal(issue_cycle(h, sync), ic + vl + vl);
    uint32_t v4[64];
    assert_int_equal(tpu_core_vreg(h_core(h, 0), 4, v4), 0);
    for (int i = 0; i < 64; i++)
        assert_int_equal(v4[i], 0x40400000);     /* 1 + 1 + 1 */
    h_free(h);
}

static void test_t27_t29_result_usable_VL_cycles_after_issue(void **state)
{
    (void)state;
    vpu_latency_case("vpu_latency=2", 2);
    vpu_latency_case("vpu_latency=5", 5);
    vpu_latency_case("vpu_latency=1", 1);
}

static void test_t28_vpu_memory_accesses_in_program_order(void **state)
{
    (void)state;
    harness *h = h_new("tiny", NULL);
    REGS(h, 1, 0x40490fdb, 2, 0x400);
    I(h, "vbcast", 1, 1);
    uint64_t st = I(h, "vst", 1, 2, 0);
    uint64_t ld = I(h, "vld", 2, 2, 0);
    I0(h, "halt");
    h_run_ok(h);
    uint64_t tst = h_find(h, TPU_EV_RETIRE, 0, st, 0)->cycle;    /* vst retires at issue */
    assert_int_equal(h_find(h, TPU_EV_RETIRE, 0, ld, 0)->cycle, tst + 1 + 2 - 1);
    uint32_t v2[64];
    tpu_core_vreg(h_core(h, 0), 2, v2);
    for (int i = 0; i < 64; i++)
        assert_int_equal(v2[i], 0x40490fdb);
    h_free(h);
}

/* T27a: a transcendental's result enters the result pipeline TPU_TR_STEPS
 * cycles after it issued; an instruction that writes the same register
 * waits until it is no longer ahead of it, and none that writes a
 * register issues in a cycle where a transcendental enters. */
static void vpu_tr_case(const char *vl_key, uint64_t vl)
{
    const uint64_t d = TPU_TR_STEPS;
    harness *h = h_new("tiny", vl_key, NULL);
    REGS(h, 1, 0x3f800000, 2, 0x40000000);       /* s1 = 1.0, s2 = 2.0 */
    uint64_t a = I(h, "vbcast", 1, 1);           /* v1 = 1.0 */
    uint64_t x = I(h, "vexp", 2, 1);             /* v2 = e */
    uint64_t y = I(h, "vrcp", 3, 1);             /* v3 = 1 */
    uint64_t z = I(h, "vbcast", 2, 2);           /* v2 = 2.0: waits for the vexp and both entries */
    uint64_t w = I(h, "vadd", 4, 3, 3);          /* needs v3 */
    uint64_t sync = I(h, "sync", TPU_UNITS_VPU);
    I0(h, "halt");
    h_run_ok(h);
    uint64_t ta = h_find(h, TPU_EV_RETIRE, 0, a, 0)->cycle - (vl - 1);   /* a's issue */
    uint64_t te = ta + (vl > 1 ? vl : 1);        /* v1 ready, and the vexp queued behind a */
    assert_int_equal(h_find(h, TPU_EV_RETIRE, 0, x, 0)->cycle, te + d + vl - 1);
    assert_int_equal(h_find(h, TPU_EV_RETIRE, 0, y, 0)->cycle, te + 1 + d + vl - 1);
    uint64_t tz = te + d + 2;                    /* entries taken in te + d and te + d + 1 */
    assert_int_equal(h_find(h, TPU_EV_RETIRE, 0, z, 0)->cycle, tz + vl - 1);
    uint64_t tw = te + 1 + d + vl > tz + 1 ? te + 1 + d + vl : tz + 1;
    assert_int_equal(h_find(h, TPU_EV_RETIRE, 0, w, 0)->cycle, tw + vl - 1);
    assert_int_equal(issue_cycle(h, sync), tw + vl);   /* T29 */
    uint32_t v[64];
    assert_int_equal(tpu_core_vreg(h_core(h, 0), 2, v), 0);
    for (int i = 0; i < 64; i++)
        assert_int_equal(v[i], 0x40000000);      /* the vbcast's, landed after the vexp */
    assert_int_equal(tpu_core_vreg(h_core(h, 0), 4, v), 0);
    for (int i = 0; i < 64; i++)
        assert_int_equal(v[i], 0x40000000);      /* rcp(1) + rcp(1) */
    h_free(h);
}

static void test_t27a_transcendental_pipeline(void **state)
{
    (void)state;
    vpu_tr_case("vpu_latency=2", 2);
    vpu_tr_case("vpu_latency=5", 5);
    vpu_tr_case("vpu_latency=1", 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_t27_t29_result_usable_VL_cycles_after_issue),
        cmocka_unit_test(test_t27a_transcendental_pipeline),
        cmocka_unit_test(test_t28_vpu_memory_accesses_in_program_order),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
