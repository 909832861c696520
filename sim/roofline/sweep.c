/*
 * sweep.c - assemble, run and check one program in-process (sweep.h), with
 * the tools' one run-and-check (sim/run.h).
 */
#include "sweep.h"

#include <stdio.h>
#include <string.h>

#include "run.h"

static void progress(void *ctx, tpu_system *s, uint64_t cycle)
{
    (void)s;
    tpu_sweep_run *r = ctx;
    r->progress(r->progress_ctx, cycle);
}

int tpu_sweep_run_program(tpu_sweep_run *r)
{
    r->assembled = r->ok = r->interrupted = 0;
    r->error[0] = 0;
    r->ntext = r->cycles = 0;
    memset(&r->stats, 0, sizeof r->stats);

    tpu_run run = { .cfg = r->cfg, .system = r->system, .check = 1, .stats_core = r->stats_core,
                    .limits = { .max_cycles = r->max_cycles, .slice = SWEEP_SLICE,
                                .interruptible = r->interruptible,
                                .progress = r->progress ? progress : NULL, .ctx = r } };
    tpu_run_init(&run);
    tpu_asm_options ao = { .config = r->cfg, .defines = r->defines, .ndefines = r->ndefines,
                           .allow_include = 1 };
    if (tpu_run_assemble(&run, r->source, r->source_len, r->filename, &ao)) {
        snprintf(r->error, sizeof r->error, "%s", run.error);
        return -1;
    }
    r->assembled = 1;
    r->ntext = run.obj.ntext;
    if (!tpu_run_load(&run)) {
        tpu_run_go(&run);
        r->cycles = run.cycles;
        r->stats = run.stats;
        r->interrupted = run.end == TPU_RUN_INTERRUPTED;
        r->ok = tpu_run_passed(&run, r->no_expect_ok);
        if (run.end == TPU_RUN_HALT && !r->ok)
            snprintf(r->error, sizeof r->error, "%s", run.expect.message);
        else if (!r->ok)
            snprintf(r->error, sizeof r->error, "%s", run.error[0] ? run.error
                                                                     : "the run did not halt");
    } else {
        snprintf(r->error, sizeof r->error, "%s", run.error);
    }
    tpu_run_free(&run);
    return r->ok ? 0 : -1;
}
