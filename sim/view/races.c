/*
 * races.c - the race checker (see races.h; docs/tpu-sim.md, "Races").
 *
 * The units of a core run side by side: the sequencer hands an instruction
 * to its unit's queue and goes on, so two instructions that touch the same
 * VMEM bytes are ordered only by what the program waits for (sem.wait,
 * sync).  A program that forgets to wait still runs, deterministically, and
 * often still passes its test until a latency changes.  The checker looks
 * at what each access actually did, byte range by byte range, and reports
 * the accesses that went against the program's order:
 *
 *   (a) read before copy-in: an instruction reads bytes that a dma.h2v
 *       issued before it (or a dma.ici arriving from a neighbour) will
 *       write but has not written yet: it reads the old bytes;
 *   (b) overwrite before read: an instruction writes bytes that an
 *       instruction issued before it will read but has not read yet (that
 *       one then reads the new bytes): a DMA refilling a buffer an MXU
 *       still streams from, an MXU result over a dma.v2h's source, ...;
 *   (c) read before result: an instruction reads bytes that an MXU or VPU
 *       instruction issued before it will write but has not written yet
 *       (dma.v2h of Y before the mxu.mm that makes Y is done).
 *
 * Program order on a core is issue order: the sequencer issues one
 * instruction a cycle, so the issue cycle names an instruction's execution
 * (a loop issues the same pc many times).  Every DMA, ICI, MXU and VPU
 * instruction has up to two read and one write *footprints* (rows of
 * rowbytes at base + i * stride, from its operand values at issue: the
 * TPU_EV_ISSUE event carries them) and touches each footprint in order:
 * row by row, each row from low to high address (T16, T20, T22, T24; an
 * mxu.mma reads its old output rows in order too).  So how far it got is
 * one number per footprint, the bytes touched so far, counted from its
 * TPU_EV_VMEM_ACCESS events; a byte at a position beyond it is still to be
 * touched.  A read of bytes already written is not a race even while the
 * writer is still running; only the bytes still to come count.
 *
 * Timing (T12a): a read in cycle t sees the writes of cycles before t and
 * none of cycle t.  So the events of a cycle are kept until the cycle is
 * over, and then its reads are checked against the writes of the cycles
 * before it (a, c) and its writes against the reads of the cycles up to and
 * including it (b).
 *
 * Between cores there is no program order; a dma.ici's bytes land on the
 * neighbour in the order they are sent.  A read of bytes that an incoming
 * copy issued (on the sender) no later than the read has still to write is
 * (a); incoming bytes landing on bytes that an instruction in flight still
 * has to read are (b).  A program that waits for the copy's rsem before it
 * reads, and acknowledges the reads before the sender sends again, has
 * neither: its reads come after every byte landed, the next copy is issued
 * after the reads.
 *
 * The checker never changes the run: it only subscribes to events.  With
 * no race the cost is a scan of the core's instructions in flight per
 * access (a few per cycle per unit).
 */
#include "races.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "isa.h"

__extension__ typedef __int128 i128;

/* Rows of rowbytes at base + i * stride, touched in order; `done` bytes so
 * far of `total`. */
typedef struct fp {
    uint64_t base, rows, rowbytes;
    int64_t  stride;
    uint64_t done, total;
} fp;

/* An instruction in flight on one core: issued, some footprint not done.
 * An incoming copy sits on the receiving core's list (in_port >= 0). */
typedef struct insn {
    tpu_race_insn id;
    int in_port;            /* -1, or the port an incoming copy arrives on */
    unsigned nrd;
    fp rd[2];               /* mxu.mma: its LHS rows (2N bytes), its old output rows (4N) */
    int has_wr;
    fp wr;
} insn;

typedef struct insn_list {
    insn *e;
    size_t n, cap;
} insn_list;

/* A TPU_EV_VMEM_ACCESS of the cycle being gathered. */
typedef struct access {
    unsigned core;
    uint8_t  write;
    int      port;          /* incoming ICI: its port; else -1 */
    enum tpu_unit_id unit;
    uint64_t issued, addr, len;
} access;

struct tpu_races {
    tpu_system *sys;
    unsigned ncores;
    uint64_t mxu_n, vpu_elems;
    insn_list *core;

    access *acc;            /* the events of cycle `cycle`, not checked yet */
    size_t nacc, capacc;
    uint64_t cycle;
    uint64_t start;         /* the first cycle watched: instructions issued before are unknown */

