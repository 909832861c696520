/*
 * test_timing_seq.c - section 1 of docs/timing.md, the sequencer (T1-T10): one or more tests per rule,
 * each asserting exact cycle numbers (timing_helpers.h).
 */
#include "timing_helpers.h"

/* ---- section 1: the sequencer ------------------------------------------------ */

static void test_t1_one_instruction_per_cycle(void **state)
{
    (void)state;
    harness *h = h_new("tiny", NULL);
    I0(h, "nop");
    I0(h, "nop");
    I0(h, "nop");
    uint64_t halt = I0(h, "halt");
    h_run_ok(h);
    for (uint64_t pc = 0; pc <= halt; pc++)
        assert_int_equal(issue_cycle(h, pc), pc);
    tpu_stats st;
    tpu_core_stats(h_core(h, 0), &st);
    assert_int_equal(st.cycles, 4);             /* T8: up to and including halt */
    assert_int_equal(st.instructions, 4);
    h_free(h);
}

static void test_t1_taken_jump_costs_one_cycle(void **state)
{
    (void)state;
    harness *h = h_new("tiny", NULL);
    I(h, "jmp", 3);                             /* 0 */
    I0(h, "nop");                               /* 1: skipped */
    I0(h, "nop");                               /* 2: skipped */
    uint64_t t = I0(h, "nop");                  /* 3 */
    uint64_t halt = I0(h, "halt");
    h_run_ok(h);
    assert_int_equal(issue_cycle(h, t), 1);
    assert_int_equal(issue_cycle(h, halt), 2);
    h_free(h);
}

static void test_t2_alu_result_usable_next_cycle(void **state)
{
    (void)state;
    harness *h = h_new("tiny", NULL);
    I(h, "li", 1, 5);
    uint64_t a = I(h, "addi", 2, 1, 3);
    uint64_t b = I(h, "add", 3, 2, 1);
    I0(h, "halt");
    h_run_ok(h);
    assert_int_equal(issue_cycle(h, a), 1);
    assert_int_equal(issue_cycle(h, b), 2);
    tpu_seq_view v;
    tpu_core_seq_view(h_core(h, 0), &v);
    assert_int_equal(v.sreg[2], 8);
    assert_int_equal(v.sreg[3], 13);
    h_free(h);
}

static void test_t3_branch_target_issues_next_cycle(void **state)
{
    (void)state;
    harness *h = h_new("tiny", NULL);
    I(h, "li", 1, 3);                           /* cycle 0 */
    uint64_t loop = I(h, "addi", 1, 1, -1);     /* 1, 3, 5 */
    uint64_t br = I(h, "bne", 1, 0, loop);      /* 2, 4, 6 (not taken) */
    uint64_t halt = I0(h, "halt");              /* 7 */
    h_run_ok(h);
    assert_int_equal(h_find(h, TPU_EV_ISSUE, 0, loop, 1)->cycle, 3);
    assert_int_equal(h_find(h, TPU_EV_ISSUE, 0, br, 2)->cycle, 6);
    assert_int_equal(issue_cycle(h, halt), 7);
    h_free(h);
}

static void test_t4_dispatched_entry_visible_next_cycle(void **state)
{
    (void)state;
    harness *h = h_new("tiny", NULL);
    REGS(h, 1, 0x1000, 2, 0x2000, 3, 1, 4, 16, 5, 32);
    uint64_t mm = I(h, "mxu.mm", 0, 1, 2, 3, 4, 5, 31);     /* no mxu.lw: zero weights */
    I0(h, "halt");
    h_run_ok(h);
    uint64_t t = issue_cycle(h, mm);
    assert_int_equal(t, 5);
    assert_int_equal(h_find(h, TPU_EV_MXU_TILE_START, 0, mm, 0)->cycle, t + 1);
    h_free(h);
}

static void test_t4_full_queue_stalls_issue(void **state)
{
    (void)state;
    harness *h = h_new("tiny", NULL);
    REGS(h, 1, 0x100, 2, 0, 3, 1, 4, 16);              /* cycles 0..3 */
    uint64_t d[7];
    for (int i = 0; i < 7; i++)
        d[i] = I(h, "dma.h2v", 1, 2, 3, 4, 0, 0, 0);   /* cycles 4..9, then a stall */
    I0(h, "halt");
    h_build(h);
    /* In cycle 10 the queue holds #2..#5 (Q = 4) and both engines are busy. */
    while (tpu_system_cycle(h->sys) < 11)
        tpu_system_step(h->sys);
    tpu_seq_view v;
    tpu_core_seq_view(h_core(h, 0), &v);
    assert_int_equal(v.pc, d[6]);
    assert_non_null(v.stall);
    assert_string_equal(v.stall, "queue full: dma");
    h_run_ok(h);
    for (int i = 0; i < 6; i++)
        assert_int_equal(issue_cycle(h, d[i]), 4 + i);
    /* #0 ends at 4 + L + 1 = 25; #2 leaves the queue in 26; the sequencer
     * sees the free slot in 27. */
    assert_int_equal(h_find(h, TPU_EV_DMA_DONE, 0, d[0], 0)->cycle, 25);
    assert_int_equal(issue_cycle(h, d[6]), 27);
    tpu_stats st;
    tpu_core_stats(h_core(h, 0), &st);
    assert_int_equal(st.unit[TPU_U_SEQ].stall_by_reason[0], 27 - 10);
    assert_string_equal(tpu_stall_reason_name(TPU_U_SEQ, 0), "queue full");
    h_free(h);
}

