/*
 * kgen_cost.c - how long a GEMM plan should take, from the config's
 * numbers and the rules of docs/timing.md, without running it.
 *
 * A plan is a sequence of steps (one K-tile of one column group of one
 * M-tile: every MXU loads a weight tile and streams the tile's rows).
 * Steps come in four kinds (full or last M-tile, full or last column
 * group); each kind costs the largest of
 *
 *   math    the rows each MXU streams, max(rows, N/W): a new weight tile
 *           can start only every N/W cycles (T19, T25);
 *   memory  the HBM bytes the step brings in or writes back (its share of
 *           the W block, of the X tile and of the Y set) at the HBM rate,
 *           or, when blocks are small, the HBM latency of each block
 *           shared by the engines in flight (T13-T18);
 *   issue   the instructions the sequencer issues for the step, one a
 *           cycle (T1): the generated loop's own overhead.
 *
 * plus a fill (the first X tile and W block, latency included, before the
 * first stream) and a drain (the last results through the array, 2N
 * cycles (T24), and the last write-back).  With one X buffer each new
 * M-tile also waits for the MXUs to drain and its X to load.
 */
#include "kgen.h"

/* Instructions the emitted code issues (kgen_emit.c), counted by hand
 * from what it writes: a tile's MXU instructions, the loop around them,
 * a block's fetch, a group's set-up and write-back. */
static double insn_tile(const kgen_plan *p) { return 4.0 * (double)p->mxus + 9.0; }
static double insn_block(const kgen_plan *p) { return 22.0 + (double)p->mxus; }
static double insn_group(const kgen_plan *p) { return 26.0 + 2.0 * (double)p->mxus; }

void kgen_gemm_cost(const tpu_config *cfg, const kgen_plan *p, kgen_cost *c)
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
