/*
 * kgen_vpu.c - layers on the VPU: depthwise convolution, pooling (max,
 * avg) and elementwise layers (docs/workloads.md).
 *
 * Window layers (depthwise, pooling) go an output image row at a time,
 * two rows in flight: while the VPU computes row q from one buffer set,
 * the DMAs bring row q+1's input rows into the other.  For each filter row
 * r the input row is loaded split by phase: phase buffer f of a stride-st
 * layer holds the padded row's pixels st*x + f, so tap (r, s) of the whole
 * output row is one contiguous view (phase s mod st, shifted s div st
 * pixels) and the VPU reads it with plain vector loads.  Padding pixels
 * are written once (the pad value: +0, or -inf for max pooling) and never
 * overwritten; an input row outside the image comes from the pad region in
 * HBM with source stride 0.  Per vector: acc = t0*w0, acc = acc + ti*wi
 * (depthwise, taps in (r, s) order; the weights of a tap are a pattern of
 * the row's length, w[e mod C], made once by DMA), acc = max(acc, ti) or
 * acc + ti (pooling; avg then times fp32(1/(R*S))); + bias, relu.
 * Elementwise layers stream flat tiles.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "kgen.h"
#include "kgen_impl.h"
#include "ref.h"

#define ALIGN64(x) (((x) + 63) / 64 * 64)
#define U 8                      /* vectors per batch: acc v0-7, x v8-15, w v16-23 */

int kgen_vpu_dw_plan(const tpu_config *cfg, kgen_conv_plan *p, char *err, size_t errlen);
long kgen_vpu_dw_emit(FILE *f, const char *config_name, const tpu_config *cfg,
                      const kgen_conv_plan *p);

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -1;
}

/* One window layer, whichever kind. */
typedef struct {
    int dw;                      /* depthwise conv (bf16 in) or pooling (fp32 in) */
    kgen_pool_mode mode;
    int bias, relu, timing_only;
    uint64_t nb, h, w, c, r, s, st, pad, oh, ow;
    uint64_t esz;                /* input element bytes */
    uint64_t sl, v, nbatch;      /* elements a vector, vectors an output row, batches */
    uint64_t xp;                 /* pixels of a phase buffer */
    uint64_t phase_bytes;        /* bytes of a phase buffer (with slack) */
    uint64_t v_in[2], v_wp, v_bp, v_out[2], vmem_need;
    uint64_t h_pad, h_x, h_w, h_b, h_y, hbm_need, x_bytes, y_bytes;
    uint64_t pad_bytes;
} win;

static void win_cost(const tpu_config *cfg, const win *w, kgen_cost *c)
{
    uint64_t num, den;
    tpu_config_bytes_per_cycle(cfg->hbm_bw, cfg->clock_hz, &num, &den);
    double bw = (double)num / (double)den, L = (double)cfg->hbm_latency;
    double eng = (double)(cfg->dma_engines > 1 ? cfg->dma_engines : 1);
    double rows = (double)(w->nb * w->oh), taps = (double)(w->r * w->s);
    double per_vec = taps * (w->dw ? 4.0 : 2.0) - (w->dw ? 1.0 : 1.0) + 1.0
                     + (w->bias ? 2.0 : 0.0) + (w->relu ? 1.0 : 0.0)
                     + (!w->dw && w->mode == KGEN_POOL_AVG ? 1.0 : 0.0);
    double vpu_row = (double)(w->nbatch * U) * per_vec + (double)w->nbatch * 4.0;
    double dmas_row = (double)(w->r * w->st);
    double in_row = (double)(w->r * w->w * w->c * w->esz), out_row = (double)(w->ow * w->c * 4);
    double dma_row = dmas_row * (L + in_row / dmas_row / bw) / eng;
    if ((in_row + out_row) / bw > dma_row)
        dma_row = (in_row + out_row) / bw;
    double issue_row = vpu_row + dmas_row * 11.0 + 30.0;
    double row = issue_row > dma_row ? issue_row : dma_row;
    c->t_math = rows * vpu_row;
    c->t_memory = rows * dma_row;
    c->t_issue = rows * issue_row;
    c->fill = L + in_row / bw + dmas_row * 11.0;
    c->drain = L + out_row / bw;
    c->predicted = c->fill + rows * row + c->drain;
    c->hbm_bytes = (uint64_t)(rows * (in_row + out_row));
    c->flops = (uint64_t)(rows * (double)w->v * (double)w->sl * taps * 2.0);
    c->bound = dma_row > issue_row ? "memory" : "issue";
}

