/*
 * stepper.c - the command interpreter of `tpu-sim --step` (see stepper.h;
 * docs/stepper.md is the user's page).
 *
 * The stepper steps the system one cycle at a time.  During a cycle the
 * model hands it events (issue, retire, semaphore, DMA done, MXU tile
 * start/end, memory writes when a watchpoint exists); the event handler
 * keeps track of what each unit has been given and not finished, and
 * collects the messages of the breakpoints that fire.  After the cycle the
 * pc and cycle breakpoints are tested, and the statistics of the selected
 * core are compared with the cycle before: that difference says which
 * units were busy, idle or stalled in the cycle, and why (`show units`).
 */
#include "stepper.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "expect.h"
#include "interrupt.h"
#include "isa.h"
#include "mxu_view.h"
#include "report.h"

#define MAX_ARGS   16
#define MAX_LINE   4096
#define HITS_MAX   4096       /* bytes of breakpoint messages in one cycle */
#define TRACE_MAX  16         /* cells traced at once */
#define ANY_MXU    UINT64_MAX

#define GREEN  "\033[32m"
#define RED    "\033[31m"
#define DIM    "\033[2m"
#define RESET  "\033[0m"

enum bp_kind { BP_PC, BP_CYCLE, BP_MXU_START, BP_MXU_END, BP_DMA_DONE, BP_SEM, BP_WATCH };

typedef struct breakpoint {
    unsigned id;
    enum bp_kind kind;
    uint64_t value;         /* pc, cycle, MXU (ANY_MXU), semaphore, watched address */
    uint64_t len;           /* watch: bytes */
    uint8_t space;          /* watch: TPU_SPACE_HBM or TPU_SPACE_VMEM */
    uint64_t hits;
} breakpoint;

/* An instruction handed to a unit and not yet finished (in its queue or
 * executing). */
typedef struct pending {
    uint64_t pc, word, issued;
} pending;

/* A cell traced with `trace cell`: one line per cycle.  The partial sum
 * that enters cell (k, c) for a row is the one cell (k-1, c) produced for
 * it a cycle earlier (T23), so the cell above is looked at before each
 * cycle. */
typedef struct cell_trace {
    unsigned core, mxu, row, col;
    tpu_cell_view above;    /* cell (row-1, col) in the cycle before */
} cell_trace;

typedef struct pending_list {
    pending *e;
    size_t n, cap;
} pending_list;

/* What the stepper knows about one core beyond the model's views. */
typedef struct core_track {
    pending_list unit[TPU_U_COUNT];
    uint64_t issue_cycle;   /* cycle of the last issue; UINT64_MAX: none yet */
    uint64_t issue_pc, issue_word;
    struct { int on; uint64_t pc, word, rows, start; } stream[TPU_MAX_MXUS];
} core_track;

struct tpu_stepper {
    tpu_stepper_opts o;
    tpu_system *sys;
    unsigned ncores, core;          /* the core the views show */
    core_track *track;
    const tpu_obj_symbol **code;    /* code labels by value, then name */
    size_t ncode;

    breakpoint *bp;
    size_t nbp, capbp;
    unsigned next_id;
    int mem_subscribed;

    char hits[HITS_MAX];            /* messages of the breakpoints of this cycle */
    size_t hits_len;
    int nhits;

    tpu_stats prev, cur;            /* the selected core before/after the last cycle */
    int stats_valid;                /* prev/cur describe the last cycle of this core */

    enum tpu_stop state;            /* TPU_RUNNING until halt, error or the cycle limit */
    int ended_reported;
    int status;                     /* exit status once the run ended */

    unsigned mxu;                   /* `show mxu` defaults */
    tpu_mxu_window win;
    int compact;                    /* `show mxu` draws the compact view (`view`) */

    cell_trace trace[TRACE_MAX];    /* `trace cell` */
    unsigned ntrace;
};

/* ---- small helpers -------------------------------------------------------- */

