/*
 * ici.c - ICI ports and links (see ici.h).
 *
 * A lone dma.ici of S bytes dispatched in cycle t starts in t + 1 and sends
 * its first bytes in that cycle; with the link's exact rate num/den its last
 * byte leaves in t + ceil(S * den / num) (lsem at the end of that cycle) and
 * lands ici_latency cycles later (rsem at the end of that cycle).
 */
#include "cmutant.h"
#include "ici.h"

#include <stdlib.h>
#include <string.h>

void tpu_ici_init(tpu_ici *x, unsigned qdepth, uint64_t num, uint64_t den, uint64_t latency,
                  tpu_vmem *vmem, tpu_sem_inc *sems, const tpu_evsrc *ev)
{
    memset(x, 0, sizeof *x);
    tpu_queue_init(&x->q, qdepth);
    x->num = num;
    x->den = den ? den : 1;
    x->latency = latency;
    x->vmem = vmem;
    x->sems = sems;
    x->ev = ev;
}

void tpu_link_free(tpu_link *l)
{
    free(l->c);
    free(l->buf);
    memset(l, 0, sizeof *l);
}

/* ---- link FIFOs -------------------------------------------------------- */

/* Append a chunk with room for len bytes; returns the bytes to fill, or
 * NULL when out of memory (l->oom).  Both FIFOs slide down to the start of
 * their arrays before they grow, so they stay as large as a hop needs. */
static uint8_t *link_push(tpu_link *l, const tpu_link_chunk *ch, uint64_t len)
{
    if (l->head + l->n == l->cap) {
        if (l->head) {
            memmove(l->c, l->c + l->head, l->n * sizeof *l->c);
            l->head = 0;
        } else {
            size_t cap = l->cap ? 2 * l->cap : 64;
            tpu_link_chunk *c = realloc(l->c, cap * sizeof *c);
            if (!c) {
                l->oom = 1;
                return NULL;
            }
            l->c = c;
            l->cap = cap;
        }
    }
    if (l->bhead + l->blen + len > l->bcap) {
        if (l->bhead) {
            memmove(l->buf, l->buf + l->bhead, l->blen);
            for (size_t i = 0; i < l->n; i++)
                l->c[l->head + i].off -= l->bhead;
            l->bhead = 0;
        }
        if (l->blen + len > l->bcap) {
            size_t cap = l->bcap ? l->bcap : 4096;
            while (l->blen + len > cap)
                cap *= 2;
            uint8_t *b = realloc(l->buf, cap);
            if (!b) {
                l->oom = 1;
                return NULL;
            }
            l->buf = b;
            l->bcap = cap;
        }
    }
    tpu_link_chunk *dst = &l->c[l->head + l->n++];
    *dst = *ch;
    dst->len = len;
    dst->off = l->bhead + l->blen;
    l->blen += len;
    return l->buf + dst->off;
}

static void link_pop(tpu_link *l)
{
    const tpu_link_chunk *ch = &l->c[l->head];
    l->bhead += ch->len;
    l->blen -= ch->len;
    l->head++;
    l->n--;
    if (!l->n)
        l->head = 0;
    if (!l->blen)
        l->bhead = 0;
}

/* Move every chunk of src, in order, to the end of dst; src ends empty.
 * Returns the latest landing cycle moved (0 if none), or -1 when out of
 * memory (dst->oom). */
int64_t tpu_link_append(tpu_link *dst, tpu_link *src)
{
    uint64_t last = 0;
    for (size_t i = 0; i < src->n; i++) {
        const tpu_link_chunk *ch = &src->c[src->head + i];
        uint8_t *b = link_push(dst, ch, ch->len);
        if (!b)
            return -1;
        if (ch->len)
            memcpy(b, src->buf + ch->off, ch->len);
        if (ch->arrive > last)
            last = ch->arrive;
    }
    src->head = src->n = 0;
    src->bhead = src->blen = 0;
    return (int64_t)last;
}

/* ---- receiving (T31) ----------------------------------------------------- */

