/*
 * parallel.c - the cores of a system on several host threads, with the
 * one-thread result bit for bit (conservative parallel simulation).
 *
 * Cores meet only on ICI links, and a byte that leaves in cycle t lands in
 * cycle t + ici_latency (T31).  So in a window of W = ici_latency cycles
 * [T, T + W) no core reads anything another core sends in the same window:
 * what it receives left in an earlier window.  Each thread steps its cores
 * through the whole window (compute, then commit, cycle by cycle: the same
 * order of effects as the serial loop, since nothing a core does in cycle t
 * reaches another core before t + W); what a core sends goes to a staging
 * link of its own, which the main thread appends to the real link between
 * windows, in link order.  No lock is taken inside a window.  One thread
 * runs windows too: a core's state stays in the host's caches for a whole
 * window instead of being evicted by the other cores every cycle (`make
 * bench` runs 16 v5e cores both ways; docs/collectives.md has the numbers).
 *
 * Between windows the main thread looks at what the serial loop would
 * have decided in one of the window's cycles:
 *   - every core halted and nothing left on a wire: the serial loop would
 *     have stopped in cycle max(last halt, last landing); halted cores do
 *     nothing in the cycles after that, so that is the cycle count;
 *   - the cycle limit: windows end at it, so every core stands where the
 *     serial loop would;
 *   - a run-time error, or a deadlock (every core that has not halted
 *     stuck on sem.wait with nothing on the wires): the serial loop would
 *     have stopped in the middle of the window, where the other cores were
 *     not; the system is rebuilt from its object and runs serially from
 *     cycle 0, which gives that error exactly.  It costs a second run, only
 *     for runs that fail.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "system_impl.h"

typedef struct tpu_pool tpu_pool;
typedef struct worker_arg {
    tpu_pool *p;
    unsigned k;                 /* this thread's index: it steps cores k, k + n, ... */
} worker_arg;

struct tpu_pool {
    tpu_system *s;
    unsigned nthreads;
    pthread_t *tid;
    worker_arg *arg;
    pthread_barrier_t start, done;
    uint64_t t0, t1;            /* the window */
    int quit;
};

/* Thread k steps the owned cores k, k + n, k + 2n, ... through the window. */
static void run_window(tpu_pool *p, unsigned k)
{
    tpu_system *s = p->s;
    for (unsigned i = k; i < s->nowned; i += p->nthreads) {
        tpu_core *core = s->cores[s->owned[i]];
        uint64_t *now = &core->own_clock;   /* in the core's own cache lines */
        for (uint64_t t = p->t0; t < p->t1 && !core->error; t++) {
            *now = t;
            tpu_core_compute(core);
            tpu_core_commit(core);
        }
        *now = p->t1;
    }
}

static void *worker(void *varg)
{
    const worker_arg *a = varg;
    tpu_pool *p = a->p;
    unsigned k = a->k;
    for (;;) {
        pthread_barrier_wait(&p->start);
        if (p->quit)
            return NULL;
        run_window(p, k);
        pthread_barrier_wait(&p->done);
    }
}

void tpu_pool_destroy(tpu_pool *p)
{
    if (!p)
        return;
    p->quit = 1;
    pthread_barrier_wait(&p->start);
    for (unsigned i = 1; i < p->nthreads; i++)
        pthread_join(p->tid[i], NULL);
    pthread_barrier_destroy(&p->start);
    pthread_barrier_destroy(&p->done);
    free(p->tid);
    free(p->arg);
    free(p);
}

static tpu_pool *pool_create(tpu_system *s, unsigned n)
{
    tpu_pool *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->s = s;
    p->nthreads = n;
    p->tid = calloc(n, sizeof *p->tid);
    p->arg = calloc(n, sizeof *p->arg);
    if (!p->tid || !p->arg || pthread_barrier_init(&p->start, NULL, n) ||
        pthread_barrier_init(&p->done, NULL, n)) {
        free(p->tid);
        free(p->arg);
        free(p);
        return NULL;
    }
    p->tid[0] = pthread_self();
    for (unsigned i = 1; i < n; i++) {
        p->arg[i] = (worker_arg){ p, i };
        if (pthread_create(&p->tid[i], NULL, worker, &p->arg[i])) {
            /* run with the threads made so far: shrink the barriers */
            p->nthreads = i;
            pthread_barrier_destroy(&p->start);
            pthread_barrier_destroy(&p->done);
            pthread_barrier_init(&p->start, NULL, i);
            pthread_barrier_init(&p->done, NULL, i);
            break;
        }
    }
    return p;
}

int tpu_system_parallel_ok(const tpu_system *s)
{
    return (s->threads >= 1 || s->part.nparts > 1) && s->ncores > 1 && s->bus.mask == 0 && s->bus.nsubs == 0 &&
           !s->serial_only && s->obj && s->state == TPU_RUNNING && s->cfg.ici_latency >= 1;
}