static int win_plan(const tpu_config *cfg, win *w, char *err, size_t errlen)
{
    w->oh = (w->h + 2 * w->pad - w->r) / w->st + 1;
    w->ow = (w->w + 2 * w->pad - w->s) / w->st + 1;
    w->sl = (uint64_t)cfg->vpu_sublanes * cfg->vpu_lanes;
    w->v = (w->ow * w->c + w->sl - 1) / w->sl;
    w->nbatch = (w->v + U - 1) / U;
    uint64_t vecs = w->nbatch * U;
    w->xp = (w->w + 2 * w->pad + w->st - 1) / w->st;
    /* a tap's view starts s/st pixels in and runs a whole number of batches */
    w->phase_bytes = ALIGN64(((w->s / w->st) * w->c + vecs * w->sl) * w->esz + 64);
    if (w->xp * w->c * w->esz + 64 > w->phase_bytes)
        w->phase_bytes = ALIGN64(w->xp * w->c * w->esz + 64);
    uint64_t set = w->r * w->st * w->phase_bytes;
    uint64_t a = 0;
    for (int i = 0; i < 2; i++) {
        w->v_in[i] = a;
        a += set;
    }
    w->v_wp = a;
    if (w->dw)
        a = ALIGN64(a + w->r * w->s * vecs * w->sl * 2);
    w->v_bp = a;
    if (w->bias)
        a = ALIGN64(a + vecs * w->sl * 4);
    for (int i = 0; i < 2; i++) {
        w->v_out[i] = a;
        a = ALIGN64(a + vecs * w->sl * 4);
    }
    w->vmem_need = a;
    if (a > cfg->vmem_bytes)
        return fail(err, errlen, "an output row's buffers need %llu bytes of VMEM, the machine '%s' has %llu",
                    (unsigned long long)a, cfg->name, (unsigned long long)cfg->vmem_bytes);
    if (a > INT32_MAX)
        return fail(err, errlen, "the VPU buffers pass 2^31 bytes of VMEM");
    /* HBM: the pad region (also the margin before X), X, W, bias, Y */
    uint64_t row_bytes = w->w * w->c * w->esz;
    w->pad_bytes = w->pad * row_bytes;
    if (w->pad_bytes < w->xp * w->c * w->esz)
        w->pad_bytes = w->xp * w->c * w->esz;
    w->h_pad = 0;
    w->h_x = ALIGN64(w->pad_bytes);
    w->x_bytes = w->nb * w->h * row_bytes;
    a = ALIGN64(w->h_x + w->x_bytes);
    w->h_w = a;
    if (w->dw)
        a = ALIGN64(a + w->r * w->s * w->c * 2);
    w->h_b = a;
    if (w->bias)
        a = ALIGN64(a + w->c * 4);
    w->h_y = a;
    w->y_bytes = w->nb * w->oh * w->ow * w->c * 4;
    w->hbm_need = a + w->y_bytes;
    if (w->hbm_need > cfg->hbm_bytes)
        return fail(err, errlen, "the data does not fit HBM: %llu bytes, the machine '%s' has %llu",
                    (unsigned long long)w->hbm_need, cfg->name, (unsigned long long)cfg->hbm_bytes);
    return 0;
}

/* ---- the program ---- */

#define RQ "s5"          /* output rows left to compute */
#define LH "s6"          /* loader: HBM address of the next row's input row r = 0 (may be padding) */
#define LOH "s7"         /* loader: its oh */
#define LSET "s8"        /* loader: its set (0 or the set size) */
#define LN "s9"          /* rows left to load */
#define CSET "s10"       /* compute: the set of the row computed */
#define YQ "s11"         /* HBM address of the row's output */
#define RX "s12"         /* compute: input view offset */
#define RW "s13"         /* compute: pattern offset (bf16 weights) */
#define RO "s14"         /* compute: output offset */
#define RB "s15"         /* compute: batches left */
#define OSET "s16"       /* the output buffer's offset */
#define RBIAS "s17"      /* compute: bias pattern offset */
#define QI "s18"         /* rows computed */
#define T0 "s1"
#define T1 "s2"
#define T2 "s3"
#define T3 "s4"

enum { SEM_IN0 = 0, SEM_IN1 = 1, SEM_OUT = 2, SEM_INIT = 3 };

/* Load the next output row's input rows (all r, all phases) into LSET. */
static void load_row(kgen_emitter *e, const win *w)
{
    uint64_t esz = w->esz, rowb = w->w * w->c * esz;
    unsigned skip = kgen_new_label(e);
    kgen_ins(e, "beq     %s, zero, L%u", LN, skip);
    for (uint64_t r = 0; r < w->r; r++) {
        unsigned zero = kgen_new_label(e), done = kgen_new_label(e);
        int64_t lo = (int64_t)w->pad - (int64_t)r, hi = (int64_t)w->h + (int64_t)w->pad - (int64_t)r;
        int need_lo = lo > 0, need_hi = hi <= (int64_t)((w->oh - 1) * w->st);
        kgen_ins(e, "muli    %s, %s, %" PRIu64 "                # filter row %" PRIu64, T3, LOH, w->st, r);
        if (need_lo) {
            kgen_li(e, T0, (uint64_t)lo);
            kgen_ins(e, "blt     %s, %s, L%u", T3, T0, zero);
        }
        if (need_hi) {
            kgen_li(e, T0, (uint64_t)hi);
            kgen_ins(e, "bge     %s, %s, L%u", T3, T0, zero);
        }
        for (int pass = 0; pass < 2; pass++) {
            if (pass == 1) {
                if (!need_lo && !need_hi)
                    break;
                kgen_ins(e, "jmp     L%u", done);
                kgen_put_label(e, zero);
            }
            for (uint64_t f = 0; f < w->st; f++) {
                /* phase f: padded pixels st*x + f; real ones x in [xa, xb) */
                uint64_t xa = w->xp, xb = 0;
                for (uint64_t x = 0; x < w->xp; x++) {
                    int64_t iw = (int64_t)(x * w->st + f) - (int64_t)w->pad;
                    if (iw >= 0 && iw < (int64_t)w->w) {
                        if (x < xa)
                            xa = x;
                        xb = x + 1;
                    }
                }
                if (xb <= xa)
                    continue;
                uint64_t buf = w->v_in[0] + (r * w->st + f) * w->phase_bytes + xa * w->c * esz;
                kgen_addi(e, T0, LSET, (int64_t)buf, T2);
                if (pass == 0) {
                    int64_t src = (int64_t)(r * rowb) + ((int64_t)(xa * w->st + f) - (int64_t)w->pad) * (int64_t)(w->c * esz);
                    kgen_addi(e, T1, LH, src, T2);
                } else {
                    kgen_li(e, T1, w->h_pad);
                }
                kgen_li(e, T2, xb - xa);
                kgen_li(e, T3, w->c * esz);
                if (pass == 0)
                    kgen_li(e, "s19", w->st * w->c * esz);
                kgen_ins(e, "dma.h2v %s, %s, %s, %s, %s, %s, %d  # phase %" PRIu64, T0, T1, T2, T3,
                         pass ? "zero" : "s19", T3, SEM_IN0, f);
            }
        }
        kgen_put_label(e, done);
    }
    kgen_addi(e, LH, LH, (int64_t)(w->st * rowb), T0);
    kgen_ins(e, "addi    %s, %s, 1", LOH, LOH);
    kgen_ins(e, "addi    %s, %s, -1", LN, LN);
    unsigned l = kgen_new_label(e);
    kgen_li(e, T0, w->oh);
    kgen_ins(e, "bne     %s, %s, L%u", LOH, T0, l);
    kgen_li(e, LOH, 0);
    kgen_addi(e, LH, LH, ((int64_t)w->h - (int64_t)(w->oh * w->st)) * (int64_t)rowb, T0);
    kgen_put_label(e, l);
    kgen_li(e, T0, w->v_in[1] - w->v_in[0]);
    kgen_ins(e, "xor     %s, %s, %s              # the other set next", LSET, LSET, T0);
    kgen_put_label(e, skip);
}

