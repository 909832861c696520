/*
 * test_timing.c - one or more tests per rule of docs/timing.md (T1..T31),
 * each asserting exact cycle numbers, plus the run-time errors.
 *
 * Programs are built here with tpu_encode (no assembler).  Unless a test
 * says otherwise the machine is the `tiny` preset: N = 8, one MXU, HBM 16
 * bytes/cycle with L = 20, two DMA engines, queues of Q = 4, VL = 2, W = 1,
 * vmem_bw = 512, ICI 4 bytes/cycle with 10 cycles per hop (model_helpers.h
 * pins these).  Cycle numbers
 * come from the event stream (TPU_EV_ISSUE of a pc, TPU_EV_SEM, ...).
 */
#include "model_helpers.h"
#include "probe.h"
#include "ref.h"

/* li s<r>, v for a list of (register, value) pairs; returns nothing. */
static void set_regs(harness *h, const int64_t *rv, unsigned n)
{
    for (unsigned i = 0; i < n; i += 2)
        I(h, "li", rv[i], rv[i + 1]);
}
#define REGS(h, ...) set_regs((h), OPS(__VA_ARGS__), NOPS(__VA_ARGS__))

/* A 1-row, `bytes`-byte dma.h2v from HBM 0 to VMEM `vdst` on semaphore sem,
 * using s20..s23 as scratch.  Returns its pc. */
static uint64_t dma_h2v(harness *h, int64_t vdst, int64_t hsrc, int64_t bytes, int64_t sem)
{
    REGS(h, 20, vdst, 21, hsrc, 22, 1, 23, bytes);
    return I(h, "dma.h2v", 20, 21, 22, 23, 0, 0, sem);
}

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

/* ---- section 4: MXU ---------------------------------------------------------------- */

/* An 8 x 8 bf16 tile with distinct entries (small integers). */
static void tile_8(uint16_t *w, int base)
{
    for (int i = 0; i < 64; i++)
        w[i] = tpu_bf16_from_f32(tpu_f32_from_float((float)(base + i)));
}

/* MXU stall reasons, as tpu_stall_reason_name numbers them (checked in
 * test_t19_weight_loads_start_N_apart and test_t21_...). */
enum { MXU_LOADS_IN_FLIGHT = 0, MXU_STREAM_BUSY = 1 };

/* The start cycle of the mxu.lw at pc: it retires at l + 2N - 1 (T20a). */
static uint64_t lw_start(harness *h, uint64_t pc, uint64_t n)
{
    return h_find(h, TPU_EV_RETIRE, 0, pc, 0)->cycle + 1 - 2 * n;
}

static void test_t19_weight_loads_start_N_apart(void **state)
{
    (void)state;
    harness *h = h_new("tiny", NULL);                    /* W = 1 */
    REGS(h, 1, 0x1000, 2, 16);
    uint64_t a = I(h, "mxu.lw", 0, 1, 2, 31);
    uint64_t b = I(h, "mxu.lw", 0, 1, 2, 31);
    I0(h, "halt");
    h_run_ok(h);
    uint64_t la = issue_cycle(h, a) + 1, lb = la + 8;    /* T19 */
    /* RETIRE: the last cell's shadow is written at the end of l + 2N - 1. */
    assert_int_equal(h_find(h, TPU_EV_RETIRE, 0, a, 0)->cycle, la + 15);
    assert_int_equal(h_find(h, TPU_EV_RETIRE, 0, b, 0)->cycle, lb + 15);
    /* The second load waited in la + 1 .. la + 7 (it reached the head in la + 1). */
    tpu_stats st;
    tpu_core_stats(h_core(h, 0), &st);
    assert_int_equal(st.unit[TPU_U_MXU0].stall_by_reason[MXU_LOADS_IN_FLIGHT], 7);
    assert_string_equal(tpu_stall_reason_name(TPU_U_MXU0, MXU_LOADS_IN_FLIGHT), "loads in flight");
    h_free(h);
}

/* W = 2: two loads read at once; a third waits until the first has read
 * its last row, and takes its slot (the lowest free one). */
