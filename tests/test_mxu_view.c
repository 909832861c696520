/*
 * test_mxu_view.c - the weight path as tpu_core_mxu_cell() shows it
 * (tpu_cell_view.shadow, .loading and .chain, the weight in transit),
 * cycle by cycle, against docs/timing.md T19/T20.
 *
 * The test keeps its own register-level copy of a 4 x 4 array's weight
 * registers, the way rtl/mxu_cell.v holds them: each cell has a weight in
 * transit (valid, and which load it came from) and a shadow.  In every
 * cycle t, a cell whose transit register is valid writes it into its
 * shadow at the end of t; the transit registers move one column right; and
 * row k's left edge takes the weight row k that a load reads in t (each
 * load in flight reads row t - l, T20).  Loads start as T19 says: the cycle
 * after issue, not before the one before them, and not before l'' + N for
 * the W-th most recent load l''.  After every cycle each cell of the model
 * must match the copy.  The machine is `tiny` with mxu_n = 4
 * (programs/tut4.cfg) and W = 1, 2 or 4.
 *
 * Then the compact drawing of sim/view/mxu_view.c (the stepper's `view
 * compact`) against the same views: every character of both maps and the
 * counts, every cycle of two tiles that overlap their loads and streams,
 * one character per cell (8 x 8) and per block of cells (64 x 64).
 */
#include "model_helpers.h"
#include "mxu_view.h"

enum { N = 4, LOADS = 5 };

/* A 4 x 4 bf16 tile with distinct small integer entries from base on. */
static void tile_4(uint16_t w[N][N], int base)
{
    for (int k = 0; k < N; k++)
        for (int c = 0; c < N; c++)
            w[k][c] = tpu_bf16_from_f32(tpu_f32_from_float((float)(base + 10 * k + c)));
}

/* The array's weight registers as the test sees them: the load a transit
 * register's weight came from (-1: not valid), and the shadows. */
typedef struct array4 {
    int transit[N][N];
    uint16_t shadow[N][N];
} array4;

/* One cycle t of the registers: shadows take valid transit weights, the
 * transit registers move right, row k's left edge gets the load reading
 * row k in t (the loads started in l[0..n-1]). */
static void wave_cycle(array4 *a, uint16_t w[][N][N], const uint64_t *l, unsigned n, uint64_t t)
{
    for (unsigned k = 0; k < N; k++) {
        for (unsigned c = 0; c < N; c++)
            if (a->transit[k][c] >= 0)
                a->shadow[k][c] = w[a->transit[k][c]][k][c];
        for (unsigned c = N - 1; c > 0; c--)
            a->transit[k][c] = a->transit[k][c - 1];
        a->transit[k][0] = -1;
        for (unsigned i = 0; i < n; i++)
            if (t >= l[i] && t - l[i] == k) {
                assert_int_equal(a->transit[k][0], -1);   /* one load per row per cycle */
                a->transit[k][0] = (int)i;
            }
    }
}

/* Five mxu.lw (A, B, C one right behind the other, then after a gap of more
 * than 2N cycles D and E) on a config with W loads in flight: every cell,
 * every cycle, the weight in transit and the shadow as the register copy
 * has them. */
