/*
 * test_stepper.c - sim/view/stepper.c and sim/view/mxu_view.c: scripted sessions of
 * the stepper (`tpu-sim --step`) and what they print.
 *
 * Each test assembles a small program (sim/asm/asm.h) for `tiny` with a 4x4
 * MXU, runs commands through tpu_stepper_exec() and compares the output
 * line for line.  The cycle numbers come from docs/timing.md; the cell
 * values of `show mxu` are recomputed here with tpu_mac().
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "asm.h"
#include "config.h"
#include "fp.h"
#include "interrupt.h"
#include "mxu_view.h"
#include "stepper.h"
#include "tpu.h"

/* ---- a session ------------------------------------------------------------------ */

typedef struct session {
    tpu_config cfg;
    tpu_object obj;
    tpu_system *sys;
    tpu_stepper *st;
    FILE *out;
    char *buf;
    size_t len, seen;
    char *last;             /* the output of the last command */
} session;

/* Assemble src for tiny with the settings of `set` ("mxu_n=4", blanks
 * between several) and open a stepper on it. */
static session *open_session_set(const char *src, const char *set, uint64_t max_cycles, FILE *in,
                                 int echo, int prompt)
{
    session *s = calloc(1, sizeof *s);
    assert_non_null(s);
    char err[512];
    tpu_config_defaults(&s->cfg);
    assert_int_equal(tpu_config_load(&s->cfg, "tiny", err, sizeof err), 0);
    char sets[128], *save = NULL;
    snprintf(sets, sizeof sets, "%s", set);
    for (char *kv = strtok_r(sets, " ", &save); kv; kv = strtok_r(NULL, " ", &save))
        assert_int_equal(tpu_config_set(&s->cfg, kv, err, sizeof err), 0);
    tpu_asm_options opt = { .config = &s->cfg };
    tpu_asm_result res;
    if (tpu_asm_assemble(src, strlen(src), "t.s", &opt, &s->obj, &res))
        fail_msg("assembly failed:\n%s", res.messages);
    tpu_asm_result_free(&res);
    s->sys = tpu_system_create(&s->cfg, NULL, err, sizeof err);
    assert_non_null(s->sys);
    if (tpu_system_load(s->sys, &s->obj, err, sizeof err))
        fail_msg("load: %s", err);
    s->out = open_memstream(&s->buf, &s->len);
    assert_non_null(s->out);
    tpu_stepper_opts o = { .sys = s->sys, .obj = &s->obj, .cfg = &s->cfg, .program = "t.bin",
                           .topology = "single", .max_cycles = max_cycles, .in = in,
                           .out = s->out, .echo = echo, .prompt = prompt };
    s->st = tpu_stepper_create(&o, err, sizeof err);
    assert_non_null(s->st);
    return s;
}

static session *open_session_io(const char *src, uint64_t max_cycles, FILE *in, int echo,
                                int prompt)
{
    return open_session_set(src, "mxu_n=4", max_cycles, in, echo, prompt);
}

static session *open_session(const char *src)
{
    return open_session_io(src, 0, NULL, 0, 0);
}

/* Run one command line; returns what it printed. */
static const char *cmd(session *s, const char *line)
{
    int quit = tpu_stepper_exec(s->st, line);
    assert_int_equal(quit, !strcmp(line, "quit") || !strcmp(line, "q"));
    fflush(s->out);
    free(s->last);
    s->last = strndup(s->buf + s->seen, s->len - s->seen);
    assert_non_null(s->last);
    s->seen = s->len;
    return s->last;
}

/* Run a command and require exactly this output. */
#define EXPECT(s, line, want) assert_string_equal(cmd((s), (line)), (want))

static void close_session(session *s)
{
    tpu_stepper_destroy(s->st);
    fclose(s->out);
    free(s->buf);
    free(s->last);
    tpu_system_destroy(s->sys);
    tpu_obj_free(&s->obj);
    free(s);
}

/* ---- programs ---------------------------------------------------------------------- */

/* One tile, everything in VMEM: W[k][c] = 10(k+1) + c, X[b][k] = b + 1.
 * Timing (docs/timing.md): the mxu.lw issues in cycle 2 and starts in
 * l = 3 (T4, T19); cell (k, c) receives its weight in cycle l+k+1+c =
 * 4 + k + c and holds it in its shadow from the end of that cycle (T20).
 * The mxu.mm issues in 7 (after four li) and starts in s = 8 (T21: the
 * queue entry is visible from 8; s >= l + 1 is no constraint here).  Row b is in cell (k, c) in
 * cycle s + b + 1 + k + c = 9 + b + k + c (T22); row b is written in
 * s + b + 2N = 16 + b (T24); sem 2 goes up at the end of 21 (T24a), the
 * sem.wait issues in 22, halt in 23: 24 cycles. */
#define TILE_DATA_INT                                                    \
    "W:      .set k, 0\n"                                                \
    "        .rept N\n"                                                  \
    "          .set c, 0\n"                                              \
    "          .rept N\n"                                                \
    "            .bf16 10*(k+1) + c\n"                                   \
    "            .set c, c + 1\n"                                        \
    "          .endr\n"                                                  \
    "          .set k, k + 1\n"                                          \
    "        .endr\n"                                                    \
    "X:      .set b, 0\n"                                                \
    "        .rept M\n"                                                  \
    "          .rept N\n"                                                \
    "            .bf16 b + 1\n"                                          \
    "          .endr\n"                                                  \
    "          .set b, b + 1\n"                                          \
    "        .endr\n"

#define TILE_DATA_RANDOM                                                 \
    "W:      .random bf16, N*N, 7\n"                                     \
    "X:      .random bf16, M*N, 8, -4, 4\n"

#define TILE_CODE                                                        \
    "        .align 64\n"                                                \
    "Y:      .zero 4*M*N\n"                                              \
    "        .text\n"                                                    \
    "start:  li s1, W\n"                                                 \
    "        li s2, 2*N\n"                                               \
    "        mxu.lw 0, s1, s2, 1\n"                                      \
    "stream: li s3, Y\n"                                                 \
    "        li s4, X\n"                                                 \
    "        li s5, M\n"                                                 \
    "        li s6, 4*N\n"                                               \
    "        mxu.mm 0, s3, s4, s5, s2, s6, 2\n"                          \
    "wait:   sem.wait 2, 1\n"                                            \
    "done:   halt\n"                                                     \
    "        .expect matmul Y, X, W, M, N, N\n"

static const char tile_int[] =
    "        .equ N, MXU_N\n        .equ M, 6\n        .vmem 0\n" TILE_DATA_INT TILE_CODE;
static const char tile_one_row[] =
    "        .equ N, MXU_N\n        .equ M, 1\n        .vmem 0\n" TILE_DATA_INT TILE_CODE;
static const char tile_random[] =
    "        .equ N, MXU_N\n        .equ M, 6\n        .vmem 0\n" TILE_DATA_RANDOM TILE_CODE;

/* W and X come from HBM by DMA first (the tutorial's shape). */
static const char dma_prog[] =
    "        .equ N, MXU_N\n"
    "        .hbm 0\n"
    "A:      .f32 1, 2, 3, 4, 5, 6, 7, 8\n"
    "        .vmem 0x100\n"
    "B:      .zero 32\n"
    "        .text\n"
    "start:  li s1, B\n"
    "        li s2, A\n"
    "        li s3, 1\n"
    "        li s4, 32\n"
    "copy:   dma.h2v s1, s2, s3, s4, s4, s4, 3\n"
    "        sem.wait 3, 1\n"
    "        vld v5, s1, 0\n"
    "        li s7, -12\n"
    "end:    halt\n"
    "        .expect copy B, A, 32\n";

