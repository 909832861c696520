/*
 * roofline_analysis.c - tpu-roofline: each run's bounds, the fits, the
 * measured crossovers and ridge (roofline.h).
 */
#include "roofline.h"

#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* ---- analysis ------------------------------------------------------------------------------ */

/* Bound, intensity and achieved rate of one point from its counts. */
static void derive(const sweep *sw, point *p)
{
    const tpu_stats *st = &p->out.stats;
    tpu_roofline rl;
    tpu_roofline_core(&sw->cfg, st, &rl);               /* report.c's arithmetic */
    p->flops = (double)st->flops;
    p->hbm_bytes = (double)(st->hbm_read_bytes + st->hbm_write_bytes);
    p->t_math = rl.t_math;
    p->t_hbm = rl.t_memory;
    p->t_w = 0;
    p->wbytes = 0;
    if (p->series == S_HBM || p->series == S_VMEM) {
        double tiles = (double)sw->d / sw->kt * (double)sw->f / (sw->n * sw->nm);
        p->t_w = (double)p->reps * tiles * sw->n / sw->wl;
        /* the weight bytes the MXUs read from VMEM: int8 1 an element */
        p->wbytes = (sw->mode == RL_INT8 ? 1.0 : 2.0) * (double)sw->d * (double)sw->f
                  * (double)p->reps;
    }
    p->bound = fmax(p->t_math, fmax(p->t_hbm, p->t_w));
    p->bound_name = p->bound == p->t_math ? "compute" : p->bound == p->t_hbm ? "hbm" : "weights";
    p->pct = p->bound > 0 ? 100.0 * (double)p->out.cycles / p->bound : 0;
    p->y = p->out.cycles ? p->flops / (double)p->out.cycles : 0;
    p->x = p->series == S_VMEM ? (p->wbytes > 0 ? p->flops / p->wbytes : 0)
                               : (p->hbm_bytes > 0 ? p->flops / p->hbm_bytes : 0);
}

/* Least squares y = a + b x over n points (b = 0 when fewer than two
 * distinct x: then a is the mean). */
static void fit(const double *x, const double *y, size_t n, double *a, double *b)
{
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (size_t i = 0; i < n; i++) {
        sx += x[i];
        sy += y[i];
        sxx += x[i] * x[i];
        sxy += x[i] * y[i];
    }
    double det = (double)n * sxx - sx * sx;
    if (n < 2 || fabs(det) < 1e-12 * (sxx > 1 ? sxx : 1)) {
        *b = 0;
        *a = n ? sy / (double)n : 0;
        return;
    }
    *b = ((double)n * sxy - sx * sy) / det;
    *a = (sy - *b * sx) / (double)n;
}

/* Where a series turns from its left bound (memory, or weight loading) to
 * compute: fit cycles per matmul against B on each side (points whose
 * bound beats the other by SIDE_MARGIN) and intersect the two lines.
 * -1 when a side has no points or the lines do not cross.  The points on
 * neither side are counted too (*nnear: within SIDE_MARGIN of both), so
 * the summary's counts add up to the table's rows. */
static double measured_crossover(const sweep *sw, int series, int *nleft, int *nright,
                                 int *nother, int *nnear)
{
    double lx[MAX_POINTS], ly[MAX_POINTS], rx[MAX_POINTS], ry[MAX_POINTS];
    size_t nl = 0, nr = 0;
    *nother = *nnear = 0;
    for (size_t i = 0; i < sw->npts; i++) {
        const point *p = &sw->pts[i];
        if (p->series != series || !p->out.ok)
            continue;
        /* W streamed: the left side is memory-bound (HBM or weight load);
         * W in VMEM: weight-load-bound, and a run the HBM bounds (a slow
         * HBM) is on neither side: counted apart, as the table shows it. */
        double left = series == S_VMEM ? p->t_w : fmax(p->t_hbm, p->t_w);
        double y = (double)p->out.cycles / (double)p->reps;
        if (series == S_VMEM && p->t_hbm >= SIDE_MARGIN * fmax(p->t_w, p->t_math)) {
            (*nother)++;
            continue;
        }
        if (left >= SIDE_MARGIN * p->t_math) {
            lx[nl] = (double)p->b;
            ly[nl++] = y;
        } else if (p->t_math >= SIDE_MARGIN * left) {
            rx[nr] = (double)p->b;
            ry[nr++] = y;
        } else {
            (*nnear)++;
        }
    }
    *nleft = (int)nl;
    *nright = (int)nr;
    if (!nl || !nr)
        return -1;
    double a, b, c, d;
    fit(lx, ly, nl, &a, &b);
    fit(rx, ry, nr, &c, &d);
    if (nr < 2) {                   /* one compute point: a line through the origin */
        d = ry[0] / rx[0];
        c = 0;
    }
    if (d <= b)
        return -1;
    return (a - c) / (d - b);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, size_t n)
{
    if (!n)
        return -1;
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* FLOPs per byte of VMEM traffic of the MXUs in a matmul of batch B:
 * 2BDF FLOPs over the weights (2DF), the LHS rows each tile streams
 * (2BDF/N) and the results (4BF written by the first K-tile, read and
 * written by the D/N - 1 others).  Where it equals the VMEM ridge the
 * weight loads and streams use all of VMEM's bandwidth (timing.md T11). */
static double vmem_intensity(const sweep *sw, double b)
{
    double d = (double)sw->d, f = (double)sw->f;
    double bytes = 2.0 * d * f + 2.0 * b * d * f / sw->n + 4.0 * b * f * (2.0 * d / sw->n - 1.0);
    return 2.0 * b * d * f / bytes;
}


void rl_analyse(sweep *sw, summary *s)
{
    memset(s, 0, sizeof *s);
    double peaks[MAX_POINTS], bws[MAX_POINTS];
    size_t np = 0, nb = 0;
    for (size_t i = 0; i < sw->npts; i++) {
        point *p = &sw->pts[i];
        if (!p->out.ok) {
            s->failures++;
            continue;
        }
        derive(sw, p);
        if (!s->worst || p->pct > s->worst_pct) {
            s->worst = p;
            s->worst_pct = p->pct;
        }
        double other = fmax(p->t_math, p->t_w);
        if (p->t_hbm >= SIDE_MARGIN * other)
            bws[nb++] = p->hbm_bytes / (double)p->out.cycles;
        if ((p->series == S_HBM || p->series == S_VMEM)
            && p->t_math >= SIDE_MARGIN * fmax(p->t_hbm, p->t_w))
            peaks[np++] = p->flops / (double)p->out.cycles;
    }
    s->cross_pred = rl_predicted_crossover(sw);
    s->cross_meas = measured_crossover(sw, S_HBM, &s->cross_left, &s->cross_right,
                                       &s->cross_other, &s->cross_near);
    /* compute 2BDF / peak = weight bytes 2DF / wl_bw: B = N / W */
    s->vcross_pred = sw->n / sw->wl;
    s->vcross_meas = measured_crossover(sw, S_VMEM, &s->vcross_left, &s->vcross_right,
                                        &s->vcross_hbm, &s->vcross_near);
    s->vint_pred = vmem_intensity(sw, s->vcross_pred);
    s->vint_meas = s->vcross_meas > 0 ? vmem_intensity(sw, s->vcross_meas) : -1;
    s->peak_meas = median(peaks, np);
    s->bw_meas = median(bws, nb);
    s->ridge_meas = s->peak_meas > 0 && s->bw_meas > 0 ? s->peak_meas / s->bw_meas : -1;
}
