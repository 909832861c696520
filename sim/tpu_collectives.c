/*
 * tpu_collectives.c - tpu-collectives, the communication roofline measured
 * on the C model.
 *
 *   tpu-collectives [--config NAME|FILE] [--set KEY=VALUE]... [--out DIR]
 *                   [--img DIR] [--topologies LIST] [--collectives LIST]
 *                   [--min-bytes N] [--max-bytes N] [--programs DIR]
 *                   [--no-plot] [--quiet]
 *   tpu-collectives --matmul-2chip [--config ...] [--out DIR] [--img DIR]
 *                   [--b B] [--f F] [--ds LIST]
 *
 * Runs programs/allgather.s, reducescatter.s, allreduce.s and alltoall.s
 * (the routines of programs/lib/ring.inc) in-process on rings, tori and meshes
 * of cores, over shard sizes from a few hundred bytes up to what VMEM
 * holds, and writes a CSV, a summary and a gnuplot script (PNG and SVG per
 * collective: time against shard size, with the model's bandwidth and
 * latency lines).  For each collective and topology it prints the fitted
 * per-hop latency and link bandwidth and the shard size where the time
 * turns from latency-bound to bandwidth-bound (docs/collectives.md).
 * With --matmul-2chip it runs programs/matmul_2chip.s (X[B,D] . W[D,F], D
 * split over two chips, bf16 partial sums over one link) over D and prints
 * where the MXUs' busy time overtakes the link's: the book's D = 8755.
 * Exit status: 0 every run halted, 1 a run failed, 2 bad command line or
 * config, 3 the files could not be written or gnuplot failed, 130 Ctrl-C
 * (the points done so far are written, no plot).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "interrupt.h"
#include "progress.h"
#include "report.h"
#include "sweep.h"

enum { EXIT_FAIL = 1, EXIT_USAGE = 2, EXIT_FILES = 3 };
enum { AG, RS, AR, AA, AGW, AGB, RSB, ARB, NCOLL };
static const char *const coll_name[NCOLL] = { "allgather", "reducescatter", "allreduce",
                                              "alltoall", "allgather-whole", "allgather-both",
                                              "reducescatter-both", "allreduce-both" };
static const char *const coll_title[NCOLL] = { "AllGather", "ReduceScatter", "AllReduce",
                                               "AllToAll",
                                               "AllGather, whole shards half way round",
                                               "AllGather, both torus axes at once",
                                               "ReduceScatter, both torus axes at once",
                                               "AllReduce, both torus axes at once" };
/* the program each runs (allgather-whole: allgather.s -D WHOLE=1; the
 * -both ones: -D BOTH=1) */
static const char *const coll_prog[NCOLL] = { "allgather", "reducescatter", "allreduce",
                                              "alltoall", "allgather", "allgather",
                                              "reducescatter", "allreduce" };
/* a both-axes collective's one axis after the other (its plot shows both),
 * or -1 */
static int one_axis_of(int coll)
{
    return coll == AGB ? AG : coll == RSB ? RS : coll == ARB ? AR : -1;
}

#define MAX_TOPOS 16
#define MAX_POINTS 2048

typedef struct topo {
    char name[32];          /* ring8, torus4x4, mesh4x4 */
    enum tpu_topology kind;
    unsigned rows, cols;    /* a ring: 1 x n */
} topo;

/* Which collectives run on which topologies: all of them everywhere but
 * the whole-shard AllGather on a mesh (it needs wraparound), and the
 * both-axes ones only on a torus of at least 2 x 2.  (AllToAll on a
 * mesh: mesh_alltoall, alltoall.s -D WRAP=0.) */
static int runs_on(int coll, const topo *t)
{
    if (one_axis_of(coll) >= 0)
        return t->kind == TPU_TOPO_TORUS2D && t->rows >= 2 && t->cols >= 2;
    return coll != AGW || t->kind != TPU_TOPO_MESH2D;
}

typedef struct point {
    int coll, topo;
    uint64_t shard;         /* bytes each core brings (AG) or ends with (RS, AR) */
    uint64_t cycles;
    double bw, lat;         /* the model's bandwidth and latency terms, cycles */
    double link_bytes;      /* bytes the busiest link direction carries */
    unsigned hops;
    int ok;
} point;

typedef struct options {
    const char *config, *out, *img, *programs;
    const char *sets[256];
    unsigned nsets;
    topo topos[MAX_TOPOS];
    unsigned ntopos;
    int colls[NCOLL];
    uint64_t min_bytes, max_bytes;
    int plot, quiet;
    int matmul2;                    /* --matmul-2chip */
    uint64_t mm_b, mm_f;
    uint64_t mm_d[32];
    unsigned mm_nd;
} options;

