/*
 * timeline.c - the Chrome trace-event writer behind `tpu-sim --timeline`
 * (timeline.h says what the file holds).
 *
 * Where each slice comes from:
 *   seq          ISSUE: one cycle per instruction; STALL runs of one
 *                reason ("sem.wait", "queue full: mxu0") in between.
 *   dma engine e DMA_DONE ends a transfer; its start and the end of its
 *                HBM latency come from the engine's registers, sampled
 *                every cycle (probe.h): a parent slice with two children,
 *                "latency" and "transfer".
 *   mxuM weights RETIRE of an mxu.lw comes at l + 2N - 1 (T20): the load
 *                read its rows in [l, l + N).  With mxu_wloads W > 1 up to
 *                W loads overlap: each goes on the lowest of W tracks that
 *                is free at l ("mxuM weights", "mxuM weights 1", ...), as
 *                the MXU takes the lowest free load slot (T19).
 *   mxuM stream  MXU_TILE_START at s: its rows enter in [s, s + rows).
 *   vpu          RETIRE: a vst retires in its issue cycle, anything else
 *                vpu_latency - 1 cycles after it (T27), a vexp, vrcp or vrsqrt
 *                TPU_TR_STEPS more (T27a): one cycle at issue.
 *   xlu          RETIRE at the write-back cycle w of an XLU instruction: it
 *                ran in [w + 1 - X, w], X = 2 + its tree levels (T34).
 *   ici port p   ICI_SEND ends a send; its start is sampled like a DMA's.
 *   stall: unit  STALL runs of the other units.
 * Counters come from tpu_core_stats every K cycles.
 */
#include "timeline.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "isa.h"
#include "probe.h"
#include "fp.h"                 /* TPU_TR_STEPS, tpu_xlu_levels */

/* Track ids (Chrome "tid") inside a core's process. */
enum {
    TID_SEQ = 1,
    TID_DMA = 10,           /* + engine (< 16) */
    TID_MXU = 30,           /* + 2m: weights, + 2m + 1: stream */
    TID_VPU = 40,
    TID_XLU = 45,
    TID_ICI = 50,           /* + port */
    TID_STALL = 60,         /* + unit (not the sequencer: its stalls are on its track) */
    TID_MXU_SLOT = 1000,    /* + 256m + j: load slot j > 0 of MXU m (slot 0: TID_MXU + 2m) */
};

#define MAX_WLOADS 256      /* mxu_wloads <= mxu_n <= 256 (config.def) */

#define STALL_TEXT 96

/* A run of stall cycles of one unit with one reason. */
typedef struct stall_run {
    int active;
    uint64_t start, last;
    char text[STALL_TEXT];
} stall_run;

/* A transfer seen starting on a DMA engine or an ICI port. */
typedef struct open_xfer {
    int active;
    uint64_t start, xfer_at;
    uint8_t sampled_state;  /* the state at the last sample (busy or not) */
} open_xfer;

typedef struct core_track {
    stall_run stall[TPU_U_COUNT];
    open_xfer dma[TPU_PROBE_MAX_DMA];
    open_xfer port[TPU_NUM_PORTS];
    uint64_t wfree[4][MAX_WLOADS];  /* cycle from which a weights track is free */
    uint8_t connected[TPU_NUM_PORTS];
    uint64_t hbm, vmem, macs;       /* totals at the last counter sample (macs: cell-cycles) */
} core_track;

struct tpu_timeline {
    FILE *f;
    tpu_system *sys;
    const tpu_config *cfg;
    unsigned ncores;
    core_track *core;
    int closed;
    int first;                      /* no comma before the next event */
    uint64_t slices, max_slices;
    int truncated;
    uint64_t every, max_samples, samples_at_every, last_sample;
    char path[1024];                /* for messages */
};

/* Weight-load tracks per MXU: one per load slot (mxu_wloads). */
static unsigned weight_tracks(const tpu_timeline *t)
{
    uint64_t w = t->cfg->mxu_wloads;
    return w < 1 ? 1 : w > MAX_WLOADS ? MAX_WLOADS : (unsigned)w;
}

/* ---- writing -------------------------------------------------------------- */

static void json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(f, "\\%c", *p);
        else if (*p < 0x20 || *p >= 0x7f)
            fprintf(f, "\\u%04x", *p);
        else
            fputc(*p, f);
    }
    fputc('"', f);
}

