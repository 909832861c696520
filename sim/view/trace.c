/*
 * trace.c - open, feed and close the timeline, the VCD and the replay
 * page together (trace.h).
 */
#include "trace.h"

#include <stdio.h>

#include "interrupt.h"
#include "run.h"

int tpu_trace_open(tpu_trace *t, tpu_system *s, const char *timeline_path, const char *vcd_path,
                   char *err, size_t errlen)
{
    t->tl = NULL;
    t->vcd = NULL;
    t->html = NULL;
    if (timeline_path && !(t->tl = tpu_timeline_open(timeline_path, s, NULL, err, errlen)))
        return -1;
    if (vcd_path && !(t->vcd = tpu_vcd_open(vcd_path, s, NULL, err, errlen))) {
        char ignored[64];
        if (t->tl)      /* closed, but subscribed: tpu_trace_free frees it */
            tpu_timeline_close(t->tl, ignored, sizeof ignored);
        return -1;
    }
    return 0;
}

int tpu_trace_open_html(tpu_trace *t, tpu_system *s, const char *path, const tpu_html_opts *o,
                        char *err, size_t errlen)
{
    if ((t->html = tpu_html_open(path, s, o, err, errlen)))
        return 0;
    char ignored[256];
    tpu_trace_close(t, ignored, sizeof ignored);
    return -1;
}

/* Cycles between two looks at Ctrl-C when nothing is traced. */
#define TRACE_SLICE 65536

static void show(void *ctx, tpu_system *s, uint64_t cycle)
{
    (void)s;
    tpu_progress_cycles_now(ctx, cycle);
}

enum tpu_stop tpu_trace_run(tpu_system *s, uint64_t max_cycles, tpu_trace *t)
{
    int stoppable = t && t->interruptible;
    tpu_progress *p = t ? t->progress : NULL;
    if (!t || (!t->tl && !t->vcd && !t->html)) {
        /* Nothing to write per cycle: run in slices (the cores may then run
         * on several threads, tpu_system_set_threads), looking at Ctrl-C
         * and showing progress between two (sim/run.h). */
        tpu_run_limits l = { .max_cycles = max_cycles, .slice = TRACE_SLICE,
                             .interruptible = stoppable, .progress = p ? show : NULL, .ctx = p };
        return tpu_run_slices(s, &l);
    }
    for (;;) {
        if (max_cycles && tpu_system_cycle(s) >= max_cycles)
            return tpu_system_run(s, max_cycles);   /* reports the limit, steps nothing */
        if (stoppable && tpu_interrupted())
            return TPU_STOP_BREAK;
        if (p)
            tpu_progress_cycles(p, tpu_system_cycle(s));
        if (t && t->html)
            tpu_html_before(t->html);
        enum tpu_stop r = tpu_system_step(s);
        if (t && t->html)
            tpu_html_cycle(t->html, r);
        if (t && t->tl)
            tpu_timeline_cycle(t->tl);
        if (t && t->vcd)
            tpu_vcd_cycle(t->vcd);
        if (r != TPU_RUNNING)
            return r;
    }
}

int tpu_trace_close(tpu_trace *t, char *err, size_t errlen)
{
    char second[256], third[256];
    int bad_tl = t->tl && tpu_timeline_close(t->tl, err, errlen);
    int bad_vcd = t->vcd && tpu_vcd_close(t->vcd, second, sizeof second);
    int bad_html = t->html && tpu_html_close(t->html, third, sizeof third);
    if (bad_vcd && !bad_tl)
        snprintf(err, errlen, "%s", second);
    else if (bad_html && !bad_tl && !bad_vcd)
        snprintf(err, errlen, "%s", third);
    return bad_tl || bad_vcd || bad_html ? -1 : 0;
}

void tpu_trace_free(tpu_trace *t)
{
    tpu_timeline_free(t->tl);
    tpu_vcd_free(t->vcd);
    tpu_html_free(t->html);
    t->tl = NULL;
    t->vcd = NULL;
    t->html = NULL;
}
