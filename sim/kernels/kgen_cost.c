/*
 * kgen_cost.c - how long a GEMM plan should take, from the config's
 * numbers and the rules of docs/timing.md, without running it.
 *
 * The prediction walks the plan's program (simulate(), below): every DMA,
 * mxu.lw, mxu.mm and sem.wait at the cycle the sequencer reaches it, the
 * DMA queue, engines and HBM port, each MXU's queue, loads and streams.
 * The fill, the drain, the overlap of write-backs and of the next X tile,
 * each DMA's latency and a convolution's im2col loader are then what the
 * machine does with them (docs/workloads.md, "The cost model").
 *
 * The sums of the step terms (analytic(), the fallback for plans too long
 * to walk, and the bound printed) see a plan as steps (one K-tile of one
 * column group of one M-tile) of four kinds (full or last M-tile, full or
 * last column group), each costing the largest of
 *
 *   math    the rows each MXU streams, max(rows, N/W): a new weight tile
 *           can start only every N/W cycles (T19, T25);
 *   memory  the HBM bytes the step brings in or writes back (its share of
 *           the W block, of the X tile and of the Y set) at the HBM rate,
 *           or, when blocks are small, the HBM latency of each block
 *           shared by the engines in flight (T13-T18);
 *   issue   the instructions the sequencer issues for the step, one a
 *           cycle (T1): the generated loop's own overhead.
 */
#include <stdlib.h>
#include <string.h>

#include "kgen.h"

/* Instructions the emitted code issues (kgen_emit.c), counted by hand
 * from what it writes: a tile's MXU instructions, the loop around them,
 * a block's fetch, a group's set-up and write-back. */
static double insn_tile(const kgen_plan *p) { return 4.0 * (double)p->mxus + 9.0; }
static double insn_block(const kgen_plan *p) { return 22.0 + (double)p->mxus; }
static double insn_group(const kgen_plan *p) { return 26.0 + 2.0 * (double)p->mxus; }

/* The terms of each kind of step, summed (the bound and the fallback
 * prediction for plans too long to walk). */