static void begin_event(tpu_timeline *t)
{
    fputs(t->first ? "\n" : ",\n", t->f);
    t->first = 0;
}

/* One complete slice; `args` is the inside of a JSON object or NULL. */
static void slice(tpu_timeline *t, unsigned pid, unsigned tid, const char *name, uint64_t ts,
                  uint64_t dur, const char *args)
{
    if (t->slices >= t->max_slices) {
        t->truncated = 1;
        return;
    }
    t->slices++;
    begin_event(t);
    fprintf(t->f, "{\"ph\":\"X\",\"pid\":%u,\"tid\":%u,\"ts\":%" PRIu64 ",\"dur\":%" PRIu64
            ",\"name\":", pid, tid, ts, dur);
    json_str(t->f, name);
    if (args)
        fprintf(t->f, ",\"args\":{%s}", args);
    fputc('}', t->f);
}

static void instant(tpu_timeline *t, unsigned pid, unsigned tid, const char *name, uint64_t ts,
                    const char *text)
{
    begin_event(t);
    fprintf(t->f, "{\"ph\":\"i\",\"s\":\"t\",\"pid\":%u,\"tid\":%u,\"ts\":%" PRIu64 ",\"name\":",
            pid, tid, ts);
    json_str(t->f, name);
    if (text) {
        fputs(",\"args\":{\"text\":", t->f);
        json_str(t->f, text);
        fputc('}', t->f);
    }
    fputc('}', t->f);
}

static void meta(tpu_timeline *t, const char *what, unsigned pid, int tid, const char *name,
                 int sort)
{
    begin_event(t);
    fprintf(t->f, "{\"ph\":\"M\",\"pid\":%u,", pid);
    if (tid >= 0)
        fprintf(t->f, "\"tid\":%d,", tid);
    fprintf(t->f, "\"name\":\"%s\",\"args\":{\"name\":", what);
    json_str(t->f, name);
    fputs("}}", t->f);
    begin_event(t);
    fprintf(t->f, "{\"ph\":\"M\",\"pid\":%u,", pid);
    if (tid >= 0)
        fprintf(t->f, "\"tid\":%d,", tid);
    fprintf(t->f, "\"name\":\"%s_sort_index\",\"args\":{\"sort_index\":%d}}",
            tid >= 0 ? "thread" : "process", sort);
}

static void counter(tpu_timeline *t, unsigned pid, const char *name, const char *key,
                    uint64_t ts, double v)
{
    begin_event(t);
    fprintf(t->f, "{\"ph\":\"C\",\"pid\":%u,\"ts\":%" PRIu64 ",\"name\":\"%s\",\"args\":"
            "{\"%s\":%.6g}}", pid, ts, name, key, v);
}

/* ---- instructions ------------------------------------------------------------ */

/* "dma.h2v" and `"pc":7,"insn":"dma.h2v s1, s2, ..."` for an instruction word. */
static const char *insn_args(uint64_t pc, uint64_t word, char *args, size_t len)
{
    tpu_insn in;
    char text[128] = "?";
    const char *name = "?";
    if (tpu_decode(word, &in, NULL) == 0) {
        tpu_format_insn(&in, text, sizeof text, NULL, NULL);
        name = in.desc->mnemonic;
    }
    snprintf(args, len, "\"pc\":%" PRIu64 ",\"insn\":\"%s\"", pc, text);
    return name;
}

static unsigned opcode_of(uint64_t word)
{
    return (unsigned)(word & 0xff);
}

/* ---- stall runs ---------------------------------------------------------------- */

static unsigned stall_tid(enum tpu_unit_id u)
{
    return u == TPU_U_SEQ ? TID_SEQ : TID_STALL + (unsigned)u;
}

static void stall_flush(tpu_timeline *t, unsigned core, enum tpu_unit_id u)
{
    stall_run *r = &t->core[core].stall[u];
    if (!r->active)
        return;
    char name[STALL_TEXT + 16];
    snprintf(name, sizeof name, "stall: %s", r->text);
    slice(t, core, stall_tid(u), name, r->start, r->last - r->start + 1, NULL);
    r->active = 0;
}

