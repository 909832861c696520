/*
 * test_timeline.c - the Chrome trace-event file of `tpu-sim --timeline`
 * (sim/view/timeline.c): it is valid JSON, every slice sits on a track named
 * by a metadata event and has a start and a duration, the counters are
 * there, and the slices of a DMA, an MXU load and stream, the VPU and the
 * sequencer start and last exactly when docs/timing.md says.  The file is
 * parsed back by a small JSON reader below.
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
#include "timeline.h"
#include "tpu.h"
#include "trace.h"

/* ---- a small JSON reader ---------------------------------------------------------- */

enum jtype { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ };

typedef struct jv {
    enum jtype type;
    double num;
    char *str;              /* J_STR */
    struct jv *item;        /* J_ARR, J_OBJ: n values */
    char **key;             /* J_OBJ: n keys */
    size_t n;
} jv;

typedef struct jparser {
    const char *p, *end;
    int bad;
} jparser;

static void jws(jparser *j)
{
    while (j->p < j->end && (*j->p == ' ' || *j->p == '\n' || *j->p == '\r' || *j->p == '\t'))
        j->p++;
}

static char *jstring(jparser *j)
{
    if (j->p >= j->end || *j->p != '"') {
        j->bad = 1;
        return NULL;
    }
    j->p++;
    size_t cap = 16, n = 0;
    char *s = malloc(cap);
    while (j->p < j->end && *j->p != '"') {
        char c = *j->p++;
        if ((unsigned char)c < 0x20) {
            j->bad = 1;
            break;
        }
        if (c == '\\') {
            if (j->p >= j->end) {
                j->bad = 1;
                break;
            }
            char e = *j->p++;
            if (e == 'u') {
                if (j->end - j->p < 4) {
                    j->bad = 1;
                    break;
                }
                for (int i = 0; i < 4; i++)
                    if (!strchr("0123456789abcdefABCDEF", j->p[i]))
                        j->bad = 1;
                c = '?';
                j->p += 4;
            } else if (strchr("\"\\/bfnrt", e)) {
                c = e == 'n' ? '\n' : e == 't' ? '\t' : e;
            } else {
                j->bad = 1;
                break;
            }
        }
        if (n + 2 > cap)
            s = realloc(s, cap *= 2);
        s[n++] = c;
    }
    if (j->p >= j->end)
        j->bad = 1;
    else
        j->p++;
    s[n] = 0;
    return s;
}

static void jvalue(jparser *j, jv *v, int depth);

static void jcontainer(jparser *j, jv *v, int obj, int depth)
{
    char close = obj ? '}' : ']';
    size_t cap = 0;
    v->type = obj ? J_OBJ : J_ARR;
    j->p++;
    jws(j);
    if (j->p < j->end && *j->p == close) {
        j->p++;
        return;
    }
    for (;;) {
        if (v->n == cap) {
            cap = cap ? 2 * cap : 8;
            v->item = realloc(v->item, cap * sizeof *v->item);
            if (obj)
                v->key = realloc(v->key, cap * sizeof *v->key);
        }
        jws(j);
        if (obj) {
            v->key[v->n] = jstring(j);
            jws(j);
            if (j->bad || j->p >= j->end || *j->p != ':') {
                j->bad = 1;
                if (!v->key[v->n])
                    return;
                free(v->key[v->n]);
                return;
            }
            j->p++;
        }
        memset(&v->item[v->n], 0, sizeof v->item[0]);
        jvalue(j, &v->item[v->n], depth + 1);
        v->n++;
        if (j->bad)
            return;
        jws(j);
        if (j->p < j->end && *j->p == ',') {
            j->p++;
            continue;
        }
        if (j->p < j->end && *j->p == close) {
            j->p++;
            return;
        }
        j->bad = 1;
        return;
    }
}

static void jvalue(jparser *j, jv *v, int depth)
{
    jws(j);
    if (j->p >= j->end || depth > 64) {
        j->bad = 1;
        return;
    }
    char c = *j->p;
    if (c == '{' || c == '[') {
        jcontainer(j, v, c == '{', depth);
    } else if (c == '"') {
        v->type = J_STR;
        v->str = jstring(j);
    } else if (!strncmp(j->p, "true", 4) || !strncmp(j->p, "null", 4)) {
        v->type = c == 't' ? J_BOOL : J_NULL;
        v->num = c == 't';
        j->p += 4;
    } else if (!strncmp(j->p, "false", 5)) {
        v->type = J_BOOL;
        j->p += 5;
    } else if (c == '-' || (c >= '0' && c <= '9')) {
        char *end;
        v->type = J_NUM;
        v->num = strtod(j->p, &end);
        if (end == j->p)
            j->bad = 1;
        j->p = end;
    } else {
        j->bad = 1;
    }
}