    tpu_race *race;
    size_t nrace;
    uint64_t dropped, lost;
    int oom;

    tpu_race_fn sink;
    void *ctx;
    size_t told;            /* races handed to the sink so far */
};

/* ---- footprints -------------------------------------------------------- */

static fp make_fp(int64_t base, int64_t rows, int64_t rowbytes, int64_t stride)
{
    fp f = { 0 };
    if (rows <= 0 || rowbytes <= 0)
        return f;
    f.base = (uint64_t)base;
    f.rows = (uint64_t)rows;
    f.rowbytes = (uint64_t)rowbytes;
    f.stride = stride;
    f.total = f.rows * f.rowbytes;      /* checked at issue (T5): fits */
    return f;
}

static i128 floor_div(i128 a, i128 b)
{
    i128 q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

static i128 ceil_div(i128 a, i128 b)
{
    i128 q = a / b;
    return (a % b != 0 && ((a < 0) == (b < 0))) ? q + 1 : q;
}

/* The bytes of f still to be touched that lie in [a, a + n): 1 and their
 * hull in [*lo, *hi), or 0 when there are none.  Only the rows that can
 * meet the range are looked at. */
static int pending_overlap(const fp *f, uint64_t a, uint64_t n, uint64_t *lo, uint64_t *hi)
{
    if (f->done >= f->total || !n)
        return 0;
    uint64_t rb = f->rowbytes;
    i128 r0 = (i128)(f->done / rb), c0 = (i128)(f->done % rb);
    i128 A = (i128)a, E = (i128)a + (i128)n, B = (i128)f->base, S = f->stride;
    i128 i0, i1;
    if (S == 0) {                   /* every row on the same bytes */
        i0 = r0;
        i1 = r0 + 1;
    } else if (S > 0) {             /* rows i with A - rb < B + i S < E */
        i0 = floor_div(A - (i128)rb - B, S) + 1;
        i1 = ceil_div(E - B, S) - 1;
    } else {
        i0 = floor_div(E - B, S) + 1;
        i1 = ceil_div(A - (i128)rb - B, S) - 1;
    }
    if (i0 < r0)
        i0 = r0;
    if (i1 > (i128)f->rows - 1)
        i1 = (i128)f->rows - 1;
    int any = 0;
    i128 l = 0, h = 0;
    /* Rows closer than their length overlap each other; a range meets at
     * most (n + rb) / |S| + 1 of them, and no read is that long. */
    for (i128 i = i0; i <= i1; i++) {
        i128 rs = B + i * S + (i == r0 ? c0 : 0), re = B + i * S + (i128)rb;
        i128 s = rs > A ? rs : A, e = re < E ? re : E;
        if (s >= e)
            continue;
        if (!any || s < l)
            l = s;
        if (!any || e > h)
            h = e;
        any = 1;
    }
    if (any) {
        *lo = (uint64_t)l;
        *hi = (uint64_t)h;
    }
    return any;
}

/* An access of len bytes at addr moves f on; 0 when it is where f's next
 * byte is, -1 when it is not (the checker lost track: counted). */
static int advance(fp *f, uint64_t addr, uint64_t len)
{
    uint64_t row = f->done / f->rowbytes, col = f->done % f->rowbytes;
    uint64_t want = f->base + row * (uint64_t)f->stride + col;
    int ok = f->done < f->total && addr == want && len <= f->total - f->done;
    f->done = len <= f->total - f->done ? f->done + len : f->total;
    return ok ? 0 : -1;
}

static int insn_done(const insn *x)
{
    for (unsigned i = 0; i < x->nrd; i++)
        if (x->rd[i].done < x->rd[i].total)
            return 0;
    return !x->has_wr || x->wr.done >= x->wr.total;
}

/* ---- instructions in flight ------------------------------------------------ */

static insn *list_add(tpu_races *r, insn_list *l)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 16;
        insn *e = realloc(l->e, cap * sizeof *e);
        if (!e) {
            r->oom = 1;
            return NULL;
        }
        l->e = e;
        l->cap = cap;
    }
    insn *x = &l->e[l->n++];
    memset(x, 0, sizeof *x);
    x->in_port = -1;
    return x;
}