/* ---- show mxu ------------------------------------------------------------------------ */

static void test_show_mxu_4x4(void **state)
{
    (void)state;
    session *s = open_session(tile_int);
    EXPECT(s, "break mxu-start", "breakpoint 1: mxu-start on any MXU\n");
    EXPECT(s, "continue",
           "breakpoint 1: mxu0 starts pc 7 (mxu.mm 0, s3, s4, s5, s2, s6, 2): 6 rows\n"
           "cycle 8: stalled at pc 8 <wait>: sem.wait 2, 1 (sem.wait: sem 2)\n");
    /* Cycle 8: no row has entered yet; the active weights are zero.  The
     * load's diagonal wavefront (T20) is at k + c = 8 - l - 1 = 4: those
     * cells receive their weight in this cycle (l), the cells above it
     * hold the new weights in their shadows, the cells below still zero. */
    EXPECT(s, "show mxu",
           "mxu0 in cycle 8 (4x4, all cells): stream pc 7 (mxu.mm 0, s3, s4, s5, s2, s6, 2), "
           "6 rows from cycle 8\n"
           "LHS row in each cell: none (no multiply-add in this cycle)\n"
           "cells: w weight, s shadow weight where it differs, l weight being loaded, "
           "x activation passing through, y partial sum out:\n"
           "       c0     c1     c2     c3\n"
           "  k0   w 0    w 0    w 0    w 0\n"
           "       s 10   s 11   s 12   s 13\n"
           "  k1   w 0    w 0    w 0    w 0\n"
           "       s 20   s 21   s 22   s 23\n"
           "                            l 23\n"
           "  k2   w 0    w 0    w 0    w 0\n"
           "       s 30   s 31   s 32\n"
           "                     l 32\n"
           "  k3   w 0    w 0    w 0    w 0\n"
           "       s 40   s 41\n"
           "              l 41\n");
    EXPECT(s, "step 3", "cycle 11: stalled at pc 8 <wait>: sem.wait 2, 1 (sem.wait: sem 2)\n");
    /* Cycle 11: row b in cell (k, c) when 9 + b + k + c = 11; the swap
     * rides with row 0, so the active weights are new where k + c <= 2.
     * y = (b+1) * (W[0][c] + ... + W[k][c]). */
    EXPECT(s, "show mxu",
           "mxu0 in cycle 11 (4x4, all cells): stream pc 7 (mxu.mm 0, s3, s4, s5, s2, s6, 2), "
           "6 rows from cycle 8\n"
           "LHS row in each cell (. = no multiply-add in this cycle):\n"
           "      c0  c1  c2  c3\n"
           "  k0   2   1   0   .\n"
           "  k1   1   0   .   .\n"
           "  k2   0   .   .   .\n"
           "  k3   .   .   .   .\n"
           "cells: w weight, s shadow weight where it differs, x activation passing through, "
           "y partial sum out:\n"
           "       c0     c1     c2     c3\n"
           "  k0   w 10   w 11   w 12   w 0\n"
           "                            s 13\n"
           "       x 3    x 2    x 1\n"
           "       y 30   y 22   y 12\n"
           "  k1   w 20   w 21   w 0    w 0\n"
           "                     s 22   s 23\n"
           "       x 2    x 1\n"
           "       y 60   y 32\n"
           "  k2   w 30   w 0    w 0    w 0\n"
           "              s 31   s 32   s 33\n"
           "       x 1\n"
           "       y 60\n"
           "  k3   w 0    w 0    w 0    w 0\n"
           "       s 40   s 41   s 42   s 43\n");
    /* Cycle 20: the last multiply-add, row 5 in cell (3, 3): 6 * (13+23+33+43). */
    EXPECT(s, "break cycle 20", "breakpoint 2: cycle 20\n");
    EXPECT(s, "continue", "breakpoint 2: cycle 20\n"
                          "cycle 20: stalled at pc 8 <wait>: sem.wait 2, 1 (sem.wait: sem 2)\n");
    EXPECT(s, "show mxu window 2 2",
           "mxu0 in cycle 20 (4x4, rows 2-3, columns 2-3): stream pc 7 (mxu.mm 0, s3, s4, s5, "
           "s2, s6, 2), 6 rows from cycle 8\n"
           "LHS row in each cell (. = no multiply-add in this cycle):\n"
           "      c2  c3\n"
           "  k2   .   .\n"
           "  k3   .   5\n"
           "cells: w weight, x activation passing through, y partial sum out:\n"
           "       c2      c3\n"
           "  k2   w 32    w 33\n"
           "  k3   w 42    w 43\n"
           "               x 6\n"
           "               y 672\n");
    /* The window stays; a 1 x 1 window by size. */
    EXPECT(s, "show mxu 0 window 3 0 1 1",
           "mxu0 in cycle 20 (4x4, rows 3-3, columns 0-0): stream pc 7 (mxu.mm 0, s3, s4, s5, "
           "s2, s6, 2), 6 rows from cycle 8\n"
           "LHS row in each cell: none (no multiply-add in this cycle)\n"
           "cells: w weight, x activation passing through, y partial sum out:\n"
           "       c0\n"
           "  k3   w 40\n");
    EXPECT(s, "continue", "cycle 23: issued pc 9 <done>: halt\n"
                          "the program halted after 24 cycles; result: bit-exact\n");
    EXPECT(s, "step", "the program is not running (it halted after 24 cycles)\n");
    assert_int_equal(tpu_stepper_status(s->st), 0);
    close_session(s);
}

/* Every cell in every cycle of the stream, random data: the view against
 * the array recomputed here with tpu_mac (numerics.md: psum from +0 down
 * the column). */
