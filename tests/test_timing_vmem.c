/*
 * test_timing_vmem.c - section 2, the VMEM arbiter (T11-T12a): one or more tests per rule,
 * each asserting exact cycle numbers (timing_helpers.h).
 */
#include "timing_helpers.h"

/* ---- section 2: VMEM arbiter ------------------------------------------------------ */

static void test_t11_config_rejected_when_mxus_could_wait(void **state)
{
    (void)state;
    tpu_config cfg;
    char err[300];
    tpu_config_defaults(&cfg);
    assert_int_equal(tpu_config_load(&cfg, "tiny", err, sizeof err), 0);
    /* 1 MXU of 8: 96 bytes; 4 links of 4 bytes: 16.  111 is one short. */
    assert_int_equal(tpu_config_set(&cfg, "vmem_bw=111", err, sizeof err), 0);
    assert_int_equal(tpu_config_set(&cfg, "vpu_sublanes=2", err, sizeof err), 0);
    tpu_system *s = tpu_system_create(&cfg, NULL, err, sizeof err);
    assert_null(s);
    assert_non_null(strstr(err, "112"));
    assert_non_null(strstr(err, "T11"));
    assert_int_equal(tpu_config_set(&cfg, "vmem_bw=112", err, sizeof err), 0);
    s = tpu_system_create(&cfg, NULL, err, sizeof err);
    assert_non_null(s);
    tpu_system_destroy(s);
    /* Two weight loads in flight: one more weight row of 16 bytes. */
    assert_int_equal(tpu_config_set(&cfg, "mxu_wloads=2", err, sizeof err), 0);
    assert_int_equal(tpu_config_set(&cfg, "vmem_bw=127", err, sizeof err), 0);
    assert_null(tpu_system_create(&cfg, NULL, err, sizeof err));
    assert_non_null(strstr(err, "need up to 128 bytes"));
    assert_non_null(strstr(err, "mxu_wloads = 2"));
    assert_non_null(strstr(err, "T11"));
    assert_int_equal(tpu_config_set(&cfg, "vmem_bw=128", err, sizeof err), 0);
    s = tpu_system_create(&cfg, NULL, err, sizeof err);
    assert_non_null(s);
    tpu_system_destroy(s);
    /* ... and a VPU load that could never fit. */
    assert_int_equal(tpu_config_set(&cfg, "vpu_sublanes=8", err, sizeof err), 0);
    assert_null(tpu_system_create(&cfg, NULL, err, sizeof err));
    assert_non_null(strstr(err, "smaller than one VPU load of 256 bytes"));
}

static void test_t12_vpu_access_is_all_or_nothing(void **state)
{
    (void)state;
    harness *h = h_new("tiny", "vmem_bw=256", NULL);     /* one vld takes it all */
    REGS(h, 1, 0x1000, 2, 16, 3, 0x2000);
    uint64_t lw = I(h, "mxu.lw", 0, 1, 2, 31);      /* reads 16 bytes in l .. l+7 */
    uint64_t vld = I(h, "vld", 1, 3, 0);
    I0(h, "halt");
    h_run_ok(h);
    uint64_t l = issue_cycle(h, lw) + 1;
    /* The VPU could issue in l+1 but only 240 bytes are left until l+8. */
    uint64_t retire = h_find(h, TPU_EV_RETIRE, 0, vld, 0)->cycle;
    assert_int_equal(retire, l + 8 + 2 - 1);
    tpu_stats st;
    tpu_core_stats(h_core(h, 0), &st);
    assert_int_equal(st.unit[TPU_U_VPU].stall_by_reason[1], 7);
    assert_string_equal(tpu_stall_reason_name(TPU_U_VPU, 1), "vmem busy");
    h_free(h);
}

