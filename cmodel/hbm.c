/*
 * hbm.c - lazily allocated HBM pages (see hbm.h).
 */
#include "hbm.h"

#include <stdlib.h>
#include <string.h>

#include "vmem.h"   /* tpu_range_ok */

#define L2_ENTRIES (1u << TPU_HBM_L2_BITS)

int tpu_hbm_init(tpu_hbm *h, uint64_t size)
{
    memset(h, 0, sizeof *h);
    h->size = size;
    uint64_t npages = (size + TPU_HBM_PAGE - 1) >> TPU_HBM_PAGE_BITS;
    h->ndir = (size_t)((npages + L2_ENTRIES - 1) >> TPU_HBM_L2_BITS);
    h->dir = calloc(h->ndir ? h->ndir : 1, sizeof *h->dir);
    if (!h->dir)
        return -1;
    if (tpu_wlog_init(&h->log, 4096) < 0) {
        free(h->dir);
        h->dir = NULL;
        return -1;
    }
    return 0;
}

void tpu_hbm_free(tpu_hbm *h)
{
    if (h->dir) {
        for (size_t i = 0; i < h->ndir; i++) {
            if (!h->dir[i])
                continue;
            for (size_t j = 0; j < L2_ENTRIES; j++)
                free(h->dir[i][j]);
            free(h->dir[i]);
        }
        free(h->dir);
    }
    h->dir = NULL;
    tpu_wlog_free(&h->log);
}

static uint8_t *page_of(const tpu_hbm *h, uint64_t page)
{
    uint8_t **l2 = h->dir[page >> TPU_HBM_L2_BITS];
    return l2 ? l2[page & (L2_ENTRIES - 1)] : NULL;
}

static uint8_t *page_make(tpu_hbm *h, uint64_t page)
{
    uint8_t ***slot = &h->dir[page >> TPU_HBM_L2_BITS];
    if (!*slot) {
        *slot = calloc(L2_ENTRIES, sizeof **slot);
        if (!*slot)
            return NULL;
    }
    uint8_t **p = &(*slot)[page & (L2_ENTRIES - 1)];
    if (!*p) {
        *p = calloc(1, TPU_HBM_PAGE);
        if (!*p)
            return NULL;
        h->pages++;
    }
    return *p;
}

void tpu_hbm_read(const tpu_hbm *h, uint64_t addr, uint8_t *dst, uint64_t n)
{
    while (n) {
        uint64_t off = addr & (TPU_HBM_PAGE - 1);
        uint64_t k = TPU_HBM_PAGE - off < n ? TPU_HBM_PAGE - off : n;
        const uint8_t *p = page_of(h, addr >> TPU_HBM_PAGE_BITS);
        if (p)
            memcpy(dst, p + off, k);
        else
            memset(dst, 0, k);
        addr += k;
        dst += k;
        n -= k;
    }
}

const uint8_t *tpu_hbm_span(const tpu_hbm *h, uint64_t addr, uint64_t n)
{
    uint64_t off = addr & (TPU_HBM_PAGE - 1);
    if (n > TPU_HBM_PAGE - off)
        return NULL;
    const uint8_t *p = page_of(h, addr >> TPU_HBM_PAGE_BITS);
    return p ? p + off : NULL;
}

int tpu_bytes_zero(const uint8_t *p, uint64_t n)
{
    static const uint8_t zero[4096];
    while (n) {                             /* memcmp: many bytes at a time */
        size_t k = n < sizeof zero ? (size_t)n : sizeof zero;
        if (memcmp(p, zero, k))
            return 0;
        p += k;
        n -= k;
    }
    return 1;
}

int tpu_hbm_write_now(tpu_hbm *h, uint64_t addr, const uint8_t *src, uint64_t n)
{
    while (n) {
        uint64_t off = addr & (TPU_HBM_PAGE - 1);
        uint64_t k = TPU_HBM_PAGE - off < n ? TPU_HBM_PAGE - off : n;
        uint64_t page = addr >> TPU_HBM_PAGE_BITS;
        uint8_t *p = page_of(h, page);
        if (!p && !tpu_bytes_zero(src, k)) {
            p = page_make(h, page);
            if (!p) {
                h->oom = 1;
                return -1;
            }
        }
        if (p)
            memcpy(p + off, src, k);
        addr += k;
        src += k;
        n -= k;
    }
    return 0;
}

void tpu_hbm_commit(tpu_hbm *h, const tpu_evsrc *ev)
{
    tpu_wlog *l = &h->log;
    if (!l->n)                  /* most cycles: no DMA writes HBM */
        return;
    int want = ev && tpu_ev_wanted(ev, TPU_EV_MEM_WRITE);
    for (size_t i = 0; i < l->n; i++) {
        const tpu_wlog_entry *e = &l->e[i];
        const uint8_t *p = tpu_wlog_data(l, e);
        tpu_hbm_write_now(h, e->addr, p, e->len);
        if (want) {
            tpu_event x = { .kind = TPU_EV_MEM_WRITE, .unit = (enum tpu_unit_id)e->unit,
                            .space = TPU_SPACE_HBM, .addr = e->addr, .len = e->len, .data = p };
            tpu_ev_emit(ev, &x);
        }
    }
    tpu_wlog_reset(l);
}

int tpu_hbm_peek(const tpu_hbm *h, uint64_t addr, void *dst, size_t n)
{
    if (!tpu_range_ok(addr, n, h->size))
        return -1;
    tpu_hbm_read(h, addr, dst, n);
    return 0;
}

int tpu_hbm_poke(tpu_hbm *h, uint64_t addr, const void *src, size_t n)
{
    if (!tpu_range_ok(addr, n, h->size))
        return -1;
    return tpu_hbm_write_now(h, addr, src, n);
}

uint8_t *tpu_hbm_page_at(const tpu_hbm *h, uint64_t addr)
{
    return page_of(h, addr >> TPU_HBM_PAGE_BITS);
}

uint64_t tpu_hbm_next_page(const tpu_hbm *h, uint64_t from)
{
    if (from > UINT64_MAX - TPU_HBM_PAGE)
        return UINT64_MAX;
    uint64_t npages = (h->size + TPU_HBM_PAGE - 1) >> TPU_HBM_PAGE_BITS;
    uint64_t page = (from + TPU_HBM_PAGE - 1) >> TPU_HBM_PAGE_BITS;
    while (page < npages) {
        if (!h->dir[page >> TPU_HBM_L2_BITS]) {     /* a whole second-level table is empty */
            page = ((page >> TPU_HBM_L2_BITS) + 1) << TPU_HBM_L2_BITS;
            continue;
        }
        if (page_of(h, page))
            return page << TPU_HBM_PAGE_BITS;
        page++;
    }
    return UINT64_MAX;
}
