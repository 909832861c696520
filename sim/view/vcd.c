/*
 * vcd.c - the VCD writer behind `tpu-sim --vcd` (vcd.h gives the names
 * and the timing convention).
 *
 * Every signal is one entry of a table: what it shows (kind and index),
 * whether it is a register (its value at the start of a cycle, read from
 * probe.h after each step) or a per-cycle output (collected from the
 * event stream during the step), and its last written value.  After each
 * step the writer emits the per-cycle outputs of the cycle just computed,
 * the falling clock edge, the rising edge of the next cycle and the
 * registers that changed.
 */
#include "vcd.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe.h"

/* What a signal shows. */
enum sig_kind {
    /* registers (and what the RTL derives from them combinationally) */
    K_PC, K_WORD, K_HALTED, K_UNIT_BUSY, K_SEM, K_Q_DMA, K_Q_ICI, K_Q_VPU, K_Q_MXU,
    K_DMA_BUSY, K_DMA_STATE, K_DMA_LEFT,
    K_MXU_BUSY, K_MXU_LW, K_MXU_STREAMING, K_MXU_PENDING, K_MXU_LEFT,
    K_VPU_BUSY, K_ICI_BUSY, K_ICI_SENDING,
    K_REGS_END,
    /* per-cycle outputs */
    K_ISSUE = K_REGS_END, K_STALL_SEQ, K_ERROR, K_STUCK, K_DMA_POP, K_MXU_WE, K_VPU_POP,
    K_UNIT_STALL,
};

typedef struct sig {
    uint8_t kind, arg;      /* enum sig_kind; engine, MXU, semaphore or unit number */
    unsigned core;
    unsigned width;
    char id[6];
    uint64_t val;
} sig;

/* Per core: the per-cycle outputs of the cycle being computed. */
typedef struct core_now {
    uint8_t issue, error;
    uint8_t stall[TPU_U_COUNT];     /* reason + 1 */
    uint8_t mxu_we[4];
    uint8_t dma_pop, vpu_pop;
    uint8_t dma_was_busy[TPU_PROBE_MAX_DMA];
    uint64_t vpu_ops;
} core_now;

struct tpu_vcd {
    FILE *f;
    tpu_system *sys;
    const tpu_config *cfg;
    unsigned ncores;
    sig *sigs;
    size_t nsigs, cap;
    core_now *now;
    char clk_id[6];
    uint64_t max_cycles;
    int closed, truncated, oom;
    unsigned depth;         /* scope nesting while writing the header */
    char path[1024];        /* for messages */
};

/* ---- the header ------------------------------------------------------------ */

/* The identifier code of signal number i: base-94 in '!'..'~'. */
static void make_id(size_t i, char *id)
{
    int n = 0;
    do {
        id[n++] = (char)('!' + i % 94);
        i /= 94;
    } while (i && n < 5);
    id[n] = 0;
}

static void indent(tpu_vcd *v)
{
    for (unsigned i = 0; i < v->depth; i++)
        fputc(' ', v->f);
}

static void scope(tpu_vcd *v, const char *name)
{
    indent(v);
    fprintf(v->f, "$scope module %s $end\n", name);
    v->depth++;
}

static void upscope(tpu_vcd *v)
{
    v->depth--;
    indent(v);
    fputs("$upscope $end\n", v->f);
}

/* Declare a signal called `name` (with an index "[i]" when idx >= 0). */
static void var(tpu_vcd *v, unsigned core, enum sig_kind kind, unsigned arg, unsigned width,
                const char *name, int idx)
{
    if (v->nsigs == v->cap) {
        size_t cap = v->cap ? 2 * v->cap : 256;
        sig *n = realloc(v->sigs, cap * sizeof *n);
        if (!n) {
            v->oom = 1;
            return;
        }
        v->sigs = n;
        v->cap = cap;
    }
    sig *s = &v->sigs[v->nsigs];
    memset(s, 0, sizeof *s);
    s->kind = (uint8_t)kind;
    s->arg = (uint8_t)arg;
    s->core = core;
    s->width = width;
    make_id(v->nsigs + 1, s->id);       /* id 0 is the clock */
    v->nsigs++;
    indent(v);
    fprintf(v->f, "$var wire %u %s %s", width, s->id, name);
    if (idx >= 0)
        fprintf(v->f, "[%d]", idx);
    if (width > 1)
        fprintf(v->f, " [%u:0]", width - 1);
    fputs(" $end\n", v->f);
}