static void usage(FILE *f)
{
    fputs("usage: tpu-collectives [options]\n"
          "\n"
          "Measure ring collectives on the C model: run AllGather, ReduceScatter,\n"
          "AllReduce and AllToAll (programs/*.s with programs/lib/ring.inc) on rings, tori\n"
          "and meshes\n"
          "over shard sizes, write a CSV and plot time against size with the model's\n"
          "bandwidth and latency lines (gnuplot, PNG and SVG), and print the fitted\n"
          "per-hop latency, link bandwidth and knee (docs/collectives.md).\n"
          "\n"
          "options:\n"
          "  --config NAME|FILE   machine (default v5e)\n"
          "  --set KEY=VALUE      override one config key (repeatable), e.g. ici_bw=9e10\n"
          "  --out DIR            where collectives-NAME.csv, .txt and .gp go (default .)\n"
          "  --img DIR            where collectives-NAME-COLL.png and .svg go (default: --out)\n"
          "  --topologies LIST    e.g. ring4,ring8,ring16,torus4x4,mesh4x4 (the default)\n"
          "  --collectives LIST   allgather,reducescatter,allreduce,alltoall,allgather-whole,\n"
          "                       allgather-both,reducescatter-both,allreduce-both (the\n"
          "                       default; allgather-whole needs wraparound: not on a\n"
          "                       mesh; allgather-whole is allgather.s -D WHOLE=1; the\n"
          "                       -both ones, -D BOTH=1, run on tori of at least 2x2\n"
          "                       only; alltoall on a mesh is alltoall.s -D WRAP=0)\n"
          "  --min-bytes N        smallest shard (default 256, raised to what the\n"
          "                       programs need: two vector registers for the reductions)\n"
          "  --max-bytes N        largest shard (default 16 MiB, lowered to what VMEM holds)\n"
          "  --programs DIR       where allgather.s etc. are (default ./programs, then\n"
          "                       ../../programs next to the executable)\n"
          "  --matmul-2chip       instead: the two-chip matmul with D split (matmul_2chip.s)\n"
          "                       over D; prints where compute overtakes the link\n"
          "  --b B, --f F         its batch and output columns (default 512 and 8192)\n"
          "  --ds LIST            its D values (default 2048,4096,...,16384)\n"
          "  --no-plot            write the CSV and the script, do not run gnuplot\n"
          "  --quiet              print only the summary\n"
          "  -h, --help           print this help and exit\n"
          "\n"
          "exit status: 0 success, 1 a run failed, 2 bad command line or config, 3 files\n"
          "or gnuplot failed, 130 interrupted\n", f);
}

static int bad_usage(const char *fmt, const char *arg)
{
    fprintf(stderr, "tpu-collectives: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\nTry 'tpu-collectives --help'.\n");
    return EXIT_USAGE;
}

/* ring8 | torus4x4 | mesh4x4 */
static int parse_topo(const char *s, topo *t)
{
    unsigned a = 0, b = 0;
    char rest;
    memset(t, 0, sizeof *t);
    if (sscanf(s, "ring%u%c", &a, &rest) == 1 && a >= 1 && a <= 4096) {
        t->kind = a == 1 ? TPU_TOPO_SINGLE : TPU_TOPO_RING;
        t->rows = 1, t->cols = a;
    } else if (sscanf(s, "torus%ux%u%c", &a, &b, &rest) == 2 && a >= 1 && b >= 1 && a * b <= 4096) {
        t->kind = TPU_TOPO_TORUS2D;
        t->rows = a, t->cols = b;
    } else if (sscanf(s, "mesh%ux%u%c", &a, &b, &rest) == 2 && a >= 1 && b >= 1 && a * b <= 4096) {
        t->kind = TPU_TOPO_MESH2D;
        t->rows = a, t->cols = b;
    } else {
        return -1;
    }
    snprintf(t->name, sizeof t->name, "%s", s);
    return 0;
}

static int parse_list(const char *arg, options *o, int topos)
{
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", arg);
    if (topos)
        o->ntopos = 0;
    else
        memset(o->colls, 0, sizeof o->colls);
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (topos) {
            if (o->ntopos == MAX_TOPOS)
                return bad_usage("too many topologies (at most 16): '%s'", arg);
            if (parse_topo(tok, &o->topos[o->ntopos]))
                return bad_usage("unknown topology '%s' (ringN, torusRxC or meshRxC)", tok);
            o->ntopos++;
        } else {
            int k;
            for (k = 0; k < NCOLL && strcmp(tok, coll_name[k]); k++)
                ;
            if (k == NCOLL)
                return bad_usage("unknown collective '%s' (allgather, reducescatter, "
                                 "allreduce, alltoall, allgather-whole, allgather-both, "
                                 "reducescatter-both or allreduce-both)", tok);
            o->colls[k] = 1;
        }
    }
    int any = 0;
    for (int k = 0; k < NCOLL; k++)
        any |= o->colls[k];
    if (topos ? o->ntopos == 0 : !any)
        return bad_usage("empty list '%s'", arg);
    return 0;
}

static int parse_bytes(const char *s, uint64_t *v)
{
    char *end;
    errno = 0;
    double d = strtod(s, &end);
    if (end == s || errno)
        return -1;
    if (*end == 'K' || *end == 'k')
        d *= 1024, end++;
    else if (*end == 'M')
        d *= 1024 * 1024, end++;
    if (*end || d < 4 || d > (double)(1ull << 40) || d != floor(d))
        return -1;
    *v = (uint64_t)d;
    return 0;
}

static int parse_dim(const char *s, uint64_t *v)
{
    char *end;
    errno = 0;
    unsigned long long x = strtoull(s, &end, 10);
    if (end == s || *end || errno || x == 0 || x > (1u << 24))
        return -1;
    *v = x;
    return 0;
}

