/*
 * kgen_emit.c - write a GEMM plan (kgen_gemm.c) as assembly.
 *
 * The program is loops, not unrolled code: its length depends on the
 * number of MXUs, not on M, N or K, so it fits the smallest IMEM for any
 * shape.  The loops keep their state in scalar registers (below); the
 * hand-overs between units are counting semaphores.  A counting
 * semaphore is enough where the increments arrive in the order they are
 * waited for: DMAs finish in the order they were issued (the HBM credit
 * goes to the oldest transfer first, T15), and each MXU finishes its own
 * instructions in order; where several MXUs signal, each has its own
 * semaphore, so one MXU running ahead cannot stand in for another.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>

#include "kgen.h"
#include "kgen_impl.h"

/* Registers.  s1..s4 are scratch between instructions; the rest hold the
 * loops' state for the whole run. */
#define T0 "s1"
#define T1 "s2"
#define T2 "s3"
#define T3 "s4"
#define XROW "s5"        /* bytes in a row of X: the streams' source stride */
#define SLOTROW "s6"     /* bytes in a row of a W slot: mxu.lw's stride */
#define YROW "s7"        /* bytes in a row of a Y set: the streams' result stride */
#define WROW "s8"        /* bytes in a row of W in HBM */
#define ROWS "s9"        /* rows of the M-tile: every stream's row count */
#define XQH "s10"        /* HBM address of the next X chunk to load */
#define XQV "s11"        /* its VMEM address */
#define XQN "s12"        /* X chunks still to load */
#define CW "s13"         /* the weight tile the next step loads, in the ring */
#define XK "s14"         /* X's current K-tile in VMEM */
#define YSET "s15"       /* the Y set this group writes */
#define KT "s16"         /* K-tile index in the group */
#define CB "s17"         /* K-tile index in its W block */
#define G "s18"          /* group index in the M-tile */
#define M0 "s19"         /* first row of the M-tile */
#define XBUF "s20"       /* the M-tile's X buffer */
#define YH "s21"         /* HBM address of this group's Y */
#define GI "s22"         /* groups started before this one */
#define PYH "s23"        /* HBM address of the previous group's Y */
#define FQ "s24"         /* W blocks fetched */
#define FSLOT "s25"      /* the slot the next fetch fills */
#define FW "s26"         /* HBM address of the next W block */
#define FKB "s27"        /* block index in its group, fetch side */
#define FG "s28"         /* group index, fetch side */
#define XQR "s29"        /* rows of X still to load */
#define LINK "s30"       /* return address of the fetch routine */

/* Semaphores */
enum { SEM_W = 0, SEM_X = 1, SEM_YWB = 2, SEM_RD = 4, SEM_YD = 8, SEM_NONE = 31 };

typedef kgen_emitter emitter;

/* Semaphore 3 (KGEN_SEM_B): bias patterns landed; the epilogue borrows s6
 * and s8 (SLOTROW, WROW: FETCH's) and gives them back. */
#define EP "s8"          /* the epilogue's store pointer (bf16 results) */
#define ES "s6"          /* its stride register for a bf16 write-back */

void kgen_line(emitter *e, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfprintf(e->f, fmt, ap);
    va_end(ap);
    fputc('\n', e->f);
}

/* One instruction: counted, so the caller can check it against IMEM. */
void kgen_ins(emitter *e, const char *fmt, ...)
{
    va_list ap;
    fputs("        ", e->f);
    va_start(ap, fmt);
    vfprintf(e->f, fmt, ap);
    va_end(ap);
    fputc('\n', e->f);
    e->insns++;
}

unsigned kgen_new_label(emitter *e) { return e->label++; }
void kgen_put_label(emitter *e, unsigned l) { kgen_line(e, "L%u:", l); }
#define line kgen_line
#define ins kgen_ins
#define new_label kgen_new_label
#define put_label kgen_put_label
#define li kgen_li
#define addi kgen_addi

static int fits_simm(int64_t v) { return v >= INT32_MIN && v <= INT32_MAX; }

/* rd = v for any v below 2^51: li takes only 32 signed bits. */
void kgen_li(emitter *e, const char *rd, uint64_t v)
{
    if (fits_simm((int64_t)v)) {
        ins(e, "li      %s, %" PRIu64, rd, v);
        return;
    }
    ins(e, "li      %s, %" PRIu64, rd, v >> 20);
    ins(e, "slli    %s, %s, 20", rd, rd);
    ins(e, "ori     %s, %s, %" PRIu64, rd, rd, v & 0xfffff);
}

/* rd = rs + v; a large v goes through tmp. */
void kgen_addi(emitter *e, const char *rd, const char *rs, int64_t v, const char *tmp)
{
    if (fits_simm(v)) {
        ins(e, "addi    %s, %s, %" PRId64, rd, rs, v);
    } else if (v > 0) {
        li(e, tmp, (uint64_t)v);
        ins(e, "add     %s, %s, %s", rd, rs, tmp);
    } else {
        li(e, tmp, (uint64_t)-v);
        ins(e, "sub     %s, %s, %s", rd, rs, tmp);
    }
}

static void mov(emitter *e, const char *rd, const char *rs)
{
    ins(e, "add     %s, %s, zero", rd, rs);
}

static const char *sfx(const kgen_plan *p) { return p->o.dtype == KGEN_INT8 ? ".i8" : ""; }

/* Bytes of W in HBM per column of a row (int8: a pair-row, 2 per column). */
static uint64_t wcol(const kgen_plan *p) { return p->o.dtype == KGEN_W8 ? 1 : 2; }
static uint64_t fbytes_full(const kgen_plan *p) { return p->tn * wcol(p); }
static uint64_t fbytes_last(const kgen_plan *p) { return p->last_tiles * p->n_mxu * wcol(p); }
static uint64_t slots_end(const kgen_plan *p) { return p->v_slots + (uint64_t)p->ring * p->slot_bytes; }

/* One step: every MXU loads its weight tile from CW and streams the
 * M-tile's rows of X's K-tile XK through it into the Y set.  lw_sem and
 * mm_sem are the base semaphores (+m) or SEM_NONE. */