static void clock_var(tpu_vcd *v)
{
    indent(v);
    fprintf(v->f, "$var wire 1 %s clk_i $end\n", v->clk_id);
}

static unsigned clog2(uint64_t x)
{
    unsigned n = 0;
    while ((1ull << n) < x)
        n++;
    return n ? n : 1;
}

/* The scopes and signals of one core, as rtl/core.v names them. */
static void declare_core(tpu_vcd *v, unsigned c)
{
    const tpu_config *cfg = v->cfg;
    unsigned qw = clog2(cfg->seq_queue_depth + 1);
    char name[32];
    clock_var(v);
    var(v, c, K_ISSUE, 0, 1, "tr_issue_o", -1);
    var(v, c, K_PC, 0, 64, "tr_pc_o", -1);
    var(v, c, K_WORD, 0, 64, "tr_word_o", -1);
    var(v, c, K_STALL_SEQ, 0, 3, "tr_stall_o", -1);
    var(v, c, K_UNIT_BUSY, 0, 7, "unit_busy", -1);
    var(v, c, K_HALTED, 0, 1, "halted_o", -1);
    var(v, c, K_ERROR, 0, 1, "error_o", -1);
    var(v, c, K_STUCK, 0, 1, "stuck_o", -1);

    scope(v, "u_seq");
    var(v, c, K_PC, 0, 64, "pc_q", -1);
    var(v, c, K_HALTED, 0, 1, "halted_q", -1);
    var(v, c, K_ISSUE, 0, 1, "issue", -1);
    for (unsigned i = 0; i < 32; i++)
        var(v, c, K_SEM, i, 32, "sem_q", (int)i);
    scope(v, "u_q_dma");
    var(v, c, K_Q_DMA, 0, qw, "count_q", -1);
    upscope(v);
    scope(v, "u_q_ici");
    var(v, c, K_Q_ICI, 0, qw, "count_q", -1);
    upscope(v);
    scope(v, "u_q_vpu");
    var(v, c, K_Q_VPU, 0, qw, "count_q", -1);
    upscope(v);
    for (unsigned m = 0; m < cfg->num_mxu && m < 4; m++) {
        snprintf(name, sizeof name, "g_mxu_q[%u]", m);
        scope(v, name);
        scope(v, "g_used");
        scope(v, "u_q_mxu");
        var(v, c, K_Q_MXU, m, qw, "count_q", -1);
        upscope(v);
        upscope(v);
        upscope(v);
    }
    upscope(v);

    scope(v, "u_dma");
    var(v, c, K_DMA_BUSY, 0, 1, "busy_o", -1);
    var(v, c, K_DMA_POP, 0, 1, "pop_o", -1);
    for (unsigned e = 0; e < cfg->dma_engines && e < TPU_PROBE_MAX_DMA; e++)
        var(v, c, K_DMA_STATE, e, 2, "state_q", (int)e);
    for (unsigned e = 0; e < cfg->dma_engines && e < TPU_PROBE_MAX_DMA; e++)
        var(v, c, K_DMA_LEFT, e, 64, "left_q", (int)e);
    upscope(v);

    for (unsigned m = 0; m < cfg->num_mxu && m < 4; m++) {
        snprintf(name, sizeof name, "g_mxu[%u]", m);
        scope(v, name);
        scope(v, "u_mxu");
        var(v, c, K_MXU_BUSY, m, 1, "busy_o", -1);
        var(v, c, K_MXU_LW, m, cfg->mxu_wloads < 64 ? (unsigned)cfg->mxu_wloads : 64,
            "lw_reading_q", -1);
        var(v, c, K_MXU_STREAMING, m, 1, "streaming_q", -1);
        var(v, c, K_MXU_PENDING, m, 1, "pending_q", -1);
        var(v, c, K_MXU_LEFT, m, 64, "s_left_q", -1);
        var(v, c, K_MXU_WE, m, 1, "we_o", -1);
        upscope(v);
        upscope(v);
    }

    scope(v, "u_vpu");
    var(v, c, K_VPU_BUSY, 0, 1, "busy_o", -1);
    var(v, c, K_VPU_POP, 0, 1, "pop_o", -1);
    upscope(v);
    scope(v, "u_ici");
    var(v, c, K_ICI_BUSY, 0, 1, "busy_o", -1);
    var(v, c, K_ICI_SENDING, 0, 4, "sending_q", -1);
    upscope(v);

    scope(v, "cmodel");             /* not in the RTL */
    for (unsigned u = 0; u < TPU_U_COUNT; u++) {
        if (u >= TPU_U_MXU0 && u <= TPU_U_MXU3 && u - TPU_U_MXU0 >= cfg->num_mxu)
            continue;
        snprintf(name, sizeof name, "%s_stall", tpu_unit_id_name((enum tpu_unit_id)u));
        var(v, c, K_UNIT_STALL, u, 3, name, -1);
    }
    upscope(v);
}

