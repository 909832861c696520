/*
 * roofline_plan.c - tpu-roofline: the machine's numbers and the arithmetic
 * that sizes the runs (roofline.h).
 */
#include "roofline.h"

#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* ---- the machine and the arithmetic ---------------------------------------------------------- */

void rl_machine(sweep *sw)
{
    const tpu_config *c = &sw->cfg;
    sw->n = (double)c->mxu_n;
    sw->nm = (double)c->num_mxu;
    sw->wl = (double)c->mxu_wloads;
    /* int8 (mxu.*.i8): two int8 MACs per cell and cycle, a K-tile of 2N;
     * w8: int8 W in HBM widened to bf16 by dma.h2v.i8, bf16 compute */
    sw->ex = sw->mode == RL_INT8 ? 1 : 2;
    sw->ew = sw->mode == RL_BF16 ? 2 : 1;
    sw->kt = sw->mode == RL_INT8 ? 2 * sw->n : sw->n;
    sw->peak = 2.0 * sw->n * sw->n * sw->nm * (sw->mode == RL_INT8 ? 2 : 1);
    sw->bw = c->hbm_bw / c->clock_hz;
    sw->vmem_bw = (double)c->vmem_bw;
    /* W loads in flight per MXU, each reading a weight row of 2N bytes per
     * cycle: a tile of 2N^2 bytes every N/W cycles (T19, T20, T25) */
    sw->wl_bw = sw->nm * 2.0 * sw->n * sw->wl;
    sw->lat = (double)c->hbm_latency;
    /* Every DMA holds an engine through the HBM latency: with E engines a
     * stream of S-byte copies keeps HBM busy when S (E - 1) >= latency *
     * bandwidth; half as much again for margin, a power of two. */
    double want = 1.5 * sw->lat * sw->bw / (c->dma_engines > 1 ? (double)c->dma_engines - 1 : 0.5);
    int64_t dmab = 256;
    while ((double)dmab < want && dmab < (int64_t)(c->vmem_bytes / 64))
        dmab *= 2;
    sw->dmab = dmab;
}

/* The batch where the streamed matmul turns compute-bound, from the exact
 * byte count ex BD + ew DF + 4BF against 2BDF FLOPs (or OPs), ex and ew
 * the HBM bytes of an X and a W element (bf16: 2 and 2, so B = R D F /
 * (D F - R D - 2 R F); int8: 1 and 1; w8: 2 and 1): B = R ew D F / (2 D F
 * - R ex D - 4 R F) with R = peak / bandwidth; -1 when it never does.
 * With X and Y in VMEM only W crosses HBM: B = R ew / 2. */
double rl_predicted_crossover(const sweep *sw)
{
    double r = sw->peak / sw->bw, d = (double)sw->d, f = (double)sw->f;
    if (sw->xy)
        return r * sw->ew / 2.0;
    double den = 2.0 * d * f - r * sw->ex * d - 4.0 * r * f;
    return den > 0 ? r * sw->ew * d * f / den : -1;
}

/* X buffers and Y sets of matmul_sweep.s with W in VMEM (its XS and YS,
 * the same integer arithmetic): enough that X comes and Y goes back
 * through the HBM latency while the MXUs run at their best. */
static void vmem_buffers(const sweep *sw, int64_t b, int64_t *xs, int64_t *ys)
{
    int64_t n = (int64_t)sw->n, nm = (int64_t)sw->nm, wl = (int64_t)sw->wl;
    int64_t d = sw->d, f = sw->f, lat = (int64_t)sw->lat, hbmb = (int64_t)sw->bw;
    hbmb = hbmb < 1 ? 1 : hbmb;
    int64_t nw = (n + wl - 1) / wl, ts = b > nw ? b : nw;
    int64_t runc = d / n * (f / (n * nm)) * ts;
    int64_t xa = 1 + (lat + 2 * b * d / hbmb + 2 * ts + 64 + runc - 1) / runc;
    xa = xa <= 29 - nm ? xa : (30 - nm) / 2;
    int64_t voff = 3 + (b + 2 * n + ts - 1) / ts;
    int64_t y = 2 + (voff * ts + lat + b * 4 * f / hbmb + 2 * ts + 64 + runc - 1) / runc;
    int64_t ymax = 31 - (xa + 1 + nm);
    *xs = xa + 2;
    *ys = y > ymax ? ymax : y;
}