static uint64_t dmas_per_row(const win *w)
{
    uint64_t n = 0;
    for (uint64_t f = 0; f < w->st; f++)
        for (uint64_t x = 0; x < w->xp; x++) {
            int64_t iw = (int64_t)(x * w->st + f) - (int64_t)w->pad;
            if (iw >= 0 && iw < (int64_t)w->w) {
                n++;
                break;
            }
        }
    return n * w->r;
}

/* Compute the output row in set CSET into the output buffer OSET. */
static void compute_row(kgen_emitter *e, const win *w)
{
    uint64_t esz = w->esz, vb = w->sl * esz;
    const char *ld = esz == 2 ? "vld.bf16" : "vld     ";
    kgen_li(e, RB, w->nbatch);
    kgen_ins(e, "add     %s, %s, zero", RX, CSET);
    kgen_li(e, RW, 0);
    kgen_li(e, RBIAS, 0);
    kgen_ins(e, "add     %s, %s, zero", RO, OSET);
    unsigned top = kgen_new_label(e);
    kgen_put_label(e, top);
    for (uint64_t t = 0; t < w->r * w->s; t++) {
        uint64_t r = t / w->s, sidx = t % w->s;
        uint64_t view = w->v_in[0] + (r * w->st + sidx % w->st) * w->phase_bytes + (sidx / w->st) * w->c * esz;
        int first = t == 0;
        for (unsigned j = 0; j < U; j++)
            kgen_ins(e, "%s v%u, %s, %" PRIu64, ld, (first && !w->dw) ? j : 8 + j, RX, view + j * vb);
        if (w->dw) {
            for (unsigned j = 0; j < U; j++)
                kgen_ins(e, "vld.bf16 v%u, %s, %" PRIu64, 16 + j, RW, w->v_wp + t * U * w->nbatch * w->sl * 2 + j * w->sl * 2);
            for (unsigned j = 0; j < U; j++)
                kgen_ins(e, "vmul    v%u, v%u, v%u", first ? j : 8 + j, 8 + j, 16 + j);
            if (!first)
                for (unsigned j = 0; j < U; j++)
                    kgen_ins(e, "vadd    v%u, v%u, v%u", j, j, 8 + j);
        } else if (!first) {
            for (unsigned j = 0; j < U; j++)
                kgen_ins(e, "%s v%u, v%u, v%u", w->mode == KGEN_POOL_MAX ? "vmax   " : "vadd   ", j, j, 8 + j);
        }
    }
    if (!w->dw && w->mode == KGEN_POOL_AVG)
        for (unsigned j = 0; j < U; j++)
            kgen_ins(e, "vmul    v%u, v%u, v31", j, j);
    if (w->bias) {
        for (unsigned j = 0; j < U; j++)
            kgen_ins(e, "vld     v%u, %s, %" PRIu64, 16 + j, RBIAS, w->v_bp + j * w->sl * 4);
        for (unsigned j = 0; j < U; j++)
            kgen_ins(e, "vadd    v%u, v%u, v%u", j, j, 16 + j);
    }
    if (w->relu)
        for (unsigned j = 0; j < U; j++)
            kgen_ins(e, "vrelu   v%u, v%u", j, j);
    for (unsigned j = 0; j < U; j++)
        kgen_ins(e, "vst     v%u, %s, %" PRIu64, j, RO, w->v_out[0] + j * w->sl * 4);
    kgen_addi(e, RX, RX, (int64_t)(U * vb), T0);
    kgen_addi(e, RW, RW, (int64_t)(U * w->sl * 2), T0);
    kgen_addi(e, RBIAS, RBIAS, (int64_t)(U * w->sl * 4), T0);
    kgen_addi(e, RO, RO, (int64_t)(U * w->sl * 4), T0);
    kgen_ins(e, "addi    %s, %s, -1", RB, RB);
    kgen_ins(e, "bne     %s, zero, L%u", RB, top);
}

