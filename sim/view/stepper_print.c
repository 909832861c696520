/*
 * stepper_print.c - the stepper's views of the state: the status line,
 * `show units` and `show mxu` (stepper_impl.h).
 */
#include "stepper_impl.h"

/* ---- printing the state -------------------------------------------------------------- */

void tpu_stepper_print_status(tpu_stepper *st)
{
    char cp[32], where[300];
    stp_core_prefix(st, st->core, cp, sizeof cp);
    tpu_seq_view v;
    tpu_core_seq_view(tpu_system_core(st->sys, st->core), &v);
    uint64_t now = stp_current_cycle(st);
    if (now == UINT64_MAX) {
        stp_pc_text(st, v.pc, where, sizeof where);
        stp_out(st, "%sreset, no cycle has run yet: next %s\n", cp, where);
        return;
    }
    const core_track *t = &st->track[st->core];
    if (t->issue_cycle == now) {
        stp_pc_text(st, t->issue_pc, where, sizeof where);
        stp_out(st, "%scycle %" PRIu64 ": issued %s\n", cp, now, where);
    } else if (v.halted) {
        stp_out(st, "%scycle %" PRIu64 ": halted\n", cp, now);
    } else if (v.stall) {
        stp_pc_text(st, v.pc, where, sizeof where);
        stp_out(st, "%scycle %" PRIu64 ": stalled at %s (%s)\n", cp, now, where, v.stall);
    } else {
        stp_pc_text(st, v.pc, where, sizeof where);
        stp_out(st, "%scycle %" PRIu64 ": at %s\n", cp, now, where);
    }
}

/* "pc 7 mxu.mm 0, s3, ..." for a pending instruction. */
void stp_pending_text(const tpu_stepper *st, const pending *p, char *buf, size_t len)
{
    char insn[200];
    stp_insn_text(st, p->word, insn, sizeof insn);
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
    uint64_t now = stp_current_cycle(st);
    int fresh = st->stats_valid && now != UINT64_MAX;
    char cp[32];
    stp_core_prefix(st, st->core, cp, sizeof cp);
    if (now == UINT64_MAX)
        stp_out(st, "%sunits at reset (no cycle has run yet):\n", cp);
    else if (fresh)
        stp_out(st, "%sunits in cycle %" PRIu64 ":\n", cp, now);
    else    /* just switched cores: its stats are known from the next cycle */
        stp_out(st, "%sunits in cycle %" PRIu64 " (busy and stalled show from the next cycle of "
            "this core):\n", cp, now);
    for (unsigned u = 0; u < TPU_U_COUNT; u++) {
        if (stp_is_mxu((enum tpu_unit_id)u) && u - TPU_U_MXU0 >= cfg->num_mxu)
            continue;
        char state[64] = "idle", what[400] = "";
        const char *color = DIM;
        if (u == TPU_U_SEQ) {
            tpu_seq_view v;
            tpu_core_seq_view(tpu_system_core(st->sys, st->core), &v);
            if (now != UINT64_MAX && t->issue_cycle == now) {
                snprintf(state, sizeof state, "busy");
                char where[300];
                stp_pc_text(st, t->issue_pc, where, sizeof where);
                snprintf(what, sizeof what, "issued %s", where);
                color = GREEN;
            } else if (v.halted) {
                snprintf(state, sizeof state, "halted");
            } else if (now != UINT64_MAX && v.stall) {
                snprintf(state, sizeof state, "stalled");
                char where[300];
                stp_pc_text(st, v.pc, where, sizeof where);
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
            if (stp_is_mxu((enum tpu_unit_id)u) && t->stream[m].on) {
                char insn[200];
                stp_insn_text(st, t->stream[m].word, insn, sizeof insn);
                n += (size_t)snprintf(what + n, sizeof what - n,
                                      "streaming pc %" PRIu64 " %s: %" PRIu64
                                      " row%s from cycle %" PRIu64, t->stream[m].pc, insn,
                                      t->stream[m].rows, stp_plural(t->stream[m].rows),
                                      t->stream[m].start);
                size_t more = l->n ? l->n - 1 : 0;
                if (more && n < sizeof what)
                    snprintf(what + n, sizeof what - n, "; %zu more unfinished", more);
            } else if (l->n && n < sizeof what) {
                char p[300];
                stp_pending_text(st, &l->e[0], p, sizeof p);
                n += (size_t)snprintf(what + n, sizeof what - n, "%s", p);
                if (l->n > 1 && n < sizeof what)
                    snprintf(what + n, sizeof what - n, "; %zu more unfinished", l->n - 1);
            }
        }
        if (st->o.color)
            stp_out(st, "  %-5s %s%-8s" RESET "%s\n", tpu_unit_id_name((enum tpu_unit_id)u), color,
                state, what);
        else if (what[0])
            stp_out(st, "  %-5s %-8s%s\n", tpu_unit_id_name((enum tpu_unit_id)u), state, what);
        else
            stp_out(st, "  %-5s %s\n", tpu_unit_id_name((enum tpu_unit_id)u), state);
    }
}

/* The header and cells of `show mxu` for MXU m with the current window. */
void stp_print_mxu(tpu_stepper *st, unsigned m)
{
    unsigned n = (unsigned)st->o.cfg->mxu_n;
    const core_track *t = &st->track[st->core];
    uint64_t now = stp_current_cycle(st);
    char cp[32], when[64], win[96];
    stp_core_prefix(st, st->core, cp, sizeof cp);
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
    stp_out(st, "%smxu%u %s (%ux%u, %s)", cp, m, when, n, n, win);
    if (t->stream[m].on) {
        char insn[200];
        stp_insn_text(st, t->stream[m].word, insn, sizeof insn);
        stp_out(st, ": stream pc %" PRIu64 " (%s), %" PRIu64 " row%s from cycle %" PRIu64 "\n",
            t->stream[m].pc, insn, t->stream[m].rows, stp_plural(t->stream[m].rows),
            t->stream[m].start);
    } else {
        stp_out(st, "\n");
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
    stp_print_mxu(st, st->mxu);
}

void tpu_stepper_set_output(tpu_stepper *st, FILE *f)
{
    st->o.out = f;
}
