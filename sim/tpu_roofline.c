/*
 * tpu_roofline.c - tpu-roofline, the roofline measured on the C model.
 *
 *   tpu-roofline [--config NAME|FILE] [--set KEY=VALUE]... [--out DIR]
 *                [--img DIR] [--d D] [--f F] [--batches LIST]
 *                [--vmem-batches LIST] [--chunks N] [--reps N] [--jobs N]
 *                [--programs DIR] [--no-plot] [--quiet]
 *
 * Runs three sweeps in-process (assembler library + C model, sim/sweep.c):
 * the tiled bf16 matmul over the batch B at fixed D and F with W streamed
 * from HBM, the same with W in VMEM from the start (both
 * programs/matmul_sweep.s), and the pointwise ops (programs/pointwise.s).
 * For each run it records FLOPs, bytes and cycles and its roofline bound,
 * writes a CSV, a summary and a gnuplot script, runs gnuplot for a PNG and
 * an SVG, and prints the measured crossover batch and ridge next to what
 * the arithmetic predicts.  docs/roofline.md explains every number.
 * Exit status: 0 every run halted bit-exact, 1 a run failed, 2 bad command
 * line or config, 3 the files could not be written or gnuplot failed, 130
 * Ctrl-C (the points done so far are written, no plot).
 */
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "asm.h"
#include "cli.h"
#include "config.h"
#include "interrupt.h"
#include "progress.h"
#include "report.h"
#include "sweep.h"
#include "tpu.h"

enum { EXIT_OK = 0, EXIT_FAILED = 1, EXIT_USAGE = 2, EXIT_FILES = 3 };

#define MAX_SETS   256
#define MAX_POINTS 64
/* A run's fixed start and end cost (HBM latency, pipeline fill and drain)
 * is kept under 1/OVERHEAD_FACTOR of its length by repeating it (REPS). */
#define OVERHEAD_FACTOR 40.0
#define MAX_REPS 256
/* ... but a run is kept under about this many cycles: a slow HBM makes
 * every run long (hbm_bw = 1e6 on tiny: 0.001 bytes per cycle), so then
 * D, the batches and the pointwise chunks are chosen small enough, REPS
 * is cut and the fixed cost is a larger share.  The default runs of tiny
 * and v5e stay far below it (at most 1e5 and 6e5 cycles). */
#define POINT_CYCLES 2e6
/* A sweep estimated at more CPU seconds than this (all jobs together)
 * says so before it starts.  The estimate, measured on a 2-CPU x86
 * machine (rough, and only for the note): 5e-8 s a cycle, 1.8e-10 s per
 * MXU cell in a cycle the MXUs work, 2.4e-8 s per VPU lane in a cycle the
 * VPU works (v5e's default sweep: 1e-5 s a cycle on average). */
#define NOTE_SECONDS 20.0
#define CPU_CYCLE 5e-8
#define CPU_MXU_CELL 1.8e-10
#define CPU_VPU_LANE 2.4e-8
/* Points within this factor of a side's bound take part in that side's fit. */
#define SIDE_MARGIN 1.1

enum series { S_HBM, S_VMEM, S_ADD, S_MUL, S_RELU, S_COUNT };
static const char *const series_key[S_COUNT] = { "matmul_hbm", "matmul_vmem", "add", "mul",
                                                 "relu" };
static const char *const series_title[S_COUNT] = {
    "matmul, W streamed from HBM", "matmul, W in VMEM", "add (fp32)", "mul (fp32)",
    "relu (fp32)" };

/* What a child process sends back for one point. */
typedef struct outcome {
    int assembled, ok;
    int done;                           /* the point ran (not skipped by Ctrl-C) */
    char error[512];
    uint64_t ntext, cycles;
    tpu_stats stats;
} outcome;

typedef struct point {
    int series;
    int64_t b, reps, nchunk;
    double est;                         /* estimated cycles (plan) */
    double cpu;                         /* estimated CPU seconds (plan, the note) */
    outcome out;
    /* derived */
    double flops, hbm_bytes, wbytes;    /* wbytes: weight bytes the MXUs read from VMEM */
    double t_math, t_hbm, t_w, bound;   /* cycles */
    const char *bound_name;
    double x, y;                        /* intensity on the plot, FLOP/cycle */
    double pct;                         /* cycles as % of bound */
} point;

typedef struct options {
    const char *config;
    const char *sets[MAX_SETS];
    unsigned nsets;
    const char *out, *img, *programs;
    int64_t d, f, reps, chunks;
    const char *batches, *vmem_batches;
    unsigned jobs;
    int no_plot, quiet;
} options;

typedef struct sweep {
    tpu_config cfg;
    const options *o;
    int64_t d, f;
    char *src[2];                       /* matmul_sweep.s, pointwise.s */
    size_t len[2];
    char path[2][1024];
    point pts[MAX_POINTS];
    size_t npts;
    /* machine numbers */
    double n, nm, wl, peak, bw, vmem_bw, wl_bw, lat;
    int64_t dmab;                       /* bytes per DMA the matmul aims at */
} sweep;

/* ---- command line -------------------------------------------------------------------- */

static void usage(FILE *f)
{
    fputs("usage: tpu-roofline [options]\n"
          "\n"
          "Measure the roofline on the C model: run the tiled bf16 matmul over the batch B\n"
          "(W streamed from HBM, and W already in VMEM) and the pointwise ops, record FLOPs,\n"
          "bytes and cycles, write a CSV and plot it with gnuplot (PNG and SVG), and print\n"
          "the measured crossover batch and ridge (docs/roofline.md).\n"
          "\n"
          "options:\n"
          "  --config NAME|FILE   machine: a preset (tiny, mid, v5e) or a .cfg file\n"
          "                       (default v5e)\n"
          "  --set KEY=VALUE      override one config key (repeatable), e.g. hbm_bw=4.1e11\n"
          "  --out DIR            where roofline-NAME.csv, .txt and .gp go (default .)\n"
          "  --img DIR            where roofline-NAME.png and .svg go (default: --out)\n"
          "  --d D, --f F         the matmul's inner and output dimensions (default: the\n"
          "                       largest N * num_mxu * 2^k up to 4096 whose program fits\n"
          "                       the IMEM and whose runs stay short: 4096 on v5e)\n"
          "  --batches LIST       batches of the matmul with W in HBM, e.g. 64,256,1024\n"
          "                       (default: 1/16 to 4 times the predicted crossover)\n"
          "  --vmem-batches LIST  batches of the matmul with W in VMEM (default: N/W/8 to\n"
          "                       16 N/W, W = mxu_wloads; none: leave that sweep out)\n"
          "  --chunks N           chunks of the pointwise runs (default: enough that their\n"
          "                       start and end cost under 3%)\n"
          "  --reps N             matmuls per run (default: per point, enough that the\n"
          "                       start and end cost under about 3%)\n"
          "  --jobs N             runs at once, in child processes (default: the CPUs)\n"
          "  --programs DIR       where matmul_sweep.s and pointwise.s are (default\n"
          "                       programs, else ../../programs from the executable)\n"
          "  --no-plot            write the CSV, summary and script, do not run gnuplot\n"
          "  --quiet              print only the summary lines\n"
          "  -h, --help           print this help and exit\n"
          "\n"
          "On a terminal a line shows the points done, the time elapsed and left.  Ctrl-C\n"
          "(or SIGTERM) stops the runs and writes the CSV and summary of the points done\n"
          "(no plot).\n"
          "\n"
          "exit status: 0 every run halted and was bit-exact, 1 a run failed, 2 bad\n"
          "command line or config, 3 a file could not be written or gnuplot failed,\n"
          "130 interrupted\n", f);
}

static int bad_usage(const char *fmt, const char *arg)
{
    fprintf(stderr, "tpu-roofline: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\nTry 'tpu-roofline --help'.\n");
    return EXIT_USAGE;
}