/* ---- values ------------------------------------------------------------------- */

/* The value of a register signal from the probe of its core. */
static uint64_t reg_value(const sig *s, const tpu_probe *p)
{
    switch (s->kind) {
    case K_PC:           return p->pc;
    case K_WORD:         return p->word;
    case K_HALTED:       return p->halted;
    case K_UNIT_BUSY:    return p->unit_busy;
    case K_SEM:          return p->sem[s->arg & 31];
    case K_Q_DMA:        return p->q_dma;
    case K_Q_ICI:        return p->q_ici;
    case K_Q_VPU:        return p->q_vpu;
    case K_Q_MXU:        return p->q_mxu[s->arg & 3];
    case K_DMA_BUSY:     return (p->unit_busy >> 5) & 1;
    case K_DMA_STATE:    return s->arg < p->ndma ? p->dma[s->arg].state : 0;
    case K_DMA_LEFT:     return s->arg < p->ndma ? p->dma[s->arg].left : 0;
    case K_MXU_BUSY:     return p->mxu[s->arg & 3].busy;
    case K_MXU_LW:       return p->mxu[s->arg & 3].lw_reading;
    case K_MXU_STREAMING:return p->mxu[s->arg & 3].streaming;
    case K_MXU_PENDING:  return p->mxu[s->arg & 3].pending;
    case K_MXU_LEFT:     return p->mxu[s->arg & 3].rows_left;
    case K_VPU_BUSY:     return p->vpu_busy;
    case K_ICI_BUSY:     return (p->unit_busy >> 6) & 1;
    case K_ICI_SENDING:  return p->ici_sending;
    default:             return 0;
    }
}

/* The value of a per-cycle output from what the core did this cycle. */
static uint64_t now_value(const sig *s, const core_now *n)
{
    switch (s->kind) {
    case K_ISSUE:      return n->issue;
    case K_STALL_SEQ:  return n->stall[TPU_U_SEQ];
    case K_ERROR:      return n->error;
    case K_STUCK:      return 0;     /* filled from the probe by the caller */
    case K_DMA_POP:    return n->dma_pop;
    case K_MXU_WE:     return n->mxu_we[s->arg & 3];
    case K_VPU_POP:    return n->vpu_pop;
    case K_UNIT_STALL: return s->arg < TPU_U_COUNT ? n->stall[s->arg] : 0;
    default:           return 0;
    }
}

static void put_value(tpu_vcd *v, const sig *s, uint64_t val)
{
    if (s->width == 1) {
        fprintf(v->f, "%c%s\n", val ? '1' : '0', s->id);
        return;
    }
    char bits[65];
    int n = 0;
    for (int b = (int)s->width - 1; b >= 0; b--)
        if (n || ((val >> b) & 1) || b == 0)
            bits[n++] = (char)('0' + ((val >> b) & 1));
    bits[n] = 0;
    fprintf(v->f, "b%s %s\n", bits, s->id);
}