static int parse_args(int argc, char **argv, options *o)
{
    memset(o, 0, sizeof *o);
    o->config = "v5e";
    o->out = ".";
    o->min_bytes = 256;
    o->max_bytes = 16u << 20;
    o->plot = 1;
    parse_list("ring4,ring8,ring16,torus4x4,mesh4x4", o, 1);
    parse_list("allgather,reducescatter,allreduce,alltoall,allgather-whole,allgather-both,"
               "reducescatter-both,allreduce-both", o, 0);
    o->mm_b = 512;
    o->mm_f = 8192;
    for (unsigned k = 1; k <= 8; k++)
        o->mm_d[o->mm_nd++] = 2048 * k;
    for (int i = 1; i < argc; i++) {
        const char *v;
        int missing = 0;
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            usage(stdout);
            exit(0);
        } else if ((v = tpu_cli_opt_value(argc, argv, &i, "--config", &missing))) {
            o->config = v;
        } else if ((v = tpu_cli_opt_value(argc, argv, &i, "--set", &missing))) {
            if (o->nsets == 256)
                return bad_usage("too many --set options (at most %s)", "256");
            o->sets[o->nsets++] = v;
        } else if ((v = tpu_cli_opt_value(argc, argv, &i, "--out", &missing))) {
            o->out = v;
        } else if ((v = tpu_cli_opt_value(argc, argv, &i, "--img", &missing))) {
            o->img = v;
        } else if ((v = tpu_cli_opt_value(argc, argv, &i, "--programs", &missing))) {
            o->programs = v;
        } else if ((v = tpu_cli_opt_value(argc, argv, &i, "--topologies", &missing))) {
            if (parse_list(v, o, 1))
                return EXIT_USAGE;
        } else if ((v = tpu_cli_opt_value(argc, argv, &i, "--collectives", &missing))) {
            if (parse_list(v, o, 0))
                return EXIT_USAGE;
        } else if ((v = tpu_cli_opt_value(argc, argv, &i, "--min-bytes", &missing))) {
            if (parse_bytes(v, &o->min_bytes))
                return bad_usage("--min-bytes: expected a size such as 256, 64K or 4M, got '%s'", v);
        } else if ((v = tpu_cli_opt_value(argc, argv, &i, "--max-bytes", &missing))) {
            if (parse_bytes(v, &o->max_bytes))
                return bad_usage("--max-bytes: expected a size such as 256, 64K or 4M, got '%s'", v);
        } else if (!strcmp(argv[i], "--matmul-2chip")) {
            o->matmul2 = 1;
        } else if ((v = tpu_cli_opt_value(argc, argv, &i, "--b", &missing))) {
            if (parse_dim(v, &o->mm_b))
                return bad_usage("--b: expected a positive integer, got '%s'", v);
        } else if ((v = tpu_cli_opt_value(argc, argv, &i, "--f", &missing))) {
            if (parse_dim(v, &o->mm_f))
                return bad_usage("--f: expected a positive integer, got '%s'", v);
        } else if ((v = tpu_cli_opt_value(argc, argv, &i, "--ds", &missing))) {
            char buf[512];
            snprintf(buf, sizeof buf, "%s", v);
            o->mm_nd = 0;
            for (char *sv = NULL, *tok = strtok_r(buf, ",", &sv); tok; tok = strtok_r(NULL, ",", &sv)) {
                if (o->mm_nd == 32 || parse_dim(tok, &o->mm_d[o->mm_nd]))
                    return bad_usage("--ds: expected up to 32 positive integers, got '%s'", v);
                o->mm_nd++;
            }
        } else if (!strcmp(argv[i], "--no-plot")) {
            o->plot = 0;
        } else if (!strcmp(argv[i], "--quiet")) {
            o->quiet = 1;
        } else if (missing) {
            return bad_usage("option '%s' needs a value", argv[i]);
        } else {
            return bad_usage("unknown option '%s'", argv[i]);
        }
        if (missing)
            return bad_usage("option '%s' needs a value", argv[i]);
    }
    if (o->min_bytes > o->max_bytes)
        return bad_usage("--min-bytes is larger than --max-bytes%s", "");
    if (!o->img)
        o->img = o->out;
    return 0;
}

/* ---- programs ------------------------------------------------------------------------- */

typedef struct program {
    char path[1100];
    char *src;
    size_t len;
} program;

static int load_program(const options *o, const char *argv0, const char *name, program *p)
{
    char file[64];
    snprintf(file, sizeof file, "%s.s", name);
    p->src = tpu_cli_read_program("tpu-collectives", o->programs, argv0, file, p->path,
                                  sizeof p->path, &p->len);
    return p->src ? 0 : -1;
}

/* ---- the model --------------------------------------------------------------------------- */

/* The programs' costs (docs/collectives.md): axis by axis, a ring of n
 * moves (n - 1) slots, half each way with wraparound, whole slots both ways
 * without; AllGather goes along the row first (slots of S bytes, then
 * blocks of C*S on the columns), ReduceScatter the other way round
 * (blocks of R*S on the rows, then S); AllReduce is both.  AllToAll: on
 * a ring of n a link carries D (D+1)/2 chunks, D = n/2, over D hops; on a
 * torus the rows move super-chunks of R chunks, the columns blocks of C,
 * and the barrier between is one more hop.  On a mesh (mesh_alltoall) the
 * time follows a chain of whole bundles rather than the busiest link: the
 * bundle core 0 starts has n - 1 units, the next hop forwards n - 2, ...:
 * n (n-1)/2 units per axis over n - 1 hops, which the model counts as its
 * bytes (the middle link itself carries only n/2 x (n - n/2) units).  Both axes at once (AGB): a
 * quarter of every shard per link; phase 0 puts C - 1 quarters on a row
 * link and R - 1 on a column link, phase 1 (C - 1) R and (R - 1) C, and
 * each phase takes as long as its busier axis, over max(R, C) - 1 hops.
 * ReduceScatter on both axes (RSB) is the same backwards (phase 0 the long
 * slots, phase 1 the short ones: the same quarters of a chunk); AllReduce
 * (ARB) is both, four phases. */
