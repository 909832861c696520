/*
 * kgen_conv.c - a 2-D convolution as a program (docs/workloads.md,
 * "How a convolution becomes a program").
 *
 * NHWC bf16 activations, HWIO bf16 filters [R][S][C/G][F], fp32 NHWC
 * output, any stride, padding and groups.  Two lowerings:
 *
 *   MXU  im2col + GEMM: the output pixels are the GEMM's rows, K = R*S*C/G
 *        in (r, s, c) order, the group's F/G filters its columns.  The
 *        GEMM machinery of kgen_gemm.c / kgen_emit.c runs unchanged but for
 *        its X loader: instead of copying rows of a matrix, it builds each
 *        output image row's im2col rows in VMEM with DMAs straight from the
 *        input (one per filter row r and run of pixels whose taps are all
 *        inside, one per edge pixel; the rows of padding come from a zero
 *        region in HBM with source stride 0; padding columns are never
 *        written, so they stay zero).  Groups run one after the other.
 *
 *   VPU  depthwise (C/G = F/G = 1): a GEMM per channel would pad K = R*S to
 *        the MXU size and use one of its N columns (1/N^2 of the MACs
 *        useful at 3x3 and N = 128); the VPU does the R*S multiply-adds per
 *        element at a vector a cycle instead (kgen_vpu.c).
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "kgen.h"
#include "kgen_impl.h"

#define ALIGN64(x) (((x) + 63) / 64 * 64)

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -1;
}

int kgen_vpu_dw_plan(const tpu_config *cfg, kgen_conv_plan *p, char *err, size_t errlen);
long kgen_vpu_dw_emit(FILE *f, const char *config_name, const tpu_config *cfg,
                      const kgen_conv_plan *p);
void kgen_conv_cost(const tpu_config *cfg, const kgen_conv_plan *p, kgen_cost *c);

/* The DMAs that build one filter row's part of an output image row's
 * im2col rows (the same for every r and every image row). */
static int make_segments(kgen_conv_lower *c, char *err, size_t errlen)
{
    c->nseg = 0;
    if (c->cg == c->c) {
        /* one group: a pixel's S taps of one filter row are S*C contiguous
         * input values; runs of pixels with the same valid taps, one DMA */
        uint64_t ow = 0;
        while (ow < c->ow) {
            int64_t base = (int64_t)(ow * c->stride) - (int64_t)c->pad;
            int64_t lo = base < 0 ? -base : 0;
            int64_t hi = (int64_t)c->w - base < (int64_t)c->s ? (int64_t)c->w - base : (int64_t)c->s;
            uint64_t n = 1;
            while (ow + n < c->ow) {
                int64_t b2 = (int64_t)((ow + n) * c->stride) - (int64_t)c->pad;
                int64_t lo2 = b2 < 0 ? -b2 : 0;
                int64_t hi2 = (int64_t)c->w - b2 < (int64_t)c->s ? (int64_t)c->w - b2 : (int64_t)c->s;
                if (lo2 != lo || hi2 != hi)
                    break;
                n++;
            }
            if (hi > lo) {
                if (c->nseg == KGEN_MAX_SEGS)
                    return fail(err, errlen, "the padding needs more than %d DMAs per filter row", KGEN_MAX_SEGS);
                kgen_seg *s = &c->seg[c->nseg++];
                s->ow_start = ow;
                s->count = n;
                s->col = (uint64_t)lo * c->c * 2;
                s->src = (base + lo) * (int64_t)c->c * 2;
                s->bytes = (uint64_t)(hi - lo) * c->c * 2;
            }
            ow += n;
        }
    } else {
        /* groups: each tap's C/G channels, the pixels where it is inside */
        for (uint64_t s = 0; s < c->s; s++) {
            uint64_t a = c->ow, b = 0;
            for (uint64_t ow = 0; ow < c->ow; ow++) {
                int64_t iw = (int64_t)(ow * c->stride + s) - (int64_t)c->pad;
                if (iw >= 0 && iw < (int64_t)c->w) {
                    if (ow < a)
                        a = ow;
                    b = ow + 1;
                }
            }
            if (b <= a)
                continue;
            if (c->nseg == KGEN_MAX_SEGS)
                return fail(err, errlen, "more than %d DMAs per filter row", KGEN_MAX_SEGS);
            kgen_seg *sg = &c->seg[c->nseg++];
            sg->ow_start = a;
            sg->count = b - a;
            sg->col = s * c->cg * 2;
            sg->src = ((int64_t)(a * c->stride + s) - (int64_t)c->pad) * (int64_t)c->c * 2;
            sg->bytes = c->cg * 2;
        }
    }
    c->dmas_row = c->r * c->nseg;
    return 0;
}