static void step(emitter *e, int first, int lw_sem, int mm_sem)
{
    const kgen_plan *p = e->p;
    for (unsigned m = 0; m < p->mxus; m++) {
        const char *wa = CW, *ya = YSET;
        if (m) {
            addi(e, T0, CW, (int64_t)(m * 2 * p->n_mxu), T3);
            addi(e, T1, YSET, (int64_t)(m * 4 * p->n_mxu), T3);
            wa = T0;
            ya = T1;
        }
        ins(e, "mxu.lw%s %u, %s, %s, %d", sfx(p), m, wa, SLOTROW,
            lw_sem == SEM_NONE ? SEM_NONE : lw_sem + (int)m);
        ins(e, "%s%s %u, %s, %s, %s, %s, %s, %d", first ? "mxu.mm" : "mxu.mma", sfx(p), m,
            ya, XK, ROWS, XROW, YROW, mm_sem == SEM_NONE ? SEM_NONE : mm_sem + (int)m);
    }
    addi(e, CW, CW, (int64_t)(p->n_mxu * p->slot_row), T3);
    ins(e, "addi    %s, %s, %" PRIu64, XK, XK, 2 * p->n_mxu);
    if (p->o.xres) {
        /* X is the last layer's Y in VMEM, by its column groups of x_tn:
         * after a group's last K-tile the next group's block */
        uint64_t mpg = p->o.x_tn / p->n_mxu;
        int64_t jump = (int64_t)p->o.x_gstride - (int64_t)(mpg * 2 * p->n_mxu);
        if (mpg == 1) {
            addi(e, XK, XK, jump, T3);
        } else {
            unsigned l = new_label(e);
            ins(e, "addi    %s, %s, -1", XQR, XQR);
            ins(e, "bne     %s, zero, L%u", XQR, l);
            li(e, XQR, mpg);
            addi(e, XK, XK, jump, T3);
            put_label(e, l);
        }
    }
}

/* After the last tile of a block: wrap the ring pointer and fetch the
 * block ring-1 ahead. */
static void block_end(emitter *e)
{
    unsigned l = new_label(e);
    li(e, T0, slots_end(e->p));
    ins(e, "bne     %s, %s, L%u", CW, T0, l);
    li(e, CW, e->p->v_slots);
    put_label(e, l);
    ins(e, "jal     %s, %sFETCH", LINK, e->lp);
}

/* Write the previous group's Y set back to HBM once its streams are done.
 * `set` holds the set's VMEM address, `rows` and `bytes` its rows and the
 * bytes of a row. */
static void writeback(emitter *e, const char *set, const char *rows, const char *bytes)
{
    const kgen_plan *p = e->p;
    for (unsigned m = 0; m < p->mxus; m++)
        ins(e, "sem.wait %d, 1                 # MXU %u's last stream of the group is in VMEM",
            SEM_YD + (int)m, m);
    li(e, T3, p->np * 4);
    ins(e, "dma.v2h %s, %s, %s, %s, %s, %s, %d", PYH, set, rows, bytes, YROW, T3, SEM_YWB);
}

/* The plans that take the newer path: an epilogue, a convolution's
 * loader, or a Y layout other than the padded GEMM's.  A plain GEMM keeps
 * the code it always had. */
static int custom(const kgen_plan *p) { return p->epi || p->cv.on || p->y_pitch || p->y_cols_last; }
static uint64_t y_esz(const kgen_plan *p) { return (p->epi & KGEN_EPI_BF16) ? 2 : 4; }
static uint64_t y_pitch(const kgen_plan *p) { return p->y_pitch ? p->y_pitch : p->np * y_esz(p); }
static uint64_t y_last_cols(const kgen_plan *p)
{
    return p->y_cols_last ? p->y_cols_last : p->last_tiles * p->n_mxu;
}

/* The newer write-back of the previous group's Y set (`set`, `rows`
 * registers; G is the group after it: 0 or `groups` when it was an
 * M-tile's last): wait for its streams, run the epilogue on the VPU
 * (bias, relu, bf16) in place, then the DMA of its real columns.
 * Uses T2, T3 and borrows s6, s8 (given back). */
static void writeback_epi(emitter *e, const char *set, const char *rows)
{
    const kgen_plan *p = e->p;
    for (unsigned m = 0; m < p->mxus; m++)
        ins(e, "sem.wait %d, 1                 # MXU %u's last stream of the group is in VMEM",
            SEM_YD + (int)m, m);
    int bf = (p->epi & KGEN_EPI_BF16) != 0;
    if (p->epi) {
        uint64_t v4 = p->sl * 4;
        line(e, "        # the epilogue on the VPU:%s%s%s, in place, %" PRIu64 " vectors a batch",
             (p->epi & KGEN_EPI_BIAS) ? " + bias[column]" : "", (p->epi & KGEN_EPI_RELU) ? ", relu" : "",
             bf ? ", rounded to bf16" : "", p->epi_u);
        if (p->epi & KGEN_EPI_BIAS) {
            unsigned l = new_label(e);
            ins(e, "addi    %s, %s, -1", T3, G);
            ins(e, "bge     %s, zero, L%u", T3, l);
            li(e, T3, p->groups - 1);
            put_label(e, l);
            ins(e, "muli    %s, %s, %" PRIu64 "            # that group's bias pattern", T3, T3, p->pat_bytes);
            addi(e, T3, T3, (int64_t)p->v_b, T2);
            for (uint64_t i = 0; i < p->epi_p; i++)
                ins(e, "vld     v%" PRIu64 ", %s, %" PRIu64, 24 + i, T3, i * v4);
        }
        ins(e, "mul     %s, %s, %s", T3, rows, YROW);
        ins(e, "add     %s, %s, %s              # the end of the set's rows", T3, T3, set);
        mov(e, T2, set);
        if (bf)
            mov(e, EP, p->o.yres ? PYH : set);   /* yres: the next layer's X in VMEM */
        unsigned top = new_label(e);
        put_label(e, top);
        for (uint64_t i = 0; i < p->epi_u; i++)
            ins(e, "vld     v%" PRIu64 ", %s, %" PRIu64, i, T2, i * v4);
        if (p->epi & KGEN_EPI_BIAS)
            for (uint64_t i = 0; i < p->epi_u; i++)
                ins(e, "vadd    v%" PRIu64 ", v%" PRIu64 ", v%" PRIu64, i, i, 24 + i % p->epi_p);
        if (p->epi & KGEN_EPI_RELU)
            for (uint64_t i = 0; i < p->epi_u; i++)
                ins(e, "vrelu   v%" PRIu64 ", v%" PRIu64, i, i);
        for (uint64_t i = 0; i < p->epi_u; i++) {
            if (bf)
                ins(e, "vst.bf16 v%" PRIu64 ", %s, %" PRIu64, i, EP, i * p->sl * 2);
            else
                ins(e, "vst     v%" PRIu64 ", %s, %" PRIu64, i, T2, i * v4);
        }
        addi(e, T2, T2, (int64_t)(p->epi_u * v4), EP);
        if (bf)
            addi(e, EP, EP, (int64_t)(p->epi_u * p->sl * 2), ES);
        ins(e, "blt     %s, %s, L%u", T2, T3, top);
        ins(e, "sync    vpu                     # the set is final in VMEM");
    }
    if (p->o.yres) {
        li(e, SLOTROW, p->slot_row);
        li(e, WROW, p->w_row_hbm);
        return;              /* no write-back: the results stay in VMEM */
    }
    li(e, T2, p->tn * y_esz(p));
    if (y_last_cols(p) != p->tn) {
        unsigned last = new_label(e), not_last = new_label(e);
        ins(e, "beq     %s, zero, L%u", G, last);
        li(e, T3, p->groups);
        ins(e, "bne     %s, %s, L%u", G, T3, not_last);
        put_label(e, last);
        li(e, T2, y_last_cols(p) * y_esz(p));   /* the last group: its real columns */
        put_label(e, not_last);
    }
    const char *sstride = YROW;
    if (bf) {
        li(e, ES, p->tn * 2);
        sstride = ES;
    }
    li(e, T3, y_pitch(p));
    ins(e, "dma.v2h %s, %s, %s, %s, %s, %s, %d", PYH, set, rows, T2, sstride, T3, SEM_YWB);
    if (bf) {
        li(e, SLOTROW, p->slot_row);
        li(e, WROW, p->w_row_hbm);
    }
}