static void analytic(const tpu_config *cfg, const kgen_plan *p, kgen_cost *c)
{
    uint64_t num, den;
    tpu_config_bytes_per_cycle(cfg->hbm_bw, cfg->clock_hz, &num, &den);
    double bw = (double)num / (double)den;
    double L = (double)cfg->hbm_latency, N = (double)p->n_mxu;
    double lw_gap = N / (double)p->wloads;
    double kt = (double)p->kt, kb = (double)p->kb;
    unsigned inflight = p->ring - 1 < cfg->dma_engines ? p->ring - 1 : (unsigned)cfg->dma_engines;
    if (inflight < 1)
        inflight = 1;
    double wcol = p->o.dtype == KGEN_W8 ? 1.0 : 2.0;   /* HBM bytes of W per column per row */

    c->t_math = c->t_memory = c->t_issue = 0;
    c->predicted = 0;
    c->hbm_bytes = 0;
    c->flops = 0;
    double sum_steps = 0, worst_m = 0, worst_mem = 0, worst_i = 0;

    /* the epilogue: the sequencer issues every VPU instruction of a group's
     * set (kgen_emit.c, writeback_epi); it overlaps the next group's
     * streams when VMEM has room for a vector access beside the MXUs'
     * (T12), else it holds them up */
    double epi_per_vec = 2.0 + ((p->epi & KGEN_EPI_BIAS) ? 1.0 : 0.0) + ((p->epi & KGEN_EPI_RELU) ? 1.0 : 0.0);
    double mxu_bytes = (double)p->mxus * 10.0 * N;
    int epi_overlap = (double)cfg->vmem_bw - mxu_bytes >= (double)p->sl * 4.0;
    double epi_serial = 0;

    for (int lastm = 0; lastm < 2; lastm++) {
        double nm = lastm ? 1 : (double)(p->mtiles - 1);
        double rows = lastm ? (double)p->tm_last : (double)p->tm;
        if (nm <= 0)
            continue;
        for (int lastg = 0; lastg < 2; lastg++) {
            double ng = lastg ? 1 : (double)(p->groups - 1);
            double cols = lastg ? (double)p->last_tiles * N : (double)p->tn;
            if (ng <= 0)
                continue;
            double steps = nm * ng * kt;
            double blk = kb * N * cols * wcol;            /* one W block's HBM bytes */
            double xshare = rows * (double)p->x_row / ((double)p->groups * kt);
            double yshare = rows * cols * 4.0 / kt;
            double bytes = blk / kb + xshare + yshare;
            double math = rows > lw_gap ? rows : lw_gap;
            double mem = bytes / bw;
            double lat = (L + blk / bw) / (double)inflight / kb;   /* latency-bound blocks */
            if (lat > mem)
                mem = lat;
            double issue = insn_tile(p) + insn_block(p) / kb + insn_group(p) / kt;
            if (p->epi) {
                double u = (double)p->epi_u, sl = (double)p->sl;
                double batches = (double)(uint64_t)((rows * (double)p->tn + u * sl - 1) / (u * sl));
                double e = batches * (u * epi_per_vec + 3.0 + ((p->epi & KGEN_EPI_BF16) ? 1.0 : 0.0))
                           + 16.0 + (double)p->epi_p + (double)p->mxus;
                if (epi_overlap)
                    issue += e / kt;
                else
                    epi_serial += nm * ng * e;
            }
            double t = math > mem ? math : mem;
            if (issue > t)
                t = issue;
            sum_steps += steps * t;
            c->t_math += steps * math;
            c->t_memory += steps * mem;
            c->t_issue += steps * issue;
            worst_m += steps * math;
            worst_mem += steps * mem;
            worst_i += steps * issue;
            c->hbm_bytes += (uint64_t)(steps * bytes + 0.5);
            /* tpu-sim counts 2 N^2 per row per MXU that streams (int8: 4);
             * in a narrower last group the idle MXUs stream too */
            c->flops += (uint64_t)(steps * (double)p->mxus * rows * 2.0 * N * N
                                   * (p->o.dtype == KGEN_INT8 ? 2 : 1));
        }
    }

    double x0 = (double)(p->mtiles > 1 ? p->tm : p->tm_last) * (double)p->x_row;
    double blk0 = kb * N * (double)(p->groups > 1 ? p->tn : p->last_tiles * p->n_mxu) * wcol;
    c->fill = L + (x0 + blk0) / bw + 4;
    double ylast = (double)p->tm_last * (double)p->last_tiles * N * 4.0;
    c->drain = 2.0 * N + L + ylast / bw + 4;
    double bubbles = 0;
    if (p->xbufs == 1 && p->mtiles > 1)
        bubbles = (double)(p->mtiles - 1)
                  * (2.0 * N + L + (double)p->x_tile / bw + (double)p->y_set / bw);
    if (p->epi) {
        double u = (double)p->epi_u, sl = (double)p->sl;
        double rows = (double)p->tm_last;
        double batches = (double)(uint64_t)((rows * (double)p->tn + u * sl - 1) / (u * sl));
        c->drain += batches * (u * epi_per_vec + 3.0) + 16.0;   /* the last set's, after the streams */
    }
    c->predicted = c->fill + sum_steps + bubbles + epi_serial + c->drain;

    /* the bound is the term the steps spent most of their time in */
    if (worst_i >= worst_m && worst_i >= worst_mem)
        c->bound = "issue";
    else if (worst_mem >= worst_m)
        c->bound = "memory";
    else
        c->bound = "compute";
}

/* ---- the walk: the plan's program, event by event ------------------------------------
 *
 * The program is walked in the order the sequencer issues it: every DMA,
 * every mxu.lw and mxu.mm, every sem.wait, with the instructions between
 * them counted one a cycle (T1).  Each unit is followed as timing.md
 * describes it:
 *
 *   DMA   a queue of Q entries (the sequencer stalls on a full one, T4);
 *         the head starts on an idle engine, at most one a cycle (T13),
 *         waits L cycles (T14), then moves its bytes; the HBM port gives
 *         its bytes to the oldest transfer first (T15), so transfers go
 *         through the port one after another; the semaphore counts at the
 *         last byte (T17).
 *   MXU   a queue of Q entries, one instruction started a cycle, in order;
 *         mxu.lw reads N rows, at most W loads reading (T19); a stream
 *         starts when the previous one has read its rows (T21) and
 *         signals 2N cycles after its last row (T24a); the load's
 *         semaphore counts after its last row is read (T20a).
 *   VPU   the epilogue's instructions, issued one a cycle.
 *
 * So the fill, the drain, each DMA's latency, the loader's DMAs and the
 * engines they share with the W blocks and the write-backs are what the
 * machine does with them, not separate terms. */

