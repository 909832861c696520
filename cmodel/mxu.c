/*
 * mxu.c - the matrix unit, computed at its edges (see mxu.h).
 *
 * Cycle t of one MXU, in this order (all reads see VMEM as it was at the
 * start of the cycle, all writes land at its end):
 *   1. the row read in t - 2N leaves the de-skew buffer: its fp32 result
 *      row is written (T24);
 *   2. the row read in t - 2N + 1 gets its result computed; for mxu.mma the
 *      old value of its output row is read and added (T24);
 *   3. the queue head starts if its rule allows (T19, T21);
 *   4. mxu.mm/mma: LHS row t - s is read into the ring (T22);
 *   5. every load in flight reads its weight row t - l, oldest first (T20);
 *   6. a load whose wavefront leaves the array (l + 2N - 1) retires.
 */
#include "mxu.h"

#include <stdlib.h>
#include <string.h>

#include "fp.h"
#include "ref.h"

#define NO_ROW UINT64_MAX
#define MXU_BATCH 48           /* rows whose products are computed at once, at most */
#define MXU_YRING 128          /* result rows kept: a power of two >= MXU_BATCH + 1 */

int tpu_mxu_init(tpu_mxu *m, unsigned id, unsigned n, unsigned w, unsigned qdepth,
                 tpu_vmem *vmem, tpu_sem_inc *sems, const tpu_evsrc *ev)
{
    memset(m, 0, sizeof *m);
    m->id = id;
    m->n = n;
    m->w = w == 0 ? 1 : w > TPU_MXU_MAX_W ? TPU_MXU_MAX_W : w;
    m->unit = (enum tpu_unit_id)(TPU_U_MXU0 + id);
    m->vmem = vmem;
    m->sems = sems;
    m->ev = ev;
    tpu_queue_init(&m->q, qdepth);
    uint64_t r = 1;
    while (r < 2ull * n + 2)
        r <<= 1;
    m->mask = r - 1;
    /* A result exists from its batch's computation (at most MXU_BATCH - 1
     * cycles before its row's finish cycle) to the commit of its write
     * (the cycle after): rows read in at most MXU_BATCH + 1 consecutive
     * cycles hold one at once, so a small ring of results, by read cycle,
     * keeps them apart (and in the host's cache: the ring of rows is
     * hundreds of cycles long). */
    m->ymask = (r < MXU_YRING ? r : MXU_YRING) - 1;
    /* At most W loads start in any N cycles (T19), so at most 2W are kept
     * (l + 2N > t) and at most 2W + 1 swaps are younger than 2N - 1 cycles
     * (each swaps in a different load's tile).  Tiles grow on demand. */
    m->maxloads = 2 * m->w + 1;
    m->maxswaps = 2 * m->w + 2;
    m->ntiles = 4 * m->w + 8;
    m->ring = malloc(r * sizeof *m->ring);
    m->ring_x = malloc(r * n * sizeof *m->ring_x);
    m->ring_y = malloc((m->ymask + 1) * n * sizeof *m->ring_y);
    m->loads = malloc(m->maxloads * sizeof *m->loads);
    m->swaps = malloc(m->maxswaps * sizeof *m->swaps);
    m->tile = calloc(m->ntiles, sizeof *m->tile);
    m->refs = calloc(m->ntiles, sizeof *m->refs);
    m->scan = malloc(m->ntiles * sizeof *m->scan);
    m->scanned = calloc(m->ntiles, sizeof *m->scanned);
    if (!m->ring || !m->ring_x || !m->ring_y || !m->loads || !m->swaps || !m->tile || !m->refs
        || !m->scan || !m->scanned
        || !(m->tile[0] = calloc((size_t)n * n, sizeof *m->tile[0]))) {
        tpu_mxu_free(m);
        return -1;
    }
    for (uint64_t i = 0; i < r; i++)
        m->ring[i].read_at = NO_ROW;
    /* Tile 0 is never freed; the holders below each own one reference. */
    m->refs[0] = 1 << 30;
    m->active_tile = m->base_active = m->base_shadow = 0;
    return 0;
}