static void on_stall(tpu_timeline *t, const tpu_event *ev)
{
    if (ev->unit >= TPU_U_COUNT)
        return;
    stall_run *r = &t->core[ev->core].stall[ev->unit];
    const char *text = ev->text ? ev->text : "?";
    if (r->active && ev->cycle == r->last + 1 && !strncmp(r->text, text, STALL_TEXT - 1)) {
        r->last = ev->cycle;
        return;
    }
    stall_flush(t, ev->core, ev->unit);
    r->active = 1;
    r->start = r->last = ev->cycle;
    snprintf(r->text, sizeof r->text, "%s", text);
}

/* ---- transfers ------------------------------------------------------------------ */

/* A DMA or ICI transfer that ended in cycle `end`: the parent slice and,
 * for DMAs, its latency and transfer children. */
static void xfer_slice(tpu_timeline *t, unsigned core, unsigned tid, open_xfer *x, uint64_t end,
                       uint64_t pc, uint64_t word, uint64_t bytes, int is_dma, int unfinished)
{
    uint64_t start = x->active ? x->start : end;
    uint64_t xfer_at = x->active ? x->xfer_at : end;
    char args[256], a2[300];
    const char *name = insn_args(pc, word, args, sizeof args);
    snprintf(a2, sizeof a2, "%s,\"bytes\":%" PRIu64 "%s", args, bytes,
             unfinished ? ",\"unfinished\":true" : "");
    slice(t, core, tid, name, start, end + 1 - start, a2);
    if (is_dma) {
        if (xfer_at > start)
            slice(t, core, tid, "latency", start, (xfer_at < end + 1 ? xfer_at : end + 1) - start,
                  NULL);
        if (end + 1 > xfer_at)
            slice(t, core, tid, "transfer", xfer_at, end + 1 - xfer_at, NULL);
    }
    x->active = 0;
}

/* ---- the event callback ----------------------------------------------------- */

static void on_event(void *ctx, const tpu_event *ev)
{
    tpu_timeline *t = ctx;
    if (t->closed || ev->core >= t->ncores)
        return;
    unsigned core = ev->core;
    char args[256];
    uint64_t n = t->cfg->mxu_n;
    switch (ev->kind) {
    case TPU_EV_ISSUE: {
        const char *name = insn_args(ev->pc, ev->word, args, sizeof args);
        slice(t, core, TID_SEQ, name, ev->cycle, 1, args);
        break;
    }
    case TPU_EV_STALL:
        on_stall(t, ev);
        break;
    case TPU_EV_RETIRE:
        if (ev->unit >= TPU_U_MXU0 && ev->unit <= TPU_U_MXU3
            && opcode_of(ev->word) == TPU_OP_MXU_LW && ev->cycle + 1 >= 2 * n) {
            unsigned m = (unsigned)(ev->unit - TPU_U_MXU0);
            uint64_t l = ev->cycle + 1 - 2 * n;
            uint64_t *wfree = t->core[core].wfree[m];
            unsigned j = 0, w = weight_tracks(t);
            while (j + 1 < w && wfree[j] > l)
                j++;
            wfree[j] = l + n;
            const char *name = insn_args(ev->pc, ev->word, args, sizeof args);
            slice(t, core, j ? TID_MXU_SLOT + 256 * (int)m + (int)j : TID_MXU + 2 * (int)m, name,
                  l, n, args);
        } else if (ev->unit == TPU_U_VPU) {
            unsigned op = opcode_of(ev->word);
            uint64_t back = (op == TPU_OP_VST || op == TPU_OP_VST_BF16)
                          ? 0 : t->cfg->vpu_latency - 1;
            if (op == TPU_OP_VEXP || op == TPU_OP_VRCP || op == TPU_OP_VRSQRT)
                back += TPU_TR_STEPS;
            uint64_t at = ev->cycle >= back ? ev->cycle - back : 0;
            const char *name = insn_args(ev->pc, ev->word, args, sizeof args);
            slice(t, core, TID_VPU, name, at, 1, args);
        } else if (ev->unit == TPU_U_XLU) {
            unsigned op = opcode_of(ev->word);
            unsigned S = (unsigned)t->cfg->vpu_sublanes, L = (unsigned)t->cfg->vpu_lanes;
            int lanes = op == TPU_OP_XLU_LSUM || op == TPU_OP_XLU_LMAX || op == TPU_OP_XLU_ASUM
                     || op == TPU_OP_XLU_AMAX;
            int subl = op == TPU_OP_XLU_SSUM || op == TPU_OP_XLU_SMAX || op == TPU_OP_XLU_ASUM
                    || op == TPU_OP_XLU_AMAX;
            uint64_t x = 2 + (lanes ? tpu_xlu_levels(L) : 0) + (subl ? tpu_xlu_levels(S) : 0);
            uint64_t at = ev->cycle + 1 >= x ? ev->cycle + 1 - x : 0;
            const char *name = insn_args(ev->pc, ev->word, args, sizeof args);
            slice(t, core, TID_XLU, name, at, x, args);
        }
        break;
    case TPU_EV_MXU_TILE_START: {
        unsigned m = (unsigned)(ev->unit - TPU_U_MXU0);
        if (ev->unit < TPU_U_MXU0 || ev->unit > TPU_U_MXU3)
            break;
        const char *name = insn_args(ev->pc, ev->word, args, sizeof args);
        char a2[300];
        snprintf(a2, sizeof a2, "%s,\"rows\":%" PRIu64 ",\"last_row_written\":%" PRIu64, args,
                 ev->len, ev->cycle + ev->len - 1 + 2 * n);
        slice(t, core, TID_MXU + 2 * m + 1, name, ev->cycle, ev->len ? ev->len : 1, a2);
        break;
    }
    case TPU_EV_DMA_DONE:
        if (ev->index < TPU_PROBE_MAX_DMA)
            xfer_slice(t, core, TID_DMA + ev->index, &t->core[core].dma[ev->index], ev->cycle,
                       ev->pc, ev->word, ev->len, 1, 0);
        break;
    case TPU_EV_ICI_SEND:
        if (ev->index < TPU_NUM_PORTS)
            xfer_slice(t, core, TID_ICI + ev->index, &t->core[core].port[ev->index], ev->cycle,
                       ev->pc, ev->word, ev->len, 0, 0);
        break;
    case TPU_EV_HALT:
        instant(t, core, TID_SEQ, "halt", ev->cycle, NULL);
        break;
    case TPU_EV_ERROR:
        instant(t, core, TID_SEQ, "error", ev->cycle, ev->text);
        break;
    default:
        break;
    }
}

