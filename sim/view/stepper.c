/*
 * stepper.c - the stepper of `tpu-sim --step` (stepper.h; docs/stepper.md
 * is the user's page): its life cycle, the events of a cycle and one cycle
 * with its breakpoints.  stepper_impl.h lists the files of the rest.
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
#include "stepper_impl.h"

/* ---- small helpers -------------------------------------------------------- */

void stp_out(tpu_stepper *st, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfprintf(st->o.out, fmt, ap);
    va_end(ap);
}

/* A command error: one line, the stepper goes on. */
int stp_fail(tpu_stepper *st, const char *fmt, ...)
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
const char *stp_plural(uint64_t n)
{
    return n == 1 ? "" : "s";
}

/* The cycle the model computed last, or UINT64_MAX before the first. */
uint64_t stp_current_cycle(const tpu_stepper *st)
{
    uint64_t c = tpu_system_cycle(st->sys);
    return c ? c - 1 : UINT64_MAX;
}

const char *stp_core_prefix(const tpu_stepper *st, unsigned core, char *buf, size_t len)
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
void stp_insn_text(const tpu_stepper *st, uint64_t word, char *buf, size_t len)
{
    tpu_insn in;
    const char *why = "";
    if (tpu_decode(word, &in, &why) == 0)
        tpu_format_insn(&in, buf, len, label_at, (void *)st);
    else
        snprintf(buf, len, ".insn 0x%016" PRIx64 " (illegal: %s)", word, why);
}

/* "pc 7 <stream>: mxu.mm 0, ..." (the label with an offset when pc is past it). */
void stp_pc_text(const tpu_stepper *st, uint64_t pc, char *buf, size_t len)
{
    char lab[300] = "", insn[200];
    const tpu_obj_symbol *s = label_before(st, pc);
    if (s && s->value == pc)
        snprintf(lab, sizeof lab, " <%s>", s->name);
    else if (s)
        snprintf(lab, sizeof lab, " <%s+%" PRIu64 ">", s->name, pc - s->value);
    if (pc < st->o.obj->ntext)
        stp_insn_text(st, st->o.obj->text[pc], insn, sizeof insn);
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
    case TPU_UNIT_XLU: return TPU_U_XLU;
    case TPU_UNIT_MXU:
        return in.val[0] >= 0 && in.val[0] < TPU_MAX_MXUS
                   ? (enum tpu_unit_id)(TPU_U_MXU0 + in.val[0]) : TPU_U_SEQ;
    default: return TPU_U_SEQ;
    }
}

/* ---- events ---------------------------------------------------------------------- */

int stp_is_mxu(enum tpu_unit_id u)
{
    return u >= TPU_U_MXU0 && u <= TPU_U_MXU3;
}