static void test_cells_against_tpu_mac(void **state)
{
    (void)state;
    session *s = open_session(tile_random);
    enum { N = 4, M = 6, S = 8 };
    uint16_t w[N][N], x[M][N];
    assert_int_equal(tpu_mem_read(tpu_system_core(s->sys, 0), TPU_SPACE_VMEM, 0, w, sizeof w), 0);
    assert_int_equal(tpu_mem_read(tpu_system_core(s->sys, 0), TPU_SPACE_VMEM, sizeof w, x,
                                  sizeof x), 0);
    EXPECT(s, "step 8", "cycle 7: issued pc 7 <stream+4>: mxu.mm 0, s3, s4, s5, s2, s6, 2\n");
    unsigned active_seen = 0, loading_seen = 0;
    for (unsigned t = S; t <= S + M + 2 * N; t++) {
        cmd(s, "step");
        char want[4096], *p = want;
        size_t left = sizeof want;
        /* the wavefront map: one line when no cell works */
        int any = t >= S + 1 && t <= S + M + 2 * N - 2;
        int n = any ? snprintf(p, left, "LHS row in each cell (. = no multiply-add in this "
                                        "cycle):\n      c0  c1  c2  c3\n")
                    : snprintf(p, left, "LHS row in each cell: none (no multiply-add in this "
                                        "cycle)\n");
        p += n;
        left -= (size_t)n;
        for (int k = 0; any && k < N; k++) {
            n = snprintf(p, left, "  k%d", k);
            p += n;
            left -= (size_t)n;
            for (int c = 0; c < N; c++) {
                int b = (int)t - S - 1 - k - c;
                n = (b >= 0 && b < M) ? snprintf(p, left, "   %d", b) : snprintf(p, left, "   .");
                p += n;
                left -= (size_t)n;
            }
            n = snprintf(p, left, "\n");
            p += n;
            left -= (size_t)n;
        }
        const char *got = cmd(s, "show mxu");
        const char *map = strstr(got, "LHS row");
        assert_non_null(map);
        assert_memory_equal(map, want, strlen(want));

        for (int k = 0; k < N; k++)
            for (int c = 0; c < N; c++) {
                char line[64], a[32], b2[32];

                snprintf(line, sizeof line, "show cell %d %d", k, c);
                got = cmd(s, line);
                uint16_t wk = t >= (unsigned)(S + 1 + k + c) ? w[k][c] : 0;  /* swap with row 0 */
                /* T20: the load started in l = S - 1 - N = 3 brings cell
                 * (k, c) its weight in l + k + 1 + c. */
                unsigned arrive = S - N + (unsigned)(k + c);
                uint16_t sh = t >= arrive ? w[k][c] : 0;
                tpu_fmt_bf16(wk, a, sizeof a);
                tpu_fmt_bf16(sh, b2, sizeof b2);
                int r = snprintf(want, sizeof want,
                                 "mxu0 cell (%d, %d): weight %s (0x%04x), shadow %s (0x%04x)\n", k,
                                 c, a, wk, b2, sh);
                if (t == arrive) {
                    tpu_fmt_bf16(w[k][c], b2, sizeof b2);
                    r += snprintf(want + r, sizeof want - (size_t)r,
                                  "  weight being loaded: %s (0x%04x), into the shadow at the end "
                                  "of this cycle\n", b2, w[k][c]);
                    loading_seen++;
                }
                int b = (int)t - S - 1 - k - c;
                if (b >= 0 && b < M) {
                    uint32_t psum = 0;
                    for (int i = 0; i <= k; i++)
                        psum = tpu_mac(psum, x[b][i], w[i][c]);
                    tpu_fmt_bf16(x[b][k], a, sizeof a);
                    tpu_fmt_f32(psum, b2, sizeof b2);
                    snprintf(want + r, sizeof want - (size_t)r,
                             "  multiply-add of LHS row %d: x %s (0x%04x), partial sum out %s "
                             "(0x%08x)\n", b, a, x[b][k], b2, psum);
                    active_seen++;
                } else {
                    snprintf(want + r, sizeof want - (size_t)r, "  no multiply-add in this cycle\n");
                }
                assert_string_equal(got, want);
            }
    }
    assert_int_equal(active_seen, M * N * N);       /* every multiply-add seen once */
    assert_int_equal(loading_seen, 6);              /* the cells with k + c >= 4 */
    EXPECT(s, "continue", "cycle 23: issued pc 9 <done>: halt\n"
                          "the program halted after 24 cycles; result: bit-exact\n");
    close_session(s);
}

/* ---- the compact view ------------------------------------------------------------------ */