/* ---- per cycle ------------------------------------------------------------------ */

/* Engines and ports that became busy in the cycle just computed. */
static void sample_engines(tpu_timeline *t, unsigned core, uint64_t cycle)
{
    tpu_probe p;
    tpu_probe_core(tpu_system_core(t->sys, core), cycle, &p);
    core_track *ct = &t->core[core];
    for (unsigned e = 0; e < p.ndma; e++) {
        open_xfer *x = &ct->dma[e];
        uint8_t busy = p.dma[e].state != TPU_PROBE_DMA_IDLE;
        if (busy && !x->sampled_state && !x->active) {
            x->active = 1;
            x->start = cycle - 1;
            x->xfer_at = p.dma[e].xfer_at;
        }
        x->sampled_state = busy;
    }
    for (unsigned k = 0; k < TPU_NUM_PORTS; k++) {
        open_xfer *x = &ct->port[k];
        if (p.port[k].sending && !x->sampled_state && !x->active) {
            x->active = 1;
            x->start = x->xfer_at = cycle - 1;
        }
        x->sampled_state = p.port[k].sending;
    }
}

/* The counters of the window [t->last_sample, cycle). */
static void sample_counters(tpu_timeline *t, uint64_t cycle)
{
    uint64_t win = cycle - t->last_sample;
    if (!win)
        return;
    double cells = (double)t->cfg->mxu_n * (double)t->cfg->mxu_n * (double)t->cfg->num_mxu;
    for (unsigned c = 0; c < t->ncores; c++) {
        tpu_stats st;
        tpu_core_stats(tpu_system_core(t->sys, c), &st);
        core_track *ct = &t->core[c];
        uint64_t hbm = st.hbm_read_bytes + st.hbm_write_bytes;
        uint64_t vmem = st.vmem_read_bytes + st.vmem_write_bytes;
        counter(t, c, "HBM bytes/cycle", "bytes/cycle", t->last_sample,
                (double)(hbm - ct->hbm) / (double)win);
        counter(t, c, "VMEM bytes/cycle", "bytes/cycle", t->last_sample,
                (double)(vmem - ct->vmem) / (double)win);
        /* cell-cycles: an int8 cell does two multiply-adds a cycle */
        uint64_t work = st.macs - st.int8_macs / 2;
        counter(t, c, "MXU utilisation", "%", t->last_sample,
                100.0 * (double)(work - ct->macs) / ((double)win * cells));
        ct->hbm = hbm;
        ct->vmem = vmem;
        ct->macs = work;
    }
    t->last_sample = cycle;
    if (++t->samples_at_every >= t->max_samples) {   /* a long run: halve the sample rate */
        t->every *= 2;
        t->samples_at_every = 0;
    }
}

