/*
 * sweep.c - assemble, run and check one program in-process (sweep.h).
 */
#include "sweep.h"

#include <stdio.h>
#include <string.h>

#include "expect.h"
#include "interrupt.h"
#include "objfile.h"

/* The first line of the assembler's messages. */
static void first_line(const char *msgs, char *dst, size_t len)
{
    size_t n = strcspn(msgs, "\n");
    snprintf(dst, len, "%.*s", (int)(n < len ? n : len - 1), msgs);
}

/* Run to halt (or error, or max_cycles) in slices of SWEEP_SLICE cycles:
 * between two, report the cycle and look at Ctrl-C. */
static enum tpu_stop run_sliced(tpu_sweep_run *r, tpu_system *s)
{
    for (;;) {
        uint64_t lim = tpu_system_cycle(s) + SWEEP_SLICE;
        if (r->max_cycles && lim > r->max_cycles)
            lim = r->max_cycles;
        enum tpu_stop stop = tpu_system_run(s, lim);
        if (stop != TPU_STOP_CYCLE_LIMIT || lim == r->max_cycles)
            return stop;
        if (r->progress)
            r->progress(r->progress_ctx, tpu_system_cycle(s));
        if (r->interruptible && tpu_interrupted()) {
            r->interrupted = 1;
            return stop;
        }
    }
}

int tpu_sweep_run_program(tpu_sweep_run *r)
{
    r->assembled = r->ok = r->interrupted = 0;
    r->error[0] = 0;
    r->ntext = r->cycles = 0;
    memset(&r->stats, 0, sizeof r->stats);

    tpu_asm_options ao = { .config = r->cfg, .defines = r->defines, .ndefines = r->ndefines,
                           .allow_include = 1 };
    tpu_object obj;
    tpu_asm_result ar;
    if (tpu_asm_assemble(r->source, r->source_len, r->filename, &ao, &obj, &ar)) {
        first_line(ar.messages && ar.messages[0] ? ar.messages : "assembly failed", r->error,
                   sizeof r->error);
        tpu_asm_result_free(&ar);
        return -1;
    }
    tpu_asm_result_free(&ar);
    r->assembled = 1;
    r->ntext = obj.ntext;

    char err[512];
    tpu_system_opts so = { .cores = 1, .topology = TPU_TOPO_SINGLE };
    tpu_system *s = tpu_system_create(r->cfg, r->system ? r->system : &so, err, sizeof err);
    if (!s) {
        snprintf(r->error, sizeof r->error, "%s", err);
        tpu_obj_free(&obj);
        return -1;
    }
    int rc = -1;
    if (tpu_system_load(s, &obj, err, sizeof err)) {
        snprintf(r->error, sizeof r->error, "%s", err);
    } else {
        enum tpu_stop stop = run_sliced(r, s);
        r->cycles = tpu_system_cycle(s);
        tpu_core *sc = tpu_system_core(s, r->stats_core);
        tpu_core_stats(sc ? sc : tpu_system_core(s, 0), &r->stats);
        r->stats.cycles = r->cycles;
        if (r->interrupted) {
            snprintf(r->error, sizeof r->error, "interrupted at cycle %llu",
                     (unsigned long long)r->cycles);
        } else if (stop != TPU_STOP_HALT) {
            const char *e = tpu_system_error(s);
            snprintf(r->error, sizeof r->error, "%s", e && e[0] ? e : "the run did not halt");
        } else {
            tpu_expect_result er;
            tpu_system_check(s, &obj, &er);
            if (er.status == TPU_EXPECT_PASS || (er.status == TPU_EXPECT_NONE && r->no_expect_ok)) {
                r->ok = 1;
                rc = 0;
            } else {
                snprintf(r->error, sizeof r->error, "%s", er.message);
            }
        }
    }
    tpu_system_destroy(s);
    tpu_obj_free(&obj);
    return rc;
}
