/*
 * stepper_cmd.c - the stepper's command line: arguments, the commands that
 * run and set breakpoints, the command table, `help`, the loop
 * (stepper_impl.h).
 */
#include "stepper_impl.h"

/* ---- command arguments --------------------------------------------------------------- */

/* A whole number: decimal or 0x hex. */
int stp_parse_num(const char *s, uint64_t *v)
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
    if (stp_parse_num(s, v) == 0)
        return 0;
    const char *plus = strchr(s, '+');
    size_t len = plus ? (size_t)(plus - s) : strlen(s);
    const tpu_obj_symbol *sym = find_symbol(st, s, len);
    uint64_t off = 0;
    if (!sym || (plus && stp_parse_num(plus + 1, &off))) {
        stp_fail(st, "'%s' is not a number or a label (try 'info labels')", s);
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

const char *stp_space_name(uint8_t space)
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
        stp_out(st, "the program is not running (it %s after %" PRIu64 " cycle%s)\n",
            st->state == TPU_STOP_HALT ? "halted" : "stopped", cycles, stp_plural(cycles));
        return;
    }
    st->hits_len = 0;
    st->nhits = 0;
    for (uint64_t i = 0; mode != RUN_CYCLES || i < n; i++) {
        if (!stp_one_cycle(st))
            break;
        if (st->nhits || st->state != TPU_RUNNING)
            break;
        if (mode == RUN_NEXT && st->track[st->core].issue_cycle == stp_current_cycle(st))
            break;
        /* Ctrl-C: back to the prompt after this cycle, as gdb does (a
         * command runs at least one cycle, so a Ctrl-C always stops it
         * past where it started). */
        if (tpu_interrupted() && (mode != RUN_CYCLES || i + 1 < n)) {
            stp_out(st, "%sinterrupted at cycle %" PRIu64 "\n", st->o.prompt ? "\n" : "",
                stp_current_cycle(st));     /* on a terminal, after its "^C" */
            break;
        }
    }
    tpu_interrupt_clear();
    flush_hits(st);
    if (tpu_system_cycle(st->sys))
        tpu_stepper_print_status(st);
    stp_report_end(st);
}

static int cmd_step(tpu_stepper *st, int argc, char **argv)
{
    uint64_t n = 1;
    if (argc > 2)
        return stp_fail(st, "usage: step [N]");
    if (argc == 2 && (stp_parse_num(argv[1], &n) || n == 0))
        return stp_fail(st, "step wants a number of cycles (1 or more), not '%s'", argv[1]);
    run(st, RUN_CYCLES, n);
    return 0;
}

static int cmd_next(tpu_stepper *st, int argc, char **argv)
{
    (void)argv;
    if (argc > 1)
        return stp_fail(st, "usage: next (runs until the next instruction issues)");
    run(st, RUN_NEXT, 0);
    return 0;
}

static int cmd_continue(tpu_stepper *st, int argc, char **argv)
{
    (void)argv;
    if (argc > 1)
        return stp_fail(st, "usage: continue");
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

void stp_bp_text(const tpu_stepper *st, const breakpoint *b, char *buf, size_t len)
{
    char where[300];
    switch (b->kind) {
    case BP_PC:
        stp_pc_text(st, b->value, where, sizeof where);
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
                 b->id, stp_space_name(b->space), b->value, b->value + b->len - 1, b->len,
                 stp_plural(b->len));
        break;
    }
}

static int announce(tpu_stepper *st, breakpoint *b)
{
    if (!b)
        return stp_fail(st, "out of memory");
    char text[400];
    stp_bp_text(st, b, text, sizeof text);
    stp_out(st, "%s\n", text);
    return 0;
}