static void model(const topo *t, int coll, uint64_t s, double w, double lat, point *p)
{
    if (coll == AA && t->kind == TPU_TOPO_MESH2D) {
        unsigned r = t->rows, c = t->cols;
        p->hops = (c - 1) + (r - 1) + (r > 1);
        p->link_bytes = ((double)c * (c - 1) / 2 * r + (double)r * (r - 1) / 2 * c) * (double)s;
        p->bw = p->link_bytes / w;
        p->lat = p->hops * lat;
        return;
    }
    if (coll == AA) {
        unsigned r = t->rows, c = t->cols, dc = c / 2, dr = r / 2;
        p->hops = dc + dr + (r > 1);
        p->link_bytes = ((double)dc * (dc + 1) / 2 * r + (double)dr * (dr + 1) / 2 * c) * (double)s;
        p->bw = p->link_bytes / w;
        p->lat = p->hops * lat;
        return;
    }
    if (coll == AGB || coll == RSB || coll == ARB) {
        unsigned r = t->rows, c = t->cols, h = (r > c ? r : c) - 1;
        double p0 = c > r ? c - 1.0 : r - 1.0;
        double p1 = (double)(c - 1) * r > (double)(r - 1) * c ? (double)(c - 1) * r
                                                              : (double)(r - 1) * c;
        p->hops = (coll == ARB ? 4 : 2) * h;
        p->link_bytes = (coll == ARB ? 2 : 1) * (p0 + p1) * (double)s / 4;
        p->bw = p->link_bytes / w;
        p->lat = p->hops * lat;
        return;
    }
    if (coll == AGW) {      /* whole slots, n/2 of them per link and n/2 hops, axis by axis */
        unsigned r = t->rows, c = t->cols;
        p->hops = c / 2 + r / 2;
        p->link_bytes = ((double)(c / 2) + (double)(r / 2) * c) * (double)s;
        p->bw = p->link_bytes / w;
        p->lat = p->hops * lat;
        return;
    }
    double wrap = t->kind == TPU_TOPO_MESH2D ? 1.0 : 2.0;
    unsigned r = t->rows, c = t->cols;
    double ag_link = ((c - 1) * (double)s + (r - 1) * (double)c * s) / wrap;
    double rs_link = ((c - 1) * (double)r * s + (r - 1) * (double)s) / wrap;
    p->hops = (r - 1) + (c - 1);
    p->link_bytes = coll == AG ? ag_link : coll == RS ? rs_link : ag_link + rs_link;
    p->bw = p->link_bytes / w;
    p->lat = (coll == AR ? 2.0 : 1.0) * p->hops * lat;
    if (coll == AR)
        p->hops *= 2;
}

/* the forward areas on an axis of n, in chunks (lib/ring.inc): ring_alltoall's
 * with wraparound, mesh_alltoall's (2 pos (n-1-pos), the middle core's) without */
static uint64_t a2a_work(uint64_t n, int mesh)
{
    if (mesh) {
        uint64_t x = n ? (n - 1) / 2 : 0;
        return n ? 2 * x * (n - 1 - x) : 0;
    }
    uint64_t d = n / 2, e = n - 1 - d;
    return d * (d - (d > 0)) / 2 + e * (e - (e > 0)) / 2;
}

/* VMEM the program needs for shard s (DATA=0), as its .asserts say. */
static uint64_t vmem_need(const topo *t, int coll, uint64_t s)
{
    uint64_t k = (uint64_t)t->rows * t->cols, r = t->rows, c = t->cols;
    int mesh = t->kind == TPU_TOPO_MESH2D;
    uint64_t wrow = (mesh ? c + 1 : 4) * r * s, wcol = (mesh ? r + 1 : 4) * s;
    uint64_t work = wrow > wcol ? wrow : wcol;         /* the reductions' scratch */
    uint64_t m = r > c ? r : c;                        /* torus.inc's, after OUT or RES */
    uint64_t twork = m ? (m - 1) * (r + c + 2) * s / 2 : 0;
    switch (coll) {
    case AG:
    case AGW:
    case AGB: return k * s;
    case RS: return k * s + r * s + work + s;
    case RSB: return k * s + twork;
    case ARB: return 2 * k * s + twork;
    case AA: {
        uint64_t wa = a2a_work(c, mesh) * r, wb = a2a_work(r, mesh) * c;
        return (k + k * (r > 1 ? 3 : 1) + (wa > wb ? wa : wb) + 1) * s;
    }
    default: return 2 * k * s + r * s + work;
    }
}

/* ---- running -------------------------------------------------------------------------- */

static void progress_cb(void *ctx, uint64_t cycle)
{
    (void)ctx;
    (void)cycle;
}

static int run_point(const options *o, const tpu_config *cfg, const program *prog, point *p,
                     char *err, size_t errlen)
{
    const topo *t = &o->topos[p->topo];
    char defs[7][64];
    tpu_asm_define d[7];
    size_t nd = 0;
    if (t->kind == TPU_TOPO_RING || t->kind == TPU_TOPO_SINGLE) {
        snprintf(defs[nd++], 64, "K=%u", t->cols);
    } else {
        snprintf(defs[nd++], 64, "R=%u", t->rows);
        snprintf(defs[nd++], 64, "C=%u", t->cols);
        snprintf(defs[nd++], 64, "WRAP=%d", t->kind == TPU_TOPO_TORUS2D);
    }
    if (p->coll == AGW)
        snprintf(defs[nd++], 64, "WHOLE=1");
    if (one_axis_of(p->coll) >= 0)
        snprintf(defs[nd++], 64, "BOTH=1");
    snprintf(defs[nd++], 64, "%s=%llu", p->coll == AG || p->coll == AGW || p->coll == AGB ? "SHARD" : p->coll == AA ? "CH" : "CHUNK",
             (unsigned long long)p->shard);
    snprintf(defs[nd++], 64, "DATA=0");
    for (size_t i = 0; i < nd; i++)
        if (tpu_asm_parse_define(defs[i], &d[i], err, errlen))
            return -1;
    tpu_system_opts so = { .cores = t->rows * t->cols, .topology = t->kind,
                           .rows = t->rows, .cols = t->cols };
    tpu_sweep_run r = { .cfg = cfg, .source = prog->src, .source_len = prog->len,
                        .filename = prog->path, .defines = d, .ndefines = nd, .system = &so,
                        .max_cycles = 2000000000ull, .interruptible = 1, .no_expect_ok = 1,
                        .progress = progress_cb };
    int rc = tpu_sweep_run_program(&r);
    p->cycles = r.cycles;
    p->ok = rc == 0;
    if (rc)
        snprintf(err, errlen, "%s", r.error);
    return r.interrupted ? 1 : rc;
}

