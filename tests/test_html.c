/*
 * test_html.c - the page of `tpu-sim --html` (sim/view/html.c) from the C
 * side: a whole page for a whole run, a window of cycles, the byte budget,
 * a window the run never reaches, two cores, a file that cannot be
 * created; the program's listing, the image of VMEM and its writes, and
 * the VMEM byte budget.  What the page shows in a browser is tests/html.sh's part (it
 * opens the page in Chromium and compares it with the stepper).
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
#include "html.h"
#include "tpu.h"
#include "trace.h"

/* tiny: a weight load, a stream of 6 rows, a semaphore, halt (as in
 * test_timeline.c). */
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
    "        halt\n"
    "        .vmem 0\n"
    "W:      .random bf16, 64, 1\n"
    "        .vmem 256\n"
    "X:      .random bf16, 48, 2\n";

typedef struct run {
    tpu_config cfg;
    tpu_object obj;
    tpu_system *sys;
    tpu_trace tr;
    char path[64];
    char *text;             /* the page */
    size_t len;
    enum tpu_stop stop;
} run;

/* Assemble mxu_prog for tiny, run it on `cores` cores with a page of
 * cycles first..end-1 (max_bytes, vmem_max_bytes 0: the defaults), read
 * the page back. */
static void run_page_vmem(run *r, unsigned cores, uint64_t first, uint64_t end,
                          uint64_t max_bytes, uint64_t vmem_max_bytes)
{
    memset(r, 0, sizeof *r);
    char err[512];
    tpu_config_defaults(&r->cfg);
    assert_int_equal(tpu_config_load(&r->cfg, "tiny", err, sizeof err), 0);
    tpu_asm_options ao = { .config = &r->cfg };
    tpu_asm_result ar;
    if (tpu_asm_assemble(mxu_prog, strlen(mxu_prog), "t.s", &ao, &r->obj, &ar))
        fail_msg("assembly failed: %s", ar.messages);
    tpu_asm_result_free(&ar);
    tpu_system_opts so = { .cores = cores,
                           .topology = cores > 1 ? TPU_TOPO_RING : TPU_TOPO_SINGLE };
    r->sys = tpu_system_create(&r->cfg, &so, err, sizeof err);
    assert_non_null(r->sys);
    assert_int_equal(tpu_system_load(r->sys, &r->obj, err, sizeof err), 0);
    snprintf(r->path, sizeof r->path, "/tmp/test_html_XXXXXX");
    int fd = mkstemp(r->path);
    assert_true(fd >= 0);
    close(fd);
    tpu_html_opts o = { .obj = &r->obj, .cfg = &r->cfg, .program = "t<1>.bin", .first = first,
                        .end = end, .max_bytes = max_bytes, .vmem_max_bytes = vmem_max_bytes };
    assert_int_equal(tpu_trace_open(&r->tr, r->sys, NULL, NULL, err, sizeof err), 0);
    assert_int_equal(tpu_trace_open_html(&r->tr, r->sys, r->path, &o, err, sizeof err), 0);
    r->stop = tpu_trace_run(r->sys, 100000, &r->tr);
    assert_int_equal(tpu_trace_close(&r->tr, err, sizeof err), 0);

    FILE *f = fopen(r->path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    r->len = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    r->text = malloc(r->len + 1);
    assert_non_null(r->text);
    assert_int_equal(fread(r->text, 1, r->len, f), r->len);
    r->text[r->len] = 0;
    fclose(f);
}

static void run_page(run *r, unsigned cores, uint64_t first, uint64_t end, uint64_t max_bytes)
{
    run_page_vmem(r, cores, first, end, max_bytes, 0);
}

static void run_free(run *r)
{
    tpu_system_destroy(r->sys);
    tpu_trace_free(&r->tr);
    tpu_obj_free(&r->obj);
    free(r->text);
    unlink(r->path);
}

/* How many recorded cycles the page holds: the arrays in its F.push(...)
 * calls, counted by their brackets. */
static size_t frames_in(const char *text)
{
    size_t n = 0;
    for (const char *p = text; (p = strstr(p, "<script>F.push(")); ) {
        p += strlen("<script>F.push(");
        int depth = 0;
        for (; *p && !(depth == 0 && *p == ')'); p++) {
            if (*p == '[' && depth++ == 0)
                n++;
            else if (*p == ']')
                depth--;
        }
    }
    return n;
}

static void assert_whole_page(const run *r)
{
    assert_true(r->len > 1000);
    assert_memory_equal(r->text, "<!DOCTYPE html>", 15);
    assert_string_equal(r->text + r->len - 8, "</html>\n");
    assert_non_null(strstr(r->text, "var META={"));
    assert_non_null(strstr(r->text, "var NT=["));
    assert_non_null(strstr(r->text, "var ST=["));
    assert_null(strstr(r->text, "t<1>.bin"));           /* '<' in the data is escaped */
    assert_non_null(strstr(r->text, "\"program\":\"t\\u003c1>.bin\""));
}

static void test_whole_run(void **state)
{
    (void)state;
    run r;
    run_page(&r, 1, 0, 0, 0);
    assert_int_equal(r.stop, TPU_STOP_HALT);
    assert_whole_page(&r);
    uint64_t cycles = tpu_system_cycle(r.sys);
    assert_int_equal(tpu_html_cycles(r.tr.html), cycles);
    assert_int_equal(tpu_html_first(r.tr.html), 0);
    assert_false(tpu_html_truncated(r.tr.html));
    assert_int_equal(frames_in(r.text), cycles);
    char want[96];
    snprintf(want, sizeof want, "\"first\":0,\"count\":%llu,\"window\":[0,null]",
             (unsigned long long)cycles);
    assert_non_null(strstr(r.text, want));
    assert_non_null(strstr(r.text, "\"stop\":\"halt\""));
    /* the stepper's texts: the status line without "cycle N: ", the unit
     * lines, the events from its breakpoints */
    assert_non_null(strstr(r.text, "\"issued pc 9: halt\""));
    assert_non_null(strstr(r.text, "\"seq   busy    issued pc 9: halt\""));
    assert_non_null(strstr(r.text,
                           "\"mxu0 starts pc 7 (mxu.mm 0, s4, s3, s5, s2, s6, 2): 6 rows\""));
    assert_non_null(strstr(r.text, "\"sem 2 = 1\""));
    assert_null(strstr(r.text, "breakpoint 1:"));
    /* the listing: every instruction as tpu-dis prints it; the VMEM labels
     * with the bytes up to the end of their data and how they look */
    assert_non_null(strstr(r.text, "var PROG={\"insns\":[\"li s1, 0\",\"li s2, 16\","
                                   "\"mxu.lw 0, s1, s2, 1\","));
    assert_non_null(strstr(r.text, "\"mxu.mm 0, s4, s3, s5, s2, s6, 2\",\"sem.wait 2, 1\","
                                   "\"halt\"],\"labels\":[],"));
    assert_non_null(strstr(r.text, "\"vlabels\":[[\"W\",0,128,\"bf16\"],[\"X\",256,96,\"bf16\"]]"));
    /* VMEM: its non-zero 64-byte blocks before cycle 0 (W, X), then the
     * six result rows the MXU writes (8 fp32 each) */
    assert_non_null(strstr(r.text, "<script>V0.push(0,\""));
    assert_non_null(strstr(r.text, "\",256,\""));
    assert_non_null(strstr(r.text, "VW.push("));
    assert_non_null(strstr(r.text, "\"vmem\":{\"size\":262144,\"max_bytes\":16777216,"
                                   "\"bytes\":448,\"image_bytes\":256,\"writes\":6,\"stop\":null}"));
    assert_true(tpu_html_vmem_stop(r.tr.html) == UINT64_MAX);
    run_free(&r);
}

/* The VMEM byte budget: the image (256 bytes) and one result row fit in
 * 300, the second row does not: from its cycle on nothing is recorded. */
static void test_vmem_budget(void **state)
{
    (void)state;
    run r;
    run_page_vmem(&r, 1, 0, 0, 0, 300);
    assert_whole_page(&r);
    assert_false(tpu_html_truncated(r.tr.html));        /* the cycles are all there */
    assert_int_equal(tpu_html_cycles(r.tr.html), tpu_system_cycle(r.sys));
    uint64_t stop = tpu_html_vmem_stop(r.tr.html);
    assert_true(stop > 0 && stop < tpu_system_cycle(r.sys));
    char want[160];
    snprintf(want, sizeof want, "\"max_bytes\":300,\"bytes\":288,\"image_bytes\":256,"
             "\"writes\":1,\"stop\":%llu}", (unsigned long long)stop);
    assert_non_null(strstr(r.text, want));
    assert_non_null(strstr(r.text, "<script>V0.push(0,\""));
    run_free(&r);

    /* an image larger than the budget: no VMEM at all, from the first cycle */
    run_page_vmem(&r, 1, 0, 0, 0, 100);
    assert_int_equal(tpu_html_vmem_stop(r.tr.html), 0);
    assert_null(strstr(r.text, "V0.push(0"));
    assert_null(strstr(r.text, "VW.push("));
    assert_non_null(strstr(r.text, "\"bytes\":0,\"image_bytes\":0,\"writes\":0,\"stop\":0}"));
    run_free(&r);

    /* a window: the image is VMEM as its first cycle starts */
    run_page(&r, 1, 30, 0, 0);
    assert_non_null(strstr(r.text, "<script>V0.push(0,\""));
    run_free(&r);
}

static void test_window(void **state)
{
    (void)state;
    run r;
    run_page(&r, 1, 10, 20, 0);
    assert_whole_page(&r);
    assert_int_equal(tpu_html_cycles(r.tr.html), 10);
    assert_int_equal(tpu_html_first(r.tr.html), 10);
    assert_int_equal(frames_in(r.text), 10);
    assert_non_null(strstr(r.text, "\"first\":10,\"count\":10,\"window\":[10,20]"));
    run_free(&r);
}

static void test_budget(void **state)
{
    (void)state;
    run r;
    run_page(&r, 1, 0, 0, 3000);
    assert_int_equal(r.stop, TPU_STOP_HALT);        /* the run goes on to its end */
    assert_whole_page(&r);
    assert_true(tpu_html_truncated(r.tr.html));
    uint64_t n = tpu_html_cycles(r.tr.html);
    assert_true(n > 0 && n < tpu_system_cycle(r.sys));
    assert_int_equal(frames_in(r.text), n);
    assert_non_null(strstr(r.text, "\"truncated\":true,\"max_bytes\":3000"));
    run_free(&r);
}

static void test_window_after_the_end(void **state)
{
    (void)state;
    run r;
    run_page(&r, 1, 100000, 0, 0);
    assert_whole_page(&r);
    assert_int_equal(tpu_html_cycles(r.tr.html), 0);
    assert_int_equal(frames_in(r.text), 0);
    assert_non_null(strstr(r.text, "\"count\":0"));
    run_free(&r);
}

static void test_two_cores(void **state)
{
    (void)state;
    run r;
    run_page(&r, 2, 0, 0, 0);
    assert_whole_page(&r);
    assert_int_equal(tpu_html_cycles(r.tr.html), tpu_system_cycle(r.sys));
    assert_non_null(strstr(r.text, "\"ncores\":2"));
    /* core 0's status line, its "core 0: cycle N: " taken off */
    assert_non_null(strstr(r.text, "\"issued pc 9: halt\""));
    assert_null(strstr(r.text, "\"core 0: cycle"));
    run_free(&r);
}

static void test_open_fails_cleanly(void **state)
{
    (void)state;
    tpu_config cfg;
    char err[512];
    tpu_config_defaults(&cfg);
    tpu_system_opts so = { .cores = 1 };
    tpu_system *s = tpu_system_create(&cfg, &so, err, sizeof err);
    assert_non_null(s);
    tpu_object obj;
    memset(&obj, 0, sizeof obj);
    tpu_html_opts o = { .obj = &obj, .cfg = &cfg };
    err[0] = 0;
    assert_null(tpu_html_open("/nonexistent-dir/x.html", s, &o, err, sizeof err));
    assert_non_null(strstr(err, "/nonexistent-dir/x.html: No such file or directory"));
    tpu_trace tr;
    assert_int_equal(tpu_trace_open(&tr, s, NULL, NULL, err, sizeof err), 0);
    assert_int_equal(tpu_trace_open_html(&tr, s, "/nonexistent-dir/y.html", &o, err, sizeof err),
                     -1);
    assert_non_null(strstr(err, "y.html"));
    tpu_system_destroy(s);
    tpu_trace_free(&tr);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_whole_run),
        cmocka_unit_test(test_window),
        cmocka_unit_test(test_budget),
        cmocka_unit_test(test_vmem_budget),
        cmocka_unit_test(test_window_after_the_end),
        cmocka_unit_test(test_two_cores),
        cmocka_unit_test(test_open_fails_cleanly),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
