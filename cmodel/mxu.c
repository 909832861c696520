/*
 * mxu.c - the matrix unit, computed at its edges (see mxu.h).
 *
 * Cycle t of one MXU, in this order (all reads see VMEM as it was at the
 * start of the cycle, all writes land at its end):
 *   1. the row read in t - 2N leaves the de-skew buffer: its fp32 result
 *      row is written (T24);
 *   2. mxu.mma: the old value of the row read in t - 2N + 1 is read and
 *      added to its result (T24);
 *   3. the queue head starts if its rule allows (T19, T21);
 *   4. mxu.lw: weight row N - 1 - (t - l) is read into the loading tile (T20);
 *   5. mxu.mm/mma: LHS row t - s is read and its whole result computed (T22).
 */
#include "mxu.h"

#include <stdlib.h>
#include <string.h>

#include "fp.h"
#include "ref.h"

#define NO_ROW UINT64_MAX

int tpu_mxu_init(tpu_mxu *m, unsigned id, unsigned n, unsigned qdepth, tpu_vmem *vmem,
                 tpu_sem_inc *sems, const tpu_evsrc *ev)
{
    memset(m, 0, sizeof *m);
    m->id = id;
    m->n = n;
    m->unit = (enum tpu_unit_id)(TPU_U_MXU0 + id);
    m->vmem = vmem;
    m->sems = sems;
    m->ev = ev;
    tpu_queue_init(&m->q, qdepth);
    uint64_t r = 1;
    while (r < 2ull * n + 2)
        r <<= 1;
    m->mask = r - 1;
    m->ring = malloc(r * sizeof *m->ring);
    m->ring_x = malloc(r * n * sizeof *m->ring_x);
    m->ring_y = malloc(r * n * sizeof *m->ring_y);
    m->tile[0] = calloc((size_t)n * n, sizeof *m->tile[0]);
    if (!m->ring || !m->ring_x || !m->ring_y || !m->tile[0]) {
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
    for (unsigned i = 0; i < TPU_MXU_MAX_TILES; i++)
        free(m->tile[i]);
    memset(m, 0, sizeof *m);
}

/* ---- weight tiles -------------------------------------------------------- */

static void tile_ref(tpu_mxu *m, int t) { m->refs[t]++; }
static void tile_unref(tpu_mxu *m, int t) { m->refs[t]--; }

/* A free tile (its memory is reused), or -1. */
static int tile_alloc(tpu_mxu *m)
{
    for (int i = 1; i < TPU_MXU_MAX_TILES; i++) {
        if (m->refs[i] != 0)
            continue;
        if (!m->tile[i]) {
            m->tile[i] = malloc((size_t)m->n * m->n * sizeof *m->tile[i]);
            if (!m->tile[i])
                return -1;
        }
        m->refs[i] = 1;
        return i;
    }
    return -1;
}

/* Append a mark to a history, taking a reference. */
static void mark_push(tpu_mxu *m, tpu_mxu_mark *h, unsigned *nh, int *base, uint64_t at, int tile)
{
    if (*nh == TPU_MXU_HIST) {              /* cannot happen (see prune); keep going */
        tile_unref(m, *base);
        *base = h[0].tile;
        memmove(h, h + 1, (TPU_MXU_HIST - 1) * sizeof *h);
        (*nh)--;
    }
    tile_ref(m, tile);
    h[*nh].at = at;
    h[*nh].tile = tile;
    (*nh)++;
}

/* Drop marks that every cell has passed by cycle t: a mark is complete
 * when at + span <= t; the newest complete one becomes the base. */
static void mark_prune(tpu_mxu *m, tpu_mxu_mark *h, unsigned *nh, int *base, uint64_t span,
                       uint64_t t)
{
    unsigned k = 0;
    while (k < *nh && h[k].at + span <= t)
        k++;
    if (!k)
        return;
    tile_unref(m, *base);
    *base = h[k - 1].tile;
    for (unsigned i = 0; i + 1 < k; i++)
        tile_unref(m, h[i].tile);
    memmove(h, h + k, (*nh - k) * sizeof *h);
    *nh -= k;
}

/* ---- the five steps -------------------------------------------------------- */

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
    const uint32_t *y = m->ring_y + (r & m->mask) * m->n;
    uint64_t bytes = 4ull * m->n;
    tpu_vmem_must(m->vmem, bytes);
    tpu_vmem_write_ref(m->vmem, m->unit, row->dst, (const uint8_t *)y, bytes);
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

/* 2. T24, mxu.mma: the old output row is read one cycle before the write. */
static void accumulate(tpu_mxu *m, uint64_t t)
{
    uint64_t n2 = 2ull * m->n;
    if (t + 1 < n2)
        return;
    uint64_t r = t + 1 - n2;
    tpu_mxu_row *row = &m->ring[r & m->mask];
    if (row->read_at != r || !row->mma)
        return;
    uint64_t bytes = 4ull * m->n;
    tpu_vmem_must(m->vmem, bytes);
    uint32_t old[256];                      /* mxu_n <= 256 (config.def) */
    memcpy(old, tpu_vmem_at(m->vmem, row->dst, bytes), bytes);
    uint32_t *y = m->ring_y + (r & m->mask) * m->n;
    tpu_ref_pointwise(TPU_REF_ADD, old, y, y, m->n);   /* tpu_f32_add, element by element */
}

/* 3. T19, T21: start the queue head if its rule allows; else say why not. */
static int start_next(tpu_mxu *m, uint64_t t)
{
    if (!m->q.count)
        return -1;
    const tpu_qentry *e = tpu_queue_head(&m->q);
    uint64_t n = m->n;

    if (e->op == TPU_OP_MXU_LW) {
        if (t < m->lw_next)
            return TPU_MXU_STALL_CHAIN;
        int tile = tile_alloc(m);
        if (tile < 0) {
            m->oom = 1;
            return -1;
        }
        if (m->pending)                     /* loaded but never used: replaced */
            tile_unref(m, m->pending_tile);
        m->pending = 1;
        m->pending_tile = tile;             /* the allocation's reference */
        m->pending_l = t;
        m->lw_reading = 1;
        m->lw_start = t;
        m->lw_addr = (uint64_t)e->v[1];
        m->lw_stride = e->v[2];
        m->lw_tile = tile;
        m->lw_sem = (uint8_t)e->v[3];
        if (m->lw_ndone < 4) {              /* loads start >= N apart: at most 2 due */
            m->lw_done[m->lw_ndone].at = t + 2 * n - 1;
            m->lw_done[m->lw_ndone].pc = e->pc;
            m->lw_done[m->lw_ndone].word = e->word;
            m->lw_ndone++;
        }
        m->lw_next = t + n;
        mark_push(m, m->loads, &m->nloads, &m->base_shadow, t, tile);
        if (m->busy_end < t + 2 * n)
            m->busy_end = t + 2 * n;
        tpu_queue_pop(&m->q);
        return -1;
    }

    /* mxu.mm / mxu.mma */
    if (t < m->stream_free)
        return TPU_MXU_STALL_STREAM;
    if (m->pending && t < m->pending_l + n)
        return TPU_MXU_STALL_WEIGHTS;
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
        mark_push(m, m->swaps, &m->nswaps, &m->base_active, t, m->active_tile);
    }
    m->streaming = 1;
    m->s = t;
    m->m = rows;
    m->dst = (uint64_t)e->v[1];
    m->src = (uint64_t)e->v[2];
    m->sstride = e->v[4];
    m->dstride = e->v[5];
    m->s_mma = e->op == TPU_OP_MXU_MMA;
    m->s_sem = (uint8_t)e->v[6];
    m->s_tile = m->active_tile;
    tile_ref(m, m->s_tile);
    m->s_pc = e->pc;
    m->s_word = e->word;
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

/* 4. T20: in cycle l + i the weight row nearest the bottom still missing,
 * N - 1 - i, is read. */
static void load_weights(tpu_mxu *m, uint64_t t)
{
    uint64_t i = t - m->lw_start;
    unsigned n = m->n;
    uint64_t k = n - 1 - i;
    uint64_t bytes = 2ull * n;
    tpu_vmem_must(m->vmem, bytes);
    const uint8_t *src = tpu_vmem_at(m->vmem, m->lw_addr + k * (uint64_t)m->lw_stride, bytes);
    memcpy(m->tile[m->lw_tile] + k * n, src, bytes);
    if (i + 1 == n) {
        m->lw_reading = 0;
        tpu_sem_bump(m->sems, m->lw_sem);           /* T20a */
    }
}

/* 5. T22: LHS row b = t - s is read; its result is computed now and waits in
 * the ring until it leaves the array. */
static void read_row(tpu_mxu *m, uint64_t t)
{
    uint64_t b = t - m->s;
    unsigned n = m->n;
    uint64_t slot = t & m->mask;
    uint64_t bytes = 2ull * n;
    tpu_vmem_must(m->vmem, bytes);
    const uint8_t *src = tpu_vmem_at(m->vmem, m->src + b * (uint64_t)m->sstride, bytes);
    uint16_t *x = m->ring_x + slot * n;
    memcpy(x, src, bytes);
    tpu_ref_row(x, m->tile[m->s_tile], n, m->ring_y + slot * n);

    tpu_mxu_row *row = &m->ring[slot];
    row->read_at = t;
    row->b = b;
    row->dst = m->dst + b * (uint64_t)m->dstride;
    row->pc = m->s_pc;
    row->word = m->s_word;
    row->rows = m->m;
    row->tile = m->s_tile;
    row->mma = (uint8_t)m->s_mma;
    row->sem = m->s_sem;
    tile_ref(m, m->s_tile);
    m->rows_streamed++;
    if (b + 1 == m->m) {
        m->streaming = 0;
        tile_unref(m, m->s_tile);
    }
}

int tpu_mxu_step(tpu_mxu *m, uint64_t t)
{
    if (!m->q.count && t >= m->busy_end)
        return -1;
    uint64_t n = m->n;
    if (m->nloads)
        mark_prune(m, m->loads, &m->nloads, &m->base_shadow, 2 * n - 1, t);
    if (m->nswaps)
        mark_prune(m, m->swaps, &m->nswaps, &m->base_active, 2 * n - 1, t);

    write_result(m, t);
    accumulate(m, t);
    int stall = start_next(m, t);
    if (m->lw_reading)
        load_weights(m, t);
    if (m->streaming)
        read_row(m, t);
    if (m->lw_ndone && m->lw_done[0].at == t) {   /* the last column's shadow is written */
        tpu_ev_simple(m->ev, TPU_EV_RETIRE, m->unit, m->lw_done[0].pc, m->lw_done[0].word);
        memmove(m->lw_done, m->lw_done + 1, --m->lw_ndone * sizeof m->lw_done[0]);
    }
    return stall;
}

/* ---- view ------------------------------------------------------------------ */

/* The tile the newest mark older than `when` installed, else the base. */
static int mark_at(const tpu_mxu_mark *h, unsigned nh, int base, uint64_t delay, uint64_t t)
{
    int tile = base;
    for (unsigned i = 0; i < nh; i++)
        if (h[i].at + delay <= t)
            tile = h[i].tile;
    return tile;
}

/* Load-chain register (k, c) at the end of cycle t (T20).  Element c of
 * row N-1-i of the mxu.lw started in l enters in l + i + 1 + c, so the
 * newest load with l + c < t has shifted column c j = min(N, t - l - c)
 * times: cell k < j holds its row N - j + k, cell k >= j what was at row
 * k - j before, the whole previous tile (loads start >= N apart, T19, so
 * the previous load's last shift of the column, in l' + N + c, came
 * first).  Pruned marks are complete: with no load shifting the column
 * yet, the chain holds the base tile. */
static uint16_t chain_at(const tpu_mxu *m, uint64_t t, unsigned k, unsigned c)
{
    unsigned n = m->n, i = m->nloads;
    while (i > 0 && m->loads[i - 1].at + c >= t)
        i--;
    if (i == 0)
        return m->tile[m->base_shadow][(size_t)k * n + c];
    uint64_t j = t - m->loads[i - 1].at - c;
    if (j > n)
        j = n;
    if (k < j)
        return m->tile[m->loads[i - 1].tile][(size_t)(n - j + k) * n + c];
    int prev = i >= 2 ? m->loads[i - 2].tile : m->base_shadow;
    return m->tile[prev][(size_t)(k - j) * n + c];
}

void tpu_mxu_cell_view(const tpu_mxu *m, uint64_t t, unsigned k, unsigned c, tpu_cell_view *v)
{
    unsigned n = m->n;
    memset(v, 0, sizeof *v);
    /* The swap reaches cell (k, c) in cycle r0 + 1 + k + c (T22); column c's
     * shadow is replaced at the end of l + N + c (T20). */
    int act = mark_at(m->swaps, m->nswaps, m->base_active, 1ull + k + c, t);
    int sh = mark_at(m->loads, m->nloads, m->base_shadow, (uint64_t)n + c, t);
    v->weight = m->tile[act][(size_t)k * n + c];
    v->shadow = m->tile[sh][(size_t)k * n + c];
    v->chain = chain_at(m, t, k, c);
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
        psum = tpu_mac(psum, x[i], w[(size_t)i * n + c]);
    v->active = 1;
    v->row = (int64_t)row->b;
    v->x = x[k];
    v->psum = psum;
}