/* Bytes of VMEM a matmul_sweep.s run needs (its layout). */
double rl_matmul_vmem_need(const sweep *sw, double b, int wvmem, double reps)
{
    double xb = ceil(sw->ex * b * (double)sw->d / 64.0) * 64.0;
    if (sw->xy)                         /* X, the W ring, Y whole */
        return xb + 8.0 * 2.0 * sw->n * sw->n * sw->nm * 8.0 + b * 4.0 * (double)sw->f + 4096;
    if (wvmem) {
        int64_t xs, ys;
        vmem_buffers(sw, (int64_t)b, &xs, &ys);
        return (double)xs * xb + (double)ys * b * 4.0 * (double)sw->f
             + 2.0 * (double)sw->d * (double)sw->f + 4096;
    }
    double slot = 2.0 * sw->n * sw->n * sw->nm * 8.0;    /* WK <= 8 blocks per slot, roughly */
    return (reps < 3 ? reps : 3) * xb + (wvmem ? 2.0 * (double)sw->d * (double)sw->f : 8 * slot)
         + 3.0 * b * 4.0 * sw->n * sw->nm + 4096;
}

/* One matmul of batch b at the sweep's D and F: its bound in cycles (the
 * largest of T_math, T_hbm and T_weights), and in *over (when not NULL)
 * the fixed start and end cost of a run (HBM latency, the first W block
 * and X chunk, the last group's results). */
double rl_matmul_cost(const sweep *sw, double b, int wvmem, double *over)
{
    double d = (double)sw->d, f = (double)sw->f, dmab = (double)sw->dmab;
    double tiles = d / sw->kt * f / (sw->n * sw->nm);
    double t_math = 2.0 * b * d * f / sw->peak;
    double xy = sw->xy ? 0 : 1;
    double t_hbm = (xy * (sw->ex * b * d + 4.0 * b * f) + (wvmem ? 0 : sw->ew * d * f)) / sw->bw;
    double t_w = tiles * sw->n / sw->wl;
    double xt = sw->ex * b * sw->kt;
    if (over)
        *over = 2.0 * sw->lat + 4.0 * sw->n
              + (2.0 * dmab + xy * (xt + b * 4.0 * (wvmem ? f : sw->n * sw->nm))) / sw->bw;
    return fmax(t_math, fmax(t_hbm, t_w));
}

/* Matmuls per run: enough that the fixed start and end cost stays under
 * 1/OVERHEAD_FACTOR of the run, but a run under about POINT_CYCLES. */
int64_t rl_matmul_reps(const sweep *sw, double b, int wvmem)
{
    if (sw->o->reps)
        return sw->o->reps;
    double over, t = rl_matmul_cost(sw, b, wvmem, &over);
    double reps = ceil(OVERHEAD_FACTOR * over / t);
    reps = fmin(reps, floor(POINT_CYCLES / (t + over)));
    reps = reps < 1 ? 1 : reps > MAX_REPS ? MAX_REPS : reps;
    while (reps > 1 && rl_matmul_vmem_need(sw, b, wvmem, reps) > (double)sw->cfg.vmem_bytes)
        reps--;
    return (int64_t)reps;
}

/* Bytes of one array in one chunk of programs/pointwise.s: its own choice
 * (VMEM / 32, at most 256 KiB), or the DMA size the engines need if that
 * is more (a faster HBM: see machine()); less when a chunk's three arrays
 * would take HBM more than POINT_CYCLES / 8 (a slow HBM); a whole number
 * of vector registers. */