/* Point the cores' ports at the staging links (on) or back at the real ones. */
static void stage_ports(tpu_system *s, int on)
{
    for (unsigned c = 0; c < s->ncores; c++)
        for (unsigned q = 0; q < TPU_NUM_PORTS; q++) {
            tpu_ici_port *pt = &s->cores[c]->ici.port[q];
            if (pt->out)
                pt->out = on ? &s->stage[c * TPU_NUM_PORTS + q]
                             : &s->links[c * TPU_NUM_PORTS + q];
        }
}

static void own_clocks(tpu_system *s, int on)
{
    for (unsigned c = 0; c < s->ncores; c++)
        s->cores[c]->cycle = on ? &s->cores[c]->own_clock : &s->cycle;
}

/* ---- what was sent in a window reaches the links ------------------------------------ */

/* A growing byte buffer. */
typedef struct bytes {
    uint8_t *b;
    size_t n, cap;
} bytes;

static int put(bytes *o, const void *p, size_t n)
{
    if (o->n + n > o->cap) {
        size_t cap = o->cap ? o->cap : 4096;
        while (cap < o->n + n)
            cap *= 2;
        uint8_t *nb = realloc(o->b, cap);
        if (!nb)
            return -1;
        o->b = nb;
        o->cap = cap;
    }
    memcpy(o->b + o->n, p, n);
    o->n += n;
    return 0;
}

/* A link's staged chunks for another process: the link's index and chunk
 * count, then per chunk its fields and bytes. */
static int pack(bytes *o, uint32_t link, const tpu_link *l)
{
    uint32_t head[2] = { link, (uint32_t)l->n };
    if (put(o, head, sizeof head))
        return -1;
    for (size_t i = 0; i < l->n; i++) {
        const tpu_link_chunk *ch = &l->c[l->head + i];
        uint64_t f[5] = { ch->arrive, ch->addr, ch->len, (uint64_t)(int64_t)ch->rsem, ch->total };
        if (put(o, f, sizeof f) || (ch->len && put(o, l->buf + ch->off, ch->len)))
            return -1;
    }
    return 0;
}

/* Append a packed buffer's chunks to our links; the latest landing cycle
 * or -1 (bad data, out of memory). */
static int64_t unpack(tpu_system *s, const uint8_t *b, size_t n)
{
    int64_t last = 0;
    tpu_link tmp;
    memset(&tmp, 0, sizeof tmp);
    size_t at = 0, nl = (size_t)s->ncores * TPU_NUM_PORTS;
    while (at < n) {
        uint32_t head[2];
        if (n - at < sizeof head)
            return -1;
        memcpy(head, b + at, sizeof head);
        at += sizeof head;
        if (head[0] >= nl)
            return -1;
        for (uint32_t k = 0; k < head[1]; k++) {
            uint64_t f[5];
            if (n - at < sizeof f)
                return -1;
            memcpy(f, b + at, sizeof f);
            at += sizeof f;
            if (f[2] > n - at)
                return -1;
            /* one chunk through a one-chunk link, so tpu_link_append does the work */
            tpu_link_chunk ch = { .arrive = f[0], .addr = f[1], .len = f[2], .off = 0,
                                  .rsem = (int)(int64_t)f[3], .total = f[4] };
            tmp.c = &ch;
            tmp.head = 0;
            tmp.n = tmp.cap = 1;
            tmp.buf = (uint8_t *)(uintptr_t)(b + at);
            tmp.bhead = 0;
            tmp.blen = tmp.bcap = f[2];
            int64_t l = tpu_link_append(&s->links[head[0]], &tmp);
            if (l < 0)
                return -1;
            if (l > last)
                last = l;
            at += f[2];
        }
    }
    return last;
}

/* Append what was sent in the window to the links: ours directly, those
 * into another process's cores through the partition's exchange.  -1:
 * out of memory or a failed exchange. */
static int flush(tpu_system *s)
{
    const tpu_partition *pt = &s->part;
    unsigned np = pt->nparts > 1 ? pt->nparts : 1;
    bytes out[np];
    memset(out, 0, sizeof out);
    int rc = 0;
    for (unsigned i = 0; i < s->ncores * TPU_NUM_PORTS && !rc; i++) {
        if (!s->stage[i].n)
            continue;
        int to = np > 1 ? tpu_system_neighbour(s, i / TPU_NUM_PORTS, i % TPU_NUM_PORTS) : -1;
        if (np > 1 && to >= 0 && pt->owner[to] != pt->self) {
            rc = pack(&out[pt->owner[to]], i, &s->stage[i]);
            s->stage[i].head = s->stage[i].n = 0;
            s->stage[i].bhead = s->stage[i].blen = 0;
            continue;
        }
        int64_t last = tpu_link_append(&s->links[i], &s->stage[i]);
        if (last < 0)
            rc = -1;
        else if ((uint64_t)last > s->last_arrive)
            s->last_arrive = (uint64_t)last;
    }
    if (np > 1) {
        void *ob[np], *in[np];
        size_t on[np], inn[np];
        for (unsigned q = 0; q < np; q++) {
            ob[q] = out[q].b;
            on[q] = out[q].n;
            in[q] = NULL;
            inn[q] = 0;
        }
        /* every process takes part in the exchange, even after an error here */
        if (pt->exchange(pt->ctx, ob, on, in, inn))
            rc = -1;
        for (unsigned q = 0; q < np; q++) {
            if (!rc && in[q] && inn[q]) {
                int64_t last = unpack(s, in[q], inn[q]);
                if (last < 0)
                    rc = -1;
                else if ((uint64_t)last > s->last_arrive)
                    s->last_arrive = (uint64_t)last;
            }
            free(in[q]);
            free(out[q].b);
        }
    }
    return rc;
}

