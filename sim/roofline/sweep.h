/*
 * sweep.h - assemble a program and run it on the C model, in-process, for
 * the measured roofline (tpu-roofline): one call per point of a sweep.
 *
 * The source is assembled with the assembler library (asm.h) for the
 * config, with the given -D constants, loaded into a system of one core
 * or of the cores and topology given (tpu.h), run to halt and checked against its .expect records
 * (expect.h).  Nothing is written to disk.  A long run can report how far
 * it is (`progress`, every SWEEP_SLICE cycles) and stop at a cycle
 * boundary on Ctrl-C (`interruptible`: it polls tpu_interrupted()).
 */
#ifndef TPU_SWEEP_H
#define TPU_SWEEP_H

#include <stddef.h>
#include <stdint.h>

#include "asm.h"
#include "config.h"
#include "tpu.h"

typedef struct tpu_sweep_run {
    /* what to run */
    const tpu_config *cfg;
    const char *source;           /* the program text (need not end with NUL) */
    size_t source_len;
    const char *filename;         /* for messages */
    const tpu_asm_define *defines;
    size_t ndefines;
    const tpu_system_opts *system; /* cores and topology; NULL: one core */
    uint64_t max_cycles;          /* 0: no limit */
    int interruptible;            /* stop at the next slice once tpu_interrupted() */
    int no_expect_ok;             /* a program without .expect records is ok (timing runs) */
    unsigned stats_core;          /* whose counters `stats` gets (default core 0) */
    void (*progress)(void *ctx, uint64_t cycle);  /* NULL, or called every slice */
    void *progress_ctx;
    /* what happened */
    int assembled;                /* 0: the assembler refused it (see error) */
    int ok;                       /* halted and every .expect bit-exact */
    int interrupted;              /* stopped by Ctrl-C before the end (not ok) */
    char error[512];              /* the first assembler message, run-time error or mismatch */
    uint64_t ntext;               /* instructions */
    uint64_t cycles;
    tpu_stats stats;              /* core stats_core's */
} tpu_sweep_run;

/* Cycles between two calls of `progress` (and two looks at Ctrl-C). */
#define SWEEP_SLICE 4096

/* Assemble, run and check.  Returns 0 when r->ok, else -1 with r->error. */
int tpu_sweep_run_program(tpu_sweep_run *r);

#endif /* TPU_SWEEP_H */
