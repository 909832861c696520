/*
 * system.c - k cores on one clock: creation and topology, loading, the
 * cycle loop, deadlock detection across cores, and the event subscribers.
 *
 * Every cycle runs the compute half of every core, then the commit half of
 * every core (core.h), so no core sees another's work of the same cycle.
 * The ICI links between cores belong to the system: link (c, p) carries
 * the bytes core c sends on port p, to the neighbour's port p ^ 1 (port 0
 * +col / next in the ring pairs with port 1 -col / previous; 2 with 3;
 * on a 3-D torus 4 (+z) with 5 (-z)).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "system_impl.h"
#include "tpu.h"

static int build(tpu_system *s, char *err, size_t errlen);

/* ---- topology ------------------------------------------------------------ */

/* The core that port p of core c is wired to, or -1 (docs/timing.md sec. 6). */
int tpu_system_neighbour(const tpu_system *s, unsigned c, unsigned p)
{
    unsigned k = s->ncores;
    switch (s->topo) {
    case TPU_TOPO_RING:
        if (p == 0) return (int)((c + 1) % k);
        if (p == 1) return (int)((c + k - 1) % k);
        return -1;
    case TPU_TOPO_TORUS2D:
    case TPU_TOPO_MESH2D: {
        int wrap = s->topo == TPU_TOPO_TORUS2D;
        int r = (int)(c / s->cols), col = (int)(c % s->cols);
        int R = (int)s->rows, C = (int)s->cols;
        switch (p) {
        case 0: col++; break;
        case 1: col--; break;
        case 2: r++; break;
        case 3: r--; break;
        default: return -1;     /* ports 4 and 5: a torus3d's only */
        }
        if (!wrap && (col < 0 || col >= C || r < 0 || r >= R))
            return -1;
        col = (col + C) % C;
        r = (r + R) % R;
        return r * C + col;
    }
    case TPU_TOPO_TORUS3D: {
        /* core c = (z * Y + y) * X + x; ports +x -x +y -y +z -z, wraparound
         * on every axis */
        unsigned X = s->cols, Y = s->rows, Z = s->depth;
        unsigned x = c % X, y = (c / X) % Y, z = c / (X * Y);
        switch (p) {
        case 0: x = (x + 1) % X; break;
        case 1: x = (x + X - 1) % X; break;
        case 2: y = (y + 1) % Y; break;
        case 3: y = (y + Y - 1) % Y; break;
        case 4: z = (z + 1) % Z; break;
        case 5: z = (z + Z - 1) % Z; break;
        default: return -1;
        }
        return (int)((z * Y + y) * X + x);
    }
    default:
        return -1;
    }
}

/* Incoming links a core's VMEM must take at once (T11): 4, or 6 on a 3-D
 * torus. */
static unsigned incoming_links(enum tpu_topology t)
{
    return t == TPU_TOPO_TORUS3D ? 6 : 4;
}

/* T11 and the other cross-key rules the core relies on. */
static int check_config(const tpu_config *cfg, unsigned ncores, unsigned links, char *err,
                        size_t errlen)
{
    if (tpu_config_validate(cfg, err, errlen) < 0)
        return -1;
    uint64_t inum, iden, hnum, hden;
    tpu_config_bytes_per_cycle(cfg->ici_bw, cfg->clock_hz, &inum, &iden);
    tpu_config_bytes_per_cycle(cfg->hbm_bw, cfg->clock_hz, &hnum, &hden);
    if (!hnum || !inum) {
        snprintf(err, errlen, "config: %s bandwidth rounds to 0 bytes per cycle",
                 hnum ? "ici_bw" : "hbm_bw");
        return -1;
    }
    uint64_t ici_peak = (inum + iden - 1) / iden;
    uint64_t need = cfg->num_mxu * 12 * cfg->mxu_n + links * ici_peak;
    if (cfg->vmem_bw < need) {
        snprintf(err, errlen,
                 "config: vmem_bw = %" PRIu64 " is too small: %" PRIu64 " MXU%s of %" PRIu64
                 " need %" PRIu64 " bytes/cycle and %u incoming ICI links %" PRIu64
                 " (docs/timing.md T11: at least %" PRIu64 ")",
                 cfg->vmem_bw, cfg->num_mxu, cfg->num_mxu == 1 ? "" : "s", cfg->mxu_n,
                 cfg->num_mxu * 12 * cfg->mxu_n, links, links * ici_peak, need);
        return -1;
    }
    uint64_t vreg = cfg->vpu_sublanes * cfg->vpu_lanes * 4;
    if (cfg->vmem_bw < vreg) {
        snprintf(err, errlen,
                 "config: vmem_bw = %" PRIu64 " is smaller than one VPU load of %" PRIu64
                 " bytes (vpu_sublanes x vpu_lanes x 4), so vld could never issue",
                 cfg->vmem_bw, vreg);
        return -1;
    }
    if (ncores > 1 && cfg->ici_latency < 1) {
        snprintf(err, errlen, "config: ici_latency must be at least 1 with more than one core "
                              "(a byte cannot land in the cycle it leaves)");
        return -1;
    }
    return 0;
}