/* ---- output ------------------------------------------------------------------------------- */

typedef struct fit {
    double w;               /* bytes per cycle per link direction, from the largest points */
    double lat;             /* cycles per hop, from the smallest point */
    double knee;            /* shard bytes where the two terms are equal */
    double big;             /* cycles / model bandwidth term at the largest shard */
    int n;
} fit;

static fit fit_series(const point *pts, size_t np, int coll, int t)
{
    fit f = { 0 };
    const point *lo = NULL, *hi1 = NULL, *hi2 = NULL;
    for (size_t i = 0; i < np; i++) {
        const point *p = &pts[i];
        if (p->coll != coll || p->topo != t || !p->ok)
            continue;
        f.n++;
        if (!lo || p->shard < lo->shard)
            lo = p;
        if (!hi1 || p->shard > hi1->shard)
            hi2 = hi1, hi1 = p;
        else if (!hi2 || p->shard > hi2->shard)
            hi2 = p;
    }
    if (f.n < 2 || !hi2 || hi1->link_bytes <= hi2->link_bytes)
        return f;
    f.w = (hi1->link_bytes - hi2->link_bytes) / ((double)hi1->cycles - (double)hi2->cycles);
    f.lat = lo->hops ? (double)lo->cycles / lo->hops : 0;
    /* link bytes grow linearly with the shard: knee where bytes/w = hops * lat */
    double per_byte = hi1->link_bytes / (double)hi1->shard;
    f.knee = f.w > 0 ? hi1->hops * f.lat * f.w / per_byte : 0;
    f.big = hi1->cycles / hi1->bw;
    return f;
}

static int write_outputs(const options *o, const tpu_config *cfg, const point *pts, size_t np,
                         int interrupted, char *paths, size_t pathlen)
{
    char csv[1200], txt[1200], gp[1200];
    snprintf(csv, sizeof csv, "%s/collectives-%s.csv", o->out, cfg->name);
    snprintf(txt, sizeof txt, "%s/collectives-%s.txt", o->out, cfg->name);
    snprintf(gp, sizeof gp, "%s/collectives-%s.gp", o->out, cfg->name);
    FILE *f = fopen(csv, "w");
    if (!f) {
        fprintf(stderr, "tpu-collectives: error: cannot write %s: %s\n", csv, strerror(errno));
        return -1;
    }
    double hz = cfg->clock_hz;
    fprintf(f, "collective,topology,cores,shard_bytes,gathered_bytes,cycles,us,model_bw_cycles,"
            "model_latency_cycles,hops,link_bytes,cycles_over_model_bw\n");
    for (size_t i = 0; i < np; i++) {
        const point *p = &pts[i];
        const topo *t = &o->topos[p->topo];
        if (!p->ok)
            continue;
        unsigned k = t->rows * t->cols;
        fprintf(f, "%s,%s,%u,%llu,%llu,%llu,%.4f,%.1f,%.1f,%u,%.0f,%.4f\n", coll_name[p->coll],
                t->name, k, (unsigned long long)p->shard,
                (unsigned long long)((k - 1) * p->shard), (unsigned long long)p->cycles,
                p->cycles / hz * 1e6, p->bw, p->lat, p->hops, p->link_bytes, p->cycles / p->bw);
    }
    fclose(f);

    /* the summary: one line per collective and topology */
    f = fopen(txt, "w");
    if (!f) {
        fprintf(stderr, "tpu-collectives: error: cannot write %s: %s\n", txt, strerror(errno));
        return -1;
    }
    double w = cfg->ici_bw / hz, lat = (double)cfg->ici_latency;
    FILE *outs[2] = { f, stdout };
    for (int k = 0; k < 2; k++) {
        FILE *g = outs[k];
        if (!g)
            continue;
        fprintf(g, "# tpu-collectives on %s%s: ICI %.3g B/s per link and direction (%.2f B/cycle), "
                "%llu cycles (%.3g us) per hop\n", cfg->name, interrupted ? " (interrupted)" : "",
                cfg->ici_bw, w, (unsigned long long)cfg->ici_latency, lat / hz * 1e6);
        fprintf(g, "# %-18s %-9s %6s %12s %10s %12s %11s %14s\n", "collective", "topology",
                "points", "link B/s", "(model)", "us per hop", "knee shard", "largest: x bw");
        for (int c = 0; c < NCOLL; c++)
            for (unsigned t = 0; t < o->ntopos; t++) {
                fit ft = fit_series(pts, np, c, (int)t);
                if (ft.n < 2)
                    continue;
                fprintf(g, "  %-18s %-9s %6d %12.3g %10.3g %12.3f %9.1f kB %13.3f\n",
                        coll_name[c], o->topos[t].name, ft.n, ft.w * hz, cfg->ici_bw,
                        ft.lat / hz * 1e6, ft.knee / 1000, ft.big);
            }
        fprintf(g, "# knee: the shard below which hops x latency outweighs the bytes (the book: "
                "a buffer under %.3g B/s x %.3g us = %.3g kB is latency-bound; a ring sends "
                "half a shard each way)\n", cfg->ici_bw, lat / hz * 1e6, cfg->ici_bw * lat / hz / 1000);
    }
    fclose(f);

    /* the gnuplot script: per collective, time against shard, points and model lines */
    f = fopen(gp, "w");
    if (!f) {
        fprintf(stderr, "tpu-collectives: error: cannot write %s: %s\n", gp, strerror(errno));
        return -1;
    }
    fprintf(f, "# generated by tpu-collectives for %s; run: gnuplot %s\n", cfg->name, gp);
    fprintf(f, "set datafile separator ','\nset logscale xy\nset key left top\nset grid\n"
            "set xlabel 'shard (bytes per core)'\nset ylabel 'time (us)'\n"
            "set yrange [%g:*]\n", (double)cfg->ici_latency / hz * 1e6 / 2);
    for (int c = 0; c < NCOLL; c++) {
        if (!o->colls[c])
            continue;
        for (int fmt = 0; fmt < 2; fmt++) {
            fprintf(f, "set terminal %s size 900,600\nset output '%s/collectives-%s-%s.%s'\n",
                    fmt ? "svg" : "pngcairo", o->img, cfg->name, coll_name[c],
                    fmt ? "svg" : "png");
            fprintf(f, "set title '%s on %s: measured (points), bandwidth term (dashed), hops x "
                    "latency (dotted)'\nplot ", coll_title[c], cfg->name);
            int first = 1;
            for (unsigned t = 0; t < o->ntopos; t++) {
                if (!runs_on(c, &o->topos[t]))
                    continue;
                const char *tn = o->topos[t].name;
                fprintf(f, "%s'%s' using (strcol(1) eq '%s' && strcol(2) eq '%s' ? $4 : 1/0):7 "
                        "with linespoints lc %u pt 7 title '%s', "
                        "'' using (strcol(1) eq '%s' && strcol(2) eq '%s' ? $4 : 1/0):($8/%.6g) "
                        "with lines dt 2 lc %u notitle, "
                        "'' using (strcol(1) eq '%s' && strcol(2) eq '%s' ? $4 : 1/0):($9/%.6g) "
                        "with lines dt 3 lc %u notitle",
                        first ? "" : ", \\\n     ", csv, coll_name[c], tn, t + 1, tn,
                        coll_name[c], tn, hz / 1e6, t + 1, coll_name[c], tn, hz / 1e6, t + 1);
                first = 0;
                /* a both-axes collective next to the one axis after the other */
                if (one_axis_of(c) >= 0 && o->colls[one_axis_of(c)])
                    fprintf(f, ", \\\n     '%s' using (strcol(1) eq '%s' && strcol(2) eq '%s' ? $4 : "
                            "1/0):7 with linespoints lc %u pt 6 dt 4 title '%s, one axis after "
                            "the other'", csv, coll_name[one_axis_of(c)], tn, t + 1, tn);
            }
            fprintf(f, "\n");
        }
    }
    fclose(f);
    snprintf(paths, pathlen, "%s, %s, %s", csv, txt, gp);
    return 0;
}

