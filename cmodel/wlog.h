/*
 * wlog.h - the writes of one cycle, held until the end of the cycle.
 *
 * docs/timing.md section 0: a memory read in cycle t sees every write of
 * the cycles before t and none of cycle t.  So VMEM and HBM do not change
 * while the units compute a cycle; each write is appended here, and the
 * memory applies the whole log, in the order the writes were appended, when
 * the cycle commits.  The units of a core run in the priority order of
 * T12a, so append order is the order in which same-cycle writes land.
 *
 * A write either copies its bytes into the log's arena (tpu_wlog_add) or
 * refers to a buffer its unit keeps unchanged until the commit
 * (tpu_wlog_add_ref, no copy: the MXU's result rows, and dma.h2v's bytes
 * in their HBM page, which HBM's own commit changes only after VMEM's).
 */
#ifndef TPU_WLOG_H
#define TPU_WLOG_H

#include <stddef.h>
#include <stdint.h>

typedef struct tpu_wlog_entry {
    uint64_t addr, len;
    const uint8_t *ref;     /* the bytes, or NULL: they are at arena + off */
    size_t off;
    uint8_t unit;           /* enum tpu_unit_id of the writer (for events) */
} tpu_wlog_entry;

typedef struct tpu_wlog {
    tpu_wlog_entry *e;
    size_t n, cap;
    uint8_t *arena;
    size_t used, acap;
    int oom;                /* an allocation failed: the log dropped a write */
} tpu_wlog;

int  tpu_wlog_init(tpu_wlog *l, size_t arena_hint);
void tpu_wlog_free(tpu_wlog *l);
static inline void tpu_wlog_reset(tpu_wlog *l) { l->n = 0; l->used = 0; }

/* Append a write of len bytes and return where to put them (valid until
 * the next append), or NULL when out of memory (l->oom is set). */
uint8_t *tpu_wlog_add(tpu_wlog *l, unsigned unit, uint64_t addr, uint64_t len);
/* Append a write whose bytes stay at p until the commit. */
void tpu_wlog_add_ref(tpu_wlog *l, unsigned unit, uint64_t addr, const uint8_t *p, uint64_t len);

static inline const uint8_t *tpu_wlog_data(const tpu_wlog *l, const tpu_wlog_entry *e)
{
    return e->ref ? e->ref : l->arena + e->off;
}

#endif /* TPU_WLOG_H */