tpu_system *tpu_system_create(const tpu_config *cfg, const tpu_system_opts *opts, char *err,
                              size_t errlen)
{
    tpu_system_opts o = { .cores = 1, .topology = TPU_TOPO_SINGLE };
    if (opts)
        o = *opts;
    if (o.cores == 0)
        o.cores = 1;
    if (o.topology == TPU_TOPO_TORUS2D || o.topology == TPU_TOPO_MESH2D) {
        if (o.rows == 0 || o.cols == 0 || (uint64_t)o.rows * o.cols > 4096) {
            snprintf(err, errlen, "topology %s needs rows x cols between 1 and 4096 cores",
                     o.topology == TPU_TOPO_TORUS2D ? "torus2d" : "mesh2d");
            return NULL;
        }
        if (opts && opts->cores > 1 && opts->cores != o.rows * o.cols) {
            snprintf(err, errlen, "%u cores do not make a %u x %u grid", opts->cores, o.rows,
                     o.cols);
            return NULL;
        }
        o.cores = o.rows * o.cols;
    } else if (o.topology == TPU_TOPO_TORUS3D) {
        if (o.rows == 0 || o.cols == 0 || o.depth == 0 ||
            (uint64_t)o.rows * o.cols * o.depth > 4096) {
            snprintf(err, errlen, "topology torus3d needs X x Y x Z between 1 and 4096 cores");
            return NULL;
        }
        if (opts && opts->cores > 1 && opts->cores != o.cols * o.rows * o.depth) {
            snprintf(err, errlen, "%u cores do not make a %u x %u x %u torus3d", opts->cores,
                     o.cols, o.rows, o.depth);
            return NULL;
        }
        o.cores = o.cols * o.rows * o.depth;
    } else if (o.topology == TPU_TOPO_SINGLE && o.cores != 1) {
        snprintf(err, errlen, "%u cores need a topology (ring, torus2d, mesh2d or torus3d)",
                 o.cores);
        return NULL;
    } else if (o.topology != TPU_TOPO_SINGLE && o.topology != TPU_TOPO_RING) {
        snprintf(err, errlen, "unknown topology %d", (int)o.topology);
        return NULL;
    }
    if (o.cores > 4096) {
        snprintf(err, errlen, "%u cores: at most 4096", o.cores);
        return NULL;
    }
    if (check_config(cfg, o.cores, incoming_links(o.topology), err, errlen) < 0)
        return NULL;

    tpu_system *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    s->cfg = *cfg;
    s->topo = o.topology;
    s->ncores = o.cores;
    s->rows = o.topology == TPU_TOPO_RING ? 1 : o.rows;
    s->cols = o.topology == TPU_TOPO_RING ? o.cores : o.cols;
    s->depth = o.topology == TPU_TOPO_TORUS3D ? o.depth : 1;
    if (build(s, err, errlen) < 0) {
        tpu_system_destroy(s);
        return NULL;
    }
    return s;
}

