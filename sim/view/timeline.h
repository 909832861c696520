/*
 * timeline.h - a Chrome trace-event file (JSON) of a run, for Perfetto
 * (ui.perfetto.dev) and chrome://tracing: `tpu-sim --timeline out.json`.
 *
 * One process per core, one track (thread) per unit: the sequencer, each
 * DMA engine, each MXU (its weight loads and its streams on two tracks),
 * the VPU, each ICI port, and one track per unit for its stall runs.  One
 * complete slice ("ph":"X") per instruction or transfer, with its start and
 * duration; counters ("ph":"C") for HBM bytes per cycle, VMEM bytes per
 * cycle and MXU utilisation, each averaged over a window of K cycles.
 *
 * Time: "ts" and "dur" are cycles, written as microseconds (1 cycle shows
 * as 1 us); the file's otherData gives clock_hz to turn them into seconds.
 *
 * The file is written as the run goes (nothing is kept per event), so
 * memory stays small.  Big runs stay bounded too: after max_slices slices
 * only the counters go on, and the counter window doubles whenever
 * max_counter_samples samples have been written at the current window.
 * docs/timeline.md is the user's page.
 */
#ifndef TPU_TIMELINE_H
#define TPU_TIMELINE_H

#include <stddef.h>
#include <stdint.h>

#include "tpu.h"

#define TPU_TIMELINE_DEFAULT_EVERY       100        /* cycles per counter sample */
#define TPU_TIMELINE_DEFAULT_MAX_SLICES  1000000
#define TPU_TIMELINE_DEFAULT_MAX_SAMPLES 10000

typedef struct tpu_timeline tpu_timeline;

typedef struct tpu_timeline_opts {
    uint64_t counter_every;       /* K: cycles per counter sample (0: the default) */
    uint64_t max_slices;          /* slices written before only counters go on (0: default) */
    uint64_t max_counter_samples; /* samples per window size before it doubles (0: default) */
} tpu_timeline_opts;

/* Create `path` and start listening to s's events.  Call it after
 * tpu_system_load and before the first step.  opts may be NULL.  NULL and
 * a message in err when the file cannot be created. */
tpu_timeline *tpu_timeline_open(const char *path, tpu_system *s, const tpu_timeline_opts *opts,
                                char *err, size_t errlen);

/* Call after every tpu_system_step (tpu_trace_run does): samples the DMA
 * and ICI engines and the counters. */
void tpu_timeline_cycle(tpu_timeline *t);

/* End the slices still open at the current cycle, finish the JSON and
 * close the file; events after this are ignored.  -1 and a message when
 * writing failed (disk full, ...). */
int tpu_timeline_close(tpu_timeline *t, char *err, size_t errlen);

/* Slices written; 1 if the slice cap was reached. */
uint64_t tpu_timeline_slices(const tpu_timeline *t);
int tpu_timeline_truncated(const tpu_timeline *t);

/* Free it.  The system still holds the subscription: free the timeline
 * only after tpu_system_destroy (or never step that system again). */
void tpu_timeline_free(tpu_timeline *t);

#endif /* TPU_TIMELINE_H */
