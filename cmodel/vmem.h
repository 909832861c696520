/*
 * vmem.h - VMEM: the core's scratchpad, its per-cycle byte budget and its
 * end-of-cycle writes (docs/timing.md section 2, rtl/vmem.v).
 *
 * The arbiter is a budget of vmem_bw bytes per cycle, reads and writes
 * together.  The units of a core ask for bytes in the fixed priority order
 * of section 2 (incoming ICI, MXU 0..3, VPU, DMA, outgoing ICI), because the
 * core steps them in that order:
 *   tpu_vmem_must()      classes 1-2: never wait (T11 makes sure they fit);
 *   tpu_vmem_take_all()  class 3, the VPU: all or nothing (T12);
 *   tpu_vmem_take()      classes 4-5: whatever is left, byte by byte.
 * Reads look at the memory directly (it does not change during a cycle);
 * writes go to the log and land at tpu_vmem_commit(), in append order (T12a).
 */
#ifndef TPU_VMEM_H
#define TPU_VMEM_H

#include <stddef.h>
#include <stdint.h>

#include "cmutant.h"
#include "events.h"
#include "wlog.h"

typedef struct tpu_vmem {
    uint8_t *mem;           /* calloc'd: the host maps pages only when touched */
    uint64_t size;
    uint64_t bw;            /* bytes per cycle */
    uint64_t left;          /* bytes still free in this cycle */
    tpu_wlog log;
    uint64_t read_bytes, write_bytes;   /* statistics, by the units */
} tpu_vmem;

int  tpu_vmem_init(tpu_vmem *v, uint64_t size, uint64_t bw);
void tpu_vmem_free(tpu_vmem *v);

static inline void tpu_vmem_begin_cycle(tpu_vmem *v)
{
    v->left = v->bw;
    tpu_wlog_reset(&v->log);
}

/* Classes 1-2. */
static inline void tpu_vmem_must(tpu_vmem *v, uint64_t n)
{
    v->left = n < v->left ? v->left - n : 0;
}

/* Class 3: 1 and the bytes are taken, or 0 and nothing is. */
static inline int tpu_vmem_take_all(tpu_vmem *v, uint64_t n)
{
    if (CMUTANT(112, n > v->left, n >= v->left))
        return 0;
    v->left -= n;
    return 1;
}

/* Classes 4-5: up to `want` bytes; returns how many were granted. */
static inline uint64_t tpu_vmem_take(tpu_vmem *v, uint64_t want)
{
    uint64_t n = want < v->left ? want : v->left;
    v->left -= n;
    return n;
}

/* A read: the bytes as they were at the start of the cycle.  The caller
 * checked the range (at issue, T5). */
static inline const uint8_t *tpu_vmem_at(tpu_vmem *v, uint64_t addr, uint64_t n)
{
    v->read_bytes += n;
    return v->mem + addr;
}

/* A write, landing at the end of the cycle: returns the buffer to fill. */
static inline uint8_t *tpu_vmem_write(tpu_vmem *v, unsigned unit, uint64_t addr, uint64_t n)
{
    v->write_bytes += n;
    return tpu_wlog_add(&v->log, unit, addr, n);
}

/* A write whose bytes stay at p until the commit. */
static inline void tpu_vmem_write_ref(tpu_vmem *v, unsigned unit, uint64_t addr,
                                      const uint8_t *p, uint64_t n)
{
    v->write_bytes += n;
    tpu_wlog_add_ref(&v->log, unit, addr, p, n);
}

/* End of cycle: apply the log (emitting TPU_EV_MEM_WRITE if wanted). */
void tpu_vmem_commit(tpu_vmem *v, const tpu_evsrc *ev);

/* Backdoor access (loading, tests, views): no budget, no events. -1 when the
 * range is outside VMEM. */
int tpu_vmem_peek(const tpu_vmem *v, uint64_t addr, void *dst, size_t n);
int tpu_vmem_poke(tpu_vmem *v, uint64_t addr, const void *src, size_t n);

/* 1 when [addr, addr + n) lies inside a memory of `size` bytes. */
static inline int tpu_range_ok(uint64_t addr, uint64_t n, uint64_t size)
{
    return addr <= size && n <= size - addr;
}

#endif /* TPU_VMEM_H */
