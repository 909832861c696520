/*
 * run.h - assemble or take an object, load it, run it, check it: the one
 * run-and-check of the tools (tpu-sim, the roofline and collective sweeps,
 * the labs' grader, tpu-net).
 *
 * The pieces, in order, each usable alone:
 *   tpu_run_assemble  the source, in memory, with the assembler library
 *                     (asm.h) into r->obj; the first message in r->error
 *   tpu_run_load      a system of the config's cores (one core by
 *                     default) with r->obj loaded into every core
 *   tpu_run_go        run it in slices of cycles (tpu_run_slices), then
 *                     say how it ended (r->end, r->error) and, when it
 *                     halted and r->check, check the object's .expect
 *                     records bit for bit (r->expect)
 *   tpu_run_free      the system and the object
 * Between two pieces the caller may change the object (the grader puts
 * its own .expect in, tpu-sim applies --load arrays, tpu-net reseeds the
 * data) or look at the system (the grader's elementwise check).
 *
 * The messages are the model's own (tpu_system_error) and the words
 * "interrupted at cycle N"; each tool adds its own around them.
 */
#ifndef TPU_RUN_H
#define TPU_RUN_H

#include <stddef.h>
#include <stdint.h>

#include "asm.h"
#include "config.h"
#include "expect.h"
#include "objfile.h"
#include "tpu.h"

/* Cycles between two looks at Ctrl-C and two progress calls, by default. */
#define TPU_RUN_SLICE 4096

/* How to run: limits and hooks (all optional). */
typedef struct tpu_run_limits {
    uint64_t max_cycles;          /* stop with TPU_STOP_CYCLE_LIMIT there; 0: no limit */
    uint64_t slice;               /* cycles per slice; 0: TPU_RUN_SLICE */
    int interruptible;            /* Ctrl-C (tpu_interrupted()) stops before the next slice */
    /* called between two slices (not before the first, not after the
     * last) with the cycle reached: a progress line, a sampled counter */
    void (*progress)(void *ctx, tpu_system *s, uint64_t cycle);
    void *ctx;
} tpu_run_limits;

/* As tpu_system_run(s, l->max_cycles) (the limit reported as it does), in
 * slices of l->slice cycles so that the cores may run on several threads
 * between two.  With l->interruptible, a Ctrl-C seen before a slice ends
 * the run with TPU_STOP_BREAK (once the limit is reached the limit is
 * reported instead).  l may be NULL: no limit, no hooks. */
enum tpu_stop tpu_run_slices(tpu_system *s, const tpu_run_limits *l);

/* How a run ended. */
enum tpu_run_end {
    TPU_RUN_NOT_RUN,              /* nothing ran yet */
    TPU_RUN_ASM,                  /* the source did not assemble */
    TPU_RUN_SYSTEM,               /* no system for the config (r->error) */
    TPU_RUN_LOAD,                 /* the object did not load (r->error) */
    TPU_RUN_HALT,                 /* every core halted (r->expect when r->check) */
    TPU_RUN_ERROR,                /* a run-time error (r->error) */
    TPU_RUN_LIMIT,                /* the cycle limit (r->error, the model's words) */
    TPU_RUN_INTERRUPTED,          /* Ctrl-C (r->error "interrupted at cycle N") */
};

typedef struct tpu_run {
    /* what to run on */
    const tpu_config *cfg;
    const tpu_system_opts *system; /* cores and topology; NULL: one core */
    tpu_run_limits limits;
    int check;                    /* after a halt, check the .expect records */
    unsigned stats_core;          /* whose counters `stats` gets (core 0 when not there) */
    /* replacements, NULL for the plain ones: a run that feeds files every
     * cycle (tpu-sim's trace.h), a check that reads cores of other
     * processes (tpu-sim-mpi) */
    enum tpu_stop (*runner)(void *ctx, tpu_system *s, const tpu_run_limits *l);
    void *runner_ctx;
    tpu_expect_read_fn check_read;
    void *check_ctx;
    /* the object (tpu_run_assemble, or the caller's: tpu_run_free frees it) */
    tpu_object obj;
    int have_obj;
    /* what happened */
    tpu_system *sys;              /* after tpu_run_load, until tpu_run_free */
    enum tpu_run_end end;
    enum tpu_stop stop;           /* tpu_run_slices' */
    unsigned nerrors;             /* TPU_RUN_ASM: the assembler's error count */
    char error[512];              /* the first message of what went wrong, "" when none */
    uint64_t cycles;
    tpu_stats stats;              /* core stats_core's, cycles the system's */
    int checked;                  /* r->expect was filled */
    tpu_expect_result expect;
} tpu_run;

/* Start r: zeroes everything but the inputs the caller set. */
void tpu_run_init(tpu_run *r);

/* Assemble src (len bytes, need not end with NUL) as `name` with ao into
 * r->obj.  0, or -1 with r->end TPU_RUN_ASM, the first line of the
 * assembler's messages in r->error and their count in r->nerrors. */
int tpu_run_assemble(tpu_run *r, const char *src, size_t len, const char *name,
                     const tpu_asm_options *ao);

/* Take obj (moved: r frees it) as r's object. */
void tpu_run_take(tpu_run *r, tpu_object *obj);

/* Build the system for r->cfg and r->system (before tpu_run_load, for a
 * caller that sets it up first: threads, partition, files that watch).
 * 0, or -1 with r->end TPU_RUN_SYSTEM and r->error. */
int tpu_run_create(tpu_run *r);

/* Load r->obj into r->sys (built first when there is none yet).  0, or
 * -1 with r->end TPU_RUN_SYSTEM or TPU_RUN_LOAD and r->error. */
int tpu_run_load(tpu_run *r);

/* Run the loaded system (tpu_run_slices with r->limits), then fill
 * r->end, r->stop, r->cycles, r->stats, r->error and, after a halt with
 * r->check, r->expect.  Returns r->end. */
enum tpu_run_end tpu_run_go(tpu_run *r);

/* Halted, checked and every .expect bit-exact (or none, when none_ok). */
int tpu_run_passed(const tpu_run *r, int none_ok);

/* The system and the object (r stays readable otherwise). */
void tpu_run_free(tpu_run *r);

#endif /* TPU_RUN_H */
