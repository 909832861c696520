/*
 * html.h - a run as one self-contained HTML page that replays it cycle by
 * cycle in a browser: `tpu-sim --html run.html [--html-cycles A:B]`.
 *
 * The page shows core 0 as the stepper (`tpu-sim --step`) shows it after
 * each cycle: every MXU cell (weight, shadow weight, the weight being
 * loaded, the LHS row, activation and partial sum of its multiply-add,
 * coloured by activity), the status line and `show units` lines, the
 * breakpoint messages of the unit events (MXU tile start and end, DMA
 * done, semaphore changes), the queue counts, the DMA engines, the scalar
 * registers, the semaphores and the counters of the report; the program's
 * listing with the instruction issued in the cycle and the sequencer's pc
 * marked; and a range of VMEM (an address and a length the user picks, a
 * data label by default) as bf16, fp32 or hex bytes.  A cycle
 * slider, step buttons (-10, -1, +1, +10), play/pause and "next event"
 * drive it; `run.html#cycle=N` opens it at cycle N.  No network: the
 * script and the styles are in the file (the page's template is
 * sim/view/html_page.html, compiled in).
 *
 * One source of truth: the writer drives a stepper that watches the run
 * (tpu_stepper_before_step/after_step, stepper.h), so the texts are the
 * stepper's own lines, and the cells' numbers are formatted by the
 * functions `show mxu` and `show cell` use (tpu_fmt_bf16, tpu_fmt_f32,
 * mxu_view.h); the page only shows those strings, but for the VMEM
 * view's numbers, which it formats as tpu_fmt_f32 does.
 *
 * Encoding (docs/tpu-sim.md gives the sizes): the state of a cycle is a
 * vector of numbers ("slots"); each recorded cycle is a JSON array of the
 * slots that differ from a guess made from the cycle before (each
 * activation moved one cell to the right, a cell with an activation made
 * a new partial sum, the sequencer's pc is N + 1 after a cycle whose
 * status line says "issued pc N", everything else stayed), as pairs (gap
 * to the previous such slot, value); the counters as increments.  Numbers and
 * texts are written once, in tables, and the slots hold their indices
 * (-2: the next number of the table).  html_page.html reads it back.
 * Cycles are written to the file as the run goes, in <script> chunks, and
 * the tables and the page's script when it is closed, so a run stopped by
 * Ctrl-C still leaves a whole page.  Recording stops once the data (the
 * cycles, the VMEM writes and the tables) passes max_bytes (the page says
 * so).
 *
 * VMEM: its non-zero 64-byte blocks when the first recorded cycle starts
 * (V0: address, base64 bytes), then every write to it (TPU_EV_MEM_WRITE)
 * with its cycle and unit (VW: cycle less the cycle of the write before,
 * unit, address, base64 bytes); the page replays them up to the cycle
 * shown.  At most vmem_max_bytes bytes of VMEM are recorded (the image
 * and the writes): past that the writes of the cycle that crossed it and
 * of the cycles after are left out, and the page says from which cycle on
 * its VMEM view is stale.  The listing (PROG) is written at the end.
 */
#ifndef TPU_HTML_H
#define TPU_HTML_H

#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "objfile.h"
#include "tpu.h"

#define TPU_HTML_DEFAULT_MAX_BYTES (64ull << 20)   /* 64 MiB of data: cycles and tables */
#define TPU_HTML_DEFAULT_VMEM_BYTES (16ull << 20)  /* 16 MiB of VMEM bytes: image and writes */

typedef struct tpu_html tpu_html;

typedef struct tpu_html_opts {
    const tpu_object *obj;  /* labels and code: the stepper's texts */
    const tpu_config *cfg;
    const char *program;    /* the object file's name, for the page */
    uint64_t first, end;    /* record cycles first .. end-1; end 0: to the end of the run */
    uint64_t max_bytes;     /* stop recording when the data passes this (0: the default) */
    uint64_t vmem_max_bytes; /* VMEM bytes recorded at most (0: the default) */
} tpu_html_opts;

/* Create `path` and start watching s (after tpu_system_load, before the
 * first step).  NULL and a message in err when the file cannot be
 * created or memory runs out. */
tpu_html *tpu_html_open(const char *path, tpu_system *s, const tpu_html_opts *o, char *err,
                        size_t errlen);

/* Call before and after every tpu_system_step (tpu_trace_run does); r is
 * what the step returned. */
void tpu_html_before(tpu_html *h);
void tpu_html_cycle(tpu_html *h, enum tpu_stop r);

/* Write the tables and the page's script and close the file.  -1 and a
 * message when writing failed (disk full, ...). */
int tpu_html_close(tpu_html *h, char *err, size_t errlen);

/* What was recorded: the number of cycles, the first one, and 1 when the
 * byte budget stopped the recording before the window's end. */
uint64_t tpu_html_cycles(const tpu_html *h);
uint64_t tpu_html_first(const tpu_html *h);
int tpu_html_truncated(const tpu_html *h);
/* The first cycle whose VMEM writes the page lacks (the VMEM byte budget
 * ended them), or UINT64_MAX when it has them all. */
uint64_t tpu_html_vmem_stop(const tpu_html *h);

/* Free it, after tpu_system_destroy (the system holds the stepper's
 * subscription). */
void tpu_html_free(tpu_html *h);

#endif /* TPU_HTML_H */
