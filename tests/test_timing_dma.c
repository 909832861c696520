/*
 * test_timing_dma.c - section 3, the DMA engines (T13-T18): one or more tests per rule,
 * each asserting exact cycle numbers (timing_helpers.h).
 */
#include "timing_helpers.h"

/* ---- section 3: DMA ---------------------------------------------------------------- */

static void test_t13_one_start_per_cycle_on_lowest_idle_engine(void **state)
{
    (void)state;
    harness *h = h_new("tiny", "hbm_latency=0", NULL);
    REGS(h, 1, 0x100, 2, 0, 3, 1, 4, 64, 5, 16);
    uint64_t a = I(h, "dma.h2v", 1, 2, 3, 4, 0, 0, 0);  /* 5: engine 0, 64 bytes */
    uint64_t b = I(h, "dma.h2v", 1, 2, 3, 5, 0, 0, 0);  /* 6: engine 1 */
    uint64_t c = I(h, "dma.h2v", 1, 2, 3, 5, 0, 0, 0);  /* 7: waits for an engine */
    I0(h, "halt");
    h_run_ok(h);
    const recorded *ra = h_find(h, TPU_EV_DMA_DONE, 0, a, 0);
    const recorded *rb = h_find(h, TPU_EV_DMA_DONE, 0, b, 0);
    const recorded *rc = h_find(h, TPU_EV_DMA_DONE, 0, c, 0);
    /* a moves 16 bytes in 6..9; b starts in 7 but gets bytes only in 10. */
    assert_int_equal(ra->index, 0);
    assert_int_equal(ra->cycle, 9);
    assert_int_equal(rb->index, 1);
    assert_int_equal(rb->cycle, 10);
    /* c starts on engine 0 (free from 10) in 10 and moves in 11. */
    assert_int_equal(rc->index, 0);
    assert_int_equal(rc->cycle, 11);
    h_free(h);
}

static void test_t14_wait_lasts_exactly_L(void **state)
{
    (void)state;
    static const char *lat[] = { "hbm_latency=0", "hbm_latency=1", "hbm_latency=7" };
    static const uint64_t l[] = { 0, 1, 7 };
    for (int i = 0; i < 3; i++) {
        harness *h = h_new("tiny", lat[i], NULL);
        uint64_t d = dma_h2v(h, 0x100, 0, 16, 0);
        I0(h, "halt");
        h_run_ok(h);
        assert_int_equal(h_find(h, TPU_EV_DMA_DONE, 0, d, 0)->cycle, 4 + l[i] + 1);
        h_free(h);
    }
}

static void test_t15_fractional_credit_is_exact(void **state)
{
    (void)state;
    /* 5.5e9 B/s at 1 GHz = 11/2 bytes per cycle. */
    harness *h = h_new("tiny", "hbm_bw=5.5e9", NULL);
    static const int64_t sizes[] = { 5, 11, 12, 100, 1001 };
    uint64_t pcs[5];
    for (int i = 0; i < 5; i++) {
        pcs[i] = dma_h2v(h, 0x100, 0, sizes[i], 1);
        I(h, "sem.wait", 1, 1);
    }
    I0(h, "halt");
    h_run_ok(h);
    for (int i = 0; i < 5; i++) {
        uint64_t t = issue_cycle(h, pcs[i]);
        uint64_t want = t + 20 + ceil_div((uint64_t)sizes[i] * 2, 11);
        assert_int_equal(h_find(h, TPU_EV_DMA_DONE, 0, pcs[i], 0)->cycle, want);
        assert_int_equal(issue_cycle(h, pcs[i] + 1), want + 1);
    }
    h_free(h);
}

static void test_t15_oldest_transfer_first(void **state)
{
    (void)state;
    harness *h = h_new("tiny", NULL);
    REGS(h, 1, 0x100, 2, 0, 3, 1, 4, 64, 5, 16);
    uint64_t a = I(h, "dma.h2v", 1, 2, 3, 4, 0, 0, 0);  /* 5: XFER 26..29 */
    uint64_t b = I(h, "dma.h2v", 1, 2, 3, 5, 0, 0, 0);  /* 6: XFER from 27, no bytes until 30 */
    I0(h, "halt");
    h_run_ok(h);
    assert_int_equal(h_find(h, TPU_EV_DMA_DONE, 0, a, 0)->cycle, 29);
    assert_int_equal(h_find(h, TPU_EV_DMA_DONE, 0, b, 0)->cycle, 30);
    h_free(h);
}