static void win_code(kgen_emitter *e, const win *w)
{
    uint64_t rows = w->nb * w->oh, vecs = w->nbatch * U;
    uint64_t dr = dmas_per_row(w);
    unsigned init = 0;
    kgen_line(e, "        .text");
    kgen_line(e, "# ---- set-up: padding pixels of every phase buffer%s%s", w->dw ? ", the weight patterns" : "",
              w->bias ? ", the bias pattern" : "");
    uint32_t padv = (!w->dw && w->mode == KGEN_POOL_MAX) ? 0xff800000u : 0;
    if (padv) {
        for (int set = 0; set < 2; set++)
            for (uint64_t k = 0; k < w->r * w->st; k++) {
                kgen_li(e, T0, w->v_in[set] + k * w->phase_bytes);
                kgen_li(e, T1, w->h_pad);
                kgen_li(e, T2, w->xp);
                kgen_li(e, T3, w->c * w->esz);
                kgen_ins(e, "dma.h2v %s, %s, %s, %s, zero, %s, %d", T0, T1, T2, T3, T3, SEM_INIT);
                init++;
            }
    }
    if (w->dw)
        for (uint64_t t = 0; t < w->r * w->s; t++) {
            kgen_li(e, T0, w->v_wp + t * vecs * w->sl * 2);
            kgen_li(e, T1, w->h_w + t * w->c * 2);
            kgen_li(e, T2, (vecs * w->sl + w->c - 1) / w->c);
            kgen_li(e, T3, w->c * 2);
            kgen_ins(e, "dma.h2v %s, %s, %s, %s, zero, %s, %d  # tap %" PRIu64 "'s weights, w[e mod C]", T0, T1, T2, T3, T3, SEM_INIT, t);
            init++;
        }
    if (w->bias) {
        kgen_li(e, T0, w->v_bp);
        kgen_li(e, T1, w->h_b);
        kgen_li(e, T2, (vecs * w->sl + w->c - 1) / w->c);
        kgen_li(e, T3, w->c * 4);
        kgen_ins(e, "dma.h2v %s, %s, %s, %s, zero, %s, %d  # bias[e mod C]", T0, T1, T2, T3, T3, SEM_INIT);
        init++;
    }
    if (!w->dw && w->mode == KGEN_POOL_AVG) {
        kgen_li(e, T0, tpu_ref_pool_scale(w->r * w->s));
        kgen_ins(e, "vbcast  v31, %s                 # fp32(1 / %" PRIu64 ")", T0, w->r * w->s);
    }
    if (init)
        kgen_ins(e, "sem.wait %d, %u", SEM_INIT, init);
    kgen_li(e, LH, w->h_x - w->pad * w->w * w->c * w->esz);
    kgen_li(e, LOH, 0);
    kgen_li(e, LSET, 0);
    kgen_li(e, LN, rows);
    kgen_li(e, RQ, rows);
    kgen_li(e, CSET, 0);
    kgen_li(e, OSET, 0);
    kgen_li(e, QI, 0);
    kgen_li(e, YQ, w->h_y);
    kgen_line(e, "# the first output row's input rows");
    load_row(e, w);
    kgen_line(e, "");
    kgen_line(e, "# ---- for each output row (%" PRIu64 "): load the next one's input, compute this one", rows);
    kgen_line(e, "ROW:");
    load_row(e, w);
    kgen_ins(e, "sem.wait %d, %" PRIu64 "                 # this row's input rows are in VMEM", SEM_IN0, dr);
    {
        unsigned l = kgen_new_label(e);
        kgen_li(e, T0, 2);
        kgen_ins(e, "blt     %s, %s, L%u", QI, T0, l);
        kgen_ins(e, "sem.wait %d, 1                 # the output buffer's last row has left", SEM_OUT);
        kgen_put_label(e, l);
    }
    compute_row(e, w);
    kgen_ins(e, "sync    vpu                     # the row is in VMEM; its input set is free");
    kgen_li(e, T0, w->v_out[0]);
    kgen_ins(e, "add     %s, %s, %s", T0, T0, OSET);
    kgen_li(e, T1, 1);
    kgen_li(e, T2, w->ow * w->c * 4);
    kgen_ins(e, "dma.v2h %s, %s, %s, %s, %s, %s, %d", YQ, T0, T1, T2, T2, T2, SEM_OUT);
    kgen_addi(e, YQ, YQ, (int64_t)(w->ow * w->c * 4), T0);
    kgen_li(e, T0, w->v_in[1] - w->v_in[0]);
    kgen_ins(e, "xor     %s, %s, %s", CSET, CSET, T0);
    kgen_li(e, T0, w->v_out[1] - w->v_out[0]);
    kgen_ins(e, "xor     %s, %s, %s", OSET, OSET, T0);
    kgen_ins(e, "addi    %s, %s, 1", QI, QI);
    kgen_ins(e, "addi    %s, %s, -1", RQ, RQ);
    kgen_ins(e, "bne     %s, zero, ROW", RQ);
    kgen_ins(e, "halt");
}