static void test_t19_up_to_W_loads_in_flight(void **state)
{
    (void)state;
    harness *h = h_new("tiny", "mxu_wloads=2", NULL);
    REGS(h, 1, 0x1000, 2, 16);
    uint64_t pc[3];
    for (int i = 0; i < 3; i++)
        pc[i] = I(h, "mxu.lw", 0, 1, 2, 31);
    I0(h, "halt");
    h_build(h);
    uint64_t l1 = pc[0] + 1;                             /* issued in its pc's cycle */
    uint64_t l[3] = { l1, l1 + 1, l1 + 8 };              /* T19 */
    unsigned slot[3] = { 0, 1, 0 };
    int st;
    while ((st = tpu_system_step(h->sys)) == TPU_RUNNING) {
        /* lw_reading_q at the start of cycle u: the slots whose load reads
         * its rows 1 .. N-1 in u. */
        uint64_t u = tpu_system_cycle(h->sys), want = 0;
        for (int i = 0; i < 3; i++)
            if (l[i] < u && u < l[i] + 8)
                want |= 1ull << slot[i];
        tpu_probe p;
        tpu_probe_core(h_core(h, 0), u, &p);
        if (p.mxu[0].lw_reading != want)
            fail_msg("cycle %llu: lw_reading_q %#llx, want %#llx", (unsigned long long)u,
                     (unsigned long long)p.mxu[0].lw_reading, (unsigned long long)want);
    }
    assert_int_equal(st, TPU_STOP_HALT);
    for (int i = 0; i < 3; i++)
        assert_int_equal(lw_start(h, pc[i], 8), l[i]);
    tpu_stats stats;
    tpu_core_stats(h_core(h, 0), &stats);
    assert_int_equal(stats.unit[TPU_U_MXU0].stall_by_reason[MXU_LOADS_IN_FLIGHT], 6);  /* l1+2 .. l1+7 */
    h_free(h);
}

/* Cells' shadow, weight in transit and weight, cycle by cycle, for two
 * loads of different tiles started in l[0] and l[1] (T20): the load started
 * in l writes cell (k, c)'s shadow at the end of l + k + 1 + c. */
static void wavefront_case(const char *wloads, uint64_t gap)
{
    harness *h = h_new("tiny", wloads, NULL);
    uint16_t w[2][64];
    tile_8(w[0], 1);
    tile_8(w[1], 100);
    h_data(h, TPU_SPACE_VMEM, 0x1000, w[0], sizeof w[0]);
    h_data(h, TPU_SPACE_VMEM, 0x1100, w[1], sizeof w[1]);
    REGS(h, 1, 0x1000, 2, 16, 3, 0x1100);
    uint64_t lw0 = I(h, "mxu.lw", 0, 1, 2, 31);
    uint64_t lw1 = I(h, "mxu.lw", 0, 3, 2, 31);
    I0(h, "halt");
    h_build(h);
    uint64_t l[2] = { lw0 + 1, lw0 + 1 + gap };
    for (uint64_t t = 0; t < l[1] + 16; t++) {          /* halt comes in l[1] + 2N */
        assert_int_equal(tpu_system_step(h->sys), TPU_RUNNING);
        for (unsigned k = 0; k < 8; k++) {
            for (unsigned c = 0; c < 8; c++) {
                tpu_cell_view v;
                assert_int_equal(tpu_core_mxu_cell(h_core(h, 0), 0, k, c, &v), 0);
                uint16_t shadow = 0, chain = 0;
                int loading = 0;
                for (int i = 0; i < 2; i++) {
                    if (l[i] + k + 1 + c <= t)
                        shadow = w[i][k * 8 + c];
                    if (l[i] + k + 1 + c == t) {
                        loading = 1;
                        chain = w[i][k * 8 + c];
                    }
                }
                if (v.shadow != shadow || v.loading != loading || v.chain != chain)
                    fail_msg("%s cycle %llu cell (%u,%u): shadow %#x loading %d in transit %#x, "
                             "want %#x %d %#x", wloads, (unsigned long long)t, k, c, v.shadow,
                             v.loading, v.chain, shadow, loading, chain);
                assert_int_equal(v.weight, 0);           /* nothing swapped it in */
            }
        }
    }
    assert_int_equal(tpu_system_step(h->sys), TPU_STOP_HALT);
    assert_int_equal(lw_start(h, lw0, 8), l[0]);
    assert_int_equal(lw_start(h, lw1, 8), l[1]);
    h_free(h);
}

static void test_t20_shadow_written_on_a_diagonal_wavefront(void **state)
{
    (void)state;
    wavefront_case("mxu_wloads=1", 8);                   /* the second load starts N later */
    wavefront_case("mxu_wloads=2", 1);                   /* ... right behind the first */
}

/* W = 2, both loads from the same VMEM tile, which changes every cycle:
 * the load started in l reads row i in l + i (what VMEM held at the start
 * of that cycle) and keeps it; VMEM reads are 2N bytes per load reading. */
