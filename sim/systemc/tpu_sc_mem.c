/*
 * tpu_sc_mem.c - raw pointers into a core's memories for TLM DMI (see
 * tpu_sc_mem.h).  The only file of sim/systemc/ that includes the model's
 * inside (cmodel/core.h).
 */
#include "tpu_sc_mem.h"

#include "core.h"

uint64_t tpu_sc_hbm_page_bytes(void)
{
    return TPU_HBM_PAGE;
}

/* The HBM page with index `page`, or NULL when it was never written. */
static uint8_t *hbm_page(const tpu_hbm *h, uint64_t page)
{
    uint64_t hi = page >> TPU_HBM_L2_BITS;
    if (hi >= h->ndir || !h->dir[hi])
        return NULL;
    return h->dir[hi][page & ((1u << TPU_HBM_L2_BITS) - 1)];
}

uint8_t *tpu_sc_mem_ptr(tpu_core *c, enum tpu_space space, uint64_t addr, uint64_t *base,
                        uint64_t *len)
{
    switch (space) {
    case TPU_SPACE_IMEM:
        if (addr >= c->seq.imem_words * 8)
            return NULL;
        *base = 0;
        *len = c->seq.imem_words * 8;
        return (uint8_t *)c->seq.imem;
    case TPU_SPACE_VMEM:
        if (addr >= c->vmem.size)
            return NULL;
        *base = 0;
        *len = c->vmem.size;
        return c->vmem.mem;
    case TPU_SPACE_HBM: {
        if (addr >= c->hbm.size)
            return NULL;
        uint8_t *p = hbm_page(&c->hbm, addr >> TPU_HBM_PAGE_BITS);
        if (!p)
            return NULL;
        *base = addr & ~(TPU_HBM_PAGE - 1);
        *len = c->hbm.size - *base < TPU_HBM_PAGE ? c->hbm.size - *base : TPU_HBM_PAGE;
        return p;
    }
    default:
        return NULL;
    }
}

uint64_t tpu_sc_hbm_next_page(const tpu_core *c, uint64_t from)
{
    const tpu_hbm *h = &c->hbm;
    uint64_t npages = (h->size + TPU_HBM_PAGE - 1) >> TPU_HBM_PAGE_BITS;
    uint64_t page = (from + TPU_HBM_PAGE - 1) >> TPU_HBM_PAGE_BITS;
    if (from > UINT64_MAX - TPU_HBM_PAGE)
        return UINT64_MAX;
    while (page < npages) {
        uint64_t hi = page >> TPU_HBM_L2_BITS;
        if (!h->dir[hi]) {          /* a whole second-level table is empty */
            page = (hi + 1) << TPU_HBM_L2_BITS;
            continue;
        }
        if (hbm_page(h, page))
            return page << TPU_HBM_PAGE_BITS;
        page++;
    }
    return UINT64_MAX;
}