static void wave_case(unsigned wl)
{
    char key[32];
    snprintf(key, sizeof key, "mxu_wloads=%u", wl);
    harness *h = h_new("tiny", "mxu_n=4", key, NULL);
    uint16_t w[LOADS][N][N];
    for (int i = 0; i < LOADS; i++) {
        tile_4(w[i], 100 * (i + 1));
        h_data(h, TPU_SPACE_VMEM, 0x1000 + 0x100 * (uint64_t)i, w[i], sizeof w[i]);
    }
    I(h, "li", 2, 2 * N);
    for (int i = 0; i < LOADS; i++)
        I(h, "li", 10 + i, 0x1000 + 0x100 * i);
    uint64_t pc[LOADS];
    for (int i = 0; i < LOADS; i++) {
        if (i == 3)
            for (int j = 0; j < 14; j++)
                I0(h, "nop");
        pc[i] = I(h, "mxu.lw", 0, 10 + i, 2, 31);
    }
    I0(h, "halt");
    h_build(h);

    array4 a;
    memset(&a, 0, sizeof a);                            /* zero weights after reset */
    for (unsigned k = 0; k < N; k++)
        for (unsigned c = 0; c < N; c++)
            a.transit[k][c] = -1;
    uint64_t l[LOADS];
    unsigned started = 0;
    int seen_transit = 0;
    for (uint64_t t = 0; t < 100 && tpu_system_step(h->sys) == TPU_RUNNING; t++) {
        /* T19: the queue head starts the cycle after its issue at the
         * earliest, after the load before it, and N cycles after the W-th
         * most recent load. */
        while (started < LOADS) {
            const recorded *e = NULL;
            for (size_t j = 0; j < h->nev; j++)
                if (h->ev[j].kind == TPU_EV_ISSUE && h->ev[j].pc == pc[started])
                    e = &h->ev[j];
            if (!e)
                break;
            uint64_t at = e->cycle + 1;
            if (started && at < l[started - 1] + 1)
                at = l[started - 1] + 1;
            if (started >= wl && at < l[started - wl] + N)
                at = l[started - wl] + N;
            if (at > t)
                break;
            l[started++] = at;
        }
        array4 before = a;
        wave_cycle(&a, w, l, started, t);
        for (unsigned k = 0; k < N; k++)
            for (unsigned c = 0; c < N; c++) {
                tpu_cell_view v;
                assert_int_equal(tpu_core_mxu_cell(h_core(h, 0), 0, k, c, &v), 0);
                int from = before.transit[k][c];        /* in transit during t */
                uint16_t chain = from >= 0 ? w[from][k][c] : 0;
                if (v.loading != (from >= 0) || v.chain != chain)
                    fail_msg("W=%u cycle %llu cell (%u,%u): loading %d in transit %#x, want %d %#x",
                             wl, (unsigned long long)t, k, c, v.loading, v.chain, from >= 0, chain);
                if (v.shadow != a.shadow[k][c])
                    fail_msg("W=%u cycle %llu cell (%u,%u): shadow %#x, want %#x", wl,
                             (unsigned long long)t, k, c, v.shadow, a.shadow[k][c]);
                assert_int_equal(v.weight, 0);           /* no stream swapped anything in */
                seen_transit += from >= 0;
            }
    }
    /* Every load's 16 weights passed, the loads started as T19 says, and
     * the last one's wavefront left the array before the halt. */
    assert_int_equal(started, LOADS);
    assert_int_equal(seen_transit, LOADS * N * N);
    assert_int_equal(l[0], pc[0] + 1);
    assert_int_equal(l[1], wl >= 2 ? l[0] + 1 : l[0] + N);
    assert_true(l[3] > l[2] + 2 * N);
    for (int i = 0; i < LOADS; i++)
        assert_int_equal(h_find(h, TPU_EV_RETIRE, 0, pc[i], 0)->cycle, l[i] + 2 * N - 1);
    for (unsigned k = 0; k < N; k++)
        for (unsigned c = 0; c < N; c++)
            assert_int_equal(a.shadow[k][c], w[LOADS - 1][k][c]);
    h_free(h);
}

static void test_wave_one_load_in_flight(void **state)
{
    (void)state;
    wave_case(1);
}

static void test_wave_two_loads_in_flight(void **state)
{
    (void)state;
    wave_case(2);
}

/* W = N: a load can start every cycle; in one cycle every row of the array
 * receives a weight row from a different load. */
static void test_wave_N_loads_in_flight(void **state)
{
    (void)state;
    wave_case(N);
}

/* What the compact view should draw for the block of cells (r, j) of
 * b x b: the LHS row character and the weights character. */
static void expect_block(const tpu_core *core, unsigned n, unsigned b, unsigned r, unsigned j,
                         char *rowc, char *wc, uint64_t *count)
{
    unsigned cells = 0, active = 0, loading = 0, waiting = 0;
    int64_t row = 0;
    for (unsigned k = r * b; k < (r + 1) * b && k < n; k++)
        for (unsigned c = j * b; c < (j + 1) * b && c < n; c++) {
            tpu_cell_view v;
            assert_int_equal(tpu_core_mxu_cell(core, 0, k, c, &v), 0);
            cells++;
            active += (unsigned)v.active;
            loading += (unsigned)v.loading;
            waiting += v.shadow != v.weight;
            if (v.active)
                row = v.row;
        }
    if (!active)
        *rowc = '.';
    else if (b == 1)
        *rowc = (char)('0' + row % 10);
    else
        *rowc = active == cells ? '#' : '+';
    *wc = loading ? 'l' : waiting ? 's' : '.';
    count[0] += active;
    count[1] += loading;
    count[2] += waiting;
}

/* Two tiles through MXU 0 of an n x n array with two loads in flight: the
 * second mxu.lw runs while the first stream goes through, so weights
 * arrive in cells that multiply.  Every cycle, the compact view's maps
 * and counts against the cell views. */
