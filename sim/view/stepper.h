/*
 * stepper.h - the interactive stepper of `tpu-sim --step` (docs/stepper.md).
 *
 * A command interpreter over a loaded tpu_system: it reads gdb-like
 * commands (step, next, continue, break, watch, info, show mxu, trace
 * cell, ...) from
 * any FILE* and prints to any FILE*, so a test can drive it with a script
 * and check every line it prints.  It steps the model one cycle at a time
 * with tpu_system_step() and learns what happened from the event stream
 * and the views of cmodel/include/tpu/tpu.h; it never looks inside the model.
 *
 * "The current cycle" is the last cycle the model computed: after
 * `step 1` from reset it is cycle 0, and `show mxu` shows the cells as
 * they were in that cycle (docs/timing.md numbers cycles the same way).
 */
#ifndef TPU_STEPPER_H
#define TPU_STEPPER_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "config.h"
#include "objfile.h"
#include "tpu.h"

typedef struct tpu_stepper tpu_stepper;

typedef struct tpu_stepper_opts {
    tpu_system *sys;            /* created and loaded; the stepper does not own it */
    const tpu_object *obj;      /* symbols (labels), text (disassembly), .expect */
    const tpu_config *cfg;
    const char *program;        /* file name for the report, or NULL */
    const char *topology;       /* "single", "ring", ... for the report, or NULL */
    uint64_t max_cycles;        /* continue/step stop here with an error; 0 = none */
    FILE *in, *out;             /* commands; everything printed (errors too) */
    int prompt;                 /* print "(tpu) " before each command (a terminal) */
    int echo;                   /* print "(tpu) COMMAND" for each command read (transcripts) */
    int color;                  /* ANSI colours in `show mxu` and `show units` */
    int check_races;            /* `races on` from reset (tpu-sim --check-races) */
} tpu_stepper_opts;

/* NULL when out of memory or the system has no room for another event
 * subscriber (message in err).  The stepper subscribes to the system's
 * events and a subscription cannot be undone: once it is destroyed, the
 * system must not be stepped again (destroy both together). */
tpu_stepper *tpu_stepper_create(const tpu_stepper_opts *o, char *err, size_t errlen);
void tpu_stepper_destroy(tpu_stepper *st);

/* Run one command line.  Returns 1 when it was `quit`, else 0 (a bad
 * command prints "error: ..." and returns 0). */
int tpu_stepper_exec(tpu_stepper *st, const char *line);

/* Read and run commands until `quit` or the end of the input; returns the
 * exit status (tpu_stepper_status).  It installs the Ctrl-C handler
 * (interrupt.h): Ctrl-C stops step, next or continue after the cycle it is
 * in, and at the prompt gives a new prompt.  tpu_stepper_exec() alone
 * honours a pending Ctrl-C too (tpu_interrupt_raise() in the tests). */
int tpu_stepper_loop(tpu_stepper *st);

/* Exit status like tpu-sim's: 3 the model stopped with a run-time error
 * (or the cycle limit); 4 the race checker (`races on`) found a race;
 * 1 the program halted but a result differs or cannot be checked; else 0
 * (halted bit-exact, or the session ended before the program did). */
int tpu_stepper_status(const tpu_stepper *st);

/* Run `step`'s work without printing: one cycle, breakpoints included.
 * Returns 1 while the program can go on (for --animate). */
int tpu_stepper_cycle(tpu_stepper *st);

/* Watch a run that something else steps (tpu-sim --html, sim/view/html.c):
 * call tpu_stepper_before_step() before each tpu_system_step() and
 * tpu_stepper_after_step() with what it returned, around every cycle from
 * the first one looked at on (`show units` compares the counters with the
 * cycle before).  The views then show the cycle just computed, as after
 * `step`, and tpu_stepper_hits() gives the messages of the breakpoints
 * that fired in it: "breakpoint 1: ...\n" lines, the returned number of
 * bytes at *text. */
void tpu_stepper_before_step(tpu_stepper *st);
void tpu_stepper_after_step(tpu_stepper *st, enum tpu_stop r);
size_t tpu_stepper_hits(const tpu_stepper *st, const char **text);

/* The pieces --animate draws each frame, and where they go. */
void tpu_stepper_print_status(tpu_stepper *st);
void tpu_stepper_print_units(tpu_stepper *st);
void tpu_stepper_print_mxu(tpu_stepper *st);
void tpu_stepper_set_output(tpu_stepper *st, FILE *out);

/* --animate (sim/view/animate.c): run the loaded system to its end, drawing
 * each cycle (the status line, `show units`, `show mxu` of MXU 0) on out.
 * color: a terminal, so redraw in place with ANSI colours and wait
 * delay_ms between frames; else plain text, one frame after the other.
 * Returns 0, or -1 when out of memory (message in err).  The caller then
 * reports the run as usual (tpu_system_run returns at once: it ended;
 * on -1 too, since the run is finished even when drawing stops). */
int tpu_animate(tpu_system *sys, const tpu_object *obj, const tpu_config *cfg, FILE *out,
                int color, unsigned delay_ms, uint64_t max_cycles, char *err, size_t errlen);

#endif /* TPU_STEPPER_H */