static void jfree(jv *v)
{
    for (size_t i = 0; i < v->n; i++) {
        jfree(&v->item[i]);
        if (v->key)
            free(v->key[i]);
    }
    free(v->item);
    free(v->key);
    free(v->str);
}

static const jv *jget(const jv *o, const char *key)
{
    if (!o || o->type != J_OBJ)
        return NULL;
    for (size_t i = 0; i < o->n; i++)
        if (o->key[i] && !strcmp(o->key[i], key))
            return &o->item[i];
    return NULL;
}

/* Parse a whole file; fails the test unless it is one valid JSON value. */
static void jparse_file(const char *path, jv *root)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)len + 1);
    assert_int_equal(fread(buf, 1, (size_t)len, f), (size_t)len);
    fclose(f);
    jparser j = { buf, buf + len, 0 };
    memset(root, 0, sizeof *root);
    jvalue(&j, root, 0);
    jws(&j);
    if (j.bad || j.p != j.end)
        fail_msg("%s is not valid JSON (at byte %ld)", path, (long)(j.p - buf));
    free(buf);
}

/* ---- running a program --------------------------------------------------------------- */

typedef struct run {
    tpu_config cfg;
    tpu_object obj;
    tpu_system *sys;
    tpu_trace tr;
    char path[64];
    jv root;
    tpu_stats st;
} run;

static tpu_config tiny(void)
{
    tpu_config c;
    char err[256];
    tpu_config_defaults(&c);
    assert_int_equal(tpu_config_load(&c, "tiny", err, sizeof err), 0);
    return c;
}

/* Assemble src for cfg, run it to halt with a timeline, parse the file. */
static void run_timeline(run *r, const char *src, const tpu_config *cfg, unsigned cores,
                         const tpu_timeline_opts *opts)
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
    snprintf(r->path, sizeof r->path, "/tmp/test_timeline_XXXXXX");
    int fd = mkstemp(r->path);
    assert_true(fd >= 0);
    close(fd);
    r->tr.tl = tpu_timeline_open(r->path, r->sys, opts, err, sizeof err);
    assert_non_null(r->tr.tl);
    assert_int_equal(tpu_trace_run(r->sys, 100000, &r->tr), TPU_STOP_HALT);
    assert_int_equal(tpu_trace_close(&r->tr, err, sizeof err), 0);
    tpu_core_stats(tpu_system_core(r->sys, 0), &r->st);
    jparse_file(r->path, &r->root);
}

static void run_free(run *r)
{
    tpu_system_destroy(r->sys);
    tpu_trace_free(&r->tr);
    tpu_obj_free(&r->obj);
    jfree(&r->root);
    unlink(r->path);
}

/* ---- the structural check ---------------------------------------------------------------- */

#define MAX_TRACKS 256

typedef struct tracks {
    double pid[MAX_TRACKS], tid[MAX_TRACKS];
    const char *name[MAX_TRACKS];
    size_t n;
} tracks;

static const char *track_name(const tracks *t, double pid, double tid)
{
    for (size_t i = 0; i < t->n; i++)
        if (t->pid[i] == pid && t->tid[i] == tid)
            return t->name[i];
    return NULL;
}

static const char *str_of(const jv *v)
{
    return v && v->type == J_STR ? v->str : NULL;
}

static double num_of(const jv *v)
{
    if (!v || v->type != J_NUM)
        fail_msg("a number is missing");
    return v->num;
}

/* Every event has a phase; metadata names every track; every slice is on
 * a named track with a name, a start >= 0 and a duration >= 1; counters
 * have a name, a start and numeric args.  Returns the counts. */