int kgen_conv_plan_make(const tpu_config *cfg, const kgen_conv_opts *o, kgen_conv_plan *p,
                        char *err, size_t errlen)
{
    memset(p, 0, sizeof *p);
    p->o = *o;
    const uint64_t lim = 1ull << 24;
    if (!o->nb || !o->h || !o->w || !o->c || !o->f || !o->r || !o->s || !o->stride || !o->groups)
        return fail(err, errlen, "the sizes, the stride and the groups must be positive");
    if (o->nb > lim || o->h > lim || o->w > lim || o->c > lim || o->f > lim || o->r > 64
        || o->s > 64 || o->stride > 64 || o->pad > 64)
        return fail(err, errlen, "a size is too large (sizes up to 2^24, window, stride and padding up to 64)");
    if (o->c % o->groups || o->f % o->groups)
        return fail(err, errlen, "--groups %llu must divide the channels -C %llu and the filters --filters %llu",
                    (unsigned long long)o->groups, (unsigned long long)o->c,
                    (unsigned long long)o->f);
    if (o->pad >= o->r || o->pad >= o->s)
        return fail(err, errlen, "--pad %llu must be smaller than the window %llux%llu",
                    (unsigned long long)o->pad, (unsigned long long)o->r, (unsigned long long)o->s);
    if (o->h + 2 * o->pad < o->r || o->w + 2 * o->pad < o->s)
        return fail(err, errlen, "the %llux%llu window does not fit the padded %llux%llu input",
                    (unsigned long long)o->r, (unsigned long long)o->s,
                    (unsigned long long)(o->h + 2 * o->pad), (unsigned long long)(o->w + 2 * o->pad));
    p->oh = (o->h + 2 * o->pad - o->r) / o->stride + 1;
    p->ow = (o->w + 2 * o->pad - o->s) / o->stride + 1;
    p->pixels = o->nb * p->oh * p->ow;
    uint64_t cg = o->c / o->groups, fg = o->f / o->groups;
    int dw = cg == 1 && fg == 1;
    if (o->engine == 2 && !dw)
        return fail(err, errlen, "--engine vpu is for depthwise layers (--groups = -C = --filters)");
    p->vpu = o->engine == 2 || (o->engine == 0 && dw);
    if (p->vpu)
        return kgen_vpu_dw_plan(cfg, p, err, errlen);

    /* MXU: the GEMM of one group, then its loader and addresses */
    kgen_gemm_opts g;
    memset(&g, 0, sizeof g);
    g.m = p->pixels;
    g.n = fg;
    g.k = o->r * o->s * cg;
    g.dtype = KGEN_BF16;
    g.timing_only = o->timing_only;
    g.tile_m = o->tile_m;
    g.tile_n = o->tile_n;
    g.tile_k = o->tile_k;
    g.bias = o->bias;
    g.relu = o->relu;
    kgen_plan *q = &p->gemm;
    if (kgen_gemm_plan(cfg, &g, q, err, errlen))
        return -1;
    kgen_conv_lower *c = &q->cv;
    c->on = 1;
    c->nb = o->nb, c->h = o->h, c->w = o->w, c->c = o->c, c->f = o->f;
    c->r = o->r, c->s = o->s, c->stride = o->stride, c->pad = o->pad, c->groups = o->groups;
    c->oh = p->oh, c->ow = p->ow, c->cg = cg, c->fg = fg;

    /* M-tiles of whole output image rows */
    uint64_t nq = o->nb * p->oh, tmq = q->tm / p->ow;
    if (tmq == 0)
        return fail(err, errlen, "one output image row's im2col rows (%llu x %llu bytes) with the W ring and the Y sets do not fit the %llu bytes of VMEM of '%s'",
                    (unsigned long long)p->ow, (unsigned long long)q->x_row,
                    (unsigned long long)cfg->vmem_bytes, cfg->name);
    q->mtiles = (nq + tmq - 1) / tmq;
    tmq = (nq + q->mtiles - 1) / q->mtiles;
    q->tm = tmq * p->ow;
    q->tm_last = p->pixels - (q->mtiles - 1) * q->tm;
    q->blocks = q->mtiles * q->groups * q->kblocks;
    c->tmq = tmq;
    c->tmq_last = q->tm_last / p->ow;
    q->xch = tmq;
    q->xcr = p->ow;
    if (make_segments(c, err, errlen))
        return -1;

    /* HBM: a zero region (also the margin that lets the loader's cursor
     * start pad rows before the input), X, W (+ zero rows to Kp), bias, Y */
    uint64_t zero = o->pad * o->w * o->c * 2;
    if (zero < o->s * o->c * 2)
        zero = o->s * o->c * 2;
    p->h_zero = 0;
    p->h_x = ALIGN64(zero);
    p->x_bytes = o->nb * o->h * o->w * o->c * 2;
    p->h_w = ALIGN64(p->h_x + p->x_bytes);
    uint64_t k = o->r * o->s * cg;
    p->w_bytes = (q->kp * o->f + q->tn) * 2;            /* then a row's slack */
    p->h_b = ALIGN64(p->h_w + p->w_bytes);
    uint64_t bias_bytes = (o->f + q->groups * q->tn) * 4;
    p->h_y = ALIGN64(p->h_b + (o->bias ? bias_bytes : 0));
    p->y_bytes = p->pixels * o->f * 4;
    p->hbm_need = p->h_y + p->y_bytes;
    (void)k;
    if (p->hbm_need > cfg->hbm_bytes)
        return fail(err, errlen, "the data does not fit HBM: %llu bytes, the machine '%s' has %llu",
                    (unsigned long long)p->hbm_need, cfg->name, (unsigned long long)cfg->hbm_bytes);
    c->h_zero = p->h_zero;
    c->h_in = p->h_x;
    c->g = 0;
    q->w_row_hbm = o->f * 2;
    q->h_x = p->h_x;
    q->h_w = p->h_w;
    q->h_b = p->h_b;
    q->h_y = p->h_y;
    q->y_pitch = o->f * 4;
    q->y_cols_last = fg - (q->groups - 1) * q->tn;
    q->x_bytes = p->x_bytes;
    q->w_bytes = p->w_bytes;
    q->y_bytes = p->y_bytes;
    q->hbm_need = p->hbm_need;
    p->vmem_need = q->vmem_need;
    p->efficiency = (double)k * (double)fg / ((double)q->kp * (double)q->np);
    kgen_conv_cost(cfg, p, &p->cost);
    return 0;
}