void tpu_mxu_free(tpu_mxu *m)
{
    free(m->ring);
    free(m->ring_x);
    free(m->ring_y);
    free(m->loads);
    free(m->swaps);
    if (m->tile)
        for (unsigned i = 0; i < m->ntiles; i++)
            free(m->tile[i]);
    free(m->tile);
    free(m->refs);
    free(m->scan);
    free(m->scanned);
    memset(m, 0, sizeof *m);
}

/* ---- weight tiles -------------------------------------------------------- */

static void tile_ref(tpu_mxu *m, int t) { m->refs[t]++; }
static void tile_unref(tpu_mxu *m, int t) { m->refs[t]--; }

/* A free tile with one reference (its memory is reused), or -1 when the
 * host is out of memory.  The table doubles when every tile is in use. */
static int tile_alloc(tpu_mxu *m)
{
    unsigned i = 1;
    while (i < m->ntiles && m->refs[i] != 0)
        i++;
    if (i == m->ntiles) {
        unsigned nt = 2 * m->ntiles;
        uint16_t **t = realloc(m->tile, nt * sizeof *t);
        if (!t)
            return -1;
        m->tile = t;
        int *r = realloc(m->refs, nt * sizeof *r);
        if (!r)
            return -1;
        m->refs = r;
        tpu_ref_tile *sc = realloc(m->scan, nt * sizeof *sc);
        if (!sc)
            return -1;
        m->scan = sc;
        uint8_t *ok = realloc(m->scanned, nt * sizeof *ok);
        if (!ok)
            return -1;
        m->scanned = ok;
        memset(m->tile + m->ntiles, 0, (nt - m->ntiles) * sizeof *t);
        memset(m->refs + m->ntiles, 0, (nt - m->ntiles) * sizeof *r);
        memset(m->scanned + m->ntiles, 0, (nt - m->ntiles) * sizeof *ok);
        m->ntiles = nt;
    }
    if (!m->tile[i]) {
        m->tile[i] = malloc((size_t)m->n * m->n * sizeof *m->tile[i]);
        if (!m->tile[i])
            return -1;
    }
    m->refs[i] = 1;
    m->scanned[i] = 0;
    return (int)i;
}

/* Drop the swaps that every cell has seen by cycle t (at + 2N - 1 <= t);
 * the newest of them becomes the base (its reference moves there). */
static void swaps_prune(tpu_mxu *m, uint64_t t)
{
    uint64_t span = 2ull * m->n - 1;
    unsigned k = 0;
    while (k < m->nswaps && m->swaps[k].at + span <= t)
        k++;
    if (!k)
        return;
    tile_unref(m, m->base_active);
    m->base_active = m->swaps[k - 1].tile;
    for (unsigned i = 0; i + 1 < k; i++)
        tile_unref(m, m->swaps[i].tile);
    memmove(m->swaps, m->swaps + k, (m->nswaps - k) * sizeof *m->swaps);
    m->nswaps -= k;
}

/* Drop the loads whose wavefront has left the array (l + 2N <= t): their
 * writes are in every shadow register, the newest one's on top. */
static void loads_prune(tpu_mxu *m, uint64_t t)
{
    uint64_t span = 2ull * m->n;
    unsigned k = 0;
    while (k < m->nloads && m->loads[k].at + span <= t)
        k++;
    if (!k)
        return;
    tile_unref(m, m->base_shadow);
    m->base_shadow = m->loads[k - 1].tile;
    for (unsigned i = 0; i + 1 < k; i++)
        tile_unref(m, m->loads[i].tile);
    memmove(m->loads, m->loads + k, (m->nloads - k) * sizeof *m->loads);
    m->nloads -= k;
}

/* ---- the six steps ------------------------------------------------------- */