static void test_t6_sem_wait_issues_after_increment_and_takes_count(void **state)
{
    (void)state;
    harness *h = h_new("tiny", NULL);
    uint64_t a = dma_h2v(h, 0x100, 0, 16, 3);           /* cycle 4 */
    uint64_t b = dma_h2v(h, 0x200, 0, 16, 3);           /* cycle 9 */
    uint64_t w = I(h, "sem.wait", 3, 2);
    I0(h, "halt");
    h_run_ok(h);
    assert_int_equal(issue_cycle(h, a), 4);
    assert_int_equal(issue_cycle(h, b), 9);
    uint64_t eb = h_find(h, TPU_EV_DMA_DONE, 0, b, 0)->cycle;
    assert_int_equal(eb, 9 + 20 + 1);
    assert_int_equal(issue_cycle(h, w), eb + 1);
    tpu_seq_view v;
    tpu_core_seq_view(h_core(h, 0), &v);
    assert_int_equal(v.sem[3], 0);
    h_free(h);
}

static void test_t6_decrement_and_increment_in_one_cycle(void **state)
{
    (void)state;
    harness *h = h_new("tiny", NULL);
    REGS(h, 1, 0x100, 2, 0, 3, 1, 4, 16);
    uint64_t a = I(h, "dma.h2v", 1, 2, 3, 4, 0, 0, 5);  /* 4: ends 25 */
    uint64_t b = I(h, "dma.h2v", 1, 2, 3, 4, 0, 0, 5);  /* 5: ends 26 */
    uint64_t w1 = I(h, "sem.wait", 5, 1);               /* sees 1 in 26, takes it */
    uint64_t w2 = I(h, "sem.wait", 5, 1);               /* b's increment of 26 */
    I0(h, "halt");
    h_run_ok(h);
    assert_int_equal(h_find(h, TPU_EV_DMA_DONE, 0, a, 0)->cycle, 25);
    assert_int_equal(h_find(h, TPU_EV_DMA_DONE, 0, b, 0)->cycle, 26);
    assert_int_equal(issue_cycle(h, w1), 26);
    assert_int_equal(issue_cycle(h, w2), 27);
    h_free(h);
}

static void test_t7_sync_waits_until_unit_idle(void **state)
{
    (void)state;
    harness *h = h_new("tiny", NULL);
    uint64_t d = dma_h2v(h, 0x100, 0, 16, 0);
    uint64_t s1 = I(h, "sync", TPU_UNITS_DMA);          /* the DMA is non-idle from d+1 */
    uint64_t s2 = I(h, "sync", TPU_UNITS_VPU | TPU_UNITS_MXU);  /* idle: no wait */
    I0(h, "halt");
    h_run_ok(h);
    uint64_t e = h_find(h, TPU_EV_DMA_DONE, 0, d, 0)->cycle;
    assert_int_equal(e, issue_cycle(h, d) + 21);
    assert_int_equal(issue_cycle(h, s1), e + 1);
    assert_int_equal(issue_cycle(h, s2), e + 2);
    h_free(h);
}

static void test_t8_halt_waits_for_all_units(void **state)
{
    (void)state;
    harness *h = h_new("tiny", NULL);
    uint64_t d = dma_h2v(h, 0x100, 0, 32, 0);
    uint64_t halt = I0(h, "halt");
    h_run_ok(h);
    uint64_t e = h_find(h, TPU_EV_DMA_DONE, 0, d, 0)->cycle;
    assert_int_equal(e, 4 + 20 + 2);
    assert_int_equal(issue_cycle(h, halt), e + 1);
    tpu_stats st;
    tpu_core_stats(h_core(h, 0), &st);
    assert_int_equal(st.cycles, e + 2);
    assert_int_equal(h_find(h, TPU_EV_HALT, 0, ANY, 0)->cycle, e + 1);
    h_free(h);
}

static void test_t9_increments_of_one_cycle_all_count(void **state)
{
    (void)state;
    harness *h = h_new("tiny", NULL);
    REGS(h, 1, 0x100, 2, 0, 3, 1, 4, 24, 5, 8);
    I(h, "dma.h2v", 1, 2, 3, 4, 0, 0, 7);   /* 5: 24 bytes, XFER 26, 27 */
    I(h, "dma.h2v", 1, 2, 3, 5, 0, 0, 7);   /* 6: 8 bytes, XFER from 27 */
    I(h, "sem.wait", 7, 2);
    I0(h, "halt");
    h_run_ok(h);
    /* Cycle 27: 16 bytes of credit, 8 to the older engine, 8 to the newer:
     * both finish and the semaphore goes from 0 to 2 in that one cycle. */
    assert_int_equal(sem_cycle(h, 0, 7, 0), 27);
    const recorded *r = NULL;
    for (size_t i = 0; i < h->nev; i++)
        if (h->ev[i].kind == TPU_EV_SEM && h->ev[i].index == 7) {
            r = &h->ev[i];
            break;
        }
    assert_non_null(r);
    assert_int_equal(r->value, 2);
    h_free(h);
}