static void test_t12_dma_takes_what_is_left(void **state)
{
    (void)state;
    /* HBM could give 200 bytes a cycle, VMEM only has 128. */
    harness *h = h_new("tiny", "vmem_bw=128", "vpu_sublanes=4", "hbm_bw=200e9", NULL);
    uint64_t d = dma_h2v(h, 0x100, 0, 1280, 0);
    I0(h, "halt");
    h_run_ok(h);
    uint64_t t = issue_cycle(h, d);
    assert_int_equal(h_find(h, TPU_EV_DMA_DONE, 0, d, 0)->cycle, t + 20 + 10);
    tpu_stats st;
    tpu_core_stats(h_core(h, 0), &st);
    assert_int_equal(st.unit[TPU_U_DMA].stall_by_reason[1], 9);   /* the 10th takes 128 */
    h_free(h);
}

static void test_t12a_dma_write_lands_over_vpu_write(void **state)
{
    (void)state;
    harness *h = h_new("tiny", "vmem_bw=512", NULL);
    uint8_t pattern[16];
    for (int i = 0; i < 16; i++)
        pattern[i] = (uint8_t)(0xa0 + i);
    h_data(h, TPU_SPACE_HBM, 0x40, pattern, 16);
    REGS(h, 9, 0x3f800000, 8, 0x100);
    I(h, "vbcast", 1, 9);                               /* cycle 2 */
    uint64_t d = dma_h2v(h, 0x100, 0x40, 16, 0);        /* 7: moves its bytes in 28 */
    while (PC(h) < 27)
        I0(h, "nop");
    uint64_t vst = I(h, "vst", 1, 8, 0);                /* 27: the VPU writes in 28 */
    I0(h, "halt");
    h_run_ok(h);
    assert_int_equal(issue_cycle(h, d), 7);
    assert_int_equal(h_find(h, TPU_EV_DMA_DONE, 0, d, 0)->cycle, 28);
    assert_int_equal(h_find(h, TPU_EV_RETIRE, 0, vst, 0)->cycle, 28);
    uint8_t out[20];
    h_peek(h, 0, TPU_SPACE_VMEM, 0x100, out, 20);
    assert_memory_equal(out, pattern, 16);              /* the DMA (class 4) wins */
    uint32_t one;
    memcpy(&one, out + 16, 4);
    assert_int_equal(one, 0x3f800000);                  /* the rest is the VPU's */
    h_free(h);
}

static void test_t12a_later_dma_engine_wins_in_hbm(void **state)
{
    (void)state;
    harness *h = h_new("tiny", "hbm_bw=32e9", NULL);
    uint8_t a[48], b[16];
    memset(a, 0x11, sizeof a);
    memset(b, 0x22, sizeof b);
    h_data(h, TPU_SPACE_VMEM, 0x100, a, sizeof a);
    h_data(h, TPU_SPACE_VMEM, 0x200, b, sizeof b);
    REGS(h, 1, 0x1000, 2, 0x100, 3, 1, 4, 48, 5, 0x1020, 6, 0x200, 7, 16);
    uint64_t da = I(h, "dma.v2h", 1, 2, 3, 4, 0, 0, 0);  /* 32 bytes in 28, 16 in 29 */
    uint64_t db = I(h, "dma.v2h", 5, 6, 3, 7, 0, 0, 0);  /* 16 bytes in 29, same place */
    I0(h, "halt");
    h_run_ok(h);
    assert_int_equal(h_find(h, TPU_EV_DMA_DONE, 0, da, 0)->cycle, 29);
    assert_int_equal(h_find(h, TPU_EV_DMA_DONE, 0, db, 0)->cycle, 29);
    uint8_t out[48];
    h_peek(h, 0, TPU_SPACE_HBM, 0x1000, out, 48);
    assert_memory_equal(out, a, 32);
    assert_memory_equal(out + 32, b, 16);               /* started later: lands later */
    h_free(h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_t11_config_rejected_when_mxus_could_wait),
        cmocka_unit_test(test_t12_vpu_access_is_all_or_nothing),
        cmocka_unit_test(test_t12_dma_takes_what_is_left),
        cmocka_unit_test(test_t12a_dma_write_lands_over_vpu_write),
        cmocka_unit_test(test_t12a_later_dma_engine_wins_in_hbm),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
