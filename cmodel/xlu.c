/*
 * xlu.c - the cross-lane unit (see xlu.h).  The tree levels are those of
 * rtl/xlu.v, element for element: level k of a lane reduction with n
 * lanes left sets work[s][i] = op(work[s][2i], work[s][2i+1]) where
 * 2i + 1 < n, work[s][2i] where 2i + 1 == n, and leaves the rest; then
 * n = ceil(n / 2).  Sublanes likewise.  So the result is the pairwise
 * tree of numerics.md section 13.
 */
#include "xlu.h"

#include <stdlib.h>
#include <string.h>

#include "fp.h"

int tpu_xlu_init(tpu_xlu *x, unsigned sublanes, unsigned lanes, unsigned qdepth, tpu_vpu *vpu,
                 const tpu_evsrc *ev)
{
    memset(x, 0, sizeof *x);
    tpu_queue_init(&x->q, qdepth);
    x->S = sublanes;
    x->L = lanes;
    x->vpu = vpu;
    x->ev = ev;
    x->work = calloc((size_t)sublanes * lanes, sizeof *x->work);
    x->out = calloc((size_t)sublanes * lanes, sizeof *x->out);
    if (!x->work || !x->out) {
        tpu_xlu_free(x);
        return -1;
    }
    return 0;
}

void tpu_xlu_free(tpu_xlu *x)
{
    free(x->work);
    free(x->out);
    x->work = x->out = NULL;
}

unsigned tpu_xlu_levels(unsigned n)
{
    unsigned k = 0;
    while (n > 1) {
        n = (n + 1) / 2;
        k++;
    }
    return k;
}

uint32_t tpu_xlu_vmask(const tpu_xlu *x)
{
    uint32_t m = 0;
    if (x->running)
        m |= 1u << x->rd | 1u << x->ra;
    for (unsigned i = 0; i < x->q.count; i++) {
        const tpu_qentry *e = &x->q.e[(x->q.head + i) % TPU_QUEUE_MAX];
        m |= 1u << (e->v[0] & 31) | 1u << (e->v[1] & 31);
    }
    return m;
}

static int is_max(uint8_t op)
{
    return op == TPU_OP_XLU_LMAX || op == TPU_OP_XLU_SMAX || op == TPU_OP_XLU_AMAX;
}

static uint32_t combine(uint8_t op, uint32_t a, uint32_t b)
{
    return is_max(op) ? tpu_f32_max(a, b) : tpu_f32_add(a, b);
}

/* The start: the source register, permuted for the rotates and the
 * transpose, into work. */
static void start(tpu_xlu *x, const tpu_qentry *e)
{
    unsigned S = x->S, L = x->L, B = S < L ? S : L;
    const uint32_t *a = x->vpu->regs + (size_t)(e->v[1] & 31) * S * L;
    uint64_t k = (uint64_t)e->v[2];
    for (unsigned s = 0; s < S; s++)
        for (unsigned l = 0; l < L; l++) {
            uint32_t v;
            switch (e->op) {
            case TPU_OP_XLU_SROT:   /* vd[(s + k) mod S] = va[s] */
                v = a[(size_t)((s + S - k % S) % S) * L + l];
                break;
            case TPU_OP_XLU_LROT:
                v = a[(size_t)s * L + (l + L - k % L) % L];
                break;
            case TPU_OP_XLU_TR: {
                unsigned s0 = s - s % B, l0 = l - l % B;
                unsigned ss = s0 + (l - l0), ll = l0 + (s - s0);
                v = ss < S && ll < L ? a[(size_t)ss * L + ll] : a[(size_t)s * L + l];
                break;
            }
            default:
                v = a[(size_t)s * L + l];
                break;
            }
            x->work[(size_t)s * L + l] = v;
        }
    x->op = e->op;
    x->rd = (unsigned)(e->v[0] & 31);
    x->ra = (unsigned)(e->v[1] & 31);
    x->pc = e->pc;
    x->word = e->word;
    int lanes = e->op == TPU_OP_XLU_LSUM || e->op == TPU_OP_XLU_LMAX || e->op == TPU_OP_XLU_ASUM
             || e->op == TPU_OP_XLU_AMAX;
    int subl = e->op == TPU_OP_XLU_SSUM || e->op == TPU_OP_XLU_SMAX || e->op == TPU_OP_XLU_ASUM
            || e->op == TPU_OP_XLU_AMAX;
    x->nl = lanes ? L : 1;
    x->ns = subl ? S : 1;
    x->running = 1;
}

int tpu_xlu_step(tpu_xlu *x, uint64_t t)
{
    (void)t;
    unsigned S = x->S, L = x->L;
    uint32_t *w = x->work;
    if (x->running) {
        if (x->nl > 1) {                                    /* a lane level */
            unsigned n = x->nl;
            for (unsigned s = 0; s < S; s++)
                for (unsigned i = 0; 2 * i < n; i++) {
                    uint32_t *r = w + (size_t)s * L;
                    r[i] = 2 * i + 1 < n ? combine(x->op, r[2 * i], r[2 * i + 1]) : r[2 * i];
                }
            x->nl = (n + 1) / 2;
        } else if (x->ns > 1) {                             /* a sublane level */
            unsigned n = x->ns;
            for (unsigned i = 0; 2 * i < n; i++)
                for (unsigned l = 0; l < L; l++)
                    w[(size_t)i * L + l] = 2 * i + 1 < n
                        ? combine(x->op, w[(size_t)2 * i * L + l], w[(size_t)(2 * i + 1) * L + l])
                        : w[(size_t)2 * i * L + l];
            x->ns = (n + 1) / 2;
        } else {                                            /* the write-back */
            for (unsigned s = 0; s < S; s++)
                for (unsigned l = 0; l < L; l++) {
                    uint32_t v;
                    switch (x->op) {
                    case TPU_OP_XLU_LSUM: case TPU_OP_XLU_LMAX: v = w[(size_t)s * L]; break;
                    case TPU_OP_XLU_SSUM: case TPU_OP_XLU_SMAX: v = w[l]; break;
                    case TPU_OP_XLU_ASUM: case TPU_OP_XLU_AMAX: v = w[0]; break;
                    default: v = w[(size_t)s * L + l]; break;
                    }
                    x->out[(size_t)s * L + l] = v;
                }
            x->wb = 1;
        }
        return x->q.count ? TPU_XLU_STALL_BUSY : -1;
    }
    if (!x->q.count)
        return -1;
    start(x, tpu_queue_head(&x->q));
    x->ops++;
    tpu_queue_pop(&x->q);
    return -1;
}

void tpu_xlu_commit(tpu_xlu *x, uint64_t t)
{
    (void)t;
    if (!x->wb)
        return;
    size_t n = (size_t)x->S * x->L;
    memcpy(x->vpu->regs + (size_t)x->rd * n, x->out, n * 4);
    if (tpu_ev_wanted(x->ev, TPU_EV_XLU_WRITE)) {
        tpu_event ev = { .kind = TPU_EV_XLU_WRITE, .unit = TPU_U_XLU, .pc = x->pc,
                         .word = x->word, .index = x->rd, .len = n * 4,
                         .data = (const uint8_t *)x->out };
        tpu_ev_emit(x->ev, &ev);
    }
    tpu_ev_simple(x->ev, TPU_EV_RETIRE, TPU_U_XLU, x->pc, x->word);
    x->wb = 0;
    x->running = 0;
}