/* Group g's GEMM: the same plan at its channels, filters, biases, outputs. */
static kgen_plan group_plan(const kgen_conv_plan *p, uint64_t g)
{
    kgen_plan q = p->gemm;
    q.cv.g = g;
    q.cv.h_in = p->h_x + g * q.cv.cg * 2;
    q.h_w = p->h_w + g * q.cv.fg * 2;
    q.h_b = p->h_b + g * q.cv.fg * 4;
    q.h_y = p->h_y + g * q.cv.fg * 4;
    return q;
}

static void conv_header(kgen_emitter *e, const char *config_name, const tpu_config *cfg,
                        const kgen_conv_plan *p, const char *how)
{
    const kgen_conv_opts *o = &p->o;
    kgen_line(e, "# tpu-as: --config %s", config_name);
    kgen_line(e, "#");
    kgen_line(e, "# Generated by tpu-gen conv2d (sim/kernels/, docs/workloads.md); do not edit.");
    kgen_line(e, "#");
    kgen_line(e, "#   Y[n,oh,ow,f] = sum over r, s, c of X[n, oh*%" PRIu64 "+r-%" PRIu64 ", ow*%" PRIu64 "+s-%" PRIu64 ", c] . W[r,s,c,f]%s%s",
              o->stride, o->pad, o->stride, o->pad, o->bias ? " + bias[f]" : "", o->relu ? ", relu" : "");
    kgen_line(e, "#   X %" PRIu64 "x%" PRIu64 "x%" PRIu64 "x%" PRIu64 " (NHWC, bf16), W %" PRIu64 "x%" PRIu64 "x%" PRIu64 "x%" PRIu64 " (HWIO, bf16), Y %" PRIu64 "x%" PRIu64 "x%" PRIu64 "x%" PRIu64 " (fp32)%s",
              o->nb, o->h, o->w, o->c, o->r, o->s, o->c / o->groups, o->f, o->nb, p->oh, p->ow, o->f,
              o->timing_only ? " (timing only: no data, no check)" : "");
    kgen_line(e, "#   stride %" PRIu64 ", padding %" PRIu64 ", groups %" PRIu64 "; machine %s: %" PRIu64 " MXU%s of %" PRIu64 "x%" PRIu64 ", VPU %ux%u",
              o->stride, o->pad, o->groups, cfg->name, cfg->num_mxu, cfg->num_mxu > 1 ? "s" : "",
              cfg->mxu_n, cfg->mxu_n, (unsigned)cfg->vpu_sublanes, (unsigned)cfg->vpu_lanes);
    kgen_line(e, "#   lowering        %s", how);
    kgen_line(e, "#   HBM             zeros at %" PRIu64 ", X at %" PRIu64 ", W at %" PRIu64 ", bias at %" PRIu64 ", Y at %" PRIu64 "; %" PRIu64 " bytes",
              p->h_zero, p->h_x, p->h_w, p->h_b, p->h_y, p->hbm_need);
    kgen_line(e, "#   predicted       %.0f cycles, %s-bound (math %.0f, memory %.0f, issue %.0f)",
              p->cost.predicted, p->cost.bound, p->cost.t_math, p->cost.t_memory, p->cost.t_issue);
    kgen_line(e, "#");
}