static int run_gnuplot(const char *script)
{
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        execlp("gnuplot", "gnuplot", script, (char *)NULL);
        fprintf(stderr, "tpu-collectives: error: cannot run gnuplot: %s (Debian: apt-get "
                "install gnuplot-nox)\n", strerror(errno));
        _exit(127);
    }
    int st;
    if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        fprintf(stderr, "tpu-collectives: error: gnuplot %s failed\n", script);
        return -1;
    }
    return 0;
}

/* ---- --matmul-2chip -------------------------------------------------------------------- */

typedef struct mm_point {
    uint64_t d, cycles, mxu_busy, ici_busy;
    double t_math, t_comm;
    char bound[32];
    int ok;
} mm_point;

/* Run matmul_2chip.s over D; the crossover is where chip 1's MXU busy time
 * (a line in D, fitted by least squares) meets its link's busy time (the
 * same for every D). */
static int matmul_2chip(const options *o, const tpu_config *cfg, const char *argv0)
{
    program prog;
    if (load_program(o, argv0, "matmul_2chip", &prog))
        return EXIT_USAGE;
    double peak = (double)cfg->num_mxu * cfg->mxu_n * cfg->mxu_n;     /* MACs per cycle */
    double w = cfg->ici_bw / cfg->clock_hz;
    double book = 2.0 * 2.0 * peak * cfg->clock_hz / cfg->ici_bw;      /* D = 2 peak FLOP/s / W */
    mm_point pts[32];
    unsigned np = 0;
    int failed = 0, interrupted = 0;
    tpu_interrupt_install();
    if (!o->quiet)
        printf("%8s %12s %10s %12s %12s %12s %12s  %s\n", "D", "cycles", "us", "T_math",
               "T_comms", "MXU busy", "link busy", "chip 1");
    for (unsigned i = 0; i < o->mm_nd && !interrupted; i++) {
        mm_point *p = &pts[np];
        memset(p, 0, sizeof *p);
        p->d = o->mm_d[i];
        p->t_math = (double)o->mm_b * (p->d / 2) * o->mm_f / peak;
        p->t_comm = 2.0 * o->mm_b * o->mm_f / w;
        char defs[4][64], err[600];
        tpu_asm_define d[4];
        snprintf(defs[0], 64, "B=%llu", (unsigned long long)o->mm_b);
        snprintf(defs[1], 64, "D=%llu", (unsigned long long)p->d);
        snprintf(defs[2], 64, "F=%llu", (unsigned long long)o->mm_f);
        snprintf(defs[3], 64, "DATA=0");
        for (int k = 0; k < 4; k++)
            tpu_asm_parse_define(defs[k], &d[k], err, sizeof err);
        tpu_system_opts so = { .cores = 2, .topology = TPU_TOPO_RING };
        tpu_sweep_run r = { .cfg = cfg, .source = prog.src, .source_len = prog.len,
                            .filename = prog.path, .defines = d, .ndefines = 4, .system = &so,
                            .max_cycles = 2000000000ull, .interruptible = 1, .no_expect_ok = 1,
                            .stats_core = 1 };
        int rc = tpu_sweep_run_program(&r);
        if (r.interrupted || tpu_interrupted()) {
            interrupted = 1;
            break;
        }
        if (rc) {
            fprintf(stderr, "tpu-collectives: matmul_2chip D=%llu: %s\n",
                    (unsigned long long)p->d, r.error);
            failed = 1;
            continue;
        }
        p->ok = 1;
        p->cycles = r.cycles;
        p->mxu_busy = r.stats.unit[TPU_U_MXU0].busy_cycles;
        p->ici_busy = r.stats.unit[TPU_U_ICI].busy_cycles;
        tpu_roofline rl;
        tpu_roofline_core(cfg, &r.stats, &rl);
        snprintf(p->bound, sizeof p->bound, "%s", tpu_bound_name(rl.bound));
        if (!o->quiet) {
            printf("%8llu %12llu %10.2f %12.0f %12.0f %12llu %12llu  %s\n",
                   (unsigned long long)p->d, (unsigned long long)p->cycles,
                   p->cycles / cfg->clock_hz * 1e6, p->t_math, p->t_comm,
                   (unsigned long long)p->mxu_busy, (unsigned long long)p->ici_busy, p->bound);
            fflush(stdout);
        }
        np++;
    }
    free(prog.src);
    /* least squares: mxu_busy = a + b D; the link's busy time: its mean */
    double sx = 0, sy = 0, sxx = 0, sxy = 0, link = 0;
    for (unsigned i = 0; i < np; i++) {
        double x = (double)pts[i].d, y = (double)pts[i].mxu_busy;
        sx += x, sy += y, sxx += x * x, sxy += x * y;
        link += (double)pts[i].ici_busy;
    }
    double cross = 0;
    if (np >= 2) {
        double b = (np * sxy - sx * sy) / (np * sxx - sx * sx), a = (sy - b * sx) / np;
        link /= np;
        cross = b > 0 ? (link - a) / b : 0;
    }
    char csv[1200], gp[1200];
    snprintf(csv, sizeof csv, "%s/matmul2chip-%s.csv", o->out, cfg->name);
    snprintf(gp, sizeof gp, "%s/matmul2chip-%s.gp", o->out, cfg->name);
    FILE *f = fopen(csv, "w");
    if (!f) {
        fprintf(stderr, "tpu-collectives: error: cannot write %s: %s\n", csv, strerror(errno));
        return EXIT_FILES;
    }
    fprintf(f, "d,cycles,us,t_math_cycles,t_comms_cycles,mxu_busy_cycles,link_busy_cycles,bound\n");
    for (unsigned i = 0; i < np; i++)
        fprintf(f, "%llu,%llu,%.3f,%.0f,%.0f,%llu,%llu,%s\n", (unsigned long long)pts[i].d,
                (unsigned long long)pts[i].cycles, pts[i].cycles / cfg->clock_hz * 1e6,
                pts[i].t_math, pts[i].t_comm, (unsigned long long)pts[i].mxu_busy,
                (unsigned long long)pts[i].ici_busy, pts[i].bound);
    fclose(f);
    f = fopen(gp, "w");
    if (!f) {
        fprintf(stderr, "tpu-collectives: error: cannot write %s: %s\n", gp, strerror(errno));
        return EXIT_FILES;
    }
    fprintf(f, "# generated by tpu-collectives --matmul-2chip for %s; run: gnuplot %s\n"
            "set datafile separator ','\nset key left top\nset grid\n"
            "set xlabel 'D (split over 2 chips)'\nset ylabel 'time (us)'\n", cfg->name, gp);
    for (int fmt = 0; fmt < 2; fmt++)
        fprintf(f, "set terminal %s size 900,600\nset output '%s/matmul2chip-%s.%s'\n"
                "set title 'X[%llu,D] . W[D,%llu] on two %s chips, bf16 partial sums over one "
                "link\\ncompute-bound above D = %.0f (measured), %.0f (arithmetic; the book: "
                "8755)'\n"
                "set arrow 1 from %.0f, graph 0 to %.0f, graph 1 nohead dt 3\n"
                "plot '%s' using 1:3 with linespoints pt 7 title 'measured', "
                "'' using 1:($4/%.6g) with lines dt 2 title 'T_{math}', "
                "'' using 1:($5/%.6g) with lines dt 2 title 'T_{comms}'\n",
                fmt ? "svg" : "pngcairo", o->img, cfg->name, fmt ? "svg" : "png",
                (unsigned long long)o->mm_b, (unsigned long long)o->mm_f, cfg->name, cross, book,
                cross, cross, csv, cfg->clock_hz / 1e6, cfg->clock_hz / 1e6);
    fclose(f);
    printf("# matmul_2chip on %s, B=%llu F=%llu: compute overtakes the link at D = %.0f "
           "(measured: chip 1's MXU busy time against its link's), %.0f by the arithmetic "
           "(2 x peak / link bandwidth; the book: 8755); %+.1f%%\n", cfg->name,
           (unsigned long long)o->mm_b, (unsigned long long)o->mm_f, cross, book,
           book > 0 ? 100.0 * (cross / book - 1) : 0);
    if (interrupted) {
        fprintf(stderr, "tpu-collectives: interrupted after %u of %u points: wrote %s (no plot)\n",
                np, o->mm_nd, csv);
        return 130;
    }
    if (o->plot && run_gnuplot(gp))
        return EXIT_FILES;
    printf("wrote        %s, %s%s\n", csv, gp, o->plot ? " and the plots" : "");
    return failed ? EXIT_FAIL : 0;
}