void tpu_ici_receive(tpu_ici *x, uint64_t t)
{
    if (!x->nin)
        return;
    for (unsigned p = 0; p < TPU_NUM_PORTS; p++) {
        tpu_link *l = x->port[p].in;
        if (!l)
            continue;
        while (l->n && l->c[l->head].arrive <= t) {
            const tpu_link_chunk *ch = &l->c[l->head];
            if (ch->len) {
                tpu_vmem_must(x->vmem, ch->len);
                uint8_t *dst = tpu_vmem_write(x->vmem, TPU_U_ICI, ch->addr, ch->len);
                if (tpu_ev_wanted(x->ev, TPU_EV_VMEM_ACCESS)) {
                    tpu_event ev = { .kind = TPU_EV_VMEM_ACCESS, .unit = TPU_U_ICI,
                                     .index = TPU_ACCESS_WRITE, .value = p, .issued = UINT64_MAX,
                                     .space = TPU_SPACE_VMEM, .addr = ch->addr, .len = ch->len };
                    tpu_ev_emit(x->ev, &ev);
                }
                if (dst)
                    memcpy(dst, l->buf + ch->off, ch->len);
                x->bytes_received += ch->len;
            }
            if (ch->rsem >= 0) {
                tpu_sem_bump(x->sems, (unsigned)ch->rsem);
                if (tpu_ev_wanted(x->ev, TPU_EV_ICI_RECV)) {
                    tpu_event ev = { .kind = TPU_EV_ICI_RECV, .unit = TPU_U_ICI, .index = p,
                                     .len = ch->total, .space = TPU_SPACE_VMEM,
                                     .addr = ch->addr + ch->len - ch->total };
                    tpu_ev_emit(x->ev, &ev);
                }
            }
            link_pop(l);
        }
    }
}

/* ---- sending (T30) --------------------------------------------------------- */

static void finish_send(tpu_ici *x, unsigned p)
{
    tpu_ici_port *pt = &x->port[p];
    tpu_sem_bump(x->sems, pt->lsem);
    pt->sending = 0;
    pt->acc = 0;
    x->nsending--;
    if (tpu_ev_wanted(x->ev, TPU_EV_ICI_SEND)) {
        tpu_event ev = { .kind = TPU_EV_ICI_SEND, .unit = TPU_U_ICI, .pc = pt->pc,
                         .word = pt->word, .index = p, .len = pt->bytes,
                         .space = TPU_SPACE_VMEM, .addr = pt->src };
        tpu_ev_emit(x->ev, &ev);
    }
    tpu_ev_simple(x->ev, TPU_EV_RETIRE, TPU_U_ICI, pt->pc, pt->word);
}

/* Send up to what the link's credit and the arbiter allow on port p. */
static int send_bytes(tpu_ici *x, unsigned p, uint64_t t)
{
    tpu_ici_port *pt = &x->port[p];
    int stall = -1;
    uint64_t left = pt->bytes - pt->sent;
    uint64_t got = 0;
    if (left) {
        pt->acc += x->num;
        uint64_t avail = pt->acc / x->den;
        uint64_t want = left < avail ? left : avail;
        got = tpu_vmem_take(x->vmem, want);
        if (got < want)
            stall = TPU_ICI_STALL_VMEM;
    }
    int last = pt->sent + got == pt->bytes;
    if (got || last) {
        tpu_link_chunk ch = { .arrive = t + CMUTANT(105, x->latency, x->latency - 1), .addr = pt->rdst + pt->sent,
                              .rsem = last ? pt->rsem : -1, .total = pt->bytes };
        uint8_t *dst = link_push(pt->out, &ch, got);
        if (dst && got)
            memcpy(dst, tpu_vmem_at(x->vmem, pt->src + pt->sent, got), got);
        if (got)
            tpu_ev_access(x->ev, TPU_U_ICI, TPU_ACCESS_READ, pt->pc, pt->word, pt->issued,
                          pt->src + pt->sent, got);
        pt->sent += got;
        pt->acc -= got * x->den;
        x->bytes_sent += got;
        x->port_bytes[p] += got;
    }
    if (last)
        finish_send(x, p);
    else
        pt->acc %= x->den;
    return stall;
}

int tpu_ici_send(tpu_ici *x, uint64_t t)
{
    int stall = -1;
    if (!x->q.count && !x->nsending)
        return -1;
    if (x->q.count) {
        const tpu_qentry *e = tpu_queue_head(&x->q);
        unsigned p = (unsigned)e->v[0] % TPU_NUM_PORTS;
        tpu_ici_port *pt = &x->port[p];
        if (pt->sending) {
            stall = TPU_ICI_STALL_LINK;
        } else {
            /* dma.ici port, rdst, vsrc, bytes, lsem, rsem */
            pt->sending = 1;
            x->nsending++;
            pt->rdst = (uint64_t)e->v[1];
            pt->src = (uint64_t)e->v[2];
            pt->bytes = (uint64_t)e->v[3];
            pt->lsem = (uint8_t)e->v[4];
            pt->rsem = (uint8_t)e->v[5];
            pt->sent = 0;
            pt->acc = 0;
            pt->pc = e->pc;
            pt->word = e->word;
            pt->issued = e->issued;
            tpu_queue_pop(&x->q);
        }
    }
    for (unsigned p = 0; p < TPU_NUM_PORTS && x->nsending; p++) {
        if (!x->port[p].sending || !x->port[p].out)
            continue;
        int s = send_bytes(x, p, t);
        if (stall < 0)
            stall = s;
    }
    return stall;
}