/* The previous group's write-back during this group (newer path): its set
 * is the other one, its rows this M-tile's unless it was the last group of
 * the M-tile before. */
static void prev_writeback_epi(emitter *e, uint64_t ytoggle)
{
    const kgen_plan *p = e->p;
    unsigned skip = new_label(e), l = new_label(e);
    line(e, "        # the previous group's results go back to HBM while this one computes");
    ins(e, "beq     %s, zero, L%u", p->xbufs == 1 ? G : GI, skip);
    if (fits_simm((int64_t)ytoggle)) {
        ins(e, "xori    %s, %s, %" PRIu64, T0, YSET, ytoggle);
    } else {
        li(e, T0, ytoggle);
        ins(e, "xor     %s, %s, %s", T0, YSET, T0);
    }
    mov(e, T1, ROWS);
    ins(e, "bne     %s, zero, L%u", G, l);
    li(e, T1, p->tm);                          /* the last group of the M-tile before */
    put_label(e, l);
    writeback_epi(e, T0, T1);
    put_label(e, skip);
}

/* ---- the im2col loader of a convolution (kgen_conv.c plans it) ----
 * XQH: the HBM address of the next output image row's input row for r = 0
 * (input row oh*stride - pad, column 0, this group's first channel; may
 * point before the input when that row is padding), XQV: where its im2col
 * rows go in VMEM, XQN: image rows of the M-tile still to load, XQR: its
 * oh.  XQH and XQR carry on from one M-tile to the next. */
static void cv_cursor(emitter *e, const char *buf, const char *row)
{
    const kgen_plan *p = e->p;
    unsigned l = new_label(e);
    mov(e, XQV, buf);
    li(e, T1, p->o.m);
    ins(e, "sub     %s, %s, %s", T1, T1, row);
    li(e, T0, p->tm);
    li(e, XQN, p->cv.tmq);
    ins(e, "bge     %s, %s, L%u", T1, T0, l);
    li(e, XQN, p->cv.tmq_last);
    put_label(e, l);
}

/* One output image row's im2col rows, if the M-tile has one left to load:
 * for each filter row r, the same DMAs (segments) from the input row, or
 * from the zero region with stride 0 when that input row is padding.
 * Uses T0..T3 and borrows WROW (s8) for the source stride. */
static void cv_chunk(emitter *e)
{
    const kgen_plan *p = e->p;
    const kgen_conv_lower *c = &p->cv;
    unsigned skip = new_label(e);
    ins(e, "beq     %s, zero, L%u", XQN, skip);
    li(e, WROW, c->stride * c->c * 2);
    for (uint64_t r = 0; r < c->r; r++) {
        unsigned zero = new_label(e), done = new_label(e);
        int64_t lo = (int64_t)c->pad - (int64_t)r, hi = (int64_t)c->h + (int64_t)c->pad - (int64_t)r;
        ins(e, "muli    %s, %s, %" PRIu64 "               # filter row %" PRIu64 ": input row oh*%" PRIu64 " + %" PRIu64 " - %" PRIu64,
            T3, XQR, c->stride, r, c->stride, r, c->pad);
        if (lo > 0) {
            li(e, T0, (uint64_t)lo);
            ins(e, "blt     %s, %s, L%u", T3, T0, zero);
        }
        if (hi <= (int64_t)((c->oh - 1) * c->stride)) {
            li(e, T0, (uint64_t)hi);
            ins(e, "bge     %s, %s, L%u", T3, T0, zero);
        }
        for (int pass = 0; pass < 2; pass++) {
            if (pass == 1) {
                if (lo <= 0 && hi > (int64_t)((c->oh - 1) * c->stride))
                    break;
                ins(e, "jmp     L%u", done);
                put_label(e, zero);
                line(e, "        # that input row is padding: zeros");
            }
            for (unsigned k = 0; k < c->nseg; k++) {
                const kgen_seg *sg = &c->seg[k];
                addi(e, T0, XQV, (int64_t)(sg->ow_start * p->x_row + r * c->s * c->cg * 2 + sg->col), T2);
                if (pass == 0)
                    addi(e, T1, XQH, (int64_t)(r * c->w * c->c * 2) + sg->src, T2);
                else
                    li(e, T1, c->h_zero);
                li(e, T2, sg->count);
                li(e, T3, sg->bytes);
                ins(e, "dma.h2v %s, %s, %s, %s, %s, %s, %d", T0, T1, T2, T3, pass ? "zero" : WROW,
                    XROW, SEM_X);
            }
        }
        put_label(e, done);
    }
    line(e, "        # the next output image row");
    addi(e, XQV, XQV, (int64_t)(c->ow * p->x_row), T0);
    addi(e, XQH, XQH, (int64_t)(c->stride * c->w * c->c * 2), T0);
    ins(e, "addi    %s, %s, 1", XQR, XQR);
    ins(e, "addi    %s, %s, -1", XQN, XQN);
    li(e, T0, c->oh);
    ins(e, "bne     %s, %s, L%u", XQR, T0, skip);
    li(e, XQR, 0);                              /* the next image */
    addi(e, XQH, XQH, ((int64_t)c->h - (int64_t)(c->oh * c->stride)) * (int64_t)(c->w * c->c * 2), T0);
    put_label(e, skip);
    li(e, WROW, p->w_row_hbm);
}

