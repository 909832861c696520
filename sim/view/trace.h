/*
 * trace.h - the files that watch a run: a timeline (timeline.h), a VCD
 * (vcd.h) and a replay page (html.h), opened together, fed after every
 * cycle and closed together.  `tpu-sim --timeline FILE --vcd FILE --html
 * FILE` is these calls.
 */
#ifndef TPU_TRACE_H
#define TPU_TRACE_H

#include <stddef.h>
#include <stdint.h>

#include "html.h"
#include "progress.h"
#include "timeline.h"
#include "tpu.h"
#include "vcd.h"

typedef struct tpu_trace {
    tpu_timeline *tl;       /* NULL: no timeline */
    tpu_vcd *vcd;           /* NULL: no VCD */
    tpu_html *html;         /* NULL: no page */
    tpu_progress *progress; /* NULL: no progress line */
    int interruptible;      /* stop at Ctrl-C (interrupt.h) with TPU_STOP_BREAK */
} tpu_trace;

/* Open the files whose paths are not NULL (after tpu_system_load, before
 * the first step).  -1 and a message naming the file when one cannot be
 * created; nothing is left open then (but call tpu_trace_free anyway). */
int tpu_trace_open(tpu_trace *t, tpu_system *s, const char *timeline_path, const char *vcd_path,
                   char *err, size_t errlen);

/* Open the page of `--html` too (after tpu_trace_open): -1 and a message
 * naming the file when it cannot be created; the other files are closed
 * then (call tpu_trace_free anyway). */
int tpu_trace_open_html(tpu_trace *t, tpu_system *s, const char *path, const tpu_html_opts *o,
                        char *err, size_t errlen);

/* As tpu_system_run(s, max_cycles), feeding t's files after every step
 * (t may be NULL; the page
 * also before every step).  The cycle limit is reported as tpu_system_run does.
 * With t->interruptible, a Ctrl-C (tpu_interrupted()) stops the run at the
 * next cycle boundary with TPU_STOP_BREAK; t->progress gets every cycle. */
enum tpu_stop tpu_trace_run(tpu_system *s, uint64_t max_cycles, tpu_trace *t);

/* Finish the files.  -1 and a message when writing one failed. */
int tpu_trace_close(tpu_trace *t, char *err, size_t errlen);

/* Free them: after tpu_system_destroy, which holds their subscriptions. */
void tpu_trace_free(tpu_trace *t);

#endif /* TPU_TRACE_H */