/* X, W, bias and Y in HBM, and the check. */
static void conv_data(kgen_emitter *e, const kgen_conv_plan *p, unsigned flags)
{
    const kgen_conv_opts *o = &p->o;
    uint64_t cg = o->c / o->groups;
    kgen_line(e, "");
    kgen_line(e, "# ---- HBM: a zero region, X (NHWC), W (HWIO, zero rows after it), bias, Y");
    kgen_line(e, "        .hbm    %" PRIu64, p->h_zero);
    kgen_line(e, "ZEROS:  .zero   %" PRIu64, p->h_x - p->h_zero);
    kgen_line(e, "X:      .random bf16, %" PRIu64 ", 1", o->nb * o->h * o->w * o->c);
    kgen_line(e, "        .hbm    %" PRIu64, p->h_w);
    kgen_line(e, "W:      .random bf16, %" PRIu64 ", 1073741824", o->r * o->s * cg * o->f);
    if (p->w_bytes > o->r * o->s * cg * o->f * 2)
        kgen_line(e, "        .zero   %" PRIu64 "                  # K padding rows", p->w_bytes - o->r * o->s * cg * o->f * 2);
    if (o->bias) {
        kgen_line(e, "        .hbm    %" PRIu64, p->h_b);
        kgen_line(e, "BIAS:   .random f32, %" PRIu64 ", 117440512", o->f);
        if (p->h_y > p->h_b + o->f * 4)
            kgen_line(e, "        .zero   %" PRIu64, p->h_y - p->h_b - o->f * 4);
    }
    kgen_line(e, "        .hbm    %" PRIu64, p->h_y);
    kgen_line(e, "Y:      .zero   %" PRIu64 "                  # %" PRIu64 " x %" PRIu64 " x %" PRIu64 " x %" PRIu64 " fp32",
              p->y_bytes, o->nb, p->oh, p->ow, o->f);
    kgen_line(e, "");
    kgen_line(e, "# ---- check: the convolution in the lowering's order, bit for bit (docs/numerics.md)");
    kgen_line(e, "        .expect conv2d Y, X, W, %s, %" PRIu64 ", %" PRIu64 ", %" PRIu64 ", %" PRIu64 ", %" PRIu64 ", %" PRIu64 ", %" PRIu64 ", %" PRIu64 ", %" PRIu64 ", %" PRIu64 ", %u",
              o->bias ? "BIAS" : "Y", o->nb, o->h, o->w, o->c, o->f, o->r, o->s, o->stride, o->pad,
              o->groups, flags);
}