static int cmd_break(tpu_stepper *st, int argc, char **argv)
{
    static const char usage[] =
        "usage: break LABEL | pc N | cycle N | mxu-start [K] | mxu-end [K] | dma-done | sem N";
    if (argc < 2 || argc > 3)
        return stp_fail(st, "%s", usage);
    const char *what = argv[1];
    uint64_t v;
    if (!strcmp(what, "pc") || !strcmp(what, "cycle") || !strcmp(what, "sem")) {
        if (argc != 3)
            return stp_fail(st, "break %s wants a number", what);
        if (!strcmp(what, "pc")) {
            uint8_t space;
            if (parse_addr(st, argv[2], &v, &space))
                return 0;
            if (space != TPU_SPACE_NONE && space != TPU_SPACE_IMEM)
                return stp_fail(st, "'%s' is a %s label, not code (use watch)", argv[2],
                            stp_space_name(space));
            if (v >= st->o.obj->ntext)
                return stp_fail(st, "pc %" PRIu64 " is past the end of the program (%zu instructions)",
                            v, st->o.obj->ntext);
            return announce(st, new_bp(st, BP_PC, v));
        }
        if (stp_parse_num(argv[2], &v))
            return stp_fail(st, "break %s wants a number, not '%s'", what, argv[2]);
        if (!strcmp(what, "sem")) {
            if (v >= TPU_NUM_SEMS)
                return stp_fail(st, "there are %d semaphores (0..%d), not %" PRIu64, TPU_NUM_SEMS,
                            TPU_NUM_SEMS - 1, v);
            return announce(st, new_bp(st, BP_SEM, v));
        }
        uint64_t now = stp_current_cycle(st);
        if (now != UINT64_MAX && v <= now)
            stp_out(st, "note: cycle %" PRIu64 " has already run (the current cycle is %" PRIu64 ")\n",
                v, now);
        return announce(st, new_bp(st, BP_CYCLE, v));
    }
    if (!strcmp(what, "mxu-start") || !strcmp(what, "mxu-end")) {
        v = ANY_MXU;
        if (argc == 3 && (stp_parse_num(argv[2], &v) || v >= st->o.cfg->num_mxu))
            return stp_fail(st, "there %s %u MXU%s (0..%u), not '%s'",
                        st->o.cfg->num_mxu == 1 ? "is" : "are", (unsigned)st->o.cfg->num_mxu,
                        st->o.cfg->num_mxu == 1 ? "" : "s", (unsigned)st->o.cfg->num_mxu - 1,
                        argv[2]);
        return announce(st, new_bp(st, what[4] == 's' ? BP_MXU_START : BP_MXU_END, v));
    }
    if (!strcmp(what, "dma-done")) {
        if (argc != 2)
            return stp_fail(st, "%s", usage);
        return announce(st, new_bp(st, BP_DMA_DONE, 0));
    }
    if (argc != 2)
        return stp_fail(st, "%s", usage);
    uint8_t space;
    if (stp_parse_num(what, &v) == 0)
        return stp_fail(st, "a bare number is ambiguous: say 'break pc %s' or 'break cycle %s'", what,
                    what);
    const tpu_obj_symbol *sym = find_symbol(st, what, strlen(what));
    if (!sym)
        return stp_fail(st, "no label '%s' (try 'info labels'); %s", what, usage);
    if (parse_addr(st, what, &v, &space))
        return 0;
    if (space != TPU_SPACE_IMEM)
        return stp_fail(st, "'%s' is a %s label, not code (use watch)", what, stp_space_name(space));
    return announce(st, new_bp(st, BP_PC, v));
}

/* MEM_WRITE events are costly: ask for them with the first watchpoint. */
static int want_mem_writes(tpu_stepper *st)
{
    if (st->mem_subscribed)
        return 0;
    if (tpu_system_subscribe(st->sys, 1u << TPU_EV_MEM_WRITE, stp_on_event, st))
        return -1;
    st->mem_subscribed = 1;
    return 0;
}

/* "[hbm|vmem] ADDR": the space may be left out when ADDR is a data label. */
int stp_parse_place(tpu_stepper *st, int argc, char **argv, int *i, uint8_t *space,
                       uint64_t *addr)
{
    uint8_t given = TPU_SPACE_NONE, lab;
    if (*i < argc && parse_space(argv[*i], &given) == 0)
        (*i)++;
    if (*i >= argc) {
        stp_fail(st, "missing address");
        return -1;
    }
    const char *arg = argv[(*i)++];
    if (parse_addr(st, arg, addr, &lab))
        return -1;
    if (lab == TPU_SPACE_IMEM) {
        stp_fail(st, "'%s' is a code label, not data", arg);
        return -1;
    }
    if (given != TPU_SPACE_NONE && lab != TPU_SPACE_NONE && given != lab) {
        stp_fail(st, "'%s' is a %s label, not %s", arg, stp_space_name(lab), stp_space_name(given));
        return -1;
    }
    *space = given != TPU_SPACE_NONE ? given : lab;
    if (*space == TPU_SPACE_NONE) {
        stp_fail(st, "say which memory: hbm or vmem");
        return -1;
    }
    uint64_t size = *space == TPU_SPACE_HBM ? st->o.cfg->hbm_bytes : st->o.cfg->vmem_bytes;
    if (*addr >= size) {
        stp_fail(st, "%s address 0x%" PRIx64 " is outside %s (0x%" PRIx64 " bytes)",
             stp_space_name(*space), *addr, stp_space_name(*space), size);
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
        return stp_fail(st, "usage: watch [hbm|vmem] ADDR [LEN]");
    if (stp_parse_place(st, argc, argv, &i, &space, &addr))
        return 0;
    if (i < argc && (stp_parse_num(argv[i++], &len) || len == 0))
        return stp_fail(st, "watch wants a length in bytes (1 or more), not '%s'", argv[i - 1]);
    if (i != argc)
        return stp_fail(st, "usage: watch [hbm|vmem] ADDR [LEN]");
    uint64_t size = space == TPU_SPACE_HBM ? st->o.cfg->hbm_bytes : st->o.cfg->vmem_bytes;
    if (len > size - addr)
        len = size - addr;
    if (want_mem_writes(st))
        return stp_fail(st, "the model has no room for another event subscriber");
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
        stp_out(st, "deleted all breakpoints and watchpoints\n");
        return 0;
    }
    for (int a = 1; a < argc; a++) {
        uint64_t id;
        if (stp_parse_num(argv[a], &id))
            return stp_fail(st, "delete wants breakpoint numbers, not '%s'", argv[a]);
        size_t i = 0;
        while (i < st->nbp && st->bp[i].id != id)
            i++;
        if (i == st->nbp)
            return stp_fail(st, "no breakpoint %" PRIu64 " (try 'info breakpoints')", id);
        memmove(st->bp + i, st->bp + i + 1, (st->nbp - i - 1) * sizeof *st->bp);
        st->nbp--;
        stp_out(st, "deleted %" PRIu64 "\n", id);
    }
    return 0;
}


