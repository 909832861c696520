/*
 * coll_args.c - tpu-collectives' command line (collectives.h).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "collectives.h"

void coll_usage(FILE *f)
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
          "  --topologies LIST    e.g. ring4,ring8,ring16,torus4x4,mesh4x4 (the default);\n"
          "                       torus3dXxYxZ (v4p/v5p: torus3d4x4x4) runs allgather,\n"
          "                       reducescatter and allreduce as programs/torus3d.s\n"
          "  --axes N             on a torus3d: over its first N axes (1: x, 2: x and y,\n"
          "                       3: all, the default), one axis after the other\n"
          "  --at-once            on a torus3d: the three axes at once (programs/torus3d.s\n"
          "                       -D ONCE=1: each shard in three parts, all six links\n"
          "                       busy; --axes 3; sizes 3/2 x a power of two: shards\n"
          "                       of 24 bytes, chunks of six vector registers, times 2^k)\n"
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

int coll_bad_usage(const char *fmt, const char *arg)
{
    fprintf(stderr, "tpu-collectives: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\nTry 'tpu-collectives --help'.\n");
    return EXIT_USAGE;
}

/* ring8 | torus4x4 | mesh4x4 | torus3d4x4x4 (X x Y x Z) */
static int parse_topo(const char *s, topo *t)
{
    unsigned a = 0, b = 0;
    char rest;
    unsigned z = 0;
    memset(t, 0, sizeof *t);
    t->depth = 1;
    if (sscanf(s, "torus3d%ux%ux%u%c", &a, &b, &z, &rest) == 3 && a >= 1 && b >= 1 && z >= 1 &&
        (uint64_t)a * b * z <= 4096) {
        t->kind = TPU_TOPO_TORUS3D;
        t->cols = a, t->rows = b, t->depth = z;
    } else if (sscanf(s, "ring%u%c", &a, &rest) == 1 && a >= 1 && a <= 4096) {
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
                return coll_bad_usage("too many topologies (at most 16): '%s'", arg);
            if (parse_topo(tok, &o->topos[o->ntopos]))
                return coll_bad_usage("unknown topology '%s' (ringN, torusRxC, meshRxC or "
                                      "torus3dXxYxZ)", tok);
            o->ntopos++;
        } else {
            int k;
            for (k = 0; k < NCOLL && strcmp(tok, coll_name[k]); k++)
                ;
            if (k == NCOLL)
                return coll_bad_usage("unknown collective '%s' (allgather, reducescatter, "
                                 "allreduce, alltoall, allgather-whole, allgather-both, "
                                 "reducescatter-both or allreduce-both)", tok);
            o->colls[k] = 1;
        }
    }
    int any = 0;
    for (int k = 0; k < NCOLL; k++)
        any |= o->colls[k];
    if (topos ? o->ntopos == 0 : !any)
        return coll_bad_usage("empty list '%s'", arg);
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

int coll_parse_args(int argc, char **argv, options *o)
{
    memset(o, 0, sizeof *o);
    o->config = "v5e";
    o->out = ".";
    o->min_bytes = 256;
    o->max_bytes = 16u << 20;
    o->plot = 1;
    o->axes = 3;
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
            coll_usage(stdout);
            exit(0);
        } else if ((v = tpu_cli_opt_value(argc, argv, &i, "--config", &missing))) {
            o->config = v;
        } else if ((v = tpu_cli_opt_value(argc, argv, &i, "--set", &missing))) {
            if (o->nsets == 256)
                return coll_bad_usage("too many --set options (at most %s)", "256");
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
        } else if ((v = tpu_cli_opt_value(argc, argv, &i, "--axes", &missing))) {
            if (strcmp(v, "1") && strcmp(v, "2") && strcmp(v, "3"))
                return coll_bad_usage("--axes: expected 1, 2 or 3, got '%s'", v);
            o->axes = (unsigned)(v[0] - '0');
        } else if ((v = tpu_cli_opt_value(argc, argv, &i, "--min-bytes", &missing))) {
            if (parse_bytes(v, &o->min_bytes))
                return coll_bad_usage("--min-bytes: expected a size such as 256, 64K or 4M, got '%s'", v);
        } else if ((v = tpu_cli_opt_value(argc, argv, &i, "--max-bytes", &missing))) {
            if (parse_bytes(v, &o->max_bytes))
                return coll_bad_usage("--max-bytes: expected a size such as 256, 64K or 4M, got '%s'", v);
        } else if (!strcmp(argv[i], "--at-once")) {
            o->once = 1;
        } else if (!strcmp(argv[i], "--matmul-2chip")) {
            o->matmul2 = 1;
        } else if ((v = tpu_cli_opt_value(argc, argv, &i, "--b", &missing))) {
            if (parse_dim(v, &o->mm_b))
                return coll_bad_usage("--b: expected a positive integer, got '%s'", v);
        } else if ((v = tpu_cli_opt_value(argc, argv, &i, "--f", &missing))) {
            if (parse_dim(v, &o->mm_f))
                return coll_bad_usage("--f: expected a positive integer, got '%s'", v);
        } else if ((v = tpu_cli_opt_value(argc, argv, &i, "--ds", &missing))) {
            char buf[512];
            snprintf(buf, sizeof buf, "%s", v);
            o->mm_nd = 0;
            for (char *sv = NULL, *tok = strtok_r(buf, ",", &sv); tok; tok = strtok_r(NULL, ",", &sv)) {
                if (o->mm_nd == 32 || parse_dim(tok, &o->mm_d[o->mm_nd]))
                    return coll_bad_usage("--ds: expected up to 32 positive integers, got '%s'", v);
                o->mm_nd++;
            }
        } else if (!strcmp(argv[i], "--no-plot")) {
            o->plot = 0;
        } else if (!strcmp(argv[i], "--quiet")) {
            o->quiet = 1;
        } else if (missing) {
            return coll_bad_usage("option '%s' needs a value", argv[i]);
        } else {
            return coll_bad_usage("unknown option '%s'", argv[i]);
        }
        if (missing)
            return coll_bad_usage("option '%s' needs a value", argv[i]);
    }
    if (o->min_bytes > o->max_bytes)
        return coll_bad_usage("--min-bytes is larger than --max-bytes%s", "");
    if (o->once && o->axes != 3)
        return coll_bad_usage("--at-once runs the three axes of a torus3d at once: it needs "
                              "--axes 3, got --axes %s", o->axes == 1 ? "1" : "2");
    if (!o->img)
        o->img = o->out;
    return 0;
}
