/*
 * tpu_py.c - flat functions for the Python package (python/tpumodel/,
 * docs/python.md), which loads them with ctypes from build/lib/libtpu.so.
 *
 * The package could call tpu.h directly, but then Python would have to
 * copy the layout of every struct it touches (tpu_config, tpu_stats,
 * tpu_report...), and would break silently when one grows a field.  Here
 * everything crosses the boundary as opaque handles, C strings, plain
 * integers and arrays of fixed-width integers; structured results (the
 * report, stats, the probe) cross as JSON that Python parses.  The report
 * is tpu-sim's own (sim/view/report.c), built the way tpu-sim builds it,
 * so `System.report()` and `tpu-sim --json` give the same dict.
 *
 * Every function that can fail returns NULL or -1 with a one-line message
 * in err (the C message, which the package raises as TpuError).  Nothing
 * here installs a signal handler: the package runs in slices and Python
 * raises KeyboardInterrupt between two (tpumodel/_core.py).
 *
 * Built only into the shared library (the Makefile's `pylib` target, its
 * own objects in build/pic/), not into libtpusim.a.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "asm.h"
#include "config.h"
#include "expect.h"
#include "fp.h"
#include "kgen.h"
#include "objfile.h"
#include "probe.h"
#include "ref.h"
#include "report.h"
#include "tpu.h"

/* The version of this interface: the package refuses a library whose
 * number differs (a stale build/lib/libtpu.so). */
#define TPY_ABI 1

int tpy_abi(void)
{
    return TPY_ABI;
}

void tpy_free(void *p)
{
    free(p);
}

/* ---- configs ----------------------------------------------------------- */

/* The config a tool would pick: `name` (a preset or .cfg file) when given;
 * else, with an object, the first preset with the object's shape (as
 * tpu-sim does); else tiny.  Then the KEY=VALUE overrides, then the check. */
tpu_config *tpy_config_new(const char *name, const tpu_object *obj, const char *const *sets,
                           unsigned nsets, char *err, size_t errlen)
{
    tpu_config *c = malloc(sizeof *c);
    if (!c) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    tpu_config_defaults(c);
    if (name) {
        char e[512];
        if (tpu_config_load(c, name, e, sizeof e)) {
            snprintf(err, errlen, "config %s: %s", name, e);
            free(c);
            return NULL;
        }
    } else if (obj && (obj->config.mxu_n || obj->config.num_mxu || obj->config.vpu_lanes)) {
        const tpu_obj_config *w = &obj->config;
        char e[512];
        for (const tpu_config_preset *p = tpu_config_presets; p->name; p++) {
            tpu_config k;
            tpu_config_defaults(&k);
            if (tpu_config_load(&k, p->name, e, sizeof e))
                continue;
            if ((!w->mxu_n || w->mxu_n == k.mxu_n) && (!w->num_mxu || w->num_mxu == k.num_mxu)
                && (!w->vpu_sublanes || w->vpu_sublanes == k.vpu_sublanes)
                && (!w->vpu_lanes || w->vpu_lanes == k.vpu_lanes)) {
                *c = k;
                break;
            }
        }
    } else {
        char e[512];
        if (tpu_config_load(c, "tiny", e, sizeof e))
            tpu_config_defaults(c);
    }
    for (unsigned i = 0; i < nsets; i++)
        if (tpu_config_set(c, sets[i], err, errlen)) {
            free(c);
            return NULL;
        }
    char e[512];
    if (tpu_config_validate(c, e, sizeof e)) {
        snprintf(err, errlen, "config %s: %s", c->name, e);
        free(c);
        return NULL;
    }
    return c;
}

void tpy_config_free(tpu_config *c)
{
    free(c);
}

/* "key = value" lines, malloc'ed. */
char *tpy_config_text(const tpu_config *c)
{
    size_t len = 16384;
    char *buf = malloc(len);
    if (buf)
        tpu_config_print(c, buf, len);
    return buf;
}

