/*
 * test_mxu_view.c - the load-chain registers of tpu_core_mxu_cell()
 * (tpu_cell_view.chain), cycle by cycle, against docs/timing.md T19/T20.
 *
 * The test keeps its own register-level copy of a 4 x 4 array's load
 * chain and shadows and moves it as T20 says: in cycle l + i + 1 + c
 * element c of weight row N-1-i enters the top of column c and the
 * column's chain shifts down by one; after the N-th shift (end of cycle
 * l + N + c) the column's chain is copied into its shadows.  After every
 * cycle each cell's chain and shadow from the model must equal the copy.
 * The machine is `tiny` with mxu_n = 4 (programs/tut4.cfg); loads start
 * in l = issue + 1, or l' + N after the previous load (T19).
 */
#include "model_helpers.h"

enum { N = 4 };

/* A 4 x 4 bf16 tile with distinct small integer entries from base on. */
static void tile_4(uint16_t w[N][N], int base)
{
    for (int k = 0; k < N; k++)
        for (int c = 0; c < N; c++)
            w[k][c] = tpu_bf16_from_f32(tpu_f32_from_float((float)(base + 10 * k + c)));
}

/* The array as the test sees it: chain and shadow registers. */
typedef struct array4 {
    uint16_t chain[N][N], shadow[N][N];
} array4;

/* T20 for one load started in l, in cycle t: the columns whose element
 * enters in t shift down and take it at the top; a column that has had
 * its N-th shift copies its chain into its shadows. */
static void chain_cycle(array4 *a, const uint16_t w[N][N], uint64_t l, uint64_t t)
{
    for (unsigned c = 0; c < N; c++) {
        if (t < l + 1 + c || t >= l + 1 + c + N)
            continue;
        uint64_t i = t - l - 1 - c;                     /* row N-1-i enters */
        for (unsigned k = N - 1; k > 0; k--)
            a->chain[k][c] = a->chain[k - 1][c];
        a->chain[0][c] = w[N - 1 - i][c];
        if (i == N - 1)
            for (unsigned k = 0; k < N; k++)
                a->shadow[k][c] = a->chain[k][c];
    }
}

/* The model's view of every cell against the test's array after cycle t. */
static void check_cells(harness *h, const array4 *a, uint64_t t)
{
    for (unsigned k = 0; k < N; k++)
        for (unsigned c = 0; c < N; c++) {
            tpu_cell_view v;
            assert_int_equal(tpu_core_mxu_cell(h_core(h, 0), 0, k, c, &v), 0);
            if (v.chain != a->chain[k][c])
                fail_msg("cycle %llu cell (%u,%u): chain %#x, want %#x", (unsigned long long)t,
                         k, c, v.chain, a->chain[k][c]);
            if (v.shadow != a->shadow[k][c])
                fail_msg("cycle %llu cell (%u,%u): shadow %#x, want %#x", (unsigned long long)t,
                         k, c, v.shadow, a->shadow[k][c]);
        }
}

/* Three mxu.lw: A, then B right behind it (B shifts A's rows out of the
 * bottom), then after a gap longer than 2N - 1 cycles C (the model has
 * forgotten B's load by then).  Every cycle, every cell. */