/* Point the X cursor at the M-tile starting at row `row` (a register):
 * min(tm, M - row) rows into the VMEM buffer `buf`, in xch chunks. */
static void x_cursor(emitter *e, const char *buf, const char *row)
{
    const kgen_plan *p = e->p;
    if (p->o.xres)
        return;                  /* X is in VMEM already */
    if (p->cv.on) {
        cv_cursor(e, buf, row);
        return;
    }
    unsigned l = new_label(e);
    li(e, T1, p->o.m);
    ins(e, "sub     %s, %s, %s", XQR, T1, row);
    li(e, T1, p->tm);
    ins(e, "blt     %s, %s, L%u", XQR, T1, l);
    mov(e, XQR, T1);
    put_label(e, l);
    ins(e, "mul     %s, %s, %s", XQH, row, XROW);
    addi(e, XQH, XQH, (int64_t)p->h_x, T1);
    mov(e, XQV, buf);
    li(e, XQN, p->xch);
}

/* Load the next chunk of X (min(xcr, rows left) rows, maybe none) if one
 * is left.  Uses T0 and T1. */
static void x_chunk(emitter *e)
{
    const kgen_plan *p = e->p;
    if (p->o.xres)
        return;
    if (p->cv.on) {
        cv_chunk(e);
        return;
    }
    unsigned skip = new_label(e), l = new_label(e);
    ins(e, "beq     %s, zero, L%u", XQN, skip);
    mov(e, T1, XQR);
    li(e, T0, p->xcr);
    ins(e, "blt     %s, %s, L%u", T1, T0, l);
    mov(e, T1, T0);
    put_label(e, l);
    ins(e, "dma.h2v %s, %s, %s, %s, %s, %s, %d", XQV, XQH, T1, XROW, XROW, XROW, SEM_X);
    ins(e, "sub     %s, %s, %s", XQR, XQR, T1);
    ins(e, "mul     %s, %s, %s", T0, T1, XROW);
    ins(e, "add     %s, %s, %s", XQH, XQH, T0);
    ins(e, "add     %s, %s, %s", XQV, XQV, T0);
    ins(e, "addi    %s, %s, -1", XQN, XQN);
    put_label(e, skip);
}

/* Load every chunk of X still to load. */
static void x_drain(emitter *e)
{
    if (e->p->o.xres)
        return;
    unsigned top = new_label(e), done = new_label(e);
    put_label(e, top);
    ins(e, "beq     %s, zero, L%u", XQN, done);
    x_chunk(e);
    ins(e, "jmp     L%u", top);
    put_label(e, done);
}

static void emit_fetch(emitter *e)
{
    const kgen_plan *p = e->p;
    line(e, "");
    line(e, "# ---- FETCH: the next W block (kb K-tiles x tn columns) into its ring slot.");
    line(e, "# Called ring-1 times before the first step, then once per block consumed,");
    line(e, "# so ring-1 blocks are in flight.  Before it refills a slot it waits until");
    line(e, "# every MXU has read the block that was there (mxu.lw's semaphore, T20a).");
    line(e, "%sFETCH:", e->lp);
    line(e, "        # first a chunk of the next M-tile's X, if one is due");
    x_chunk(e);
    li(e, T0, p->blocks);
    ins(e, "bge     %s, %s, %sFRET", FQ, T0, e->lp);
    unsigned l = new_label(e);
    li(e, T0, p->ring);
    ins(e, "blt     %s, %s, L%u", FQ, T0, l);
    for (unsigned m = 0; m < p->mxus; m++)
        ins(e, "sem.wait %d, 1                 # MXU %u has read this slot's last tile", SEM_RD + (int)m, m);
    put_label(e, l);
    li(e, T1, fbytes_full(p));
    if (p->last_tiles < p->mxus) {
        l = new_label(e);
        li(e, T0, p->groups - 1);
        ins(e, "bne     %s, %s, L%u", FG, T0, l);
        li(e, T1, fbytes_last(p));          /* the last group is narrower */
        put_label(e, l);
    }
    li(e, T0, p->kb * p->n_mxu);
    ins(e, "%s %s, %s, %s, %s, %s, %s, %d", p->o.dtype == KGEN_W8 ? "dma.h2v.i8" : "dma.h2v",
        FSLOT, FW, T0, T1, WROW, SLOTROW, SEM_W);
    ins(e, "addi    %s, %s, 1", FQ, FQ);
    addi(e, FSLOT, FSLOT, (int64_t)p->slot_bytes, T0);
    l = new_label(e);
    li(e, T0, slots_end(p));
    ins(e, "bne     %s, %s, L%u", FSLOT, T0, l);
    li(e, FSLOT, p->v_slots);
    put_label(e, l);
    addi(e, FW, FW, (int64_t)(p->kb * p->n_mxu * p->w_row_hbm), T0);
    ins(e, "addi    %s, %s, 1", FKB, FKB);
    li(e, T0, p->kblocks);
    ins(e, "bne     %s, %s, %sFRET", FKB, T0, e->lp);
    line(e, "        # the group's last block: the next group is tn columns to the right");
    li(e, FKB, 0);
    addi(e, FW, FW, (int64_t)(p->tn * wcol(p)) - (int64_t)(p->kblocks * p->kb * p->n_mxu * p->w_row_hbm), T0);
    ins(e, "addi    %s, %s, 1", FG, FG);
    li(e, T0, p->groups);
    ins(e, "bne     %s, %s, %sFRET", FG, T0, e->lp);
    line(e, "        # the M-tile's last group: the next M-tile starts again at W's first block");
    li(e, FG, 0);
    li(e, FW, p->h_w);
    line(e, "%sFRET:", e->lp);
    ins(e, "jr      %s", LINK);
}

/* ---- data ---- */

/* A tiny generator for the one row .random cannot make (int8 W with an
 * odd K: each pair holds a weight and a zero). */