static void test_t20_each_load_reads_one_row_per_cycle_top_first(void **state)
{
    (void)state;
    harness *h = h_new("tiny", "mxu_wloads=2", NULL);
    REGS(h, 1, 0x1000, 2, 16);
    uint64_t lw0 = I(h, "mxu.lw", 0, 1, 2, 31);
    I(h, "mxu.lw", 0, 1, 2, 31);
    I0(h, "halt");
    h_build(h);
    uint64_t l[2] = { lw0 + 1, lw0 + 2 };
    uint64_t reads = 0;
    for (uint64_t t = 0; t < l[1] + 16; t++) {
        /* Before cycle t: every element of the tile is t + 16 * row. */
        uint16_t w[64];
        for (int i = 0; i < 64; i++)
            w[i] = tpu_bf16_from_f32(tpu_f32_from_float((float)(t + 16 * (uint64_t)(i / 8))));
        h_poke(h, TPU_SPACE_VMEM, 0x1000, w, sizeof w);
        assert_int_equal(tpu_system_step(h->sys), TPU_RUNNING);
        tpu_stats st;
        tpu_core_stats(h_core(h, 0), &st);
        uint64_t rows = (t >= l[0] && t < l[0] + 8) + (t >= l[1] && t < l[1] + 8);
        assert_int_equal(st.vmem_read_bytes - reads, 16 * rows);
        reads = st.vmem_read_bytes;
        for (unsigned k = 0; k < 8; k++)
            for (unsigned c = 0; c < 8; c++) {
                tpu_cell_view v;
                assert_int_equal(tpu_core_mxu_cell(h_core(h, 0), 0, k, c, &v), 0);
                for (int i = 0; i < 2; i++) {
                    if (t < l[i] + k + 1 + c)
                        continue;
                    /* row k of load i was read in l[i] + k */
                    uint16_t want = tpu_bf16_from_f32(
                        tpu_f32_from_float((float)(l[i] + k + 16 * (uint64_t)k)));
                    if (t == l[i] + k + 1 + c) {
                        assert_int_equal(v.loading, 1);
                        assert_int_equal(v.chain, want);
                    }
                    if (i == 1 || t < l[1] + k + 1 + c)
                        assert_int_equal(v.shadow, want);
                }
            }
    }
    h_free(h);
}

/* lw of the tile at 0x1000 into MXU 0, then mxu.mm of M rows at 0x2000
 * (stride 16) to 0x3000 (stride 32). */
static void lw_then_mm(harness *h, int64_t rows, uint64_t *lw, uint64_t *mm)
{
    REGS(h, 1, 0x1000, 2, 16, 3, 0x3000, 4, 0x2000, 5, rows, 6, 32);
    *lw = I(h, "mxu.lw", 0, 1, 2, 31);
    *mm = I(h, "mxu.mm", 0, 3, 4, 5, 2, 6, 31);
}

/* T20a: the mxu.lw's semaphore counts at the end of l + N - 1, when its last
 * weight row has been read; a sem.wait on it issues one cycle later. */
static void test_t20a_lw_semaphore_after_last_row_read(void **state)
{
    (void)state;
    harness *h = h_new("tiny", NULL);
    REGS(h, 1, 0x1000, 2, 16);
    uint64_t lw = I(h, "mxu.lw", 0, 1, 2, 5);
    uint64_t wait = I(h, "sem.wait", 5, 1);
    I0(h, "halt");
    h_run_ok(h);
    uint64_t l = issue_cycle(h, lw) + 1;                 /* T4: starts the cycle after */
    assert_int_equal(sem_cycle(h, 0, 5, 0), l + 8 - 1);
    assert_int_equal(issue_cycle(h, wait), l + 8);
    h_free(h);

    /* W = 2: each of two loads in flight counts after its own last row. */
    h = h_new("tiny", "mxu_wloads=2", NULL);
    REGS(h, 1, 0x1000, 2, 16);
    lw = I(h, "mxu.lw", 0, 1, 2, 5);
    uint64_t lw2 = I(h, "mxu.lw", 0, 1, 2, 6);
    I0(h, "halt");
    h_run_ok(h);
    assert_int_equal(lw_start(h, lw2, 8), lw_start(h, lw, 8) + 1);
    assert_int_equal(sem_cycle(h, 0, 5, 0), lw_start(h, lw, 8) + 7);
    assert_int_equal(sem_cycle(h, 0, 6, 0), lw_start(h, lw2, 8) + 7);
    h_free(h);
}

/* T24a: a stream's semaphore counts with its last result row (end of
 * s + M - 1 + 2N); the sem.wait behind it then sees every row. */
static void test_t24a_stream_semaphore_with_last_row(void **state)
{
    (void)state;
    harness *h = h_new("tiny", NULL);
    REGS(h, 1, 0x1000, 2, 16, 3, 0x3000, 4, 0x2000, 5, 6, 6, 32);
    I(h, "mxu.lw", 0, 1, 2, 31);
    uint64_t mm = I(h, "mxu.mm", 0, 3, 4, 5, 2, 6, 9);
    uint64_t wait = I(h, "sem.wait", 9, 1);
    I0(h, "halt");
    h_run_ok(h);
    uint64_t s = h_find(h, TPU_EV_MXU_TILE_START, 0, mm, 0)->cycle;
    uint64_t last = h_find(h, TPU_EV_MXU_ROW_OUT, 0, mm, 5)->cycle;
    assert_int_equal(last, s + 6 - 1 + 16);
    assert_int_equal(sem_cycle(h, 0, 9, 0), last);
    assert_int_equal(issue_cycle(h, wait), last + 1);
    h_free(h);
}

