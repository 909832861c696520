/*
 * test_timing_mxu.c - section 4, the MXU (T19-T26): one or more tests per rule,
 * each asserting exact cycle numbers (timing_helpers.h).
 */
#include "timing_helpers.h"

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

/* int8 (numerics.md section 9): the same timing as bf16 (T19-T26) - a row
 * of 2N int8 in s + b, its int32 result row in s + b + 2N - and the values:
 * each cell adds a0*w0 + a1*w1, mxu.mma.i8 adds to the old row mod 2^32. */
static void test_t19_t26_int8_same_timing_exact_values(void **state)
{
    (void)state;
    harness *h = h_new("tiny", NULL);
    int8_t w[128], x[2][16];
    for (int i = 0; i < 128; i++)                /* weight pair-row r, byte 2c + j: W[2r+j][c] */
        w[i] = (int8_t)(i % 2 ? -128 : 127 - i);
    for (int k = 0; k < 16; k++) {
        x[0][k] = (int8_t)(k % 3 ? -128 : 100 - k);
        x[1][k] = (int8_t)(k - 8);
    }
    uint32_t old[16];
    for (int i = 0; i < 16; i++)
        old[i] = i < 8 ? 0x7fffff00u : 0x80000000u;    /* near the ends of int32: wraps */
    h_data(h, TPU_SPACE_VMEM, 0x1000, w, sizeof w);
    h_data(h, TPU_SPACE_VMEM, 0x2000, x, sizeof x);
    h_data(h, TPU_SPACE_VMEM, 0x3000, old, sizeof old);
    REGS(h, 1, 0x1000, 2, 16, 3, 0x3000, 4, 0x2000, 5, 2, 6, 32);
    uint64_t lw = I(h, "mxu.lw.i8", 0, 1, 2, 31);
    uint64_t mm = I(h, "mxu.mma.i8", 0, 3, 4, 5, 2, 6, 31);
    I0(h, "halt");
    h_run_ok(h);
    uint64_t l = issue_cycle(h, lw) + 1;
    uint64_t s = h_find(h, TPU_EV_MXU_TILE_START, 0, mm, 0)->cycle;
    assert_int_equal(s, l + 1);                          /* T21 */
    for (unsigned b = 0; b < 2; b++)
        assert_int_equal(h_find(h, TPU_EV_MXU_ROW_OUT, 0, mm, b)->cycle, s + b + 16);   /* T24 */
    uint32_t out[16];
    h_peek(h, 0, TPU_SPACE_VMEM, 0x3000, out, sizeof out);
    for (int b = 0; b < 2; b++)
        for (int c = 0; c < 8; c++) {
            uint32_t want = old[b * 8 + c];                /* plain: mod 2^32 */
            for (int k = 0; k < 16; k++)
                want += (uint32_t)((int32_t)x[b][k] * (int32_t)w[(k / 2) * 16 + 2 * c + k % 2]);
            assert_int_equal(out[b * 8 + c], want);
        }
    tpu_stats st;
    tpu_core_stats(tpu_system_core(h->sys, 0), &st);
    assert_int_equal(st.int8_macs, 2 * 2 * 64);          /* 2 rows of 2N x N MACs */
    assert_int_equal(st.macs, st.int8_macs);
    assert_int_equal(st.flops, 2 * st.int8_macs);
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

int main(void)
{
    const struct CMUnitTest tests[] = {
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
        cmocka_unit_test(test_t19_t26_int8_same_timing_exact_values),
        cmocka_unit_test(test_t25_lone_stream_occupies_M_plus_2N),
        cmocka_unit_test(test_t25_back_to_back_tiles_no_bubble),
        cmocka_unit_test(test_t25_lw_mm_with_N_over_W_rows_keeps_array_busy),
        cmocka_unit_test(test_t25_four_mxus_stream_every_cycle_v5e),
        cmocka_unit_test(test_t26_mxu_busy_while_weights_in_the_array),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