static uint64_t mix(uint64_t z)
{
    z += 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

#define SEED_X 1ull
#define SEED_W 0x40000000ull
#define SEED_B 0x7000000ull

static void emit_data(emitter *e)
{
    const kgen_plan *p = e->p;
    uint64_t M = p->o.m, K = p->o.k, Nn = p->o.n;
    const char *xt = p->o.dtype == KGEN_INT8 ? "i8" : "bf16";
    uint64_t xel = p->o.dtype == KGEN_INT8 ? 1 : 2;

    line(e, "");
    line(e, "# ---- HBM: X, W and Y, zero-padded to the K-tile and the column tile --------");
    line(e, "        .hbm    %" PRIu64, p->h_x);
    if (p->kp == K) {
        line(e, "X:      .random %s, %" PRIu64 ", %llu        # %" PRIu64 " x %" PRIu64 ", row-major",
             xt, M * K, SEED_X, M, K);
    } else {
        line(e, "X:                                      # %" PRIu64 " rows of %" PRIu64 " values, then %" PRIu64 " zeros of padding",
             M, K, p->kp - K);
        for (uint64_t i = 0; i < M; i++) {
            line(e, "        .random %s, %" PRIu64 ", %" PRIu64, xt, K, SEED_X + i);
            line(e, "        .zero   %" PRIu64, (p->kp - K) * xel);
        }
    }
    line(e, "        .hbm    %" PRIu64, p->h_w);
    if (p->o.dtype == KGEN_INT8) {
        /* pair-row r holds W[2r][c], W[2r+1][c] side by side, c < np */
        uint64_t full = K / 2, rows = p->kp / 2;
        line(e, "W:                                      # K-pair-interleaved: pair-row r = W[2r][c], W[2r+1][c] for each c");
        for (uint64_t r = 0; r < full; r++) {
            line(e, "        .random i8, %" PRIu64 ", %" PRIu64, 2 * Nn, SEED_W + r);
            if (p->np > Nn)
                line(e, "        .zero   %" PRIu64, 2 * (p->np - Nn));
        }
        uint64_t done = full;
        if (K % 2) {             /* W[K-1][c] paired with a zero row */
            uint64_t z = SEED_W + full;
            line(e, "        # the last real row of W (K is odd) paired with a zero row");
            for (uint64_t c = 0; c < Nn; c += 32) {
                fputs("        .i8     ", e->f);
                for (uint64_t j = c; j < Nn && j < c + 32; j++) {
                    z = mix(z);
                    fprintf(e->f, "%s%d, 0", j == c ? "" : ", ", (int)(int8_t)(z >> 56));
                }
                fputc('\n', e->f);
            }
            if (p->np > Nn)
                line(e, "        .zero   %" PRIu64, 2 * (p->np - Nn));
            done++;
        }
        if (rows > done)
            line(e, "        .zero   %" PRIu64 "                  # pair-rows of padding", (rows - done) * p->w_row_hbm);
    } else {
        const char *wt = p->o.dtype == KGEN_W8 ? "i8" : "bf16";
        uint64_t wel = p->o.dtype == KGEN_W8 ? 1 : 2;
        if (p->np == Nn) {
            line(e, "W:      .random %s, %" PRIu64 ", %llu        # %" PRIu64 " x %" PRIu64 ", row-major",
                 wt, K * Nn, SEED_W, K, Nn);
        } else {
            line(e, "W:                                      # %" PRIu64 " rows of %" PRIu64 " values, then %" PRIu64 " zeros of padding",
                 K, Nn, p->np - Nn);
            for (uint64_t r = 0; r < K; r++) {
                line(e, "        .random %s, %" PRIu64 ", %" PRIu64, wt, Nn, SEED_W + r);
                line(e, "        .zero   %" PRIu64, (p->np - Nn) * wel);
            }
        }
        if (p->kp > K)
            line(e, "        .zero   %" PRIu64 "                  # rows of padding", (p->kp - K) * p->w_row_hbm);
    }
    if (p->epi & KGEN_EPI_BIAS) {
        line(e, "        .hbm    %" PRIu64, p->h_b);
        line(e, "BIAS:   .random f32, %" PRIu64 ", %llu       # one per column, then zeros to %" PRIu64,
             Nn, SEED_B, p->groups * p->tn);
        if (p->groups * p->tn > Nn)
            line(e, "        .zero   %" PRIu64, (p->groups * p->tn - Nn) * 4);
    }
    line(e, "        .hbm    %" PRIu64, p->h_y);
    line(e, "Y:      .zero   %" PRIu64 "                  # %" PRIu64 " x %" PRIu64 " %s",
         p->y_bytes, M, p->np, p->o.dtype == KGEN_INT8 ? "int32" : "fp32");
}

static void emit_header(emitter *e, const char *config_name, const tpu_config *cfg,
                        const kgen_cost *c)
{
    const kgen_plan *p = e->p;
    const kgen_gemm_opts *o = &p->o;
    line(e, "# tpu-as: --config %s", config_name);
    line(e, "#");
    line(e, "# Generated by tpu-gen gemm (sim/kernels/, docs/workloads.md); do not edit.");
    line(e, "#");
    line(e, "#   Y[M,N] = X[M,K] . W[K,N]   M = %" PRIu64 ", N = %" PRIu64 ", K = %" PRIu64 ", dtype %s%s",
         o->m, o->n, o->k, kgen_dtype_name(o->dtype), o->timing_only ? " (timing only: no data, no check)" : "");
    line(e, "#   machine %s: %" PRIu64 " MXU%s of %" PRIu64 "x%" PRIu64 ", VMEM %" PRIu64 " bytes, IMEM %" PRIu64 " words",
         cfg->name, cfg->num_mxu, cfg->num_mxu > 1 ? "s" : "", p->n_mxu, p->n_mxu,
         cfg->vmem_bytes, cfg->imem_words);
    line(e, "#");
    kgen_gemm_plan_comment(e, cfg, c);
    line(e, "");
    line(e, "        .assert MXU_N == %" PRIu64 " && NUM_MXU >= %" PRIu64 ", \"generated for %" PRIu64 "x%" PRIu64 " MXUs (%" PRIu64 " of them): assemble with --config %s\"",
         p->n_mxu, p->mxus, p->n_mxu, p->n_mxu, p->mxus, config_name);
    line(e, "        .assert VMEM_BYTES >= %" PRIu64 " && HBM_BYTES >= %" PRIu64 ", \"the plan needs %" PRIu64 " bytes of VMEM and %" PRIu64 " of HBM\"",
         p->vmem_need, p->hbm_need, p->vmem_need, p->hbm_need);
    if (o->timing_only) {
        line(e, "        .equ    X, hbm(%" PRIu64 ")", p->h_x);
        line(e, "        .equ    W, hbm(%" PRIu64 ")", p->h_w);
        line(e, "        .equ    Y, hbm(%" PRIu64 ")", p->h_y);
        if (p->epi & KGEN_EPI_BIAS)
            line(e, "        .equ    BIAS, hbm(%" PRIu64 ")", p->h_b);
    }
}

void kgen_gemm_plan_comment(emitter *e, const tpu_config *cfg, const kgen_cost *c)
{
    const kgen_plan *p = e->p;
    const kgen_gemm_opts *o = &p->o;
    (void)cfg;
    line(e, "# The plan");
    line(e, "#   padded shape    M %" PRIu64 " (rows are not padded), N %" PRIu64 " -> %" PRIu64 ", K %" PRIu64 " -> %" PRIu64,
         o->m, o->n, p->np, o->k, p->kp);
    line(e, "#   mapping         %.1f%% of the padded MACs are useful (M*N*K / M*Np*Kp)", 100.0 * p->efficiency);
    line(e, "#   K-tiles         %" PRIu64 " of %" PRIu64 " (K per mxu.lw)", p->kt, p->kq);
    line(e, "#   column groups   %" PRIu64 " of %" PRIu64 " columns (%" PRIu64 " MXU%s side by side); the last has %" PRIu64 " tile%s",
         p->groups, p->tn, p->mxus, p->mxus > 1 ? "s" : "", p->last_tiles, p->last_tiles > 1 ? "s" : "");
    line(e, "#   M-tiles         %" PRIu64 " of %" PRIu64 " rows (the last %" PRIu64 ")", p->mtiles, p->tm, p->tm_last);
    line(e, "#   resident        X's M-tile, all of K (%" PRIu64 " bytes), %s",
         p->x_tile, p->xbufs == 2 ? "two buffers: the next tile loads during this one" : "one buffer");
    line(e, "#   streamed        W in blocks of %" PRIu64 " K-tile%s x %" PRIu64 " columns (%" PRIu64 " bytes), ring of %u slots, %u in flight",
         p->kb, p->kb > 1 ? "s" : "", p->tn, p->slot_bytes, p->ring, p->ring - 1);
    line(e, "#   results         two Y sets of %" PRIu64 " bytes: a group's set goes back to HBM during the next group", p->y_set);
    line(e, "#   VMEM            %" PRIu64 " of %" PRIu64 " bytes: X at %" PRIu64 "%s, W ring at %" PRIu64 ", Y sets at %" PRIu64 " and %" PRIu64,
         p->vmem_need, cfg->vmem_bytes, p->v_x[0], p->xbufs == 2 ? " and a second tile after it" : "",
         p->v_slots, p->v_y[0], p->v_y[1]);
    line(e, "#   HBM             X at %" PRIu64 ", W at %" PRIu64 ", Y at %" PRIu64 "; %" PRIu64 " bytes",
         p->h_x, p->h_w, p->h_y, p->hbm_need);
    line(e, "#   predicted       %.0f cycles, %s-bound (math %.0f, memory %.0f, issue %.0f; fill %.0f, drain %.0f)",
         c->predicted, c->bound, c->t_math, c->t_memory, c->t_issue, c->fill, c->drain);
    line(e, "#");
    line(e, "# The loops");
    line(e, "#   for each M-tile:               X's tile [rows, Kp] is in VMEM");
    line(e, "#     for each column group:       MXU m computes column tile g*%" PRIu64 " + m", p->mxus);
    line(e, "#       for each K-tile:           every MXU: mxu.lw its tile, stream the rows");
    line(e, "#       (the previous group's Y goes back to HBM during this one)");
    line(e, "#");
    line(e, "# Registers: s1-s4 scratch; s5 X row, s6 W slot row, s7 Y set row, s8 W row in HBM");
    line(e, "# (bytes); s9 rows of the M-tile; s10-s12, s29 the X loader (HBM, VMEM, chunks");
    line(e, "# and rows left); s13 weight tile in the ring, s14 X's K-tile, s15 Y set, s16");
    line(e, "# K-tile, s17 tile in block, s18 group, s19 first row, s20 X buffer, s21 Y in");
    line(e, "# HBM, s22 groups started, s23 previous group's Y; s24-s28 the fetch cursor");
    line(e, "# (blocks fetched, slot, W address, block, group); s30 FETCH's return address.");
    line(e, "#");
    line(e, "# Semaphores: %d W block landed, %d X tile landed, %d Y set written back,", SEM_W, SEM_X, SEM_YWB);
    line(e, "# %d+m MXU m has read a block, %d+m MXU m finished a group, %d nobody waits.", SEM_RD, SEM_YD, SEM_NONE);
}

void kgen_gemm_code(emitter *e, int last)
{
    const kgen_plan *p = e->p;
    uint64_t ytoggle = p->v_y[0] ^ p->v_y[1];
    int nu = custom(p);

    if (p->epi & KGEN_EPI_BIAS) {
        unsigned l = new_label(e);
        line(e, "# the bias patterns: group g's tn biases repeated to %" PRIu64 " vector%s (s5 counts)",
             p->epi_p, p->epi_p > 1 ? "s" : "");
        li(e, T0, p->v_b);
        li(e, T1, p->h_b);
        li(e, T2, p->epi_p * p->sl / p->tn);
        li(e, T3, p->tn * 4);
        li(e, XROW, p->groups);
        put_label(e, l);
        ins(e, "dma.h2v %s, %s, %s, %s, zero, %s, %d", T0, T1, T2, T3, T3, KGEN_SEM_B);
        addi(e, T0, T0, (int64_t)p->pat_bytes, WROW);
        addi(e, T1, T1, (int64_t)(p->tn * 4), WROW);
        ins(e, "addi    %s, %s, -1", XROW, XROW);
        ins(e, "bne     %s, zero, L%u", XROW, l);
    }
    line(e, "# ---- constants and the loops' starting state");
    li(e, XROW, p->o.xres ? 2 * p->o.x_tn : p->x_row);
    li(e, SLOTROW, p->slot_row);
    li(e, YROW, p->y_row);
    li(e, WROW, p->w_row_hbm);
    li(e, FQ, 0);
    li(e, FSLOT, p->v_slots);
    li(e, FW, p->h_w);
    li(e, FKB, 0);
    li(e, FG, 0);
    li(e, CW, p->v_slots);
    li(e, M0, 0);
    li(e, XBUF, p->v_x[0]);
    li(e, GI, 0);
    li(e, YSET, p->v_y[1]);      /* every group toggles first: group 0 gets set 0 */
    if (p->cv.on) {
        line(e, "# the im2col loader starts at image 0, output row 0 (input row -pad)");
        li(e, XQH, p->cv.h_in - p->cv.pad * p->cv.w * p->cv.c * 2);
        li(e, XQR, 0);
    }
    line(e, "# X's first M-tile, then the first W blocks behind it");
    x_cursor(e, XBUF, M0);
    x_drain(e);
    for (unsigned i = 0; i + 1 < p->ring; i++)
        ins(e, "jal     %s, %sFETCH", LINK, e->lp);
    if (p->epi & KGEN_EPI_BIAS)
        ins(e, "sem.wait %d, %" PRIu64 "                 # the bias patterns are in VMEM", KGEN_SEM_B, p->groups);

    line(e, "");
    line(e, "# ---- for each M-tile of up to %" PRIu64 " rows", p->tm);
    line(e, "%sMTILE:", e->lp);
    {
        unsigned l = new_label(e);
        li(e, T0, p->o.m);
        ins(e, "sub     %s, %s, %s", ROWS, T0, M0);
        li(e, T0, p->tm);
        ins(e, "blt     %s, %s, L%u", ROWS, T0, l);
        mov(e, ROWS, T0);
        put_label(e, l);
    }
    if (p->xbufs == 1) {
        unsigned l = new_label(e);
        line(e, "        # one X buffer: the last M-tile's final group goes back first, then this X loads");
        ins(e, "beq     %s, zero, L%u", M0, l);
        if (nu) {
            li(e, T1, p->tm);
            writeback_epi(e, YSET, T1);
        } else {
            li(e, T0, p->tm);
            li(e, T1, fbytes_last(p) / wcol(p) * 4);
            writeback(e, YSET, T0, T1);
        }
        x_cursor(e, XBUF, M0);
        put_label(e, l);
    }
    x_drain(e);
    if (p->cv.on && p->cv.tmq_last != p->cv.tmq) {
        unsigned l = new_label(e), d = new_label(e);
        li(e, T0, p->tm);
        ins(e, "bne     %s, %s, L%u", ROWS, T0, l);
        ins(e, "sem.wait %d, %" PRIu64 "                 # this M-tile's im2col rows are in VMEM (all its DMAs)", SEM_X, p->cv.tmq * p->cv.dmas_row);
        ins(e, "jmp     L%u", d);
        put_label(e, l);
        ins(e, "sem.wait %d, %" PRIu64 "                 # the last M-tile's", SEM_X, p->cv.tmq_last * p->cv.dmas_row);
        put_label(e, d);
    } else if (p->cv.on) {
        ins(e, "sem.wait %d, %" PRIu64 "                 # this M-tile's im2col rows are in VMEM (all its DMAs)", SEM_X, p->cv.tmq * p->cv.dmas_row);
    } else if (p->o.xres) {
        line(e, "        # X is the last layer's Y, in VMEM: this M-tile's rows of its first group");
        li(e, T0, 2 * p->o.x_tn);
        ins(e, "mul     %s, %s, %s", T0, M0, T0);
        addi(e, XBUF, T0, (int64_t)p->o.x_vmem, T3);
    } else {
        ins(e, "sem.wait %d, %" PRIu64 "                 # this M-tile's X is in VMEM (all its chunks)", SEM_X, p->xch);
    }
    li(e, G, 0);
    if (p->o.yres) {
        line(e, "        # Y stays in VMEM for the next layer: group g's rows at %" PRIu64 " + g*%" PRIu64 ", %" PRIu64 " bytes a row",
             p->o.y_vmem, p->o.y_gstride, p->tn * 2);
        li(e, T0, p->tn * 2);
        ins(e, "mul     %s, %s, %s", T0, M0, T0);
        addi(e, YH, T0, (int64_t)p->o.y_vmem, T3);
    } else {
        li(e, T0, nu ? y_pitch(p) : p->np * 4);
        ins(e, "mul     %s, %s, %s", T0, M0, T0);
        addi(e, YH, T0, (int64_t)p->h_y, T3);
    }

    line(e, "");
    line(e, "# ---- for each group of %" PRIu64 " columns: MXU m takes column tile g*%" PRIu64 " + m", p->tn, p->mxus);
    line(e, "%sGROUP:", e->lp);
    if (fits_simm((int64_t)ytoggle)) {
        ins(e, "xori    %s, %s, %" PRIu64 "             # the other Y set", YSET, YSET, ytoggle);
    } else {
        li(e, T0, ytoggle);
        ins(e, "xor     %s, %s, %s", YSET, YSET, T0);
    }
    if (!p->o.yres) {
        unsigned l = new_label(e);
        li(e, T0, 2);
        ins(e, "blt     %s, %s, L%u", GI, T0, l);
        ins(e, "sem.wait %d, 1                 # that set's last write-back has left VMEM", SEM_YWB);
        put_label(e, l);
    }
    mov(e, XK, XBUF);
    if (p->o.xres && p->o.x_tn > p->n_mxu)
        li(e, XQR, p->o.x_tn / p->n_mxu);   /* K-tiles left in X's column group */

    /* the group's first K-tile: mxu.mm starts the sums */
    line(e, "        # K-tile 0: mxu.mm writes the first partial sums");
    ins(e, "sem.wait %d, 1                 # its W block has landed", SEM_W);
    if (p->kt == 1) {
        step(e, 1, SEM_RD, SEM_YD);
        block_end(e);
    } else {
        step(e, 1, p->kb == 1 ? SEM_RD : SEM_NONE, SEM_NONE);
        if (p->kb == 1)
            block_end(e);
    }

    if (nu) {
        if (p->epi_at == 0)
            prev_writeback_epi(e, ytoggle);
    } else /* the previous group's write-back, once this group's first streams are queued */
    {
        unsigned skip = new_label(e), l = new_label(e);
        line(e, "        # the previous group's results go back to HBM while this one computes");
        if (p->xbufs == 1)
            ins(e, "beq     %s, zero, L%u", G, skip);     /* done at the M-tile's start */
        else
            ins(e, "beq     %s, zero, L%u", GI, skip);
        if (fits_simm((int64_t)ytoggle)) {
            ins(e, "xori    %s, %s, %" PRIu64, T0, YSET, ytoggle);
        } else {
            li(e, T0, ytoggle);
            ins(e, "xor     %s, %s, %s", T0, YSET, T0);
        }
        mov(e, T1, ROWS);
        li(e, T2, p->tn * 4);
        ins(e, "bne     %s, zero, L%u", G, l);
        li(e, T1, p->tm);                          /* the last group of the M-tile before */
        li(e, T2, p->last_tiles * p->n_mxu * 4);
        put_label(e, l);
        writeback(e, T0, T1, T2);
        put_label(e, skip);
    }
    if (p->xbufs == 2) {
        unsigned l = new_label(e);
        line(e, "        # group 0: the M-tile before is done with its X buffer: the next tile's X");
        line(e, "        # loads into it, a chunk per W block fetched");
        ins(e, "bne     %s, zero, L%u", G, l);
        li(e, T0, p->tm);
        ins(e, "add     %s, %s, %s", T3, M0, T0);
        li(e, T0, p->o.m);
        ins(e, "bge     %s, %s, L%u", T3, T0, l);
        if (fits_simm((int64_t)(p->v_x[0] ^ p->v_x[1]))) {
            ins(e, "xori    %s, %s, %" PRIu64, T0, XBUF, p->v_x[0] ^ p->v_x[1]);
        } else {
            li(e, T0, p->v_x[0] ^ p->v_x[1]);
            ins(e, "xor     %s, %s, %s", T0, XBUF, T0);
        }
        x_cursor(e, T0, T3);
        put_label(e, l);
    }

    if (p->kt > 1) {
        line(e, "");
        line(e, "        # K-tiles 1 .. %" PRIu64 ": mxu.mma adds to the sums", p->kt - 2);
        li(e, KT, 1);
        li(e, CB, p->kb == 1 ? 0 : 1);
        line(e, "%sKLOOP:", e->lp);
        if (nu && p->epi_at > 0) {
            unsigned l = new_label(e);
            li(e, T0, p->epi_at);
            ins(e, "bne     %s, %s, L%u", KT, T0, l);
            prev_writeback_epi(e, ytoggle);
            put_label(e, l);
        }
        li(e, T0, p->kt - 1);
        ins(e, "bge     %s, %s, %sKDONE", KT, T0, e->lp);
        unsigned l = new_label(e);
        ins(e, "bne     %s, zero, L%u", CB, l);
        ins(e, "sem.wait %d, 1                 # the next W block has landed", SEM_W);
        put_label(e, l);
        li(e, T0, p->kb - 1);
        ins(e, "beq     %s, %s, %sKBLOCKEND", CB, T0, e->lp);
        step(e, 0, SEM_NONE, SEM_NONE);
        ins(e, "addi    %s, %s, 1", CB, CB);
        ins(e, "addi    %s, %s, 1", KT, KT);
        ins(e, "jmp     %sKLOOP", e->lp);
        line(e, "%sKBLOCKEND:                              # the block's last tile: its slot is free once read", e->lp);
        step(e, 0, SEM_RD, SEM_NONE);
        li(e, CB, 0);
        ins(e, "addi    %s, %s, 1", KT, KT);
        block_end(e);
        ins(e, "jmp     %sKLOOP", e->lp);
        line(e, "%sKDONE:", e->lp);
        line(e, "        # the last K-tile: its streams signal the group done");
        if (p->kb == 1)
            ins(e, "sem.wait %d, 1                 # its W block has landed", SEM_W);
        step(e, 0, SEM_RD, SEM_YD);
        block_end(e);
    }

    line(e, "        # next group");
    mov(e, PYH, YH);
    ins(e, "addi    %s, %s, 1", GI, GI);
    addi(e, YH, YH, p->o.yres ? (int64_t)p->o.y_gstride : (int64_t)(p->tn * (nu ? y_esz(p) : 4)), T0);
    ins(e, "addi    %s, %s, 1", G, G);
    li(e, T0, p->groups);
    ins(e, "blt     %s, %s, %sGROUP", G, T0, e->lp);

    line(e, "        # next M-tile");
    if (p->xbufs == 2) {
        if (fits_simm((int64_t)(p->v_x[0] ^ p->v_x[1]))) {
            ins(e, "xori    %s, %s, %" PRIu64, XBUF, XBUF, p->v_x[0] ^ p->v_x[1]);
        } else {
            li(e, T0, p->v_x[0] ^ p->v_x[1]);
            ins(e, "xor     %s, %s, %s", XBUF, XBUF, T0);
        }
    }
    addi(e, M0, M0, (int64_t)p->tm, T0);
    li(e, T0, p->o.m);
    ins(e, "blt     %s, %s, %sMTILE", M0, T0, e->lp);

    line(e, "");
    line(e, "# ---- the last group's results");
    if (nu) {
        writeback_epi(e, YSET, ROWS);
    } else {
        li(e, T1, p->last_tiles * p->n_mxu * 4);
        writeback(e, YSET, ROWS, T1);
    }
    if (last) {
        ins(e, "halt                            # waits for the write-back");
        emit_fetch(e);
        return;
    }
    {
        uint64_t total = p->mtiles * p->groups;
        uint64_t rd = p->blocks < p->ring ? p->blocks : p->ring;
        line(e, "        # the next layer starts from zero semaphores: take what is left");
        if (!p->o.yres)
            ins(e, "sem.wait %d, %" PRIu64 "                 # the last write-backs have landed", SEM_YWB, total < 2 ? total : 2);
        for (unsigned m = 0; m < p->mxus; m++)
            ins(e, "sem.wait %d, %" PRIu64 "                 # MXU %u's reads of the last blocks", SEM_RD + (int)m, rd, m);
        ins(e, "jmp     %sEND", e->lp);
        emit_fetch(e);
        line(e, "%sEND:", e->lp);
    }
}

long kgen_gemm_emit(FILE *f, const char *config_name, const tpu_config *cfg,
                    const kgen_plan *p, const kgen_cost *c)
{
    emitter E = { f, 0, 0, p, "" }, *e = &E;

    emit_header(e, config_name, cfg, c);

    line(e, "");
    line(e, "        .text");
    kgen_gemm_code(e, 1);

    if (!p->o.timing_only) {
        emit_data(e);
        line(e, "");
        line(e, "# ---- check: the padded product, bit for bit (docs/numerics.md)");
        if (p->epi)
            line(e, "        .expect matmul_epi Y, X, W, %s, %" PRIu64 ", %" PRIu64 ", %" PRIu64 ", %u",
                 (p->epi & KGEN_EPI_BIAS) ? "BIAS" : "Y", p->o.m, p->kp, p->np,
                 p->epi | (p->o.dtype == KGEN_W8 ? 32u : 0u));
        else
            line(e, "        .expect %s Y, X, W, %" PRIu64 ", %" PRIu64 ", %" PRIu64,
                 p->o.dtype == KGEN_INT8 ? "matmul_i8" : p->o.dtype == KGEN_W8 ? "matmul_w8" : "matmul",
                 p->o.m, p->kp, p->np);
    }
    fflush(f);
    return ferror(f) ? -1 : E.insns;
}