/* Write the signals of one group (registers or per-cycle outputs) whose
 * value changed; `all` writes every one (the initial $dumpvars). */
static void write_group(tpu_vcd *v, int regs, int all)
{
    uint64_t cycle = tpu_system_cycle(v->sys);
    tpu_probe p;
    unsigned probed = (unsigned)-1;
    for (size_t i = 0; i < v->nsigs; i++) {
        sig *s = &v->sigs[i];
        int is_reg = s->kind < K_REGS_END;
        if (is_reg != regs)
            continue;
        uint64_t val;
        if (regs || s->kind == K_STUCK) {
            if (probed != s->core) {
                tpu_probe_core(tpu_system_core(v->sys, s->core), cycle, &p);
                probed = s->core;
            }
            val = regs ? reg_value(s, &p) : p.stuck;
        } else {
            val = now_value(s, &v->now[s->core]);
        }
        if (s->width < 64)
            val &= (1ull << s->width) - 1;
        if (all || val != s->val) {
            s->val = val;
            put_value(v, s, val);
        }
    }
}

/* ---- events -------------------------------------------------------------------- */

static void on_event(void *ctx, const tpu_event *ev)
{
    tpu_vcd *v = ctx;
    if (v->closed || ev->core >= v->ncores)
        return;
    core_now *n = &v->now[ev->core];
    switch (ev->kind) {
    case TPU_EV_ISSUE:
        n->issue = 1;
        break;
    case TPU_EV_STALL:
        if (ev->unit < TPU_U_COUNT)
            n->stall[ev->unit] = (uint8_t)(ev->index + 1 > 7 ? 7 : ev->index + 1);
        break;
    case TPU_EV_MXU_ROW_OUT:
        if (ev->unit >= TPU_U_MXU0 && ev->unit <= TPU_U_MXU3)
            n->mxu_we[ev->unit - TPU_U_MXU0] = 1;
        break;
    case TPU_EV_ERROR:
        n->error = 1;
        break;
    default:
        break;
    }
}

/* ---- per cycle ----------------------------------------------------------------- */

/* DMA starts and VPU issues of the cycle just computed, from the engines'
 * registers before and after it. */
static void derive_pops(tpu_vcd *v, uint64_t cycle)
{
    for (unsigned c = 0; c < v->ncores; c++) {
        tpu_probe p;
        tpu_probe_core(tpu_system_core(v->sys, c), cycle, &p);
        core_now *n = &v->now[c];
        n->dma_pop = 0;
        for (unsigned e = 0; e < p.ndma; e++) {
            uint8_t busy = p.dma[e].state != TPU_PROBE_DMA_IDLE;
            if (busy && !n->dma_was_busy[e])
                n->dma_pop = 1;
            n->dma_was_busy[e] = busy;
        }
        n->vpu_pop = p.vpu_ops != n->vpu_ops;
        n->vpu_ops = p.vpu_ops;
        if (p.error)
            n->error = 1;
    }
}

void tpu_vcd_cycle(tpu_vcd *v)
{
    if (v->closed || v->truncated)
        return;
    uint64_t cycle = tpu_system_cycle(v->sys);     /* the cycle just computed is cycle - 1 */
    if (cycle == 0)
        return;
    if (cycle > v->max_cycles) {
        fprintf(v->f, "$comment dump stopped after %" PRIu64 " cycles (max_cycles) $end\n",
                v->max_cycles);
        v->truncated = 1;
        return;
    }
    derive_pops(v, cycle);
    write_group(v, 0, 0);                            /* what happened in cycle - 1 */
    fprintf(v->f, "#%" PRIu64 "\n0%s\n", 10 * (cycle - 1) + 5, v->clk_id);
    fprintf(v->f, "#%" PRIu64 "\n1%s\n", 10 * cycle, v->clk_id);
    write_group(v, 1, 0);                            /* registers at the start of cycle */
    for (unsigned c = 0; c < v->ncores; c++) {       /* the next cycle's outputs start at 0 */
        core_now *n = &v->now[c];
        n->issue = 0;
        memset(n->stall, 0, sizeof n->stall);
        memset(n->mxu_we, 0, sizeof n->mxu_we);
    }
}