/* A whole number in [lo, hi]; -1 when it is not one. */
static int parse_int(const char *s, int64_t lo, int64_t hi, int64_t *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (!*s || *end || errno || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

static int parse_args(int argc, char **argv, options *o)
{
    memset(o, 0, sizeof *o);
    o->config = "v5e";
    o->out = ".";
    o->programs = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
        int missing = 0;
        int64_t n;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return -1;
        } else if (!strcmp(a, "--no-plot")) {
            o->no_plot = 1;
        } else if (!strcmp(a, "--quiet")) {
            o->quiet = 1;
        } else if ((v = tpu_cli_opt_value(argc, argv, &i, "--config", &missing))) {
            o->config = v;
        } else if ((v = tpu_cli_opt_value(argc, argv, &i, "--set", &missing))) {
            if (o->nsets == MAX_SETS)
                return bad_usage("too many --set options (at most %s)", "256");
            o->sets[o->nsets++] = v;
        } else if ((v = tpu_cli_opt_value(argc, argv, &i, "--out", &missing))) {
            o->out = v;
        } else if ((v = tpu_cli_opt_value(argc, argv, &i, "--img", &missing))) {
            o->img = v;
        } else if ((v = tpu_cli_opt_value(argc, argv, &i, "--programs", &missing))) {
            o->programs = v;
        } else if ((v = tpu_cli_opt_value(argc, argv, &i, "--d", &missing))) {
            if (parse_int(v, 1, 1 << 20, &n))
                return bad_usage("--d wants a whole number from 1 to 1048576, not '%s'", v);
            o->d = n;
        } else if ((v = tpu_cli_opt_value(argc, argv, &i, "--f", &missing))) {
            if (parse_int(v, 1, 1 << 20, &n))
                return bad_usage("--f wants a whole number from 1 to 1048576, not '%s'", v);
            o->f = n;
        } else if ((v = tpu_cli_opt_value(argc, argv, &i, "--batches", &missing))) {
            o->batches = v;
        } else if ((v = tpu_cli_opt_value(argc, argv, &i, "--vmem-batches", &missing))) {
            o->vmem_batches = v;
        } else if ((v = tpu_cli_opt_value(argc, argv, &i, "--chunks", &missing))) {
            if (parse_int(v, 1, 4096, &n))
                return bad_usage("--chunks wants a whole number from 1 to 4096, not '%s'", v);
            o->chunks = n;
        } else if ((v = tpu_cli_opt_value(argc, argv, &i, "--reps", &missing))) {
            if (parse_int(v, 1, MAX_REPS, &n))
                return bad_usage("--reps wants a whole number from 1 to 256, not '%s'", v);
            o->reps = n;
        } else if ((v = tpu_cli_opt_value(argc, argv, &i, "--jobs", &missing))) {
            if (parse_int(v, 1, 256, &n))
                return bad_usage("--jobs wants a whole number from 1 to 256, not '%s'", v);
            o->jobs = (unsigned)n;
        } else if (missing) {
            return bad_usage("option '%s' needs a value", a);
        } else if (a[0] == '-') {
            return bad_usage("unknown option '%s'", a);
        } else {
            return bad_usage("unexpected argument '%s' (tpu-roofline takes no files)", a);
        }
    }
    if (!o->img)
        o->img = o->out;
    return 0;
}

/* Parse "64,256,1024" into b[] (at most max values, each 1 .. 1<<20). */
static int parse_list(const char *s, int64_t *b, size_t max, size_t *n, const char *opt)
{
    *n = 0;
    const char *p = s;
    while (*p) {
        char num[32];
        size_t len = strcspn(p, ",");
        int64_t v;
        if (len == 0 || len >= sizeof num)
            return bad_usage("%s wants numbers separated by commas", opt);
        memcpy(num, p, len);
        num[len] = 0;
        if (parse_int(num, 1, 1 << 20, &v))
            return bad_usage("%s wants batches from 1 to 1048576", opt);
        if (*n == max)
            return bad_usage("%s has too many values", opt);
        b[(*n)++] = v;
        p += len;
        if (*p == ',')
            p++;
    }
    if (!*n)
        return bad_usage("%s is empty", opt);
    return 0;
}

/* ---- files ---------------------------------------------------------------------------- */

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap)
            break;
        if (cap >= TPU_ASM_MAX_SOURCE) {
            free(buf);
            buf = NULL;
            break;
        }
        char *nb = realloc(buf, cap * 2);
        if (!nb) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = nb;
        cap *= 2;
    }
    if (buf && ferror(f)) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    *len = n;
    return buf;
}

/* Read programs/NAME from --programs, ./programs or ../../programs next to
 * the executable (build/bin/tpu-roofline). */
static int load_program(sweep *sw, int k, const char *name, const char *argv0)
{
    const char *dirs[3] = { sw->o->programs, NULL, NULL };
    char exe_dir[1024];
    int nd = 1;
    if (!sw->o->programs) {
        dirs[0] = "programs";
        const char *slash = strrchr(argv0, '/');
        if (slash && (size_t)(slash - argv0) < sizeof exe_dir - 20) {
            snprintf(exe_dir, sizeof exe_dir, "%.*s/../../programs", (int)(slash - argv0), argv0);
            dirs[nd++] = exe_dir;
        }
    }
    for (int i = 0; i < nd; i++) {
        snprintf(sw->path[k], sizeof sw->path[k], "%s/%s", dirs[i], name);
        if ((sw->src[k] = read_file(sw->path[k], &sw->len[k])))
            return 0;
    }
    fprintf(stderr, "tpu-roofline: error: cannot read %s/%s (run from the repository root or "
            "give --programs DIR)\n", dirs[0], name);
    return EXIT_USAGE;
}

static int make_dir(const char *dir)
{
    if (mkdir(dir, 0777) && errno != EEXIST) {
        fprintf(stderr, "tpu-roofline: error: cannot create %s: %s\n", dir, strerror(errno));
        return -1;
    }
    return 0;
}

/* ---- the machine and the arithmetic ---------------------------------------------------------- */

static void machine(sweep *sw)
{
    const tpu_config *c = &sw->cfg;
    sw->n = (double)c->mxu_n;
    sw->nm = (double)c->num_mxu;
    sw->wl = (double)c->mxu_wloads;
    sw->peak = 2.0 * sw->n * sw->n * sw->nm;
    sw->bw = c->hbm_bw / c->clock_hz;
    sw->vmem_bw = (double)c->vmem_bw;
    /* W loads in flight per MXU, each reading a weight row of 2N bytes per
     * cycle: a tile of 2N^2 bytes every N/W cycles (T19, T20, T25) */
    sw->wl_bw = sw->nm * 2.0 * sw->n * sw->wl;
    sw->lat = (double)c->hbm_latency;
    /* Every DMA holds an engine through the HBM latency: with E engines a
     * stream of S-byte copies keeps HBM busy when S (E - 1) >= latency *
     * bandwidth; half as much again for margin, a power of two. */
    double want = 1.5 * sw->lat * sw->bw / (c->dma_engines > 1 ? (double)c->dma_engines - 1 : 0.5);
    int64_t dmab = 256;
    while ((double)dmab < want && dmab < (int64_t)(c->vmem_bytes / 64))
        dmab *= 2;
    sw->dmab = dmab;
}

/* The batch where the streamed matmul turns compute-bound, from the exact
 * byte count 2BD + 2DF + 4BF against 2BDF FLOPs: B = R D F / (D F - R D
 * - 2 R F) with R = peak / bandwidth; -1 when it never does. */
static double predicted_crossover(const sweep *sw)
{
    double r = sw->peak / sw->bw, d = (double)sw->d, f = (double)sw->f;
    double den = d * f - r * d - 2.0 * r * f;
    return den > 0 ? r * d * f / den : -1;
}

/* X buffers and Y sets of matmul_sweep.s with W in VMEM (its XS and YS,
 * the same integer arithmetic): enough that X comes and Y goes back
 * through the HBM latency while the MXUs run at their best. */
static void vmem_buffers(const sweep *sw, int64_t b, int64_t *xs, int64_t *ys)
{
    int64_t n = (int64_t)sw->n, nm = (int64_t)sw->nm, wl = (int64_t)sw->wl;
    int64_t d = sw->d, f = sw->f, lat = (int64_t)sw->lat, hbmb = (int64_t)sw->bw;
    hbmb = hbmb < 1 ? 1 : hbmb;
    int64_t nw = (n + wl - 1) / wl, ts = b > nw ? b : nw;
    int64_t runc = d / n * (f / (n * nm)) * ts;
    int64_t xa = 1 + (lat + 2 * b * d / hbmb + 2 * ts + 64 + runc - 1) / runc;
    xa = xa <= 29 - nm ? xa : (30 - nm) / 2;
    int64_t voff = 3 + (b + 2 * n + ts - 1) / ts;
    int64_t y = 2 + (voff * ts + lat + b * 4 * f / hbmb + 2 * ts + 64 + runc - 1) / runc;
    int64_t ymax = 31 - (xa + 1 + nm);
    *xs = xa + 2;
    *ys = y > ymax ? ymax : y;
}

