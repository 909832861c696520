/*
 * vmem.c - VMEM storage and its end-of-cycle commit (see vmem.h).
 */
#include "vmem.h"

#include <stdlib.h>
#include <string.h>

int tpu_vmem_init(tpu_vmem *v, uint64_t size, uint64_t bw)
{
    memset(v, 0, sizeof *v);
    if (size > SIZE_MAX)
        return -1;
    /* calloc of a large block is an anonymous mapping: a 128 MiB VMEM costs
     * host memory only for the pages a program touches.  (Not on huge
     * pages, hostmem.h: a core that touches a few scattered bytes would
     * cost 2 MiB each, and a system may have hundreds of cores.) */
    v->mem = calloc(1, (size_t)size ? (size_t)size : 1);
    if (!v->mem)
        return -1;
    v->size = size;
    v->bw = bw;
    v->left = bw;
    if (tpu_wlog_init(&v->log, (size_t)(bw < (1u << 20) ? 2 * bw : (2u << 20))) < 0) {
        free(v->mem);
        v->mem = NULL;
        return -1;
    }
    return 0;
}

void tpu_vmem_free(tpu_vmem *v)
{
    free(v->mem);
    v->mem = NULL;
    tpu_wlog_free(&v->log);
}

void tpu_vmem_commit(tpu_vmem *v, const tpu_evsrc *ev)
{
    tpu_wlog *l = &v->log;
    if (!l->n)                  /* nothing written this cycle */
        return;
    int want = ev && tpu_ev_wanted(ev, TPU_EV_MEM_WRITE);
    for (size_t i = 0; i < l->n; i++) {
        const tpu_wlog_entry *e = &l->e[i];
        const uint8_t *p = tpu_wlog_data(l, e);
        memcpy(v->mem + e->addr, p, e->len);
        if (want) {
            tpu_event x = { .kind = TPU_EV_MEM_WRITE, .unit = (enum tpu_unit_id)e->unit,
                            .space = TPU_SPACE_VMEM, .addr = e->addr, .len = e->len,
                            .data = v->mem + e->addr };
            tpu_ev_emit(ev, &x);
        }
    }
    tpu_wlog_reset(l);
}

int tpu_vmem_peek(const tpu_vmem *v, uint64_t addr, void *dst, size_t n)
{
    if (!tpu_range_ok(addr, n, v->size))
        return -1;
    if (n)
        memcpy(dst, v->mem + addr, n);
    return 0;
}

int tpu_vmem_poke(tpu_vmem *v, uint64_t addr, const void *src, size_t n)
{
    if (!tpu_range_ok(addr, n, v->size))
        return -1;
    if (n)
        memcpy(v->mem + addr, src, n);
    return 0;
}