static void win_data(kgen_emitter *e, const win *w)
{
    kgen_line(e, "");
    kgen_line(e, "# ---- HBM: the pad region, X (NHWC)%s%s, Y", w->dw ? ", W (HWIO, 1 channel a group)" : "",
              w->bias ? ", bias" : "");
    kgen_line(e, "        .hbm    %" PRIu64, w->h_pad);
    if (!w->dw && w->mode == KGEN_POOL_MAX) {
        kgen_line(e, "PADV:   .rept   %" PRIu64 "                  # -inf: max pooling's padding", w->pad_bytes / 4);
        kgen_line(e, "        .f32    -inf");
        kgen_line(e, "        .endr");
    } else {
        kgen_line(e, "PADV:   .zero   %" PRIu64, w->pad_bytes);
    }
    kgen_line(e, "        .hbm    %" PRIu64, w->h_x);
    kgen_line(e, "X:      .random %s, %" PRIu64 ", 1", w->esz == 2 ? "bf16" : "f32", w->nb * w->h * w->w * w->c);
    if (w->dw) {
        kgen_line(e, "        .hbm    %" PRIu64, w->h_w);
        kgen_line(e, "W:      .random bf16, %" PRIu64 ", 1073741824", w->r * w->s * w->c);
    }
    if (w->bias) {
        kgen_line(e, "        .hbm    %" PRIu64, w->h_b);
        kgen_line(e, "BIAS:   .random f32, %" PRIu64 ", 117440512", w->c);
    }
    kgen_line(e, "        .hbm    %" PRIu64, w->h_y);
    kgen_line(e, "Y:      .zero   %" PRIu64, w->y_bytes);
    kgen_line(e, "");
    kgen_line(e, "# ---- check, bit for bit (docs/numerics.md)");
    if (w->dw)
        kgen_line(e, "        .expect conv2d Y, X, W, %s, %" PRIu64 ", %" PRIu64 ", %" PRIu64 ", %" PRIu64 ", %" PRIu64 ", %" PRIu64 ", %" PRIu64 ", %" PRIu64 ", %" PRIu64 ", %" PRIu64 ", %u",
                  w->bias ? "BIAS" : "Y", w->nb, w->h, w->w, w->c, w->c, w->r, w->s, w->st, w->pad, w->c,
                  16u | (w->bias ? 1u : 0u) | (w->relu ? 2u : 0u));
    else
        kgen_line(e, "        .expect pool Y, X, %" PRIu64 ", %" PRIu64 ", %" PRIu64 ", %" PRIu64 ", %" PRIu64 ", %" PRIu64 ", %" PRIu64 ", %" PRIu64 ", %u",
                  w->nb, w->h, w->w, w->c, w->r, w->s, w->st, w->pad, (unsigned)w->mode);
}

static void win_header(kgen_emitter *e, const char *config_name, const tpu_config *cfg,
                       const win *w, const kgen_cost *c)
{
    kgen_line(e, "# tpu-as: --config %s", config_name);
    kgen_line(e, "#");
    kgen_line(e, "# Generated by tpu-gen %s (sim/kernels/kgen_vpu.c, docs/workloads.md); do not edit.",
              w->dw ? "conv2d (depthwise, on the VPU)" : "pool");
    kgen_line(e, "#");
    kgen_line(e, "#   %s %" PRIu64 "x%" PRIu64 "x%" PRIu64 "x%" PRIu64 " -> %" PRIu64 "x%" PRIu64 "x%" PRIu64 "x%" PRIu64 ", window %" PRIu64 "x%" PRIu64 ", stride %" PRIu64 ", padding %" PRIu64 "%s%s",
              w->dw ? "depthwise conv" : w->mode == KGEN_POOL_MAX ? "max pool" : "avg pool",
              w->nb, w->h, w->w, w->c, w->nb, w->oh, w->ow, w->c, w->r, w->s, w->st, w->pad,
              w->bias ? ", + bias" : "", w->relu ? ", relu" : "");
    kgen_line(e, "#   machine %s: VPU %ux%u (%" PRIu64 " fp32 a vector)", cfg->name, (unsigned)cfg->vpu_sublanes,
              (unsigned)cfg->vpu_lanes, w->sl);
    kgen_line(e, "#   an output row is %" PRIu64 " vectors, %" PRIu64 " batches of %d; its input: %" PRIu64 " DMAs (filter rows x phases)",
              w->v, w->nbatch, U, dmas_per_row(w));
    kgen_line(e, "#   VMEM            input sets at %" PRIu64 " and %" PRIu64 " (%" PRIu64 " phase buffers of %" PRIu64 " bytes), weights at %" PRIu64 ", bias at %" PRIu64 ", output rows at %" PRIu64 " and %" PRIu64 "; %" PRIu64 " bytes",
              w->v_in[0], w->v_in[1], w->r * w->st, w->phase_bytes, w->v_wp, w->v_bp, w->v_out[0], w->v_out[1], w->vmem_need);
    kgen_line(e, "#   predicted       %.0f cycles, %s-bound (vpu %.0f, memory %.0f, issue %.0f)",
              c->predicted, c->bound, c->t_math, c->t_memory, c->t_issue);
    kgen_line(e, "#");
    kgen_line(e, "# Registers: s5 rows left, s6-s9 the loader (input row, oh, set, rows left), s10 the");
    kgen_line(e, "# set computed, s11 Y's row, s12-s17 the batch loop, s18 rows done, s19 a stride.");
    kgen_line(e, "# Semaphores: 0 input rows landed, 2 output rows written, 3 set-up.");
    kgen_line(e, "");
    kgen_line(e, "        .assert VPU_SUBLANES * VPU_LANES == %" PRIu64 ", \"generated for %" PRIu64 " fp32 a vector: assemble with --config %s\"",
              w->sl, w->sl, config_name);
    if (w->timing_only)
        kgen_line(e, "        .equ    PADV, hbm(%" PRIu64 ")", w->h_pad);
}

static long win_emit(FILE *f, const char *config_name, const tpu_config *cfg, const win *w,
                     const kgen_cost *c)
{
    kgen_emitter E = { f, 0, 0, NULL, "" }, *e = &E;
    win_header(e, config_name, cfg, w, c);
    win_code(e, w);
    if (!w->timing_only)
        win_data(e, w);
    fflush(f);
    return ferror(f) ? -1 : E.insns;
}

/* ---- depthwise ---- */

static void dw_win(const kgen_conv_plan *p, win *w)
{
    memset(w, 0, sizeof *w);
    w->dw = 1;
    w->bias = p->o.bias, w->relu = p->o.relu, w->timing_only = p->o.timing_only;
    w->nb = p->o.nb, w->h = p->o.h, w->w = p->o.w, w->c = p->o.c, w->r = p->o.r, w->s = p->o.s;
    w->st = p->o.stride, w->pad = p->o.pad, w->esz = 2;
}