/* The footprints of an issued instruction, from its operand values. */
static void on_issue(tpu_races *r, const tpu_event *ev)
{
    tpu_insn in;
    if (!ev->ops || ev->core >= r->ncores || tpu_decode(ev->word, &in, NULL))
        return;
    const int64_t *v = ev->ops;
    int64_t n = (int64_t)r->mxu_n, el = (int64_t)r->vpu_elems;
    insn x;
    memset(&x, 0, sizeof x);
    x.in_port = -1;
    x.id = (tpu_race_insn){ .core = ev->core, .pc = ev->pc, .word = ev->word,
                            .issued = ev->issued };
    switch (in.desc->opcode) {
    case TPU_OP_DMA_H2V:     /* vdst, hsrc, rows, rowbytes, sstride, dstride, sem */
    case TPU_OP_DMA_H2V_I8:  /* each HBM byte lands as two (bf16) */
        x.id.unit = TPU_U_DMA;
        x.has_wr = 1;
        x.wr = make_fp(v[0], v[2], in.desc->opcode == TPU_OP_DMA_H2V ? v[3] : 2 * v[3], v[5]);
        break;
    case TPU_OP_DMA_V2H:     /* hdst, vsrc, rows, rowbytes, sstride, dstride, sem */
        x.id.unit = TPU_U_DMA;
        x.nrd = 1;
        x.rd[0] = make_fp(v[1], v[2], v[3], v[4]);
        break;
    case TPU_OP_DMA_ICI: {   /* port, rdst, vsrc, bytes, lsem, rsem */
        x.id.unit = TPU_U_ICI;
        x.nrd = 1;
        x.rd[0] = make_fp(v[2], 1, v[3], 0);
        tpu_link_view lv;
        if (v[3] > 0 && tpu_system_link_view(r->sys, ev->core, (unsigned)v[0] & 3, &lv) == 0
            && lv.to >= 0 && (unsigned)lv.to < r->ncores) {
            insn *y = list_add(r, &r->core[lv.to]);
            if (y) {
                y->id = x.id;
                y->id.incoming = 1;
                y->in_port = (int)lv.to_port;
                y->has_wr = 1;
                y->wr = make_fp(v[1], 1, v[3], 0);
            }
        }
        break;
    }
    case TPU_OP_MXU_LW:      /* mxu, addr, stride, sem: N rows of 2N bytes */
    case TPU_OP_MXU_LW_I8:
        x.id.unit = (enum tpu_unit_id)(TPU_U_MXU0 + (v[0] & 3));
        x.nrd = 1;
        x.rd[0] = make_fp(v[1], n, 2 * n, v[2]);
        break;
    case TPU_OP_MXU_MM:      /* mxu, dst, src, rows, sstride, dstride, sem */
    case TPU_OP_MXU_MM_I8:
    case TPU_OP_MXU_MMA:
    case TPU_OP_MXU_MMA_I8:
        x.id.unit = (enum tpu_unit_id)(TPU_U_MXU0 + (v[0] & 3));
        x.nrd = 1;
        x.rd[0] = make_fp(v[2], v[3], 2 * n, v[4]);
        if (in.desc->opcode == TPU_OP_MXU_MMA || in.desc->opcode == TPU_OP_MXU_MMA_I8)
            x.rd[x.nrd++] = make_fp(v[1], v[3], 4 * n, v[5]);
        x.has_wr = 1;
        x.wr = make_fp(v[1], v[3], 4 * n, v[5]);
        break;
    case TPU_OP_VLD:         /* vd, rs, imm */
    case TPU_OP_VLD_BF16:
        x.id.unit = TPU_U_VPU;
        x.nrd = 1;
        x.rd[0] = make_fp(v[1] + v[2], 1, in.desc->opcode == TPU_OP_VLD ? 4 * el : 2 * el, 0);
        break;
    case TPU_OP_VST:
    case TPU_OP_VST_BF16:
        x.id.unit = TPU_U_VPU;
        x.has_wr = 1;
        x.wr = make_fp(v[1] + v[2], 1, in.desc->opcode == TPU_OP_VST ? 4 * el : 2 * el, 0);
        break;
    default:
        return;
    }
    if (insn_done(&x))          /* touches nothing: no race possible */
        return;
    insn *y = list_add(r, &r->core[ev->core]);
    if (y)
        *y = x;
}

/* The local instruction issued in `issued` on core c. */
static insn *find_local(tpu_races *r, unsigned c, uint64_t issued)
{
    insn_list *l = &r->core[c];
    for (size_t i = 0; i < l->n; i++)
        if (l->e[i].in_port < 0 && l->e[i].id.issued == issued)
            return &l->e[i];
    return NULL;
}