/* T24a: a stream of no rows counts its semaphore at the end of its start. */
static void test_t24a_empty_stream_semaphore_at_start(void **state)
{
    (void)state;
    harness *h = h_new("tiny", NULL);
    REGS(h, 3, 0x3000, 4, 0x2000, 5, 0, 6, 32, 2, 16);
    uint64_t mm = I(h, "mxu.mm", 0, 3, 4, 5, 2, 6, 9);
    I(h, "sem.wait", 9, 1);
    I0(h, "halt");
    h_run_ok(h);
    assert_int_equal(sem_cycle(h, 0, 9, 0), issue_cycle(h, mm) + 1);
    h_free(h);
}

/* Check the M-row result of a stream at 0x3000 (stride 32) against
 * tpu_ref_row of its LHS rows x and tile w. */
static void check_rows(harness *h, uint64_t dst, const uint16_t *x, const uint16_t *w, int rows)
{
    for (int b = 0; b < rows; b++) {
        uint32_t want[8], got[8];
        tpu_ref_row(x + 8 * b, w, 8, want);
        h_peek(h, 0, TPU_SPACE_VMEM, dst + 32 * (uint64_t)b, got, sizeof got);
        assert_memory_equal(got, want, sizeof want);
    }
}

/* A stream starts the cycle after its mxu.lw (T21: no wait for the
 * weights) and computes with the whole new tile; a second stream on the
 * same weights waits for the first's rows (stream busy). */
static void t21_case(const char *wloads)
{
    harness *h = h_new("tiny", wloads, NULL);
    uint16_t w[64], x[4 * 8];
    tile_8(w, -30);
    for (int i = 0; i < 32; i++)
        x[i] = tpu_bf16_from_f32(tpu_f32_from_float(0.25f * (float)(i % 9) - 1.0f));
    h_data(h, TPU_SPACE_VMEM, 0x1000, w, sizeof w);
    h_data(h, TPU_SPACE_VMEM, 0x2000, x, sizeof x);
    uint64_t lw, mm;
    lw_then_mm(h, 4, &lw, &mm);
    uint64_t mm2 = I(h, "mxu.mm", 0, 3, 4, 5, 2, 6, 31);     /* same weights: after M rows */
    I0(h, "halt");
    h_run_ok(h);
    uint64_t l = issue_cycle(h, lw) + 1;
    uint64_t s = h_find(h, TPU_EV_MXU_TILE_START, 0, mm, 0)->cycle;
    assert_int_equal(s, l + 1);
    assert_int_equal(h_find(h, TPU_EV_MXU_TILE_START, 0, mm2, 0)->cycle, s + 4);
    check_rows(h, 0x3000, x, w, 4);
    tpu_stats st;
    tpu_core_stats(h_core(h, 0), &st);
    assert_int_equal(st.unit[TPU_U_MXU0].stall_by_reason[MXU_STREAM_BUSY], 3);
    assert_string_equal(tpu_stall_reason_name(TPU_U_MXU0, MXU_STREAM_BUSY), "stream busy");
    assert_null(tpu_stall_reason_name(TPU_U_MXU0, 2));   /* no "weights loading" any more */
    assert_int_equal(st.unit[TPU_U_MXU0].stall_by_reason[MXU_LOADS_IN_FLIGHT], 0);
    h_free(h);
}

static void test_t21_stream_starts_the_cycle_after_its_load(void **state)
{
    (void)state;
    t21_case("mxu_wloads=1");
    t21_case("mxu_wloads=2");
}

/* W = 2: lw A, mm, lw B, mm, each stream right behind its load, with 3
 * rows each: cell by cell, the swap of each stream copies a shadow that
 * already holds its load's weight (written at the end of l + k + 1 + c
 * <= s + k + c) and that the next load has not yet overwritten; every
 * multiply-add uses the stream's tile; the results are tpu_ref_row's. */