/* Bytes of VMEM a matmul_sweep.s run needs (its layout). */
static double matmul_vmem_need(const sweep *sw, double b, int wvmem, double reps)
{
    double xb = ceil(2.0 * b * (double)sw->d / 64.0) * 64.0;
    if (wvmem) {
        int64_t xs, ys;
        vmem_buffers(sw, (int64_t)b, &xs, &ys);
        return (double)xs * xb + (double)ys * b * 4.0 * (double)sw->f
             + 2.0 * (double)sw->d * (double)sw->f + 4096;
    }
    double slot = 2.0 * sw->n * sw->n * sw->nm * 8.0;    /* WK <= 8 blocks per slot, roughly */
    return (reps < 3 ? reps : 3) * xb + (wvmem ? 2.0 * (double)sw->d * (double)sw->f : 8 * slot)
         + 3.0 * b * 4.0 * sw->n * sw->nm + 4096;
}

/* One matmul of batch b at the sweep's D and F: its bound in cycles (the
 * largest of T_math, T_hbm and T_weights), and in *over (when not NULL)
 * the fixed start and end cost of a run (HBM latency, the first W block
 * and X chunk, the last group's results). */
static double matmul_cost(const sweep *sw, double b, int wvmem, double *over)
{
    double d = (double)sw->d, f = (double)sw->f, dmab = (double)sw->dmab;
    double tiles = d / sw->n * f / (sw->n * sw->nm);
    double t_math = 2.0 * b * d * f / sw->peak;
    double t_hbm = (2.0 * b * d + (wvmem ? 0 : 2.0 * d * f) + 4.0 * b * f) / sw->bw;
    double t_w = tiles * sw->n / sw->wl;
    double xt = 2.0 * b * sw->n;
    if (over)
        *over = 2.0 * sw->lat + 4.0 * sw->n
              + (2.0 * dmab + xt + b * 4.0 * (wvmem ? f : sw->n * sw->nm)) / sw->bw;
    return fmax(t_math, fmax(t_hbm, t_w));
}

/* Matmuls per run: enough that the fixed start and end cost stays under
 * 1/OVERHEAD_FACTOR of the run, but a run under about POINT_CYCLES. */
static int64_t matmul_reps(const sweep *sw, double b, int wvmem)
{
    if (sw->o->reps)
        return sw->o->reps;
    double over, t = matmul_cost(sw, b, wvmem, &over);
    double reps = ceil(OVERHEAD_FACTOR * over / t);
    reps = fmin(reps, floor(POINT_CYCLES / (t + over)));
    reps = reps < 1 ? 1 : reps > MAX_REPS ? MAX_REPS : reps;
    while (reps > 1 && matmul_vmem_need(sw, b, wvmem, reps) > (double)sw->cfg.vmem_bytes)
        reps--;
    return (int64_t)reps;
}

/* Bytes of one array in one chunk of programs/pointwise.s: its own choice
 * (VMEM / 32, at most 256 KiB), or the DMA size the engines need if that
 * is more (a faster HBM: see machine()); less when a chunk's three arrays
 * would take HBM more than POINT_CYCLES / 8 (a slow HBM); a whole number
 * of vector registers. */
static int64_t pointwise_ch(const sweep *sw)
{
    const tpu_config *c = &sw->cfg;
    int64_t vbytes = (int64_t)(c->vpu_sublanes * c->vpu_lanes * 4);
    int64_t ch0 = (int64_t)c->vmem_bytes / 32 < 262144 ? (int64_t)c->vmem_bytes / 32 : 262144;
    int64_t ch = ch0 > sw->dmab ? ch0 : sw->dmab;
    double slow = POINT_CYCLES / 8 * sw->bw / 3;
    if ((double)ch > slow)
        ch = (int64_t)slow;
    ch = ch / vbytes * vbytes;
    return ch < vbytes ? vbytes : ch;
}

/* One chunk of pointwise op `op`: its HBM time in cycles, and in *over the
 * fixed start and end cost of a run. */
static double pointwise_cost(const sweep *sw, int op, double *over)
{
    const tpu_config *c = &sw->cfg;
    double vbytes = (double)(c->vpu_sublanes * c->vpu_lanes * 4);
    double ch = (double)pointwise_ch(sw);
    double nin = op == S_RELU ? 1 : 2;
    *over = 2.0 * sw->lat + 2.0 * ch / sw->bw + 6.0 * ch / vbytes;
    return (nin + 1) * ch / sw->bw;
}

/* Chunks of a pointwise run. */
static int64_t pointwise_chunks(const sweep *sw, int op)
{
    if (sw->o->chunks)
        return sw->o->chunks;
    const tpu_config *c = &sw->cfg;
    double over, t_chunk = pointwise_cost(sw, op, &over);
    double ch = (double)pointwise_ch(sw);
    double n = ceil(OVERHEAD_FACTOR * over / t_chunk);
    double max_by_hbm = floor((double)c->hbm_bytes / 2 / (3 * ch));
    n = n < 8 ? 8 : n;
    n = fmin(n, fmax(1, floor(POINT_CYCLES / (t_chunk + over))));
    n = n > 1024 ? 1024 : n;
    n = n > max_by_hbm ? max_by_hbm : n;
    return n < 1 ? 1 : (int64_t)n;
}

/* The batch where the streamed matmul's sweep ends by default: 4 times
 * the predicted crossover.  With no crossover (a slow HBM, or D and F too
 * small) 16 N, but no more than a run of one matmul can afford
 * (POINT_CYCLES); at least 1. */
static double top_batch(const sweep *sw)
{
    double c = predicted_crossover(sw);
    if (c > 0)
        return 4 * c;
    double b = 16 * sw->n;
    while (b > 1 && matmul_cost(sw, b, 0, NULL) > POINT_CYCLES)
        b = floor(b * 0.8);
    return b < 1 ? 1 : b;
}

/* The matmul's D = F: N * NUM_MXU times a power of two (so any N works,
 * not only powers of two), the largest up to 4096 whose program fits in
 * half the IMEM (a step is about 5 NUM_MXU + 16 words) and whose sweep's
 * largest batch takes one matmul at most POINT_CYCLES (a slow HBM makes
 * it smaller); else the smallest, 2 N * NUM_MXU.  Sets sw->d and sw->f
 * (F = D unless --f). */
static void default_dim(sweep *sw)
{
    double words_per_step = 5.0 * sw->nm + 16.0;
    int64_t unit = (int64_t)sw->n * (int64_t)sw->nm, top = unit;
    while (top * 2 <= 4096)
        top *= 2;
    for (int64_t d = top; d >= 2 * unit; d /= 2) {
        sw->d = d;
        sw->f = sw->o->f ? sw->o->f : d;
        double steps = (double)sw->d / sw->n * (double)sw->f / (sw->n * sw->nm);
        if (steps * words_per_step <= (double)sw->cfg.imem_words / 2
            && matmul_cost(sw, top_batch(sw), 0, NULL) <= POINT_CYCLES)
            return;
    }
    sw->d = 2 * unit;
    sw->f = sw->o->f ? sw->o->f : sw->d;
}

/* ---- running the points --------------------------------------------------------------- */

/* Run point p in this process: assemble (halving REPS while the program
 * does not fit), run, check; `progress` (may be NULL) is called every few
 * thousand cycles with ctx.  With `interruptible`, Ctrl-C stops it at the
 * next slice of cycles: then out->done stays 0. */
static void run_point(const sweep *sw, point *p, outcome *out,
                      void (*progress)(void *ctx, uint64_t cycle), void *ctx, int interruptible)
{
    tpu_asm_define defs[10];
    size_t nd = 0;
    char err[256];
    char text[10][48];
    int k = p->series == S_HBM || p->series == S_VMEM ? 0 : 1;
    for (;;) {
        nd = 0;
        if (k == 0) {
            snprintf(text[nd++], sizeof text[0], "B=%lld", (long long)p->b);
            snprintf(text[nd++], sizeof text[0], "D=%lld", (long long)sw->d);
            snprintf(text[nd++], sizeof text[0], "F=%lld", (long long)sw->f);
            snprintf(text[nd++], sizeof text[0], "REPS=%lld", (long long)p->reps);
            snprintf(text[nd++], sizeof text[0], "WVMEM=%d", p->series == S_VMEM);
            snprintf(text[nd++], sizeof text[0], "DMAB=%lld", (long long)sw->dmab);
            snprintf(text[nd++], sizeof text[0], "WL=%lld", (long long)sw->wl);
            snprintf(text[nd++], sizeof text[0], "LAT=%lld", (long long)sw->lat);
            snprintf(text[nd++], sizeof text[0], "HBMB=%lld",
                     (long long)(sw->bw < 1 ? 1 : sw->bw));
        } else {
            snprintf(text[nd++], sizeof text[0], "OP=%d", p->series - S_ADD);
            snprintf(text[nd++], sizeof text[0], "NCHUNK=%lld", (long long)p->nchunk);
            snprintf(text[nd++], sizeof text[0], "CH=%lld", (long long)pointwise_ch(sw));
        }
        for (size_t i = 0; i < nd; i++)
            if (tpu_asm_parse_define(text[i], &defs[i], err, sizeof err)) {
                memset(out, 0, sizeof *out);
                snprintf(out->error, sizeof out->error, "-D %.40s: %.200s", text[i], err);
                out->done = 1;
                return;
            }
        tpu_sweep_run r = { .cfg = &sw->cfg, .source = sw->src[k], .source_len = sw->len[k],
                            .filename = sw->path[k], .defines = defs, .ndefines = nd,
                            .max_cycles = 4000000000ull, .interruptible = interruptible,
                            .progress = progress, .progress_ctx = ctx };
        tpu_sweep_run_program(&r);
        if (r.interrupted)
            return;
        if (!r.assembled && k == 0 && p->reps > 1) {
            p->reps = (p->reps + 1) / 2;        /* too big for the IMEM: fewer matmuls */
            continue;
        }
        out->assembled = r.assembled;
        out->ok = r.ok;
        snprintf(out->error, sizeof out->error, "%s", r.error);
        out->ntext = r.ntext;
        out->cycles = r.cycles;
        out->stats = r.stats;
        out->done = 1;
        return;
    }
}