#define SIM_MAX_STEPS 4000000.0    /* longer plans: the analytic sum */
#define SIM_QMAX 64
#define SIM_EMAX 64
#define SIM_WMAX 64
#define SIM_MXUMAX 64

typedef struct {
    double take[SIM_QMAX];         /* when each of the last Q entries left the queue */
    unsigned n;
} simq;

typedef struct {
    simq q;
    double last_start;             /* the last instruction started */
    double lw[SIM_WMAX];           /* the last W loads' starts */
    unsigned nlw;
    double s_free;                 /* the next stream may start (previous read its rows) */
    double done;                   /* the last stream's results are written */
} simmxu;

typedef struct {
    const kgen_plan *p;
    double t;                      /* the cycle the sequencer issues its next instruction */
    unsigned Q, W, E;
    double L, bw, N, lwgap;
    /* DMA */
    simq dq;
    double eng[SIM_EMAX];
    double dstart, port, dma_done;
    /* MXUs */
    simmxu m[SIM_MXUMAX];
    double first_stream, last_stream_end;
    /* semaphores: completion times, consumed in order */
    double *wdone;                 /* W block b landed */
    double *rddone;                /* every MXU has read block b */
    double ywb[4];                 /* the last write-backs' completions, by index mod 4 */
    unsigned nywb;
    double *xdone;                 /* X chunk completions of the tile being loaded */
    size_t nx, xcap;
} sim;

/* Queue slot: an entry issued now may enter when the one Q before left. */
static double q_ready(const simq *q, unsigned Q)
{
    if (q->n < Q)
        return 0;
    return q->take[q->n % Q] + 1;
}

static void q_take(simq *q, unsigned Q, double t)
{
    q->take[q->n % Q] = t;
    q->n++;
}

/* Issue a DMA of `bytes` now; returns the cycle a sem.wait on it can issue. */
static double sim_dma(sim *s, double bytes)
{
    double ti = s->t, r = q_ready(&s->dq, s->Q);
    if (r > ti)
        ti = r;
    s->t = ti + 1;
    unsigned e = 0;
    for (unsigned i = 1; i < s->E; i++)
        if (s->eng[i] < s->eng[e])
            e = i;
    double st = ti + 1;
    if (s->eng[e] > st)
        st = s->eng[e];
    if (s->dstart + 1 > st)
        st = s->dstart + 1;
    s->dstart = st;
    q_take(&s->dq, s->Q, st);
    double x = st + s->L;
    if (s->port > x)
        x = s->port;
    double end = x + (bytes > 0 ? bytes / s->bw : 0) - 1;
    if (end < st + s->L - 1)
        end = st + s->L - 1;
    if (bytes > 0)
        s->port = end + 1;
    s->eng[e] = end + 1;
    if (end + 1 > s->dma_done)
        s->dma_done = end + 1;
    return end + 1;
}

static void sim_wait(sim *s, double when)
{
    if (when > s->t)
        s->t = when;
    s->t += 1;
}

/* mxu.lw then mxu.mm of `rows` on MXU m, issued now; returns the cycle its
 * load has read the tile (T20a, the semaphore's). */
static double sim_lw_mm(sim *s, unsigned mi, double rows, double *stream_done)
{
    simmxu *m = &s->m[mi];
    double ti = s->t, r = q_ready(&m->q, s->Q);
    if (r > ti)
        ti = r;
    s->t = ti + 1;
    double l = ti + 1;
    if (m->last_start + 1 > l)
        l = m->last_start + 1;
    if (m->nlw >= s->W) {
        double o = m->lw[(m->nlw - s->W) % s->W] + s->N;
        if (o > l)
            l = o;
    }
    m->lw[m->nlw % s->W] = l;
    m->nlw++;
    m->last_start = l;
    q_take(&m->q, s->Q, l);
    /* the stream */
    ti = s->t;
    r = q_ready(&m->q, s->Q);
    if (r > ti)
        ti = r;
    s->t = ti + 1;
    double st = ti + 1;
    if (l + 1 > st)
        st = l + 1;
    if (m->s_free > st)
        st = m->s_free;
    m->last_start = st;
    q_take(&m->q, s->Q, st);
    m->s_free = st + rows;
    m->done = st + rows + 2 * s->N;
    if (s->first_stream < 0 || st < s->first_stream)
        s->first_stream = st;
    if (m->done > s->last_stream_end)
        s->last_stream_end = m->done;
    *stream_done = m->done;
    return l + s->N;
}