long kgen_conv_emit(FILE *f, const char *config_name, const tpu_config *cfg,
                    const kgen_conv_plan *p)
{
    if (p->vpu)
        return kgen_vpu_dw_emit(f, config_name, cfg, p);
    const kgen_conv_opts *o = &p->o;
    const kgen_plan *q = &p->gemm;
    kgen_emitter E = { f, 0, 0, q, "" }, *e = &E;
    char how[300];
    snprintf(how, sizeof how, "im2col + GEMM on the MXUs: %llu pixels x K %llu (-> %llu) x %llu filters%s; mapping %.1f%%",
             (unsigned long long)p->pixels, (unsigned long long)(o->r * o->s * (o->c / o->groups)),
             (unsigned long long)q->kp, (unsigned long long)(o->f / o->groups),
             o->groups > 1 ? " per group, groups one after the other" : "", 100.0 * p->efficiency);
    conv_header(e, config_name, cfg, p, how);
    kgen_line(e, "# The im2col loader: an output image row at a time, %" PRIu64 " DMAs (%u per filter row):",
              q->cv.dmas_row, q->cv.nseg);
    for (unsigned i = 0; i < q->cv.nseg; i++)
        kgen_line(e, "#   pixels %" PRIu64 "..%" PRIu64 ": %" PRIu64 " bytes each into byte %" PRIu64 " of the row (source offset %" PRId64 ")",
                  q->cv.seg[i].ow_start, q->cv.seg[i].ow_start + q->cv.seg[i].count - 1,
                  q->cv.seg[i].bytes, q->cv.seg[i].col, q->cv.seg[i].src);
    kgen_line(e, "# M-tiles of %" PRIu64 " output image rows (%" PRIu64 " pixels; the last %" PRIu64 ")",
              q->cv.tmq, q->tm, q->tm_last);
    kgen_line(e, "#");
    kgen_cost gc;
    kgen_gemm_cost(cfg, q, &gc);
    kgen_gemm_plan_comment(e, cfg, &gc);
    kgen_line(e, "");
    kgen_line(e, "        .assert MXU_N == %" PRIu64 " && NUM_MXU >= %" PRIu64 ", \"generated for %" PRIu64 "x%" PRIu64 " MXUs: assemble with --config %s\"",
              q->n_mxu, q->mxus, q->n_mxu, q->n_mxu, config_name);
    kgen_line(e, "        .assert VMEM_BYTES >= %" PRIu64 " && HBM_BYTES >= %" PRIu64 ", \"the plan needs %" PRIu64 " bytes of VMEM and %" PRIu64 " of HBM\"",
              q->vmem_need, p->hbm_need, q->vmem_need, p->hbm_need);
    if (o->timing_only)
        kgen_line(e, "        .equ    ZEROS, hbm(%" PRIu64 ")", p->h_zero);
    kgen_line(e, "");
    kgen_line(e, "        .text");
    for (uint64_t g = 0; g < o->groups; g++) {
        kgen_plan pg = group_plan(p, g);
        char lp[32];
        snprintf(lp, sizeof lp, "G%llu_", (unsigned long long)g);
        e->p = &pg;
        e->lp = o->groups > 1 ? lp : "";
        if (o->groups > 1)
            kgen_line(e, "# ======== group %llu: channels %llu.., filters %llu..", (unsigned long long)g,
                      (unsigned long long)(g * pg.cv.cg), (unsigned long long)(g * pg.cv.fg));
        kgen_gemm_code(e, g + 1 == o->groups);
        e->p = q;
    }
    if (!o->timing_only)
        conv_data(e, p, (o->bias ? 1u : 0u) | (o->relu ? 2u : 0u));
    fflush(f);
    return ferror(f) ? -1 : E.insns;
}

/* The GEMM's prediction with the loader's DMAs: kgen_cost.c walks the
 * program with them (each image row's DMAs through the DMA queue and the
 * engines, beside the W blocks and the write-backs); the loader's terms
 * are added to the sums for the bound: each DMA pays the HBM latency,
 * `engines` of them in flight, and about 12 instructions.  Groups run one
 * after the other. */
void kgen_conv_cost(const tpu_config *cfg, const kgen_conv_plan *p, kgen_cost *c)
{
    const kgen_plan *q = &p->gemm;
    kgen_gemm_cost(cfg, q, c);
    uint64_t num, den;
    tpu_config_bytes_per_cycle(cfg->hbm_bw, cfg->clock_hz, &num, &den);
    double bw = (double)num / (double)den, L = (double)cfg->hbm_latency;
    double eng = (double)(cfg->dma_engines > 1 ? cfg->dma_engines : 1);
    double rows = (double)(p->o.nb * p->oh);
    double dmas = rows * (double)q->cv.dmas_row;
    double bytes = 0;
    for (unsigned i = 0; i < q->cv.nseg; i++)
        bytes += (double)(q->cv.seg[i].count * q->cv.seg[i].bytes);
    bytes *= rows * (double)q->cv.r;
    double t_load = dmas * (L + bytes / dmas / bw) / eng;
    if (bytes / bw > t_load)
        t_load = bytes / bw;
    double t_issue = dmas * 12.0;
    double groups = (double)p->o.groups;
    double gemm = c->t_math > c->t_memory ? c->t_math : c->t_memory;
    if (c->t_issue > gemm)
        gemm = c->t_issue;
    double loader = t_load > t_issue ? t_load : t_issue;
    c->t_memory += t_load;
    c->t_issue += t_issue;
    c->predicted *= groups;
    c->t_math *= groups;
    c->t_memory *= groups;
    c->t_issue *= groups;
    if (loader > gemm)
        c->bound = t_load >= t_issue ? "memory" : "issue";
}
