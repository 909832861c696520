/*
 * stepper_look.c - the stepper's commands that look: info, x, list, show,
 * view, trace and untrace, core, report (stepper_impl.h).
 */
#include "stepper_impl.h"

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
            stp_out(st, "%-4s %s\n", name, val);
        else
            stp_out(st, "%-4s %-14s  ", name, val);
    }
}

static void info_sems(tpu_stepper *st)
{
    tpu_seq_view v;
    tpu_core_seq_view(tpu_system_core(st->sys, st->core), &v);
    for (unsigned i = 0; i < TPU_NUM_SEMS; i += 8) {
        stp_out(st, "sem %2u-%-2u", i, i + 7);
        for (unsigned k = i; k < i + 8; k++)
            stp_out(st, " %6" PRIu32, v.sem[k]);
        stp_out(st, "\n");
    }
}

static int info_vreg(tpu_stepper *st, const char *arg)
{
    uint64_t r;
    if (!arg)
        return stp_fail(st, "usage: print vreg N");
    if (arg[0] == 'v')
        arg++;
    if (stp_parse_num(arg, &r) || r >= TPU_NUM_VREGS)
        return stp_fail(st, "vector registers are v0..v%d", TPU_NUM_VREGS - 1);
    unsigned s = (unsigned)st->o.cfg->vpu_sublanes, l = (unsigned)st->o.cfg->vpu_lanes;
    uint32_t *val = malloc((size_t)s * l * sizeof *val);
    if (!val)
        return stp_fail(st, "out of memory");
    tpu_core_vreg(tpu_system_core(st->sys, st->core), (unsigned)r, val);
    stp_out(st, "v%" PRIu64 " (%u x %u fp32):\n", r, s, l);
    for (unsigned i = 0; i < s; i++)
        for (unsigned j = 0; j < l; j += 8) {
            stp_out(st, "  [%u][%u..%u]", i, j, j + 7 < l ? j + 7 : l - 1);
            for (unsigned k = j; k < j + 8 && k < l; k++) {
                char t[32];
                tpu_fmt_f32(val[(size_t)i * l + k], t, sizeof t);
                stp_out(st, " %11s", t);
            }
            stp_out(st, "\n");
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
    if (stp_parse_place(st, argc, argv, &i, &space, &addr))
        return 0;
    if (i < argc && strcmp(argv[i], "as") && stp_parse_num(argv[i++], &n))
        return stp_fail(st, "%s", usage);
    if (i < argc) {
        if (strcmp(argv[i], "as") || i + 2 != argc)
            return stp_fail(st, "%s", usage);
        const char *f = argv[i + 1];
        if (!strcmp(f, "bf16"))
            fmt = BF16;
        else if (!strcmp(f, "f32") || !strcmp(f, "fp32"))
            fmt = F32;
        else if (strcmp(f, "hex"))
            return stp_fail(st, "print mem ... as bf16, f32 or hex, not '%s'", f);
    }
    unsigned esize = fmt == HEX ? 1 : fmt == BF16 ? 2 : 4;
    if (n == 0)
        n = fmt == HEX ? 64 : 16;
    if (n > 65536)
        return stp_fail(st, "at most 65536 elements at a time");
    uint64_t size = space == TPU_SPACE_HBM ? st->o.cfg->hbm_bytes : st->o.cfg->vmem_bytes;
    uint64_t bytes = n * esize;
    if (bytes > size - addr)
        return stp_fail(st, "%s 0x%" PRIx64 "..0x%" PRIx64 " is outside %s (0x%" PRIx64 " bytes)",
                    stp_space_name(space), addr, addr + bytes - 1, stp_space_name(space), size);
    uint8_t *buf = malloc(bytes);
    if (!buf)
        return stp_fail(st, "out of memory");
    if (tpu_mem_read(tpu_system_core(st->sys, st->core), (enum tpu_space)space, addr, buf,
                     bytes)) {
        free(buf);
        return stp_fail(st, "cannot read %s 0x%" PRIx64, stp_space_name(space), addr);
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
                stp_out(st, "%s%s 0x%06" PRIx64 ":", k ? "\n" : "", stp_space_name(space),
                    addr + k * esize);
            stp_out(st, " %*s", width, t);
        }
    stp_out(st, "\n");
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
                stp_out(st, "       %s:\n", st->code[i]->name);
        char insn[200];
        stp_insn_text(st, st->o.obj->text[pc], insn, sizeof insn);
        stp_out(st, "%s %4" PRIu64 "  %s\n", pc == v.pc ? "=>" : "  ", pc, insn);
    }
    if (v.pc >= ntext)
        stp_out(st, "=> %4" PRIu64 "  (past the end of the program)\n", v.pc);
}

