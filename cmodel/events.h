/*
 * events.h - how units hand events to the system's subscribers.
 *
 * A system owns one tpu_event_bus (its subscriber list).  Every unit holds
 * a tpu_evsrc naming the bus, its core and the clock, and calls
 * tpu_ev_emit().  The bus keeps the union of the subscribers' masks so that
 * a unit can test tpu_ev_wanted() before it spends any time building an
 * event: with no subscriber the cost is one load and one test.
 */
#ifndef TPU_EVENTS_H
#define TPU_EVENTS_H

#include <stdint.h>

#include "tpu.h"

#define TPU_MAX_SUBSCRIBERS 16

typedef struct tpu_subscriber {
    uint32_t mask;
    tpu_event_fn fn;
    void *ctx;
} tpu_subscriber;

typedef struct tpu_event_bus {
    uint32_t mask;                  /* union of the subscribers' masks */
    unsigned nsubs;
    tpu_subscriber subs[TPU_MAX_SUBSCRIBERS];
    int break_requested;
} tpu_event_bus;

/* Who is emitting: the bus, the core number and the current cycle. */
typedef struct tpu_evsrc {
    tpu_event_bus *bus;
    unsigned core;
    const uint64_t *cycle;
} tpu_evsrc;

static inline int tpu_ev_wanted(const tpu_evsrc *s, enum tpu_event_kind k)
{
    return (s->bus->mask >> k) & 1u;
}

/* Stamp core and cycle on ev and hand it to every subscriber that wants
 * its kind.  Callers test tpu_ev_wanted() first. */
static inline void tpu_ev_emit(const tpu_evsrc *s, tpu_event *ev)
{
    ev->core = s->core;
    ev->cycle = *s->cycle;
    for (unsigned i = 0; i < s->bus->nsubs; i++)
        if ((s->bus->subs[i].mask >> ev->kind) & 1u)
            s->bus->subs[i].fn(s->bus->subs[i].ctx, ev);
}

/* The common small events. */
static inline void tpu_ev_simple(const tpu_evsrc *s, enum tpu_event_kind k, enum tpu_unit_id u,
                                 uint64_t pc, uint64_t word)
{
    if (tpu_ev_wanted(s, k)) {
        tpu_event ev = { .kind = k, .unit = u, .pc = pc, .word = word };
        tpu_ev_emit(s, &ev);
    }
}

/* TPU_EV_VMEM_ACCESS (tpu.h): unit u reads or writes (TPU_ACCESS_*) VMEM
 * bytes [addr, addr + len) for the instruction issued in cycle `issued`. */
static inline void tpu_ev_access(const tpu_evsrc *s, enum tpu_unit_id u, unsigned how,
                                 uint64_t pc, uint64_t word, uint64_t issued, uint64_t addr,
                                 uint64_t len)
{
    if (tpu_ev_wanted(s, TPU_EV_VMEM_ACCESS)) {
        tpu_event ev = { .kind = TPU_EV_VMEM_ACCESS, .unit = u, .pc = pc, .word = word,
                         .issued = issued, .space = TPU_SPACE_VMEM, .addr = addr, .len = len,
                         .index = how };
        tpu_ev_emit(s, &ev);
    }
}

#endif /* TPU_EVENTS_H */