void tpu_timeline_cycle(tpu_timeline *t)
{
    if (t->closed)
        return;
    uint64_t cycle = tpu_system_cycle(t->sys);
    if (cycle == 0)
        return;
    for (unsigned c = 0; c < t->ncores; c++)
        sample_engines(t, c, cycle);
    if (cycle - t->last_sample >= t->every)
        sample_counters(t, cycle);
}

/* ---- open and close ------------------------------------------------------------ */

static void name_tracks(tpu_timeline *t)
{
    static const char *const stall_names[TPU_U_COUNT] = {
        [TPU_U_DMA] = "stall: dma", [TPU_U_MXU0] = "stall: mxu0", [TPU_U_MXU1] = "stall: mxu1",
        [TPU_U_MXU2] = "stall: mxu2", [TPU_U_MXU3] = "stall: mxu3", [TPU_U_VPU] = "stall: vpu",
        [TPU_U_ICI] = "stall: ici", [TPU_U_XLU] = "stall: xlu",
    };
    char name[64];
    for (unsigned c = 0; c < t->ncores; c++) {
        core_track *ct = &t->core[c];
        int any_port = 0;
        snprintf(name, sizeof name, "core %u", c);
        meta(t, "process_name", c, -1, name, (int)c);
        meta(t, "thread_name", c, TID_SEQ, "seq", TID_SEQ);
        for (unsigned e = 0; e < t->cfg->dma_engines && e < TPU_PROBE_MAX_DMA; e++) {
            snprintf(name, sizeof name, "dma engine %u", e);
            meta(t, "thread_name", c, (int)(TID_DMA + e), name, (int)(TID_DMA + e));
        }
        for (unsigned m = 0; m < t->cfg->num_mxu && m < 4; m++) {
            snprintf(name, sizeof name, "mxu%u weights", m);
            meta(t, "thread_name", c, (int)(TID_MXU + 2 * m), name, (int)(TID_MXU + 2 * m));
            for (unsigned j = 1; j < weight_tracks(t); j++) {
                int tid = TID_MXU_SLOT + 256 * (int)m + (int)j;
                snprintf(name, sizeof name, "mxu%u weights %u", m, j);
                meta(t, "thread_name", c, tid, name, tid);
            }
            snprintf(name, sizeof name, "mxu%u stream", m);
            meta(t, "thread_name", c, (int)(TID_MXU + 2 * m + 1), name,
                 (int)(TID_MXU + 2 * m + 1));
        }
        meta(t, "thread_name", c, TID_VPU, "vpu", TID_VPU);
        meta(t, "thread_name", c, TID_XLU, "xlu", TID_XLU);
        tpu_probe p;
        tpu_probe_core(tpu_system_core(t->sys, c), tpu_system_cycle(t->sys), &p);
        for (unsigned k = 0; k < TPU_NUM_PORTS; k++) {
            ct->connected[k] = p.port[k].connected;
            if (!p.port[k].connected)
                continue;
            any_port = 1;
            snprintf(name, sizeof name, "ici port %u", k);
            meta(t, "thread_name", c, (int)(TID_ICI + k), name, (int)(TID_ICI + k));
        }
        for (unsigned u = TPU_U_DMA; u < TPU_U_COUNT; u++) {
            if (u >= TPU_U_MXU0 && u <= TPU_U_MXU3 && u - TPU_U_MXU0 >= t->cfg->num_mxu)
                continue;
            if (u == TPU_U_ICI && !any_port)
                continue;
            meta(t, "thread_name", c, (int)(TID_STALL + u), stall_names[u], (int)(TID_STALL + u));
        }
    }
}