int main(int argc, char **argv)
{
    options o;
    int rc = parse_args(argc, argv, &o);
    if (rc)
        return rc;
    tpu_config cfg;
    if (tpu_cli_load_config("tpu-collectives", o.config, &cfg) ||
        tpu_cli_finish_config("tpu-collectives", &cfg, o.sets, o.nsets))
        return EXIT_USAGE;
    if (mkdir(o.out, 0777) && errno != EEXIST) {
        fprintf(stderr, "tpu-collectives: error: cannot create %s: %s\n", o.out, strerror(errno));
        return EXIT_FILES;
    }
    if (strcmp(o.img, o.out) && mkdir(o.img, 0777) && errno != EEXIST) {
        fprintf(stderr, "tpu-collectives: error: cannot create %s: %s\n", o.img, strerror(errno));
        return EXIT_FILES;
    }
    program progs[NCOLL] = { 0 };
    for (int c = 0; c < NCOLL; c++)
        if (!o.matmul2 && o.colls[c] && load_program(&o, argv[0], coll_prog[c], &progs[c]))
            return EXIT_USAGE;

    if (o.matmul2)
        return matmul_2chip(&o, &cfg, argv[0]);

    /* the points: shards from min to max by 4, within VMEM */
    static point pts[MAX_POINTS];
    size_t np = 0;
    uint64_t vb = cfg.vpu_sublanes * cfg.vpu_lanes * 4;
    double w = cfg.ici_bw / cfg.clock_hz;
    for (int c = 0; c < NCOLL; c++) {
        if (!o.colls[c])
            continue;
        for (unsigned t = 0; t < o.ntopos; t++) {
            if (!runs_on(c, &o.topos[t]))
                continue;
            uint64_t s = c == AG || c == AGW || c == AGB ? 256 : c == AA ? vb
                       : c == RSB || c == ARB ? 4 * vb : 2 * vb;
            while (s < o.min_bytes)
                s *= 2;
            for (; s <= o.max_bytes && vmem_need(&o.topos[t], c, s) <= cfg.vmem_bytes &&
                   np < MAX_POINTS; s *= 4) {
                point *p = &pts[np++];
                memset(p, 0, sizeof *p);
                p->coll = c, p->topo = (int)t, p->shard = s;
                model(&o.topos[t], c, s, w, (double)cfg.ici_latency, p);
            }
        }
    }
    if (np == 0) {
        fprintf(stderr, "tpu-collectives: error: no point fits (shards from %llu to %llu bytes "
                "in %llu bytes of VMEM)\n", (unsigned long long)o.min_bytes,
                (unsigned long long)o.max_bytes, (unsigned long long)cfg.vmem_bytes);
        return EXIT_USAGE;
    }

    tpu_interrupt_install();
    tpu_progress prog;
    tpu_progress_init(&prog, "tpu-collectives", stderr);
    int failed = 0, interrupted = 0;
    size_t done = 0;
    if (!o.quiet)
        printf("%-18s %-9s %10s %12s %10s %12s %12s\n", "collective", "topology", "shard B",
               "cycles", "us", "model bw", "/model bw");
    for (size_t i = 0; i < np && !interrupted; i++) {
        point *p = &pts[i];
        char err[600];
        tpu_progress_points(&prog, done, np, "points", NULL);
        int r = run_point(&o, &cfg, &progs[p->coll], p, err, sizeof err);
        if (r > 0 || tpu_interrupted()) {
            interrupted = 1;
            p->ok = 0;
            break;
        }
        done++;
        tpu_progress_clear(&prog);
        if (r < 0) {
            fprintf(stderr, "tpu-collectives: %s on %s, shard %llu: %s\n", coll_name[p->coll],
                    o.topos[p->topo].name, (unsigned long long)p->shard, err);
            failed = 1;
            continue;
        }
        if (!o.quiet) {
            printf("%-18s %-9s %10llu %12llu %10.2f %12.0f %11.3fx\n", coll_name[p->coll],
                   o.topos[p->topo].name, (unsigned long long)p->shard,
                   (unsigned long long)p->cycles, p->cycles / cfg.clock_hz * 1e6, p->bw,
                   p->cycles / p->bw);
            fflush(stdout);
        }
    }
    tpu_progress_clear(&prog);
    char paths[4000];
    if (write_outputs(&o, &cfg, pts, np, interrupted, paths, sizeof paths))
        return EXIT_FILES;
    for (int c = 0; c < NCOLL; c++)
        free(progs[c].src);
    if (interrupted) {
        fprintf(stderr, "tpu-collectives: interrupted after %zu of %zu points: wrote %s (no "
                "plot)\n", done, np, paths);
        return 130;
    }
    int plotted = 0;
    if (o.plot) {
        char gp[1200];
        snprintf(gp, sizeof gp, "%s/collectives-%s.gp", o.out, cfg.name);
        if (run_gnuplot(gp))
            return EXIT_FILES;
        plotted = 1;
    }
    printf("wrote        %s%s\n", paths, plotted ? " and the plots" : "");
    return failed ? EXIT_FAIL : 0;
}