/* The cores and the links between them. */
static int build(tpu_system *s, char *err, size_t errlen)
{
    s->cores = calloc(s->ncores, sizeof *s->cores);
    s->links = calloc((size_t)s->ncores * TPU_NUM_PORTS, sizeof *s->links);
    if (!s->cores || !s->links) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (unsigned c = 0; c < s->ncores; c++) {
        s->cores[c] = tpu_core_create(&s->cfg, c, &s->cycle, &s->bus, err, errlen);
        if (!s->cores[c])
            return -1;
    }
    for (unsigned c = 0; c < s->ncores; c++) {
        for (unsigned p = 0; p < TPU_NUM_PORTS; p++) {
            int n = tpu_system_neighbour(s, c, p);
            if (n < 0)
                continue;
            tpu_link *l = &s->links[c * TPU_NUM_PORTS + p];
            s->cores[c]->ici.port[p].out = l;
            s->cores[n]->ici.port[p ^ 1].in = l;
            s->cores[n]->ici.nin++;
        }
    }
    for (unsigned c = 0; c < s->ncores; c++)
        tpu_core_ports_wired(s->cores[c]);
    return 0;
}

static void unbuild(tpu_system *s)
{
    if (s->cores)
        for (unsigned c = 0; c < s->ncores; c++)
            tpu_core_destroy(s->cores[c]);
    if (s->links)
        for (unsigned i = 0; i < s->ncores * TPU_NUM_PORTS; i++)
            tpu_link_free(&s->links[i]);
    free(s->cores);
    free(s->links);
    s->cores = NULL;
    s->links = NULL;
}

void tpu_system_destroy(tpu_system *s)
{
    if (!s)
        return;
    unbuild(s);
    if (s->stage)
        for (unsigned i = 0; i < s->ncores * TPU_NUM_PORTS; i++)
            tpu_link_free(&s->stage[i]);
    free(s->stage);
    free(s->owned);
    tpu_pool_destroy(s->pool);
    free(s);
}

int tpu_system_rebuild(tpu_system *s, char *err, size_t errlen)
{
    unbuild(s);
    s->cycle = 0;
    s->state = TPU_RUNNING;
    s->error[0] = 0;
    s->last_arrive = 0;
    if (build(s, err, errlen) < 0)
        return -1;
    return s->obj ? tpu_system_load(s, s->obj, err, errlen) : 0;
}

void tpu_system_set_threads(tpu_system *s, unsigned n)
{
    s->threads = n;
}

uint64_t tpu_system_windows(const tpu_system *s)
{
    return s->windows;
}

void tpu_system_set_partition(tpu_system *s, const tpu_partition *p)
{
    if (p && p->nparts > 1)
        s->part = *p;
    else
        memset(&s->part, 0, sizeof s->part);
}

int tpu_system_link_view(const tpu_system *s, unsigned c, unsigned p, tpu_link_view *v)
{
    memset(v, 0, sizeof *v);
    if (c >= s->ncores || p >= TPU_NUM_PORTS)
        return -1;
    v->to = tpu_system_neighbour(s, c, p);
    v->to_port = p ^ 1;
    const tpu_link *l = &s->links[c * TPU_NUM_PORTS + p];
    for (size_t i = 0; i < l->n; i++) {
        const tpu_link_chunk *ch = &l->c[l->head + i];
        v->bytes += ch->len;
        v->chunks++;
        if (i == 0)
            v->next_arrive = ch->arrive;
    }
    const tpu_ici_port *pt = &s->cores[c]->ici.port[p];
    v->sending = pt->sending;
    v->send_bytes = pt->sending ? pt->bytes : 0;
    v->send_left = pt->sending ? pt->bytes - pt->sent : 0;
    return 0;
}

int tpu_system_owns(const tpu_system *s, unsigned c)
{
    return s->part.nparts <= 1 || s->serial_only || s->part.owner[c] == s->part.self;
}

unsigned tpu_system_ncores(const tpu_system *s) { return s->ncores; }
tpu_core *tpu_system_core(tpu_system *s, unsigned i) { return i < s->ncores ? s->cores[i] : NULL; }
const tpu_config *tpu_system_config(const tpu_system *s) { return &s->cfg; }
uint64_t tpu_system_cycle(const tpu_system *s) { return s->cycle; }
const char *tpu_system_error(const tpu_system *s) { return s->error; }

/* ---- loading ------------------------------------------------------------------ */

#define LOAD_PIECE (64u << 10)

/* Write one piece of a chunk into every core.  Zeros going where VMEM
 * already holds zeros are skipped, so a large zero fill does not make the
 * host map VMEM pages (HBM skips them by itself). */
