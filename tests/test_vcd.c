/*
 * test_vcd.c - the VCD of `tpu-sim --vcd` (sim/view/vcd.c), read back: the
 * header ($timescale, scopes, $var declarations under the RTL's names and
 * widths, $enddefinitions), the clock, and value changes at the times
 * docs/timing.md gives (10 time units per cycle, cycle t at 10t).  The
 * reader below keeps every change of every signal.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "asm.h"
#include "config.h"
#include "tpu.h"
#include "trace.h"
#include "vcd.h"

/* ---- a VCD reader --------------------------------------------------------------------- */

#define MAX_VARS 2048

typedef struct change {
    uint64_t time, value;
} change;

typedef struct var {
    char name[160];         /* TOP.core.u_seq.pc_q */
    char id[8];
    unsigned width;
    change *ch;
    size_t n, cap;
} var;

typedef struct vcd {
    char timescale[32];
    var v[MAX_VARS];
    size_t nv;
    int has_enddefs, has_dumpvars, has_comment_stop;
    uint64_t last_time;
} vcd;

static void add_change(var *v, uint64_t t, uint64_t val)
{
    if (v->n == v->cap) {
        v->cap = v->cap ? 2 * v->cap : 16;
        v->ch = realloc(v->ch, v->cap * sizeof *v->ch);
    }
    v->ch[v->n].time = t;
    v->ch[v->n].value = val;
    v->n++;
}

/* Parse the whole file; fails the test on anything malformed. */
static void read_vcd(const char *path, vcd *d)
{
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    memset(d, 0, sizeof *d);
    char scope[8][64];
    int depth = 0, in_defs = 1;
    uint64_t now = 0;
    char line[4096];
    while (fgets(line, sizeof line, f)) {
        char w[5][160];
        int nw = sscanf(line, "%159s %159s %159s %159s %159s", w[0], w[1], w[2], w[3], w[4]);
        if (nw <= 0)
            continue;
        if (in_defs) {
            if (!strcmp(w[0], "$timescale")) {
                assert_true(nw >= 2);
                snprintf(d->timescale, sizeof d->timescale, "%.31s", w[1]);
            } else if (!strcmp(w[0], "$scope")) {
                assert_true(nw >= 3 && depth < 8);
                assert_string_equal(w[1], "module");
                snprintf(scope[depth++], sizeof scope[0], "%.63s", w[2]);
            } else if (!strcmp(w[0], "$upscope")) {
                assert_true(depth > 0);
                depth--;
            } else if (!strcmp(w[0], "$var")) {
                assert_true(nw >= 5);
                assert_string_equal(w[1], "wire");
                assert_true(d->nv < MAX_VARS);
                var *v = &d->v[d->nv++];
                memset(v, 0, sizeof *v);
                v->width = (unsigned)atoi(w[2]);
                assert_true(v->width >= 1 && v->width <= 64);
                snprintf(v->id, sizeof v->id, "%.7s", w[3]);
                size_t used = 0;
                for (int i = 0; i < depth; i++)
                    used += (size_t)snprintf(v->name + used, sizeof v->name - used, "%s.",
                                             scope[i]);
                snprintf(v->name + used, sizeof v->name - used, "%s", w[4]);
                if (v->width > 1) {         /* "[W-1:0]" follows the name */
                    char range[32];
                    snprintf(range, sizeof range, "[%u:0]", v->width - 1);
                    assert_non_null(strstr(line, range));
                }
            } else if (!strcmp(w[0], "$enddefinitions")) {
                assert_int_equal(depth, 0);
                d->has_enddefs = 1;
                in_defs = 0;
            }
            continue;
        }
        if (!strcmp(w[0], "$dumpvars")) {
            d->has_dumpvars = 1;
        } else if (!strcmp(w[0], "$end")) {
        } else if (!strcmp(w[0], "$comment")) {
            if (strstr(line, "dump stopped"))
                d->has_comment_stop = 1;
        } else if (w[0][0] == '#') {
            uint64_t t = strtoull(w[0] + 1, NULL, 10);
            assert_true(t >= now);          /* time never goes back */
            now = t;
            d->last_time = t;
        } else {
            const char *id;
            uint64_t val = 0;
            if (w[0][0] == 'b') {
                assert_int_equal(nw, 2);
                for (const char *p = w[0] + 1; *p; p++) {
                    assert_true(*p == '0' || *p == '1');
                    val = val << 1 | (uint64_t)(*p - '0');
                }
                id = w[1];
            } else {
                assert_true(w[0][0] == '0' || w[0][0] == '1');
                val = (uint64_t)(w[0][0] - '0');
                id = w[0] + 1;
            }
            int found = 0;
            for (size_t i = 0; i < d->nv; i++)
                if (!strcmp(d->v[i].id, id)) {
                    add_change(&d->v[i], now, val);
                    found = 1;
                }
            if (!found)
                fail_msg("value change for undeclared id '%s'", id);
        }
    }
    fclose(f);
}