static void test_t10_deadlock_lone_wait(void **state)
{
    (void)state;
    harness *h = h_new("tiny", NULL);
    I(h, "sem.wait", 0, 1);
    I0(h, "halt");
    h_expect_error(h, "core 0: cycle 0: pc 0 (sem.wait 0, 1): deadlock: sem.wait on sem 0 "
                      "(value 0, needs 1) can never succeed");
    h_free(h);
}

static void test_t10_deadlock_after_last_dma(void **state)
{
    (void)state;
    harness *h = h_new("tiny", NULL);
    uint64_t d = dma_h2v(h, 0x100, 0, 16, 2);
    I(h, "sem.wait", 2, 2);                 /* only one increment will ever come */
    I0(h, "halt");
    h_expect_error(h, "deadlock");
    uint64_t e = h_find(h, TPU_EV_DMA_DONE, 0, d, 0)->cycle;
    char want[64];
    snprintf(want, sizeof want, "cycle %llu: pc 5", (unsigned long long)(e + 1));
    assert_non_null(strstr(tpu_system_error(h->sys), want));
    assert_non_null(strstr(tpu_system_error(h->sys), "(value 1, needs 2)"));
    h_free(h);
}

/* Bytes still on a wire towards a waiting core: not a deadlock, even when
 * the sender has halted and the receiver's units are all idle. */
static void test_t10_no_deadlock_while_ici_in_flight(void **state)
{
    (void)state;
    harness *h = h_new("tiny", "ici_latency=50", NULL);
    h->opts = (tpu_system_opts){ .cores = 2, .topology = TPU_TOPO_RING };
    REGS(h, 1, 0x300, 2, 0x100, 3, 8);
    uint64_t br = I(h, "bne", 31, 0, 7);                 /* core 1 jumps to the wait */
    uint64_t send = I(h, "dma.ici", 0, 1, 2, 3, 0, 4);  /* core 0 sends to core 1 */
    I(h, "sync", TPU_UNITS_ICI);
    I0(h, "halt");
    assert_int_equal(PC(h), 7);
    uint64_t w = I(h, "sem.wait", 4, 1);
    I0(h, "halt");
    (void)br;
    h_run_ok(h);
    assert_true(h_find(h, TPU_EV_ISSUE, 1, w, 0)->cycle > 0);
    uint64_t t = issue_cycle(h, send);
    /* 8 bytes at 4 per cycle leave in t+1, t+2; land 50 cycles later. */
    assert_int_equal(h_find(h, TPU_EV_ICI_SEND, 0, ANY, 0)->cycle, t + 2);
    assert_int_equal(sem_cycle(h, 1, 4, 0), t + 2 + 50);
    assert_int_equal(h_find(h, TPU_EV_ISSUE, 1, w, 0)->cycle, t + 2 + 51);
    h_free(h);
}

static void test_t10_cycle_limit(void **state)
{
    (void)state;
    harness *h = h_new("tiny", NULL);
    I0(h, "nop");
    I(h, "jmp", 0);
    h_build(h);
    assert_int_equal(tpu_system_run(h->sys, 500), TPU_STOP_CYCLE_LIMIT);
    assert_int_equal(tpu_system_cycle(h->sys), 500);
    assert_string_equal(tpu_system_error(h->sys),
                        "core 0: cycle 500: pc 0 (nop): cycle limit reached (500 cycles)");
    h_free(h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_t1_one_instruction_per_cycle),
        cmocka_unit_test(test_t1_taken_jump_costs_one_cycle),
        cmocka_unit_test(test_t2_alu_result_usable_next_cycle),
        cmocka_unit_test(test_t3_branch_target_issues_next_cycle),
        cmocka_unit_test(test_t4_dispatched_entry_visible_next_cycle),
        cmocka_unit_test(test_t4_full_queue_stalls_issue),
        cmocka_unit_test(test_t6_sem_wait_issues_after_increment_and_takes_count),
        cmocka_unit_test(test_t6_decrement_and_increment_in_one_cycle),
        cmocka_unit_test(test_t7_sync_waits_until_unit_idle),
        cmocka_unit_test(test_t8_halt_waits_for_all_units),
        cmocka_unit_test(test_t9_increments_of_one_cycle_all_count),
        cmocka_unit_test(test_t10_deadlock_lone_wait),
        cmocka_unit_test(test_t10_deadlock_after_last_dma),
        cmocka_unit_test(test_t10_no_deadlock_while_ici_in_flight),
        cmocka_unit_test(test_t10_cycle_limit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
