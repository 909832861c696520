/*
 * kgen_gemm.c - the GEMM planner: from Y[M,N] = X[M,K] . W[K,N] and a
 * machine, the padded shape, the tiles and where everything lives.
 *
 * The shape of every plan (docs/workloads.md explains why):
 *
 *   for each M-tile of tm rows:        X's tile [tm, Kp] stays in VMEM
 *     for each group of tn columns:    one N-wide column tile per MXU
 *       for each K-tile:               every MXU: mxu.lw, mxu.mm/mma
 *       write the group's Y back       (during the next group)
 *
 * W streams from HBM in blocks of kb K-tiles x tn columns through a ring
 * of slots, fetched ring-1 blocks ahead; Y has two sets so a group's
 * results go back to HBM while the next group computes; with room for
 * two X tiles, the next M-tile's X loads during this one.
 *
 * Padding lives in the data: K is padded to a whole K-tile and N to a
 * whole column tile, with zeros in HBM; M is not padded, a stream takes
 * any number of rows.  The planner picks what the user left open by
 * asking the cost model (kgen_cost.c) which candidate is fastest.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "kgen.h"

#define ALIGN64(x) (((x) + 63) / 64 * 64)

/* Dimensions above this are refused before any product is formed, so
 * every size below fits 64 bits with room to spare. */
#define KGEN_MAXDIM (1ull << 31)

const char *kgen_dtype_name(kgen_dtype d)
{
    return d == KGEN_INT8 ? "int8" : d == KGEN_W8 ? "w8" : "bf16";
}

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -1;
}

/* The epilogue's loop runs whole batches: it may read and write up to a
 * batch past a Y set's rows, into this slack. */
static uint64_t epi_slack(const kgen_plan *p) { return p->epi ? p->epi_u * p->sl * 4 : 0; }