static void check_structure(const jv *root, tracks *t, size_t *nslices, size_t *ncounters)
{
    assert_int_equal(root->type, J_OBJ);
    const jv *ev = jget(root, "traceEvents");
    assert_non_null(ev);
    assert_int_equal(ev->type, J_ARR);
    const jv *other = jget(root, "otherData");
    assert_non_null(other);
    assert_non_null(jget(other, "clock_hz"));
    t->n = 0;
    for (size_t i = 0; i < ev->n; i++) {
        const jv *e = &ev->item[i];
        const char *ph = str_of(jget(e, "ph"));
        assert_non_null(ph);
        if (!strcmp(ph, "M") && !strcmp(str_of(jget(e, "name")), "thread_name")) {
            assert_true(t->n < MAX_TRACKS);
            t->pid[t->n] = num_of(jget(e, "pid"));
            t->tid[t->n] = num_of(jget(e, "tid"));
            t->name[t->n] = str_of(jget(jget(e, "args"), "name"));
            assert_non_null(t->name[t->n]);
            t->n++;
        }
    }
    *nslices = *ncounters = 0;
    for (size_t i = 0; i < ev->n; i++) {
        const jv *e = &ev->item[i];
        const char *ph = str_of(jget(e, "ph"));
        if (!strcmp(ph, "X")) {
            double pid = num_of(jget(e, "pid")), tid = num_of(jget(e, "tid"));
            if (!track_name(t, pid, tid))
                fail_msg("slice %zu is on track (%g, %g), which has no name", i, pid, tid);
            assert_non_null(str_of(jget(e, "name")));
            assert_true(num_of(jget(e, "ts")) >= 0);
            assert_true(num_of(jget(e, "dur")) >= 1);
            (*nslices)++;
        } else if (!strcmp(ph, "C")) {
            assert_non_null(str_of(jget(e, "name")));
            assert_true(num_of(jget(e, "ts")) >= 0);
            const jv *args = jget(e, "args");
            assert_non_null(args);
            assert_int_equal(args->type, J_OBJ);
            assert_true(args->n >= 1);
            assert_int_equal(args->item[0].type, J_NUM);
            (*ncounters)++;
        } else {
            assert_true(!strcmp(ph, "M") || !strcmp(ph, "i"));
        }
    }
}

/* The first slice on the named track whose name starts with `prefix`,
 * after skipping `skip` matches. */
static const jv *find_slice(const jv *root, const tracks *t, const char *track,
                            const char *prefix, int skip)
{
    const jv *ev = jget(root, "traceEvents");
    for (size_t i = 0; i < ev->n; i++) {
        const jv *e = &ev->item[i];
        if (strcmp(str_of(jget(e, "ph")), "X"))
            continue;
        const char *tn = track_name(t, num_of(jget(e, "pid")), num_of(jget(e, "tid")));
        if (tn && !strcmp(tn, track) && !strncmp(str_of(jget(e, "name")), prefix, strlen(prefix))
            && skip-- == 0)
            return e;
    }
    return NULL;
}

static size_t count_slices(const jv *root, const tracks *t, const char *track)
{
    size_t n = 0;
    const jv *ev = jget(root, "traceEvents");
    for (size_t i = 0; i < ev->n; i++) {
        const jv *e = &ev->item[i];
        if (strcmp(str_of(jget(e, "ph")), "X"))
            continue;
        const char *tn = track_name(t, num_of(jget(e, "pid")), num_of(jget(e, "tid")));
        if (tn && !strcmp(tn, track))
            n++;
    }
    return n;
}

static int has_counter(const jv *root, const char *name)
{
    const jv *ev = jget(root, "traceEvents");
    for (size_t i = 0; i < ev->n; i++)
        if (!strcmp(str_of(jget(&ev->item[i], "ph")), "C")
            && !strcmp(str_of(jget(&ev->item[i], "name")), name))
            return 1;
    return 0;
}

static void assert_slice(const jv *e, double ts, double dur)
{
    assert_non_null(e);
    assert_int_equal((long)num_of(jget(e, "ts")), (long)ts);
    assert_int_equal((long)num_of(jget(e, "dur")), (long)dur);
}

/* ---- the programs ------------------------------------------------------------------------ */

/* tiny: a 64-byte DMA issued in cycle 4 starts in 5, waits L = 20 cycles
 * and moves 16 bytes per cycle in 25 .. 28 (T13-T18); sem.wait issues in
 * 29, halt in 30. */
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