/* Everything must arrive: write and read a whole buffer over a pipe. */
static int write_all(int fd, const void *buf, size_t n)
{
    const char *p = buf;
    while (n) {
        ssize_t k = write(fd, p, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return -1;
        p += k;
        n -= (size_t)k;
    }
    return 0;
}

static int read_all(int fd, void *buf, size_t n)
{
    char *p = buf;
    while (n) {
        ssize_t k = read(fd, p, n);
        if (k < 0 && errno == EINTR && !tpu_interrupted())
            continue;
        if (k <= 0)
            return -1;
        p += k;
        n -= (size_t)k;
    }
    return 0;
}

/* A child's messages on its pipe: its cycle so far (at most every
 * 0.1 s), then MSG_END, its REPS and its outcome. */
#define MSG_END UINT64_MAX

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The running points and the progress line. */
typedef struct runner {
    sweep *sw;
    tpu_progress prog;
    size_t done;
    unsigned nrun;
    size_t point[256];                  /* the running points */
    pid_t pid[256];                     /* their children (jobs > 1) */
    int fd[256];                        /* and pipes */
    uint64_t cycle[MAX_POINTS];         /* where each running point is */
    double last;                        /* a child: when it last reported */
    int fd_out;                         /* a child: its pipe */
} runner;

/* The progress line: points done of all, elapsed, time left, and how far
 * the running points are (their cycle against the plan's estimate). */
static void show(runner *r)
{
    char extra[160] = "";
    size_t len = 0;
    for (unsigned k = 0; k < r->nrun && k < 2; k++) {
        const point *p = &r->sw->pts[r->point[k]];
        double pct = p->est > 0 ? 100.0 * (double)r->cycle[r->point[k]] / p->est : 0;
        char b[24] = "";
        if (p->series == S_HBM || p->series == S_VMEM)
            snprintf(b, sizeof b, " B %lld", (long long)p->b);
        len += (size_t)snprintf(extra + len, sizeof extra - len, "%s%s%s %.0f%%",
                                k ? ", " : "running: ", series_key[p->series], b,
                                pct > 99 ? 99 : pct);
    }
    if (r->nrun > 2)
        snprintf(extra + len, sizeof extra - len, ", %u more", r->nrun - 2);
    tpu_progress_points(&r->prog, r->done, r->sw->npts, "points", extra[0] ? extra : NULL);
}

/* In this process (jobs = 1): the point's cycle, on the progress line. */
static void progress_here(void *ctx, uint64_t cycle)
{
    runner *r = ctx;
    r->cycle[r->point[0]] = cycle;
    show(r);
}

/* In a child: the cycle to the parent, at most ten times a second. */
static void progress_child(void *ctx, uint64_t cycle)
{
    runner *r = ctx;
    double t = now_seconds();
    if (t - r->last < 0.1)
        return;
    r->last = t;
    write_all(r->fd_out, &cycle, sizeof cycle);
}

/* Start point i in a child process; run it here when that fails. */
static void start_child(runner *r, size_t i)
{
    point *p = &r->sw->pts[i];
    int fds[2];
    pid_t pid = -1;
    if (!pipe(fds)) {
        pid = fork();
        if (pid == 0) {
            signal(SIGINT, SIG_DFL);
            signal(SIGTERM, SIG_DFL);
            close(fds[0]);
            outcome out;
            uint64_t end = MSG_END;
            memset(&out, 0, sizeof out);
            r->fd_out = fds[1];
            r->last = now_seconds();
            run_point(r->sw, p, &out, progress_child, r, 0);
            int bad = write_all(fds[1], &end, sizeof end)
                   || write_all(fds[1], &p->reps, sizeof p->reps)
                   || write_all(fds[1], &out, sizeof out);
            _exit(bad ? 1 : 0);
        }
        close(fds[1]);
        if (pid < 0)
            close(fds[0]);
    }
    if (pid < 0) {                              /* no pipe or no fork: here */
        run_point(r->sw, p, &p->out, NULL, NULL, 1);
        r->done += p->out.done;
        return;
    }
    r->point[r->nrun] = i;
    r->pid[r->nrun] = pid;
    r->fd[r->nrun] = fds[0];
    r->cycle[i] = 0;
    r->nrun++;
}

/* Child k has something to say: a cycle, or its end (then it is reaped). */
static void hear_child(runner *r, unsigned k)
{
    point *p = &r->sw->pts[r->point[k]];
    uint64_t msg;
    int bad = read_all(r->fd[k], &msg, sizeof msg);
    if (!bad && msg != MSG_END) {
        r->cycle[r->point[k]] = msg;
        return;
    }
    if (!bad)
        bad = read_all(r->fd[k], &p->reps, sizeof p->reps)
           || read_all(r->fd[k], &p->out, sizeof p->out);
    if (bad && tpu_interrupted())
        return;                                 /* run_all ends it */
    if (bad) {
        memset(&p->out, 0, sizeof p->out);
        p->out.done = 1;
        snprintf(p->out.error, sizeof p->out.error, "the child process running it failed");
    }
    close(r->fd[k]);
    while (waitpid(r->pid[k], NULL, 0) < 0 && errno == EINTR)
        ;
    r->nrun--;
    r->point[k] = r->point[r->nrun];
    r->pid[k] = r->pid[r->nrun];
    r->fd[k] = r->fd[r->nrun];
    r->done++;
}

/* Run every point, `jobs` at a time in child processes (each sends back
 * its cycles as it goes, then its REPS and its outcome, through a pipe),
 * or in this process when jobs is 1.  The children take Ctrl-C's default
 * action; here Ctrl-C starts no more points, ends the running ones and
 * returns with the finished ones marked done.  A progress line on a
 * terminal. */
static void run_all(sweep *sw, unsigned jobs)
{
    runner run, *r = &run;
    memset(r, 0, sizeof *r);
    r->sw = sw;
    tpu_progress_init(&r->prog, "tpu-roofline", stderr);
    fflush(NULL);
    size_t next = 0;
    while (r->done < sw->npts || r->nrun) {
        if (tpu_interrupted()) {                /* end the running points */
            for (unsigned k = 0; k < r->nrun; k++) {
                kill(r->pid[k], SIGKILL);
                close(r->fd[k]);
                while (waitpid(r->pid[k], NULL, 0) < 0 && errno == EINTR)
                    ;
            }
            break;
        }
        if (jobs <= 1 && next < sw->npts) {
            r->point[0] = next;
            r->cycle[next] = 0;
            r->nrun = 1;
            show(r);
            run_point(sw, &sw->pts[next], &sw->pts[next].out, progress_here, r, 1);
            r->nrun = 0;
            r->done += sw->pts[next++].out.done;
            continue;
        }
        while (r->nrun < jobs && next < sw->npts)
            start_child(r, next++);
        show(r);
        if (!r->nrun) {
            if (next == sw->npts)
                break;
            continue;
        }
        struct pollfd pf[256];
        for (unsigned k = 0; k < r->nrun; k++)
            pf[k] = (struct pollfd){ .fd = r->fd[k], .events = POLLIN };
        if (poll(pf, r->nrun, 100) <= 0)
            continue;                           /* a tick of the clock, or Ctrl-C */
        for (unsigned k = r->nrun; k-- > 0;)
            if (pf[k].revents)
                hear_child(r, k);
    }
    tpu_progress_clear(&r->prog);
}

/* ---- analysis ------------------------------------------------------------------------------ */

/* Bound, intensity and achieved rate of one point from its counts. */
static void derive(const sweep *sw, point *p)
{
    const tpu_stats *st = &p->out.stats;
    tpu_roofline rl;
    tpu_roofline_core(&sw->cfg, st, &rl);               /* report.c's arithmetic */
    p->flops = (double)st->flops;
    p->hbm_bytes = (double)(st->hbm_read_bytes + st->hbm_write_bytes);
    p->t_math = rl.t_math;
    p->t_hbm = rl.t_memory;
    p->t_w = 0;
    p->wbytes = 0;
    if (p->series == S_HBM || p->series == S_VMEM) {
        double tiles = (double)sw->d / sw->n * (double)sw->f / (sw->n * sw->nm);
        p->t_w = (double)p->reps * tiles * sw->n / sw->wl;
        p->wbytes = 2.0 * (double)sw->d * (double)sw->f * (double)p->reps;
    }
    p->bound = fmax(p->t_math, fmax(p->t_hbm, p->t_w));
    p->bound_name = p->bound == p->t_math ? "compute" : p->bound == p->t_hbm ? "hbm" : "weights";
    p->pct = p->bound > 0 ? 100.0 * (double)p->out.cycles / p->bound : 0;
    p->y = p->out.cycles ? p->flops / (double)p->out.cycles : 0;
    p->x = p->series == S_VMEM ? (p->wbytes > 0 ? p->flops / p->wbytes : 0)
                               : (p->hbm_bytes > 0 ? p->flops / p->hbm_bytes : 0);
}

/* Least squares y = a + b x over n points (b = 0 when fewer than two
 * distinct x: then a is the mean). */
static void fit(const double *x, const double *y, size_t n, double *a, double *b)
{
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (size_t i = 0; i < n; i++) {
        sx += x[i];
        sy += y[i];
        sxx += x[i] * x[i];
        sxy += x[i] * y[i];
    }
    double det = (double)n * sxx - sx * sx;
    if (n < 2 || fabs(det) < 1e-12 * (sxx > 1 ? sxx : 1)) {
        *b = 0;
        *a = n ? sy / (double)n : 0;
        return;
    }
    *b = ((double)n * sxy - sx * sy) / det;
    *a = (sy - *b * sx) / (double)n;
}

/* Where a series turns from its left bound (memory, or weight loading) to
 * compute: fit cycles per matmul against B on each side (points whose
 * bound beats the other by SIDE_MARGIN) and intersect the two lines.
 * -1 when a side has no points or the lines do not cross.  The points on
 * neither side are counted too (*nnear: within SIDE_MARGIN of both), so
 * the summary's counts add up to the table's rows. */
static double measured_crossover(const sweep *sw, int series, int *nleft, int *nright,
                                 int *nother, int *nnear)
{
    double lx[MAX_POINTS], ly[MAX_POINTS], rx[MAX_POINTS], ry[MAX_POINTS];
    size_t nl = 0, nr = 0;
    *nother = *nnear = 0;
    for (size_t i = 0; i < sw->npts; i++) {
        const point *p = &sw->pts[i];
        if (p->series != series || !p->out.ok)
            continue;
        /* W streamed: the left side is memory-bound (HBM or weight load);
         * W in VMEM: weight-load-bound, and a run the HBM bounds (a slow
         * HBM) is on neither side: counted apart, as the table shows it. */
        double left = series == S_VMEM ? p->t_w : fmax(p->t_hbm, p->t_w);
        double y = (double)p->out.cycles / (double)p->reps;
        if (series == S_VMEM && p->t_hbm >= SIDE_MARGIN * fmax(p->t_w, p->t_math)) {
            (*nother)++;
            continue;
        }
        if (left >= SIDE_MARGIN * p->t_math) {
            lx[nl] = (double)p->b;
            ly[nl++] = y;
        } else if (p->t_math >= SIDE_MARGIN * left) {
            rx[nr] = (double)p->b;
            ry[nr++] = y;
        } else {
            (*nnear)++;
        }
    }
    *nleft = (int)nl;
    *nright = (int)nr;
    if (!nl || !nr)
        return -1;
    double a, b, c, d;
    fit(lx, ly, nl, &a, &b);
    fit(rx, ry, nr, &c, &d);
    if (nr < 2) {                   /* one compute point: a line through the origin */
        d = ry[0] / rx[0];
        c = 0;
    }
    if (d <= b)
        return -1;
    return (a - c) / (d - b);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, size_t n)
{
    if (!n)
        return -1;
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* FLOPs per byte of VMEM traffic of the MXUs in a matmul of batch B:
 * 2BDF FLOPs over the weights (2DF), the LHS rows each tile streams
 * (2BDF/N) and the results (4BF written by the first K-tile, read and
 * written by the D/N - 1 others).  Where it equals the VMEM ridge the
 * weight loads and streams use all of VMEM's bandwidth (timing.md T11). */
static double vmem_intensity(const sweep *sw, double b)
{
    double d = (double)sw->d, f = (double)sw->f;
    double bytes = 2.0 * d * f + 2.0 * b * d * f / sw->n + 4.0 * b * f * (2.0 * d / sw->n - 1.0);
    return 2.0 * b * d * f / bytes;
}

typedef struct summary {
    double cross_pred, cross_meas, vcross_pred, vcross_meas, vint_pred, vint_meas;
    int cross_left, cross_right, cross_other, vcross_left, vcross_right, vcross_hbm;
    int cross_near, vcross_near;        /* runs within SIDE_MARGIN of both bounds */
    double peak_meas, bw_meas, ridge_meas;
    double worst_pct;
    const point *worst;
    int failures;
} summary;

static void analyse(sweep *sw, summary *s)
{
    memset(s, 0, sizeof *s);
    double peaks[MAX_POINTS], bws[MAX_POINTS];
    size_t np = 0, nb = 0;
    for (size_t i = 0; i < sw->npts; i++) {
        point *p = &sw->pts[i];
        if (!p->out.ok) {
            s->failures++;
            continue;
        }
        derive(sw, p);
        if (!s->worst || p->pct > s->worst_pct) {
            s->worst = p;
            s->worst_pct = p->pct;
        }
        double other = fmax(p->t_math, p->t_w);
        if (p->t_hbm >= SIDE_MARGIN * other)
            bws[nb++] = p->hbm_bytes / (double)p->out.cycles;
        if ((p->series == S_HBM || p->series == S_VMEM)
            && p->t_math >= SIDE_MARGIN * fmax(p->t_hbm, p->t_w))
            peaks[np++] = p->flops / (double)p->out.cycles;
    }
    s->cross_pred = predicted_crossover(sw);
    s->cross_meas = measured_crossover(sw, S_HBM, &s->cross_left, &s->cross_right,
                                       &s->cross_other, &s->cross_near);
    /* compute 2BDF / peak = weight bytes 2DF / wl_bw: B = N / W */
    s->vcross_pred = sw->n / sw->wl;
    s->vcross_meas = measured_crossover(sw, S_VMEM, &s->vcross_left, &s->vcross_right,
                                        &s->vcross_hbm, &s->vcross_near);
    s->vint_pred = vmem_intensity(sw, s->vcross_pred);
    s->vint_meas = s->vcross_meas > 0 ? vmem_intensity(sw, s->vcross_meas) : -1;
    s->peak_meas = median(peaks, np);
    s->bw_meas = median(bws, nb);
    s->ridge_meas = s->peak_meas > 0 && s->bw_meas > 0 ? s->peak_meas / s->bw_meas : -1;
}

/* ---- output ---------------------------------------------------------------------------- */

static int write_csv(const sweep *sw, const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "tpu-roofline: error: cannot write %s: %s\n", path, strerror(errno));
        return -1;
    }
    fprintf(f, "series,config,b,d,f,reps,nchunk,flops,hbm_bytes,weight_bytes,cycles,intensity,"
            "flops_per_cycle,t_math,t_hbm,t_weights,bound_cycles,bound,pct_of_bound,result\n");
    for (size_t i = 0; i < sw->npts; i++) {
        const point *p = &sw->pts[i];
        int mm = p->series == S_HBM || p->series == S_VMEM;
        fprintf(f, "%s,%s,%lld,%lld,%lld,%lld,%lld,%.0f,%.0f,%.0f,%llu,%.6g,%.6g,%.1f,%.1f,%.1f,"
                "%.1f,%s,%.3f,%s\n", series_key[p->series], sw->cfg.name,
                mm ? (long long)p->b : 0, mm ? (long long)sw->d : 0, mm ? (long long)sw->f : 0,
                mm ? (long long)p->reps : 0, mm ? 0 : (long long)p->nchunk, p->flops,
                p->hbm_bytes, p->wbytes, (unsigned long long)p->out.cycles, p->x, p->y,
                p->t_math, p->t_hbm, p->t_w, p->bound, p->out.ok ? p->bound_name : "-", p->pct,
                p->out.ok ? "bit-exact" : "failed");
    }
    int bad = ferror(f);
    if (fclose(f) || bad) {
        fprintf(stderr, "tpu-roofline: error: writing %s failed\n", path);
        return -1;
    }
    return 0;
}