static int put_piece(tpu_system *s, uint8_t space, uint64_t addr, const uint8_t *buf, size_t n)
{
    int zero = tpu_bytes_zero(buf, n);
    for (unsigned c = 0; c < s->ncores; c++) {
        if (!tpu_system_owns(s, c))
            continue;           /* another process steps it (tpu_system_set_partition) */
        tpu_core *core = s->cores[c];
        if (space == TPU_SPACE_VMEM) {
            if (zero && tpu_bytes_zero(core->vmem.mem + addr, n))
                continue;
            if (tpu_vmem_poke(&core->vmem, addr, buf, n) < 0)
                return -1;
        } else if (tpu_hbm_poke(&core->hbm, addr, buf, n) < 0) {
            return -1;
        }
    }
    return 0;
}

/* A size for `--set KEY=SIZE` that holds `need`: the next power of two, at
 * least lo, written 512Ki, 32Mi or 4Gi when it is one of those.  0 when it
 * would be more than hi. */
static uint64_t size_flag(char *buf, size_t len, uint64_t need, uint64_t lo, uint64_t hi)
{
    uint64_t v = lo;
    while (v < need && v <= hi / 2)
        v *= 2;
    if (v < need || v > hi)
        return 0;
    static const char *const suffix[] = { "Gi", "Mi", "Ki" };
    for (int k = 0; k < 3; k++) {
        uint64_t unit = 1ull << (30 - 10 * k);
        if (v >= unit && v % unit == 0) {
            snprintf(buf, len, "%" PRIu64 "%s", v / unit, suffix[k]);
            return v;
        }
    }
    snprintf(buf, len, "%" PRIu64, v);
    return v;
}

/* ": run with --set KEY=SIZE" for a memory that is too small, or "" when
 * no machine can have that much. */
static void size_hint(char *buf, size_t len, const char *key, uint64_t need, uint64_t lo,
                      uint64_t hi)
{
    char v[32];
    if (size_flag(v, sizeof v, need, lo, hi))
        snprintf(buf, len, ": run with --set %s=%s", key, v);
    else
        snprintf(buf, len, " (more than any machine has: %s is at most %" PRIu64 ")", key, hi);
}