static void test_view_compact(void **state)
{
    (void)state;
    /* 4x4: the full view by default; `view compact` on request.  Cycle 11
     * as in test_show_mxu_4x4: row b in cell (k, c) when b = 2 - k - c;
     * the swap has passed k + c <= 2, so the shadows (all loaded by the
     * end of cycle 10) differ from the weights in use below it. */
    session *s = open_session(tile_int);
    EXPECT(s, "view", "view full: show mxu draws the numbers of the cells in its window\n");
    EXPECT(s, "view compact",
           "view compact: show mxu draws a character per cell (or block of cells)\n");
    EXPECT(s, "step 12", "cycle 11: stalled at pc 8 <wait>: sem.wait 2, 1 (sem.wait: sem 2)\n");
    EXPECT(s, "show mxu",
           "mxu0 in cycle 11 (4x4, compact view): stream pc 7 (mxu.mm 0, s3, s4, s5, s2, s6, 2), "
           "6 rows from cycle 8\n"
           "       LHS row    weights\n"
           "       c0         c0\n"
           "  k0   210.       ...s\n"
           "  k1   10..       ..ss\n"
           "  k2   0...       .sss\n"
           "  k3   ....       ssss\n"
           "LHS row: its last digit where a cell multiplies (6 of 16 cells, rows 0-2)\n"
           "weights: l one arrives (mxu.lw; 0 cells), s the shadow holds a new one (10)\n");
    /* A window is for the numbers: it switches to the full view. */
    const char *o = cmd(s, "show mxu window 3 3");
    assert_non_null(strstr(o, "mxu0 in cycle 11 (4x4, rows 3-3, columns 3-3)"));
    assert_non_null(strstr(o, "  k3   w 0\n       s 43\n"));
    EXPECT(s, "view", "view full: show mxu draws the numbers of the cells in its window\n");
    close_session(s);

    /* 8x8 (tiny) does not fit the window of 8 x 5 cells: compact. */
    s = open_session_set(tile_int, "mxu_n=8", 0, NULL, 0, 0);
    EXPECT(s, "show mxu",
           "mxu0 at reset (8x8, compact view)\n"
           "       LHS row    weights\n"
           "       c0         c0\n"
           "  k0   ........   ........\n"
           "  k1   ........   ........\n"
           "  k2   ........   ........\n"
           "  k3   ........   ........\n"
           "  k4   ........   ........\n"
           "  k5   ........   ........\n"
           "  k6   ........   ........\n"
           "  k7   ........   ........\n"
           "LHS row: its last digit where a cell multiplies (0 of 64 cells)\n"
           "weights: l one arrives (mxu.lw; 0 cells), s the shadow holds a new one (0)\n");
    close_session(s);

    /* 128x128 (v5e's size): a character per 4x4 cells, 32 x 32.  Cycle
     * 14: rows 0..5 on k + c <= 5 (21 cells), the swap has passed
     * k + c <= 5, the load's wavefront (l = 3) is on k + c = 10 (11
     * cells), and the shadows ahead of the swap differ from the weights
     * on k + c = 6..10 (45 cells: a shadow shows its new weight from the
     * cycle it arrives).  Block (i, j) covers k + c = 4(i+j) .. 4(i+j) + 6. */
    s = open_session_set(tile_int, "mxu_n=128 vmem_bw=2048", 0, NULL, 0, 0);
    EXPECT(s, "step 15", "cycle 14: stalled at pc 8 <wait>: sem.wait 2, 1 (sem.wait: sem 2)\n");
    o = cmd(s, "show mxu");
    static const char *const want[] = {
        "mxu0 in cycle 14 (128x128, compact view, a character per 4x4 cells): stream pc 7 ",
        "         LHS row                            weights\n"
        "         c0      c32     c64     c96        c0      c32     c64     c96\n"
        "  k0     ++..............................   sll.............................\n"
        "  k4     +...............................   ll..............................\n"
        "  k8     ................................   l...............................\n"
        "  k12    ................................   ................................\n",
        "  k124   ................................   ................................\n"
        "LHS row: # every cell multiplies, + some (21 of 16384 cells, rows 0-5)\n"
        "weights: l one arrives (mxu.lw; 11 cells), s a shadow holds a new one (45)\n",
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        if (!strstr(o, want[i]))
            fail_msg("no\n%s\nin\n%s", want[i], o);
    /* Every line fits 80 columns but the header. */
    for (const char *l = strchr(o, '\n') + 1; *l; l = strchr(l, '\n') + 1)
        assert_true(strchr(l, '\n') - l <= 80);
    close_session(s);
}

/* ---- trace cell ------------------------------------------------------------------------ */

static void test_trace(void **state)
{
    (void)state;
    /* Cell (1, 0) of the integer tile: its weight 20 arrives in cycle
     * l + k + 1 + c = 5 (T20; the view shows it in the shadow from that
     * cycle on, as show cell does), the swap and row 0 reach it in 10 (T22);
     * row b comes in with 10(b+1) from cell (0, 0) and leaves with
     * 10(b+1) + (b+1) x 20. */
    session *s = open_session(tile_int);
    EXPECT(s, "trace", "no cell traced\n");
    EXPECT(s, "trace cell 1 0",
           "tracing mxu0 cell (1, 0): w weight, s shadow, l arriving, x, y in -> out\n");
    EXPECT(s, "step 12",
           "mxu0 cell (1, 0) in cycle 0: w 0  s 0  (no multiply-add)\n"
           "mxu0 cell (1, 0) in cycle 1: w 0  s 0  (no multiply-add)\n"
           "mxu0 cell (1, 0) in cycle 2: w 0  s 0  (no multiply-add)\n"
           "mxu0 cell (1, 0) in cycle 3: w 0  s 0  (no multiply-add)\n"
           "mxu0 cell (1, 0) in cycle 4: w 0  s 0  (no multiply-add)\n"
           "mxu0 cell (1, 0) in cycle 5: w 0  s 20  l 20  (no multiply-add)\n"
           "mxu0 cell (1, 0) in cycle 6: w 0  s 20  (no multiply-add)\n"
           "mxu0 cell (1, 0) in cycle 7: w 0  s 20  (no multiply-add)\n"
           "mxu0 cell (1, 0) in cycle 8: w 0  s 20  (no multiply-add)\n"
           "mxu0 cell (1, 0) in cycle 9: w 0  s 20  (no multiply-add)\n"
           "mxu0 cell (1, 0) in cycle 10: w 20  s 20  x 1  y 10 -> 30  (LHS row 0)\n"
           "mxu0 cell (1, 0) in cycle 11: w 20  s 20  x 2  y 20 -> 60  (LHS row 1)\n"
           "cycle 11: stalled at pc 8 <wait>: sem.wait 2, 1 (sem.wait: sem 2)\n");
    /* Row 0 of the array starts from +0; two cells, in the order given. */
    EXPECT(s, "trace cell 0 0 0",
           "tracing mxu0 cell (0, 0): w weight, s shadow, l arriving, x, y in -> out\n");
    EXPECT(s, "trace cell 0 0", "error: mxu0 cell (0, 0) is traced already\n");
    EXPECT(s, "trace", "tracing mxu0 cell (1, 0)\ntracing mxu0 cell (0, 0)\n");
    EXPECT(s, "step",
           "mxu0 cell (1, 0) in cycle 12: w 20  s 20  x 3  y 30 -> 90  (LHS row 2)\n"
           "mxu0 cell (0, 0) in cycle 12: w 10  s 10  x 4  y 0 -> 40  (LHS row 3)\n"
           "cycle 12: stalled at pc 8 <wait>: sem.wait 2, 1 (sem.wait: sem 2)\n");
    EXPECT(s, "untrace cell 1 0", "stopped tracing mxu0 cell (1, 0)\n");
    EXPECT(s, "next",
           "mxu0 cell (0, 0) in cycle 13: w 10  s 10  x 5  y 0 -> 50  (LHS row 4)\n"
           "mxu0 cell (0, 0) in cycle 14: w 10  s 10  x 6  y 0 -> 60  (LHS row 5)\n"
           "mxu0 cell (0, 0) in cycle 15: w 10  s 10  (no multiply-add)\n"
           "mxu0 cell (0, 0) in cycle 16: w 10  s 10  (no multiply-add)\n"
           "mxu0 cell (0, 0) in cycle 17: w 10  s 10  (no multiply-add)\n"
           "mxu0 cell (0, 0) in cycle 18: w 10  s 10  (no multiply-add)\n"
           "mxu0 cell (0, 0) in cycle 19: w 10  s 10  (no multiply-add)\n"
           "mxu0 cell (0, 0) in cycle 20: w 10  s 10  (no multiply-add)\n"
           "mxu0 cell (0, 0) in cycle 21: w 10  s 10  (no multiply-add)\n"
           "mxu0 cell (0, 0) in cycle 22: w 10  s 10  (no multiply-add)\n"
           "cycle 22: issued pc 8 <wait>: sem.wait 2, 1\n");
    EXPECT(s, "untrace", "stopped tracing 1 cell\n");
    EXPECT(s, "continue", "cycle 23: issued pc 9 <done>: halt\n"
                          "the program halted after 24 cycles; result: bit-exact\n");
    close_session(s);

    /* Random data: every cycle of cell (2, 1), and the bottom-right cell,
     * against the column recomputed with tpu_mac (y in is the sum of the
     * rows above, y out adds this cell's x * w). */
    enum { N = 4, M = 6, S = 8 };
    static const unsigned cells[2][2] = { { 2, 1 }, { 3, 3 } };
    for (int i = 0; i < 2; i++) {
        unsigned k = cells[i][0], c = cells[i][1];
        s = open_session(tile_random);
        uint16_t w[N][N], x[M][N];
        tpu_core *core = tpu_system_core(s->sys, 0);
        assert_int_equal(tpu_mem_read(core, TPU_SPACE_VMEM, 0, w, sizeof w), 0);
        assert_int_equal(tpu_mem_read(core, TPU_SPACE_VMEM, sizeof w, x, sizeof x), 0);
        char line[64];
        snprintf(line, sizeof line, "trace cell %u %u", k, c);
        cmd(s, line);
        const char *got = cmd(s, "continue");
        char want[8192], *p = want, a[32], b[32], y0[32], y1[32];
        size_t left = sizeof want;
        for (unsigned t = 0; t < 24; t++) {
            unsigned arrive = S - N + k + c;            /* as in test_cells_against_tpu_mac */
            uint16_t wk = t >= S + 1 + k + c ? w[k][c] : 0, sh = t >= arrive ? w[k][c] : 0;
            tpu_fmt_bf16(wk, a, sizeof a);
            tpu_fmt_bf16(sh, b, sizeof b);
            int n = snprintf(p, left, "mxu0 cell (%u, %u) in cycle %u: w %s  s %s", k, c, t, a, b);
            if (t == arrive) {
                tpu_fmt_bf16(w[k][c], a, sizeof a);
                n += snprintf(p + n, left - (size_t)n, "  l %s", a);
            }
            int r = (int)t - S - 1 - (int)k - (int)c;
            if (r >= 0 && r < M) {
                uint32_t psum = 0;
                for (unsigned j = 0; j < k; j++)
                    psum = tpu_mac(psum, x[r][j], w[j][c]);
                tpu_fmt_f32(psum, y0, sizeof y0);
                tpu_fmt_f32(tpu_mac(psum, x[r][k], w[k][c]), y1, sizeof y1);
                tpu_fmt_bf16(x[r][k], a, sizeof a);
                n += snprintf(p + n, left - (size_t)n, "  x %s  y %s -> %s  (LHS row %d)\n", a,
                              y0, y1, r);
            } else {
                n += snprintf(p + n, left - (size_t)n, "  (no multiply-add)\n");
            }
            p += n;
            left -= (size_t)n;
        }
        snprintf(p, left, "cycle 23: issued pc 9 <done>: halt\n"
                          "the program halted after 24 cycles; result: bit-exact\n");
        assert_string_equal(got, want);
        close_session(s);
    }
}

/* ---- breakpoints and watchpoints --------------------------------------------------- */

static void test_breakpoints(void **state)
{
    (void)state;
    session *s = open_session(tile_int);
    EXPECT(s, "break wait", "breakpoint 1: pc 8 <wait>: sem.wait 2, 1\n");
    EXPECT(s, "b pc 3", "breakpoint 2: pc 3 <stream>: li s3, 128\n");
    EXPECT(s, "break sem 1", "breakpoint 3: sem 1 changes\n");
    EXPECT(s, "break mxu-end 0", "breakpoint 4: mxu-end on mxu0\n");
    /* pc 3 is reached when pc 2 issues (cycle 2). */
    EXPECT(s, "c", "breakpoint 2: reached pc 3 <stream>: li s3, 128\n"
                   "cycle 2: issued pc 2 <start+2>: mxu.lw 0, s1, s2, 1\n");
    /* T20a: the weights are read in l .. l + N - 1 = 3 .. 6; sem 1 is up
     * at the end of 6. */
    EXPECT(s, "c", "breakpoint 3: sem 1 = 1\n"
                   "cycle 6: issued pc 6 <stream+3>: li s6, 16\n");
    EXPECT(s, "c", "breakpoint 1: reached pc 8 <wait>: sem.wait 2, 1\n"
                   "cycle 7: issued pc 7 <stream+4>: mxu.mm 0, s3, s4, s5, s2, s6, 2\n");
    /* Then the last row (T24a: end of s + M - 1 + 2N = 21). */
    EXPECT(s, "info breakpoints",
           "breakpoint 1: pc 8 <wait>: sem.wait 2, 1  (hit 1 time)\n"
           "breakpoint 2: pc 3 <stream>: li s3, 128  (hit 1 time)\n"
           "breakpoint 3: sem 1 changes  (hit 1 time)\n"
           "breakpoint 4: mxu-end on mxu0  (hit 0 times)\n");
    EXPECT(s, "delete 3", "deleted 3\n");
    EXPECT(s, "c", "breakpoint 4: mxu0 writes the last row of pc 7 (mxu.mm 0, s3, s4, s5, s2, "
                   "s6, 2)\n"
                   "cycle 21: stalled at pc 8 <wait>: sem.wait 2, 1 (sem.wait: sem 2)\n");
    EXPECT(s, "delete", "deleted all breakpoints and watchpoints\n");
    EXPECT(s, "info breakpoints", "no breakpoints or watchpoints\n");
    close_session(s);

    /* sem N stops when the semaphore changes: T20a, end of cycle 6. */
    s = open_session(tile_int);
    EXPECT(s, "break sem 1", "breakpoint 1: sem 1 changes\n");
    EXPECT(s, "continue", "breakpoint 1: sem 1 = 1\n"
                          "cycle 6: issued pc 6 <stream+3>: li s6, 16\n");
    EXPECT(s, "next", "cycle 7: issued pc 7 <stream+4>: mxu.mm 0, s3, s4, s5, s2, s6, 2\n");
    /* next waits through the stall of sem.wait (cycles 8 .. 21). */
    EXPECT(s, "next", "cycle 22: issued pc 8 <wait>: sem.wait 2, 1\n");
    EXPECT(s, "n", "cycle 23: issued pc 9 <done>: halt\n"
                   "the program halted after 24 cycles; result: bit-exact\n");
    close_session(s);
}

static void test_dma_done_and_watch(void **state)
{
    (void)state;
    session *s = open_session(dma_prog);
    /* T18: dispatched in cycle 4, L = 20, 32 bytes at 16 per cycle: the
     * last bytes move in cycle 4 + 20 + 2 = 26. */
    EXPECT(s, "watch vmem B+8 4", "watchpoint 1: vmem 0x108..0x10b (4 bytes)\n");
    EXPECT(s, "break dma-done", "breakpoint 2: dma-done\n");
    EXPECT(s, "continue", "watchpoint 1: vmem 0x108..0x10b written by dma\n"
                          "cycle 25: stalled at pc 5 <copy+1>: sem.wait 3, 1 (sem.wait: sem 3)\n");
    EXPECT(s, "x B 8 as f32", "vmem 0x000100:  1  2  3  4  0  0  0  0\n");
    EXPECT(s, "continue", "breakpoint 2: DMA engine 0 finished pc 4 (dma.h2v s1, s2, s3, s4, "
                          "s4, s4, 3): 32 bytes to vmem\n"
                          "cycle 26: stalled at pc 5 <copy+1>: sem.wait 3, 1 (sem.wait: sem 3)\n");
    EXPECT(s, "print mem vmem 0x100 8 as f32", "vmem 0x000100:  1  2  3  4  5  6  7  8\n");
    EXPECT(s, "info queues",
           "given to each unit and not finished, oldest first (queues hold 4):\n"
           "  dma   empty\n  mxu0  empty\n  vpu   empty\n  ici   empty\n  xlu   empty\n");
    EXPECT(s, "next", "cycle 27: issued pc 5 <copy+1>: sem.wait 3, 1\n");
    EXPECT(s, "next", "cycle 28: issued pc 6 <copy+2>: vld v5, s1, 0\n");
    EXPECT(s, "info queues",
           "given to each unit and not finished, oldest first (queues hold 4):\n"
           "  dma   empty\n  mxu0  empty\n"
           "  vpu   pc 6 vld v5, s1, 0 (issued in cycle 28)\n"
           "  ici   empty\n"
           "  xlu   empty\n");
    EXPECT(s, "continue", "cycle 31: issued pc 8 <end>: halt\n"
                          "the program halted after 32 cycles; result: bit-exact\n");
    /* A vld of 8 x 8 fp32 from 0x100: row 0 is A, the rest zero. */
    const char *v = cmd(s, "print vreg 5");
    assert_non_null(strstr(v, "v5 (8 x 8 fp32):\n"
                              "  [0][0..7]           1           2           3           4"
                              "           5           6           7           8\n"
                              "  [1][0..7]           0"));
    EXPECT(s, "print regs",
           "zero 0               s1   256             s2   0               s3   1\n"
           "s4   32              s5   0               s6   0               s7   -12\n"
           "s8   0               s9   0               s10  0               s11  0\n"
           "s12  0               s13  0               s14  0               s15  0\n"
           "s16  0               s17  0               s18  0               s19  0\n"
           "s20  0               s21  0               s22  0               s23  0\n"
           "s24  0               s25  0               s26  0               s27  0\n"
           "s28  0               s29  0               s30  0               cid  0\n");
    EXPECT(s, "info sem",
           "sem  0-7       0      0      0      0      0      0      0      0\n"
           "sem  8-15      0      0      0      0      0      0      0      0\n"
           "sem 16-23      0      0      0      0      0      0      0      0\n"
           "sem 24-31      0      0      0      0      0      0      0      0\n");
    close_session(s);

    /* A watch on HBM, and one that is never hit. */
    s = open_session(dma_prog);
    EXPECT(s, "watch hbm 0 16", "watchpoint 1: hbm 0x0..0xf (16 bytes)\n");
    EXPECT(s, "continue", "cycle 31: issued pc 8 <end>: halt\n"
                          "the program halted after 32 cycles; result: bit-exact\n");
    EXPECT(s, "info breakpoints", "watchpoint 1: hbm 0x0..0xf (16 bytes)  (hit 0 times)\n");
    close_session(s);
}

/* ---- printing ------------------------------------------------------------------------ */

static void test_print_formats(void **state)
{
    (void)state;
    session *s = open_session(tile_int);
    EXPECT(s, "x W 4 as bf16", "vmem 0x000000: 10 11 12 13\n");
    EXPECT(s, "p mem vmem X 8 as hex", "vmem 0x000020: 80 3f 80 3f 80 3f 80 3f\n");
    EXPECT(s, "info mem vmem 0x20 10 as bf16",
           "vmem 0x000020:  1  1  1  1  2  2  2  2\n"
           "vmem 0x000030:  3  3\n");
    EXPECT(s, "x hbm 0 4 as f32", "hbm 0x000000:  0  0  0  0\n");
    EXPECT(s, "info labels",
           "pc 0          start\n"
           "pc 3          stream\n"
           "pc 8          wait\n"
           "pc 9          done\n"
           "vmem 0x0      W\n"
           "vmem 0x20     X\n"
           "vmem 0x80     Y\n");
    EXPECT(s, "list",
           "       start:\n"
           "=>    0  li s1, 0\n"
           "      1  li s2, 8\n"
           "      2  mxu.lw 0, s1, s2, 1\n"
           "       stream:\n"
           "      3  li s3, 128\n"
           "      4  li s4, 32\n");
    EXPECT(s, "show units",
           "units at reset (no cycle has run yet):\n"
           "  seq   idle\n  dma   idle\n  mxu0  idle\n  vpu   idle\n  ici   idle\n  xlu   idle\n");
    EXPECT(s, "step 9", "cycle 8: stalled at pc 8 <wait>: sem.wait 2, 1 (sem.wait: sem 2)\n");
    EXPECT(s, "info pc",
           "      5  li s5, 6\n"
           "      6  li s6, 16\n"
           "      7  mxu.mm 0, s3, s4, s5, s2, s6, 2\n"
           "       wait:\n"
           "=>    8  sem.wait 2, 1\n"
           "       done:\n"
           "      9  halt\n");
    EXPECT(s, "show units",
           "units in cycle 8:\n"
           "  seq   stalled at pc 8 <wait>: sem.wait 2, 1 (sem.wait: sem 2)\n"
           "  dma   idle\n"
           "  mxu0  busy    streaming pc 7 mxu.mm 0, s3, s4, s5, s2, s6, 2: 6 rows from cycle 8; "
           "1 more unfinished\n"
           "  vpu   idle\n"
           "  ici   idle\n"
           "  xlu   idle\n");
    EXPECT(s, "continue", "cycle 23: issued pc 9 <done>: halt\n"
                          "the program halted after 24 cycles; result: bit-exact\n");
    /* The y rows written: Y[b][c] = (b+1) * (100 + 4c). */
    EXPECT(s, "x Y 8 as f32", "vmem 0x000080: 100 104 108 112 200 208 216 224\n");
    close_session(s);
}

/* A second stream waits for the first: the MXU stalls, and says why. */
static void test_units_stalled(void **state)
{
    (void)state;
    session *s = open_session(
        "        .equ N, MXU_N\n        .equ M, 6\n        .vmem 0\n" TILE_DATA_INT
        "        .align 64\n"
        "Y:      .zero 4*M*N\n"
        "        .text\n"
        "        li s1, W\n"
        "        li s2, 2*N\n"
        "        mxu.lw 0, s1, s2, 1\n"
        "        li s3, Y\n"
        "        li s4, X\n"
        "        li s5, M\n"
        "        li s6, 4*N\n"
        "        mxu.mm 0, s3, s4, s5, s2, s6, 2\n"
        "        mxu.mma 0, s3, s4, s5, s2, s6, 2\n"
        "        sem.wait 2, 2\n"
        "        halt\n");
    /* The first stream reads rows in 8 .. 13; the second may start in 14
     * (T21), so in cycle 9 it waits: stream busy. */
    EXPECT(s, "step 10", "cycle 9: stalled at pc 9: sem.wait 2, 2 (sem.wait: sem 2)\n");
    EXPECT(s, "show units",
           "units in cycle 9:\n"
           "  seq   stalled at pc 9: sem.wait 2, 2 (sem.wait: sem 2)\n"
           "  dma   idle\n"
           "  mxu0  stalled (stream busy): streaming pc 7 mxu.mm 0, s3, s4, s5, s2, s6, 2: 6 rows "
           "from cycle 8; 2 more unfinished\n"
           "  vpu   idle\n"
           "  ici   idle\n"
           "  xlu   idle\n");
    EXPECT(s, "info queues",
           "given to each unit and not finished, oldest first (queues hold 4):\n"
           "  dma   empty\n"
           "  mxu0  pc 2 mxu.lw 0, s1, s2, 1 (issued in cycle 2)\n"
           "        pc 7 mxu.mm 0, s3, s4, s5, s2, s6, 2 (issued in cycle 7)\n"
           "        pc 8 mxu.mma 0, s3, s4, s5, s2, s6, 2 (issued in cycle 8)\n"
           "  vpu   empty\n"
           "  ici   empty\n"
           "  xlu   empty\n");
    EXPECT(s, "break mxu-start", "breakpoint 1: mxu-start on any MXU\n");
    EXPECT(s, "continue", "breakpoint 1: mxu0 starts pc 8 (mxu.mma 0, s3, s4, s5, s2, s6, 2): "
                          "6 rows\n"
                          "cycle 14: stalled at pc 9: sem.wait 2, 2 (sem.wait: sem 2)\n");
    close_session(s);
}

/* ---- errors -------------------------------------------------------------------------- */

static void test_bad_commands(void **state)
{
    (void)state;
    session *s = open_session(tile_int);
    EXPECT(s, "frobnicate", "error: unknown command 'frobnicate' (try 'help')\n");
    EXPECT(s, "step 0", "error: step wants a number of cycles (1 or more), not '0'\n");
    EXPECT(s, "step -3", "error: step wants a number of cycles (1 or more), not '-3'\n");
    EXPECT(s, "step 1 2", "error: usage: step [N]\n");
    EXPECT(s, "break", "error: usage: break LABEL | pc N | cycle N | mxu-start [K] | mxu-end [K] "
                       "| dma-done | sem N\n");
    EXPECT(s, "break nowhere", "error: no label 'nowhere' (try 'info labels'); usage: break "
                               "LABEL | pc N | cycle N | mxu-start [K] | mxu-end [K] | dma-done "
                               "| sem N\n");
    EXPECT(s, "break W", "error: 'W' is a vmem label, not code (use watch)\n");
    EXPECT(s, "break 5", "error: a bare number is ambiguous: say 'break pc 5' or 'break cycle "
                         "5'\n");
    EXPECT(s, "break pc 10", "error: pc 10 is past the end of the program (10 instructions)\n");
    EXPECT(s, "break sem 32", "error: there are 32 semaphores (0..31), not 32\n");
    EXPECT(s, "break mxu-start 1", "error: there is 1 MXU (0..0), not '1'\n");
    EXPECT(s, "watch vmem 0x40000", "error: vmem address 0x40000 is outside vmem (0x40000 "
                                    "bytes)\n");
    EXPECT(s, "watch start", "error: 'start' is a code label, not data\n");
    EXPECT(s, "watch 16", "error: say which memory: hbm or vmem\n");
    EXPECT(s, "watch hbm W", "error: 'W' is a vmem label, not hbm\n");
    EXPECT(s, "x vmem 0x3fffc 4 as f32", "error: vmem 0x3fffc..0x4000b is outside vmem (0x40000 "
                                         "bytes)\n");
    EXPECT(s, "x vmem 0 4 as int", "error: print mem ... as bf16, f32 or hex, not 'int'\n");
    EXPECT(s, "print vreg 32", "error: vector registers are v0..v31\n");
    EXPECT(s, "print", "error: usage: print regs | vreg N | sem | queues | mem [hbm|vmem] ADDR "
                       "[N] [as bf16|f32|hex] | pc | labels | breakpoints\n");
    EXPECT(s, "show mxu 1", "error: there is 1 MXU (0..0), not '1'\n");
    EXPECT(s, "show mxu window 4 0", "error: the array is 4x4: rows and columns 0..3\n");
    EXPECT(s, "show mxu window 1", "error: usage: show mxu [K] [window R C [ROWS COLS]] | show "
                                   "cell [K] ROW COL | show units | show links\n");
    EXPECT(s, "show cell 0 9", "error: cell (0, 9) is outside the 4x4 array: rows and columns "
                               "are 0..3\n");
    EXPECT(s, "show cell 1 0 0", "error: there is 1 MXU (0..0), not 1\n");
    EXPECT(s, "trace cell 4 0", "error: cell (4, 0) is outside the 4x4 array: rows and columns "
                                "are 0..3\n");
    EXPECT(s, "trace cell 0 x", "error: trace cell wants numbers, not 'x'\n");
    EXPECT(s, "trace cell 1", "error: usage: trace cell [K] ROW COL\n");
    EXPECT(s, "trace mxu", "error: usage: trace cell [K] ROW COL\n");
    EXPECT(s, "untrace", "error: no cell is traced\n");
    EXPECT(s, "untrace cell 0 0", "error: mxu0 cell (0, 0) is not traced (try 'trace')\n");
    EXPECT(s, "view wide", "error: usage: view [compact|full]\n");
    EXPECT(s, "delete 7", "error: no breakpoint 7 (try 'info breakpoints')\n");
    EXPECT(s, "core 1", "error: usage: core N (0..0)\n");
    EXPECT(s, "# a comment, then nothing", "");
    EXPECT(s, "   ", "");
    /* The stepper goes on after all of that. */
    EXPECT(s, "step", "cycle 0: issued pc 0 <start>: li s1, 0\n");
    assert_int_equal(tpu_stepper_status(s->st), 0);
    close_session(s);
}

/* A deadlock stops the run with the model's error; the status is 3. */
static void test_run_time_error_and_status(void **state)
{
    (void)state;
    session *s = open_session("        .text\n        li s1, 1\n        sem.wait 0, 1\n        halt\n");
    EXPECT(s, "continue",
           "cycle 1: stalled at pc 1: sem.wait 0, 1 (sem.wait: sem 0)\n"
           "the run stopped: core 0: cycle 1: pc 1 (sem.wait 0, 1): deadlock: sem.wait on sem 0 "
           "(value 0, needs 1) can never succeed: every unit is idle\n");
    EXPECT(s, "next", "the program is not running (it stopped after 2 cycles)\n");
    assert_int_equal(tpu_stepper_status(s->st), 3);
    close_session(s);

    /* The cycle limit. */
    s = open_session_io(tile_int, 5, NULL, 0, 0);
    EXPECT(s, "continue",
           "cycle 4: issued pc 4 <stream+1>: li s4, 32\n"
           "the run stopped: core 0: cycle 5: pc 5 (li s5, 6): cycle limit reached (5 cycles)\n");
    assert_int_equal(tpu_stepper_status(s->st), 3);
    close_session(s);

    /* A wrong result: status 1. */
    s = open_session("        .vmem 0\nA:      .f32 1\n        .text\n        halt\n"
                     "        .expect f32 A, 2\n");
    const char *o = cmd(s, "continue");
    assert_non_null(strstr(o, "the program halted after 1 cycle; result: MISMATCH"));
    assert_int_equal(tpu_stepper_status(s->st), 1);
    close_session(s);
}

/* One of a thing is not "1 things". */
static void test_plurals(void **state)
{
    (void)state;
    session *s = open_session(tile_one_row);
    EXPECT(s, "break mxu-start", "breakpoint 1: mxu-start on any MXU\n");
    EXPECT(s, "watch Y 1", "watchpoint 2: vmem 0x40..0x40 (1 byte)\n");
    EXPECT(s, "continue",
           "breakpoint 1: mxu0 starts pc 7 (mxu.mm 0, s3, s4, s5, s2, s6, 2): 1 row\n"
           "cycle 8: stalled at pc 8 <wait>: sem.wait 2, 1 (sem.wait: sem 2)\n");
    const char *o = cmd(s, "show units");
    assert_non_null(strstr(o, ": 1 row from cycle 8; 1 more unfinished\n"));
    o = cmd(s, "show mxu");
    assert_non_null(strstr(o, "), 1 row from cycle 8\n"));
    EXPECT(s, "continue", "watchpoint 2: vmem 0x40..0x40 written by mxu0\n"
                          "cycle 16: stalled at pc 8 <wait>: sem.wait 2, 1 (sem.wait: sem 2)\n");
    EXPECT(s, "info breakpoints", "breakpoint 1: mxu-start on any MXU  (hit 1 time)\n"
                                  "watchpoint 2: vmem 0x40..0x40 (1 byte)  (hit 1 time)\n");
    close_session(s);
}

/* Ctrl-C during continue stops at the next cycle and the session goes on;
 * the run can be resumed from there. */
static void test_interrupt(void **state)
{
    (void)state;
    session *s = open_session("        .text\n        li s1, 1000000\n"
                              "loop:   addi s1, s1, -1\n        bne s1, zero, loop\n"
                              "        halt\n");
    EXPECT(s, "step", "cycle 0: issued pc 0: li s1, 1000000\n");
    /* A Ctrl-C during continue: it stops after the cycle it is in, and
     * the status line names that cycle. */
    tpu_interrupt_raise();
    EXPECT(s, "continue", "interrupted at cycle 1\ncycle 1: issued pc 1 <loop>: addi s1, s1, -1\n");
    assert_int_equal(tpu_interrupted(), 0);           /* handled: cleared */
    EXPECT(s, "step", "cycle 2: issued pc 2 <loop+1>: bne s1, zero, loop\n");
    tpu_interrupt_raise();
    EXPECT(s, "step 10", "interrupted at cycle 3\ncycle 3: issued pc 1 <loop>: addi s1, s1, -1\n");
    tpu_interrupt_raise();
    EXPECT(s, "next", "cycle 4: issued pc 2 <loop+1>: bne s1, zero, loop\n");   /* stopped anyway */
    assert_int_equal(tpu_interrupted(), 0);
    /* With a traced cell, the lines of the cycles that ran come first. */
    EXPECT(s, "trace cell 3 3",
           "tracing mxu0 cell (3, 3): w weight, s shadow, l arriving, x, y in -> out\n");
    tpu_interrupt_raise();
    EXPECT(s, "continue", "mxu0 cell (3, 3) in cycle 5: w 0  s 0  (no multiply-add)\n"
                          "interrupted at cycle 5\n"
                          "cycle 5: issued pc 1 <loop>: addi s1, s1, -1\n");
    EXPECT(s, "untrace", "stopped tracing 1 cell\n");
    const char *o = cmd(s, "continue");
    if (!strstr(o, "the program halted after 2000002 cycles"))     /* li, 1e6 x (addi, bne), halt */
        fail_msg("%s", o);
    close_session(s);
}

/* tpu_stepper_loop: commands from a FILE*, echo, quit, end of input. */
static void test_loop(void **state)
{
    (void)state;
    static char script[] = "step 2\nbogus\nquit\nstep\n";
    FILE *in = fmemopen(script, strlen(script), "r");
    assert_non_null(in);
    session *s = open_session_io(tile_int, 0, in, 1, 0);
    assert_int_equal(tpu_stepper_loop(s->st), 0);
    fclose(in);
    fflush(s->out);
    assert_string_equal(s->buf, "(tpu) step 2\n"
                                "cycle 1: issued pc 1 <start+1>: li s2, 8\n"
                                "(tpu) bogus\n"
                                "error: unknown command 'bogus' (try 'help')\n"
                                "(tpu) quit\n");
    close_session(s);

    /* Without quit: runs to the end of the input; the prompt when asked. */
    static char script2[] = "continue";
    in = fmemopen(script2, strlen(script2), "r");
    assert_non_null(in);
    s = open_session_io(tile_int, 0, in, 0, 1);
    assert_int_equal(tpu_stepper_loop(s->st), 0);
    fclose(in);
    fflush(s->out);
    assert_string_equal(s->buf, "(tpu) cycle 23: issued pc 9 <done>: halt\n"
                                "the program halted after 24 cycles; result: bit-exact\n"
                                "(tpu) \n");
    close_session(s);
}

/* Ctrl-C at the prompt: the read returns EINTR, the stepper prints a new
 * prompt and reads on.  A child process sends SIGINT while the loop waits
 * on an empty pipe, then types a command and ends the input. */
static void test_loop_interrupt_at_prompt(void **state)
{
    (void)state;
    int fd[2];
    assert_int_equal(pipe(fd), 0);
    pid_t parent = getpid(), pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(fd[0]);
        struct timespec ts = { 0, 300 * 1000000L };
        nanosleep(&ts, NULL);
        kill(parent, SIGINT);
        nanosleep(&ts, NULL);
        static const char typed[] = "step\n";
        ssize_t w = write(fd[1], typed, sizeof typed - 1);
        _exit(w == (ssize_t)sizeof typed - 1 ? 0 : 1);
    }
    close(fd[1]);
    FILE *in = fdopen(fd[0], "r");
    assert_non_null(in);
    session *s = open_session_io(tile_int, 0, in, 0, 1);
    assert_int_equal(tpu_stepper_loop(s->st), 0);
    fclose(in);
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    fflush(s->out);
    assert_string_equal(s->buf, "(tpu) \n"
                                "(tpu) cycle 0: issued pc 0 <start>: li s1, 0\n"
                                "(tpu) \n");
    assert_int_equal(tpu_interrupted(), 0);
    close_session(s);
}