int kgen_vpu_dw_plan(const tpu_config *cfg, kgen_conv_plan *p, char *err, size_t errlen)
{
    win w;
    dw_win(p, &w);
    if (win_plan(cfg, &w, err, errlen))
        return -1;
    p->sl = w.sl;
    p->rows_per_tile = 1;
    p->tiles = w.nb * w.oh;
    p->vec_tile = w.v;
    p->u = U;
    p->h_x = w.h_x, p->h_w = w.h_w, p->h_b = w.h_b, p->h_zero = w.h_pad, p->h_y = w.h_y;
    p->hbm_need = w.hbm_need, p->vmem_need = w.vmem_need;
    p->x_bytes = w.x_bytes, p->y_bytes = w.y_bytes;
    p->efficiency = (double)(w.ow * w.c) / (double)(w.nbatch * U * w.sl);
    win_cost(cfg, &w, &p->cost);
    return 0;
}

long kgen_vpu_dw_emit(FILE *f, const char *config_name, const tpu_config *cfg,
                      const kgen_conv_plan *p)
{
    win w;
    char err[200];
    dw_win(p, &w);
    if (win_plan(cfg, &w, err, sizeof err))
        return -1;
    return win_emit(f, config_name, cfg, &w, &p->cost);
}


/* ---- pooling and elementwise (kgen_vpu_plan) ---- */

static void pool_win(const kgen_vpu_plan *p, win *w)
{
    memset(w, 0, sizeof *w);
    w->mode = p->o.mode, w->timing_only = p->o.timing_only;
    w->nb = p->o.nb, w->h = p->o.h, w->w = p->o.w, w->c = p->o.c, w->r = p->o.r, w->s = p->o.s;
    w->st = p->o.stride, w->pad = p->o.pad, w->esz = 4;
}

/* Elementwise: flat tiles of `vec_tile` vectors, two in flight. */
static void elt_cost(const tpu_config *cfg, const kgen_vpu_plan *p, kgen_cost *c)
{
    uint64_t num, den;
    tpu_config_bytes_per_cycle(cfg->hbm_bw, cfg->clock_hz, &num, &den);
    double bw = (double)num / (double)den, L = (double)cfg->hbm_latency;
    int two = p->o.op != KGEN_ELT_RELU;
    double per_vec = (two ? 2.0 : 1.0) + 1.0 + (p->o.op == KGEN_ELT_ADD_RELU ? 2.0 : 1.0);
    double tiles = (double)p->tiles, vt = (double)p->vec_tile;
    double bytes_tile = vt * (double)p->sl * 4.0 * (two ? 3.0 : 2.0);
    double issue = vt * per_vec + vt / U * 3.0 + 20.0;
    double mem = bytes_tile / bw;
    double lat = (L + bytes_tile / 3.0 / bw) / (double)(cfg->dma_engines > 1 ? cfg->dma_engines : 1);
    if (lat > mem)
        mem = lat;
    c->t_math = tiles * vt * per_vec;
    c->t_memory = tiles * mem;
    c->t_issue = tiles * issue;
    c->fill = L + bytes_tile / (two ? 1.5 : 2.0) / bw;
    c->drain = L + bytes_tile / (two ? 3.0 : 2.0) / bw;
    c->predicted = c->fill + tiles * (mem > issue ? mem : issue) + c->drain;
    c->bound = mem > issue ? "memory" : "issue";
    c->hbm_bytes = (uint64_t)(tiles * bytes_tile);
    c->flops = (uint64_t)((double)p->elems * (p->o.op == KGEN_ELT_ADD_RELU ? 2.0 : 1.0));
}

int kgen_vpu_plan_make(const tpu_config *cfg, const kgen_vpu_opts *o, kgen_vpu_plan *p,
                       char *err, size_t errlen)
{
    memset(p, 0, sizeof *p);
    p->o = *o;
    const uint64_t lim = 1ull << 24;
    if (!o->nb || !o->h || !o->w || !o->c || !o->r || !o->s || !o->stride)
        return fail(err, errlen, "the sizes, the window and the stride must be positive");
    if (o->nb > lim || o->h > lim || o->w > lim || o->c > lim || o->r > 64 || o->s > 64
        || o->stride > 64 || o->pad > 64)
        return fail(err, errlen, "a size is too large (sizes up to 2^24, window, stride and padding up to 64)");
    p->sl = (uint64_t)cfg->vpu_sublanes * cfg->vpu_lanes;
    p->u = U;
    if (o->pool) {
        if (o->pad >= o->r || o->pad >= o->s)
            return fail(err, errlen, "--pad %llu must be smaller than the window %llux%llu",
                        (unsigned long long)o->pad, (unsigned long long)o->r, (unsigned long long)o->s);
        if (o->h + 2 * o->pad < o->r || o->w + 2 * o->pad < o->s)
            return fail(err, errlen, "the window does not fit the padded input");
        win w;
        pool_win(p, &w);
        if (win_plan(cfg, &w, err, errlen))
            return -1;
        p->oh = w.oh, p->ow = w.ow, p->pixels = w.nb * w.oh * w.ow;
        p->rows_per_tile = 1, p->tiles = w.nb * w.oh, p->vec_tile = w.v;
        p->h_x = w.h_x, p->h_pad = w.h_pad, p->h_y = w.h_y, p->hbm_need = w.hbm_need;
        p->vmem_need = w.vmem_need;
        win_cost(cfg, &w, &p->cost);
        return 0;
    }
    /* elementwise */
    p->elems = o->nb * o->h * o->w * o->c;
    uint64_t vecs = (p->elems + p->sl - 1) / p->sl;
    int two = o->op != KGEN_ELT_RELU;
    /* tiles of up to 256 vectors (a multiple of U), two sets in VMEM */
    uint64_t vt = 256;
    uint64_t per = p->sl * 4 * (two ? 3 : 2) * 2;
    while (vt > U && vt * per > cfg->vmem_bytes)
        vt /= 2;
    if (vt * per > cfg->vmem_bytes)
        return fail(err, errlen, "the VPU tiles do not fit VMEM");
    if (vt > (vecs + U - 1) / U * U)
        vt = (vecs + U - 1) / U * U;
    p->vec_tile = vt;
    p->tiles = (vecs + vt - 1) / vt;
    uint64_t tb = vt * p->sl * 4, a = 0;
    for (int i = 0; i < 2; i++) {
        p->v_in[i] = a;
        a += two ? 2 * tb : tb;
        p->v_out[i] = a;
        a += tb;
    }
    p->vmem_need = a;
    p->tile_bytes_in = tb;
    uint64_t bytes = p->elems * 4;
    p->h_x = 0;
    p->h_x2 = ALIGN64(bytes + tb);           /* a tile's slack: the last tile reads past the end */
    p->h_y = two ? ALIGN64(p->h_x2 + bytes + tb) : p->h_x2;
    p->hbm_need = p->h_y + bytes + tb;
    if (p->hbm_need > cfg->hbm_bytes)
        return fail(err, errlen, "the data does not fit HBM: %llu bytes, the machine '%s' has %llu",
                    (unsigned long long)p->hbm_need, cfg->name, (unsigned long long)cfg->hbm_bytes);
    elt_cost(cfg, p, &p->cost);
    return 0;
}