static void out(tpu_stepper *st, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void out(tpu_stepper *st, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfprintf(st->o.out, fmt, ap);
    va_end(ap);
}

/* A command error: one line, the stepper goes on. */
static int fail(tpu_stepper *st, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(tpu_stepper *st, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("error: ", st->o.out);
    vfprintf(st->o.out, fmt, ap);
    fputc('\n', st->o.out);
    va_end(ap);
    return 0;
}

static void hit(tpu_stepper *st, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void hit(tpu_stepper *st, const char *fmt, ...)
{
    st->nhits++;
    if (st->hits_len + 1 >= HITS_MAX)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(st->hits + st->hits_len, HITS_MAX - st->hits_len, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    st->hits_len += (size_t)n;
    if (st->hits_len >= HITS_MAX - 1) {
        st->hits_len = HITS_MAX - 1;
        st->hits[HITS_MAX - 2] = '\n';
    }
}

/* "s" for a count other than 1: "1 cycle", "2 cycles". */
static const char *plural(uint64_t n)
{
    return n == 1 ? "" : "s";
}

/* The cycle the model computed last, or UINT64_MAX before the first. */
static uint64_t current_cycle(const tpu_stepper *st)
{
    uint64_t c = tpu_system_cycle(st->sys);
    return c ? c - 1 : UINT64_MAX;
}

static const char *core_prefix(const tpu_stepper *st, unsigned core, char *buf, size_t len)
{
    if (st->ncores > 1)
        snprintf(buf, len, "core %u: ", core);
    else
        buf[0] = 0;
    return buf;
}

static int pending_push(pending_list *l, uint64_t pc, uint64_t word, uint64_t cycle)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 8;
        pending *e = realloc(l->e, cap * sizeof *e);
        if (!e)
            return -1;
        l->e = e;
        l->cap = cap;
    }
    l->e[l->n++] = (pending){ pc, word, cycle };
    return 0;
}

static void pending_retire(pending_list *l, uint64_t pc)
{
    for (size_t i = 0; i < l->n; i++)
        if (l->e[i].pc == pc) {
            memmove(l->e + i, l->e + i + 1, (l->n - i - 1) * sizeof *l->e);
            l->n--;
            return;
        }
}

/* ---- labels and instructions ------------------------------------------------ */

static int code_order(const void *a, const void *b)
{
    const tpu_obj_symbol *x = *(const tpu_obj_symbol *const *)a;
    const tpu_obj_symbol *y = *(const tpu_obj_symbol *const *)b;
    if (x->value != y->value)
        return x->value < y->value ? -1 : 1;
    return strcmp(x->name, y->name);
}

/* The last code label at or before pc, or NULL. */
static const tpu_obj_symbol *label_before(const tpu_stepper *st, uint64_t pc)
{
    const tpu_obj_symbol *best = NULL;
    for (size_t i = 0; i < st->ncode && st->code[i]->value <= pc; i++)
        if (!best || st->code[i]->value != best->value)
            best = st->code[i];
    return best;
}

static const char *label_at(void *ctx, uint64_t target)
{
    const tpu_stepper *st = ctx;
    for (size_t i = 0; i < st->ncode; i++)
        if (st->code[i]->value == target)
            return st->code[i]->name;
    return NULL;
}

/* "mxu.mm 0, s3, s4, s5, s2, s6, 1" for an instruction word. */
static void insn_text(const tpu_stepper *st, uint64_t word, char *buf, size_t len)
{
    tpu_insn in;
    const char *why = "";
    if (tpu_decode(word, &in, &why) == 0)
        tpu_format_insn(&in, buf, len, label_at, (void *)st);
    else
        snprintf(buf, len, ".insn 0x%016" PRIx64 " (illegal: %s)", word, why);
}

/* "pc 7 <stream>: mxu.mm 0, ..." (the label with an offset when pc is past it). */
static void pc_text(const tpu_stepper *st, uint64_t pc, char *buf, size_t len)
{
    char lab[300] = "", insn[200];
    const tpu_obj_symbol *s = label_before(st, pc);
    if (s && s->value == pc)
        snprintf(lab, sizeof lab, " <%s>", s->name);
    else if (s)
        snprintf(lab, sizeof lab, " <%s+%" PRIu64 ">", s->name, pc - s->value);
    if (pc < st->o.obj->ntext)
        insn_text(st, st->o.obj->text[pc], insn, sizeof insn);
    else
        snprintf(insn, sizeof insn, "(past the end of the program)");
    snprintf(buf, len, "pc %" PRIu64 "%s: %s", pc, lab, insn);
}

/* The unit an issued instruction was handed to, or TPU_U_SEQ. */
static enum tpu_unit_id dispatch_unit(uint64_t word)
{
    tpu_insn in;
    if (tpu_decode(word, &in, NULL))
        return TPU_U_SEQ;
    switch (in.desc->unit) {
    case TPU_UNIT_DMA: return TPU_U_DMA;
    case TPU_UNIT_VPU: return TPU_U_VPU;
    case TPU_UNIT_ICI: return TPU_U_ICI;
    case TPU_UNIT_MXU:
        return in.val[0] >= 0 && in.val[0] < TPU_MAX_MXUS
                   ? (enum tpu_unit_id)(TPU_U_MXU0 + in.val[0]) : TPU_U_SEQ;
    default: return TPU_U_SEQ;
    }
}

/* ---- events ---------------------------------------------------------------------- */

static int is_mxu(enum tpu_unit_id u)
{
    return u >= TPU_U_MXU0 && u <= TPU_U_MXU3;
}

static void on_event(void *ctx, const tpu_event *ev)
{
    tpu_stepper *st = ctx;
    if (ev->core >= st->ncores)
        return;
    core_track *t = &st->track[ev->core];
    char cp[32], text[300];
    core_prefix(st, ev->core, cp, sizeof cp);

    switch (ev->kind) {
    case TPU_EV_ISSUE: {
        t->issue_cycle = ev->cycle;
        t->issue_pc = ev->pc;
        t->issue_word = ev->word;
        enum tpu_unit_id u = dispatch_unit(ev->word);
        if (u != TPU_U_SEQ)
            pending_push(&t->unit[u], ev->pc, ev->word, ev->cycle);   /* on OOM: not shown */
        return;
    }
    case TPU_EV_RETIRE:
        if (ev->unit != TPU_U_SEQ && (unsigned)ev->unit < TPU_U_COUNT)
            pending_retire(&t->unit[ev->unit], ev->pc);
        if (is_mxu(ev->unit)) {
            unsigned m = ev->unit - TPU_U_MXU0;
            if (t->stream[m].on && t->stream[m].pc == ev->pc)
                t->stream[m].on = 0;
        }
        return;
    case TPU_EV_MXU_TILE_START:
    case TPU_EV_MXU_TILE_END: {
        if (!is_mxu(ev->unit))
            return;
        unsigned m = ev->unit - TPU_U_MXU0;
        int start = ev->kind == TPU_EV_MXU_TILE_START;
        if (start) {
            t->stream[m].on = 1;
            t->stream[m].pc = ev->pc;
            t->stream[m].word = ev->word;
            t->stream[m].rows = ev->len;
            t->stream[m].start = ev->cycle;
        }
        insn_text(st, ev->word, text, sizeof text);
        for (size_t i = 0; i < st->nbp; i++) {
            breakpoint *b = &st->bp[i];
            if (b->kind != (start ? BP_MXU_START : BP_MXU_END) ||
                (b->value != ANY_MXU && b->value != m))
                continue;
            b->hits++;
            if (start)
                hit(st, "breakpoint %u: %smxu%u starts pc %" PRIu64 " (%s): %" PRIu64 " row%s\n",
                    b->id, cp, m, ev->pc, text, ev->len, plural(ev->len));
            else
                hit(st, "breakpoint %u: %smxu%u writes the last row of pc %" PRIu64 " (%s)\n",
                    b->id, cp, m, ev->pc, text);
        }
        return;
    }
    case TPU_EV_DMA_DONE:
        insn_text(st, ev->word, text, sizeof text);
        for (size_t i = 0; i < st->nbp; i++) {
            breakpoint *b = &st->bp[i];
            if (b->kind != BP_DMA_DONE)
                continue;
            b->hits++;
            hit(st, "breakpoint %u: %sDMA engine %u finished pc %" PRIu64 " (%s): %" PRIu64
                " byte%s to %s\n", b->id, cp, ev->index, ev->pc, text, ev->len, plural(ev->len),
                ev->space == TPU_SPACE_VMEM ? "vmem" : "hbm");
        }
        return;
    case TPU_EV_SEM:
        for (size_t i = 0; i < st->nbp; i++) {
            breakpoint *b = &st->bp[i];
            if (b->kind != BP_SEM || b->value != ev->index)
                continue;
            b->hits++;
            hit(st, "breakpoint %u: %ssem %u = %u\n", b->id, cp, ev->index, ev->value);
        }
        return;
    case TPU_EV_MEM_WRITE:
        for (size_t i = 0; i < st->nbp; i++) {
            breakpoint *b = &st->bp[i];
            if (b->kind != BP_WATCH || b->space != ev->space || !ev->len)
                continue;
            uint64_t lo = ev->addr > b->value ? ev->addr : b->value;
            uint64_t e1 = ev->addr + ev->len, e2 = b->value + b->len;
            uint64_t hi = e1 < e2 ? e1 : e2;
            if (lo >= hi)
                continue;
            b->hits++;
            hit(st, "watchpoint %u: %s%s 0x%" PRIx64 "..0x%" PRIx64 " written by %s\n", b->id,
                cp, ev->space == TPU_SPACE_VMEM ? "vmem" : "hbm", lo, hi - 1,
                tpu_unit_id_name(ev->unit));
        }
        return;
    default:
        return;
    }
}

/* ---- life cycle ---------------------------------------------------------------- */

tpu_stepper *tpu_stepper_create(const tpu_stepper_opts *o, char *err, size_t errlen)
{
    tpu_stepper *st = calloc(1, sizeof *st);
    if (!st) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    st->o = *o;
    st->sys = o->sys;
    st->ncores = tpu_system_ncores(o->sys);
    st->track = calloc(st->ncores ? st->ncores : 1, sizeof *st->track);
    st->code = calloc(o->obj->nsyms + 1, sizeof *st->code);
    if (!st->track || !st->code) {
        snprintf(err, errlen, "out of memory");
        tpu_stepper_destroy(st);
        return NULL;
    }
    for (unsigned i = 0; i < st->ncores; i++)
        st->track[i].issue_cycle = UINT64_MAX;
    for (size_t i = 0; i < o->obj->nsyms; i++)
        if (o->obj->syms[i].space == TPU_SPACE_IMEM)
            st->code[st->ncode++] = &o->obj->syms[i];
    qsort(st->code, st->ncode, sizeof *st->code, code_order);
    uint32_t mask = (1u << TPU_EV_ISSUE) | (1u << TPU_EV_RETIRE) | (1u << TPU_EV_SEM) |
                    (1u << TPU_EV_DMA_DONE) | (1u << TPU_EV_MXU_TILE_START) |
                    (1u << TPU_EV_MXU_TILE_END);
    if (tpu_system_subscribe(o->sys, mask, on_event, st)) {
        snprintf(err, errlen, "the model has no room for another event subscriber");
        tpu_stepper_destroy(st);
        return NULL;
    }
    st->next_id = 1;
    st->state = TPU_RUNNING;
    st->win = (tpu_mxu_window){ 0, 0, TPU_MXU_WINDOW_ROWS, TPU_MXU_WINDOW_COLS };
    tpu_mxu_window_fit(&st->win, (unsigned)o->cfg->mxu_n);
    /* the compact view when the whole array does not fit the window */
    st->compact = o->cfg->mxu_n > TPU_MXU_WINDOW_ROWS || o->cfg->mxu_n > TPU_MXU_WINDOW_COLS;
    return st;
}

void tpu_stepper_destroy(tpu_stepper *st)
{
    if (!st)
        return;
    if (st->track)
        for (unsigned i = 0; i < st->ncores; i++)
            for (unsigned u = 0; u < TPU_U_COUNT; u++)
                free(st->track[i].unit[u].e);
    free(st->track);
    free(st->code);
    free(st->bp);
    free(st);
}

/* ---- running ---------------------------------------------------------------------- */

static int read_core_mem(void *ctx, unsigned core, enum tpu_space space, uint64_t addr,
                         void *dst, size_t n)
{
    tpu_system *s = ctx;
    if (core >= tpu_system_ncores(s))
        return -1;
    return tpu_mem_read(tpu_system_core(s, core), space, addr, dst, n);
}

/* Build the tpu-sim report of the cycles so far (stats: ncores entries). */
static void fill_report(tpu_stepper *st, tpu_report *rep, tpu_stats *stats, char *error,
                        size_t errlen)
{
    for (unsigned i = 0; i < st->ncores; i++)
        tpu_core_stats(tpu_system_core(st->sys, i), &stats[i]);
    error[0] = 0;
    if (st->state == TPU_STOP_ERROR || st->state == TPU_STOP_CYCLE_LIMIT)
        snprintf(error, errlen, "%s", tpu_system_error(st->sys));
    memset(rep, 0, sizeof *rep);
    rep->program = st->o.program;
    rep->cfg = st->o.cfg;
    rep->topology = st->o.topology ? st->o.topology : "single";
    rep->ncores = st->ncores;
    rep->core = stats;
    rep->cycles = tpu_system_cycle(st->sys);
    rep->stop = st->state;
    rep->error = error;
    rep->unit_name = tpu_unit_id_name;
    rep->reason_name = tpu_stall_reason_name;
    if (st->state == TPU_STOP_HALT) {
        const tpu_config *cfg = st->o.cfg;
        tpu_expect_target t = { .ncores = st->ncores, .tile = (unsigned)cfg->mxu_n,
                                .hbm_bytes = cfg->hbm_bytes, .vmem_bytes = cfg->vmem_bytes,
                                .read = read_core_mem, .ctx = st->sys };
        tpu_expect_check(st->o.obj, &t, &rep->expect);
        rep->checked = 1;
    }
}

/* Once the run has ended: say how, check the results, set the status. */
static void report_end(tpu_stepper *st)
{
    if (st->state == TPU_RUNNING || st->ended_reported)
        return;
    st->ended_reported = 1;
    if (st->state != TPU_STOP_HALT) {
        out(st, "the run stopped: %s\n", tpu_system_error(st->sys));
        st->status = 3;
        return;
    }
    tpu_stats *stats = calloc(st->ncores, sizeof *stats);
    if (!stats) {
        uint64_t cycles = tpu_system_cycle(st->sys);
        out(st, "the program halted after %" PRIu64 " cycle%s (out of memory to check it)\n",
            cycles, plural(cycles));
        st->status = 1;
        return;
    }
    tpu_report rep;
    char error[16], line[600];
    fill_report(st, &rep, stats, error, sizeof error);
    tpu_report_result_line(&rep, line, sizeof line);
    uint64_t cycles = tpu_system_cycle(st->sys);
    out(st, "the program halted after %" PRIu64 " cycle%s; result: %s\n", cycles,
        plural(cycles), line);
    st->status = rep.expect.status == TPU_EXPECT_MISMATCH || rep.expect.status == TPU_EXPECT_ERROR;
    free(stats);
}

/* "mxu0 cell (2, 1)", with the core when there are several. */
static void cell_name(const tpu_stepper *st, const cell_trace *tr, char *buf, size_t len)
{
    char cp[32];
    snprintf(buf, len, "%smxu%u cell (%u, %u)", core_prefix(st, tr->core, cp, sizeof cp),
             tr->mxu, tr->row, tr->col);
}

/* The line of a traced cell for the cycle just computed: its weights, and
 * what it multiplied: "x 2  y 20 -> 60" is y in + x * w = y out. */
static void print_trace(tpu_stepper *st, const cell_trace *tr)
{
    tpu_cell_view v;
    char name[64], w[32], sh[32], a[32], yi[32], yo[32];
    if (tpu_core_mxu_cell(tpu_system_core(st->sys, tr->core), tr->mxu, tr->row, tr->col, &v))
        return;
    cell_name(st, tr, name, sizeof name);
    tpu_fmt_bf16(v.weight, w, sizeof w);
    tpu_fmt_bf16(v.shadow, sh, sizeof sh);
    out(st, "%s in cycle %" PRIu64 ": w %s  s %s", name, current_cycle(st), w, sh);
    if (v.loading) {
        tpu_fmt_bf16(v.chain, a, sizeof a);
        out(st, "  l %s", a);
    }
    if (!v.active) {
        out(st, "  (no multiply-add)\n");
        return;
    }
    /* Row 0 starts from +0 (numerics.md); below, what the cell above made
     * for the same row in the cycle before. */
    if (tr->row == 0)
        snprintf(yi, sizeof yi, "0");
    else if (tr->above.active && tr->above.row == v.row)
        tpu_fmt_f32(tr->above.psum, yi, sizeof yi);
    else
        snprintf(yi, sizeof yi, "?");
    tpu_fmt_bf16(v.x, a, sizeof a);
    tpu_fmt_f32(v.psum, yo, sizeof yo);
    out(st, "  x %s  y %s -> %s  (LHS row %" PRId64 ")\n", a, yi, yo, v.row);
}

/* One cycle of the system, breakpoints included.  Returns 1 if it ran. */
static int one_cycle(tpu_stepper *st)
{
    if (st->state != TPU_RUNNING)
        return 0;
    tpu_system *s = st->sys;
    if (st->o.max_cycles && tpu_system_cycle(s) >= st->o.max_cycles) {
        st->state = tpu_system_run(s, st->o.max_cycles);   /* formats the limit's error */
        return 0;
    }
    tpu_core *c = tpu_system_core(s, st->core);
    if (!st->stats_valid)
        tpu_core_stats(c, &st->cur);
    st->prev = st->cur;
    for (unsigned i = 0; i < st->ntrace; i++) {      /* the partial sums going down */
        cell_trace *tr = &st->trace[i];
        memset(&tr->above, 0, sizeof tr->above);
        if (tr->row > 0)
            tpu_core_mxu_cell(tpu_system_core(s, tr->core), tr->mxu, tr->row - 1, tr->col,
                              &tr->above);
    }
    enum tpu_stop r = tpu_system_step(s);
    if (r != TPU_RUNNING && r != TPU_STOP_BREAK)
        st->state = r;
    tpu_core_stats(c, &st->cur);
    st->stats_valid = 1;
    for (unsigned i = 0; i < st->ntrace; i++)
        print_trace(st, &st->trace[i]);

    uint64_t now = tpu_system_cycle(s) - 1;
    for (size_t i = 0; i < st->nbp; i++) {
        breakpoint *b = &st->bp[i];
        if (b->kind == BP_CYCLE && b->value == now) {
            b->hits++;
            hit(st, "breakpoint %u: cycle %" PRIu64 "\n", b->id, now);
        } else if (b->kind == BP_PC) {
            for (unsigned k = 0; k < st->ncores; k++) {
                if (st->track[k].issue_cycle != now)
                    continue;
                tpu_seq_view v;
                tpu_core_seq_view(tpu_system_core(s, k), &v);
                if (v.pc != b->value || v.halted)
                    continue;
                char cp[32], where[300];
                pc_text(st, v.pc, where, sizeof where);
                b->hits++;
                hit(st, "breakpoint %u: %sreached %s\n", b->id, core_prefix(st, k, cp, sizeof cp),
                    where);
            }
        }
    }
    return 1;
}

int tpu_stepper_cycle(tpu_stepper *st)
{
    st->hits_len = 0;
    st->nhits = 0;
    one_cycle(st);
    return st->state == TPU_RUNNING;
}

/* ---- printing the state -------------------------------------------------------------- */

void tpu_stepper_print_status(tpu_stepper *st)
{
    char cp[32], where[300];
    core_prefix(st, st->core, cp, sizeof cp);
    tpu_seq_view v;
    tpu_core_seq_view(tpu_system_core(st->sys, st->core), &v);
    uint64_t now = current_cycle(st);
    if (now == UINT64_MAX) {
        pc_text(st, v.pc, where, sizeof where);
        out(st, "%sreset, no cycle has run yet: next %s\n", cp, where);
        return;
    }
    const core_track *t = &st->track[st->core];
    if (t->issue_cycle == now) {
        pc_text(st, t->issue_pc, where, sizeof where);
        out(st, "%scycle %" PRIu64 ": issued %s\n", cp, now, where);
    } else if (v.halted) {
        out(st, "%scycle %" PRIu64 ": halted\n", cp, now);
    } else if (v.stall) {
        pc_text(st, v.pc, where, sizeof where);
        out(st, "%scycle %" PRIu64 ": stalled at %s (%s)\n", cp, now, where, v.stall);
    } else {
        pc_text(st, v.pc, where, sizeof where);
        out(st, "%scycle %" PRIu64 ": at %s\n", cp, now, where);
    }
}

/* "pc 7 mxu.mm 0, s3, ..." for a pending instruction. */
static void pending_text(const tpu_stepper *st, const pending *p, char *buf, size_t len)
{
    char insn[200];
    insn_text(st, p->word, insn, sizeof insn);
    snprintf(buf, len, "pc %" PRIu64 " %s", p->pc, insn);
}

/* The stall reason of unit u in the last cycle, or NULL if it did not stall. */
static const char *stall_reason(const tpu_stepper *st, enum tpu_unit_id u)
{
    const tpu_unit_stats *a = &st->prev.unit[u], *b = &st->cur.unit[u];
    if (b->stall_cycles == a->stall_cycles)
        return NULL;
    for (unsigned i = 0; i < 8; i++)
        if (b->stall_by_reason[i] != a->stall_by_reason[i]) {
            const char *n = tpu_stall_reason_name(u, i);
            return n ? n : "?";
        }
    return "?";
}

void tpu_stepper_print_units(tpu_stepper *st)
{
    const tpu_config *cfg = st->o.cfg;
    const core_track *t = &st->track[st->core];
    uint64_t now = current_cycle(st);
    int fresh = st->stats_valid && now != UINT64_MAX;
    char cp[32];
    core_prefix(st, st->core, cp, sizeof cp);
    if (now == UINT64_MAX)
        out(st, "%sunits at reset (no cycle has run yet):\n", cp);
    else if (fresh)
        out(st, "%sunits in cycle %" PRIu64 ":\n", cp, now);
    else    /* just switched cores: its stats are known from the next cycle */
        out(st, "%sunits in cycle %" PRIu64 " (busy and stalled show from the next cycle of "
            "this core):\n", cp, now);
    for (unsigned u = 0; u < TPU_U_COUNT; u++) {
        if (is_mxu((enum tpu_unit_id)u) && u - TPU_U_MXU0 >= cfg->num_mxu)
            continue;
        char state[64] = "idle", what[400] = "";
        const char *color = DIM;
        if (u == TPU_U_SEQ) {
            tpu_seq_view v;
            tpu_core_seq_view(tpu_system_core(st->sys, st->core), &v);
            if (now != UINT64_MAX && t->issue_cycle == now) {
                snprintf(state, sizeof state, "busy");
                char where[300];
                pc_text(st, t->issue_pc, where, sizeof where);
                snprintf(what, sizeof what, "issued %s", where);
                color = GREEN;
            } else if (v.halted) {
                snprintf(state, sizeof state, "halted");
            } else if (now != UINT64_MAX && v.stall) {
                snprintf(state, sizeof state, "stalled");
                char where[300];
                pc_text(st, v.pc, where, sizeof where);
                snprintf(what, sizeof what, "at %s (%s)", where, v.stall);
                color = RED;
            }
        } else {
            const pending_list *l = &t->unit[u];
            const char *why = fresh ? stall_reason(st, (enum tpu_unit_id)u) : NULL;
            int busy = fresh && st->cur.unit[u].busy_cycles != st->prev.unit[u].busy_cycles;
            if (why) {
                snprintf(state, sizeof state, "stalled");
                color = RED;
            } else if (busy) {
                snprintf(state, sizeof state, "busy");
                color = GREEN;
            }
            size_t n = 0;
            if (why)
                n += (size_t)snprintf(what, sizeof what, "(%s): ", why);
            unsigned m = u - TPU_U_MXU0;
            if (is_mxu((enum tpu_unit_id)u) && t->stream[m].on) {
                char insn[200];
                insn_text(st, t->stream[m].word, insn, sizeof insn);
                n += (size_t)snprintf(what + n, sizeof what - n,
                                      "streaming pc %" PRIu64 " %s: %" PRIu64
                                      " row%s from cycle %" PRIu64, t->stream[m].pc, insn,
                                      t->stream[m].rows, plural(t->stream[m].rows),
                                      t->stream[m].start);
                size_t more = l->n ? l->n - 1 : 0;
                if (more && n < sizeof what)
                    snprintf(what + n, sizeof what - n, "; %zu more unfinished", more);
            } else if (l->n && n < sizeof what) {
                char p[300];
                pending_text(st, &l->e[0], p, sizeof p);
                n += (size_t)snprintf(what + n, sizeof what - n, "%s", p);
                if (l->n > 1 && n < sizeof what)
                    snprintf(what + n, sizeof what - n, "; %zu more unfinished", l->n - 1);
            }
        }
        if (st->o.color)
            out(st, "  %-5s %s%-8s" RESET "%s\n", tpu_unit_id_name((enum tpu_unit_id)u), color,
                state, what);
        else if (what[0])
            out(st, "  %-5s %-8s%s\n", tpu_unit_id_name((enum tpu_unit_id)u), state, what);
        else
            out(st, "  %-5s %s\n", tpu_unit_id_name((enum tpu_unit_id)u), state);
    }
}

/* The header and cells of `show mxu` for MXU m with the current window. */
static void print_mxu(tpu_stepper *st, unsigned m)
{
    unsigned n = (unsigned)st->o.cfg->mxu_n;
    const core_track *t = &st->track[st->core];
    uint64_t now = current_cycle(st);
    char cp[32], when[64], win[96];
    core_prefix(st, st->core, cp, sizeof cp);
    if (now == UINT64_MAX)
        snprintf(when, sizeof when, "at reset");
    else
        snprintf(when, sizeof when, "in cycle %" PRIu64, now);
    tpu_mxu_window_fit(&st->win, n);
    unsigned b = tpu_mxu_compact_block(n);
    if (st->compact && b == 1)
        snprintf(win, sizeof win, "compact view");
    else if (st->compact)
        snprintf(win, sizeof win, "compact view, a character per %ux%u cells", b, b);
    else if (st->win.rows == n && st->win.cols == n)
        snprintf(win, sizeof win, "all cells");
    else
        snprintf(win, sizeof win, "rows %u-%u, columns %u-%u", st->win.row,
                 st->win.row + st->win.rows - 1, st->win.col, st->win.col + st->win.cols - 1);
    out(st, "%smxu%u %s (%ux%u, %s)", cp, m, when, n, n, win);
    if (t->stream[m].on) {
        char insn[200];
        insn_text(st, t->stream[m].word, insn, sizeof insn);
        out(st, ": stream pc %" PRIu64 " (%s), %" PRIu64 " row%s from cycle %" PRIu64 "\n",
            t->stream[m].pc, insn, t->stream[m].rows, plural(t->stream[m].rows),
            t->stream[m].start);
    } else {
        out(st, "\n");
    }
    if (st->compact)
        tpu_mxu_view_print_compact(st->o.out, tpu_system_core(st->sys, st->core), m, n,
                                   st->o.color);
    else
        tpu_mxu_view_print(st->o.out, tpu_system_core(st->sys, st->core), m, n, &st->win,
                           st->o.color);
}

void tpu_stepper_print_mxu(tpu_stepper *st)
{
    print_mxu(st, st->mxu);
}

void tpu_stepper_set_output(tpu_stepper *st, FILE *f)
{
    st->o.out = f;
}

/* ---- command arguments --------------------------------------------------------------- */

/* A whole number: decimal or 0x hex. */
static int parse_num(const char *s, uint64_t *v)
{
    if (!s || !*s || *s == '-' || *s == '+')
        return -1;
    errno = 0;
    char *end;
    unsigned long long x = strtoull(s, &end, 0);
    if (*end || errno)
        return -1;
    *v = x;
    return 0;
}

/* A symbol by name (any space), or NULL. */
static const tpu_obj_symbol *find_symbol(const tpu_stepper *st, const char *name, size_t len)
{
    const tpu_object *o = st->o.obj;
    for (size_t i = 0; i < o->nsyms; i++)
        if (strlen(o->syms[i].name) == len && !memcmp(o->syms[i].name, name, len))
            return &o->syms[i];
    return NULL;
}

/* NUMBER, LABEL or LABEL+NUMBER; *space gets the label's space (NONE for
 * a number).  -1 with a message printed on failure. */
static int parse_addr(tpu_stepper *st, const char *s, uint64_t *v, uint8_t *space)
{
    *space = TPU_SPACE_NONE;
    if (parse_num(s, v) == 0)
        return 0;
    const char *plus = strchr(s, '+');
    size_t len = plus ? (size_t)(plus - s) : strlen(s);
    const tpu_obj_symbol *sym = find_symbol(st, s, len);
    uint64_t off = 0;
    if (!sym || (plus && parse_num(plus + 1, &off))) {
        fail(st, "'%s' is not a number or a label (try 'info labels')", s);
        return -1;
    }
    *v = sym->value + off;
    *space = sym->space;
    return 0;
}

static int parse_space(const char *s, uint8_t *space)
{
    if (!strcmp(s, "hbm"))
        *space = TPU_SPACE_HBM;
    else if (!strcmp(s, "vmem"))
        *space = TPU_SPACE_VMEM;
    else
        return -1;
    return 0;
}

static const char *space_name(uint8_t space)
{
    return space == TPU_SPACE_HBM ? "hbm" : space == TPU_SPACE_VMEM ? "vmem" : "imem";
}

/* ---- commands: running ------------------------------------------------------------------ */

/* Print the breakpoint messages of the cycle that stopped the run. */
static void flush_hits(tpu_stepper *st)
{
    if (st->hits_len)
        fwrite(st->hits, 1, st->hits_len, st->o.out);
    st->hits_len = 0;
}

/* Run cycles until `until` says stop, a breakpoint fires or the run
 * ends, then print where it stopped. */
enum run_mode { RUN_CYCLES, RUN_NEXT, RUN_CONTINUE };

static void run(tpu_stepper *st, enum run_mode mode, uint64_t n)
{
    if (st->state != TPU_RUNNING) {
        uint64_t cycles = tpu_system_cycle(st->sys);
        out(st, "the program is not running (it %s after %" PRIu64 " cycle%s)\n",
            st->state == TPU_STOP_HALT ? "halted" : "stopped", cycles, plural(cycles));
        return;
    }
    st->hits_len = 0;
    st->nhits = 0;
    for (uint64_t i = 0; mode != RUN_CYCLES || i < n; i++) {
        if (!one_cycle(st))
            break;
        if (st->nhits || st->state != TPU_RUNNING)
            break;
        if (mode == RUN_NEXT && st->track[st->core].issue_cycle == current_cycle(st))
            break;
        /* Ctrl-C: back to the prompt after this cycle, as gdb does (a
         * command runs at least one cycle, so a Ctrl-C always stops it
         * past where it started). */
        if (tpu_interrupted() && (mode != RUN_CYCLES || i + 1 < n)) {
            out(st, "%sinterrupted at cycle %" PRIu64 "\n", st->o.prompt ? "\n" : "",
                current_cycle(st));     /* on a terminal, after its "^C" */
            break;
        }
    }
    tpu_interrupt_clear();
    flush_hits(st);
    if (tpu_system_cycle(st->sys))
        tpu_stepper_print_status(st);
    report_end(st);
}

static int cmd_step(tpu_stepper *st, int argc, char **argv)
{
    uint64_t n = 1;
    if (argc > 2)
        return fail(st, "usage: step [N]");
    if (argc == 2 && (parse_num(argv[1], &n) || n == 0))
        return fail(st, "step wants a number of cycles (1 or more), not '%s'", argv[1]);
    run(st, RUN_CYCLES, n);
    return 0;
}

static int cmd_next(tpu_stepper *st, int argc, char **argv)
{
    (void)argv;
    if (argc > 1)
        return fail(st, "usage: next (runs until the next instruction issues)");
    run(st, RUN_NEXT, 0);
    return 0;
}

static int cmd_continue(tpu_stepper *st, int argc, char **argv)
{
    (void)argv;
    if (argc > 1)
        return fail(st, "usage: continue");
    run(st, RUN_CONTINUE, 0);
    return 0;
}

/* ---- commands: breakpoints ------------------------------------------------------------------ */

static breakpoint *new_bp(tpu_stepper *st, enum bp_kind kind, uint64_t value)
{
    if (st->nbp == st->capbp) {
        size_t cap = st->capbp ? 2 * st->capbp : 8;
        breakpoint *b = realloc(st->bp, cap * sizeof *b);
        if (!b)
            return NULL;
        st->bp = b;
        st->capbp = cap;
    }
    breakpoint *b = &st->bp[st->nbp++];
    memset(b, 0, sizeof *b);
    b->id = st->next_id++;
    b->kind = kind;
    b->value = value;
    return b;
}

static void bp_text(const tpu_stepper *st, const breakpoint *b, char *buf, size_t len)
{
    char where[300];
    switch (b->kind) {
    case BP_PC:
        pc_text(st, b->value, where, sizeof where);
        snprintf(buf, len, "breakpoint %u: %s", b->id, where);
        break;
    case BP_CYCLE:
        snprintf(buf, len, "breakpoint %u: cycle %" PRIu64, b->id, b->value);
        break;
    case BP_MXU_START:
    case BP_MXU_END:
        if (b->value == ANY_MXU)
            snprintf(buf, len, "breakpoint %u: %s on any MXU", b->id,
                     b->kind == BP_MXU_START ? "mxu-start" : "mxu-end");
        else
            snprintf(buf, len, "breakpoint %u: %s on mxu%" PRIu64, b->id,
                     b->kind == BP_MXU_START ? "mxu-start" : "mxu-end", b->value);
        break;
    case BP_DMA_DONE:
        snprintf(buf, len, "breakpoint %u: dma-done", b->id);
        break;
    case BP_SEM:
        snprintf(buf, len, "breakpoint %u: sem %" PRIu64 " changes", b->id, b->value);
        break;
    case BP_WATCH:
        snprintf(buf, len, "watchpoint %u: %s 0x%" PRIx64 "..0x%" PRIx64 " (%" PRIu64 " byte%s)",
                 b->id, space_name(b->space), b->value, b->value + b->len - 1, b->len,
                 plural(b->len));
        break;
    }
}

static int announce(tpu_stepper *st, breakpoint *b)
{
    if (!b)
        return fail(st, "out of memory");
    char text[400];
    bp_text(st, b, text, sizeof text);
    out(st, "%s\n", text);
    return 0;
}

static int cmd_break(tpu_stepper *st, int argc, char **argv)
{
    static const char usage[] =
        "usage: break LABEL | pc N | cycle N | mxu-start [K] | mxu-end [K] | dma-done | sem N";
    if (argc < 2 || argc > 3)
        return fail(st, "%s", usage);
    const char *what = argv[1];
    uint64_t v;
    if (!strcmp(what, "pc") || !strcmp(what, "cycle") || !strcmp(what, "sem")) {
        if (argc != 3)
            return fail(st, "break %s wants a number", what);
        if (!strcmp(what, "pc")) {
            uint8_t space;
            if (parse_addr(st, argv[2], &v, &space))
                return 0;
            if (space != TPU_SPACE_NONE && space != TPU_SPACE_IMEM)
                return fail(st, "'%s' is a %s label, not code (use watch)", argv[2],
                            space_name(space));
            if (v >= st->o.obj->ntext)
                return fail(st, "pc %" PRIu64 " is past the end of the program (%zu instructions)",
                            v, st->o.obj->ntext);
            return announce(st, new_bp(st, BP_PC, v));
        }
        if (parse_num(argv[2], &v))
            return fail(st, "break %s wants a number, not '%s'", what, argv[2]);
        if (!strcmp(what, "sem")) {
            if (v >= TPU_NUM_SEMS)
                return fail(st, "there are %d semaphores (0..%d), not %" PRIu64, TPU_NUM_SEMS,
                            TPU_NUM_SEMS - 1, v);
            return announce(st, new_bp(st, BP_SEM, v));
        }
        uint64_t now = current_cycle(st);
        if (now != UINT64_MAX && v <= now)
            out(st, "note: cycle %" PRIu64 " has already run (the current cycle is %" PRIu64 ")\n",
                v, now);
        return announce(st, new_bp(st, BP_CYCLE, v));
    }
    if (!strcmp(what, "mxu-start") || !strcmp(what, "mxu-end")) {
        v = ANY_MXU;
        if (argc == 3 && (parse_num(argv[2], &v) || v >= st->o.cfg->num_mxu))
            return fail(st, "there %s %u MXU%s (0..%u), not '%s'",
                        st->o.cfg->num_mxu == 1 ? "is" : "are", (unsigned)st->o.cfg->num_mxu,
                        st->o.cfg->num_mxu == 1 ? "" : "s", (unsigned)st->o.cfg->num_mxu - 1,
                        argv[2]);
        return announce(st, new_bp(st, what[4] == 's' ? BP_MXU_START : BP_MXU_END, v));
    }
    if (!strcmp(what, "dma-done")) {
        if (argc != 2)
            return fail(st, "%s", usage);
        return announce(st, new_bp(st, BP_DMA_DONE, 0));
    }
    if (argc != 2)
        return fail(st, "%s", usage);
    uint8_t space;
    if (parse_num(what, &v) == 0)
        return fail(st, "a bare number is ambiguous: say 'break pc %s' or 'break cycle %s'", what,
                    what);
    const tpu_obj_symbol *sym = find_symbol(st, what, strlen(what));
    if (!sym)
        return fail(st, "no label '%s' (try 'info labels'); %s", what, usage);
    if (parse_addr(st, what, &v, &space))
        return 0;
    if (space != TPU_SPACE_IMEM)
        return fail(st, "'%s' is a %s label, not code (use watch)", what, space_name(space));
    return announce(st, new_bp(st, BP_PC, v));
}

/* MEM_WRITE events are costly: ask for them with the first watchpoint. */
static int want_mem_writes(tpu_stepper *st)
{
    if (st->mem_subscribed)
        return 0;
    if (tpu_system_subscribe(st->sys, 1u << TPU_EV_MEM_WRITE, on_event, st))
        return -1;
    st->mem_subscribed = 1;
    return 0;
}

/* "[hbm|vmem] ADDR": the space may be left out when ADDR is a data label. */
static int parse_place(tpu_stepper *st, int argc, char **argv, int *i, uint8_t *space,
                       uint64_t *addr)
{
    uint8_t given = TPU_SPACE_NONE, lab;
    if (*i < argc && parse_space(argv[*i], &given) == 0)
        (*i)++;
    if (*i >= argc) {
        fail(st, "missing address");
        return -1;
    }
    const char *arg = argv[(*i)++];
    if (parse_addr(st, arg, addr, &lab))
        return -1;
    if (lab == TPU_SPACE_IMEM) {
        fail(st, "'%s' is a code label, not data", arg);
        return -1;
    }
    if (given != TPU_SPACE_NONE && lab != TPU_SPACE_NONE && given != lab) {
        fail(st, "'%s' is a %s label, not %s", arg, space_name(lab), space_name(given));
        return -1;
    }
    *space = given != TPU_SPACE_NONE ? given : lab;
    if (*space == TPU_SPACE_NONE) {
        fail(st, "say which memory: hbm or vmem");
        return -1;
    }
    uint64_t size = *space == TPU_SPACE_HBM ? st->o.cfg->hbm_bytes : st->o.cfg->vmem_bytes;
    if (*addr >= size) {
        fail(st, "%s address 0x%" PRIx64 " is outside %s (0x%" PRIx64 " bytes)",
             space_name(*space), *addr, space_name(*space), size);
        return -1;
    }
    return 0;
}

static int cmd_watch(tpu_stepper *st, int argc, char **argv)
{
    int i = 1;
    uint8_t space;
    uint64_t addr, len = 4;
    if (argc < 2 || argc > 4)
        return fail(st, "usage: watch [hbm|vmem] ADDR [LEN]");
    if (parse_place(st, argc, argv, &i, &space, &addr))
        return 0;
    if (i < argc && (parse_num(argv[i++], &len) || len == 0))
        return fail(st, "watch wants a length in bytes (1 or more), not '%s'", argv[i - 1]);
    if (i != argc)
        return fail(st, "usage: watch [hbm|vmem] ADDR [LEN]");
    uint64_t size = space == TPU_SPACE_HBM ? st->o.cfg->hbm_bytes : st->o.cfg->vmem_bytes;
    if (len > size - addr)
        len = size - addr;
    if (want_mem_writes(st))
        return fail(st, "the model has no room for another event subscriber");
    breakpoint *b = new_bp(st, BP_WATCH, addr);
    if (b) {
        b->len = len;
        b->space = space;
    }
    return announce(st, b);
}

static int cmd_delete(tpu_stepper *st, int argc, char **argv)
{
    if (argc == 1) {
        st->nbp = 0;
        out(st, "deleted all breakpoints and watchpoints\n");
        return 0;
    }
    for (int a = 1; a < argc; a++) {
        uint64_t id;
        if (parse_num(argv[a], &id))
            return fail(st, "delete wants breakpoint numbers, not '%s'", argv[a]);
        size_t i = 0;
        while (i < st->nbp && st->bp[i].id != id)
            i++;
        if (i == st->nbp)
            return fail(st, "no breakpoint %" PRIu64 " (try 'info breakpoints')", id);
        memmove(st->bp + i, st->bp + i + 1, (st->nbp - i - 1) * sizeof *st->bp);
        st->nbp--;
        out(st, "deleted %" PRIu64 "\n", id);
    }
    return 0;
}

/* ---- commands: looking ---------------------------------------------------------------------- */

static void info_regs(tpu_stepper *st)
{
    tpu_seq_view v;
    tpu_core_seq_view(tpu_system_core(st->sys, st->core), &v);
    for (unsigned r = 0; r < TPU_NUM_SREGS; r++) {
        char name[8], val[32];
        snprintf(name, sizeof name, r == 0 ? "zero" : r == TPU_SREG_CID ? "cid" : "s%u", r);
        snprintf(val, sizeof val, "%" PRId64, v.sreg[r]);
        if (r % 4 == 3)
            out(st, "%-4s %s\n", name, val);
        else
            out(st, "%-4s %-14s  ", name, val);
    }
}

static void info_sems(tpu_stepper *st)
{
    tpu_seq_view v;
    tpu_core_seq_view(tpu_system_core(st->sys, st->core), &v);
    for (unsigned i = 0; i < TPU_NUM_SEMS; i += 8) {
        out(st, "sem %2u-%-2u", i, i + 7);
        for (unsigned k = i; k < i + 8; k++)
            out(st, " %6" PRIu32, v.sem[k]);
        out(st, "\n");
    }
}

static int info_vreg(tpu_stepper *st, const char *arg)
{
    uint64_t r;
    if (!arg)
        return fail(st, "usage: print vreg N");
    if (arg[0] == 'v')
        arg++;
    if (parse_num(arg, &r) || r >= TPU_NUM_VREGS)
        return fail(st, "vector registers are v0..v%d", TPU_NUM_VREGS - 1);
    unsigned s = (unsigned)st->o.cfg->vpu_sublanes, l = (unsigned)st->o.cfg->vpu_lanes;
    uint32_t *val = malloc((size_t)s * l * sizeof *val);
    if (!val)
        return fail(st, "out of memory");
    tpu_core_vreg(tpu_system_core(st->sys, st->core), (unsigned)r, val);
    out(st, "v%" PRIu64 " (%u x %u fp32):\n", r, s, l);
    for (unsigned i = 0; i < s; i++)
        for (unsigned j = 0; j < l; j += 8) {
            out(st, "  [%u][%u..%u]", i, j, j + 7 < l ? j + 7 : l - 1);
            for (unsigned k = j; k < j + 8 && k < l; k++) {
                char t[32];
                tpu_fmt_f32(val[(size_t)i * l + k], t, sizeof t);
                out(st, " %11s", t);
            }
            out(st, "\n");
        }
    free(val);
    return 0;
}

static int info_mem(tpu_stepper *st, int argc, char **argv, int i)
{
    static const char usage[] = "usage: print mem [hbm|vmem] ADDR [N] [as bf16|f32|hex]";
    uint8_t space;
    uint64_t addr, n = 0;
    enum { HEX, BF16, F32 } fmt = HEX;
    if (parse_place(st, argc, argv, &i, &space, &addr))
        return 0;
    if (i < argc && strcmp(argv[i], "as") && parse_num(argv[i++], &n))
        return fail(st, "%s", usage);
    if (i < argc) {
        if (strcmp(argv[i], "as") || i + 2 != argc)
            return fail(st, "%s", usage);
        const char *f = argv[i + 1];
        if (!strcmp(f, "bf16"))
            fmt = BF16;
        else if (!strcmp(f, "f32") || !strcmp(f, "fp32"))
            fmt = F32;
        else if (strcmp(f, "hex"))
            return fail(st, "print mem ... as bf16, f32 or hex, not '%s'", f);
    }
    unsigned esize = fmt == HEX ? 1 : fmt == BF16 ? 2 : 4;
    if (n == 0)
        n = fmt == HEX ? 64 : 16;
    if (n > 65536)
        return fail(st, "at most 65536 elements at a time");
    uint64_t size = space == TPU_SPACE_HBM ? st->o.cfg->hbm_bytes : st->o.cfg->vmem_bytes;
    uint64_t bytes = n * esize;
    if (bytes > size - addr)
        return fail(st, "%s 0x%" PRIx64 "..0x%" PRIx64 " is outside %s (0x%" PRIx64 " bytes)",
                    space_name(space), addr, addr + bytes - 1, space_name(space), size);
    uint8_t *buf = malloc(bytes);
    if (!buf)
        return fail(st, "out of memory");
    if (tpu_mem_read(tpu_system_core(st->sys, st->core), (enum tpu_space)space, addr, buf,
                     bytes)) {
        free(buf);
        return fail(st, "cannot read %s 0x%" PRIx64, space_name(space), addr);
    }
    unsigned per_line = fmt == HEX ? 16 : 8;
    int width = 2;                  /* the widest number printed */
    for (int pass = 0; pass < 2; pass++)
        for (uint64_t k = 0; k < n; k++) {
            char t[32];
            if (fmt == HEX) {
                snprintf(t, sizeof t, "%02x", buf[k]);
            } else if (fmt == BF16) {
                uint16_t b;
                memcpy(&b, buf + 2 * k, 2);
                tpu_fmt_bf16(b, t, sizeof t);
            } else {
                uint32_t b;
                memcpy(&b, buf + 4 * k, 4);
                tpu_fmt_f32(b, t, sizeof t);
            }
            if (pass == 0) {
                if ((int)strlen(t) > width)
                    width = (int)strlen(t);
                continue;
            }
            if (k % per_line == 0)
                out(st, "%s%s 0x%06" PRIx64 ":", k ? "\n" : "", space_name(space),
                    addr + k * esize);
            out(st, " %*s", width, t);
        }
    out(st, "\n");
    free(buf);
    return 0;
}

/* The instructions around pc, with their labels; "=>" marks pc. */
static void info_pc(tpu_stepper *st)
{
    tpu_seq_view v;
    tpu_core_seq_view(tpu_system_core(st->sys, st->core), &v);
    size_t ntext = st->o.obj->ntext;
    uint64_t from = v.pc > 3 ? v.pc - 3 : 0, to = v.pc + 5;
    if (to > ntext)
        to = ntext;
    for (uint64_t pc = from; pc < to; pc++) {
        for (size_t i = 0; i < st->ncode; i++)
            if (st->code[i]->value == pc)
                out(st, "       %s:\n", st->code[i]->name);
        char insn[200];
        insn_text(st, st->o.obj->text[pc], insn, sizeof insn);
        out(st, "%s %4" PRIu64 "  %s\n", pc == v.pc ? "=>" : "  ", pc, insn);
    }
    if (v.pc >= ntext)
        out(st, "=> %4" PRIu64 "  (past the end of the program)\n", v.pc);
}

static void info_labels(tpu_stepper *st)
{
    const tpu_object *o = st->o.obj;
    if (!o->nsyms)
        out(st, "no labels in this object\n");
    for (size_t i = 0; i < st->ncode; i++)
        out(st, "pc %-10" PRIu64 " %s\n", st->code[i]->value, st->code[i]->name);
    for (size_t i = 0; i < o->nsyms; i++)
        if (o->syms[i].space != TPU_SPACE_IMEM)
            out(st, "%-4s 0x%-6" PRIx64 " %s\n", space_name(o->syms[i].space), o->syms[i].value,
                o->syms[i].name);
}

static void info_queues(tpu_stepper *st)
{
    const core_track *t = &st->track[st->core];
    out(st, "given to each unit and not finished, oldest first (queues hold %u):\n",
        (unsigned)st->o.cfg->seq_queue_depth);
    for (unsigned u = TPU_U_DMA; u < TPU_U_COUNT; u++) {
        if (is_mxu((enum tpu_unit_id)u) && u - TPU_U_MXU0 >= st->o.cfg->num_mxu)
            continue;
        const pending_list *l = &t->unit[u];
        if (!l->n)
            out(st, "  %-5s empty\n", tpu_unit_id_name((enum tpu_unit_id)u));
        for (size_t i = 0; i < l->n; i++) {
            char p[300];
            pending_text(st, &l->e[i], p, sizeof p);
            out(st, "  %-5s %s (issued in cycle %" PRIu64 ")\n",
                i ? "" : tpu_unit_id_name((enum tpu_unit_id)u), p, l->e[i].issued);
        }
    }
}

static void info_breakpoints(tpu_stepper *st)
{
    if (!st->nbp)
        out(st, "no breakpoints or watchpoints\n");
    for (size_t i = 0; i < st->nbp; i++) {
        char text[400];
        bp_text(st, &st->bp[i], text, sizeof text);
        out(st, "%s  (hit %" PRIu64 " time%s)\n", text, st->bp[i].hits, plural(st->bp[i].hits));
    }
}

static int cmd_info(tpu_stepper *st, int argc, char **argv)
{
    static const char usage[] =
        "usage: print regs | vreg N | sem | queues | mem [hbm|vmem] ADDR [N] [as bf16|f32|hex] | "
        "pc | labels | breakpoints";
    if (argc < 2)
        return fail(st, "%s", usage);
    const char *w = argv[1];
    if (!strcmp(w, "regs") || !strcmp(w, "registers")) {
        if (argc != 2)
            return fail(st, "%s", usage);
        info_regs(st);
    } else if (!strcmp(w, "vreg")) {
        if (argc != 3)
            return fail(st, "usage: print vreg N");
        info_vreg(st, argv[2]);
    } else if (!strcmp(w, "sem") || !strcmp(w, "sems")) {
        if (argc != 2)
            return fail(st, "%s", usage);
        info_sems(st);
    } else if (!strcmp(w, "queues")) {
        if (argc != 2)
            return fail(st, "%s", usage);
        info_queues(st);
    } else if (!strcmp(w, "mem")) {
        info_mem(st, argc, argv, 2);
    } else if (!strcmp(w, "pc")) {
        if (argc != 2)
            return fail(st, "%s", usage);
        info_pc(st);
    } else if (!strcmp(w, "labels")) {
        if (argc != 2)
            return fail(st, "%s", usage);
        info_labels(st);
    } else if (!strcmp(w, "breakpoints") || !strcmp(w, "break")) {
        if (argc != 2)
            return fail(st, "%s", usage);
        info_breakpoints(st);
    } else {
        return fail(st, "unknown item '%s'; %s", w, usage);
    }
    return 0;
}

static int cmd_x(tpu_stepper *st, int argc, char **argv)
{
    return info_mem(st, argc, argv, 1);
}

static int cmd_list(tpu_stepper *st, int argc, char **argv)
{
    (void)argv;
    if (argc != 1)
        return fail(st, "usage: list");
    info_pc(st);
    return 0;
}

/* "[K] ROW COL" from argv[i] on: a cell of MXU K (default: the one `show
 * mxu` shows).  0, or -1 with a message printed. */
static int parse_cell(tpu_stepper *st, int argc, char **argv, int i, const char *cmd,
                      unsigned *mxu, unsigned *row, unsigned *col)
{
    unsigned nmxu = (unsigned)st->o.cfg->num_mxu, n = (unsigned)st->o.cfg->mxu_n;
    uint64_t v[3] = { st->mxu, 0, 0 };
    int nargs = argc - i;
    if (nargs != 2 && nargs != 3) {
        fail(st, "usage: %s [K] ROW COL", cmd);
        return -1;
    }
    for (int k = 0; k < nargs; k++)
        if (parse_num(argv[i + k], &v[k + (nargs == 2)])) {
            fail(st, "%s wants numbers, not '%s'", cmd, argv[i + k]);
            return -1;
        }
    if (v[0] >= nmxu) {
        fail(st, "there %s %u MXU%s (0..%u), not %" PRIu64, nmxu == 1 ? "is" : "are", nmxu,
             plural(nmxu), nmxu - 1, v[0]);
        return -1;
    }
    if (v[1] >= n || v[2] >= n) {
        fail(st, "cell (%" PRIu64 ", %" PRIu64 ") is outside the %ux%u array: rows and columns "
             "are 0..%u", v[1], v[2], n, n, n - 1);
        return -1;
    }
    *mxu = (unsigned)v[0];
    *row = (unsigned)v[1];
    *col = (unsigned)v[2];
    return 0;
}

/* show mxu [K] [window R C [ROWS COLS]] | show units | show cell [K] ROW COL */
static int cmd_show(tpu_stepper *st, int argc, char **argv)
{
    static const char usage[] =
        "usage: show mxu [K] [window R C [ROWS COLS]] | show cell [K] ROW COL | show units";
    unsigned nmxu = (unsigned)st->o.cfg->num_mxu, n = (unsigned)st->o.cfg->mxu_n;
    if (argc < 2)
        return fail(st, "%s", usage);
    if (!strcmp(argv[1], "units")) {
        if (argc != 2)
            return fail(st, "%s", usage);
        tpu_stepper_print_units(st);
        return 0;
    }
    if (!strcmp(argv[1], "mxu")) {
        int i = 2;
        unsigned m = st->mxu;
        uint64_t v[4];
        if (i < argc && strcmp(argv[i], "window")) {
            if (parse_num(argv[i], &v[0]) || v[0] >= nmxu)
                return fail(st, "there %s %u MXU%s (0..%u), not '%s'", nmxu == 1 ? "is" : "are",
                            nmxu, nmxu == 1 ? "" : "s", nmxu - 1, argv[i]);
            m = (unsigned)v[0];
            i++;
        }
        tpu_mxu_window w = st->win;
        if (i < argc) {
            if (strcmp(argv[i], "window") || (argc - i != 3 && argc - i != 5))
                return fail(st, "%s", usage);
            for (int k = 0; k < argc - i - 1; k++)
                if (parse_num(argv[i + 1 + k], &v[k]) || v[k] > 65535)
                    return fail(st, "window wants cell numbers, not '%s'", argv[i + 1 + k]);
            if (v[0] >= n || v[1] >= n)
                return fail(st, "the array is %ux%u: rows and columns 0..%u", n, n, n - 1);
            w.row = (unsigned)v[0];
            w.col = (unsigned)v[1];
            if (argc - i == 5) {
                if (!v[2] || !v[3])
                    return fail(st, "a window has at least one row and one column");
                w.rows = (unsigned)v[2];
                w.cols = (unsigned)v[3];
            }
            /* keep the top-left cell asked for: shrink rather than shift */
            if (w.rows > n - w.row)
                w.rows = n - w.row;
            if (w.cols > n - w.col)
                w.cols = n - w.col;
            st->compact = 0;        /* a window is for the numbers */
        }
        st->mxu = m;
        st->win = w;
        print_mxu(st, m);
        return 0;
    }
    if (!strcmp(argv[1], "cell")) {
        unsigned km, kr, kc;
        if (parse_cell(st, argc, argv, 2, "show cell", &km, &kr, &kc))
            return 0;
        tpu_cell_view c;
        tpu_core_mxu_cell(tpu_system_core(st->sys, st->core), km, kr, kc, &c);
        char a[32], b[32], ch[32];
        tpu_fmt_bf16(c.weight, a, sizeof a);
        tpu_fmt_bf16(c.shadow, b, sizeof b);
        out(st, "mxu%u cell (%u, %u): weight %s (0x%04x), shadow %s (0x%04x)\n", km, kr, kc, a,
            c.weight, b, c.shadow);
        if (c.loading) {
            tpu_fmt_bf16(c.chain, ch, sizeof ch);
            out(st, "  weight being loaded: %s (0x%04x), into the shadow at the end of this "
                "cycle\n", ch, c.chain);
        }
        if (c.active) {
            tpu_fmt_bf16(c.x, a, sizeof a);
            tpu_fmt_f32(c.psum, b, sizeof b);
            out(st, "  multiply-add of LHS row %" PRId64 ": x %s (0x%04x), partial sum out %s "
                "(0x%08x)\n", c.row, a, c.x, b, c.psum);
        } else {
            out(st, "  no multiply-add in this cycle\n");
        }
        return 0;
    }
    return fail(st, "unknown item '%s'; %s", argv[1], usage);
}

/* view [compact|full]: how `show mxu` draws an array. */
static int cmd_view(tpu_stepper *st, int argc, char **argv)
{
    if (argc == 2 && !strcmp(argv[1], "compact"))
        st->compact = 1;
    else if (argc == 2 && !strcmp(argv[1], "full"))
        st->compact = 0;
    else if (argc != 1)
        return fail(st, "usage: view [compact|full]");
    if (st->compact)
        out(st, "view compact: show mxu draws a character per cell (or block of cells)\n");
    else
        out(st, "view full: show mxu draws the numbers of the cells in its window\n");
    return 0;
}

static int same_cell(const cell_trace *a, const cell_trace *b)
{
    return a->core == b->core && a->mxu == b->mxu && a->row == b->row && a->col == b->col;
}

/* trace [cell [K] ROW COL]: print a line for the cell after every cycle. */
static int cmd_trace(tpu_stepper *st, int argc, char **argv)
{
    char name[64];
    if (argc == 1) {
        if (!st->ntrace)
            out(st, "no cell traced\n");
        for (unsigned i = 0; i < st->ntrace; i++) {
            cell_name(st, &st->trace[i], name, sizeof name);
            out(st, "tracing %s\n", name);
        }
        return 0;
    }
    if (strcmp(argv[1], "cell"))
        return fail(st, "usage: trace cell [K] ROW COL");
    cell_trace tr;
    memset(&tr, 0, sizeof tr);
    tr.core = st->core;
    if (parse_cell(st, argc, argv, 2, "trace cell", &tr.mxu, &tr.row, &tr.col))
        return 0;
    cell_name(st, &tr, name, sizeof name);
    for (unsigned i = 0; i < st->ntrace; i++)
        if (same_cell(&st->trace[i], &tr))
            return fail(st, "%s is traced already", name);
    if (st->ntrace == TRACE_MAX)
        return fail(st, "at most %d cells traced at once (untrace one first)", TRACE_MAX);
    st->trace[st->ntrace++] = tr;
    out(st, "tracing %s: w weight, s shadow, l arriving, x, y in -> out\n", name);
    return 0;
}

/* untrace [cell [K] ROW COL]: stop tracing that cell, or every cell. */
static int cmd_untrace(tpu_stepper *st, int argc, char **argv)
{
    char name[64];
    if (argc == 1) {
        if (!st->ntrace)
            return fail(st, "no cell is traced");
        out(st, "stopped tracing %u cell%s\n", st->ntrace, plural(st->ntrace));
        st->ntrace = 0;
        return 0;
    }
    if (strcmp(argv[1], "cell"))
        return fail(st, "usage: untrace [cell [K] ROW COL]");
    cell_trace tr;
    memset(&tr, 0, sizeof tr);
    tr.core = st->core;
    if (parse_cell(st, argc, argv, 2, "untrace cell", &tr.mxu, &tr.row, &tr.col))
        return 0;
    cell_name(st, &tr, name, sizeof name);
    for (unsigned i = 0; i < st->ntrace; i++)
        if (same_cell(&st->trace[i], &tr)) {
            memmove(st->trace + i, st->trace + i + 1, (st->ntrace - i - 1) * sizeof tr);
            st->ntrace--;
            out(st, "stopped tracing %s\n", name);
            return 0;
        }
    return fail(st, "%s is not traced (try 'trace')", name);
}

static int cmd_core(tpu_stepper *st, int argc, char **argv)
{
    uint64_t k;
    if (argc == 1) {
        out(st, "core %u of %u\n", st->core, st->ncores);
        return 0;
    }
    if (argc != 2 || parse_num(argv[1], &k) || k >= st->ncores)
        return fail(st, "usage: core N (0..%u)", st->ncores - 1);
    if (k != st->core)
        st->stats_valid = 0;      /* show units knows the new core from its next cycle */
    st->core = (unsigned)k;
    out(st, "core %u\n", st->core);
    return 0;
}

static int cmd_report(tpu_stepper *st, int argc, char **argv)
{
    (void)argv;
    if (argc != 1)
        return fail(st, "usage: report");
    tpu_stats *stats = calloc(st->ncores, sizeof *stats);
    if (!stats)
        return fail(st, "out of memory");
    tpu_report rep;
    char error[600];
    fill_report(st, &rep, stats, error, sizeof error);
    tpu_report_text(st->o.out, &rep);
    free(stats);
    return 0;
}

/* ---- the command table ------------------------------------------------------------------------ */

typedef struct command {
    const char *name, *alias;
    int (*fn)(tpu_stepper *st, int argc, char **argv);
    const char *args, *help;
} command;

static int cmd_help(tpu_stepper *st, int argc, char **argv);
static int cmd_quit(tpu_stepper *st, int argc, char **argv)
{
    (void)st;
    (void)argc;
    (void)argv;
    return 1;
}

static const command commands[] = {
    { "step", "s", cmd_step, "[N]", "run N cycles (default 1)" },
    { "next", "n", cmd_next, "", "run until the next instruction issues" },
    { "continue", "c", cmd_continue, "", "run until a breakpoint, halt or error" },
    { "break", "b", cmd_break, "LABEL|pc N|cycle N|mxu-start [K]|mxu-end [K]|dma-done|sem N",
      "stop there (unit events: a tile starts, ends, a DMA finishes, a semaphore changes)" },
    { "watch", "w", cmd_watch, "[hbm|vmem] ADDR [LEN]", "stop when those bytes are written" },
    { "delete", "d", cmd_delete, "[ID...]", "delete breakpoints (all without ID)" },
    { "info", "i", cmd_info, "regs|vreg N|sem|queues|mem ...|pc|labels|breakpoints",
      "print state (same as print)" },
    { "print", "p", cmd_info, "(as info)", "print state" },
    { "x", NULL, cmd_x, "[hbm|vmem] ADDR [N] [as bf16|f32|hex]", "print memory (print mem)" },
    { "list", "l", cmd_list, "", "the instructions around pc" },
    { "show", "sh", cmd_show, "mxu [K] [window R C [ROWS COLS]]|cell [K] R C|units",
      "draw the MXU cells, one cell, the units" },
    { "view", NULL, cmd_view, "[compact|full]",
      "show mxu: a character per cell, or the numbers through a window" },
    { "trace", NULL, cmd_trace, "[cell [K] R C]",
      "print the cell's weights, x and partial sums after every cycle (list without cell)" },
    { "untrace", NULL, cmd_untrace, "[cell [K] R C]", "stop tracing the cell (all without cell)" },
    { "core", NULL, cmd_core, "[N]", "the core the views show (several cores)" },
    { "report", NULL, cmd_report, "", "tpu-sim's report of the cycles so far" },
    { "help", "h", cmd_help, "", "this list" },
    { "quit", "q", cmd_quit, "", "leave (also at the end of the input)" },
};

static int cmd_help(tpu_stepper *st, int argc, char **argv)
{
    (void)argc;
    (void)argv;
    out(st, "commands (alias in parentheses):\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        const command *c = &commands[i];
        char head[160];
        snprintf(head, sizeof head, "%s%s%s%s%s%s", c->name, c->alias ? " (" : "",
                 c->alias ? c->alias : "", c->alias ? ")" : "", c->args[0] ? " " : "", c->args);
        out(st, "  %s\n      %s\n", head, c->help);
    }
    out(st, "Ctrl-C stops step, next and continue after the cycle it is in.\n");
    return 0;
}

int tpu_stepper_exec(tpu_stepper *st, const char *line)
{
    char buf[MAX_LINE];
    char *argv[MAX_ARGS + 1];
    int argc = 0;
    snprintf(buf, sizeof buf, "%s", line);
    char *hash = strchr(buf, '#');
    if (hash)
        *hash = 0;
    for (char *p = buf; *p;) {
        while (*p && isspace((unsigned char)*p))
            p++;
        if (!*p)
            break;
        if (argc == MAX_ARGS)
            return fail(st, "too many words (at most %d)", MAX_ARGS);
        argv[argc++] = p;
        while (*p && !isspace((unsigned char)*p))
            p++;
        if (*p)
            *p++ = 0;
    }
    if (!argc)
        return 0;
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        const command *c = &commands[i];
        if (!strcmp(argv[0], c->name) || (c->alias && !strcmp(argv[0], c->alias)))
            return c->fn(st, argc, argv);
    }
    return fail(st, "unknown command '%s' (try 'help')", argv[0]);
}

int tpu_stepper_loop(tpu_stepper *st)
{
    char line[MAX_LINE];
    /* Ctrl-C stops a running command at the next cycle (run()) and, at the
     * prompt, gives a new prompt: the read returns EINTR (no SA_RESTART). */
    tpu_interrupt_install();
    for (;;) {
        tpu_interrupt_clear();      /* a Ctrl-C while a view printed: it is done */
        if (st->o.prompt) {
            fputs("(tpu) ", st->o.out);
            fflush(st->o.out);
        }
        if (!fgets(line, sizeof line, st->o.in)) {
            if (ferror(st->o.in) && tpu_interrupted()) {
                clearerr(st->o.in);
                tpu_interrupt_clear();
                fputc('\n', st->o.out);
                continue;
            }
            break;
        }
        size_t n = strlen(line);
        if (n == sizeof line - 1 && line[n - 1] != '\n') {
            int ch;
            while ((ch = fgetc(st->o.in)) != EOF && ch != '\n')
                ;
            fail(st, "command too long (at most %d characters)", MAX_LINE - 2);
            continue;
        }
        while (n && (line[n - 1] == '\n' || line[n - 1] == '\r'))
            line[--n] = 0;
        if (st->o.echo && !st->o.prompt)
            fprintf(st->o.out, "(tpu) %s\n", line);
        if (tpu_stepper_exec(st, line))
            break;
        fflush(st->o.out);
    }
    if (st->o.prompt && feof(st->o.in))
        fputc('\n', st->o.out);
    fflush(st->o.out);
    return tpu_stepper_status(st);
}

int tpu_stepper_status(const tpu_stepper *st)
{
    if (st->state == TPU_STOP_ERROR || st->state == TPU_STOP_CYCLE_LIMIT)
        return 3;
    if (st->state == TPU_STOP_HALT)
        return st->ended_reported ? st->status : 0;
    return 0;
}
