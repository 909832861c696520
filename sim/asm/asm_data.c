/*
 * asm_data.c - placing data in HBM and VMEM: DATA and FILL records, memory
 * bounds, and the overlap check.
 *
 * Record rules (docs/assembler.md, "Data records"): consecutive data
 * directives append to one DATA record; an origin (.hbm/.vmem), a section
 * change, .zero, .random and .align end it.  .zero/.random/.align make FILL
 * records.  Empty records are never made.
 */
#include <stdlib.h>
#include <string.h>

#include "asm_impl.h"

static uint8_t cur_space(const asm_ctx *a)
{
    return a->section == SEC_HBM ? TPU_SPACE_HBM : TPU_SPACE_VMEM;
}

static uint64_t space_size(const asm_ctx *a, uint8_t space)
{
    return space == TPU_SPACE_HBM ? a->hbm_size : a->vmem_size;
}

/* Hand the DATA record being built to the object (pass 2). */
void asm_data_close(asm_ctx *a)
{
    if (a->rec_open && a->pass == 2 && a->rec_len > 0 && !a->fatal) {
        if (tpu_obj_add_data(a->obj, a->rec_space, a->rec_addr, a->rec, a->rec_len))
            asm_oom(a);
    }
    a->rec_open = 0;
    a->rec_len = 0;
}

void asm_data_origin(asm_ctx *a, int section, uint64_t addr)
{
    asm_data_close(a);
    a->section = section;
    a->pos = addr;
}

/* Check that n bytes fit at the current position and remember where they
 * went for the overlap check.  -1 after an error. */
static int place(asm_ctx *a, uint64_t n, uint32_t col)
{
    uint8_t space = cur_space(a);
    uint64_t size = space_size(a, space);
    if (a->pos > size || n > size - a->pos) {
        uint64_t end = n - 1 > UINT64_MAX - a->pos ? UINT64_MAX : a->pos + n - 1;
        asm_error(a, col, "data at %s 0x%llx..0x%llx is outside memory (%s has 0x%llx bytes)",
                  asm_space_name(space), (unsigned long long)a->pos, (unsigned long long)end,
                  asm_space_name(space), (unsigned long long)size);
        return -1;
    }
    if (a->pass != 2)
        return 0;
    asm_range *last = a->nranges ? &a->ranges[a->nranges - 1] : NULL;
    if (last && last->space == space && last->hi == a->pos && last->line == a->lineno &&
        last->col == col) {
        last->hi += n;                       /* the same line again (a .rept) */
        return 0;
    }
    if (a->nranges == a->rangecap) {
        size_t cap = a->rangecap ? a->rangecap * 2 : 64;
        asm_range *r = realloc(a->ranges, cap * sizeof *r);
        if (!r) {
            asm_oom(a);
            return -1;
        }
        a->ranges = r, a->rangecap = cap;
    }
    asm_range *r = &a->ranges[a->nranges];
    r->lo = a->pos, r->hi = a->pos + n, r->seq = a->nranges, r->line = a->lineno, r->col = col;
    r->space = space;
    a->nranges++;
    return 0;
}

int asm_data_reserve(asm_ctx *a, uint64_t n, uint32_t col, uint8_t **buf)
{
    *buf = NULL;
    if (n == 0)
        return 0;
    if (a->data_total + n > TPU_ASM_MAX_DATA) {
        asm_fatal_at(a, a->lineno, col, "too much data: more than %u MiB in DATA records "
                     "(use .zero or .random for large arrays)", TPU_ASM_MAX_DATA >> 20);
        return -1;
    }
    if (place(a, n, col))
        return -1;
    a->data_total += n;
    if (!a->rec_open) {
        a->rec_open = 1;
        a->rec_space = cur_space(a);
        a->rec_addr = a->pos;
        a->rec_len = 0;
    }
    a->pos += n;
    if (a->pass != 2)
        return 0;
    if (a->rec_len + n > a->rec_cap) {
        size_t cap = a->rec_cap ? a->rec_cap : 4096;
        while (cap < a->rec_len + n)
            cap *= 2;
        uint8_t *p = realloc(a->rec, cap);
        if (!p) {
            asm_oom(a);
            return -1;
        }
        a->rec = p, a->rec_cap = cap;
    }
    *buf = a->rec + a->rec_len;
    memset(*buf, 0, n);
    a->rec_len += n;
    return 0;
}

/* A FILL record of `size` bytes at the current position. */
int asm_data_fill(asm_ctx *a, uint8_t kind, uint64_t size, uint64_t seed, uint32_t lo,
                  uint32_t hi, uint32_t col)
{
    asm_data_close(a);
    if (size == 0)
        return 0;
    if (place(a, size, col))
        return -1;
    if (a->pass == 2 && !a->fatal &&
        tpu_obj_add_fill(a->obj, cur_space(a), a->pos, kind, size, seed, lo, hi)) {
        asm_oom(a);
        return -1;
    }
    a->pos += size;
    return 0;
}

static int range_cmp(const void *pa, const void *pb)
{
    const asm_range *x = pa, *y = pb;
    if (x->space != y->space)
        return x->space < y->space ? -1 : 1;
    if (x->lo != y->lo)
        return x->lo < y->lo ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* After pass 2: every byte may be placed once.  A sweep over the ranges in
 * address order reports each range that starts inside an earlier one, at
 * the one placed later in the source. */
void asm_data_check_overlaps(asm_ctx *a)
{
    if (a->nranges < 2)
        return;
    qsort(a->ranges, a->nranges, sizeof a->ranges[0], range_cmp);
    size_t best = 0;                   /* the range reaching furthest so far */
    for (size_t k = 1; k < a->nranges && !a->stopped; k++) {
        const asm_range *r = &a->ranges[k], *b = &a->ranges[best];
        if (r->space != b->space) {
            best = k;
            continue;
        }
        if (r->lo < b->hi) {
            const asm_range *later = r->seq > b->seq ? r : b, *earlier = later == r ? b : r;
            char pl[ASM_PLACE_BUF];
            asm_error_at(a, later->line, later->col,
                         "data at %s 0x%llx..0x%llx overlaps data placed at %s",
                         asm_space_name(later->space), (unsigned long long)later->lo,
                         (unsigned long long)(later->hi - 1),
                         asm_place(a, earlier->line, earlier->col, pl, sizeof pl));
        }
        if (r->hi > b->hi)
            best = k;
    }
}

void asm_data_free(asm_ctx *a)
{
    free(a->rec);
    free(a->ranges);
    a->rec = NULL;
    a->ranges = NULL;
}