/* The compiled-in presets' names, one per line, malloc'ed. */
char *tpy_presets(void)
{
    size_t len = 1;
    for (const tpu_config_preset *p = tpu_config_presets; p->name; p++)
        len += strlen(p->name) + 1;
    char *buf = malloc(len), *o = buf;
    if (!buf)
        return NULL;
    for (const tpu_config_preset *p = tpu_config_presets; p->name; p++)
        o += sprintf(o, "%s\n", p->name);
    *o = 0;
    return buf;
}

/* ---- objects ----------------------------------------------------------- */

/* Assemble src as tpu-as does: for cfg's machine (NULL: the machine of the
 * source's .target, as tpu-as picks it, else tiny), with -D definitions
 * "NAME=VALUE" and -I folders.  The messages (gcc-style lines) go to err. */
tpu_object *tpy_assemble(const char *src, size_t len, const char *filename, const tpu_config *cfg,
                         const char *const *defines, unsigned ndefines,
                         const char *const *incdirs, unsigned nincdirs, char *err, size_t errlen)
{
    tpu_asm_define *d = calloc(ndefines ? ndefines : 1, sizeof *d);
    tpu_object *obj = malloc(sizeof *obj);
    if (!d || !obj) {
        free(d);
        free(obj);
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    for (unsigned i = 0; i < ndefines; i++) {
        char e[256];
        if (tpu_asm_parse_define(defines[i], &d[i], e, sizeof e)) {
            snprintf(err, errlen, "-D %s: %s", defines[i], e);
            free(d);
            free(obj);
            return NULL;
        }
    }
    /* no config: tpu-as's choice (the preset of .target's shape, else tiny;
     * a .target no preset has: no machine) */
    tpu_config pick;
    const tpu_config *use = cfg;
    tpu_obj_config t;
    if (!use) {
        if (!tpu_asm_source_target(src, len, &t)) {
            char e[256];
            tpu_config_defaults(&pick);
            if (tpu_config_load(&pick, "tiny", e, sizeof e))
                tpu_config_defaults(&pick);
            use = &pick;
        } else if (t.mxu_n && t.num_mxu && t.vpu_sublanes && t.vpu_lanes
                   && tpu_obj_config_preset(&t, 0, &pick) >= 0) {
            use = &pick;
        }
    }
    tpu_asm_options opt = { .config = use, .defines = d, .ndefines = ndefines,
                            .allow_include = 1, .include_dirs = incdirs,
                            .ninclude_dirs = nincdirs };
    tpu_asm_result res;
    int rc = tpu_asm_assemble(src, len, filename, &opt, obj, &res);
    free(d);
    if (rc) {
        snprintf(err, errlen, "%s", res.messages && res.messages[0] ? res.messages
                                                                     : "assembly failed");
        size_t n = strlen(err);
        if (n && err[n - 1] == '\n')
            err[n - 1] = 0;
        tpu_asm_result_free(&res);
        free(obj);
        return NULL;
    }
    tpu_asm_result_free(&res);
    return obj;
}

tpu_object *tpy_obj_read(const char *path, char *err, size_t errlen)
{
    tpu_object *obj = malloc(sizeof *obj);
    if (!obj) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    if (tpu_obj_read(path, obj, err, errlen)) {
        free(obj);
        return NULL;
    }
    return obj;
}

tpu_object *tpy_obj_parse(const uint8_t *buf, size_t len, char *err, size_t errlen)
{
    tpu_object *obj = malloc(sizeof *obj);
    if (!obj) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    if (tpu_obj_parse(buf, len, obj, err, errlen)) {
        free(obj);
        return NULL;
    }
    return obj;
}

void tpy_obj_free(tpu_object *obj)
{
    if (obj) {
        tpu_obj_free(obj);
        free(obj);
    }
}

/* The object file's bytes (as tpu-as writes them), malloc'ed. */
uint8_t *tpy_obj_serialize(const tpu_object *obj, size_t *len)
{
    uint8_t *buf = NULL;
    if (tpu_obj_serialize(obj, &buf, len))
        return NULL;
    return buf;
}

size_t tpy_obj_nsyms(const tpu_object *obj)
{
    return obj->nsyms;
}

const char *tpy_obj_sym(const tpu_object *obj, size_t i, int *space, uint64_t *value)
{
    if (i >= obj->nsyms)
        return NULL;
    *space = obj->syms[i].space;
    *value = obj->syms[i].value;
    return obj->syms[i].name;
}

size_t tpy_obj_ntext(const tpu_object *obj)
{
    return obj->ntext;
}

void tpy_obj_shape(const tpu_object *obj, uint32_t *shape)
{
    shape[0] = obj->config.mxu_n;
    shape[1] = obj->config.num_mxu;
    shape[2] = obj->config.vpu_sublanes;
    shape[3] = obj->config.vpu_lanes;
}

size_t tpy_obj_nexpects(const tpu_object *obj)
{
    return obj->nexpects;
}

int tpy_obj_add_data(tpu_object *obj, int space, uint64_t addr, const uint8_t *bytes, uint64_t n)
{
    return tpu_obj_add_data(obj, (uint8_t)space, addr, bytes, n);
}

/* `.expect matmul Y, X, W, B, D, F` with the three operands in HBM. */
int tpy_obj_add_expect_matmul(tpu_object *obj, uint64_t y, uint64_t x, uint64_t w, uint64_t b,
                              uint64_t d, uint64_t f)
{
    tpu_obj_expect e;
    memset(&e, 0, sizeof e);
    e.op = TPU_EXPECT_MATMUL;
    e.core = -1;
    e.nops = 6;
    uint64_t v[6] = { y, x, w, b, d, f };
    for (unsigned i = 0; i < 6; i++) {
        e.ops[i].space = i < 3 ? TPU_SPACE_HBM : TPU_SPACE_NONE;
        e.ops[i].value = v[i];
    }
    return tpu_obj_add_expect(obj, &e);
}

/* ---- systems ----------------------------------------------------------- */

typedef struct tpy_system {
    tpu_system *s;
    tpu_config cfg;
    char topo[64];
} tpy_system;

/* A system of `cores` cores on cfg: topology "single", "ring", "torus2d",
 * "mesh2d" or "torus3d" (NULL: single for one core, else ring); rows x cols
 * for the 2-D ones (0: the most square factorisation), as tpu-sim's
 * options; a torus3d's X x Y x Z is cols x rows x depth (all three, or none:
 * the most cubic factorisation). */
tpy_system *tpy_system_new(const tpu_config *cfg, unsigned cores, const char *topology,
                           unsigned rows, unsigned cols, unsigned depth, unsigned threads,
                           char *err, size_t errlen)
{
    tpu_system_opts so;
    memset(&so, 0, sizeof so);
    unsigned k = cores;
    if (rows && cols && !k)
        k = rows * cols * (depth ? depth : 1);
    if (!k)
        k = 1;
    so.cores = k;
    const char *t = topology ? topology : (k > 1 || rows ? "ring" : "single");
    tpy_system *y = calloc(1, sizeof *y);
    if (!y) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    if ((rows || cols) && strcmp(t, "torus2d") && strcmp(t, "mesh2d") && strcmp(t, "torus3d")) {
        snprintf(err, errlen, "a grid needs topology torus2d or mesh2d (or torus3d with three "
                 "numbers; topology is %s)", t);
        free(y);
        return NULL;
    }
    if ((depth != 0) != !strcmp(t, "torus3d") && (rows || cols || depth)) {
        snprintf(err, errlen, "%s", depth ? "a grid of three numbers needs topology torus3d"
                                          : "a torus3d's grid has three numbers (X, Y, Z)");
        free(y);
        return NULL;
    }
    if (!strcmp(t, "single")) {
        if (k != 1) {
            snprintf(err, errlen, "topology single has one core, not %u", k);
            free(y);
            return NULL;
        }
        so.topology = TPU_TOPO_SINGLE;
        snprintf(y->topo, sizeof y->topo, "single");
    } else if (!strcmp(t, "ring")) {
        so.topology = TPU_TOPO_RING;
        snprintf(y->topo, sizeof y->topo, "ring");
    } else if (!strcmp(t, "torus2d") || !strcmp(t, "mesh2d")) {
        so.topology = strcmp(t, "torus2d") ? TPU_TOPO_MESH2D : TPU_TOPO_TORUS2D;
        if (rows || cols) {
            if (!rows || !cols || (uint64_t)rows * cols != k) {
                snprintf(err, errlen, "grid %ux%u does not match %u cores", rows, cols, k);
                free(y);
                return NULL;
            }
            so.rows = rows;
            so.cols = cols;
        } else {
            unsigned r = 1;
            for (unsigned d = 1; (uint64_t)d * d <= k; d++)
                if (k % d == 0)
                    r = d;
            so.rows = r;
            so.cols = k / r;
        }
        snprintf(y->topo, sizeof y->topo, "%s %ux%u", t, so.rows, so.cols);
    } else if (!strcmp(t, "torus3d")) {
        so.topology = TPU_TOPO_TORUS3D;
        if (rows || cols || depth) {
            if (!rows || !cols || !depth || (uint64_t)rows * cols * depth != k) {
                snprintf(err, errlen, "grid %ux%ux%u does not match %u cores", cols, rows, depth,
                         k);
                free(y);
                return NULL;
            }
            so.rows = rows;
            so.cols = cols;
            so.depth = depth;
        } else {                /* the most cubic: as tpu-sim */
            unsigned z = 1, r = 1;
            for (unsigned d = 1; (uint64_t)d * d * d <= k; d++)
                if (k % d == 0)
                    z = d;
            for (unsigned d = 1; (uint64_t)d * d <= k / z; d++)
                if ((k / z) % d == 0)
                    r = d;
            so.depth = z;
            so.rows = r;
            so.cols = k / z / r;
        }
        snprintf(y->topo, sizeof y->topo, "torus3d %ux%ux%u", so.cols, so.rows, so.depth);
    } else {
        snprintf(err, errlen, "topology is single, ring, torus2d, mesh2d or torus3d, not '%s'", t);
        free(y);
        return NULL;
    }
    y->cfg = *cfg;
    char e[512];
    y->s = tpu_system_create(&y->cfg, &so, e, sizeof e);
    if (!y->s) {
        snprintf(err, errlen, "%s", e);
        free(y);
        return NULL;
    }
    tpu_system_set_threads(y->s, threads);
    return y;
}

void tpy_system_free(tpy_system *y)
{
    if (y) {
        tpu_system_destroy(y->s);
        free(y);
    }
}

const char *tpy_system_topology(const tpy_system *y)
{
    return y->topo;
}

unsigned tpy_system_ncores(const tpy_system *y)
{
    return tpu_system_ncores(y->s);
}

const tpu_config *tpy_system_config(const tpy_system *y)
{
    return &y->cfg;
}

int tpy_system_load(tpy_system *y, const tpu_object *obj, char *err, size_t errlen)
{
    return tpu_system_load(y->s, obj, err, errlen);
}

/* Run until halt, error, or the cycle count `limit` (from reset; 0: no
 * limit): the package calls it in slices. */
int tpy_system_run(tpy_system *y, uint64_t limit)
{
    return (int)tpu_system_run(y->s, limit);
}

int tpy_system_step(tpy_system *y, uint64_t n)
{
    enum tpu_stop r = TPU_RUNNING;
    for (uint64_t i = 0; i < n && r == TPU_RUNNING; i++)
        r = tpu_system_step(y->s);
    return (int)r;
}

uint64_t tpy_system_cycle(const tpy_system *y)
{
    return tpu_system_cycle(y->s);
}

const char *tpy_system_error(const tpy_system *y)
{
    return tpu_system_error(y->s);
}

uint64_t tpy_system_windows(const tpy_system *y)
{
    return tpu_system_windows(y->s);
}

/* tpu-sim --json's report of the run so far, malloc'ed: `stop` is how the
 * last run ended (enum tpu_stop; TPU_RUNNING if it has not ended),
 * `interrupted` that it stopped on Ctrl-C, `max_cycles` the limit it ran
 * under (for the limit's message).  obj's .expect records are checked
 * when it halted, as tpu-sim does. */
char *tpy_report_json(tpy_system *y, const tpu_object *obj, const char *program, int stop,
                      int interrupted, uint64_t max_cycles)
{
    tpu_system *s = y->s;
    unsigned ncores = tpu_system_ncores(s);
    tpu_stats *st = calloc(ncores ? ncores : 1, sizeof *st);
    if (!st)
        return NULL;
    for (unsigned i = 0; i < ncores; i++)
        tpu_core_stats(tpu_system_core(s, i), &st[i]);
    char error[600] = "";
    if (!interrupted && stop != TPU_STOP_HALT) {
        const char *e = tpu_system_error(s);
        if (e && e[0])
            snprintf(error, sizeof error, "%s", e);
        else if (stop == TPU_STOP_CYCLE_LIMIT)
            snprintf(error, sizeof error, "cycle %llu: cycle limit reached (--max-cycles %llu)",
                     (unsigned long long)tpu_system_cycle(s), (unsigned long long)max_cycles);
        else
            snprintf(error, sizeof error, "cycle %llu: the run stopped before halt",
                     (unsigned long long)tpu_system_cycle(s));
    }
    tpu_report rep;
    memset(&rep, 0, sizeof rep);
    rep.program = program;
    rep.cfg = &y->cfg;
    rep.topology = y->topo;
    rep.ncores = ncores;
    rep.core = st;
    rep.cycles = tpu_system_cycle(s);
    rep.stop = (enum tpu_stop)stop;
    rep.interrupted = interrupted;
    rep.error = error;
    rep.unit_name = tpu_unit_id_name;
    rep.reason_name = tpu_stall_reason_name;
    if (stop == TPU_STOP_HALT && obj) {
        tpu_system_check(s, obj, &rep.expect);
        rep.checked = 1;
    }
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    if (m) {
        tpu_report_json(m, &rep);
        fclose(m);
    }
    free(st);
    return buf;
}

/* ---- memory ------------------------------------------------------------ */

static const char *space_name(int space)
{
    switch (space) {
    case TPU_SPACE_IMEM: return "IMEM";
    case TPU_SPACE_HBM: return "HBM";
    case TPU_SPACE_VMEM: return "VMEM";
    default: return "?";
    }
}

static tpu_core *core_of(tpy_system *y, unsigned core, char *err, size_t errlen)
{
    if (core >= tpu_system_ncores(y->s)) {
        snprintf(err, errlen, "core %u out of range (the system has %u)", core,
                 tpu_system_ncores(y->s));
        return NULL;
    }
    return tpu_system_core(y->s, core);
}

static int mem_size(const tpy_system *y, int space, uint64_t *size)
{
    switch (space) {
    case TPU_SPACE_IMEM: *size = y->cfg.imem_words * 8; return 0;
    case TPU_SPACE_HBM: *size = y->cfg.hbm_bytes; return 0;
    case TPU_SPACE_VMEM: *size = y->cfg.vmem_bytes; return 0;
    default: return -1;
    }
}

static int mem_access(tpy_system *y, unsigned core, int space, uint64_t addr, void *buf,
                      size_t n, int write, char *err, size_t errlen)
{
    tpu_core *c = core_of(y, core, err, errlen);
    uint64_t size;
    if (!c)
        return -1;
    if (mem_size(y, space, &size)) {
        snprintf(err, errlen, "unknown memory space %d", space);
        return -1;
    }
    int rc = write ? tpu_mem_write(c, (enum tpu_space)space, addr, buf, n)
                   : tpu_mem_read(c, (enum tpu_space)space, addr, buf, n);
    if (rc)
        snprintf(err, errlen, "%s bytes 0x%" PRIx64 "..+%zu out of range (%s is 0x%" PRIx64
                 " bytes)", space_name(space), addr, n, space_name(space), size);
    return rc;
}

int tpy_mem_read(tpy_system *y, unsigned core, int space, uint64_t addr, void *dst, size_t n,
                 char *err, size_t errlen)
{
    return mem_access(y, core, space, addr, dst, n, 0, err, errlen);
}

int tpy_mem_write(tpy_system *y, unsigned core, int space, uint64_t addr, const void *src,
                  size_t n, char *err, size_t errlen)
{
    return mem_access(y, core, space, addr, (void *)src, n, 1, err, errlen);
}

/* ---- views ------------------------------------------------------------- */

/* The sequencer: pc, halted, sreg[32], sem[32]; the stall reason (or "")
 * into stall. */
int tpy_seq_view(tpy_system *y, unsigned core, uint64_t *pc, int *halted, int64_t *sreg,
                 uint32_t *sem, char *stall, size_t stall_len, char *err, size_t errlen)
{
    tpu_core *c = core_of(y, core, err, errlen);
    if (!c)
        return -1;
    tpu_seq_view v;
    tpu_core_seq_view(c, &v);
    *pc = v.pc;
    *halted = v.halted;
    memcpy(sreg, v.sreg, sizeof v.sreg);
    memcpy(sem, v.sem, sizeof v.sem);
    snprintf(stall, stall_len, "%s", v.stall ? v.stall : "");
    return 0;
}

/* Every cell of MXU `mxu` (N x N, row-major by (k, col)) into the arrays,
 * each N*N long (any of them may be NULL). */
int tpy_mxu_cells(tpy_system *y, unsigned core, unsigned mxu, uint16_t *weight, uint16_t *shadow,
                  uint8_t *loading, uint16_t *chain, uint8_t *active, int64_t *row, uint16_t *x,
                  uint32_t *psum, uint8_t *i8, char *err, size_t errlen)
{
    tpu_core *c = core_of(y, core, err, errlen);
    if (!c)
        return -1;
    unsigned n = (unsigned)y->cfg.mxu_n;
    if (mxu >= y->cfg.num_mxu) {
        snprintf(err, errlen, "MXU %u out of range (the config has %u)", mxu,
                 (unsigned)y->cfg.num_mxu);
        return -1;
    }
    for (unsigned k = 0; k < n; k++)
        for (unsigned col = 0; col < n; col++) {
            tpu_cell_view v;
            if (tpu_core_mxu_cell(c, mxu, k, col, &v)) {
                snprintf(err, errlen, "MXU %u cell (%u, %u) cannot be read", mxu, k, col);
                return -1;
            }
            size_t i = (size_t)k * n + col;
            if (weight) weight[i] = v.weight;
            if (shadow) shadow[i] = v.shadow;
            if (loading) loading[i] = (uint8_t)v.loading;
            if (chain) chain[i] = v.chain;
            if (active) active[i] = (uint8_t)v.active;
            if (row) row[i] = v.row;
            if (x) x[i] = v.x;
            if (psum) psum[i] = v.psum;
            if (i8) i8[i] = (uint8_t)v.i8;
        }
    return 0;
}

/* Vector register r: vpu_sublanes x vpu_lanes fp32 bits. */
int tpy_vreg(tpy_system *y, unsigned core, unsigned r, uint32_t *dst, char *err, size_t errlen)
{
    tpu_core *c = core_of(y, core, err, errlen);
    if (!c)
        return -1;
    if (tpu_core_vreg(c, r, dst)) {
        snprintf(err, errlen, "vector register v%u out of range", r);
        return -1;
    }
    return 0;
}

/* One core's statistics as JSON, malloc'ed. */
char *tpy_stats_json(tpy_system *y, unsigned core, char *err, size_t errlen)
{
    tpu_core *c = core_of(y, core, err, errlen);
    if (!c)
        return NULL;
    tpu_stats st;
    tpu_core_stats(c, &st);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    fprintf(f, "{\"cycles\": %" PRIu64 ", \"instructions\": %" PRIu64 ", \"flops\": %" PRIu64
            ", \"macs\": %" PRIu64 ", \"int8_macs\": %" PRIu64 ", \"vpu_flops\": %" PRIu64
            ", \"hbm_read_bytes\": %" PRIu64 ", \"hbm_write_bytes\": %" PRIu64
            ", \"vmem_read_bytes\": %" PRIu64 ", \"vmem_write_bytes\": %" PRIu64
            ", \"ici_bytes\": %" PRIu64 ", \"ici_port_bytes\": [%" PRIu64 ", %" PRIu64 ", %"
            PRIu64 ", %" PRIu64 "], \"units\": {",
            st.cycles, st.instructions, st.flops, st.macs, st.int8_macs, st.vpu_flops,
            st.hbm_read_bytes, st.hbm_write_bytes, st.vmem_read_bytes, st.vmem_write_bytes,
            st.ici_bytes, st.ici_port_bytes[0], st.ici_port_bytes[1], st.ici_port_bytes[2],
            st.ici_port_bytes[3]);
    for (unsigned u = 0; u < TPU_U_COUNT; u++) {
        const tpu_unit_stats *us = &st.unit[u];
        fprintf(f, "%s\"%s\": {\"busy_cycles\": %" PRIu64 ", \"stall_cycles\": %" PRIu64
                ", \"stalls\": {", u ? ", " : "", tpu_unit_id_name((enum tpu_unit_id)u),
                us->busy_cycles, us->stall_cycles);
        int first = 1;
        for (unsigned i = 0; i < 8; i++) {
            const char *r = tpu_stall_reason_name((enum tpu_unit_id)u, i);
            if (!r)
                break;
            fprintf(f, "%s\"%s\": %" PRIu64, first ? "" : ", ", r, us->stall_by_reason[i]);
            first = 0;
        }
        fputs("}}", f);
    }
    fputs("}}", f);
    fclose(f);
    return buf;
}

/* The probe (probe.h) of one core as JSON, malloc'ed. */
char *tpy_probe_json(tpy_system *y, unsigned core, char *err, size_t errlen)
{
    tpu_core *c = core_of(y, core, err, errlen);
    if (!c)
        return NULL;
    tpu_probe p;
    tpu_probe_core(c, tpu_system_cycle(y->s), &p);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    fprintf(f, "{\"pc\": %" PRIu64 ", \"word\": %" PRIu64 ", \"halted\": %u, \"stuck\": %u, "
            "\"error\": %u, \"unit_busy\": %u, \"sem\": [", p.pc, p.word, p.halted, p.stuck,
            p.error, p.unit_busy);
    for (unsigned i = 0; i < 32; i++)
        fprintf(f, "%s%u", i ? ", " : "", p.sem[i]);
    fprintf(f, "], \"q_dma\": %u, \"q_ici\": %u, \"q_vpu\": %u, \"q_mxu\": [%u, %u, %u, %u], "
            "\"dma\": [", p.q_dma, p.q_ici, p.q_vpu, p.q_mxu[0], p.q_mxu[1], p.q_mxu[2],
            p.q_mxu[3]);
    static const char *const dstate[] = { "idle", "wait", "xfer" };
    for (unsigned i = 0; i < p.ndma && i < TPU_PROBE_MAX_DMA; i++) {
        const tpu_probe_dma *d = &p.dma[i];
        fprintf(f, "%s{\"state\": \"%s\", \"to_vmem\": %u, \"xfer_at\": %" PRIu64
                ", \"left\": %" PRIu64 ", \"total\": %" PRIu64 ", \"pc\": %" PRIu64 "}",
                i ? ", " : "", d->state < 3 ? dstate[d->state] : "?", d->to_vmem, d->xfer_at,
                d->left, d->total, d->pc);
    }
    fputs("], \"mxu\": [", f);
    for (unsigned i = 0; i < p.nmxu && i < 4; i++) {
        const tpu_probe_mxu *m = &p.mxu[i];
        fprintf(f, "%s{\"busy\": %u, \"lw_reading\": %" PRIu64 ", \"streaming\": %u, "
                "\"pending\": %u, \"rows_left\": %" PRIu64 ", \"rows_streamed\": %" PRIu64 "}",
                i ? ", " : "", m->busy, m->lw_reading, m->streaming, m->pending, m->rows_left,
                m->rows_streamed);
    }
    fprintf(f, "], \"vpu_busy\": %u, \"vpu_ops\": %" PRIu64 ", \"ici_sending\": %u, \"ports\": [",
            p.vpu_busy, p.vpu_ops, p.ici_sending);
    for (unsigned i = 0; i < 4; i++) {
        const tpu_probe_port *q = &p.port[i];
        fprintf(f, "%s{\"connected\": %u, \"sending\": %u, \"bytes\": %" PRIu64 ", \"sent\": %"
                PRIu64 ", \"pc\": %" PRIu64 "}", i ? ", " : "", q->connected, q->sending,
                q->bytes, q->sent, q->pc);
    }
    fputs("]}", f);
    fclose(f);
    return buf;
}

/* ---- numerics ---------------------------------------------------------- */

void tpy_bf16_from_f32(const uint32_t *src, uint16_t *dst, size_t n)
{
    for (size_t i = 0; i < n; i++)
        dst[i] = tpu_bf16_from_f32(src[i]);
}

void tpy_f32_from_bf16(const uint16_t *src, uint32_t *dst, size_t n)
{
    for (size_t i = 0; i < n; i++)
        dst[i] = tpu_f32_from_bf16(src[i]);
}

/* tpu_ref_matmul: fp32 Y[b,f] = bf16 X[b,d] . bf16 W[d,f] with K-tiles of
 * `tile` rows, the model's order (ref.h). */
int tpy_ref_matmul(const uint16_t *x, const uint16_t *w, uint32_t *y, uint64_t b, uint64_t d,
                   uint64_t f, unsigned tile, char *err, size_t errlen)
{
    if (!tile || tile > TPU_REF_MAX_N) {
        snprintf(err, errlen, "tile %u out of range (1 to %u)", tile, TPU_REF_MAX_N);
        return -1;
    }
    if (tpu_ref_matmul(x, w, y, b, d, f, tile)) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    return 0;
}

/* ---- the kernel generator ---------------------------------------------- */

/* Plan and emit a GEMM (kgen.h) for cfg, named config_name in the program.
 * The assembly (malloc'ed) goes to *src; the plan's numbers to info[]
 * (TPY_GEMM_INFO of them, the order of the table in the package's
 * _core.py) and the cost model's to cost[] (predicted, t_math, t_memory,
 * t_issue); the bound's name to bound. */
#define TPY_GEMM_INFO 22
int tpy_gemm(const tpu_config *cfg, const char *config_name, uint64_t m, uint64_t n, uint64_t k,
             int dtype, int timing_only, uint64_t tile_m, uint64_t tile_n, uint64_t tile_k,
             char **src, uint64_t *info, double *cost, char *bound, size_t bound_len, char *err,
             size_t errlen)
{
    kgen_gemm_opts o;
    memset(&o, 0, sizeof o);
    o.m = m;
    o.n = n;
    o.k = k;
    if (dtype < 0 || dtype > KGEN_W8) {
        snprintf(err, errlen, "unknown dtype %d", dtype);
        return -1;
    }
    o.dtype = (kgen_dtype)dtype;
    o.timing_only = timing_only;
    o.tile_m = tile_m;
    o.tile_n = tile_n;
    o.tile_k = tile_k;
    if (!m || !n || !k) {
        snprintf(err, errlen, "the shape must be positive: M %" PRIu64 ", N %" PRIu64 ", K %"
                 PRIu64, m, n, k);
        return -1;
    }
    kgen_plan p;
    if (kgen_gemm_plan(cfg, &o, &p, err, errlen))
        return -1;
    kgen_cost c;
    kgen_gemm_cost(cfg, &p, &c);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    long ninsn = kgen_gemm_emit(f, config_name, cfg, &p, &c);
    fclose(f);
    if (ninsn < 0) {
        free(buf);
        snprintf(err, errlen, "cannot write the program");
        return -1;
    }
    if ((uint64_t)ninsn > cfg->imem_words) {
        free(buf);
        snprintf(err, errlen, "the program has %ld instructions, IMEM holds %" PRIu64, ninsn,
                 cfg->imem_words);
        return -1;
    }
    uint64_t v[TPY_GEMM_INFO] = { p.kp, p.np, p.kq, p.kt, p.nt, p.mxus, p.tm, p.mtiles, p.groups,
                                  p.kb, p.ring, p.xbufs, p.x_row, p.w_row_hbm, p.h_x, p.h_w,
                                  p.h_y, p.hbm_need, p.vmem_need, p.x_bytes, p.w_bytes,
                                  p.y_bytes };
    memcpy(info, v, sizeof v);
    cost[0] = c.predicted;
    cost[1] = c.t_math;
    cost[2] = c.t_memory;
    cost[3] = c.t_issue;
    cost[4] = p.efficiency;
    cost[5] = (double)ninsn;
    snprintf(bound, bound_len, "%s", c.bound ? c.bound : "");
    *src = buf;
    return 0;
}