void stp_on_event(void *ctx, const tpu_event *ev)
{
    tpu_stepper *st = ctx;
    if (ev->core >= st->ncores)
        return;
    core_track *t = &st->track[ev->core];
    char cp[32], text[300];
    stp_core_prefix(st, ev->core, cp, sizeof cp);

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
        if (stp_is_mxu(ev->unit)) {
            unsigned m = ev->unit - TPU_U_MXU0;
            if (t->stream[m].on && t->stream[m].pc == ev->pc)
                t->stream[m].on = 0;
        }
        return;
    case TPU_EV_MXU_TILE_START:
    case TPU_EV_MXU_TILE_END: {
        if (!stp_is_mxu(ev->unit))
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
        stp_insn_text(st, ev->word, text, sizeof text);
        for (size_t i = 0; i < st->nbp; i++) {
            breakpoint *b = &st->bp[i];
            if (b->kind != (start ? BP_MXU_START : BP_MXU_END) ||
                (b->value != ANY_MXU && b->value != m))
                continue;
            b->hits++;
            if (start)
                hit(st, "breakpoint %u: %smxu%u starts pc %" PRIu64 " (%s): %" PRIu64 " row%s\n",
                    b->id, cp, m, ev->pc, text, ev->len, stp_plural(ev->len));
            else
                hit(st, "breakpoint %u: %smxu%u writes the last row of pc %" PRIu64 " (%s)\n",
                    b->id, cp, m, ev->pc, text);
        }
        return;
    }
    case TPU_EV_DMA_DONE:
        stp_insn_text(st, ev->word, text, sizeof text);
        for (size_t i = 0; i < st->nbp; i++) {
            breakpoint *b = &st->bp[i];
            if (b->kind != BP_DMA_DONE)
                continue;
            b->hits++;
            hit(st, "breakpoint %u: %sDMA engine %u finished pc %" PRIu64 " (%s): %" PRIu64
                " byte%s to %s\n", b->id, cp, ev->index, ev->pc, text, ev->len, stp_plural(ev->len),
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
    if (tpu_system_subscribe(o->sys, mask, stp_on_event, st)) {
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
    if (o->check_races && stp_races_start(st)) {
        snprintf(err, errlen, "the model has no room for the race checker's event subscriber");
        tpu_stepper_destroy(st);
        return NULL;
    }
    return st;
}

/* A race seen in the cycle just stepped: a message that stops the run
 * like a breakpoint's, with the bytes of that cycle. */
static void on_race(void *ctx, const tpu_race *r)
{
    tpu_stepper *st = ctx;
    if (!st->races_on)
        return;
    char line[800];
    tpu_race_text(r, 0, st->ncores, line, sizeof line);
    hit(st, "%s\n", line);
}

/* `races on`: the checker from now on (it cannot be unsubscribed, so
 * `races off` only mutes it).  -1 when the system has no room for it. */
int stp_races_start(tpu_stepper *st)
{
    if (!st->races) {
        char err[160];
        st->races = tpu_races_create(st->sys, err, sizeof err);
        if (!st->races)
            return -1;
        tpu_races_set_sink(st->races, on_race, st);
    }
    st->races_on = 1;
    return 0;
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
    tpu_races_destroy(st->races);
    free(st);
}

/* ---- running ---------------------------------------------------------------------- */

/* Build the tpu-sim report of the cycles so far (stats: ncores entries). */
void stp_fill_report(tpu_stepper *st, tpu_report *rep, tpu_stats *stats, char *error,
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
        tpu_system_check(st->sys, st->o.obj, &rep->expect);
        rep->checked = 1;
    }
}

/* Once the run has ended: say how, check the results, set the status. */
void stp_report_end(tpu_stepper *st)
{
    if (st->state == TPU_RUNNING || st->ended_reported)
        return;
    st->ended_reported = 1;
    if (st->state != TPU_STOP_HALT) {
        stp_out(st, "the run stopped: %s\n", tpu_system_error(st->sys));
        st->status = 3;
        return;
    }
    tpu_stats *stats = calloc(st->ncores, sizeof *stats);
    if (!stats) {
        uint64_t cycles = tpu_system_cycle(st->sys);
        stp_out(st, "the program halted after %" PRIu64 " cycle%s (out of memory to check it)\n",
            cycles, stp_plural(cycles));
        st->status = 1;
        return;
    }
    tpu_report rep;
    char error[16], line[600];
    stp_fill_report(st, &rep, stats, error, sizeof error);
    tpu_report_result_line(&rep, line, sizeof line);
    uint64_t cycles = tpu_system_cycle(st->sys);
    stp_out(st, "the program halted after %" PRIu64 " cycle%s; result: %s\n", cycles,
        stp_plural(cycles), line);
    st->status = rep.expect.status == TPU_EXPECT_MISMATCH || rep.expect.status == TPU_EXPECT_ERROR;
    free(stats);
}

/* "mxu0 cell (2, 1)", with the core when there are several. */
void stp_cell_name(const tpu_stepper *st, const cell_trace *tr, char *buf, size_t len)
{
    char cp[32];
    snprintf(buf, len, "%smxu%u cell (%u, %u)", stp_core_prefix(st, tr->core, cp, sizeof cp),
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
    stp_cell_name(st, tr, name, sizeof name);
    tpu_fmt_bf16(v.weight, w, sizeof w);
    tpu_fmt_bf16(v.shadow, sh, sizeof sh);
    stp_out(st, "%s in cycle %" PRIu64 ": w %s  s %s", name, stp_current_cycle(st), w, sh);
    if (v.loading) {
        tpu_fmt_bf16(v.chain, a, sizeof a);
        stp_out(st, "  l %s", a);
    }
    if (!v.active) {
        stp_out(st, "  (no multiply-add)\n");
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
    stp_out(st, "  x %s  y %s -> %s  (LHS row %" PRId64 ")\n", a, yi, yo, v.row);
}

/* Before a cycle: the selected core's counters and the cells above the
 * traced ones, to compare with after it. */
static void before_step(tpu_stepper *st)
{
    tpu_system *s = st->sys;
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
}

/* After a cycle that returned r: the run's state, the counters, the traced
 * cells' lines and the pc and cycle breakpoints. */
static void after_step(tpu_stepper *st, enum tpu_stop r)
{
    tpu_system *s = st->sys;
    if (r != TPU_RUNNING && r != TPU_STOP_BREAK)
        st->state = r;
    tpu_core_stats(tpu_system_core(s, st->core), &st->cur);
    st->stats_valid = 1;
    for (unsigned i = 0; i < st->ntrace; i++)
        print_trace(st, &st->trace[i]);
    if (st->races)
        tpu_races_flush(st->races);     /* its races now, as breakpoint hits */

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
                stp_pc_text(st, v.pc, where, sizeof where);
                b->hits++;
                hit(st, "breakpoint %u: %sreached %s\n", b->id, stp_core_prefix(st, k, cp, sizeof cp),
                    where);
            }
        }
    }
}

/* One cycle of the system, breakpoints included.  Returns 1 if it ran. */
int stp_one_cycle(tpu_stepper *st)
{
    if (st->state != TPU_RUNNING)
        return 0;
    tpu_system *s = st->sys;
    if (st->o.max_cycles && tpu_system_cycle(s) >= st->o.max_cycles) {
        st->state = tpu_system_run(s, st->o.max_cycles);   /* formats the limit's error */
        return 0;
    }
    before_step(st);
    after_step(st, tpu_system_step(s));
    return 1;
}

void tpu_stepper_before_step(tpu_stepper *st)
{
    st->hits_len = 0;
    st->nhits = 0;
    before_step(st);
}

void tpu_stepper_after_step(tpu_stepper *st, enum tpu_stop r)
{
    after_step(st, r);
}

size_t tpu_stepper_hits(const tpu_stepper *st, const char **text)
{
    *text = st->hits;
    return st->hits_len;
}

int tpu_stepper_cycle(tpu_stepper *st)
{
    st->hits_len = 0;
    st->nhits = 0;
    stp_one_cycle(st);
    return st->state == TPU_RUNNING;
}