/* key = value lines, for people and for tests/roofline.sh. */
static int write_summary(const sweep *sw, const summary *s, const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "tpu-roofline: error: cannot write %s: %s\n", path, strerror(errno));
        return -1;
    }
    fprintf(f, "config = %s\nd = %lld\nf = %lld\n", sw->cfg.name, (long long)sw->d,
            (long long)sw->f);
    fprintf(f, "peak_flops_per_cycle = %.10g\nhbm_bytes_per_cycle = %.10g\n"
            "vmem_bytes_per_cycle = %.10g\nweight_load_bytes_per_cycle = %.10g\n", sw->peak,
            sw->bw, sw->vmem_bw, sw->wl_bw);
    fprintf(f, "ridge_hbm = %.10g\nridge_vmem = %.10g\nridge_weights = %.10g\n",
            sw->peak / sw->bw, sw->peak / sw->vmem_bw, sw->peak / sw->wl_bw);
    fprintf(f, "crossover_hbm_predicted = %.10g\ncrossover_hbm_measured = %.10g\n",
            s->cross_pred, s->cross_meas);
    fprintf(f, "crossover_vmem_predicted = %.10g\ncrossover_vmem_measured = %.10g\n",
            s->vcross_pred, s->vcross_meas);
    fprintf(f, "vmem_intensity_predicted = %.10g\nvmem_intensity_measured = %.10g\n",
            s->vint_pred, s->vint_meas);
    fprintf(f, "peak_measured = %.10g\nhbm_bytes_per_cycle_measured = %.10g\n"
            "ridge_measured = %.10g\n", s->peak_meas, s->bw_meas, s->ridge_meas);
    fprintf(f, "worst_pct_of_bound = %.6g\npoints = %zu\nfailures = %d\n", s->worst_pct,
            sw->npts, s->failures);
    int bad = ferror(f);
    if (fclose(f) || bad) {
        fprintf(stderr, "tpu-roofline: error: writing %s failed\n", path);
        return -1;
    }
    return 0;
}

