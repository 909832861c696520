/*
 * run.c - assemble or take an object, load it, run it in slices, check it
 * (run.h).
 */
#include "run.h"

#include <stdio.h>
#include <string.h>

#include "interrupt.h"

enum tpu_stop tpu_run_slices(tpu_system *s, const tpu_run_limits *l)
{
    static const tpu_run_limits none;
    if (!l)
        l = &none;
    uint64_t max = l->max_cycles, slice = l->slice ? l->slice : TPU_RUN_SLICE;
    for (int first = 1;; first = 0) {
        uint64_t now = tpu_system_cycle(s), lim = now + slice;
        if (max && (now >= max || lim > max))
            lim = max;
        if (!first && l->progress)
            l->progress(l->ctx, s, now);
        if (l->interruptible && tpu_interrupted() && !(max && now >= max))
            return TPU_STOP_BREAK;
        enum tpu_stop stop = tpu_system_run(s, lim);
        if (stop != TPU_STOP_CYCLE_LIMIT || lim == max)
            return stop;
    }
}

void tpu_run_init(tpu_run *r)
{
    r->have_obj = 0;
    memset(&r->obj, 0, sizeof r->obj);
    r->sys = NULL;
    r->end = TPU_RUN_NOT_RUN;
    r->stop = TPU_RUNNING;
    r->nerrors = 0;
    r->error[0] = 0;
    r->cycles = 0;
    memset(&r->stats, 0, sizeof r->stats);
    r->checked = 0;
    memset(&r->expect, 0, sizeof r->expect);
}

int tpu_run_assemble(tpu_run *r, const char *src, size_t len, const char *name,
                     const tpu_asm_options *ao)
{
    tpu_asm_result ar;
    if (tpu_asm_assemble(src, len, name, ao, &r->obj, &ar)) {
        const char *m = ar.messages && ar.messages[0] ? ar.messages : "assembly failed";
        size_t n = strcspn(m, "\n");
        snprintf(r->error, sizeof r->error, "%.*s",
                 (int)(n < sizeof r->error ? n : sizeof r->error - 1), m);
        r->nerrors = ar.nerrors;
        r->end = TPU_RUN_ASM;
        tpu_asm_result_free(&ar);
        return -1;
    }
    tpu_asm_result_free(&ar);
    r->have_obj = 1;
    return 0;
}

void tpu_run_take(tpu_run *r, tpu_object *obj)
{
    r->obj = *obj;
    r->have_obj = 1;
    memset(obj, 0, sizeof *obj);
}

int tpu_run_create(tpu_run *r)
{
    char err[512];
    tpu_system_opts one = { .cores = 1, .topology = TPU_TOPO_SINGLE };
    r->sys = tpu_system_create(r->cfg, r->system ? r->system : &one, err, sizeof err);
    if (!r->sys) {
        snprintf(r->error, sizeof r->error, "%s", err);
        r->end = TPU_RUN_SYSTEM;
        return -1;
    }
    return 0;
}

int tpu_run_load(tpu_run *r)
{
    char err[512];
    if (!r->sys && tpu_run_create(r))
        return -1;
    if (tpu_system_load(r->sys, &r->obj, err, sizeof err)) {
        snprintf(r->error, sizeof r->error, "%s", err);
        r->end = TPU_RUN_LOAD;
        return -1;
    }
    return 0;
}

enum tpu_run_end tpu_run_go(tpu_run *r)
{
    tpu_system *s = r->sys;
    r->stop = r->runner ? r->runner(r->runner_ctx, s, &r->limits)
                        : tpu_run_slices(s, &r->limits);
    r->cycles = tpu_system_cycle(s);
    tpu_core *c = r->stats_core < tpu_system_ncores(s) ? tpu_system_core(s, r->stats_core)
                                                        : tpu_system_core(s, 0);
    tpu_core_stats(c, &r->stats);
    r->stats.cycles = r->cycles;
    r->error[0] = 0;
    const char *e = tpu_system_error(s);
    if (r->stop == TPU_STOP_HALT) {
        r->end = TPU_RUN_HALT;
        if (r->check) {
            tpu_system_check_via(s, &r->obj, r->check_read, r->check_ctx, &r->expect);
            r->checked = 1;
        }
    } else if (r->stop == TPU_STOP_BREAK && r->limits.interruptible && tpu_interrupted()) {
        r->end = TPU_RUN_INTERRUPTED;
        snprintf(r->error, sizeof r->error, "interrupted at cycle %llu",
                 (unsigned long long)r->cycles);
    } else {
        r->end = r->stop == TPU_STOP_CYCLE_LIMIT ? TPU_RUN_LIMIT : TPU_RUN_ERROR;
        snprintf(r->error, sizeof r->error, "%s", e ? e : "");
    }
    return r->end;
}

int tpu_run_passed(const tpu_run *r, int none_ok)
{
    return r->end == TPU_RUN_HALT && r->checked
           && (r->expect.status == TPU_EXPECT_PASS
               || (none_ok && r->expect.status == TPU_EXPECT_NONE));
}

void tpu_run_free(tpu_run *r)
{
    tpu_system_destroy(r->sys);
    r->sys = NULL;
    if (r->have_obj)
        tpu_obj_free(&r->obj);
    r->have_obj = 0;
}