static void test_t21_stream_right_behind_its_load_gets_the_whole_tile(void **state)
{
    (void)state;
    harness *h = h_new("tiny", "mxu_wloads=2", NULL);
    uint16_t w[2][64], x[3 * 8];
    tile_8(w[0], -20);
    tile_8(w[1], 7);
    for (int i = 0; i < 24; i++)
        x[i] = tpu_bf16_from_f32(tpu_f32_from_float(0.5f * (float)(i % 5) - 1.0f));
    h_data(h, TPU_SPACE_VMEM, 0x1000, w[0], sizeof w[0]);
    h_data(h, TPU_SPACE_VMEM, 0x1100, w[1], sizeof w[1]);
    h_data(h, TPU_SPACE_VMEM, 0x2000, x, sizeof x);
    REGS(h, 1, 0x1000, 2, 16, 3, 0x3000, 4, 0x2000, 5, 3, 6, 32, 7, 0x1100, 8, 0x3100);
    uint64_t lw[2], mm[2];
    lw[0] = I(h, "mxu.lw", 0, 1, 2, 31);
    mm[0] = I(h, "mxu.mm", 0, 3, 4, 5, 2, 6, 31);
    lw[1] = I(h, "mxu.lw", 0, 7, 2, 31);
    mm[1] = I(h, "mxu.mm", 0, 8, 4, 5, 2, 6, 31);
    I0(h, "halt");
    h_build(h);
    /* Issued one per cycle: l0, s0 = l0 + 1, l1 = s0 + 1, s1 = s0 + M. */
    uint64_t l[2] = { lw[0] + 1, lw[0] + 3 }, s[2] = { lw[0] + 2, lw[0] + 5 };
    uint16_t prev_shadow[64] = { 0 };
    while (tpu_system_cycle(h->sys) < s[1] + 3 + 16) {  /* halt: s1 + M + 2N */
        uint64_t t = tpu_system_cycle(h->sys);
        assert_int_equal(tpu_system_step(h->sys), TPU_RUNNING);
        for (unsigned k = 0; k < 8; k++) {
            for (unsigned c = 0; c < 8; c++) {
                tpu_cell_view v;
                assert_int_equal(tpu_core_mxu_cell(h_core(h, 0), 0, k, c, &v), 0);
                for (int i = 0; i < 2; i++) {
                    if (t == s[i] + 1 + k + c) {         /* the swap: shadow -> active */
                        assert_int_equal(prev_shadow[k * 8 + c], w[i][k * 8 + c]);
                        assert_int_equal(v.weight, w[i][k * 8 + c]);
                    }
                    int64_t b = (int64_t)t - (int64_t)(s[i] + 1 + k + c);
                    if (b < 0 || b >= 3)
                        continue;
                    assert_int_equal(v.active, 1);       /* row b of stream i is here */
                    assert_int_equal(v.row, b);
                    assert_int_equal(v.weight, w[i][k * 8 + c]);
                    uint32_t psum = 0;
                    for (unsigned j = 0; j <= k; j++)
                        psum = tpu_mac(psum, x[b * 8 + j], w[i][j * 8 + c]);
                    assert_int_equal(v.psum, psum);
                }
                prev_shadow[k * 8 + c] = v.shadow;
            }
        }
    }
    assert_int_equal(tpu_system_step(h->sys), TPU_STOP_HALT);
    for (int i = 0; i < 2; i++) {
        assert_int_equal(lw_start(h, lw[i], 8), l[i]);
        assert_int_equal(h_find(h, TPU_EV_MXU_TILE_START, 0, mm[i], 0)->cycle, s[i]);
    }
    check_rows(h, 0x3000, x, w[0], 3);
    check_rows(h, 0x3100, x, w[1], 3);
    h_free(h);
}

static void test_t22_t23_cells_see_rows_on_the_diagonal(void **state)
{
    (void)state;
    harness *h = h_new("tiny", NULL);
    uint16_t w[64], x[3 * 8];
    tile_8(w, -20);
    for (int i = 0; i < 24; i++)
        x[i] = tpu_bf16_from_f32(tpu_f32_from_float(0.5f * (float)(i % 7) - 1.0f));
    h_data(h, TPU_SPACE_VMEM, 0x1000, w, sizeof w);
    h_data(h, TPU_SPACE_VMEM, 0x2000, x, sizeof x);
    uint64_t lw, mm;
    lw_then_mm(h, 3, &lw, &mm);
    I0(h, "halt");
    h_build(h);
    uint64_t s = lw + 2;        /* lw issues in its pc's cycle, starts in the next; checked below */
    while (tpu_system_cycle(h->sys) < s + 19) {         /* halt issues in s + M + 2N */
        uint64_t t = tpu_system_cycle(h->sys);
        assert_int_equal(tpu_system_step(h->sys), TPU_RUNNING);
        for (unsigned k = 0; k < 8; k++) {
            for (unsigned c = 0; c < 8; c++) {
                tpu_cell_view v;
                assert_int_equal(tpu_core_mxu_cell(h_core(h, 0), 0, k, c, &v), 0);
                /* T22: row b is at (k, c) in s + b + 1 + k + c. */
                int64_t b = (int64_t)t - (int64_t)(s + 1 + k + c);
                int active = b >= 0 && b < 3;
                assert_int_equal(v.active, active);
                /* The swap flag travels with row 0. */
                uint16_t want_w = (int64_t)t >= (int64_t)(s + 1 + k + c) ? w[k * 8 + c] : 0;
                assert_int_equal(v.weight, want_w);
                if (!active)
                    continue;
                assert_int_equal(v.row, b);
                assert_int_equal(v.x, x[b * 8 + k]);
                uint32_t psum = 0;                     /* T23 */
                for (unsigned i = 0; i <= k; i++)
                    psum = tpu_mac(psum, x[b * 8 + i], w[i * 8 + c]);
                assert_int_equal(v.psum, psum);
            }
        }
    }
    assert_int_equal(h_find(h, TPU_EV_MXU_TILE_START, 0, mm, 0)->cycle, s);
    h_free(h);
}