/* The gnuplot script: the roofs as functions, the points from the CSV. */
static int write_gp(const sweep *sw, const summary *s, const char *path, const char *csv,
                    const char *png, const char *svg)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "tpu-roofline: error: cannot write %s: %s\n", path, strerror(errno));
        return -1;
    }
    double xmin = 1e30, xmax = 0, ymin = 1e30;
    for (size_t i = 0; i < sw->npts; i++) {
        const point *p = &sw->pts[i];
        if (!p->out.ok || p->x <= 0 || p->y <= 0)
            continue;
        xmin = fmin(xmin, p->x);
        xmax = fmax(xmax, p->x);
        ymin = fmin(ymin, p->y);
    }
    if (xmax <= 0) {
        xmin = 0.01;
        xmax = 1000;
        ymin = 1;
    }
    double ridge = sw->peak / sw->bw;
    xmin = pow(10, floor(log10(fmin(xmin, sw->peak / sw->vmem_bw) / 2)));
    xmax = pow(10, ceil(log10(fmax(xmax, ridge) * 2)));
    ymin = pow(10, floor(log10(ymin / 2)));
    double ymax = pow(10, ceil(log10(sw->peak * 3)));
    fprintf(f, "# generated by tpu-roofline for %s; run: gnuplot %s\n", sw->cfg.name, path);
    fprintf(f, "peak = %.10g       # FLOP per cycle: num_mxu * 2 * mxu_n^2\n", sw->peak);
    fprintf(f, "hbm = %.10g        # HBM bytes per cycle: hbm_bw / clock_hz\n", sw->bw);
    fprintf(f, "vmem = %.10g       # VMEM bytes per cycle: vmem_bw\n", sw->vmem_bw);
    fprintf(f, "wl = %.10g         # MXU weight load: num_mxu * mxu_wloads rows of 2 mxu_n "
            "bytes per cycle\n", sw->wl_bw);
    fprintf(f, "clk = %.10g\n", sw->cfg.clock_hz);
    fprintf(f, "min(a, b) = a < b ? a : b\n");
    fprintf(f, "set datafile separator ','\nset logscale xy\n");
    fprintf(f, "set xrange [%g:%g]\nset yrange [%g:%g]\n", xmin, xmax, ymin, ymax);
    fprintf(f, "set xlabel 'arithmetic intensity (FLOP per byte of HBM traffic; W in VMEM: per "
            "weight byte the MXUs read)'\n");
    fprintf(f, "set ylabel 'FLOP per cycle (measured: points)'\n");
    fprintf(f, "set y2label 'TFLOP/s at %.4g GHz'\n", sw->cfg.clock_hz / 1e9);
    fprintf(f, "set ytics nomirror\nset y2tics\nset y2range [%g*clk/1e12:%g*clk/1e12]\n"
            "set logscale y2\n", ymin, ymax);
    fprintf(f, "set format x '%%g'\nset format y '%%g'\nset format y2 '%%g'\n");
    fprintf(f, "set grid xtics ytics mxtics mytics lc rgb '#dddddd'\n");
    fprintf(f, "set key right bottom box opaque\n");
    if (s->cross_meas > 0)
        fprintf(f, "set title sprintf(\"Roofline of %s, measured on the C model (matmul D = %lld, "
                "F = %lld)\\nW streamed: measured crossover B = %%.0f, the exact byte count "
                "predicts %%.0f\", %.10g, %.10g)\n", sw->cfg.name, (long long)sw->d,
                (long long)sw->f, s->cross_meas, s->cross_pred);
    else
        fprintf(f, "set title \"Roofline of %s, measured on the C model (matmul D = %lld, "
                "F = %lld)\"\n", sw->cfg.name, (long long)sw->d, (long long)sw->f);
    fprintf(f, "set arrow 1 from %.10g, %g to %.10g, peak nohead dt 2 lc rgb '#1f77b4'\n", ridge,
            ymin, ridge);
    fprintf(f, "set label 1 sprintf('HBM ridge %%.4g', %.10g) at %.10g, peak*1.5 center "
            "tc rgb '#1f77b4'\n", ridge, ridge);
    fprintf(f, "set arrow 2 from %.10g, %g to %.10g, peak nohead dt 2 lc rgb '#2ca02c'\n",
            sw->peak / sw->vmem_bw, ymin, sw->peak / sw->vmem_bw);
    fprintf(f, "set label 2 sprintf('VMEM ridge %%.4g', %.10g) at %.10g, peak*1.5 center "
            "tc rgb '#2ca02c'\n", sw->peak / sw->vmem_bw, sw->peak / sw->vmem_bw);
    fprintf(f, "set arrow 3 from %.10g, %g to %.10g, peak nohead dt 3 lc rgb '#9467bd'\n",
            sw->peak / sw->wl_bw, ymin, sw->peak / sw->wl_bw);
    /* above the others (it may share the HBM ridge's x: tiny), under the
     * top (ymax >= 3 peak); low on its line the key could hide it */
    fprintf(f, "set label 3 sprintf('weight-load ridge %%.4g', %.10g) at %.10g, peak*2.6 center "
            "tc rgb '#9467bd'\n", sw->peak / sw->wl_bw, sw->peak / sw->wl_bw);
    if (s->ridge_meas > 0) {
        fprintf(f, "set arrow 4 from %.10g, %g to %.10g, peak nohead dt 3 lc rgb '#d62728'\n",
                s->ridge_meas, ymin, s->ridge_meas);
        fprintf(f, "set label 4 sprintf('measured ridge %%.4g', %.10g) at %.10g, peak/5 left "
                "offset 0.5, 0 tc rgb '#d62728'\n", s->ridge_meas, s->ridge_meas);
    }
    fprintf(f, "common = 'every ::1'\n");
    fprintf(f, "sel(k) = strcol(1) eq k ? column(12) : NaN\n");
    fprintf(f, "do for [t in '%s'] {\n", "png svg");
    fprintf(f, "  if (t eq 'png') {\n"
            "    if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
            "      set terminal pngcairo size 1200,800 font 'sans,11'\n"
            "    } else {\n"
            "      set terminal png size 1200,800\n"
            "    }\n"
            "    set output '%s'\n"
            "  } else {\n"
            "    set terminal svg size 1200,800 font 'sans,11'\n"
            "    set output '%s'\n"
            "  }\n", png, svg);
    fprintf(f, "  plot min(peak, hbm*x) title 'roof: min(peak, HBM bytes/cycle x intensity)' "
            "lw 3 lc rgb '#1f77b4', \\\n"
            "       min(peak, vmem*x) title 'roof with VMEM bandwidth (vmem\\_bw)' "
            "lw 2 dt 2 lc rgb '#2ca02c', \\\n"
            "       min(peak, wl*x) title 'roof with the MXU weight load (a tile per N/W cycles)' "
            "lw 2 dt 3 lc rgb '#9467bd', \\\n");
    /* add and mul have the same intensity and rate: add is a large open
     * circle around mul's filled triangle, so both show (with room for
     * the roof's line between them) */
    static const char *const style[S_COUNT] = {
        "pt 7 ps 1.4 lc rgb '#d62728'", "pt 5 ps 1.3 lc rgb '#9467bd'",
        "pt 6 ps 3.2 lw 2 lc rgb '#ff7f0e'", "pt 9 ps 1.6 lc rgb '#8c564b'",
        "pt 13 ps 1.6 lc rgb '#e377c2'" };
    for (int k = 0; k < S_COUNT; k++)
        fprintf(f, "       '%s' every ::1 using (sel('%s')):(column(13)) title '%s' %s%s\n", csv,
                series_key[k], series_title[k], style[k], k + 1 < S_COUNT ? ", \\" : "");
    fprintf(f, "  set output\n}\n");
    int bad = ferror(f);
    if (fclose(f) || bad) {
        fprintf(stderr, "tpu-roofline: error: writing %s failed\n", path);
        return -1;
    }
    return 0;
}