/* tiny (N = 8): mxu.lw issued in 2 starts in 3 and reads rows in 3 .. 10
 * (T19, T20); mxu.mm issued in 7 starts in 8 (T21: it does not wait for
 * the weights) and reads its 6 rows in 8 .. 13; its last row is written in
 * 13 + 2N = 29 (T24).  Then three VPU instructions: vld, vadd (VL = 2
 * after it), vst. */
static const char mxu_prog[] =
    "        li      s1, 0\n"
    "        li      s2, 16\n"
    "        mxu.lw  0, s1, s2, 1\n"
    "        li      s3, 256\n"
    "        li      s4, 1024\n"
    "        li      s5, 6\n"
    "        li      s6, 32\n"
    "        mxu.mm  0, s4, s3, s5, s2, s6, 2\n"
    "        sem.wait 2, 1\n"
    "        li      s7, 2048\n"
    "        vld     v0, s7, 0\n"
    "        vadd    v1, v0, v0\n"
    "        vst     v1, s7, 256\n"
    "        halt\n"
    "        .vmem 0\n"
    "        .random bf16, 64, 1\n"
    "        .vmem 256\n"
    "        .random bf16, 48, 2\n"
    "        .vmem 2048\n"
    "        .random f32, 64, 3\n";

/* ---- tests ------------------------------------------------------------------------------------ */

static void test_structure_and_dma_slices(void **state)
{
    (void)state;
    tpu_config cfg = tiny();
    run r;
    run_timeline(&r, dma_prog, &cfg, 1, NULL);
    tracks t;
    size_t ns, nc;
    check_structure(&r.root, &t, &ns, &nc);
    assert_true(ns > 0);
    assert_true(nc > 0);
    assert_true(has_counter(&r.root, "HBM bytes/cycle"));
    assert_true(has_counter(&r.root, "MXU utilisation"));
    assert_true(has_counter(&r.root, "VMEM bytes/cycle"));
    /* the tracks of tiny: seq, 2 DMA engines, mxu0's two, vpu, the stall tracks */
    assert_non_null(track_name(&t, 0, 1));
    assert_string_equal(track_name(&t, 0, 1), "seq");
    assert_string_equal(track_name(&t, 0, 10), "dma engine 0");
    assert_string_equal(track_name(&t, 0, 11), "dma engine 1");
    assert_null(track_name(&t, 0, 12));
    assert_string_equal(track_name(&t, 0, 30), "mxu0 weights");
    assert_string_equal(track_name(&t, 0, 31), "mxu0 stream");
    assert_null(track_name(&t, 0, 50));            /* one core: no ICI port is wired */

    /* one slice per issued instruction, in its issue cycle */
    size_t issued = 0;
    const jv *ev = jget(&r.root, "traceEvents");
    for (size_t i = 0; i < ev->n; i++) {
        const jv *e = &ev->item[i];
        if (!strcmp(str_of(jget(e, "ph")), "X") && num_of(jget(e, "tid")) == 1
            && strncmp(str_of(jget(e, "name")), "stall", 5))
            issued++;
    }
    assert_int_equal(issued, r.st.instructions);
    assert_slice(find_slice(&r.root, &t, "seq", "dma.h2v", 0), 4, 1);
    assert_slice(find_slice(&r.root, &t, "seq", "sem.wait", 0), 29, 1);
    assert_slice(find_slice(&r.root, &t, "seq", "halt", 0), 30, 1);
    assert_slice(find_slice(&r.root, &t, "seq", "stall: sem.wait", 0), 5, 24);
    /* the transfer, its latency and its bytes */
    const jv *d = find_slice(&r.root, &t, "dma engine 0", "dma.h2v", 0);
    assert_slice(d, 5, 24);
    assert_int_equal((long)num_of(jget(jget(d, "args"), "bytes")), 64);
    assert_int_equal((long)num_of(jget(jget(d, "args"), "pc")), 4);
    assert_slice(find_slice(&r.root, &t, "dma engine 0", "latency", 0), 5, 20);
    assert_slice(find_slice(&r.root, &t, "dma engine 0", "transfer", 0), 25, 4);
    assert_int_equal(count_slices(&r.root, &t, "dma engine 1"), 0);

    const jv *other = jget(&r.root, "otherData");
    assert_int_equal((long)num_of(jget(other, "cycles")), 31);
    assert_int_equal(jget(other, "truncated")->type, J_BOOL);
    assert_true(jget(other, "truncated")->num == 0);
    run_free(&r);
}