/* 1. T24: the row read in t - 2N is written at the end of t. */
static void write_result(tpu_mxu *m, uint64_t t)
{
    uint64_t n2 = 2ull * m->n;
    if (t < n2)
        return;
    uint64_t r = t - n2;
    tpu_mxu_row *row = &m->ring[r & m->mask];
    if (row->read_at != r)
        return;
    const uint32_t *y = m->ring_y + (r & m->ymask) * m->n;
    uint64_t bytes = 4ull * m->n;
    tpu_vmem_must(m->vmem, bytes);
    tpu_vmem_write_ref(m->vmem, m->unit, row->dst, (const uint8_t *)y, bytes);
    tpu_ev_access(m->ev, m->unit, TPU_ACCESS_WRITE, row->pc, row->word, row->issued, row->dst,
                  bytes);
    if (tpu_ev_wanted(m->ev, TPU_EV_MXU_ROW_OUT)) {
        tpu_event ev = { .kind = TPU_EV_MXU_ROW_OUT, .unit = m->unit, .pc = row->pc,
                         .word = row->word, .space = TPU_SPACE_VMEM, .addr = row->dst,
                         .len = bytes, .data = (const uint8_t *)y, .index = (uint32_t)row->b };
        tpu_ev_emit(m->ev, &ev);
    }
    if (row->b + 1 == row->rows) {
        if (tpu_ev_wanted(m->ev, TPU_EV_MXU_TILE_END)) {
            tpu_event ev = { .kind = TPU_EV_MXU_TILE_END, .unit = m->unit, .pc = row->pc,
                             .word = row->word, .len = row->rows };
            tpu_ev_emit(m->ev, &ev);
        }
        tpu_ev_simple(m->ev, TPU_EV_RETIRE, m->unit, row->pc, row->word);
        tpu_sem_bump(m->sems, row->sem);            /* T24a */
    }
    tile_unref(m, row->tile);
    row->read_at = NO_ROW;
}

/* A hint to the host's cache: VMEM bytes [addr, addr + n) will be read
 * soon (nothing if they are not all in VMEM). */
static void prefetch_vmem(const tpu_vmem *v, uint64_t addr, uint64_t n)
{
    if (addr >= v->size || n > v->size - addr)
        return;
    for (uint64_t i = 0; i < n; i += 64)
        __builtin_prefetch(v->mem + addr + i);
}

/* The rows whose products finish_row computes with row r's: this row and
 * the ones read after it (read_at r + 1, r + 2, .., so already in the
 * ring) that multiply the same tile in the same mode, which is complete
 * now and stays so while they hold it: their products are what they would
 * be in their own cycles.  Not across the end of either ring, so the rows
 * and their results lie at constant strides.  Marks the later ones as
 * computed; returns how many rows, at most MXU_BATCH. */
static unsigned batch_rows(tpu_mxu *m, uint64_t r)
{
    uint64_t slot = r & m->mask, yslot = r & m->ymask;
    const tpu_mxu_row *row = &m->ring[slot];
    unsigned rows = 1;
    while (rows < MXU_BATCH && slot + rows <= m->mask && yslot + rows <= m->ymask
           && m->ring[slot + rows].read_at == r + rows
           && m->ring[slot + rows].tile == row->tile && m->ring[slot + rows].i8 == row->i8)
        rows++;
    for (unsigned i = 1; i < rows; i++)
        m->ring[slot + i].has_y = 1;
    return rows;
}

/* 2. T24: the row read in t - 2N + 1 leaves the array at the end of this
 * cycle; its result is computed now, when every weight of its tile has long
 * been read (the tile's last row in l + N - 1 <= s + N - 2).  mxu.mma reads
 * the old output row now, one cycle before the write, and adds it. */