/* gnuplot SCRIPT, its messages on our stderr. */
static int run_gnuplot(const char *script)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        execlp("gnuplot", "gnuplot", script, (char *)NULL);
        fprintf(stderr, "tpu-roofline: error: cannot run gnuplot: %s (Debian: apt-get install "
                "gnuplot-nox)\n", strerror(errno));
        _exit(127);
    }
    if (pid < 0) {
        fprintf(stderr, "tpu-roofline: error: fork: %s\n", strerror(errno));
        return -1;
    }
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "tpu-roofline: error: gnuplot %s failed\n", script);
        return -1;
    }
    return 0;
}

/* ", within 10% of both: K" for the K runs on neither side of a crossover
 * (within SIDE_MARGIN of both: the table names the larger), or "". */
static void near_text(int k, char *buf, size_t len)
{
    if (k)
        snprintf(buf, len, ", within 10%% of both: %d", k);
    else
        buf[0] = 0;
}

static void print_report(const sweep *sw, const summary *s, FILE *out, int quiet)
{
    const tpu_config *c = &sw->cfg;
    if (!quiet) {
        fprintf(out, "machine   %s: %llu MXU%s of %llux%llu at %.4g GHz: peak %.0f FLOP/cycle; "
                "HBM %.3g B/cycle (latency %llu); VMEM %.0f B/cycle\n", c->name,
                (unsigned long long)c->num_mxu, c->num_mxu == 1 ? "" : "s",
                (unsigned long long)c->mxu_n, (unsigned long long)c->mxu_n, c->clock_hz / 1e9,
                sw->peak, sw->bw, (unsigned long long)c->hbm_latency, sw->vmem_bw);
        fprintf(out, "%-12s %6s %5s %11s %13s %10s %9s %8s  %s\n", "series", "B", "reps",
                "cycles", "FLOP/cycle", "intensity", "bound", "% bound", "result");
        for (size_t i = 0; i < sw->npts; i++) {
            const point *p = &sw->pts[i];
            char b[16], reps[16];
            int mm = p->series == S_HBM || p->series == S_VMEM;
            snprintf(b, sizeof b, "%lld", mm ? (long long)p->b : 0);
            snprintf(reps, sizeof reps, "%lld", mm ? (long long)p->reps : (long long)p->nchunk);
            if (!p->out.ok) {
                fprintf(out, "%-12s %6s %5s  FAILED: %s\n", series_key[p->series], mm ? b : "-",
                        reps, p->out.error);
                continue;
            }
            fprintf(out, "%-12s %6s %5s %11llu %13.4g %10.4g %9s %7.1f%%  bit-exact\n",
                    series_key[p->series], mm ? b : "-", reps,
                    (unsigned long long)p->out.cycles, p->y, p->x, p->bound_name, p->pct);
        }
        fprintf(out, "(reps: matmuls per run, or chunks for the pointwise ops)\n");
    }
    fprintf(out, "ridge        HBM %.4g FLOP/byte (peak / HBM bytes per cycle), VMEM %.4g, MXU "
            "weight load %.4g\n", sw->peak / sw->bw, sw->peak / sw->vmem_bw, sw->peak / sw->wl_bw);
    if (s->ridge_meas > 0)
        fprintf(out, "measured     ridge %.4g FLOP/byte = %.4g FLOP/cycle over %.3g B/cycle "
                "(medians of the compute- and memory-bound runs)\n", s->ridge_meas, s->peak_meas,
                s->bw_meas);
    else
        fprintf(out, "measured     ridge: needs runs on both sides of it\n");
    if (s->cross_pred > 0)
        fprintf(out, "crossover    W streamed (D = %lld, F = %lld): predicted B = %.1f by the exact "
                "byte count (the book's %.4g for D, F >> B)\n", (long long)sw->d,
                (long long)sw->f, s->cross_pred, sw->peak / sw->bw);
    else
        fprintf(out, "crossover    W streamed (D = %lld, F = %lld): none predicted (the intensity "
                "never reaches the ridge)\n", (long long)sw->d, (long long)sw->f);
    char near[64];
    near_text(s->cross_near, near, sizeof near);
    if (s->cross_meas > 0)
        fprintf(out, "measured     crossover B = %.1f (memory-bound runs: %d, compute-bound: "
                "%d%s)\n", s->cross_meas, s->cross_left, s->cross_right, near);
    else
        fprintf(out, "measured     crossover: none (memory-bound runs: %d, compute-bound: %d%s)\n",
                s->cross_left, s->cross_right, near);
    fprintf(out, "crossover    W in VMEM: predicted B = N / W = %.1f (a weight tile per N / W "
            "cycles, timing.md T25), where the MXUs do %.3g FLOP per byte of VMEM (VMEM "
            "ridge %.4g)\n", s->vcross_pred, s->vint_pred, sw->peak / sw->vmem_bw);
    near_text(s->vcross_near, near, sizeof near);
    if (s->vcross_meas > 0)
        fprintf(out, "measured     crossover B = %.1f: %.3g FLOP per VMEM byte (weight-load-bound "
                "runs: %d, compute-bound: %d%s)\n", s->vcross_meas, s->vint_meas,
                s->vcross_left, s->vcross_right, near);
    else
        fprintf(out, "measured     crossover: none (weight-load-bound runs: %d, compute-bound: "
                "%d%s)\n", s->vcross_left, s->vcross_right, near);
    if (s->vcross_hbm)
        fprintf(out, "             %d W-in-VMEM run%s bound by HBM (the X and Y traffic), on "
                "neither side of that crossover\n", s->vcross_hbm, s->vcross_hbm == 1 ? "" : "s");
    if (s->worst)
        fprintf(out, "worst point  %.1f%% of its bound (%s, %s %lld)\n", s->worst_pct,
                series_key[s->worst->series],
                s->worst->series <= S_VMEM ? "B" : "chunks",
                s->worst->series <= S_VMEM ? (long long)s->worst->b
                                           : (long long)s->worst->nchunk);
    if (s->failures)
        fprintf(out, "FAILED       %d run%s did not halt bit-exact\n", s->failures,
                s->failures == 1 ? "" : "s");
}

/* ---- the sweep ------------------------------------------------------------------------------ */

static void add_point(sweep *sw, int series, int64_t b, int64_t nchunk)
{
    if (sw->npts == MAX_POINTS)
        return;
    for (size_t i = 0; i < sw->npts; i++)
        if (sw->pts[i].series == series && sw->pts[i].b == b && b)
            return;
    point *p = &sw->pts[sw->npts++];
    memset(p, 0, sizeof *p);
    p->series = series;
    p->b = b;
    p->nchunk = nchunk;
    double over, t, work;
    if (series == S_HBM || series == S_VMEM) {
        /* the MXUs work T_math or T_weights of each matmul */
        double d = (double)sw->d, f = (double)sw->f;
        p->reps = matmul_reps(sw, (double)b, series == S_VMEM);
        t = matmul_cost(sw, (double)b, series == S_VMEM, &over) * (double)p->reps;
        work = fmax(2.0 * (double)b * d * f / sw->peak, d / sw->n * f / (sw->n * sw->nm)
                    * sw->n / sw->wl) * (double)p->reps * sw->nm * sw->n * sw->n * CPU_MXU_CELL;
    } else {
        /* the VPU: four instructions of all its lanes a vector register
         * of 4 x lanes bytes, so one lane-instruction a byte of a chunk */
        t = pointwise_cost(sw, series, &over) * (double)nchunk;
        work = (double)nchunk * (double)pointwise_ch(sw) * CPU_VPU_LANE;
    }
    p->est = t + over;
    p->cpu = p->est * CPU_CYCLE + work;
}