static uint64_t gcd64(uint64_t a, uint64_t b)
{
    while (b) {
        uint64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* Lay out VMEM for the tile sizes in p; returns the bytes it needs. */
static uint64_t layout_vmem(kgen_plan *p)
{
    uint64_t a = 0;
    p->x_tile = p->tm * p->x_row;
    p->y_set = p->tm * p->y_row;
    p->slot_bytes = p->kb * p->n_mxu * p->slot_row;
    for (unsigned i = 0; i < 2; i++) {
        p->v_x[i] = p->o.xres ? p->o.x_vmem : a;
        if (i < p->xbufs && !p->o.xres)
            a = ALIGN64(a + p->x_tile);
    }
    p->v_slots = a;
    a = ALIGN64(a + (uint64_t)p->ring * p->slot_bytes);
    for (unsigned i = 0; i < 2; i++) {
        p->v_y[i] = a;
        a = ALIGN64(a + p->y_set + epi_slack(p));
    }
    if (p->epi & KGEN_EPI_BIAS) {
        p->v_b = a;
        a = ALIGN64(a + p->groups * p->pat_bytes);
    }
    p->vmem_need = a;
    return a;
}

/* The largest tm (<= cap) for which the layout fits VMEM, or 0. */
static uint64_t max_tm(kgen_plan *p, uint64_t vmem, uint64_t cap)
{
    uint64_t fixed = ALIGN64((uint64_t)p->ring * p->slot_bytes) + 5 * 64 + 2 * epi_slack(p)
                     + ((p->epi & KGEN_EPI_BIAS) ? p->groups * p->pat_bytes : 0);
    if (fixed >= vmem)
        return 0;
    uint64_t per = (p->o.xres ? 0 : p->xbufs * p->x_row) + 2 * p->y_row;
    uint64_t tm = (vmem - fixed) / per;
    if (tm > cap)
        tm = cap;
    while (tm > 0) {             /* alignment may cost a few rows */
        p->tm = tm;
        if (layout_vmem(p) <= vmem)
            return tm;
        tm--;
    }
    return 0;
}

/* Split M into tiles of at most tm rows, as even as whole rows allow. */
static void split_m(kgen_plan *p, uint64_t tm)
{
    uint64_t m = p->o.m;
    p->mtiles = (m + tm - 1) / tm;
    p->tm = (m + p->mtiles - 1) / p->mtiles;
    p->tm_last = m - (p->mtiles - 1) * p->tm;
    p->blocks = p->mtiles * p->groups * p->kblocks;
}

/* The next M-tile's X loads in chunks about a W block's size, one per
 * fetch, so that it never holds up the W blocks queued behind it (the
 * oldest DMA gets the HBM first, T15). */
static void x_chunks(kgen_plan *p)
{
    p->xcr = p->tm;
    if (p->xbufs == 2) {
        p->xcr = p->slot_bytes / p->x_row;
        if (p->xcr < 1)
            p->xcr = 1;
    }
    p->xch = (p->tm + p->xcr - 1) / p->xcr;
    if (p->xch > p->groups * p->kblocks) {
        p->xch = p->groups * p->kblocks;
        p->xcr = (p->tm + p->xch - 1) / p->xch;
    }
}

/* The largest divisor of kt whose block is at most `bytes` (at least 1). */
static uint64_t pick_kb(const kgen_plan *p, uint64_t bytes)
{
    uint64_t tile = p->n_mxu * p->slot_row, best = 1;
    for (uint64_t d = 1; d <= p->kt && d * tile <= bytes; d++)
        if (p->kt % d == 0)
            best = d;
    return best;
}

int kgen_gemm_plan(const tpu_config *cfg, const kgen_gemm_opts *o, kgen_plan *p,
                   char *err, size_t errlen)
{
    memset(p, 0, sizeof *p);
    p->o = *o;
    if (o->m == 0 || o->n == 0 || o->k == 0)
        return fail(err, errlen, "M, N and K must be positive");
    if (o->m > KGEN_MAXDIM || o->n > KGEN_MAXDIM || o->k > KGEN_MAXDIM)
        return fail(err, errlen, "M, N and K must be at most %llu",
                    (unsigned long long)KGEN_MAXDIM);
    if (o->dtype == KGEN_INT8 && cfg->mxu_int8 == 0)
        return fail(err, errlen, "--dtype int8 needs an int8 MXU mode; the machine '%s' has mxu_int8 = 0",
                    cfg->name);
    if (o->dtype != KGEN_INT8 && cfg->mxu_int8 == 2)
        return fail(err, errlen, "--dtype %s needs bf16 MXUs; the machine '%s' is int8 only (mxu_int8 = 2)",
                    kgen_dtype_name(o->dtype), cfg->name);

    uint64_t N = cfg->mxu_n;
    p->n_mxu = N;
    p->wloads = cfg->mxu_wloads;
    p->kq = o->dtype == KGEN_INT8 ? 2 * N : N;
    p->kp = (o->k + p->kq - 1) / p->kq * p->kq;
    p->np = (o->n + N - 1) / N * N;
    p->kt = p->kp / p->kq;
    p->nt = p->np / N;

    if (o->tile_n) {
        if (o->tile_n % N || o->tile_n > N * cfg->num_mxu)
            return fail(err, errlen, "--tile-n %llu is impossible: it must be a multiple of the MXU size %llu, at most %llu (one column tile per MXU)",
                        (unsigned long long)o->tile_n, (unsigned long long)N,
                        (unsigned long long)(N * cfg->num_mxu));
        p->mxus = o->tile_n / N;
    } else {
        p->mxus = cfg->num_mxu < p->nt ? cfg->num_mxu : p->nt;
    }
    p->tn = p->mxus * N;
    p->groups = (p->nt + p->mxus - 1) / p->mxus;
    p->last_tiles = p->nt - (p->groups - 1) * p->mxus;

    /* the epilogue: the VPU's vectors over a Y set, the bias pattern */
    if (o->bias || o->relu || o->out_bf16) {
        if (o->dtype == KGEN_INT8)
            return fail(err, errlen, "--bias and --relu need fp32 results (bf16 or w8): the VPU computes in fp32, int8 gives int32");
        p->epi = (o->bias ? KGEN_EPI_BIAS : 0) | (o->relu ? KGEN_EPI_RELU : 0)
                 | (o->out_bf16 ? KGEN_EPI_BF16 : 0);
    }
    p->sl = (uint64_t)cfg->vpu_sublanes * cfg->vpu_lanes;
    if (p->epi) {
        p->epi_p = p->tn / gcd64(p->tn, p->sl);      /* lcm(tn, sl) / sl */
        if ((p->epi & KGEN_EPI_BIAS) && p->epi_p > 8)
            return fail(err, errlen, "the bias pattern of %llu columns repeats only every %llu vectors of %llu: at most 8 (choose --tile-n)",
                        (unsigned long long)p->tn, (unsigned long long)p->epi_p,
                        (unsigned long long)p->sl);
        if (!(p->epi & KGEN_EPI_BIAS))
            p->epi_p = 1;
        p->epi_u = p->epi_p * ((8 + p->epi_p - 1) / p->epi_p);
        p->pat_bytes = p->epi_p * p->sl * 4;
    }

    /* bytes of one row of each operand */
    p->x_row = o->dtype == KGEN_INT8 ? p->kp : 2 * p->kp;
    p->w_row_hbm = o->dtype == KGEN_W8 ? p->np : 2 * p->np;
    p->slot_row = 2 * p->tn;
    p->y_row = 4 * p->tn;

    /* HBM: X, W, Y, each padded, one after the other */
    uint64_t wrows = o->dtype == KGEN_INT8 ? p->kp / 2 : p->kp;
    p->x_bytes = o->m * p->x_row;
    p->w_bytes = wrows * p->w_row_hbm;
    p->y_bytes = o->m * p->np * (o->out_bf16 ? 2 : 4);
    p->h_x = 0;
    p->h_w = ALIGN64(p->x_bytes);
    p->h_y = ALIGN64(p->h_w + p->w_bytes);
    if (p->epi & KGEN_EPI_BIAS) {
        p->h_b = p->h_y;
        p->h_y = ALIGN64(p->h_b + p->groups * p->tn * 4);
    }
    p->hbm_need = p->h_y + p->y_bytes;
    if (p->hbm_need > cfg->hbm_bytes)
        return fail(err, errlen, "the data does not fit HBM: X %llu, W %llu and Y %llu bytes (padded to %llu x %llu x %llu) need %llu bytes, the machine '%s' has %llu",
                    (unsigned long long)p->x_bytes, (unsigned long long)p->w_bytes,
                    (unsigned long long)p->y_bytes, (unsigned long long)o->m,
                    (unsigned long long)p->np, (unsigned long long)p->kp,
                    (unsigned long long)p->hbm_need, cfg->name,
                    (unsigned long long)cfg->hbm_bytes);

    /* W blocks: big enough that the HBM latency of each DMA hides behind
     * the bytes of the others (E engines in flight), unless told */
    uint64_t num, den;
    tpu_config_bytes_per_cycle(cfg->hbm_bw, cfg->clock_hz, &num, &den);
    double bw = (double)num / (double)den;
    uint64_t e = cfg->dma_engines > 1 ? cfg->dma_engines - 1 : 1;
    double want = 4.0 * (double)cfg->hbm_latency * bw / (double)e;
    if (o->tile_k) {
        if (o->tile_k % p->kq || p->kp % o->tile_k)
            return fail(err, errlen, "--tile-k %llu is impossible: it must be a multiple of the K-tile %llu that divides the padded K %llu",
                        (unsigned long long)o->tile_k, (unsigned long long)p->kq,
                        (unsigned long long)p->kp);
        p->kb = o->tile_k / p->kq;
    } else {
        uint64_t cap = cfg->vmem_bytes / 16;
        p->kb = pick_kb(p, (uint64_t)want < cap ? (uint64_t)want : cap);
    }
    p->kblocks = p->kt / p->kb;

    /* ring: enough blocks in flight to cover the latency, 3 to 8 */
    double blk_cycles = (double)(p->kb * N * p->slot_row) / bw;
    unsigned ring = (unsigned)((double)cfg->hbm_latency / (blk_cycles > 1 ? blk_cycles : 1)) + 3;
    if (ring > 8)
        ring = 8;
    if (ring > cfg->dma_engines + 4)
        ring = (unsigned)cfg->dma_engines + 4;
    if (ring < 3)
        ring = 3;
    p->ring = ring;

    /* M-tiles: try one and two X buffers with the largest tile that fits,
     * keep the one the cost model likes best */
    uint64_t user_tm = o->tile_m;
    if (user_tm && user_tm > o->m)
        user_tm = o->m;
    kgen_plan best;
    double best_t = -1;
    for (;;) {
        for (unsigned xb = 1; xb <= 2; xb++) {
            kgen_plan c = *p;
            c.xbufs = xb;
            uint64_t tm = max_tm(&c, cfg->vmem_bytes, user_tm ? user_tm : o->m);
            if (tm == 0 || (user_tm && tm < user_tm))
                continue;
            split_m(&c, tm);
            if (xb == 2 && (c.mtiles == 1 || o->xres))
                continue;        /* nothing to overlap */
            layout_vmem(&c);
            x_chunks(&c);
            kgen_cost cost;
            kgen_gemm_cost(cfg, &c, &cost);
            if (best_t < 0 || cost.predicted < best_t) {
                best = c;
                best_t = cost.predicted;
            }
        }
        if (best_t >= 0 || (p->ring == 2 && (p->kb == 1 || o->tile_k)))
            break;
        /* nothing fits: shrink the W blocks, then the ring, and try again */
        if (p->kb > 1 && !o->tile_k) {
            p->kb = 1;
            p->kblocks = p->kt;
        } else {
            p->ring = 2;
        }
    }
    if (best_t < 0) {
        if (user_tm)
            return fail(err, errlen, "--tile-m %llu is impossible: its X tile (%llu bytes a row), two Y sets and the W ring do not fit the %llu bytes of VMEM of '%s'",
                        (unsigned long long)user_tm, (unsigned long long)p->x_row,
                        (unsigned long long)cfg->vmem_bytes, cfg->name);
        return fail(err, errlen, "K = %llu is too large for VMEM: one row of X (%llu bytes, all of K stays in VMEM) with the W ring and the Y sets does not fit the %llu bytes of '%s'",
                    (unsigned long long)o->k, (unsigned long long)p->x_row,
                    (unsigned long long)cfg->vmem_bytes, cfg->name);
    }
    *p = best;
    if (p->epi)
        p->epi_at = p->kt > 1 ? (p->kt - 1 < 3 ? p->kt - 1 : 3) : 0;
    p->efficiency = (double)o->m * (double)o->n * (double)o->k
                    / ((double)o->m * (double)p->np * (double)p->kp);
    return 0;
}