/* The incoming copy whose bytes land on core c's port p now: the oldest
 * unfinished one (a port receives one copy after the other, in the order
 * the sender issued them). */
static insn *find_incoming(tpu_races *r, unsigned c, int p)
{
    insn_list *l = &r->core[c];
    for (size_t i = 0; i < l->n; i++)
        if (l->e[i].in_port == p && l->e[i].wr.done < l->e[i].wr.total)
            return &l->e[i];
    return NULL;
}

/* ---- races ------------------------------------------------------------------ */

static int same_insn(const tpu_race_insn *a, const tpu_race_insn *b)
{
    return a->core == b->core && a->issued == b->issued && a->incoming == b->incoming;
}

/* Note race `kind` on core c in the cycle being checked: one per pair of
 * instructions, its range and cycles growing. */
static void note(tpu_races *r, char kind, unsigned c, const insn *rd, const insn *wr,
                 uint64_t lo, uint64_t hi)
{
    for (size_t i = 0; i < r->nrace; i++) {
        tpu_race *x = &r->race[i];
        if (x->kind == kind && x->core == c && same_insn(&x->reader, &rd->id)
            && same_insn(&x->writer, &wr->id)) {
            if (lo < x->lo)
                x->lo = lo;
            if (hi > x->hi)
                x->hi = hi;
            if (x->last != r->cycle) {
                x->last = r->cycle;
                x->ncycles++;
            }
            if (x->cycle == r->cycle) {     /* the first cycle's range grows too */
                if (lo < x->first_lo)
                    x->first_lo = lo;
                if (hi > x->first_hi)
                    x->first_hi = hi;
            }
            return;
        }
    }
    if (r->nrace == TPU_RACES_MAX) {
        r->dropped++;
        return;
    }
    tpu_race *x = &r->race[r->nrace++];
    *x = (tpu_race){ .kind = kind, .core = c, .cycle = r->cycle, .last = r->cycle,
                     .ncycles = 1, .lo = lo, .hi = hi, .first_lo = lo, .first_hi = hi,
                     .reader = rd->id, .writer = wr->id };
}

/* Does writer w come before reader x in the order the program asked for?
 * On one core: issued first.  An incoming copy: issued on its core no later
 * than the read. */
static int write_first(const tpu_races *r, const insn *w, const insn *x)
{
    if (w->in_port >= 0)
        return w->id.issued <= r->cycle;
    return w->id.issued < x->id.issued;
}

/* A read of this cycle: (a) or (c) against the writes still to come of the
 * writers before it; then the reader moves on. */
static void check_read(tpu_races *r, const access *a)
{
    insn *x = find_local(r, a->core, a->issued);
    if (!x) {
        r->lost += a->issued >= r->start;
        return;
    }
    insn_list *l = &r->core[a->core];
    for (size_t i = 0; i < l->n; i++) {
        const insn *w = &l->e[i];
        uint64_t lo, hi;
        if (w == x || !w->has_wr || !write_first(r, w, x)
            || !pending_overlap(&w->wr, a->addr, a->len, &lo, &hi))
            continue;
        int copy = w->id.unit == TPU_U_DMA || w->id.unit == TPU_U_ICI;
        note(r, copy ? 'a' : 'c', a->core, x, w, lo, hi);
    }
    fp *f = &x->rd[0];
    if (x->nrd == 2 && a->len != x->rd[0].rowbytes)     /* mxu.mma's old rows */
        f = &x->rd[1];
    if (!x->nrd || advance(f, a->addr, a->len))
        r->lost++;
}

/* A write of this cycle: (b) against the reads still to come of the
 * readers before it (an incoming copy: of every reader in flight); then
 * the writer moves on. */
static void check_write(tpu_races *r, const access *a)
{
    insn *w = a->port >= 0 ? find_incoming(r, a->core, a->port)
                           : find_local(r, a->core, a->issued);
    if (!w || !w->has_wr) {
        r->lost += a->port >= 0 ? r->start == 0 : a->issued >= r->start;
        return;
    }
    insn_list *l = &r->core[a->core];
    for (size_t i = 0; i < l->n; i++) {
        const insn *x = &l->e[i];
        if (x == w || x->in_port >= 0 || (w->in_port < 0 && x->id.issued >= w->id.issued))
            continue;
        for (unsigned k = 0; k < x->nrd; k++) {
            uint64_t lo, hi;
            if (pending_overlap(&x->rd[k], a->addr, a->len, &lo, &hi))
                note(r, 'b', a->core, x, w, lo, hi);
        }
    }
    if (advance(&w->wr, a->addr, a->len))
        r->lost++;
}

