/*
 * dma.c - the DMA engines (see dma.h and docs/timing.md T13-T18).
 *
 * A lone transfer of S bytes started in cycle u waits L cycles (u .. u+L-1),
 * then moves floor(k * num / den) bytes in its first k XFER cycles, so its
 * last byte moves in cycle u + L - 1 + ceil(S * den / num) and its semaphore
 * is incremented at the end of that cycle (T18).
 */
#include "cmutant.h"
#include "dma.h"

#include <string.h>

#include "fp.h"

void tpu_dma_init(tpu_dma *d, unsigned engines, unsigned qdepth, uint64_t num, uint64_t den,
                  uint64_t latency, tpu_vmem *vmem, tpu_hbm *hbm, tpu_sem_inc *sems,
                  const tpu_evsrc *ev)
{
    memset(d, 0, sizeof *d);
    tpu_queue_init(&d->q, qdepth);
    d->nengines = engines > TPU_DMA_MAX_ENGINES ? TPU_DMA_MAX_ENGINES : (engines ? engines : 1);
    d->num = num;
    d->den = den ? den : 1;
    d->latency = latency;
    d->vmem = vmem;
    d->hbm = hbm;
    d->sems = sems;
    d->ev = ev;
}

/* T13: the queue head starts on engine i in cycle t.  Operands were checked
 * at issue (T5): the footprints lie inside their memories. */
static void start(tpu_dma *d, unsigned i, const tpu_qentry *q, uint64_t t)
{
    tpu_dma_engine *e = &d->eng[i];
    /* dma.h2v vdst, hsrc, ... / dma.v2h hdst, vsrc, ...: both dst first. */
    e->wide = q->op == TPU_OP_DMA_H2V_I8;
    e->to_vmem = q->op == TPU_OP_DMA_H2V || e->wide;
    e->dst = (uint64_t)q->v[0];
    e->src = (uint64_t)q->v[1];
    e->rows = (uint64_t)q->v[2];
    e->rowbytes = (uint64_t)q->v[3];
    e->sstride = q->v[4];
    e->dstride = q->v[5];
    e->sem = (uint8_t)q->v[6];
    e->row = e->col = 0;
    e->total = e->left = e->rows * e->rowbytes;
    e->pc = q->pc;
    e->word = q->word;
    e->issued = q->issued;
    e->state = TPU_DMA_WAIT;
    e->xfer_at = t + d->latency;
    d->order[d->norder++] = i;
}

/* dma.h2v: seg bytes from HBM s to VMEM t, landing at the VMEM commit.
 * The log refers to the bytes in their HBM page when it can (no copy):
 * HBM's own writes of this cycle land after VMEM's (tpu_core_commit), so
 * the page still holds what this cycle read. */
static void to_vmem(tpu_dma *d, uint64_t s, uint64_t t, uint64_t seg)
{
    const uint8_t *p = tpu_hbm_span(d->hbm, s, seg);
    if (p) {
        tpu_vmem_write_ref(d->vmem, TPU_U_DMA, t, p, seg);
        return;
    }
    uint8_t *buf = tpu_vmem_write(d->vmem, TPU_U_DMA, t, seg);
    if (buf)
        tpu_hbm_read(d->hbm, s, buf, seg);
}

/* T16: move n bytes of engine e, in row order, low to high address. */
static void move(tpu_dma *d, tpu_dma_engine *e, uint64_t n)
{
    e->left -= n;
    while (n) {
        uint64_t seg = e->rowbytes - e->col < n ? e->rowbytes - e->col : n;
        uint64_t s = e->src + e->row * (uint64_t)e->sstride + e->col;
        uint64_t t = e->dst + e->row * (uint64_t)CMUTANT(104, e->dstride, e->sstride) + e->col;
        if (e->wide) {                  /* dma.h2v.i8: byte j lands at 2j as bf16 */
            t = e->dst + e->row * (uint64_t)e->dstride + 2 * e->col;
            tpu_ev_access(d->ev, TPU_U_DMA, TPU_ACCESS_WRITE, e->pc, e->word, e->issued, t,
                          2 * seg);
            uint8_t *buf = tpu_vmem_write(d->vmem, TPU_U_DMA, t, 2 * seg);
            uint8_t in[256];
            for (uint64_t k = 0; buf && k < seg; k += sizeof in) {
                uint64_t c = seg - k < sizeof in ? seg - k : sizeof in;
                tpu_hbm_read(d->hbm, s + k, in, c);
                for (uint64_t j = 0; j < c; j++) {
                    uint16_t h = tpu_bf16_from_i8(in[j]);
                    buf[2 * (k + j)] = (uint8_t)h;
                    buf[2 * (k + j) + 1] = (uint8_t)(h >> 8);
                }
            }
            d->hbm_read_bytes += seg;
        } else if (e->to_vmem) {
            tpu_ev_access(d->ev, TPU_U_DMA, TPU_ACCESS_WRITE, e->pc, e->word, e->issued, t, seg);
            to_vmem(d, s, t, seg);
            d->hbm_read_bytes += seg;
        } else {
            uint8_t *buf = tpu_hbm_write(d->hbm, TPU_U_DMA, t, seg);
            const uint8_t *src = tpu_vmem_at(d->vmem, s, seg);
            tpu_ev_access(d->ev, TPU_U_DMA, TPU_ACCESS_READ, e->pc, e->word, e->issued, s, seg);
            if (buf)
                memcpy(buf, src, seg);
            d->hbm_write_bytes += seg;
        }
        e->col += seg;
        if (e->col == e->rowbytes) {
            e->row++;
            e->col = 0;
        }
        n -= seg;
    }
}