static void finish_row(tpu_mxu *m, uint64_t t)
{
    uint64_t n2 = 2ull * m->n;
    if (t + 1 < n2)
        return;
    uint64_t r = t + 1 - n2;
    tpu_mxu_row *row = &m->ring[r & m->mask];
    if (row->read_at != r)
        return;
    unsigned n = m->n;
    uint64_t slot = r & m->mask;
    uint32_t *y = m->ring_y + (r & m->ymask) * n;
    if (!row->has_y && row->i8) {
        /* int8 (numerics.md section 9): exact integer sums; the same
         * batching as below. */
        unsigned rows = batch_rows(m, r);
        tpu_ref_rows_i8(m->ring_x + slot * n, n, rows, m->tile[row->tile], n, y, n);
    } else if (!row->has_y) {
        /* The tile's exponent windows, once per tile after its last write
         * (every row using it comes after that: see mxu.h). */
        if (!m->scanned[row->tile]) {
            tpu_ref_tile_scan(m->tile[row->tile], n, &m->scan[row->tile]);
            m->scanned[row->tile] = 1;
        }
        unsigned rows = batch_rows(m, r);
        tpu_ref_rows_tile(m->ring_x + slot * n, n, rows, m->tile[row->tile],
                          &m->scan[row->tile], n, y, n);
    }
    if (!row->mma)
        return;
    uint64_t bytes = 4ull * m->n;
    const tpu_mxu_row *next = &m->ring[(r + 1) & m->mask];
    if (next->read_at == r + 1 && next->mma)   /* the host cache: next cycle's old row */
        prefetch_vmem(m->vmem, next->dst, bytes);
    tpu_vmem_must(m->vmem, bytes);
    /* Read in place: VMEM does not change before the commit, and the
     * result row y is the MXU's own (ring_y), never VMEM. */
    const uint32_t *old = (const uint32_t *)(const void *)tpu_vmem_at(m->vmem, row->dst, bytes);
    tpu_ev_access(m->ev, m->unit, TPU_ACCESS_READ, row->pc, row->word, row->issued, row->dst,
                  bytes);
    if (row->i8)                            /* int32 add, mod 2^32 */
        for (unsigned c = 0; c < n; c++)
            y[c] += old[c];
    else
        tpu_ref_pointwise(TPU_REF_ADD, old, y, y, m->n);   /* tpu_f32_add, element by element */
}

/* The slots of the loads still reading in cycle t (started before t,
 * l + N > t), as a bit set of TPU_MXU_MAX_W bits; returns how many. */
static unsigned reading_slots(const tpu_mxu *m, uint64_t t, uint64_t *bits)
{
    unsigned count = 0;
    memset(bits, 0, TPU_MXU_MAX_W / 8);
    for (unsigned i = m->nloads; i-- > 0;) {
        const tpu_mxu_load *ld = &m->loads[i];
        if (ld->at + m->n <= t)
            break;                          /* older loads are done too */
        if (ld->at < t) {
            count++;
            bits[ld->slot / 64] |= 1ull << (ld->slot % 64);
        }
    }
    return count;
}

/* T19: start an mxu.lw if fewer than W loads are reading, in the lowest
 * free slot. */
static int start_load(tpu_mxu *m, uint64_t t, const tpu_qentry *e)
{
    uint64_t n = m->n;
    uint64_t bits[TPU_MXU_MAX_W / 64];
    if (reading_slots(m, t, bits) >= m->w)
        return TPU_MXU_STALL_LOADS;
    if (m->nloads == m->maxloads) {         /* cannot happen (T19 bounds it) */
        m->oom = 1;
        return -1;
    }
    unsigned slot = 0;
    while ((bits[slot / 64] >> (slot % 64)) & 1)
        slot++;                             /* fewer than W <= TPU_MXU_MAX_W are set */
    int tile = tile_alloc(m);
    if (tile < 0) {
        m->oom = 1;
        return -1;
    }
    tpu_mxu_load *ld = &m->loads[m->nloads++];
    ld->at = t;
    ld->addr = (uint64_t)e->v[1];
    ld->stride = e->v[2];
    ld->pc = e->pc;
    ld->word = e->word;
    ld->issued = e->issued;
    ld->tile = tile;                        /* the allocation's reference */
    ld->slot = slot;
    ld->sem = (uint8_t)e->v[3];
    if (m->pending)                         /* loaded but never used: replaced */
        tile_unref(m, m->pending_tile);
    m->pending = 1;
    m->pending_tile = tile;
    tile_ref(m, tile);
    if (m->busy_end < t + 2 * n)
        m->busy_end = t + 2 * n;
    tpu_queue_pop(&m->q);
    return -1;
}