int tpu_system_load(tpu_system *s, const tpu_object *obj, char *err, size_t errlen)
{
    s->obj = obj;
    const tpu_config *cfg = &s->cfg;
    const tpu_obj_config *oc = &obj->config;
    uint64_t need[4] = { 0 };
    for (size_t i = 0; i < obj->nchunks; i++) {
        const tpu_obj_chunk *ch = &obj->chunks[i];
        if (ch->space != TPU_SPACE_HBM && ch->space != TPU_SPACE_VMEM) {
            snprintf(err, errlen, "object chunk %zu is for address space %u (not HBM or VMEM)",
                     i, ch->space);
            return -1;
        }
        uint64_t end = ch->addr + ch->size;
        if (end < ch->addr)
            end = UINT64_MAX;
        if (end > need[ch->space])
            need[ch->space] = end;
    }
    /* Every error ends with the option that fixes it (docs/tpu-sim.md). */
    char hint[200];
    if (!tpu_obj_config_matches(oc, cfg)) {
        /* A preset with the object's shape, one with room for it if there is. */
        tpu_config p;
        const char *name = NULL;
        for (int k = tpu_obj_config_preset(oc, 0, &p); k >= 0;
             k = tpu_obj_config_preset(oc, k + 1, &p)) {
            int room = obj->ntext <= p.imem_words && need[TPU_SPACE_VMEM] <= p.vmem_bytes &&
                       need[TPU_SPACE_HBM] <= p.hbm_bytes;
            if (!name || room)
                name = tpu_config_presets[k].name;
            if (room)
                break;
        }
        struct { const char *key; uint32_t want; uint64_t have; } shape[] = {
            { "mxu_n", oc->mxu_n, cfg->mxu_n }, { "num_mxu", oc->num_mxu, cfg->num_mxu },
            { "vpu_sublanes", oc->vpu_sublanes, cfg->vpu_sublanes },
            { "vpu_lanes", oc->vpu_lanes, cfg->vpu_lanes },
        };
        size_t first = SIZE_MAX, used;
        if (name)
            snprintf(hint, sizeof hint, ": run with --config %s", name);
        else
            snprintf(hint, sizeof hint, ": run with");
        for (size_t i = 0; i < sizeof shape / sizeof shape[0]; i++) {
            if (!shape[i].want || shape[i].want == shape[i].have)
                continue;
            if (first == SIZE_MAX)
                first = i;
            used = strlen(hint);
            if (!name)
                snprintf(hint + used, sizeof hint - used, " --set %s=%" PRIu32, shape[i].key,
                         shape[i].want);
        }
        snprintf(err, errlen, "the object was assembled for %s = %" PRIu32
                 ", the config has %" PRIu64 "%s", shape[first].key, shape[first].want,
                 shape[first].have, hint);
        return -1;
    }
    if (obj->ntext > cfg->imem_words) {
        size_hint(hint, sizeof hint, "imem_words", obj->ntext, 16, 1048576);
        snprintf(err, errlen, "object needs IMEM up to %zu words, config has %" PRIu64 "%s",
                 obj->ntext, cfg->imem_words, hint);
        return -1;
    }
    if (need[TPU_SPACE_VMEM] > cfg->vmem_bytes) {
        size_hint(hint, sizeof hint, "vmem_bytes", need[TPU_SPACE_VMEM], 4096, 1ull << 32);
        snprintf(err, errlen, "object needs VMEM up to 0x%" PRIx64 ", config has 0x%" PRIx64 "%s",
                 need[TPU_SPACE_VMEM], cfg->vmem_bytes, hint);
        return -1;
    }
    if (need[TPU_SPACE_HBM] > cfg->hbm_bytes) {
        size_hint(hint, sizeof hint, "hbm_bytes", need[TPU_SPACE_HBM], 4096, 1ull << 40);
        snprintf(err, errlen, "object needs HBM up to 0x%" PRIx64 ", config has 0x%" PRIx64 "%s",
                 need[TPU_SPACE_HBM], cfg->hbm_bytes, hint);
        return -1;
    }

    for (unsigned c = 0; c < s->ncores; c++)
        tpu_core_load_text(s->cores[c], obj->text, obj->ntext);
    uint8_t *buf = malloc(LOAD_PIECE);
    if (!buf) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (size_t i = 0; i < obj->nchunks; i++) {
        const tpu_obj_chunk *ch = &obj->chunks[i];
        for (uint64_t off = 0; off < ch->size; off += LOAD_PIECE) {
            size_t k = ch->size - off < LOAD_PIECE ? (size_t)(ch->size - off) : LOAD_PIECE;
            tpu_obj_chunk_read(ch, off, buf, k);
            if (put_piece(s, ch->space, ch->addr + off, buf, k) < 0) {
                snprintf(err, errlen, "out of memory loading %s at 0x%" PRIx64,
                         ch->space == TPU_SPACE_HBM ? "HBM" : "VMEM", ch->addr + off);
                free(buf);
                return -1;
            }
        }
    }
    free(buf);
    return 0;
}

/* ---- running ---------------------------------------------------------------------- */

int tpu_system_links_empty(const tpu_system *s)
{
    if (s->ncores == 1 && s->topo == TPU_TOPO_SINGLE)
        return 1;
    for (unsigned i = 0; i < s->ncores * TPU_NUM_PORTS; i++)
        if (!tpu_link_empty(&s->links[i]))
            return 0;
    return 1;
}

/* T10 across cores: every core halted or waiting on a semaphore with all
 * its units idle, and nothing on any wire, so no increment can ever come. */
static void check_deadlock(tpu_system *s, int wires_empty)
{
    if (!wires_empty)
        return;
    tpu_core *first = NULL;
    for (unsigned c = 0; c < s->ncores; c++) {
        tpu_core *core = s->cores[c];
        if (core->halted)
            continue;
        if (!core->stuck)
            return;
        if (!first)
            first = core;
    }
    if (!first)
        return;
    char why[200];
    snprintf(why, sizeof why,
             "deadlock: sem.wait on sem %u (value %" PRIu32 ", needs %" PRIu32
             ") can never succeed: every unit is idle%s",
             first->seq.wait_sem, first->seq.sem[first->seq.wait_sem], first->seq.wait_count,
             s->ncores > 1 ? ", every other core is halted or waiting, and no ICI transfer is "
                             "in flight" : "");
    tpu_core_fail(first, why);
}