/* Instructions of the conv loader's chunk (one output image row), as
 * kgen_emit.c's cv_chunk writes them. */
static double cv_chunk_insns(const kgen_plan *p)
{
    const kgen_conv_lower *c = &p->cv;
    double n = 2 + 9;
    for (uint64_t r = 0; r < c->r; r++) {
        int64_t lo = (int64_t)c->pad - (int64_t)r, hi = (int64_t)c->h + (int64_t)c->pad - (int64_t)r;
        n += 1 + (lo > 0 ? 2 : 0) + (hi <= (int64_t)((c->oh - 1) * c->stride) ? 2 : 0);
        n += 4.0 * c->nseg + (lo > 0 || hi <= (int64_t)((c->oh - 1) * c->stride) ? 1 : 0);
    }
    return n - (double)(c->r * c->nseg);   /* the DMAs count themselves */
}

typedef struct {
    uint64_t tile;                 /* the M-tile being loaded */
    uint64_t left;                 /* chunks of it still to issue */
    uint64_t rows_left;            /* rows (gemm) of it still to issue */
} xload;

/* One chunk of X: its DMAs, their completion recorded. */
static void sim_x_chunk(sim *s, xload *x)
{
    const kgen_plan *p = s->p;
    if (!x->left)
        return;
    double done = 0;
    if (p->cv.on) {
        const kgen_conv_lower *c = &p->cv;
        s->t += cv_chunk_insns(p) * 0.5;
        for (uint64_t r = 0; r < c->r; r++)
            for (unsigned k = 0; k < c->nseg; k++) {
                s->t += 4;
                done = sim_dma(s, (double)(c->seg[k].count * c->seg[k].bytes));
            }
        s->t += cv_chunk_insns(p) * 0.5;
    } else {
        uint64_t rows = x->rows_left < p->xcr ? x->rows_left : p->xcr;
        x->rows_left -= rows;
        s->t += 5;
        done = sim_dma(s, (double)(rows * p->x_row));
        s->t += 6;
    }
    x->left--;
    if (s->nx == s->xcap) {
        s->xcap = s->xcap ? 2 * s->xcap : 64;
        double *n = realloc(s->xdone, s->xcap * sizeof *n);
        if (!n) {
            s->nx = 0;                    /* keeps the walk going: only the timing suffers */
            return;
        }
        s->xdone = n;
    }
    s->xdone[s->nx++] = done;
}

static void x_cursor_sim(const kgen_plan *p, xload *x, uint64_t tile)
{
    x->tile = tile;
    if (p->o.xres) {
        x->left = 0;
        return;
    }
    uint64_t rows = tile + 1 == p->mtiles ? p->tm_last : p->tm;
    x->rows_left = rows;
    if (p->cv.on)
        x->left = tile + 1 == p->mtiles ? p->cv.tmq_last : p->cv.tmq;
    else
        x->left = (rows + p->xcr - 1) / p->xcr < p->xch ? (rows + p->xcr - 1) / p->xcr : p->xch;
}

/* FETCH: a chunk of X if one is due, then W block fq if any is left. */
static void sim_fetch(sim *s, xload *x, uint64_t *fq)
{
    const kgen_plan *p = s->p;
    sim_x_chunk(s, x);
    s->t += 2;
    if (*fq >= p->blocks) {
        s->t += 1;
        return;
    }
    if (*fq >= p->ring) {
        s->t += 2;
        sim_wait(s, s->rddone[*fq - p->ring]);
        s->t += (double)p->mxus - 1;
    }
    uint64_t g = (*fq / p->kblocks) % p->groups;
    double cols = g + 1 == p->groups ? (double)(p->last_tiles * p->n_mxu) : (double)p->tn;
    s->t += 4;
    s->wdone[*fq] = sim_dma(s, (double)(p->kb * p->n_mxu) * cols * (p->o.dtype == KGEN_W8 ? 1 : 2));
    s->t += 12;
    (*fq)++;
}