static void test_t24_result_row_b_written_at_s_plus_b_plus_2N(void **state)
{
    (void)state;
    harness *h = h_new("tiny", NULL);
    uint64_t lw, mm;
    lw_then_mm(h, 5, &lw, &mm);
    I0(h, "halt");
    h_run_ok(h);
    uint64_t s = h_find(h, TPU_EV_MXU_TILE_START, 0, mm, 0)->cycle;
    for (unsigned b = 0; b < 5; b++) {
        const recorded *r = h_find(h, TPU_EV_MXU_ROW_OUT, 0, mm, b);
        assert_int_equal(r->cycle, s + b + 16);
        assert_int_equal(r->addr, 0x3000 + 32 * b);
        assert_int_equal(r->len, 32);
    }
    assert_int_equal(h_find(h, TPU_EV_RETIRE, 0, mm, 0)->cycle, s + 4 + 16);
    h_free(h);
}

/* mxu.mma reads the old row in s + b + 2N - 1, before row b - 1's write of
 * that cycle lands: two rows accumulating into one place keep only the
 * last contribution. */
static void test_t24_mma_reads_old_row_one_cycle_before_write(void **state)
{
    (void)state;
    harness *h = h_new("tiny", NULL);
    uint16_t w[64], x[16];
    for (int i = 0; i < 64; i++)                         /* identity weights */
        w[i] = (i / 8 == i % 8) ? 0x3f80 : 0;
    for (int i = 0; i < 16; i++)                         /* row 0: 1.0, row 1: 2.0 */
        x[i] = i < 8 ? 0x3f80 : 0x4000;
    uint32_t old[8];
    for (int i = 0; i < 8; i++)
        old[i] = 0x41200000;                             /* 10.0 */
    h_data(h, TPU_SPACE_VMEM, 0x1000, w, sizeof w);
    h_data(h, TPU_SPACE_VMEM, 0x2000, x, sizeof x);
    h_data(h, TPU_SPACE_VMEM, 0x3000, old, sizeof old);
    REGS(h, 1, 0x1000, 2, 16, 3, 0x3000, 4, 0x2000, 5, 2, 6, 0);
    I(h, "mxu.lw", 0, 1, 2, 31);
    I(h, "mxu.mma", 0, 3, 4, 5, 2, 6, 31);                   /* dstride 0 */
    I0(h, "halt");
    h_run_ok(h);
    uint32_t out[8];
    h_peek(h, 0, TPU_SPACE_VMEM, 0x3000, out, sizeof out);
    for (int i = 0; i < 8; i++)
        assert_int_equal(out[i], 0x41400000);            /* 10 + 2, not 10 + 1 + 2 */
    h_free(h);
}

static void test_t25_lone_stream_occupies_M_plus_2N(void **state)
{
    (void)state;
    harness *h = h_new("tiny", NULL);
    uint64_t lw, mm;
    lw_then_mm(h, 6, &lw, &mm);
    uint64_t sync = I(h, "sync", TPU_UNITS_MXU0);
    I0(h, "halt");
    h_run_ok(h);
    uint64_t s = h_find(h, TPU_EV_MXU_TILE_START, 0, mm, 0)->cycle;
    assert_int_equal(issue_cycle(h, sync), s + 6 + 16);
    h_free(h);
}

/* lw, mm, lw, mm with M rows per stream, W = 1: the second load starts N
 * cycles after the first (T19), its stream the cycle after it (T21) or
 * when the first stream has read its rows. */
static uint64_t second_stream_gap(int64_t rows)
{
    harness *h = h_new("tiny", NULL);
    uint64_t lw1, mm1;
    lw_then_mm(h, rows, &lw1, &mm1);
    uint64_t lw2 = I(h, "mxu.lw", 0, 1, 2, 31);
    uint64_t mm2 = I(h, "mxu.mm", 0, 3, 4, 5, 2, 6, 31);
    I0(h, "halt");
    h_run_ok(h);
    uint64_t s1 = h_find(h, TPU_EV_MXU_TILE_START, 0, mm1, 0)->cycle;
    uint64_t s2 = h_find(h, TPU_EV_MXU_TILE_START, 0, mm2, 0)->cycle;
    uint64_t l1 = lw_start(h, lw1, 8), l2 = lw_start(h, lw2, 8);
    assert_int_equal(s1, l1 + 1);
    assert_int_equal(l2, l1 + 8);
    if (rows < 8)
        assert_int_equal(s2, l2 + 1);
    h_free(h);
    return s2 - s1;
}

