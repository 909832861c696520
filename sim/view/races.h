/*
 * races.h - the race checker of `tpu-sim --check-races` and the stepper's
 * `races on` (docs/tpu-sim.md, "Races"; the rules are at the top of
 * races.c).
 *
 * It follows, byte range by byte range, which instruction reads and writes
 * which VMEM bytes, from the model's TPU_EV_ISSUE (operand values) and
 * TPU_EV_VMEM_ACCESS events, and reports a program whose units touch the
 * same bytes in an order its instructions did not ask for: a read of bytes
 * a DMA or an incoming ICI copy has not written yet (a), bytes overwritten
 * before an earlier instruction read them (b), a read of bytes an MXU or
 * VPU instruction has not written yet (c).  One race is one pair of
 * instructions; the cycles it lasts widen its range.
 */
#ifndef TPU_RACES_H
#define TPU_RACES_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "tpu.h"

#define TPU_RACES_MAX 1000      /* races kept; more are only counted */

typedef struct tpu_races tpu_races;

/* One instruction of a race. */
typedef struct tpu_race_insn {
    unsigned core;              /* the core it runs on (an incoming copy: the sender) */
    enum tpu_unit_id unit;
    uint64_t pc, word, issued;  /* issued: the cycle the sequencer issued it */
    int incoming;               /* a dma.ici's bytes landing on the race's core */
} tpu_race_insn;

typedef struct tpu_race {
    char kind;                  /* 'a', 'b' or 'c' */
    unsigned core;              /* whose VMEM */
    uint64_t cycle;             /* the first cycle it was seen */
    uint64_t last;              /* the last one */
    uint64_t ncycles;           /* cycles it was seen in */
    uint64_t lo, hi;            /* the VMEM bytes [lo, hi) both touched, over those cycles */
    uint64_t first_lo, first_hi;    /* the bytes of the first cycle */
    tpu_race_insn reader, writer;
} tpu_race;

/* Called once per race, when it is first seen (after its cycle). */
typedef void (*tpu_race_fn)(void *ctx, const tpu_race *r);

/* Subscribe to s's events (one subscriber; it cannot be undone: destroy
 * the checker with the system, after its last step).  NULL and a message
 * in err when out of memory or the system has no room for a subscriber. */
tpu_races *tpu_races_create(tpu_system *s, char *err, size_t errlen);
void tpu_races_destroy(tpu_races *r);
void tpu_races_set_sink(tpu_races *r, tpu_race_fn fn, void *ctx);

/* Check the cycle stepped last.  The checker checks a cycle when the
 * events of the next one begin; call this after the last step, or after
 * every step to hear of a race in its own cycle (the stepper). */
void tpu_races_flush(tpu_races *r);

size_t tpu_races_count(const tpu_races *r);         /* races kept */
const tpu_race *tpu_races_get(const tpu_races *r, size_t i);
uint64_t tpu_races_dropped(const tpu_races *r);     /* found beyond TPU_RACES_MAX */
/* Accesses the checker could not place in an instruction's footprint
 * (0 unless the model and the checker disagree; tests check it). */
uint64_t tpu_races_lost(const tpu_races *r);

/* "race (a) read before copy-in: core 0: cycle 57: vmem 0x400..0x41f: ..."
 * (no newline).  whole: the range and cycles of the whole race, else those
 * of its first cycle. */
void tpu_race_text(const tpu_race *r, int whole, unsigned ncores, char *buf, size_t len);
/* `"races": N, "races_dropped": M, "race_list": [...]` (no braces). */
void tpu_races_json_fields(const tpu_races *r, FILE *f);

#endif /* TPU_RACES_H */