/* 3. T19, T21: start the queue head if its rule allows; else say why not. */
static int start_next(tpu_mxu *m, uint64_t t)
{
    if (!m->q.count)
        return -1;
    const tpu_qentry *e = tpu_queue_head(&m->q);
    uint64_t n = m->n;

    if (e->op == TPU_OP_MXU_LW || e->op == TPU_OP_MXU_LW_I8)
        return start_load(m, t, e);         /* the same bytes; the mode is the stream's */

    /* mxu.mm / mxu.mma: no wait for the weights (T21) */
    if (t < m->stream_free)
        return TPU_MXU_STALL_STREAM;
    uint64_t rows = (uint64_t)e->v[3];
    if (rows == 0) {                        /* does nothing, leaves the swap pending */
        tpu_ev_simple(m->ev, TPU_EV_RETIRE, m->unit, e->pc, e->word);
        tpu_sem_bump(m->sems, (unsigned)e->v[6]);   /* T24a: at once */
        tpu_queue_pop(&m->q);
        return -1;
    }
    if (m->pending) {                       /* row 0 carries the swap */
        tile_unref(m, m->active_tile);
        m->active_tile = m->pending_tile;   /* the pending reference moves here */
        m->pending = 0;
        if (m->nswaps == m->maxswaps) {     /* cannot happen (see tpu_mxu_init) */
            tile_unref(m, m->base_active);
            m->base_active = m->swaps[0].tile;
            memmove(m->swaps, m->swaps + 1, --m->nswaps * sizeof *m->swaps);
        }
        tile_ref(m, m->active_tile);
        m->swaps[m->nswaps].at = t;
        m->swaps[m->nswaps].tile = m->active_tile;
        m->nswaps++;
    }
    m->streaming = 1;
    m->s = t;
    m->m = rows;
    m->dst = (uint64_t)e->v[1];
    m->src = (uint64_t)e->v[2];
    m->sstride = e->v[4];
    m->dstride = e->v[5];
    m->s_mma = e->op == TPU_OP_MXU_MMA || e->op == TPU_OP_MXU_MMA_I8;
    m->s_i8 = e->op == TPU_OP_MXU_MM_I8 || e->op == TPU_OP_MXU_MMA_I8;
    m->s_sem = (uint8_t)e->v[6];
    m->s_tile = m->active_tile;
    tile_ref(m, m->s_tile);
    m->s_pc = e->pc;
    m->s_word = e->word;
    m->s_issued = e->issued;
    m->stream_free = t + rows;
    if (m->busy_end < t + rows + 2 * n)
        m->busy_end = t + rows + 2 * n;
    if (tpu_ev_wanted(m->ev, TPU_EV_MXU_TILE_START)) {
        tpu_event ev = { .kind = TPU_EV_MXU_TILE_START, .unit = m->unit, .pc = e->pc,
                         .word = e->word, .len = rows };
        tpu_ev_emit(m->ev, &ev);
    }
    tpu_queue_pop(&m->q);
    return -1;
}

/* 4. T22: LHS row b = t - s is read; it waits in the ring until it leaves
 * the array (its result is computed in finish_row). */
static void read_row(tpu_mxu *m, uint64_t t)
{
    uint64_t b = t - m->s;
    unsigned n = m->n;
    uint64_t slot = t & m->mask;
    uint64_t bytes = 2ull * n;
    tpu_vmem_must(m->vmem, bytes);
    const uint8_t *src = tpu_vmem_at(m->vmem, m->src + b * (uint64_t)m->sstride, bytes);
    memcpy(m->ring_x + slot * n, src, bytes);
    tpu_ev_access(m->ev, m->unit, TPU_ACCESS_READ, m->s_pc, m->s_word, m->s_issued,
                  m->src + b * (uint64_t)m->sstride, bytes);
    if (b + 1 < m->m)                       /* the host cache: next cycle's row */
        prefetch_vmem(m->vmem, m->src + (b + 1) * (uint64_t)m->sstride, bytes);

    tpu_mxu_row *row = &m->ring[slot];
    row->read_at = t;
    row->b = b;
    row->dst = m->dst + b * (uint64_t)m->dstride;
    row->pc = m->s_pc;
    row->word = m->s_word;
    row->issued = m->s_issued;
    row->rows = m->m;
    row->tile = m->s_tile;
    row->mma = (uint8_t)m->s_mma;
    row->i8 = (uint8_t)m->s_i8;
    row->sem = m->s_sem;
    row->has_y = 0;
    tile_ref(m, m->s_tile);
    m->rows_streamed++;
    m->rows_i8 += (uint64_t)m->s_i8;
    if (b + 1 == m->m) {
        m->streaming = 0;
        tile_unref(m, m->s_tile);
    }
}

/* 5. T20: each load in flight reads its weight row i = t - l into its own
 * tile, oldest load first; after row N - 1 its semaphore counts (T20a). */