/* tiny with mxu_wloads = 2: three mxu.lw issued in 2, 3, 4 start in 3, 4
 * (two loads in flight, T19) and 11 (when the first has read its N = 8
 * rows).  The two overlapping loads go on two tracks, the third back on
 * the first: each load on the lowest free track, as the MXU's slots. */
static void test_overlapping_loads_on_their_own_tracks(void **state)
{
    (void)state;
    tpu_config cfg = tiny();
    cfg.mxu_wloads = 2;
    static const char prog[] =
        "        li      s1, 0\n"
        "        li      s2, 16\n"
        "        mxu.lw  0, s1, s2, 1\n"
        "        mxu.lw  0, s1, s2, 1\n"
        "        mxu.lw  0, s1, s2, 1\n"
        "        sem.wait 1, 3\n"
        "        halt\n";
    run r;
    run_timeline(&r, prog, &cfg, 1, NULL);
    tracks t;
    size_t ns, nc;
    check_structure(&r.root, &t, &ns, &nc);
    assert_string_equal(track_name(&t, 0, 1001), "mxu0 weights 1");
    assert_null(track_name(&t, 0, 1002));
    assert_int_equal(count_slices(&r.root, &t, "mxu0 weights"), 2);
    assert_int_equal(count_slices(&r.root, &t, "mxu0 weights 1"), 1);
    assert_slice(find_slice(&r.root, &t, "mxu0 weights", "mxu.lw", 0), 3, 8);
    assert_slice(find_slice(&r.root, &t, "mxu0 weights 1", "mxu.lw", 0), 4, 8);
    assert_slice(find_slice(&r.root, &t, "mxu0 weights", "mxu.lw", 1), 11, 8);
    run_free(&r);
}

static void test_mxu_and_vpu_slices(void **state)
{
    (void)state;
    tpu_config cfg = tiny();
    run r;
    run_timeline(&r, mxu_prog, &cfg, 1, NULL);
    tracks t;
    size_t ns, nc;
    check_structure(&r.root, &t, &ns, &nc);
    assert_slice(find_slice(&r.root, &t, "mxu0 weights", "mxu.lw", 0), 3, 8);
    const jv *s = find_slice(&r.root, &t, "mxu0 stream", "mxu.mm", 0);
    assert_slice(s, 8, 6);
    assert_int_equal((long)num_of(jget(jget(s, "args"), "rows")), 6);
    assert_int_equal((long)num_of(jget(jget(s, "args"), "last_row_written")), 29);
    assert_int_equal(count_slices(&r.root, &t, "stall: mxu0"), 0);   /* the MXU never waited */
    /* sem.wait issues in 30, li in 31, vld in 32: the VPU takes it in 33
     * (T4); vadd needs v0 VL = 2 cycles later, 35 (T27), stalling in 34;
     * vst needs v1 in 37, stalling in 36; halt waits for the VPU (T8) */
    assert_slice(find_slice(&r.root, &t, "seq", "sem.wait", 0), 30, 1);
    assert_slice(find_slice(&r.root, &t, "vpu", "vld", 0), 33, 1);
    assert_slice(find_slice(&r.root, &t, "vpu", "vadd", 0), 35, 1);
    assert_slice(find_slice(&r.root, &t, "vpu", "vst", 0), 37, 1);
    assert_slice(find_slice(&r.root, &t, "stall: vpu", "stall: vreg hazard", 0), 34, 1);
    assert_slice(find_slice(&r.root, &t, "stall: vpu", "stall: vreg hazard", 1), 36, 1);
    assert_slice(find_slice(&r.root, &t, "seq", "halt", 0), 38, 1);
    assert_int_equal(count_slices(&r.root, &t, "vpu"), 3);
    run_free(&r);
}