static long elt_emit(FILE *f, const char *config_name, const tpu_config *cfg,
                     const kgen_vpu_plan *p)
{
    static const char *const names[] = { "add", "relu", "add_relu", "max", "mul" };
    kgen_emitter E = { f, 0, 0, NULL, "" }, *e = &E;
    int two = p->o.op != KGEN_ELT_RELU;
    uint64_t tb = p->tile_bytes_in, vb = p->sl * 4;
    kgen_line(e, "# tpu-as: --config %s", config_name);
    kgen_line(e, "#");
    kgen_line(e, "# Generated by tpu-gen eltwise (sim/kernels/kgen_vpu.c, docs/workloads.md); do not edit.");
    kgen_line(e, "#");
    kgen_line(e, "#   Z = %s(X%s), %" PRIu64 " fp32 values (%" PRIu64 "x%" PRIu64 "x%" PRIu64 "x%" PRIu64 ")", names[p->o.op],
              two ? ", Y" : "", p->elems, p->o.nb, p->o.h, p->o.w, p->o.c);
    kgen_line(e, "#   machine %s: VPU %ux%u; %" PRIu64 " tiles of %" PRIu64 " vectors, two in flight", cfg->name,
              (unsigned)cfg->vpu_sublanes, (unsigned)cfg->vpu_lanes, p->tiles, p->vec_tile);
    kgen_line(e, "#   predicted       %.0f cycles, %s-bound (vpu %.0f, memory %.0f, issue %.0f)",
              p->cost.predicted, p->cost.bound, p->cost.t_math, p->cost.t_memory, p->cost.t_issue);
    kgen_line(e, "# Registers: s5 tiles left, s6 the next tile's HBM offset, s7 its set, s8 the set computed,");
    kgen_line(e, "# s9 the batch pointer, s10 batches left, s11 tiles done, s12 the output's HBM offset.");
    kgen_line(e, "# Semaphores: 0 inputs landed, 2 outputs written.");
    kgen_line(e, "");
    kgen_line(e, "        .assert VPU_SUBLANES * VPU_LANES == %" PRIu64 ", \"generated for %" PRIu64 " fp32 a vector: assemble with --config %s\"",
              p->sl, p->sl, config_name);
    if (p->o.timing_only) {
        kgen_line(e, "        .equ    X, hbm(%" PRIu64 ")", p->h_x);
        kgen_line(e, "        .equ    Z, hbm(%" PRIu64 ")", p->h_y);
    }
    kgen_line(e, "        .text");
    uint64_t setd = p->v_in[1] - p->v_in[0];
    kgen_li(e, "s5", p->tiles);
    kgen_li(e, "s6", 0);
    kgen_li(e, "s7", 0);
    kgen_li(e, "s8", 0);
    kgen_li(e, "s11", 0);
    kgen_li(e, "s12", 0);
    /* LOAD: the next tile (s6 offset) into set s7 */
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1)
            kgen_line(e, "TILE:");
        unsigned skip = kgen_new_label(e);
        kgen_li(e, T0, p->tiles);
        kgen_ins(e, "bge     s11, %s, L%u", T0, skip);     /* never: guard */
        if (pass == 1) {
            kgen_li(e, T0, p->tiles - 1);
            kgen_ins(e, "bge     s11, %s, L%u          # the last tile: nothing to load next", T0, skip);
        }
        kgen_li(e, T0, p->v_in[0]);
        kgen_ins(e, "add     %s, %s, s7", T0, T0);
        kgen_li(e, T1, p->h_x);
        kgen_ins(e, "add     %s, %s, s6", T1, T1);
        kgen_li(e, T2, tb);
        kgen_li(e, T3, 1);
        kgen_ins(e, "dma.h2v %s, %s, %s, %s, %s, %s, 0", T0, T1, T3, T2, T2, T2);
        if (two) {
            kgen_addi(e, T0, T0, (int64_t)tb, T3);
            kgen_li(e, T1, p->h_x2);
            kgen_ins(e, "add     %s, %s, s6", T1, T1);
            kgen_li(e, T3, 1);
            kgen_ins(e, "dma.h2v %s, %s, %s, %s, %s, %s, 0", T0, T1, T3, T2, T2, T2);
        }
        kgen_addi(e, "s6", "s6", (int64_t)tb, T0);
        kgen_li(e, T0, setd);
        kgen_ins(e, "xor     s7, s7, %s", T0);
        kgen_put_label(e, skip);
    }
    kgen_ins(e, "sem.wait 0, %d                 # this tile's inputs", two ? 2 : 1);
    {
        unsigned l = kgen_new_label(e);
        kgen_li(e, T0, 2);
        kgen_ins(e, "blt     s11, %s, L%u", T0, l);
        kgen_ins(e, "sem.wait 2, 1                 # the output buffer's last tile has left");
        kgen_put_label(e, l);
    }
    kgen_ins(e, "add     s9, s8, zero");
    kgen_li(e, "s10", p->vec_tile / U);
    unsigned top = kgen_new_label(e);
    kgen_put_label(e, top);
    for (unsigned j = 0; j < U; j++)
        kgen_ins(e, "vld     v%u, s9, %" PRIu64, j, p->v_in[0] + j * vb);
    if (two)
        for (unsigned j = 0; j < U; j++)
            kgen_ins(e, "vld     v%u, s9, %" PRIu64, 8 + j, p->v_in[0] + tb + j * vb);
    for (unsigned j = 0; j < U; j++) {
        switch (p->o.op) {
        case KGEN_ELT_ADD: case KGEN_ELT_ADD_RELU: kgen_ins(e, "vadd    v%u, v%u, v%u", j, j, 8 + j); break;
        case KGEN_ELT_MAX: kgen_ins(e, "vmax    v%u, v%u, v%u", j, j, 8 + j); break;
        case KGEN_ELT_MUL: kgen_ins(e, "vmul    v%u, v%u, v%u", j, j, 8 + j); break;
        case KGEN_ELT_RELU: kgen_ins(e, "vrelu   v%u, v%u", j, j); break;
        }
    }
    if (p->o.op == KGEN_ELT_ADD_RELU)
        for (unsigned j = 0; j < U; j++)
            kgen_ins(e, "vrelu   v%u, v%u", j, j);
    for (unsigned j = 0; j < U; j++)
        kgen_ins(e, "vst     v%u, s9, %" PRIu64, j, p->v_out[0] + j * vb);
    kgen_addi(e, "s9", "s9", (int64_t)(U * vb), T0);
    kgen_ins(e, "addi    s10, s10, -1");
    kgen_ins(e, "bne     s10, zero, L%u", top);
    kgen_ins(e, "sync    vpu");
    kgen_li(e, T0, p->v_out[0]);
    kgen_ins(e, "add     %s, %s, s8", T0, T0);
    kgen_li(e, T1, p->h_y);
    kgen_ins(e, "add     %s, %s, s12", T1, T1);
    kgen_li(e, T2, tb);
    {   /* the last tile: only the values that are there */
        unsigned l = kgen_new_label(e);
        kgen_li(e, T3, p->tiles - 1);
        kgen_ins(e, "bne     s11, %s, L%u", T3, l);
        kgen_li(e, T2, p->elems * 4 - (p->tiles - 1) * tb);
        kgen_put_label(e, l);
    }
    kgen_li(e, T3, 1);
    kgen_ins(e, "dma.v2h %s, %s, %s, %s, %s, %s, 2", T1, T0, T3, T2, T2, T2);
    kgen_addi(e, "s12", "s12", (int64_t)tb, T0);
    kgen_li(e, T0, setd);
    kgen_ins(e, "xor     s8, s8, %s", T0);
    kgen_ins(e, "addi    s11, s11, 1");
    kgen_ins(e, "addi    s5, s5, -1");
    kgen_ins(e, "bne     s5, zero, TILE");
    kgen_ins(e, "halt");
    if (!p->o.timing_only) {
        kgen_line(e, "");
        kgen_line(e, "# ---- HBM: X%s, Z; each followed by a tile of slack", two ? ", Y" : "");
        kgen_line(e, "        .hbm    %" PRIu64, p->h_x);
        kgen_line(e, "X:      .random f32, %" PRIu64 ", 1", p->elems);
        if (two) {
            kgen_line(e, "        .hbm    %" PRIu64, p->h_x2);
            kgen_line(e, "Y:      .random f32, %" PRIu64 ", 2", p->elems);
        }
        kgen_line(e, "        .hbm    %" PRIu64, p->h_y);
        kgen_line(e, "Z:      .zero   %" PRIu64, p->elems * 4);
        kgen_line(e, "");
        kgen_line(e, "# ---- check, bit for bit");
        if (two)
            kgen_line(e, "        .expect %s Z, X, Y, %" PRIu64, names[p->o.op], p->elems);
        else
            kgen_line(e, "        .expect relu Z, X, %" PRIu64, p->elems);
    }
    fflush(f);
    return ferror(f) ? -1 : E.insns;
}

long kgen_vpu_emit(FILE *f, const char *config_name, const tpu_config *cfg,
                   const kgen_vpu_plan *p)
{
    if (!p->o.pool)
        return elt_emit(f, config_name, cfg, p);
    win w;
    char err[200];
    pool_win(p, &w);
    if (win_plan(cfg, &w, err, sizeof err))
        return -1;
    return win_emit(f, config_name, cfg, &w, &p->cost);
}