static void test_chain_every_cycle_of_three_loads(void **state)
{
    (void)state;
    harness *h = h_new("tiny", "mxu_n=4", NULL);
    uint16_t w[3][N][N];
    for (int i = 0; i < 3; i++) {
        tile_4(w[i], 100 * (i + 1));
        h_data(h, TPU_SPACE_VMEM, 0x1000 + 0x100 * (uint64_t)i, w[i], sizeof w[i]);
    }
    I(h, "li", 1, 0x1000);
    I(h, "li", 2, 2 * N);
    I(h, "li", 3, 0x1100);
    I(h, "li", 4, 0x1200);
    uint64_t pc[3];
    pc[0] = I(h, "mxu.lw", 0, 1, 2, 31);
    pc[1] = I(h, "mxu.lw", 0, 3, 2, 31);
    for (int i = 0; i < 12; i++)
        I0(h, "nop");
    pc[2] = I(h, "mxu.lw", 0, 4, 2, 31);
    I0(h, "halt");
    h_build(h);

    array4 a;
    memset(&a, 0, sizeof a);                            /* zero weights after reset */
    uint64_t l[3] = { UINT64_MAX, UINT64_MAX, UINT64_MAX };
    unsigned started = 0;
    int after_load = 0;                                 /* cells checked with shadow == chain */
    for (uint64_t t = 0; t < 60 && tpu_system_step(h->sys) == TPU_RUNNING; t++) {
        /* T19: a load starts the cycle after its issue, N after the last. */
        for (unsigned i = started; i < 3; i++) {
            const recorded *e = NULL;
            for (size_t j = 0; j < h->nev; j++)
                if (h->ev[j].kind == TPU_EV_ISSUE && h->ev[j].pc == pc[i])
                    e = &h->ev[j];
            if (!e)
                break;
            uint64_t earliest = i ? l[i - 1] + N : 0;
            l[i] = e->cycle + 1 > earliest ? e->cycle + 1 : earliest;
            started = i + 1;
        }
        for (unsigned i = 0; i < started; i++)
            chain_cycle(&a, w[i], l[i], t);
        check_cells(h, &a, t);
        /* After a load, each column's shadow is its chain (and the tile). */
        for (unsigned i = 0; i < started; i++)
            for (unsigned c = 0; c < N; c++) {
                if (t < l[i] + N + c || (i + 1 < started && t >= l[i + 1] + 1 + c))
                    continue;
                for (unsigned k = 0; k < N; k++) {
                    tpu_cell_view v;
                    assert_int_equal(tpu_core_mxu_cell(h_core(h, 0), 0, k, c, &v), 0);
                    assert_int_equal(v.chain, v.shadow);
                    assert_int_equal(v.chain, w[i][k][c]);
                    after_load++;
                }
            }
    }
    /* The loads started where T19 says, and the whole of each was seen. */
    assert_int_equal(l[0], pc[0] + 1);
    assert_int_equal(l[1], l[0] + N);
    assert_int_equal(l[2], pc[2] + 1);
    assert_true(l[2] > l[1] + 2 * N);
    assert_true(tpu_system_cycle(h->sys) > l[2] + 2 * N);
    assert_true(after_load > 0);
    h_free(h);
}

/* The closed form the model uses, spelled out for one load of B after A:
 * column c has had j = min(N, max(0, t - l - c)) shifts by the end of t;
 * cell k < j holds B's row N - j + k, cell k >= j A's row k - j.  (A's
 * column c is complete from the end of l + c on: l_A + N + c = l + c.) */
static void test_chain_closed_form(void **state)
{
    (void)state;
    harness *h = h_new("tiny", "mxu_n=4", NULL);
    uint16_t wa[N][N], wb[N][N];
    tile_4(wa, 1);
    tile_4(wb, 51);
    h_data(h, TPU_SPACE_VMEM, 0x1000, wa, sizeof wa);
    h_data(h, TPU_SPACE_VMEM, 0x1100, wb, sizeof wb);
    I(h, "li", 1, 0x1000);
    I(h, "li", 2, 2 * N);
    I(h, "li", 3, 0x1100);
    I(h, "mxu.lw", 0, 1, 2, 31);                        /* issued in 3: l = 4 */
    I(h, "mxu.lw", 0, 3, 2, 31);                        /* issued in 4: l = 8 (T19) */
    I0(h, "halt");
    h_build(h);
    const uint64_t l = 8;
    for (uint64_t t = 0; t < l + 2 * N; t++) {          /* the last shift: l + 2N - 1 */
        assert_int_equal(tpu_system_step(h->sys), TPU_RUNNING);
        for (unsigned c = 0; c < N; c++) {
            if (t < l + c)
                continue;
            uint64_t j = t > l + c ? t - l - c : 0;
            if (j > N)
                j = N;
            for (unsigned k = 0; k < N; k++) {
                tpu_cell_view v;
                assert_int_equal(tpu_core_mxu_cell(h_core(h, 0), 0, k, c, &v), 0);
                uint16_t want = k < j ? wb[N - j + k][c] : wa[k - j][c];
                if (v.chain != want)
                    fail_msg("cycle %llu cell (%u,%u): chain %#x, want %#x",
                             (unsigned long long)t, k, c, v.chain, want);
            }
        }
    }
    h_free(h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_chain_every_cycle_of_three_loads),
        cmocka_unit_test(test_chain_closed_form),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