static void test_t16_2d_copy_row_order(void **state)
{
    (void)state;
    harness *h = h_new("tiny", NULL);
    uint8_t src[64];
    for (int i = 0; i < 64; i++)
        src[i] = (uint8_t)i;
    h_data(h, TPU_SPACE_HBM, 0x40, src, 64);
    /* 4 rows of 6 bytes, source stride 16, destination stride 8: 24 bytes,
     * 2 cycles at 16 bytes per cycle. */
    REGS(h, 1, 0x200, 2, 0x40, 3, 4, 4, 6, 5, 16, 6, 8);
    uint64_t d = I(h, "dma.h2v", 1, 2, 3, 4, 5, 6, 0);
    I0(h, "halt");
    h_run_ok(h);
    assert_int_equal(h_find(h, TPU_EV_DMA_DONE, 0, d, 0)->cycle, issue_cycle(h, d) + 20 + 2);
    uint8_t out[32];
    h_peek(h, 0, TPU_SPACE_VMEM, 0x200, out, 32);
    for (int r = 0; r < 4; r++)
        for (int c = 0; c < 8; c++)
            assert_int_equal(out[r * 8 + c], c < 6 ? 16 * r + c : 0);
    h_free(h);
}

static void test_t17_engine_free_the_cycle_after_its_last_byte(void **state)
{
    (void)state;
    harness *h = h_new("tiny", "dma_engines=1", NULL);
    REGS(h, 1, 0x100, 2, 0, 3, 1, 4, 16);
    uint64_t a = I(h, "dma.h2v", 1, 2, 3, 4, 0, 0, 0);  /* 4: ends 25 */
    uint64_t b = I(h, "dma.h2v", 1, 2, 3, 4, 0, 0, 0);  /* starts 26, ends 46 + 1 */
    I0(h, "halt");
    h_run_ok(h);
    assert_int_equal(h_find(h, TPU_EV_DMA_DONE, 0, a, 0)->cycle, 25);
    assert_int_equal(h_find(h, TPU_EV_DMA_DONE, 0, b, 0)->cycle, 26 + 20);
    h_free(h);
}

static void test_t17_zero_byte_copy(void **state)
{
    (void)state;
    harness *h = h_new("tiny", NULL);
    uint64_t d = dma_h2v(h, 0x100, 0, 0, 0);
    uint64_t w = I(h, "sem.wait", 0, 1);
    I0(h, "halt");
    h_run_ok(h);
    /* Starts in 5, WAIT is 5..24: the semaphore goes up at the end of 24. */
    assert_int_equal(h_find(h, TPU_EV_DMA_DONE, 0, d, 0)->cycle, 24);
    assert_int_equal(issue_cycle(h, w), 25);
    h_free(h);
}

/* dma.h2v.i8: T13-T18 with the HBM bytes (the credit counts them), two
 * bytes of VMEM written per byte (bf16 of the int8, exact), and the VMEM
 * budget of class 4 spent two bytes a byte: on tiny (16 B/cycle of HBM,
 * vmem_bw 512) a lone copy of S bytes takes L + ceil(S / 16) cycles, as a
 * plain one; with VMEM left for only 20 bytes a cycle it moves 10. */