tpu_timeline *tpu_timeline_open(const char *path, tpu_system *s, const tpu_timeline_opts *opts,
                                char *err, size_t errlen)
{
    tpu_timeline *t = calloc(1, sizeof *t);
    unsigned ncores = tpu_system_ncores(s);
    if (!t || !(t->core = calloc(ncores ? ncores : 1, sizeof *t->core))) {
        snprintf(err, errlen, "out of memory");
        free(t);
        return NULL;
    }
    snprintf(t->path, sizeof t->path, "%s", path);
    t->f = fopen(path, "w");
    if (!t->f) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        free(t->core);
        free(t);
        return NULL;
    }
    t->sys = s;
    t->cfg = tpu_system_config(s);
    t->ncores = ncores;
    t->first = 1;
    t->every = opts && opts->counter_every ? opts->counter_every : TPU_TIMELINE_DEFAULT_EVERY;
    t->max_slices = opts && opts->max_slices ? opts->max_slices : TPU_TIMELINE_DEFAULT_MAX_SLICES;
    t->max_samples = opts && opts->max_counter_samples ? opts->max_counter_samples
                                                       : TPU_TIMELINE_DEFAULT_MAX_SAMPLES;
    t->last_sample = tpu_system_cycle(s);
    for (unsigned c = 0; c < ncores; c++) {
        tpu_stats st;
        tpu_core_stats(tpu_system_core(s, c), &st);
        t->core[c].hbm = st.hbm_read_bytes + st.hbm_write_bytes;
        t->core[c].vmem = st.vmem_read_bytes + st.vmem_write_bytes;
        t->core[c].macs = st.macs - st.int8_macs / 2;
    }
    fputs("{\"traceEvents\":[", t->f);
    name_tracks(t);
    uint32_t mask = (1u << TPU_EV_ISSUE) | (1u << TPU_EV_RETIRE) | (1u << TPU_EV_STALL)
                  | (1u << TPU_EV_DMA_DONE) | (1u << TPU_EV_ICI_SEND)
                  | (1u << TPU_EV_MXU_TILE_START) | (1u << TPU_EV_HALT) | (1u << TPU_EV_ERROR);
    if (tpu_system_subscribe(s, mask, on_event, t)) {
        snprintf(err, errlen, "too many event subscribers");
        fclose(t->f);
        free(t->core);
        free(t);
        return NULL;
    }
    return t;
}

int tpu_timeline_close(tpu_timeline *t, char *err, size_t errlen)
{
    if (t->closed)
        return 0;
    uint64_t cycle = tpu_system_cycle(t->sys);
    uint64_t end = cycle ? cycle - 1 : 0;
    for (unsigned c = 0; c < t->ncores; c++) {
        tpu_probe p;
        tpu_probe_core(tpu_system_core(t->sys, c), cycle, &p);
        for (unsigned u = 0; u < TPU_U_COUNT; u++)
            stall_flush(t, c, (enum tpu_unit_id)u);
        for (unsigned e = 0; e < p.ndma; e++)
            if (t->core[c].dma[e].active)
                xfer_slice(t, c, TID_DMA + e, &t->core[c].dma[e], end, p.dma[e].pc,
                           p.dma[e].word, p.dma[e].total, 1, 1);
        for (unsigned k = 0; k < TPU_NUM_PORTS; k++)
            if (t->core[c].port[k].active)
                xfer_slice(t, c, TID_ICI + k, &t->core[c].port[k], end, p.port[k].pc,
                           p.port[k].word, p.port[k].bytes, 0, 1);
    }
    sample_counters(t, cycle);
    t->closed = 1;
    fprintf(t->f, "\n],\n\"otherData\":{\"time_unit\":"
            "\"1 cycle = 1 us in ts and dur\",\"clock_hz\":%.10g,\"config\":",
            t->cfg->clock_hz);
    json_str(t->f, t->cfg->name);
    fprintf(t->f, ",\"cycles\":%" PRIu64 ",\"cores\":%u,\"slices\":%" PRIu64
            ",\"truncated\":%s,\"counter_every_cycles_last\":%" PRIu64 "}}\n",
            cycle, t->ncores, t->slices, t->truncated ? "true" : "false", t->every);
    int bad = ferror(t->f);
    if (fclose(t->f))
        bad = 1;
    t->f = NULL;
    if (bad) {
        snprintf(err, errlen, "%s: writing the timeline failed", t->path);
        return -1;
    }
    return 0;
}

uint64_t tpu_timeline_slices(const tpu_timeline *t)
{
    return t->slices;
}

int tpu_timeline_truncated(const tpu_timeline *t)
{
    return t->truncated;
}

void tpu_timeline_free(tpu_timeline *t)
{
    if (!t)
        return;
    if (t->f)
        fclose(t->f);
    free(t->core);
    free(t);
}