/* The epilogue's instructions for a set of `rows` rows. */
static double epi_insns(const kgen_plan *p, double rows)
{
    if (!p->epi)
        return 0;
    double per = 2.0 + ((p->epi & KGEN_EPI_BIAS) ? 1.0 : 0.0) + ((p->epi & KGEN_EPI_RELU) ? 1.0 : 0.0);
    double u = (double)p->epi_u, sl = (double)p->sl;
    double batches = (double)(uint64_t)((rows * (double)p->tn + u * sl - 1) / (u * sl));
    return batches * (u * per + 3.0 + ((p->epi & KGEN_EPI_BF16) ? 1.0 : 0.0)) + 12.0
           + (double)p->epi_p;
}

/* Write a group's set back: wait for its streams, the epilogue, the DMA. */
static void sim_writeback(sim *s, double ydone, double rows, double cols, int overlap)
{
    const kgen_plan *p = s->p;
    sim_wait(s, ydone);
    s->t += (double)p->mxus - 1;
    if (p->epi) {
        double e = epi_insns(p, rows);
        if (!overlap) {
            /* a vld finds no VMEM room while the MXUs stream: it waits
             * for the streams queued so far */
            double busy = 0;
            for (unsigned m = 0; m < p->mxus; m++)
                if (s->m[m].s_free > busy)
                    busy = s->m[m].s_free;
            if (busy > s->t)
                s->t = busy;
        }
        s->t += e + 2;
    }
    s->t += 4;
    double d = p->o.yres ? s->t : sim_dma(s, rows * cols * ((p->epi & KGEN_EPI_BF16) ? 2.0 : 4.0));
    s->ywb[s->nywb % 4] = d;
    s->nywb++;
}

