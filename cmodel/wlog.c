/*
 * wlog.c - the per-cycle write log (see wlog.h).  Both arrays only grow;
 * after the first busy cycles no allocation happens any more.
 */
#include "wlog.h"

#include <stdlib.h>

int tpu_wlog_init(tpu_wlog *l, size_t arena_hint)
{
    l->n = l->used = 0;
    l->oom = 0;
    l->cap = 16;
    l->acap = arena_hint < 256 ? 256 : arena_hint;
    l->e = malloc(l->cap * sizeof *l->e);
    l->arena = malloc(l->acap);
    if (!l->e || !l->arena) {
        tpu_wlog_free(l);
        return -1;
    }
    return 0;
}

void tpu_wlog_free(tpu_wlog *l)
{
    free(l->e);
    free(l->arena);
    l->e = NULL;
    l->arena = NULL;
    l->n = l->cap = l->used = l->acap = 0;
}

/* Room for one more entry. */
static int grow_entries(tpu_wlog *l)
{
    if (l->n < l->cap)
        return 0;
    size_t cap = l->cap * 2;
    tpu_wlog_entry *e = realloc(l->e, cap * sizeof *e);
    if (!e) {
        l->oom = 1;
        return -1;
    }
    l->e = e;
    l->cap = cap;
    return 0;
}

uint8_t *tpu_wlog_add(tpu_wlog *l, unsigned unit, uint64_t addr, uint64_t len)
{
    if (grow_entries(l) < 0)
        return NULL;
    if (len > l->acap - l->used) {
        size_t acap = l->acap;
        while (len > acap - l->used)
            acap *= 2;
        uint8_t *a = realloc(l->arena, acap);
        if (!a) {
            l->oom = 1;
            return NULL;
        }
        l->arena = a;
        l->acap = acap;
    }
    tpu_wlog_entry *e = &l->e[l->n++];
    e->addr = addr;
    e->len = len;
    e->ref = NULL;
    e->off = l->used;
    e->unit = (uint8_t)unit;
    l->used += len;
    return l->arena + e->off;
}

void tpu_wlog_add_ref(tpu_wlog *l, unsigned unit, uint64_t addr, const uint8_t *p, uint64_t len)
{
    if (grow_entries(l) < 0)
        return;
    tpu_wlog_entry *e = &l->e[l->n++];
    e->addr = addr;
    e->len = len;
    e->ref = p;
    e->off = 0;
    e->unit = (uint8_t)unit;
}