static void test_t25_back_to_back_tiles_no_bubble(void **state)
{
    (void)state;
    assert_int_equal(second_stream_gap(8), 8);        /* M = N: no bubble */
    assert_int_equal(second_stream_gap(9), 9);
    assert_int_equal(second_stream_gap(40), 40);
    assert_int_equal(second_stream_gap(7), 8);        /* l2 = l1 + N, s2 = l2 + 1 */
    assert_int_equal(second_stream_gap(3), 8);
}

/* K pairs of lw, mm with M rows on MXU 0 of a `wloads` config; returns the
 * largest gap between two streams' starts and checks that the rows are
 * what tpu_ref_row makes of the stream's own tile. */
static uint64_t lw_mm_pairs(const char *wloads, int64_t rows, int pairs)
{
    harness *h = h_new("tiny", wloads, NULL);
    uint16_t w[8][64], x[8 * 8];
    for (int i = 0; i < 8; i++)
        tile_8(w[i], 10 * i - 40);
    for (int i = 0; i < 64; i++)
        x[i] = tpu_bf16_from_f32(tpu_f32_from_float(0.5f * (float)(i % 7) - 1.5f));
    h_data(h, TPU_SPACE_VMEM, 0x1000, w, sizeof w);
    h_data(h, TPU_SPACE_VMEM, 0x2000, x, sizeof x);
    REGS(h, 2, 16, 4, 0x2000, 5, rows, 6, 32);
    uint64_t mm[8];
    for (int i = 0; i < pairs; i++) {
        REGS(h, 1, 0x1000 + 128 * i, 3, 0x3000 + 0x100 * i);
        I(h, "mxu.lw", 0, 1, 2, 31);
        mm[i] = I(h, "mxu.mm", 0, 3, 4, 5, 2, 6, 31);
    }
    I0(h, "halt");
    h_run_ok(h);
    uint64_t gap = 0;
    for (int i = 1; i < pairs; i++) {
        uint64_t d = h_find(h, TPU_EV_MXU_TILE_START, 0, mm[i], 0)->cycle
                   - h_find(h, TPU_EV_MXU_TILE_START, 0, mm[i - 1], 0)->cycle;
        if (d > gap)
            gap = d;
    }
    for (int i = 0; i < pairs; i++)
        check_rows(h, 0x3000 + 0x100 * (uint64_t)i, x, w[i], (int)rows);
    h_free(h);
    return gap;
}

/* T25: with W loads in flight a new tile can start every N/W cycles, so
 * streams of N/W rows follow each other without a bubble. */
static void test_t25_lw_mm_with_N_over_W_rows_keeps_array_busy(void **state)
{
    (void)state;
    /* The lis between the pairs cost the sequencer 3 cycles per pair;
     * the queue of 4 keeps the MXU fed anyway. */
    assert_int_equal(lw_mm_pairs("mxu_wloads=2", 4, 8), 4);    /* N/W = 4 rows */
    assert_int_equal(lw_mm_pairs("mxu_wloads=4", 2, 8), 4);    /* sequencer-bound: 4 insns */
    assert_int_equal(lw_mm_pairs("mxu_wloads=1", 8, 8), 8);    /* N rows */
    assert_true(lw_mm_pairs("mxu_wloads=2", 3, 8) > 3);        /* fewer: bubbles */
    assert_true(lw_mm_pairs("mxu_wloads=1", 7, 8) > 7);
}

/* v5e, W = 7: M = 19 >= N/W = 18.3 rows per tile keep all four MXUs busy. */
static void test_t25_four_mxus_stream_every_cycle_v5e(void **state)
{
    (void)state;
    harness *h = h_new("v5e", NULL);
    REGS(h, 1, 0x100000, 2, 256, 3, 0x400000, 4, 0x200000, 5, 19, 6, 512);
    enum { K = 14 };
    uint64_t mm[4][K];
    for (int k = 0; k < K; k++)
        for (int m = 0; m < 4; m++) {
            I(h, "mxu.lw", m, 1, 2, 31);
            mm[m][k] = I(h, "mxu.mm", m, 3, 4, 5, 2, 6, 31);
        }
    I0(h, "halt");
    h_run_ok(h);
    for (int m = 0; m < 4; m++) {
        uint64_t s0 = h_find(h, TPU_EV_MXU_TILE_START, 0, mm[m][0], 0)->cycle;
        for (int k = 1; k < K; k++)
            assert_int_equal(h_find(h, TPU_EV_MXU_TILE_START, 0, mm[m][k], 0)->cycle,
                             s0 + 19 * (uint64_t)k);
    }
    tpu_stats st;
    tpu_core_stats(h_core(h, 0), &st);
    assert_int_equal(st.flops, 4ull * K * 19 * 2 * 128 * 128);
    h_free(h);
}