static int simulate(const tpu_config *cfg, const kgen_plan *p, kgen_cost *c)
{
    sim S, *s = &S;
    memset(s, 0, sizeof S);
    s->p = p;
    s->Q = cfg->seq_queue_depth < SIM_QMAX ? (unsigned)cfg->seq_queue_depth : SIM_QMAX;
    s->W = p->wloads >= 1 && p->wloads < SIM_WMAX ? (unsigned)p->wloads : 1;
    s->E = cfg->dma_engines >= 1 ? (cfg->dma_engines < SIM_EMAX ? (unsigned)cfg->dma_engines : SIM_EMAX) : 1;
    s->L = (double)cfg->hbm_latency;
    uint64_t num, den;
    tpu_config_bytes_per_cycle(cfg->hbm_bw, cfg->clock_hz, &num, &den);
    s->bw = (double)num / (double)den;
    s->N = (double)p->n_mxu;
    s->first_stream = -1;
    if (p->mxus > SIM_MXUMAX || p->blocks == 0)
        return -1;
    s->wdone = calloc(p->blocks, sizeof *s->wdone);
    s->rddone = calloc(p->blocks, sizeof *s->rddone);
    if (!s->wdone || !s->rddone) {
        free(s->wdone);
        free(s->rddone);
        return -1;
    }
    double mxu_bytes = (double)p->mxus * 10.0 * s->N;
    int overlap = (double)cfg->vmem_bw - mxu_bytes >= (double)p->sl * 4.0;

    /* the bias patterns: a DMA per group */
    double bias_done = 0;
    if (p->epi & KGEN_EPI_BIAS) {
        s->t += 5;
        for (uint64_t g = 0; g < p->groups; g++) {
            bias_done = sim_dma(s, (double)(p->epi_p * p->sl * 4));
            s->t += 3;
        }
    }
    s->t += 16;
    xload X = { 0, 0, 0 };
    uint64_t fq = 0, rd = 0, used = 0;
    x_cursor_sim(p, &X, 0);
    s->t += 6;
    size_t xfrom = 0;
    while (X.left)
        sim_x_chunk(s, &X), s->t += 2;
    for (unsigned i = 0; i + 1 < p->ring; i++) {
        s->t += 1;
        sim_fetch(s, &X, &fq);
    }
    if (p->epi & KGEN_EPI_BIAS)
        sim_wait(s, bias_done);

    double prev_ydone = 0, prev_rows = 0, prev_cols = 0;
    uint64_t gi = 0;
    for (uint64_t mt = 0; mt < p->mtiles; mt++) {
        double rows = mt + 1 == p->mtiles ? (double)p->tm_last : (double)p->tm;
        s->t += 6;
        if (p->xbufs == 1 && mt > 0) {
            s->t += 1;
            sim_writeback(s, prev_ydone, prev_rows, prev_cols, overlap);
            x_cursor_sim(p, &X, mt);
            s->t += 8;
        }
        while (X.left)
            sim_x_chunk(s, &X), s->t += 2;
        double xw = 0;
        for (size_t i = xfrom; i < s->nx; i++)
            if (s->xdone[i] > xw)
                xw = s->xdone[i];
        xfrom = s->nx;
        if (!p->o.xres)
            sim_wait(s, xw);
        s->t += 4;
        for (uint64_t g = 0; g < p->groups; g++, gi++) {
            double cols = g + 1 < p->groups ? (double)p->tn
                          : p->y_cols_last ? (double)p->y_cols_last
                                           : (double)(p->last_tiles * p->n_mxu);
            s->t += 3;
            if (gi >= 2 && !p->o.yres)
                sim_wait(s, s->ywb[(gi - 2) % 4]);   /* the k-th wait takes the k-th write-back */
            s->t += 1;
            double ydone = 0;
            int wb_done = gi == 0 || (p->xbufs == 1 && g == 0);
            for (uint64_t k = 0; k < p->kt; k++) {
                uint64_t cb = k % p->kb;
                if (p->epi && !wb_done && k == p->epi_at) {
                    s->t += 3;
                    sim_writeback(s, prev_ydone, g == 0 ? (double)p->tm : rows, prev_cols, overlap);
                    wb_done = 1;
                }
                s->t += k == 0 ? 0 : 5;
                if (cb == 0)
                    sim_wait(s, s->wdone[used]);
                double rdl = 0;
                for (unsigned m = 0; m < p->mxus; m++) {
                    double yd;
                    s->t += m ? 2 : 0;
                    double r = sim_lw_mm(s, m, rows, &yd);
                    if (r > rdl)
                        rdl = r;
                    if (yd > ydone)
                        ydone = yd;
                }
                s->t += 2;
                if (p->o.xres)
                    s->t += 3;
                if (cb + 1 == p->kb) {
                    s->rddone[rd++] = rdl;
                    used++;
                    s->t += 4;
                    sim_fetch(s, &X, &fq);
                }
                if (k == 0 && !p->epi && !wb_done) {
                    s->t += 6;
                    sim_writeback(s, prev_ydone, g == 0 ? (double)p->tm : rows, prev_cols, overlap);
                    wb_done = 1;
                }
                if (k == 0 && p->xbufs == 2 && g == 0 && mt + 1 < p->mtiles) {
                    s->t += 12;
                    x_cursor_sim(p, &X, mt + 1);
                }
            }
            if (!wb_done) {
                s->t += 3;
                sim_writeback(s, prev_ydone, g == 0 ? (double)p->tm : rows, prev_cols, overlap);
            }
            s->t += 7;
            prev_ydone = ydone;
            prev_rows = rows;
            prev_cols = cols;
        }
        s->t += 5;
    }
    s->t += 2;
    sim_writeback(s, prev_ydone, prev_rows, prev_cols, overlap);
    double end = s->t;
    if (s->dma_done > end)
        end = s->dma_done;
    if (s->last_stream_end > end)
        end = s->last_stream_end;
    c->predicted = end + 1;
    c->fill = s->first_stream > 0 ? s->first_stream : 0;
    c->drain = end - s->last_stream_end > 0 ? end - s->last_stream_end : 0;
    free(s->wdone);
    free(s->rddone);
    free(s->xdone);
    return 0;
}

void kgen_gemm_cost(const tpu_config *cfg, const kgen_plan *p, kgen_cost *c)
{
    analytic(cfg, p, c);
    double steps = (double)p->mtiles * (double)p->groups * (double)p->kt;
    if (steps <= SIM_MAX_STEPS)
        simulate(cfg, p, c);
}
