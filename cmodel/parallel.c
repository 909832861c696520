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
 * window instead of being evicted by the other cores every cycle (with 16
 * v5e cores that alone is 2.5 times faster).
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

/* Thread k steps cores k, k + n, k + 2n, ... through the window. */
static void run_window(tpu_pool *p, unsigned k)
{
    tpu_system *s = p->s;
    for (unsigned c = k; c < s->ncores; c += p->nthreads) {
        tpu_core *core = s->cores[c];
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
    return s->threads >= 1 && s->ncores > 1 && s->bus.mask == 0 && s->bus.nsubs == 0 &&
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

/* Append what was sent in the window to the links.  -1: out of memory. */
static int flush(tpu_system *s)
{
    for (unsigned i = 0; i < s->ncores * TPU_NUM_PORTS; i++) {
        if (!s->stage[i].n)
            continue;
        int64_t last = tpu_link_append(&s->links[i], &s->stage[i]);
        if (last < 0)
            return -1;
        if ((uint64_t)last > s->last_arrive)
            s->last_arrive = (uint64_t)last;
    }
    return 0;
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
    unsigned n = s->threads < s->ncores ? s->threads : s->ncores;
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
        if (flush(s) < 0) {
            restart = 1;        /* the serial run reports the out-of-memory */
            break;
        }
        int halted = 1, stuck = 1;
        for (unsigned c = 0; c < s->ncores; c++) {
            tpu_core *core = s->cores[c];
            if (core->error || core->vmem.log.oom || core->hbm.oom) {
                restart = 1;
                break;
            }
            halted &= core->halted;
            stuck &= core->halted || core->stuck;
        }
        if (restart)
            break;
        int wires_empty = tpu_system_links_empty(s);
        if (halted && wires_empty) {
            /* the serial loop stopped after the cycle in which the last core
             * halted or the last byte landed, whichever came later */
            uint64_t end = s->last_arrive;
            for (unsigned c = 0; c < s->ncores; c++)
                if (s->cores[c]->halt_cycle > end)
                    end = s->cores[c]->halt_cycle;
            s->cycle = end + 1;
            s->state = TPU_STOP_HALT;
            result = TPU_STOP_HALT;
            break;
        }
        if (stuck && wires_empty && !halted) {
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