static int plan(sweep *sw)
{
    const options *o = sw->o;
    int64_t list[MAX_POINTS];
    size_t n;
    if (o->batches) {
        if (parse_list(o->batches, list, 24, &n, "--batches"))
            return EXIT_USAGE;
    } else {
        static const double f[] = { 1.0 / 16, 1.0 / 8, 1.0 / 4, 1.0 / 2, 0.7, 0.85, 1.0, 1.15,
                                    1.3, 1.6, 2, 3, 4 };
        double c = top_batch(sw) / 4;
        n = 0;
        for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) {
            double b = round(c * f[i]);
            list[n++] = b < 1 ? 1 : (int64_t)b;
        }
    }
    for (size_t i = 0; i < n; i++)
        if (matmul_vmem_need(sw, (double)list[i], 0, 1) <= (double)sw->cfg.vmem_bytes)
            add_point(sw, S_HBM, list[i], 0);
    if (o->vmem_batches && !strcmp(o->vmem_batches, "none")) {
        n = 0;
    } else if (o->vmem_batches) {
        if (parse_list(o->vmem_batches, list, 24, &n, "--vmem-batches"))
            return EXIT_USAGE;
    } else {
        /* around the crossover N / W, not at it: there the weight loads
         * and the streams fill VMEM's bandwidth and the DMAs wait; none
         * past the first whose matmul alone is over POINT_CYCLES (a slow
         * HBM, for X and Y) */
        static const double f[] = { 1.0 / 8, 1.0 / 4, 1.0 / 2, 0.75, 1.5, 2, 3, 4, 8, 16 };
        n = 0;
        for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) {
            double b = round(sw->n / sw->wl * f[i]);
            b = b < 1 ? 1 : b;
            if (n && matmul_cost(sw, b, 1, NULL) > POINT_CYCLES)
                break;
            list[n++] = (int64_t)b;
        }
    }
    for (size_t i = 0; i < n; i++)
        if (matmul_vmem_need(sw, (double)list[i], 1, 1) <= (double)sw->cfg.vmem_bytes)
            add_point(sw, S_VMEM, list[i], 0);
    for (int s = S_ADD; s <= S_RELU; s++)
        add_point(sw, s, 0, pointwise_chunks(sw, s));
    return 0;
}

/* A sweep that will take a while says so before it starts: its runs and
 * their cycles, from the plan's estimates. */
static void note_plan(const sweep *sw, unsigned jobs)
{
    double cycles = 0, cpu = 0;
    for (size_t i = 0; i < sw->npts; i++) {
        cycles += sw->pts[i].est;
        cpu += sw->pts[i].cpu;
    }
    if (getenv("TPU_ROOFLINE_ESTIMATE"))        /* for calibrating the note */
        fprintf(stderr, "tpu-roofline: estimate %.3g cycles, %.3g s of CPU\n", cycles, cpu);
    if (sw->o->quiet || cpu < NOTE_SECONDS)
        return;
    fprintf(stderr, "tpu-roofline: note: %zu runs, about %.2g cycles: roughly %.0f s of CPU, "
            "%u at a time; Ctrl-C stops with the points done so far\n", sw->npts, cycles,
            cpu, jobs);
}

/* The config, with its --set keys, checked by the model too (a machine
 * tpu_config_validate passes can still be one no core can be built for:
 * then every run would fail the same way). */
static int load_config(const options *o, tpu_config *cfg)
{
    if (tpu_cli_load_config("tpu-roofline", o->config, cfg)
        || tpu_cli_finish_config("tpu-roofline", cfg, o->sets, o->nsets))
        return EXIT_USAGE;
    char err[512];
    tpu_system_opts so = { .cores = 1, .topology = TPU_TOPO_SINGLE };
    tpu_system *s = tpu_system_create(cfg, &so, err, sizeof err);
    if (!s) {
        fprintf(stderr, "tpu-roofline: error: %s\n", err);
        return EXIT_USAGE;
    }
    tpu_system_destroy(s);
    return 0;
}

int main(int argc, char **argv)
{
    options o;
    int rc = parse_args(argc, argv, &o);
    if (rc)
        return rc < 0 ? EXIT_OK : rc;
    sweep *sw = calloc(1, sizeof *sw);
    if (!sw) {
        fprintf(stderr, "tpu-roofline: out of memory\n");
        return EXIT_FILES;
    }
    sw->o = &o;
    if ((rc = load_config(&o, &sw->cfg)))
        goto done;
    machine(sw);
    if (o.d) {
        sw->d = o.d;
        sw->f = o.f ? o.f : sw->d;
    } else {
        default_dim(sw);
    }
    if (sw->d % (int64_t)sw->n || sw->f % ((int64_t)sw->n * (int64_t)sw->nm)) {
        fprintf(stderr, "tpu-roofline: error: --d %lld --f %lld: D must be a multiple of mxu_n "
                "(%.0f) and F of mxu_n * num_mxu (%.0f)\n", (long long)sw->d, (long long)sw->f,
                sw->n, sw->n * sw->nm);
        rc = EXIT_USAGE;
        goto done;
    }
    if ((rc = load_program(sw, 0, "matmul_sweep.s", argv[0]))
        || (rc = load_program(sw, 1, "pointwise.s", argv[0])))
        goto done;
    if ((rc = plan(sw)))
        goto done;
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    unsigned jobs = o.jobs ? o.jobs : ncpu > 0 ? (unsigned)(ncpu > 256 ? 256 : ncpu) : 1;
    note_plan(sw, jobs);
    tpu_interrupt_install();
    run_all(sw, jobs);
    /* Ctrl-C: what follows sees the finished points only. */
    size_t planned = sw->npts, ndone = 0;
    int interrupted = tpu_interrupted();
    for (size_t i = 0; i < sw->npts; i++)
        if (sw->pts[i].out.done)
            sw->pts[ndone++] = sw->pts[i];
    sw->npts = ndone;
    if (interrupted)
        fprintf(stderr, "tpu-roofline: interrupted after %zu of %zu points: the report and "
                "the CSV have those; no plot\n", ndone, planned);

    summary s;
    analyse(sw, &s);
    print_report(sw, &s, stdout, o.quiet);
    fflush(stdout);

    char csv[1200], txt[1200], gp[1200], png[1200], svg[1200];
    snprintf(csv, sizeof csv, "%s/roofline-%s.csv", o.out, sw->cfg.name);
    snprintf(txt, sizeof txt, "%s/roofline-%s.txt", o.out, sw->cfg.name);
    snprintf(gp, sizeof gp, "%s/roofline-%s.gp", o.out, sw->cfg.name);
    snprintf(png, sizeof png, "%s/roofline-%s.png", o.img, sw->cfg.name);
    snprintf(svg, sizeof svg, "%s/roofline-%s.svg", o.img, sw->cfg.name);
    if (interrupted) {
        /* no plot: the images (docs/ for make roofline) stay as they were */
        rc = make_dir(o.out) || write_csv(sw, csv) || write_summary(sw, &s, txt)
                 || write_gp(sw, &s, gp, csv, png, svg)
           ? EXIT_FILES : TPU_EXIT_INTERRUPTED;
        if (rc == TPU_EXIT_INTERRUPTED && !o.quiet)
            printf("wrote        %s, %s, %s (interrupted: %zu of %zu points; no plot, "
                   "gnuplot %s draws one)\n", csv, txt, gp, ndone, planned, gp);
        goto done;
    }
    if (make_dir(o.out) || make_dir(o.img) || write_csv(sw, csv) || write_summary(sw, &s, txt)
        || write_gp(sw, &s, gp, csv, png, svg)) {
        rc = EXIT_FILES;
        goto done;
    }
    if (!o.no_plot && run_gnuplot(gp)) {
        rc = EXIT_FILES;
        goto done;
    }
    if (!o.quiet)
        printf("wrote        %s, %s, %s%s%s%s%s\n", csv, txt, gp, o.no_plot ? "" : ", ",
               o.no_plot ? "" : png, o.no_plot ? "" : ", ", o.no_plot ? "" : svg);
    rc = s.failures ? EXIT_FAILED : EXIT_OK;
done:
    free(sw->src[0]);
    free(sw->src[1]);
    free(sw);
    return rc;
}