void tpu_races_flush(tpu_races *r)
{
    for (size_t i = 0; i < r->nacc; i++)            /* reads see the cycles before */
        if (!r->acc[i].write)
            check_read(r, &r->acc[i]);
    for (size_t i = 0; i < r->nacc; i++)            /* writes land at the end */
        if (r->acc[i].write)
            check_write(r, &r->acc[i]);
    if (r->nacc) {
        for (unsigned c = 0; c < r->ncores; c++) {  /* forget what is done */
            insn_list *l = &r->core[c];
            size_t k = 0;
            for (size_t i = 0; i < l->n; i++)
                if (!insn_done(&l->e[i]))
                    l->e[k++] = l->e[i];
            l->n = k;
        }
    }
    r->nacc = 0;
    while (r->sink && r->told < r->nrace)
        r->sink(r->ctx, &r->race[r->told++]);
}

static void on_event(void *ctx, const tpu_event *ev)
{
    tpu_races *r = ctx;
    if (ev->cycle != r->cycle) {
        tpu_races_flush(r);
        r->cycle = ev->cycle;
    }
    if (ev->kind == TPU_EV_ISSUE) {
        on_issue(r, ev);
        return;
    }
    if (ev->kind != TPU_EV_VMEM_ACCESS || ev->core >= r->ncores || !ev->len)
        return;
    if (r->nacc == r->capacc) {
        size_t cap = r->capacc ? 2 * r->capacc : 64;
        access *a = realloc(r->acc, cap * sizeof *a);
        if (!a) {
            r->oom = 1;
            return;
        }
        r->acc = a;
        r->capacc = cap;
    }
    int incoming = ev->unit == TPU_U_ICI && ev->index == TPU_ACCESS_WRITE;
    r->acc[r->nacc++] = (access){ .core = ev->core, .write = ev->index == TPU_ACCESS_WRITE,
                                  .port = incoming ? (int)ev->value : -1, .unit = ev->unit,
                                  .issued = ev->issued, .addr = ev->addr, .len = ev->len };
}

/* ---- life cycle and output --------------------------------------------------- */

tpu_races *tpu_races_create(tpu_system *s, char *err, size_t errlen)
{
    tpu_races *r = calloc(1, sizeof *r);
    unsigned k = tpu_system_ncores(s);
    if (r) {
        r->core = calloc(k ? k : 1, sizeof *r->core);
        r->race = calloc(TPU_RACES_MAX, sizeof *r->race);
    }
    if (!r || !r->core || !r->race) {
        snprintf(err, errlen, "out of memory");
        tpu_races_destroy(r);
        return NULL;
    }
    const tpu_config *cfg = tpu_system_config(s);
    r->sys = s;
    r->ncores = k;
    r->mxu_n = cfg->mxu_n;
    r->vpu_elems = cfg->vpu_sublanes * cfg->vpu_lanes;
    r->cycle = r->start = tpu_system_cycle(s);
    if (tpu_system_subscribe(s, (1u << TPU_EV_ISSUE) | (1u << TPU_EV_VMEM_ACCESS), on_event, r)) {
        snprintf(err, errlen, "the model has no room for another event subscriber");
        tpu_races_destroy(r);
        return NULL;
    }
    return r;
}

void tpu_races_destroy(tpu_races *r)
{
    if (!r)
        return;
    for (unsigned c = 0; r->core && c < r->ncores; c++)
        free(r->core[c].e);
    free(r->core);
    free(r->acc);
    free(r->race);
    free(r);
}

void tpu_races_set_sink(tpu_races *r, tpu_race_fn fn, void *ctx)
{
    r->sink = fn;
    r->ctx = ctx;
}

size_t tpu_races_count(const tpu_races *r) { return r->nrace; }
const tpu_race *tpu_races_get(const tpu_races *r, size_t i) { return i < r->nrace ? &r->race[i] : NULL; }
uint64_t tpu_races_dropped(const tpu_races *r) { return r->dropped; }
uint64_t tpu_races_lost(const tpu_races *r) { return r->lost + (uint64_t)r->oom; }

static const char *kind_title(char kind)
{
    switch (kind) {
    case 'a': return "read before copy-in";
    case 'b': return "overwrite before read";
    default:  return "read before result";
    }
}