/* ---- the command table ------------------------------------------------------------------------ */

typedef struct command {
    const char *name, *alias;
    int (*fn)(tpu_stepper *st, int argc, char **argv);
    const char *args, *help;
} command;

/* `races on|off`, or `races`: the races found so far. */
static int cmd_races(tpu_stepper *st, int argc, char **argv)
{
    if (argc > 2 || (argc == 2 && strcmp(argv[1], "on") && strcmp(argv[1], "off")))
        return stp_fail(st, "usage: races [on|off]");
    if (argc == 2 && !strcmp(argv[1], "on")) {
        int fresh = !st->races;
        if (stp_races_start(st))
            return stp_fail(st, "the model has no room for another event subscriber");
        uint64_t now = tpu_system_cycle(st->sys);
        if (fresh && now)
            stp_out(st, "checking races of the instructions issued from cycle %" PRIu64
                    " on\n", now);
        else
            stp_out(st, "checking races\n");
        return 0;
    }
    if (argc == 2) {
        st->races_on = 0;
        stp_out(st, "not reporting races%s\n", st->races ? " (still counted: 'races')" : "");
        return 0;
    }
    if (!st->races)
        return stp_fail(st, "the race checker is off (races on)");
    size_t n = tpu_races_count(st->races);
    for (size_t i = 0; i < n; i++) {
        char line[800];
        tpu_race_text(tpu_races_get(st->races, i), 1, st->ncores, line, sizeof line);
        stp_out(st, "%s\n", line);
    }
    uint64_t more = tpu_races_dropped(st->races);
    if (!n)
        stp_out(st, "races: none so far%s\n", st->races_on ? "" : " (not reporting: races on)");
    else
        stp_out(st, "races: %zu%s%s\n", n, more ? " shown, more not kept" : "",
                st->races_on ? "" : " (not reporting: races on)");
    return 0;
}

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
    { "info", "i", stp_cmd_info, "regs|vreg N|sem|queues|mem ...|pc|labels|breakpoints",
      "print state (same as print)" },
    { "print", "p", stp_cmd_info, "(as info)", "print state" },
    { "x", NULL, stp_cmd_x, "[hbm|vmem] ADDR [N] [as bf16|f32|hex]", "print memory (print mem)" },
    { "list", "l", stp_cmd_list, "", "the instructions around pc" },
    { "show", "sh", stp_cmd_show, "mxu [K] [window R C [ROWS COLS]]|cell [K] R C|units|links",
      "draw the MXU cells, one cell, the units" },
    { "view", NULL, stp_cmd_view, "[compact|full]",
      "show mxu: a character per cell, or the numbers through a window" },
    { "trace", NULL, stp_cmd_trace, "[cell [K] R C]",
      "print the cell's weights, x and partial sums after every cycle (list without cell)" },
    { "untrace", NULL, stp_cmd_untrace, "[cell [K] R C]", "stop tracing the cell (all without cell)" },
    { "core", NULL, stp_cmd_core, "[N]", "the core the views show (several cores)" },
    { "report", NULL, stp_cmd_report, "", "tpu-sim's report of the cycles so far" },
    { "races", NULL, cmd_races, "[on|off]",
      "report VMEM races as they happen, stopping like a breakpoint (list them without on|off)" },
    { "help", "h", cmd_help, "", "this list" },
    { "quit", "q", cmd_quit, "", "leave (also at the end of the input)" },
};

static int cmd_help(tpu_stepper *st, int argc, char **argv)
{
    (void)argc;
    (void)argv;
    stp_out(st, "commands (alias in parentheses):\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        const command *c = &commands[i];
        char head[160];
        snprintf(head, sizeof head, "%s%s%s%s%s%s", c->name, c->alias ? " (" : "",
                 c->alias ? c->alias : "", c->alias ? ")" : "", c->args[0] ? " " : "", c->args);
        stp_out(st, "  %s\n      %s\n", head, c->help);
    }
    stp_out(st, "Ctrl-C stops step, next and continue after the cycle it is in.\n");
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
            return stp_fail(st, "too many words (at most %d)", MAX_ARGS);
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
    return stp_fail(st, "unknown command '%s' (try 'help')", argv[0]);
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
            stp_fail(st, "command too long (at most %d characters)", MAX_LINE - 2);
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
    if (st->races && tpu_races_count(st->races))
        return 4;
    if (st->state == TPU_STOP_HALT)
        return st->ended_reported ? st->status : 0;
    return 0;
}