int64_t rl_pointwise_ch(const sweep *sw)
{
    const tpu_config *c = &sw->cfg;
    int64_t vbytes = (int64_t)(c->vpu_sublanes * c->vpu_lanes * 4);
    int64_t ch0 = (int64_t)c->vmem_bytes / 32 < 262144 ? (int64_t)c->vmem_bytes / 32 : 262144;
    int64_t ch = ch0 > sw->dmab ? ch0 : sw->dmab;
    double slow = POINT_CYCLES / 8 * sw->bw / 3;
    if ((double)ch > slow)
        ch = (int64_t)slow;
    ch = ch / vbytes * vbytes;
    return ch < vbytes ? vbytes : ch;
}

/* One chunk of pointwise op `op`: its HBM time in cycles, and in *over the
 * fixed start and end cost of a run. */
double rl_pointwise_cost(const sweep *sw, int op, double *over)
{
    const tpu_config *c = &sw->cfg;
    double vbytes = (double)(c->vpu_sublanes * c->vpu_lanes * 4);
    double ch = (double)rl_pointwise_ch(sw);
    double nin = op == S_RELU ? 1 : 2;
    *over = 2.0 * sw->lat + 2.0 * ch / sw->bw + 6.0 * ch / vbytes;
    return (nin + 1) * ch / sw->bw;
}

/* Chunks of a pointwise run. */
int64_t rl_pointwise_chunks(const sweep *sw, int op)
{
    if (sw->o->chunks)
        return sw->o->chunks;
    const tpu_config *c = &sw->cfg;
    double over, t_chunk = rl_pointwise_cost(sw, op, &over);
    double ch = (double)rl_pointwise_ch(sw);
    double n = ceil(OVERHEAD_FACTOR * over / t_chunk);
    double max_by_hbm = floor((double)c->hbm_bytes / 2 / (3 * ch));
    n = n < 8 ? 8 : n;
    n = fmin(n, fmax(1, floor(POINT_CYCLES / (t_chunk + over))));
    n = n > 1024 ? 1024 : n;
    n = n > max_by_hbm ? max_by_hbm : n;
    return n < 1 ? 1 : (int64_t)n;
}

/* The batch where the streamed matmul's sweep ends by default: 4 times
 * the predicted crossover.  With no crossover (a slow HBM, or D and F too
 * small) 16 N, but no more than a run of one matmul can afford
 * (POINT_CYCLES); at least 1. */
double rl_top_batch(const sweep *sw)
{
    double c = rl_predicted_crossover(sw);
    if (c > 0)
        return 4 * c;
    double b = 16 * sw->n;
    while (b > 1 && rl_matmul_cost(sw, b, 0, NULL) > POINT_CYCLES)
        b = floor(b * 0.8);
    return b < 1 ? 1 : b;
}

/* The matmul's D = F: N * NUM_MXU times a power of two (so any N works,
 * not only powers of two), the largest up to 4096 whose program fits in
 * half the IMEM (a step is about 5 NUM_MXU + 16 words) and whose sweep's
 * largest batch takes one matmul at most POINT_CYCLES (a slow HBM makes
 * it smaller); else the smallest, 2 N * NUM_MXU.  Sets sw->d and sw->f
 * (F = D unless --f). */
void rl_default_dim(sweep *sw)
{
    double words_per_step = 5.0 * sw->nm + 16.0;
    int64_t unit = (int64_t)sw->n * (int64_t)sw->nm, top = unit;
    while (top * 2 <= 4096)
        top *= 2;
    for (int64_t d = top; d >= 2 * unit; d /= 2) {
        sw->d = d;
        sw->f = sw->o->f ? sw->o->f : d;
        double steps = (double)sw->d / sw->n * (double)sw->f / (sw->n * sw->nm);
        if (steps * words_per_step <= (double)sw->cfg.imem_words / 2
            && rl_matmul_cost(sw, rl_top_batch(sw), 0, NULL) <= POINT_CYCLES)
            return;
    }
    sw->d = 2 * unit;
    sw->f = sw->o->f ? sw->o->f : sw->d;
}