/* ---- open and close ------------------------------------------------------------ */

static void free_vcd(tpu_vcd *v)
{
    if (v->f)
        fclose(v->f);
    free(v->sigs);
    free(v->now);
    free(v);
}

tpu_vcd *tpu_vcd_open(const char *path, tpu_system *s, const tpu_vcd_opts *opts, char *err,
                      size_t errlen)
{
    tpu_vcd *v = calloc(1, sizeof *v);
    unsigned ncores = tpu_system_ncores(s);
    if (!v || !(v->now = calloc(ncores ? ncores : 1, sizeof *v->now))) {
        snprintf(err, errlen, "out of memory");
        free(v);
        return NULL;
    }
    v->sys = s;
    v->cfg = tpu_system_config(s);
    v->ncores = ncores;
    v->max_cycles = opts && opts->max_cycles ? opts->max_cycles : TPU_VCD_DEFAULT_MAX_CYCLES;
    make_id(0, v->clk_id);
    snprintf(v->path, sizeof v->path, "%s", path);
    v->f = fopen(path, "w");
    if (!v->f) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        free_vcd(v);
        return NULL;
    }
    fprintf(v->f, "$version tpu-sim (C model) $end\n$comment config %s; 10 time units per cycle, "
            "cycle t starts at 10t $end\n$timescale 1ns $end\n", v->cfg->name);
    scope(v, "TOP");
    clock_var(v);
    if (ncores == 1) {
        scope(v, "core");
        declare_core(v, 0);
        upscope(v);
    } else {
        scope(v, "system");
        clock_var(v);
        for (unsigned c = 0; c < ncores; c++) {
            char name[32];
            snprintf(name, sizeof name, "g_core[%u]", c);
            scope(v, name);
            scope(v, "u_core");
            declare_core(v, c);
            upscope(v);
            upscope(v);
        }
        upscope(v);
    }
    upscope(v);
    fputs("$enddefinitions $end\n", v->f);
    if (v->oom) {
        snprintf(err, errlen, "out of memory");
        free_vcd(v);
        return NULL;
    }
    uint64_t cycle = tpu_system_cycle(s);
    for (unsigned c = 0; c < ncores; c++) {
        tpu_probe p;
        tpu_probe_core(tpu_system_core(s, c), cycle, &p);
        for (unsigned e = 0; e < p.ndma; e++)
            v->now[c].dma_was_busy[e] = p.dma[e].state != TPU_PROBE_DMA_IDLE;
        v->now[c].vpu_ops = p.vpu_ops;
    }
    fprintf(v->f, "#%" PRIu64 "\n$dumpvars\n1%s\n", 10 * cycle, v->clk_id);
    write_group(v, 1, 1);
    write_group(v, 0, 1);
    fputs("$end\n", v->f);
    uint32_t mask = (1u << TPU_EV_ISSUE) | (1u << TPU_EV_STALL) | (1u << TPU_EV_MXU_ROW_OUT)
                  | (1u << TPU_EV_ERROR);
    if (tpu_system_subscribe(s, mask, on_event, v)) {
        snprintf(err, errlen, "too many event subscribers");
        free_vcd(v);
        return NULL;
    }
    return v;
}

int tpu_vcd_close(tpu_vcd *v, char *err, size_t errlen)
{
    if (v->closed)
        return 0;
    v->closed = 1;
    if (!v->truncated)          /* the end of time: the last cycle's falling edge */
        fprintf(v->f, "#%" PRIu64 "\n0%s\n", 10 * tpu_system_cycle(v->sys) + 5, v->clk_id);
    int bad = ferror(v->f);
    if (fclose(v->f))
        bad = 1;
    v->f = NULL;
    if (bad) {
        snprintf(err, errlen, "%s: writing the VCD failed", v->path);
        return -1;
    }
    return 0;
}

int tpu_vcd_truncated(const tpu_vcd *v)
{
    return v->truncated;
}

void tpu_vcd_free(tpu_vcd *v)
{
    if (v)
        free_vcd(v);
}
