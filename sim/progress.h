/*
 * progress.h - one status line, updated in place, for long runs.
 *
 * On a terminal (stderr is a tty) a tool shows how far it is: for a run,
 *     tpu-sim: cycle 12,345,678  6.1e+06 cycles/s  2.0 s
 * and for work in points (a sweep, a soak),
 *     tpu-roofline: 12/40 points  4.1 s elapsed, about 9.6 s left
 * redrawn at most 10 times a second with '\r' and cleared when the work
 * ends, so the report that follows starts on a clean line.  When stderr is
 * not a terminal (piped, CI, a test), or TPU_PROGRESS=0 is in the
 * environment, it prints nothing; TPU_PROGRESS=1 forces it on (tests).
 *
 * tpu_progress_cycles is cheap enough to call every cycle: it reads the
 * clock only every 65536 calls.
 */
#ifndef TPU_PROGRESS_H
#define TPU_PROGRESS_H

#include <stdint.h>
#include <stdio.h>

typedef struct tpu_progress {
    FILE *f;             /* where the line goes (stderr); NULL: disabled */
    const char *tool;    /* "tpu-sim" */
    double t0;           /* start, seconds (monotonic) */
    double last;         /* when the line was last drawn */
    uint32_t tick;       /* calls since the clock was last read */
    int shown;           /* a line is on the screen */
} tpu_progress;

/* Enabled iff f is a terminal (or TPU_PROGRESS=1), and TPU_PROGRESS != 0. */
void tpu_progress_init(tpu_progress *p, const char *tool, FILE *f);

/* A run at `cycle`: cycles, rate and elapsed time. */
void tpu_progress_cycles(tpu_progress *p, uint64_t cycle);
/* The same, looking at the clock at once (for callers that run slices of
 * many cycles between two calls). */
void tpu_progress_cycles_now(tpu_progress *p, uint64_t cycle);

/* Work in points: done of total, elapsed, time left (when done > 0);
 * `what` names the unit ("points", "seeds"); extra (may be NULL) is
 * appended (e.g. "3 failed"). */
void tpu_progress_points(tpu_progress *p, uint64_t done, uint64_t total, const char *what,
                         const char *extra);

/* Clear the line (if one is shown); the progress stays usable. */
void tpu_progress_clear(tpu_progress *p);

/* Seconds since tpu_progress_init (monotonic). */
double tpu_progress_elapsed(const tpu_progress *p);

#endif