static void info_labels(tpu_stepper *st)
{
    const tpu_object *o = st->o.obj;
    if (!o->nsyms)
        stp_out(st, "no labels in this object\n");
    for (size_t i = 0; i < st->ncode; i++)
        stp_out(st, "pc %-10" PRIu64 " %s\n", st->code[i]->value, st->code[i]->name);
    for (size_t i = 0; i < o->nsyms; i++)
        if (o->syms[i].space != TPU_SPACE_IMEM)
            stp_out(st, "%-4s 0x%-6" PRIx64 " %s\n", stp_space_name(o->syms[i].space), o->syms[i].value,
                o->syms[i].name);
}

static void info_queues(tpu_stepper *st)
{
    const core_track *t = &st->track[st->core];
    stp_out(st, "given to each unit and not finished, oldest first (queues hold %u):\n",
        (unsigned)st->o.cfg->seq_queue_depth);
    for (unsigned u = TPU_U_DMA; u < TPU_U_COUNT; u++) {
        if (stp_is_mxu((enum tpu_unit_id)u) && u - TPU_U_MXU0 >= st->o.cfg->num_mxu)
            continue;
        const pending_list *l = &t->unit[u];
        if (!l->n)
            stp_out(st, "  %-5s empty\n", tpu_unit_id_name((enum tpu_unit_id)u));
        for (size_t i = 0; i < l->n; i++) {
            char p[300];
            stp_pending_text(st, &l->e[i], p, sizeof p);
            stp_out(st, "  %-5s %s (issued in cycle %" PRIu64 ")\n",
                i ? "" : tpu_unit_id_name((enum tpu_unit_id)u), p, l->e[i].issued);
        }
    }
}

static void info_breakpoints(tpu_stepper *st)
{
    if (!st->nbp)
        stp_out(st, "no breakpoints or watchpoints\n");
    for (size_t i = 0; i < st->nbp; i++) {
        char text[400];
        stp_bp_text(st, &st->bp[i], text, sizeof text);
        stp_out(st, "%s  (hit %" PRIu64 " time%s)\n", text, st->bp[i].hits, stp_plural(st->bp[i].hits));
    }
}

int stp_cmd_info(tpu_stepper *st, int argc, char **argv)
{
    static const char usage[] =
        "usage: print regs | vreg N | sem | queues | mem [hbm|vmem] ADDR [N] [as bf16|f32|hex] | "
        "pc | labels | breakpoints";
    if (argc < 2)
        return stp_fail(st, "%s", usage);
    const char *w = argv[1];
    if (!strcmp(w, "regs") || !strcmp(w, "registers")) {
        if (argc != 2)
            return stp_fail(st, "%s", usage);
        info_regs(st);
    } else if (!strcmp(w, "vreg")) {
        if (argc != 3)
            return stp_fail(st, "usage: print vreg N");
        info_vreg(st, argv[2]);
    } else if (!strcmp(w, "sem") || !strcmp(w, "sems")) {
        if (argc != 2)
            return stp_fail(st, "%s", usage);
        info_sems(st);
    } else if (!strcmp(w, "queues")) {
        if (argc != 2)
            return stp_fail(st, "%s", usage);
        info_queues(st);
    } else if (!strcmp(w, "mem")) {
        info_mem(st, argc, argv, 2);
    } else if (!strcmp(w, "pc")) {
        if (argc != 2)
            return stp_fail(st, "%s", usage);
        info_pc(st);
    } else if (!strcmp(w, "labels")) {
        if (argc != 2)
            return stp_fail(st, "%s", usage);
        info_labels(st);
    } else if (!strcmp(w, "breakpoints") || !strcmp(w, "break")) {
        if (argc != 2)
            return stp_fail(st, "%s", usage);
        info_breakpoints(st);
    } else {
        return stp_fail(st, "unknown item '%s'; %s", w, usage);
    }
    return 0;
}