/* T17: the engine's semaphore goes up at the end of this cycle and the
 * engine is IDLE from the next one. */
static void complete(tpu_dma *d, unsigned i)
{
    tpu_dma_engine *e = &d->eng[i];
    tpu_sem_bump(d->sems, e->sem);
    e->state = TPU_DMA_IDLE;
    if (tpu_ev_wanted(d->ev, TPU_EV_DMA_DONE)) {
        tpu_event ev = { .kind = TPU_EV_DMA_DONE, .unit = TPU_U_DMA, .pc = e->pc, .word = e->word,
                         .index = i, .len = e->total, .space = e->to_vmem ? TPU_SPACE_VMEM
                                                                          : TPU_SPACE_HBM };
        tpu_ev_emit(d->ev, &ev);
    }
    tpu_ev_simple(d->ev, TPU_EV_RETIRE, TPU_U_DMA, e->pc, e->word);
}

int tpu_dma_step(tpu_dma *d, uint64_t t)
{
    int stall = -1;

    if (d->q.count) {                                   /* T13 */
        unsigned i = 0;
        while (i < d->nengines && d->eng[i].state != TPU_DMA_IDLE)
            i++;
        if (i < d->nengines) {
            start(d, i, tpu_queue_head(&d->q), t);
            tpu_queue_pop(&d->q);
        } else {
            stall = TPU_DMA_STALL_ENGINES;
        }
    }
    if (!d->norder)
        return stall;

    int any_xfer = 0;                                   /* T14 */
    for (unsigned k = 0; k < d->norder; k++) {
        tpu_dma_engine *e = &d->eng[d->order[k]];
        if (e->state == TPU_DMA_WAIT && e->total && t >= e->xfer_at)
            e->state = TPU_DMA_XFER;
        any_xfer |= e->state == TPU_DMA_XFER;
    }

    if (any_xfer) {                                     /* T15 */
        d->acc += d->num;
        uint64_t avail = d->acc / d->den;
        for (unsigned k = 0; k < d->norder && avail; k++) {
            tpu_dma_engine *e = &d->eng[d->order[k]];
            if (e->state != TPU_DMA_XFER)
                continue;
            uint64_t want = e->left < avail ? e->left : avail;
            uint64_t got;
            if (e->wide) {                      /* 2 VMEM bytes per HBM byte */
                uint64_t cap = d->vmem->left / 2;
                got = want < cap ? want : cap;
                tpu_vmem_take(d->vmem, 2 * got);
            } else {
                got = tpu_vmem_take(d->vmem, want);
            }
            if (got < want)
                stall = TPU_DMA_STALL_VMEM;
            if (got) {
                move(d, e, got);
                avail -= got;
                d->acc -= got * d->den;
            }
        }
    }

    /* T17: finished engines leave the start order; a copy of 0 bytes
     * finishes at the end of its WAIT (its start cycle when L = 0). */
    unsigned kept = 0;
    int still = 0;
    for (unsigned k = 0; k < d->norder; k++) {
        unsigned i = d->order[k];
        tpu_dma_engine *e = &d->eng[i];
        int done = e->state == TPU_DMA_XFER ? e->left == 0
                 : e->total == 0 && t + 1 >= e->xfer_at;
        if (done)
            complete(d, i);
        else
            d->order[kept++] = i;
        still |= e->state == TPU_DMA_XFER && e->left != 0;
    }
    d->norder = kept;
    if (any_xfer)
        d->acc = still ? d->acc % d->den : 0;
    return stall;
}