static void test_t26_mxu_busy_while_weights_in_the_array(void **state)
{
    (void)state;
    harness *h = h_new("tiny", NULL);
    REGS(h, 1, 0x1000, 2, 16);
    uint64_t lw = I(h, "mxu.lw", 0, 1, 2, 31);
    uint64_t sync = I(h, "sync", TPU_UNITS_MXU);
    I0(h, "halt");
    h_run_ok(h);
    assert_int_equal(issue_cycle(h, sync), issue_cycle(h, lw) + 1 + 16);
    h_free(h);
}

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
        cmocka_unit_test(test_t1_one_instruction_per_cycle),
        cmocka_unit_test(test_t1_taken_jump_costs_one_cycle),
        cmocka_unit_test(test_t2_alu_result_usable_next_cycle),
        cmocka_unit_test(test_t3_branch_target_issues_next_cycle),
        cmocka_unit_test(test_t4_dispatched_entry_visible_next_cycle),
        cmocka_unit_test(test_t4_full_queue_stalls_issue),
        cmocka_unit_test(test_t5_errors_dma),
        cmocka_unit_test(test_t5_errors_mxu),
        cmocka_unit_test(test_t5_errors_vpu_ici_and_illegal),
        cmocka_unit_test(test_t5_ici_destination_checked_against_neighbour),
        cmocka_unit_test(test_t6_sem_wait_issues_after_increment_and_takes_count),
        cmocka_unit_test(test_t6_decrement_and_increment_in_one_cycle),
        cmocka_unit_test(test_t7_sync_waits_until_unit_idle),
        cmocka_unit_test(test_t8_halt_waits_for_all_units),
        cmocka_unit_test(test_t9_increments_of_one_cycle_all_count),
        cmocka_unit_test(test_t10_deadlock_lone_wait),
        cmocka_unit_test(test_t10_deadlock_after_last_dma),
        cmocka_unit_test(test_t10_no_deadlock_while_ici_in_flight),
        cmocka_unit_test(test_t10_cycle_limit),
        cmocka_unit_test(test_t11_config_rejected_when_mxus_could_wait),
        cmocka_unit_test(test_t12_vpu_access_is_all_or_nothing),
        cmocka_unit_test(test_t12_dma_takes_what_is_left),
        cmocka_unit_test(test_t12a_dma_write_lands_over_vpu_write),
        cmocka_unit_test(test_t12a_later_dma_engine_wins_in_hbm),
        cmocka_unit_test(test_t13_one_start_per_cycle_on_lowest_idle_engine),
        cmocka_unit_test(test_t14_wait_lasts_exactly_L),
        cmocka_unit_test(test_t15_fractional_credit_is_exact),
        cmocka_unit_test(test_t15_oldest_transfer_first),
        cmocka_unit_test(test_t16_2d_copy_row_order),
        cmocka_unit_test(test_t17_engine_free_the_cycle_after_its_last_byte),
        cmocka_unit_test(test_t17_zero_byte_copy),
        cmocka_unit_test(test_t18_lone_dma_latency_plus_bytes_over_bandwidth_v5e),
        cmocka_unit_test(test_t19_weight_loads_start_N_apart),
        cmocka_unit_test(test_t19_up_to_W_loads_in_flight),
        cmocka_unit_test(test_t20_shadow_written_on_a_diagonal_wavefront),
        cmocka_unit_test(test_t20_each_load_reads_one_row_per_cycle_top_first),
        cmocka_unit_test(test_t20a_lw_semaphore_after_last_row_read),
        cmocka_unit_test(test_t21_stream_starts_the_cycle_after_its_load),
        cmocka_unit_test(test_t21_stream_right_behind_its_load_gets_the_whole_tile),
        cmocka_unit_test(test_t24a_stream_semaphore_with_last_row),
        cmocka_unit_test(test_t24a_empty_stream_semaphore_at_start),
        cmocka_unit_test(test_t22_t23_cells_see_rows_on_the_diagonal),
        cmocka_unit_test(test_t24_result_row_b_written_at_s_plus_b_plus_2N),
        cmocka_unit_test(test_t24_mma_reads_old_row_one_cycle_before_write),
        cmocka_unit_test(test_t25_lone_stream_occupies_M_plus_2N),
        cmocka_unit_test(test_t25_back_to_back_tiles_no_bubble),
        cmocka_unit_test(test_t25_lw_mm_with_N_over_W_rows_keeps_array_busy),
        cmocka_unit_test(test_t25_four_mxus_stream_every_cycle_v5e),
        cmocka_unit_test(test_t26_mxu_busy_while_weights_in_the_array),
        cmocka_unit_test(test_t27_t29_result_usable_VL_cycles_after_issue),
        cmocka_unit_test(test_t28_vpu_memory_accesses_in_program_order),
        cmocka_unit_test(test_t30_t31_ici_send_and_landing),
        cmocka_unit_test(test_t30_one_transfer_per_link),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