enum tpu_stop tpu_system_step(tpu_system *s)
{
    if (s->state != TPU_RUNNING)
        return s->state;
    s->error[0] = 0;
    int wires_empty = tpu_system_links_empty(s);
    for (unsigned c = 0; c < s->ncores; c++)
        tpu_core_compute(s->cores[c]);
    check_deadlock(s, wires_empty);
    for (unsigned c = 0; c < s->ncores; c++)
        tpu_core_commit(s->cores[c]);
    s->cycle++;

    int halted = 1;
    for (unsigned c = 0; c < s->ncores; c++) {
        tpu_core *core = s->cores[c];
        if (core->error) {
            snprintf(s->error, sizeof s->error, "%s", core->errmsg);
            s->state = TPU_STOP_ERROR;
            return s->state;
        }
        halted &= core->halted;
    }
    if (halted && tpu_system_links_empty(s)) {
        s->state = TPU_STOP_HALT;
        return s->state;
    }
    if (s->bus.break_requested) {
        s->bus.break_requested = 0;
        return TPU_STOP_BREAK;
    }
    return TPU_RUNNING;
}

/* max_cycles counts from reset (tpu_system_cycle), not from this call.  The
 * limit is not sticky: a later run with a higher limit goes on. */
enum tpu_stop tpu_system_run(tpu_system *s, uint64_t max_cycles)
{
    if (tpu_system_parallel_ok(s)) {
        enum tpu_stop r = tpu_system_run_parallel(s, max_cycles);
        if (r != TPU_RUNNING)
            return r;
    }
    for (;;) {
        if (s->state != TPU_RUNNING)
            return s->state;
        if (max_cycles && s->cycle >= max_cycles) {
            tpu_core *c = s->cores[0];
            for (unsigned i = 0; i < s->ncores; i++) {
                if (!s->cores[i]->halted) {
                    c = s->cores[i];
                    break;
                }
            }
            char why[80];
            snprintf(why, sizeof why, "cycle limit reached (%" PRIu64 " cycles)", max_cycles);
            tpu_core_describe(c, why, s->error, sizeof s->error);
            if (tpu_ev_wanted(&c->ev, TPU_EV_ERROR)) {
                tpu_event ev = { .kind = TPU_EV_ERROR, .unit = TPU_U_SEQ, .pc = c->seq.pc,
                                 .text = s->error };
                tpu_ev_emit(&c->ev, &ev);
            }
            return TPU_STOP_CYCLE_LIMIT;
        }
        enum tpu_stop r = tpu_system_step(s);
        if (r != TPU_RUNNING)
            return r;
    }
}

/* ---- events ------------------------------------------------------------------------- */

int tpu_system_subscribe(tpu_system *s, uint32_t kind_mask, tpu_event_fn fn, void *ctx)
{
    if (!fn || s->bus.nsubs == TPU_MAX_SUBSCRIBERS)
        return -1;
    s->bus.subs[s->bus.nsubs++] = (tpu_subscriber){ kind_mask, fn, ctx };
    s->bus.mask |= kind_mask;
    return 0;
}

void tpu_system_request_break(tpu_system *s)
{
    s->bus.break_requested = 1;
}

/* The expect checker reads the cores' memories through the backdoor. */
static int read_core_mem(void *ctx, unsigned core, enum tpu_space space, uint64_t addr,
                         void *dst, size_t n)
{
    tpu_system *s = ctx;
    if (core >= tpu_system_ncores(s))
        return -1;
    return tpu_mem_read(tpu_system_core(s, core), space, addr, dst, n);
}

void tpu_system_check_via(tpu_system *s, const tpu_object *obj, tpu_expect_read_fn read,
                          void *ctx, tpu_expect_result *res)
{
    const tpu_config *cfg = tpu_system_config(s);
    tpu_expect_target t = { .ncores = tpu_system_ncores(s), .tile = (unsigned)cfg->mxu_n,
                            .hbm_bytes = cfg->hbm_bytes, .vmem_bytes = cfg->vmem_bytes,
                            .read = read ? read : read_core_mem, .ctx = read ? ctx : s };
    tpu_expect_check(obj, &t, res);
}

void tpu_system_check(tpu_system *s, const tpu_object *obj, tpu_expect_result *res)
{
    tpu_system_check_via(s, obj, NULL, NULL, res);
}