/* Are the links into our cores empty? */
static int our_wires_empty(const tpu_system *s)
{
    if (s->part.nparts <= 1)
        return tpu_system_links_empty(s);
    for (unsigned i = 0; i < s->ncores * TPU_NUM_PORTS; i++) {
        int to = tpu_system_neighbour(s, i / TPU_NUM_PORTS, i % TPU_NUM_PORTS);
        if (to >= 0 && tpu_system_owns(s, (unsigned)to) && !tpu_link_empty(&s->links[i]))
            return 0;
    }
    return 1;
}

/* Start again from the object on one thread (see the top of the file). */
static enum tpu_stop restart_serially(tpu_system *s)
{
    char err[512];
    s->serial_only = 1;
    if (tpu_system_rebuild(s, err, sizeof err) < 0) {
        snprintf(s->error, sizeof s->error, "cannot restart the run on one thread: %s", err);
        s->state = TPU_STOP_ERROR;
        return s->state;
    }
    return TPU_RUNNING;         /* the caller's serial loop goes on from cycle 0 */
}

enum tpu_stop tpu_system_run_parallel(tpu_system *s, uint64_t max_cycles)
{
    size_t nl = (size_t)s->ncores * TPU_NUM_PORTS;
    if (!s->stage && !(s->stage = calloc(nl, sizeof *s->stage)))
        return TPU_RUNNING;     /* no memory for it: the serial loop does the work */
    if (!s->owned && !(s->owned = calloc(s->ncores, sizeof *s->owned)))
        return TPU_RUNNING;
    s->nowned = 0;
    for (unsigned c = 0; c < s->ncores; c++)
        if (tpu_system_owns(s, c))
            s->owned[s->nowned++] = c;
    unsigned n = s->threads > 1 ? s->threads : 1;
    if (n > s->nowned)
        n = s->nowned ? s->nowned : 1;
    if (s->pool && s->pool->nthreads != n) {
        tpu_pool_destroy(s->pool);
        s->pool = NULL;
    }
    if (!s->pool && !(s->pool = pool_create(s, n)))
        return TPU_RUNNING;
    tpu_pool *p = s->pool;
    uint64_t w = s->cfg.ici_latency;

    s->error[0] = 0;
    stage_ports(s, 1);
    own_clocks(s, 1);
    enum tpu_stop result = TPU_RUNNING;
    int restart = 0;
    while (!max_cycles || s->cycle < max_cycles) {
        p->t0 = s->cycle;
        p->t1 = s->cycle + w;
        if (max_cycles && p->t1 > max_cycles)
            p->t1 = max_cycles;
        pthread_barrier_wait(&p->start);
        run_window(p, 0);
        pthread_barrier_wait(&p->done);
        s->cycle = p->t1;
        s->windows++;
        /* what the serial loop would decide, over our cores, then over all:
         * v[0] an error or no memory, v[1] a core not halted, v[2] a core
         * neither halted nor stuck, v[3] a byte on a wire into a core, v[4]
         * the latest landing cycle, v[5] the latest halt */
        uint64_t v[6] = { 0, 0, 0, 0, 0, 0 };
        if (flush(s) < 0)
            v[0] = 1;           /* the serial run reports the out-of-memory */
        for (unsigned i = 0; i < s->nowned; i++) {
            tpu_core *core = s->cores[s->owned[i]];
            if (core->error || core->vmem.log.oom || core->hbm.oom)
                v[0] = 1;
            v[1] |= !core->halted;
            v[2] |= !(core->halted || core->stuck);
            if (core->halted && core->halt_cycle > v[5])
                v[5] = core->halt_cycle;
        }
        v[3] = !our_wires_empty(s);
        v[4] = s->last_arrive;
        if (s->part.nparts > 1 && s->part.max_u64(s->part.ctx, v, 6))
            v[0] = 1;
        if (v[0]) {
            restart = 1;
            break;
        }
        if (!v[1] && !v[3]) {
            /* the serial loop stopped after the cycle in which the last core
             * halted or the last byte landed, whichever came later */
            uint64_t end = v[4] > v[5] ? v[4] : v[5];
            s->cycle = end + 1;
            s->state = TPU_STOP_HALT;
            result = TPU_STOP_HALT;
            break;
        }
        if (!v[2] && !v[3] && v[1]) {
            restart = 1;        /* a deadlock: the serial loop names its cycle */
            break;
        }
    }
    own_clocks(s, 0);
    stage_ports(s, 0);
    if (restart)
        return restart_serially(s);
    return result;              /* TPU_RUNNING at the cycle limit: the serial loop reports it */
}