static void read_weights(tpu_mxu *m, uint64_t t)
{
    unsigned n = m->n;
    uint64_t bytes = 2ull * n;
    unsigned first = m->nloads;
    while (first > 0 && m->loads[first - 1].at + n > t)
        first--;
    for (unsigned j = first; j < m->nloads; j++) {
        const tpu_mxu_load *ld = &m->loads[j];
        uint64_t i = t - ld->at;
        tpu_vmem_must(m->vmem, bytes);
        const uint8_t *src = tpu_vmem_at(m->vmem, ld->addr + i * (uint64_t)ld->stride, bytes);
        memcpy(m->tile[ld->tile] + i * n, src, bytes);
        tpu_ev_access(m->ev, m->unit, TPU_ACCESS_READ, ld->pc, ld->word, ld->issued,
                      ld->addr + i * (uint64_t)ld->stride, bytes);
        m->scanned[ld->tile] = 0;
        if (i + 1 == n)
            tpu_sem_bump(m->sems, ld->sem);
    }
}

int tpu_mxu_step(tpu_mxu *m, uint64_t t)
{
    if (!m->q.count && t >= m->busy_end)
        return -1;
    uint64_t n = m->n;
    if (m->nloads)
        loads_prune(m, t);
    if (m->nswaps)
        swaps_prune(m, t);

    write_result(m, t);
    finish_row(m, t);
    int stall = start_next(m, t);
    if (m->streaming)
        read_row(m, t);
    if (m->nloads) {
        read_weights(m, t);
        /* 6. the last cell's shadow is written at the end of l + 2N - 1;
         * only the oldest load kept (l + 2N > t) can be there. */
        if (m->loads[0].at + 2 * n - 1 == t)
            tpu_ev_simple(m->ev, TPU_EV_RETIRE, m->unit, m->loads[0].pc, m->loads[0].word);
    }
    return stall;
}

uint64_t tpu_mxu_lw_reading(const tpu_mxu *m, uint64_t t)
{
    uint64_t bits[TPU_MXU_MAX_W / 64];
    reading_slots(m, t, bits);
    return bits[0];
}

/* ---- view ------------------------------------------------------------------ */

void tpu_mxu_cell_view(const tpu_mxu *m, uint64_t t, unsigned k, unsigned c, tpu_cell_view *v)
{
    unsigned n = m->n;
    size_t at = (size_t)k * n + c;
    memset(v, 0, sizeof *v);
    /* The swap reaches cell (k, c) in cycle r0 + 1 + k + c (T22). */
    int act = m->base_active;
    for (unsigned i = 0; i < m->nswaps && m->swaps[i].at + 1 + k + c <= t; i++)
        act = m->swaps[i].tile;
    v->weight = m->tile[act][at];
    /* The load started in l writes the shadow at the end of l + k + 1 + c
     * (T20): the newest load with l + k + 1 + c <= t is in the register;
     * the one with equality is the weight in transit in cycle t. */
    int sh = m->base_shadow;
    for (unsigned i = m->nloads; i-- > 0;) {
        if (m->loads[i].at + 1 + k + c <= t) {
            sh = m->loads[i].tile;
            if (m->loads[i].at + 1 + k + c == t) {
                v->loading = 1;
                v->chain = m->tile[sh][at];
            }
            break;
        }
    }
    v->shadow = m->tile[sh][at];
    if (t < 1ull + k + c)
        return;
    uint64_t r = t - 1 - k - c;             /* the row in this cell: read in r */
    const tpu_mxu_row *row = &m->ring[r & m->mask];
    if (row->read_at != r)
        return;
    const uint16_t *x = m->ring_x + (r & m->mask) * n;
    const uint16_t *w = m->tile[row->tile];
    uint32_t psum = 0;
    for (unsigned i = 0; i <= k; i++)
        psum = row->i8 ? tpu_mac_i8(psum, x[i], w[(size_t)i * n + c])
                       : tpu_mac(psum, x[i], w[(size_t)i * n + c]);
    v->active = 1;
    v->i8 = row->i8;
    v->row = (int64_t)row->b;
    v->x = x[k];
    v->psum = psum;
}