int stp_cmd_x(tpu_stepper *st, int argc, char **argv)
{
    return info_mem(st, argc, argv, 1);
}

int stp_cmd_list(tpu_stepper *st, int argc, char **argv)
{
    (void)argv;
    if (argc != 1)
        return stp_fail(st, "usage: list");
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
        stp_fail(st, "usage: %s [K] ROW COL", cmd);
        return -1;
    }
    for (int k = 0; k < nargs; k++)
        if (stp_parse_num(argv[i + k], &v[k + (nargs == 2)])) {
            stp_fail(st, "%s wants numbers, not '%s'", cmd, argv[i + k]);
            return -1;
        }
    if (v[0] >= nmxu) {
        stp_fail(st, "there %s %u MXU%s (0..%u), not %" PRIu64, nmxu == 1 ? "is" : "are", nmxu,
             stp_plural(nmxu), nmxu - 1, v[0]);
        return -1;
    }
    if (v[1] >= n || v[2] >= n) {
        stp_fail(st, "cell (%" PRIu64 ", %" PRIu64 ") is outside the %ux%u array: rows and columns "
             "are 0..%u", v[1], v[2], n, n, n - 1);
        return -1;
    }
    *mxu = (unsigned)v[0];
    *row = (unsigned)v[1];
    *col = (unsigned)v[2];
    return 0;
}

/* show links: every connected port of every core, what it is sending and
 * what is on its outgoing wire (the bytes in flight). */
static void stp_print_links(tpu_stepper *st)
{
    unsigned n = tpu_system_ncores(st->sys);
    int any = 0;
    stp_out(st, "ICI links in cycle %" PRIu64 " (a link: core.port -> core.port):\n",
            tpu_system_cycle(st->sys) ? tpu_system_cycle(st->sys) - 1 : 0);
    for (unsigned c = 0; c < n; c++)
        for (unsigned p = 0; p < 6; p++) {       /* TPU_NUM_PORTS */
            tpu_link_view v;
            if (tpu_system_link_view(st->sys, c, p, &v) || v.to < 0)
                continue;
            any = 1;
            char send[96] = "idle";
            if (v.sending)
                snprintf(send, sizeof send, "sending %" PRIu64 " bytes, %" PRIu64 " still to "
                         "leave", v.send_bytes, v.send_left);
            char wire[96] = "nothing on the wire";
            if (v.chunks)
                snprintf(wire, sizeof wire, "%" PRIu64 " bytes on the wire (they left in %" PRIu64
                         " cycle%s), the first land in cycle %" PRIu64, v.bytes, v.chunks,
                         v.chunks == 1 ? "" : "s", v.next_arrive);
            stp_out(st, "  %u.%u -> %d.%u  %s; %s\n", c, p, v.to, v.to_port, send, wire);
        }
    if (!any)
        stp_out(st, "  none: one core without neighbours (run with --cores K)\n");
}