/* "mxu0 pc 12 (mxu.lw 0, s1, s10, 2)", "ici from core 1 pc 5 (dma.ici ...)" */
static void insn_text(const tpu_race_insn *x, unsigned ncores, char *buf, size_t len)
{
    tpu_insn in;
    char dis[160];
    if (tpu_decode(x->word, &in, NULL) == 0)
        tpu_format_insn(&in, dis, sizeof dis, NULL, NULL);
    else
        snprintf(dis, sizeof dis, ".insn 0x%016" PRIx64, x->word);
    char from[48] = "";
    if (x->incoming || ncores > 1)
        snprintf(from, sizeof from, "%score %u ", x->incoming ? "from " : "", x->core);
    snprintf(buf, len, "%s %spc %" PRIu64 " (%s)", tpu_unit_id_name(x->unit), from, x->pc, dis);
}

void tpu_race_text(const tpu_race *r, int whole, unsigned ncores, char *buf, size_t len)
{
    char rd[256], wr[256], core[32] = "", when[96] = "";
    insn_text(&r->reader, ncores, rd, sizeof rd);
    insn_text(&r->writer, ncores, wr, sizeof wr);
    if (ncores > 1)
        snprintf(core, sizeof core, "core %u: ", r->core);
    uint64_t lo = whole ? r->lo : r->first_lo, hi = whole ? r->hi : r->first_hi;
    if (whole && r->ncycles > 1)
        snprintf(when, sizeof when, " (in %" PRIu64 " cycles, the last %" PRIu64 ")",
                 r->ncycles, r->last);
    if (r->kind == 'b')
        snprintf(buf, len, "race (b) %s: %scycle %" PRIu64 ": vmem 0x%" PRIx64 "..0x%" PRIx64
                 ": %s wrote it before %s read it%s", kind_title(r->kind), core, r->cycle, lo,
                 hi - 1, wr, rd, when);
    else
        snprintf(buf, len, "race (%c) %s: %scycle %" PRIu64 ": vmem 0x%" PRIx64 "..0x%" PRIx64
                 ": %s read it before %s wrote it%s", r->kind, kind_title(r->kind), core,
                 r->cycle, lo, hi - 1, rd, wr, when);
}

static void json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            fprintf(f, "\\%c", *s);
        else if ((unsigned char)*s < 0x20)
            fprintf(f, "\\u%04x", (unsigned char)*s);
        else
            fputc(*s, f);
    }
    fputc('"', f);
}

static void json_insn(FILE *f, const char *key, const tpu_race_insn *x)
{
    tpu_insn in;
    char dis[160];
    if (tpu_decode(x->word, &in, NULL) == 0)
        tpu_format_insn(&in, dis, sizeof dis, NULL, NULL);
    else
        snprintf(dis, sizeof dis, ".insn 0x%016" PRIx64, x->word);
    fprintf(f, "\"%s\": {\"core\": %u, \"unit\": \"%s\", \"pc\": %" PRIu64 ", \"issued\": %" PRIu64
            ", \"incoming\": %s, \"insn\": ", key, x->core, tpu_unit_id_name(x->unit), x->pc,
            x->issued, x->incoming ? "true" : "false");
    json_str(f, dis);
    fputc('}', f);
}

void tpu_races_json_fields(const tpu_races *r, FILE *f)
{
    fprintf(f, "\"races\": %zu, \"races_dropped\": %" PRIu64 ", \"race_list\": [", r->nrace,
            r->dropped);
    for (size_t i = 0; i < r->nrace; i++) {
        const tpu_race *x = &r->race[i];
        char text[800];
        tpu_race_text(x, 1, r->ncores, text, sizeof text);
        fprintf(f, "%s{\"kind\": \"%c\", \"core\": %u, \"cycle\": %" PRIu64 ", \"last_cycle\": %"
                PRIu64 ", \"cycles\": %" PRIu64 ", \"vmem_lo\": %" PRIu64 ", \"vmem_hi\": %" PRIu64
                ", ", i ? ", " : "", x->kind, x->core, x->cycle, x->last, x->ncycles, x->lo,
                x->hi - 1);
        json_insn(f, "reader", &x->reader);
        fputs(", ", f);
        json_insn(f, "writer", &x->writer);
        fputs(", \"text\": ", f);
        json_str(f, text);
        fputc('}', f);
    }
    fputc(']', f);
}