static void test_t18_widening_dma(void **state)
{
    (void)state;
    harness *h = h_new("tiny", NULL);
    int8_t src[100];
    for (int i = 0; i < 100; i++)
        src[i] = (int8_t)(i * 37 - 128);
    h_data(h, TPU_SPACE_HBM, 0x500, src, sizeof src);
    REGS(h, 1, 0x1000, 2, 0x500, 3, 2, 4, 50, 5, 200);
    uint64_t pc = I(h, "dma.h2v.i8", 1, 2, 3, 4, 4, 5, 2);   /* 2 rows of 50, dstride 200 */
    I(h, "sem.wait", 2, 1);
    I0(h, "halt");
    h_run_ok(h);
    uint64_t t = issue_cycle(h, pc);
    assert_int_equal(h_find(h, TPU_EV_DMA_DONE, 0, pc, 0)->cycle, t + 20 + ceil_div(100, 16));
    assert_int_equal(h_find(h, TPU_EV_DMA_DONE, 0, pc, 0)->len, 100);
    uint16_t got[2][100];
    h_peek(h, 0, TPU_SPACE_VMEM, 0x1000, got[0], 200);
    h_peek(h, 0, TPU_SPACE_VMEM, 0x1000 + 200, got[1], 200);
    for (int r = 0; r < 2; r++)
        for (int j = 0; j < 50; j++)
            assert_true(tpu_f32_to_float(tpu_f32_from_bf16(got[r][j])) == (float)src[r * 50 + j]);
    tpu_stats st;
    tpu_core_stats(tpu_system_core(h->sys, 0), &st);
    assert_int_equal(st.hbm_read_bytes, 100);
    h_free(h);

    /* 256 B/cycle of HBM, 128 of VMEM: a widening copy moves 64 a cycle,
     * a plain one 128 */
    h = h_new("tiny", "hbm_bw=256e9", "vmem_bw=128", "vpu_sublanes=1", "vpu_lanes=4", NULL);
    REGS(h, 1, 0x1000, 2, 0x500, 3, 1, 4, 1000);
    pc = I(h, "dma.h2v.i8", 1, 2, 3, 4, 4, 4, 2);
    I(h, "sem.wait", 2, 1);
    uint64_t pc2 = I(h, "dma.h2v", 1, 2, 3, 4, 4, 4, 2);
    I(h, "sem.wait", 2, 1);
    I0(h, "halt");
    h_run_ok(h);
    t = issue_cycle(h, pc);
    assert_int_equal(h_find(h, TPU_EV_DMA_DONE, 0, pc, 0)->cycle, t + 20 + ceil_div(1000, 64));
    t = issue_cycle(h, pc2);
    assert_int_equal(h_find(h, TPU_EV_DMA_DONE, 0, pc2, 0)->cycle, t + 20 + ceil_div(1000, 128));
    h_free(h);
}

static void test_t18_lone_dma_latency_plus_bytes_over_bandwidth_v5e(void **state)
{
    (void)state;
    /* v5e: L = 500, 8.2e11 / 1.5e9 = 1640/3 bytes per cycle. */
    harness *h = h_new("v5e", NULL);
    static const int64_t sizes[] = { 1, 546, 547, 1640, 100000, 1 << 20 };
    uint64_t pcs[6];
    for (int i = 0; i < 6; i++) {
        pcs[i] = dma_h2v(h, 0x10000, 0, sizes[i], 2);
        I(h, "sem.wait", 2, 1);
    }
    REGS(h, 20, 0x100, 21, 0, 22, 1, 23, 4096);
    uint64_t v2h = I(h, "dma.v2h", 20, 21, 22, 23, 0, 0, 2);
    I(h, "sem.wait", 2, 1);
    I0(h, "halt");
    h_run_ok(h);
    for (int i = 0; i < 6; i++) {
        uint64_t t = issue_cycle(h, pcs[i]);
        uint64_t want = t + 500 + ceil_div((uint64_t)sizes[i] * 3, 1640);
        assert_int_equal(h_find(h, TPU_EV_DMA_DONE, 0, pcs[i], 0)->cycle, want);
        assert_int_equal(issue_cycle(h, pcs[i] + 1), want + 1);
    }
    uint64_t t = issue_cycle(h, v2h);
    assert_int_equal(issue_cycle(h, v2h + 1), t + 500 + ceil_div(4096 * 3, 1640) + 1);
    h_free(h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_t13_one_start_per_cycle_on_lowest_idle_engine),
        cmocka_unit_test(test_t14_wait_lasts_exactly_L),
        cmocka_unit_test(test_t15_fractional_credit_is_exact),
        cmocka_unit_test(test_t15_oldest_transfer_first),
        cmocka_unit_test(test_t16_2d_copy_row_order),
        cmocka_unit_test(test_t17_engine_free_the_cycle_after_its_last_byte),
        cmocka_unit_test(test_t17_zero_byte_copy),
        cmocka_unit_test(test_t18_lone_dma_latency_plus_bytes_over_bandwidth_v5e),
        cmocka_unit_test(test_t18_widening_dma),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