/* show mxu [K] [window R C [ROWS COLS]] | show units | show cell [K] ROW COL | show links */
int stp_cmd_show(tpu_stepper *st, int argc, char **argv)
{
    static const char usage[] =
        "usage: show mxu [K] [window R C [ROWS COLS]] | show cell [K] ROW COL | show units | "
        "show links";
    unsigned nmxu = (unsigned)st->o.cfg->num_mxu, n = (unsigned)st->o.cfg->mxu_n;
    if (argc < 2)
        return stp_fail(st, "%s", usage);
    if (!strcmp(argv[1], "units")) {
        if (argc != 2)
            return stp_fail(st, "%s", usage);
        tpu_stepper_print_units(st);
        return 0;
    }
    if (!strcmp(argv[1], "links")) {
        if (argc != 2)
            return stp_fail(st, "%s", usage);
        stp_print_links(st);
        return 0;
    }
    if (!strcmp(argv[1], "mxu")) {
        int i = 2;
        unsigned m = st->mxu;
        uint64_t v[4];
        if (i < argc && strcmp(argv[i], "window")) {
            if (stp_parse_num(argv[i], &v[0]) || v[0] >= nmxu)
                return stp_fail(st, "there %s %u MXU%s (0..%u), not '%s'", nmxu == 1 ? "is" : "are",
                            nmxu, nmxu == 1 ? "" : "s", nmxu - 1, argv[i]);
            m = (unsigned)v[0];
            i++;
        }
        tpu_mxu_window w = st->win;
        if (i < argc) {
            if (strcmp(argv[i], "window") || (argc - i != 3 && argc - i != 5))
                return stp_fail(st, "%s", usage);
            for (int k = 0; k < argc - i - 1; k++)
                if (stp_parse_num(argv[i + 1 + k], &v[k]) || v[k] > 65535)
                    return stp_fail(st, "window wants cell numbers, not '%s'", argv[i + 1 + k]);
            if (v[0] >= n || v[1] >= n)
                return stp_fail(st, "the array is %ux%u: rows and columns 0..%u", n, n, n - 1);
            w.row = (unsigned)v[0];
            w.col = (unsigned)v[1];
            if (argc - i == 5) {
                if (!v[2] || !v[3])
                    return stp_fail(st, "a window has at least one row and one column");
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
        stp_print_mxu(st, m);
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
        stp_out(st, "mxu%u cell (%u, %u): weight %s (0x%04x), shadow %s (0x%04x)\n", km, kr, kc, a,
            c.weight, b, c.shadow);
        if (c.loading) {
            tpu_fmt_bf16(c.chain, ch, sizeof ch);
            stp_out(st, "  weight being loaded: %s (0x%04x), into the shadow at the end of this "
                "cycle\n", ch, c.chain);
        }
        if (c.active) {
            tpu_fmt_bf16(c.x, a, sizeof a);
            tpu_fmt_f32(c.psum, b, sizeof b);
            stp_out(st, "  multiply-add of LHS row %" PRId64 ": x %s (0x%04x), partial sum out %s "
                "(0x%08x)\n", c.row, a, c.x, b, c.psum);
        } else {
            stp_out(st, "  no multiply-add in this cycle\n");
        }
        return 0;
    }
    return stp_fail(st, "unknown item '%s'; %s", argv[1], usage);
}

/* view [compact|full]: how `show mxu` draws an array. */
int stp_cmd_view(tpu_stepper *st, int argc, char **argv)
{
    if (argc == 2 && !strcmp(argv[1], "compact"))
        st->compact = 1;
    else if (argc == 2 && !strcmp(argv[1], "full"))
        st->compact = 0;
    else if (argc != 1)
        return stp_fail(st, "usage: view [compact|full]");
    if (st->compact)
        stp_out(st, "view compact: show mxu draws a character per cell (or block of cells)\n");
    else
        stp_out(st, "view full: show mxu draws the numbers of the cells in its window\n");
    return 0;
}

static int same_cell(const cell_trace *a, const cell_trace *b)
{
    return a->core == b->core && a->mxu == b->mxu && a->row == b->row && a->col == b->col;
}

/* trace [cell [K] ROW COL]: print a line for the cell after every cycle. */
int stp_cmd_trace(tpu_stepper *st, int argc, char **argv)
{
    char name[64];
    if (argc == 1) {
        if (!st->ntrace)
            stp_out(st, "no cell traced\n");
        for (unsigned i = 0; i < st->ntrace; i++) {
            stp_cell_name(st, &st->trace[i], name, sizeof name);
            stp_out(st, "tracing %s\n", name);
        }
        return 0;
    }
    if (strcmp(argv[1], "cell"))
        return stp_fail(st, "usage: trace cell [K] ROW COL");
    cell_trace tr;
    memset(&tr, 0, sizeof tr);
    tr.core = st->core;
    if (parse_cell(st, argc, argv, 2, "trace cell", &tr.mxu, &tr.row, &tr.col))
        return 0;
    stp_cell_name(st, &tr, name, sizeof name);
    for (unsigned i = 0; i < st->ntrace; i++)
        if (same_cell(&st->trace[i], &tr))
            return stp_fail(st, "%s is traced already", name);
    if (st->ntrace == TRACE_MAX)
        return stp_fail(st, "at most %d cells traced at once (untrace one first)", TRACE_MAX);
    st->trace[st->ntrace++] = tr;
    stp_out(st, "tracing %s: w weight, s shadow, l arriving, x, y in -> out\n", name);
    return 0;
}

/* untrace [cell [K] ROW COL]: stop tracing that cell, or every cell. */
int stp_cmd_untrace(tpu_stepper *st, int argc, char **argv)
{
    char name[64];
    if (argc == 1) {
        if (!st->ntrace)
            return stp_fail(st, "no cell is traced");
        stp_out(st, "stopped tracing %u cell%s\n", st->ntrace, stp_plural(st->ntrace));
        st->ntrace = 0;
        return 0;
    }
    if (strcmp(argv[1], "cell"))
        return stp_fail(st, "usage: untrace [cell [K] ROW COL]");
    cell_trace tr;
    memset(&tr, 0, sizeof tr);
    tr.core = st->core;
    if (parse_cell(st, argc, argv, 2, "untrace cell", &tr.mxu, &tr.row, &tr.col))
        return 0;
    stp_cell_name(st, &tr, name, sizeof name);
    for (unsigned i = 0; i < st->ntrace; i++)
        if (same_cell(&st->trace[i], &tr)) {
            memmove(st->trace + i, st->trace + i + 1, (st->ntrace - i - 1) * sizeof tr);
            st->ntrace--;
            stp_out(st, "stopped tracing %s\n", name);
            return 0;
        }
    return stp_fail(st, "%s is not traced (try 'trace')", name);
}

int stp_cmd_core(tpu_stepper *st, int argc, char **argv)
{
    uint64_t k;
    if (argc == 1) {
        stp_out(st, "core %u of %u\n", st->core, st->ncores);
        return 0;
    }
    if (argc != 2 || stp_parse_num(argv[1], &k) || k >= st->ncores)
        return stp_fail(st, "usage: core N (0..%u)", st->ncores - 1);
    if (k != st->core)
        st->stats_valid = 0;      /* show units knows the new core from its next cycle */
    st->core = (unsigned)k;
    stp_out(st, "core %u\n", st->core);
    return 0;
}

int stp_cmd_report(tpu_stepper *st, int argc, char **argv)
{
    (void)argv;
    if (argc != 1)
        return stp_fail(st, "usage: report");
    tpu_stats *stats = calloc(st->ncores, sizeof *stats);
    if (!stats)
        return stp_fail(st, "out of memory");
    tpu_report rep;
    char error[600];
    stp_fill_report(st, &rep, stats, error, sizeof error);
    tpu_report_text(st->o.out, &rep);
    free(stats);
    return 0;
}
