/*
 * test_timing_ici.c - section 6, ICI (T30, T31): one or more tests per rule,
 * each asserting exact cycle numbers (timing_helpers.h).
 */
#include "timing_helpers.h"

/* ---- section 6: ICI ---------------------------------------------------------------- */

static void ici_case(const char *bw, uint64_t num, uint64_t den, int64_t bytes)
{
    harness *h = h_new("tiny", bw, NULL);
    h->opts = (tpu_system_opts){ .cores = 2, .topology = TPU_TOPO_RING };
    uint8_t data[256];
    for (int i = 0; i < 256; i++)
        data[i] = (uint8_t)(i * 7 + 1);
    h_data(h, TPU_SPACE_VMEM, 0x100, data, sizeof data);
    REGS(h, 1, 0x800, 2, 0x100, 3, bytes);
    I(h, "bne", 31, 0, 7);                               /* core 1: to pc 7 */
    uint64_t send = I(h, "dma.ici", 0, 1, 2, 3, 5, 6);
    uint64_t lw = I(h, "sem.wait", 5, 1);
    I0(h, "halt");
    uint64_t rw = I(h, "sem.wait", 6, 1);
    assert_int_equal(rw, 7);
    I0(h, "halt");
    h_run_ok(h);
    uint64_t t = issue_cycle(h, send);
    uint64_t last = t + (bytes ? ceil_div((uint64_t)bytes * den, num) : 1);
    assert_int_equal(sem_cycle(h, 0, 5, 0), last);              /* T30: lsem */
    assert_int_equal(issue_cycle(h, lw), last + 1);
    assert_int_equal(sem_cycle(h, 1, 6, 0), last + 10);         /* T31: rsem */
    assert_int_equal(h_find(h, TPU_EV_ISSUE, 1, rw, 0)->cycle, last + 11);
    uint8_t out[256];
    h_peek(h, 1, TPU_SPACE_VMEM, 0x800, out, (size_t)bytes);
    assert_memory_equal(out, data, (size_t)bytes);
    tpu_stats st;
    tpu_core_stats(h_core(h, 0), &st);
    assert_int_equal(st.ici_bytes, (uint64_t)bytes);
    h_free(h);
}

static void test_t30_t31_ici_send_and_landing(void **state)
{
    (void)state;
    ici_case("ici_bw=4e9", 4, 1, 10);
    ici_case("ici_bw=4e9", 4, 1, 256);
    ici_case("ici_bw=2.5e9", 5, 2, 13);          /* 2.5 bytes per cycle */
    ici_case("ici_bw=4e9", 4, 1, 0);             /* empty: lsem in its start cycle */
}

static void test_t30_one_transfer_per_link(void **state)
{
    (void)state;
    harness *h = h_new("tiny", NULL);
    h->opts = (tpu_system_opts){ .cores = 2, .topology = TPU_TOPO_RING };
    REGS(h, 1, 0x800, 2, 0x100, 3, 8);
    I(h, "bne", 31, 0, 9);
    uint64_t a = I(h, "dma.ici", 0, 1, 2, 3, 5, 6);     /* 8 bytes: 2 cycles */
    uint64_t b = I(h, "dma.ici", 0, 1, 2, 3, 5, 6);     /* same link: after a */
    uint64_t c = I(h, "dma.ici", 1, 1, 2, 3, 7, 8);     /* behind b in the queue */
    I(h, "sem.wait", 5, 2);
    I(h, "sem.wait", 7, 1);
    I0(h, "halt");
    I(h, "sem.wait", 6, 2);                             /* core 1 */
    I(h, "sem.wait", 8, 1);
    I0(h, "halt");
    h_run_ok(h);
    uint64_t t = issue_cycle(h, a);
    assert_int_equal(h_find(h, TPU_EV_ICI_SEND, 0, a, 0)->cycle, t + 2);
    assert_int_equal(h_find(h, TPU_EV_ICI_SEND, 0, b, 0)->cycle, t + 4);
    /* c's port is free, but the queue is in order: c starts when b has. */
    assert_int_equal(h_find(h, TPU_EV_ICI_SEND, 0, c, 0)->cycle, t + 3 + 2);
    h_free(h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_t30_t31_ici_send_and_landing),
        cmocka_unit_test(test_t30_one_transfer_per_link),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