/* The counters: bytes per cycle over each window, MXU utilisation. */
static void test_counters_are_windows(void **state)
{
    (void)state;
    tpu_config cfg = tiny();
    tpu_timeline_opts o = { .counter_every = 10 };
    run r;
    run_timeline(&r, dma_prog, &cfg, 1, &o);
    const jv *ev = jget(&r.root, "traceEvents");
    double total = 0, last_ts = -1;
    int n = 0;
    for (size_t i = 0; i < ev->n; i++) {
        const jv *e = &ev->item[i];
        if (strcmp(str_of(jget(e, "ph")), "C") || strcmp(str_of(jget(e, "name")), "HBM bytes/cycle"))
            continue;
        double ts = num_of(jget(e, "ts"));
        double v = num_of(jget(jget(e, "args"), "bytes/cycle"));
        assert_true(ts > last_ts);
        /* windows [0,10) [10,20) [20,30) [30,31) */
        double win = ts < 30 ? 10 : 1;
        total += v * win;
        last_ts = ts;
        n++;
    }
    assert_int_equal(n, 4);
    assert_true(total > 63.9 && total < 64.1);  /* the 64 bytes of the DMA */
    run_free(&r);
}

/* The slice cap: the file stays valid, says it was truncated. */
static void test_slice_cap(void **state)
{
    (void)state;
    tpu_config cfg = tiny();
    tpu_timeline_opts o = { .max_slices = 5, .counter_every = 1, .max_counter_samples = 4 };
    run r;
    run_timeline(&r, mxu_prog, &cfg, 1, &o);
    tracks t;
    size_t ns, nc;
    check_structure(&r.root, &t, &ns, &nc);
    assert_int_equal(ns, 5);
    assert_true(tpu_timeline_truncated(r.tr.tl));
    const jv *other = jget(&r.root, "otherData");
    assert_true(jget(other, "truncated")->num == 1);
    /* the window doubles after every 4 samples: 4 x 1, 4 x 2, 4 x 4
     * cycles, then 8 for the rest of the 42 cycles */
    assert_int_equal((long)num_of(jget(other, "counter_every_cycles_last")), 8);
    assert_int_equal(nc, 3 * (4 + 4 + 4 + 2));
    run_free(&r);
}

/* Two cores: one process each, ICI ports on their tracks. */
static void test_two_cores_ici(void **state)
{
    (void)state;
    tpu_config cfg = tiny();
    static const char ici_prog[] =
        "        li      s1, 0\n"
        "        li      s2, 4096\n"
        "        li      s3, 64\n"
        "        dma.ici 0, s2, s1, s3, 1, 2\n"
        "        sem.wait 1, 1\n"
        "        sem.wait 2, 1\n"
        "        halt\n"
        "        .vmem 0\n"
        "        .random f32, 16, 1\n";
    run r;
    run_timeline(&r, ici_prog, &cfg, 2, NULL);
    tracks t;
    size_t ns, nc;
    check_structure(&r.root, &t, &ns, &nc);
    assert_string_equal(track_name(&t, 1, 1), "seq");
    assert_non_null(track_name(&t, 0, 50));
    assert_non_null(track_name(&t, 1, 50));
    const jv *s = find_slice(&r.root, &t, "ici port 0", "dma.ici", 0);
    assert_non_null(s);
    assert_int_equal((long)num_of(jget(jget(s, "args"), "bytes")), 64);
    /* 64 bytes at 4 bytes per cycle (T30) */
    assert_int_equal((long)num_of(jget(s, "dur")), 16);
    run_free(&r);
}

static void test_open_fails_cleanly(void **state)
{
    (void)state;
    tpu_config cfg = tiny();
    char err[512];
    tpu_system_opts so = { .cores = 1 };
    tpu_system *s = tpu_system_create(&cfg, &so, err, sizeof err);
    assert_non_null(s);
    err[0] = 0;
    assert_null(tpu_timeline_open("/nonexistent-dir/x.json", s, NULL, err, sizeof err));
    assert_non_null(strstr(err, "/nonexistent-dir/x.json"));
    tpu_trace tr;
    assert_int_equal(tpu_trace_open(&tr, s, NULL, "/nonexistent-dir/x.vcd", err, sizeof err), -1);
    assert_non_null(strstr(err, "x.vcd"));
    tpu_system_destroy(s);
    tpu_trace_free(&tr);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_structure_and_dma_slices),
        cmocka_unit_test(test_mxu_and_vpu_slices),
        cmocka_unit_test(test_overlapping_loads_on_their_own_tracks),
        cmocka_unit_test(test_counters_are_windows),
        cmocka_unit_test(test_slice_cap),
        cmocka_unit_test(test_two_cores_ici),
        cmocka_unit_test(test_open_fails_cleanly),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