static void free_vcd(vcd *d)
{
    for (size_t i = 0; i < d->nv; i++)
        free(d->v[i].ch);
}

static const var *find_var(const vcd *d, const char *name)
{
    for (size_t i = 0; i < d->nv; i++)
        if (!strcmp(d->v[i].name, name))
            return &d->v[i];
    fail_msg("no signal %s in the VCD", name);
    return NULL;
}

/* The value of a signal at time t (the last change at or before t). */
static uint64_t value_at(const vcd *d, const char *name, uint64_t t)
{
    const var *v = find_var(d, name);
    uint64_t val = 0;
    int seen = 0;
    for (size_t i = 0; i < v->n && v->ch[i].time <= t; i++) {
        val = v->ch[i].value;
        seen = 1;
    }
    if (!seen)
        fail_msg("%s has no value at time %llu", name, (unsigned long long)t);
    return val;
}

/* The value of a signal during cycle c (time 10c). */
static uint64_t in_cycle(const vcd *d, const char *name, uint64_t c)
{
    return value_at(d, name, 10 * c);
}

/* The first cycle >= from in which the signal has value val; -1 if none. */
static long first_cycle(const vcd *d, const char *name, uint64_t val, uint64_t from)
{
    for (uint64_t c = from; c * 10 <= d->last_time; c++)
        if (in_cycle(d, name, c) == val)
            return (long)c;
    return -1;
}

/* ---- running a program ---------------------------------------------------------------- */

typedef struct run {
    tpu_config cfg;
    tpu_object obj;
    tpu_system *sys;
    tpu_trace tr;
    char path[64];
    vcd d;
} run;

static tpu_config tiny(void)
{
    tpu_config c;
    char err[256];
    tpu_config_defaults(&c);
    assert_int_equal(tpu_config_load(&c, "tiny", err, sizeof err), 0);
    return c;
}

static void run_vcd_cfg(run *r, const tpu_config *cfg, const char *src, unsigned cores,
                        const tpu_vcd_opts *opts, enum tpu_stop want)
{
    memset(r, 0, sizeof *r);
    r->cfg = *cfg;
    tpu_asm_options ao = { .config = &r->cfg };
    tpu_asm_result ar;
    if (tpu_asm_assemble(src, strlen(src), "t.s", &ao, &r->obj, &ar))
        fail_msg("assembly failed: %s", ar.messages);
    tpu_asm_result_free(&ar);
    char err[512];
    tpu_system_opts so = { .cores = cores, .topology = cores > 1 ? TPU_TOPO_RING
                                                                 : TPU_TOPO_SINGLE };
    r->sys = tpu_system_create(&r->cfg, &so, err, sizeof err);
    assert_non_null(r->sys);
    assert_int_equal(tpu_system_load(r->sys, &r->obj, err, sizeof err), 0);
    snprintf(r->path, sizeof r->path, "/tmp/test_vcd_XXXXXX");
    int fd = mkstemp(r->path);
    assert_true(fd >= 0);
    close(fd);
    r->tr.vcd = tpu_vcd_open(r->path, r->sys, opts, err, sizeof err);
    assert_non_null(r->tr.vcd);
    assert_int_equal(tpu_trace_run(r->sys, 100000, &r->tr), want);
    assert_int_equal(tpu_trace_close(&r->tr, err, sizeof err), 0);
    read_vcd(r->path, &r->d);
}