static void compact_case(unsigned n)
{
    char key[32], bw[32];
    snprintf(key, sizeof key, "mxu_n=%u", n);
    snprintf(bw, sizeof bw, "vmem_bw=%u", 32 * n);
    harness *h = h_new("tiny", key, bw, "mxu_wloads=2", NULL);
    uint16_t *w = malloc(2ull * n * n), *x = malloc(2ull * n * 12);
    assert_true(w && x);
    for (unsigned i = 0; i < n * n; i++)
        w[i] = tpu_bf16_from_f32(tpu_f32_from_float((float)(1 + i % 97)));
    for (unsigned i = 0; i < n * 12; i++)
        x[i] = tpu_bf16_from_f32(tpu_f32_from_float(1.0f));
    uint64_t W = 0x1000, X = W + 2ull * n * n, Y = X + 2ull * n * 12;
    h_data(h, TPU_SPACE_VMEM, W, w, 2ull * n * n);
    h_data(h, TPU_SPACE_VMEM, X, x, 2ull * n * 12);
    I(h, "li", 1, (int64_t)W);
    I(h, "li", 3, 2 * n);
    I(h, "li", 4, (int64_t)Y);
    I(h, "li", 5, (int64_t)X);
    I(h, "li", 6, 12);
    I(h, "li", 7, 4 * n);
    I(h, "mxu.lw", 0, 1, 3, 31);
    I(h, "mxu.mm", 0, 4, 5, 6, 3, 7, 31);
    I(h, "li", 1, (int64_t)W + 2);                     /* another tile: W shifted by one */
    I(h, "mxu.lw", 0, 1, 3, 31);
    I(h, "mxu.mma", 0, 4, 5, 6, 3, 7, 31);
    I0(h, "halt");
    h_build(h);
    unsigned b = tpu_mxu_compact_block(n), m = (n + b - 1) / b;
    assert_true(m <= TPU_MXU_COMPACT_MAX);
    int seen_both = 0;
    for (uint64_t t = 0; t < 400 && tpu_system_step(h->sys) == TPU_RUNNING; t++) {
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        assert_non_null(f);
        assert_int_equal(tpu_mxu_view_print_compact(f, h_core(h, 0), 0, n, 0), 0);
        fclose(f);
        uint64_t count[3] = { 0, 0, 0 };
        const char *p = strstr(buf, "\n  k0 ");
        assert_non_null(p);
        for (unsigned r = 0; r < m; r++) {
            char label[16], map1[64], map2[64];
            assert_int_equal(sscanf(p, " %15s %63s %63s", label, map1, map2), 3);
            assert_int_equal(strtoul(label + 1, NULL, 10), r * b);
            assert_int_equal(strlen(map1), m);
            assert_int_equal(strlen(map2), m);
            for (unsigned j = 0; j < m; j++) {
                char rowc, wc;
                expect_block(h_core(h, 0), n, b, r, j, &rowc, &wc, count);
                if (map1[j] != rowc || map2[j] != wc)
                    fail_msg("n %u cycle %llu block (%u, %u): '%c' '%c', want '%c' '%c'\n%s", n,
                             (unsigned long long)t, r, j, map1[j], map2[j], rowc, wc, buf);
                seen_both |= rowc != '.' && wc == 'l';
            }
            p = strchr(p + 1, '\n');
            assert_non_null(p);
        }
        char want[160];
        snprintf(want, sizeof want, "(%llu of %u cells", (unsigned long long)count[0], n * n);
        assert_non_null(strstr(p, want));
        snprintf(want, sizeof want, "(mxu.lw; %llu cell%s), s ", (unsigned long long)count[1],
                 count[1] == 1 ? "" : "s");
        assert_non_null(strstr(p, want));
        snprintf(want, sizeof want, "holds a new one (%llu)\n", (unsigned long long)count[2]);
        assert_non_null(strstr(p, want));
        free(buf);
    }
    assert_true(seen_both);        /* a weight arrived where a row multiplied */
    free(w);
    free(x);
    h_free(h);
}

static void test_compact_view_8(void **state)
{
    (void)state;
    compact_case(8);
}

static void test_compact_view_64(void **state)
{
    (void)state;
    compact_case(64);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_wave_one_load_in_flight),
        cmocka_unit_test(test_wave_two_loads_in_flight),
        cmocka_unit_test(test_wave_N_loads_in_flight),
        cmocka_unit_test(test_compact_view_8),
        cmocka_unit_test(test_compact_view_64),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