static void test_help_lists_every_command(void **state)
{
    (void)state;
    session *s = open_session(tile_int);
    const char *h = cmd(s, "help");
    static const char *const names[] = { "step (s)", "next (n)", "continue (c)", "break (b)",
                                         "watch (w)", "delete (d)", "info (i)", "print (p)",
                                         "x [hbm", "list (l)", "show (sh)", "view [compact|full]",
                                         "trace [cell [K] R C]", "untrace", "core", "report",
                                         "help (h)", "quit (q)", "Ctrl-C" };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (!strstr(h, names[i]))
            fail_msg("help does not list '%s':\n%s", names[i], h);
    const char *r = cmd(s, "report");
    assert_non_null(strstr(r, "stop          running after 0 cycles\n"));
    assert_non_null(strstr(r, "result: not checked (the run did not halt)\n"));
    EXPECT(s, "quit", "");
    close_session(s);
}

/* --animate: one frame per cycle; plain text has no escape codes, a
 * terminal gets frames drawn in place. */
static void test_animate(void **state)
{
    (void)state;
    for (int color = 0; color < 2; color++) {
        session *s = open_session(tile_int);
        char *buf = NULL, err[128];
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        assert_non_null(f);
        assert_int_equal(tpu_animate(s->sys, &s->obj, &s->cfg, f, color, 0, 0, err, sizeof err),
                         0);
        fclose(f);
        assert_int_equal(tpu_system_cycle(s->sys), 24);       /* ran to the halt */
        unsigned frames = 0;
        for (const char *p = buf; (p = strstr(p, "units in cycle ")) != NULL; p++)
            frames++;
        assert_int_equal(frames, 24);
        if (!color) {
            assert_null(strchr(buf, '\033'));
            assert_non_null(strstr(buf, "cycle 0: issued pc 0 <start>: li s1, 0\n"
                                        "units in cycle 0:\n"
                                        "  seq   busy    issued pc 0 <start>: li s1, 0\n"));
            /* cycle 11 as in test_show_mxu_4x4 */
            assert_non_null(strstr(buf, "mxu0 in cycle 11 (4x4, all cells): stream pc 7 (mxu.mm "
                                        "0, s3, s4, s5, s2, s6, 2), 6 rows from cycle 8\n"
                                        "LHS row in each cell (. = no multiply-add in this "
                                        "cycle):\n"
                                        "      c0  c1  c2  c3\n"
                                        "  k0   2   1   0   .\n"));
            assert_non_null(strstr(buf, "\ncycle 23: issued pc 9 <done>: halt\n"));
        } else {
            assert_memory_equal(buf, "\033[H\033[2J\033[Hcycle 0: issued pc 0 <start>: li s1, "
                                     "0\033[K\n", 52);
            unsigned homes = 0;
            for (const char *p = buf; (p = strstr(p, "\033[H")) != NULL; p++)
                homes++;
            assert_int_equal(homes, 25);                /* one clear, one per frame */
        }
        free(buf);
        close_session(s);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_show_mxu_4x4),
        cmocka_unit_test(test_cells_against_tpu_mac),
        cmocka_unit_test(test_view_compact),
        cmocka_unit_test(test_trace),
        cmocka_unit_test(test_breakpoints),
        cmocka_unit_test(test_dma_done_and_watch),
        cmocka_unit_test(test_print_formats),
        cmocka_unit_test(test_units_stalled),
        cmocka_unit_test(test_bad_commands),
        cmocka_unit_test(test_run_time_error_and_status),
        cmocka_unit_test(test_plurals),
        cmocka_unit_test(test_interrupt),
        cmocka_unit_test(test_loop),
        cmocka_unit_test(test_loop_interrupt_at_prompt),
        cmocka_unit_test(test_help_lists_every_command),
        cmocka_unit_test(test_animate),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