static void run_vcd(run *r, const char *src, unsigned cores, const tpu_vcd_opts *opts,
                    enum tpu_stop want)
{
    tpu_config cfg = tiny();
    run_vcd_cfg(r, &cfg, src, cores, opts, want);
}

static void run_free(run *r)
{
    tpu_system_destroy(r->sys);
    tpu_trace_free(&r->tr);
    tpu_obj_free(&r->obj);
    free_vcd(&r->d);
    unlink(r->path);
}

/* tiny: a 64-byte DMA issued in cycle 4 starts in 5 (T13), waits in
 * 5 .. 24 (L = 20, T14), moves 16 bytes per cycle in 25 .. 28 (T15) and
 * bumps sem 0 at the end of 28 (T17); sem.wait issues in 29, halt in 30. */
static const char dma_prog[] =
    "        li      s1, 0\n"
    "        li      s2, 0\n"
    "        li      s3, 1\n"
    "        li      s4, 64\n"
    "        dma.h2v s1, s2, s3, s4, s0, s0, 0\n"
    "        sem.wait 0, 1\n"
    "        halt\n"
    "        .hbm 0\n"
    "        .random f32, 16, 1\n";

/* ---- tests --------------------------------------------------------------------------- */

static void test_header_names_and_widths(void **state)
{
    (void)state;
    run r;
    run_vcd(&r, dma_prog, 1, NULL, TPU_STOP_HALT);
    vcd *d = &r.d;
    assert_string_equal(d->timescale, "1ns");
    assert_true(d->has_enddefs);
    assert_true(d->has_dumpvars);
    static const struct { const char *name; unsigned width; } want[] = {
        { "TOP.clk_i", 1 },
        { "TOP.core.clk_i", 1 },
        { "TOP.core.tr_issue_o", 1 },
        { "TOP.core.tr_pc_o", 64 },
        { "TOP.core.tr_word_o", 64 },
        { "TOP.core.tr_stall_o", 3 },
        { "TOP.core.unit_busy", 7 },
        { "TOP.core.halted_o", 1 },
        { "TOP.core.error_o", 1 },
        { "TOP.core.stuck_o", 1 },
        { "TOP.core.u_seq.pc_q", 64 },
        { "TOP.core.u_seq.halted_q", 1 },
        { "TOP.core.u_seq.issue", 1 },
        { "TOP.core.u_seq.sem_q[0]", 32 },
        { "TOP.core.u_seq.sem_q[31]", 32 },
        { "TOP.core.u_seq.u_q_dma.count_q", 3 },     /* $clog2(Q + 1), Q = 4 */
        { "TOP.core.u_seq.u_q_ici.count_q", 3 },
        { "TOP.core.u_seq.u_q_vpu.count_q", 3 },
        { "TOP.core.u_seq.g_mxu_q[0].g_used.u_q_mxu.count_q", 3 },
        { "TOP.core.u_dma.busy_o", 1 },
        { "TOP.core.u_dma.pop_o", 1 },
        { "TOP.core.u_dma.state_q[0]", 2 },
        { "TOP.core.u_dma.state_q[1]", 2 },
        { "TOP.core.u_dma.left_q[1]", 64 },
        { "TOP.core.g_mxu[0].u_mxu.busy_o", 1 },
        { "TOP.core.g_mxu[0].u_mxu.lw_reading_q", 1 },
        { "TOP.core.g_mxu[0].u_mxu.streaming_q", 1 },
        { "TOP.core.g_mxu[0].u_mxu.pending_q", 1 },
        { "TOP.core.g_mxu[0].u_mxu.s_left_q", 64 },
        { "TOP.core.g_mxu[0].u_mxu.we_o", 1 },
        { "TOP.core.u_vpu.busy_o", 1 },
        { "TOP.core.u_vpu.pop_o", 1 },
        { "TOP.core.u_ici.busy_o", 1 },
        { "TOP.core.u_ici.sending_q", 4 },
        { "TOP.core.cmodel.seq_stall", 3 },
        { "TOP.core.cmodel.dma_stall", 3 },
        { "TOP.core.cmodel.mxu0_stall", 3 },
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        assert_int_equal(find_var(d, want[i].name)->width, want[i].width);
    for (size_t i = 0; i < d->nv; i++) {         /* tiny has 1 MXU and 2 DMA engines */
        assert_null(strstr(d->v[i].name, "g_mxu[1]"));
        assert_null(strstr(d->v[i].name, "state_q[2]"));
        assert_null(strstr(d->v[i].name, "mxu1_stall"));
    }
    /* every signal has a value from time 0 ($dumpvars) */
    for (size_t i = 0; i < d->nv; i++) {
        assert_true(d->v[i].n >= 1);
        assert_int_equal(d->v[i].ch[0].time, 0);
    }
    run_free(&r);
}

static void test_clock_and_sequencer(void **state)
{
    (void)state;
    run r;
    run_vcd(&r, dma_prog, 1, NULL, TPU_STOP_HALT);
    vcd *d = &r.d;
    /* 31 cycles: the clock rises at 10t and falls at 10t + 5 */
    for (uint64_t c = 0; c <= 30; c++) {
        assert_int_equal(value_at(d, "TOP.clk_i", 10 * c), 1);
        assert_int_equal(value_at(d, "TOP.clk_i", 10 * c + 5), 0);
    }
    /* pc_q counts one per cycle (T1) up to the dma.h2v, stays on the
     * sem.wait while it stalls, then moves on to halt */
    for (uint64_t c = 0; c <= 5; c++)
        assert_int_equal(in_cycle(d, "TOP.core.u_seq.pc_q", c), c);
    assert_int_equal(in_cycle(d, "TOP.core.u_seq.pc_q", 28), 5);
    assert_int_equal(in_cycle(d, "TOP.core.u_seq.pc_q", 30), 6);
    assert_int_equal(in_cycle(d, "TOP.core.tr_pc_o", 12), 5);
    /* issue in 0 .. 4, stall on sem.wait (reason 1, + 1) in 5 .. 28 */
    for (uint64_t c = 0; c <= 4; c++)
        assert_int_equal(in_cycle(d, "TOP.core.tr_issue_o", c), 1);
    for (uint64_t c = 5; c <= 28; c++) {
        assert_int_equal(in_cycle(d, "TOP.core.tr_issue_o", c), 0);
        assert_int_equal(in_cycle(d, "TOP.core.tr_stall_o", c), 2);
        assert_int_equal(in_cycle(d, "TOP.core.cmodel.seq_stall", c), 2);
    }
    assert_int_equal(in_cycle(d, "TOP.core.tr_issue_o", 29), 1);
    assert_int_equal(in_cycle(d, "TOP.core.tr_stall_o", 29), 0);
    assert_int_equal(in_cycle(d, "TOP.core.u_seq.issue", 30), 1);
    /* halted_q from the cycle after halt issued */
    assert_int_equal(in_cycle(d, "TOP.core.u_seq.halted_q", 30), 0);
    assert_int_equal(in_cycle(d, "TOP.core.u_seq.halted_q", 31), 1);
    assert_int_equal(in_cycle(d, "TOP.core.halted_o", 31), 1);
    run_free(&r);
}

static void test_dma_engine_and_semaphore(void **state)
{
    (void)state;
    run r;
    run_vcd(&r, dma_prog, 1, NULL, TPU_STOP_HALT);
    vcd *d = &r.d;
    /* the queue holds the entry at the start of 5 only (T4, T13) */
    assert_int_equal(first_cycle(d, "TOP.core.u_seq.u_q_dma.count_q", 1, 0), 5);
    assert_int_equal(in_cycle(d, "TOP.core.u_seq.u_q_dma.count_q", 6), 0);
    /* the engine starts in 5: pop_o then, WAIT from the start of 6 */
    assert_int_equal(first_cycle(d, "TOP.core.u_dma.pop_o", 1, 0), 5);
    assert_int_equal(in_cycle(d, "TOP.core.u_dma.pop_o", 6), 0);
    assert_int_equal(in_cycle(d, "TOP.core.u_dma.state_q[0]", 5), 0);
    assert_int_equal(first_cycle(d, "TOP.core.u_dma.state_q[0]", 1, 0), 6);
    assert_int_equal(in_cycle(d, "TOP.core.u_dma.left_q[0]", 6), 64);
    /* XFER moves bytes in 25 .. 28: 48 left at the start of 26, ... */
    assert_int_equal(first_cycle(d, "TOP.core.u_dma.state_q[0]", 2, 0), 26);
    assert_int_equal(in_cycle(d, "TOP.core.u_dma.left_q[0]", 26), 48);
    assert_int_equal(in_cycle(d, "TOP.core.u_dma.left_q[0]", 28), 16);
    assert_int_equal(first_cycle(d, "TOP.core.u_dma.state_q[0]", 0, 6), 29);
    assert_int_equal(in_cycle(d, "TOP.core.u_dma.busy_o", 28), 1);
    assert_int_equal(in_cycle(d, "TOP.core.u_dma.busy_o", 29), 0);
    assert_int_equal(in_cycle(d, "TOP.core.u_dma.state_q[1]", 20), 0);   /* never used */
    /* sem 0 is 1 at the start of 29 (T17, T18), 0 again after the wait (T6) */
    assert_int_equal(first_cycle(d, "TOP.core.u_seq.sem_q[0]", 1, 0), 29);
    assert_int_equal(in_cycle(d, "TOP.core.u_seq.sem_q[0]", 30), 0);
    assert_int_equal(find_var(d, "TOP.core.u_seq.sem_q[0]")->n, 3);     /* 0, 1, 0 */
    /* the core's unit_busy: the DMA bit (5) in 6 .. 28 */
    assert_int_equal(in_cycle(d, "TOP.core.unit_busy", 10), 1u << 5);
    assert_int_equal(in_cycle(d, "TOP.core.unit_busy", 29), 0);
    run_free(&r);
}

/* tiny (N = 8): mxu.lw issued in 2 reads its rows in 3 .. 10 (T19, T20);
 * mxu.mm issued in 7 starts in 8 (T21: no wait for the weights), reads 6
 * rows in 8 .. 13 (T22) and writes them in 24 .. 29 (T24). */
static void test_mxu_stream(void **state)
{
    (void)state;
    static const char prog[] =
        "        li      s1, 0\n"
        "        li      s2, 16\n"
        "        mxu.lw  0, s1, s2, 1\n"
        "        li      s3, 256\n"
        "        li      s4, 1024\n"
        "        li      s5, 6\n"
        "        li      s6, 32\n"
        "        mxu.mm  0, s4, s3, s5, s2, s6, 2\n"
        "        sem.wait 2, 1\n"
        "        halt\n"
        "        .vmem 0\n"
        "        .random bf16, 64, 1\n"
        "        .vmem 256\n"
        "        .random bf16, 48, 2\n";
    run r;
    run_vcd(&r, prog, 1, NULL, TPU_STOP_HALT);
    vcd *d = &r.d;
    const char *m = "TOP.core.g_mxu[0].u_mxu.";
    char n[128];
    /* rows 1 .. 7 of the load are read in 4 .. 10 */
    snprintf(n, sizeof n, "%slw_reading_q", m);
    assert_int_equal(first_cycle(d, n, 1, 0), 4);
    assert_int_equal(first_cycle(d, n, 0, 4), 11);
    snprintf(n, sizeof n, "%spending_q", m);
    assert_int_equal(first_cycle(d, n, 1, 0), 4);
    assert_int_equal(first_cycle(d, n, 0, 4), 9);
    snprintf(n, sizeof n, "%sstreaming_q", m);
    assert_int_equal(first_cycle(d, n, 1, 0), 9);
    assert_int_equal(first_cycle(d, n, 0, 9), 14);
    snprintf(n, sizeof n, "%ss_left_q", m);
    for (uint64_t c = 9; c <= 13; c++)
        assert_int_equal(in_cycle(d, n, c), 6 - (c - 8));
    snprintf(n, sizeof n, "%swe_o", m);
    assert_int_equal(first_cycle(d, n, 1, 0), 24);
    for (uint64_t c = 24; c <= 29; c++)
        assert_int_equal(in_cycle(d, n, c), 1);
    assert_int_equal(in_cycle(d, n, 30), 0);
    assert_int_equal(find_var(d, n)->n, 3);     /* 0, 1 in 24 .. 29, 0 */
    snprintf(n, sizeof n, "%sbusy_o", m);
    assert_int_equal(in_cycle(d, n, 29), 1);
    assert_int_equal(in_cycle(d, n, 30), 0);
    /* the MXU never waits: the stream starts while its load is reading */
    assert_int_equal(find_var(d, "TOP.core.cmodel.mxu0_stall")->n, 1);
    assert_int_equal(first_cycle(d, "TOP.core.u_seq.sem_q[2]", 1, 0), 30);
    run_free(&r);
}

/* mxu_wloads = 2: lw_reading_q has a bit per load slot.  Three loads
 * issued in 2, 3, 4 start in 3 (slot 0), 4 (slot 1) and, when slot 0 is
 * free again, 11 (slot 0); each sets its bit while it reads rows 1 .. 7. */
static void test_mxu_load_slots(void **state)
{
    (void)state;
    static const char prog[] =
        "        li      s1, 0\n"
        "        li      s2, 16\n"
        "        mxu.lw  0, s1, s2, 1\n"
        "        mxu.lw  0, s1, s2, 1\n"
        "        mxu.lw  0, s1, s2, 1\n"
        "        halt\n";
    tpu_config cfg = tiny();
    char err[256];
    assert_int_equal(tpu_config_set(&cfg, "mxu_wloads=2", err, sizeof err), 0);
    run r;
    run_vcd_cfg(&r, &cfg, prog, 1, NULL, TPU_STOP_HALT);
    const char *n = "TOP.core.g_mxu[0].u_mxu.lw_reading_q";
    assert_int_equal(find_var(&r.d, n)->width, 2);
    static const struct { uint64_t from, to, bits; } want[] = {
        { 0, 3, 0 }, { 4, 4, 1 }, { 5, 10, 3 }, { 11, 11, 2 }, { 12, 18, 1 }, { 19, 30, 0 },
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        for (uint64_t c = want[i].from; c <= want[i].to; c++)
            if (in_cycle(&r.d, n, c) != want[i].bits)
                fail_msg("cycle %llu: lw_reading_q %llu, want %llu", (unsigned long long)c,
                         (unsigned long long)in_cycle(&r.d, n, c), (unsigned long long)want[i].bits);
    /* the third load waited for a slot in 5 .. 10 (reason 0, + 1) */
    assert_int_equal(first_cycle(&r.d, "TOP.core.cmodel.mxu0_stall", 1, 0), 5);
    assert_int_equal(first_cycle(&r.d, "TOP.core.cmodel.mxu0_stall", 0, 5), 11);
    run_free(&r);
}

static void test_error_and_stuck(void **state)
{
    (void)state;
    static const char prog[] =
        "        sem.wait 3, 1\n"
        "        halt\n";
    run r;
    run_vcd(&r, prog, 1, NULL, TPU_STOP_ERROR);
    vcd *d = &r.d;
    assert_int_equal(in_cycle(d, "TOP.core.error_o", 0), 1);
    assert_int_equal(in_cycle(d, "TOP.core.stuck_o", 0), 1);
    assert_int_equal(in_cycle(d, "TOP.core.tr_stall_o", 0), 2);
    run_free(&r);
}

/* Two cores: the RTL's system scopes. */
static void test_two_cores(void **state)
{
    (void)state;
    run r;
    run_vcd(&r, dma_prog, 2, NULL, TPU_STOP_HALT);
    vcd *d = &r.d;
    assert_int_equal(find_var(d, "TOP.system.clk_i")->width, 1);
    assert_int_equal(find_var(d, "TOP.system.g_core[0].u_core.u_seq.pc_q")->width, 64);
    assert_int_equal(first_cycle(d, "TOP.system.g_core[1].u_core.u_seq.sem_q[0]", 1, 0), 29);
    assert_int_equal(first_cycle(d, "TOP.system.g_core[1].u_core.u_dma.state_q[0]", 1, 0), 6);
    run_free(&r);
}

/* max_cycles: the dump stops, says so, and stays a valid VCD. */
static void test_max_cycles(void **state)
{
    (void)state;
    tpu_vcd_opts o = { .max_cycles = 10 };
    run r;
    run_vcd(&r, dma_prog, 1, &o, TPU_STOP_HALT);
    assert_true(r.d.has_comment_stop);
    assert_true(r.d.last_time <= 100);
    assert_true(tpu_vcd_truncated(r.tr.vcd));
    assert_int_equal(in_cycle(&r.d, "TOP.core.u_seq.pc_q", 10), 5);
    run_free(&r);
}

/* The saved GTKWave views name signals the VCD has (on v5e: 4 MXUs, 4
 * DMA engines), as GTKWave writes them: NAME plus [W-1:0] for vectors.
 * rtl.gtkw lists the same RTL names without the C model's own. */
static void check_view(const vcd *d, const char *path, int cmodel_only_allowed)
{
    FILE *f = fopen(path, "r");
    if (!f)
        fail_msg("cannot open %s (run the tests from the repository root)", path);
    char line[512];
    int n = 0;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        if (!line[0] || strchr("@[*-", line[0]))
            continue;
        int found = 0;
        for (size_t i = 0; i < d->nv && !found; i++) {
            char full[200];
            if (d->v[i].width > 1)
                snprintf(full, sizeof full, "%s[%u:0]", d->v[i].name, d->v[i].width - 1);
            else
                snprintf(full, sizeof full, "%s", d->v[i].name);
            found = !strcmp(full, line);
        }
        if (!found)
            fail_msg("%s: no signal %s in the C model's VCD", path, line);
        if (!cmodel_only_allowed && strstr(line, ".cmodel."))
            fail_msg("%s: %s is not an RTL signal", path, line);
        n++;
    }
    fclose(f);
    assert_true(n > 40);
}

static void test_gtkwave_views(void **state)
{
    (void)state;
    run r;
    memset(&r, 0, sizeof r);
    char err[512];
    tpu_config cfg;
    tpu_config_defaults(&cfg);
    assert_int_equal(tpu_config_load(&cfg, "v5e", err, sizeof err), 0);
    r.cfg = cfg;
    tpu_asm_options ao = { .config = &r.cfg };
    tpu_asm_result ar;
    assert_int_equal(tpu_asm_assemble(dma_prog, strlen(dma_prog), "t.s", &ao, &r.obj, &ar), 0);
    tpu_asm_result_free(&ar);
    tpu_system_opts so = { .cores = 1 };
    r.sys = tpu_system_create(&r.cfg, &so, err, sizeof err);
    assert_non_null(r.sys);
    assert_int_equal(tpu_system_load(r.sys, &r.obj, err, sizeof err), 0);
    snprintf(r.path, sizeof r.path, "/tmp/test_vcd_XXXXXX");
    int fd = mkstemp(r.path);
    assert_true(fd >= 0);
    close(fd);
    r.tr.vcd = tpu_vcd_open(r.path, r.sys, NULL, err, sizeof err);
    assert_non_null(r.tr.vcd);
    assert_int_equal(tpu_trace_run(r.sys, 100000, &r.tr), TPU_STOP_HALT);
    assert_int_equal(tpu_trace_close(&r.tr, err, sizeof err), 0);
    read_vcd(r.path, &r.d);
    check_view(&r.d, "sim/gtkwave/cmodel.gtkw", 1);
    check_view(&r.d, "sim/gtkwave/rtl.gtkw", 0);
    run_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_header_names_and_widths),
        cmocka_unit_test(test_clock_and_sequencer),
        cmocka_unit_test(test_dma_engine_and_semaphore),
        cmocka_unit_test(test_mxu_stream),
        cmocka_unit_test(test_mxu_load_slots),
        cmocka_unit_test(test_error_and_stuck),
        cmocka_unit_test(test_two_cores),
        cmocka_unit_test(test_max_cycles),
        cmocka_unit_test(test_gtkwave_views),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
