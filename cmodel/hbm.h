/*
 * hbm.h - HBM storage behind the DMA engines (docs/timing.md section 3,
 * rtl/hbm_port.v).
 *
 * Storage is allocated lazily in 64 KiB pages on the first write of a
 * nonzero byte; reading a byte that was never written gives 0.  A page
 * directory of two levels keeps even a 1 TiB configuration cheap: a 16 GiB
 * HBM costs a few hundred bytes of directory until a program writes to it.
 * Like VMEM, writes made while a cycle is computed land at its end
 * (tpu_hbm_commit), in the order they were made (DMA engines in start order).
 * The bandwidth is not here: it is the DMA engines' credit (dma.c, T15).
 */
#ifndef TPU_HBM_H
#define TPU_HBM_H

#include <stddef.h>
#include <stdint.h>

#include "events.h"
#include "wlog.h"

#define TPU_HBM_PAGE_BITS 16
#define TPU_HBM_PAGE      (1ull << TPU_HBM_PAGE_BITS)
#define TPU_HBM_L2_BITS   12    /* pages per second-level table: 256 MiB each */

typedef struct tpu_hbm {
    uint64_t size;
    uint8_t ***dir;         /* dir[hi][lo] = page or NULL */
    size_t ndir;
    uint64_t pages;         /* pages allocated */
    tpu_wlog log;
    int oom;                /* a page could not be allocated */
} tpu_hbm;

int  tpu_hbm_init(tpu_hbm *h, uint64_t size);
void tpu_hbm_free(tpu_hbm *h);

/* Copy [addr, addr + n) out (unwritten bytes read 0).  The caller checked
 * the range. */
void tpu_hbm_read(const tpu_hbm *h, uint64_t addr, uint8_t *dst, uint64_t n);
/* The n bytes at addr read in place: a pointer into their page when they
 * lie in one page that exists, else NULL (tpu_hbm_read copies them).  The
 * bytes stay as they are until the next tpu_hbm_commit or write. */
const uint8_t *tpu_hbm_span(const tpu_hbm *h, uint64_t addr, uint64_t n);
/* 1 when the n bytes at p are all zero (a page need not exist for them). */
int tpu_bytes_zero(const uint8_t *p, uint64_t n);
/* Write now (loading, backdoor, commit).  Zero bytes going to a page that
 * does not exist do not create it.  -1 when out of host memory. */
int tpu_hbm_write_now(tpu_hbm *h, uint64_t addr, const uint8_t *src, uint64_t n);

/* A write landing at the end of the cycle: returns the buffer to fill. */
static inline uint8_t *tpu_hbm_write(tpu_hbm *h, unsigned unit, uint64_t addr, uint64_t n)
{
    return tpu_wlog_add(&h->log, unit, addr, n);
}
void tpu_hbm_commit(tpu_hbm *h, const tpu_evsrc *ev);

/* Backdoor with range check: -1 when outside HBM (or out of memory). */
int tpu_hbm_peek(const tpu_hbm *h, uint64_t addr, void *dst, size_t n);
int tpu_hbm_poke(tpu_hbm *h, uint64_t addr, const void *src, size_t n);
/* The page holding addr (TPU_HBM_PAGE bytes from addr & ~(TPU_HBM_PAGE - 1)),
 * or NULL when it was never written.  addr < size. */
uint8_t *tpu_hbm_page_at(const tpu_hbm *h, uint64_t addr);
/* The address of the first allocated page at or after `from`, or
 * UINT64_MAX when there is none. */
uint64_t tpu_hbm_next_page(const tpu_hbm *h, uint64_t from);

#endif /* TPU_HBM_H */
