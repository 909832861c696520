/*
 * tpu_bench.c - tpu-bench, how fast the C model simulates (`make bench`).
 *
 *   tpu-bench row [--n N] [--seconds S]
 *   tpu-bench run [--config NAME|FILE] [--set KEY=VALUE]... [--max-cycles N]
 *                 [--repeat R] PROG.bin
 *
 * `row` times tpu_ref_row_tile (the MXU model's inner loop) alone; `run`
 * times tpu_system_run on a program, without loading or result checking,
 * and reports simulated cycles and multiply-adds per host second and the
 * process's peak memory.  Both first print the MXU kernel in use (ref.h:
 * the fastest the host runs, or the one TPU_REF_KERNEL names).  It prints
 * numbers and never judges them: host speed varies, so nothing here
 * asserts on time.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "config.h"
#include "objfile.h"
#include "ref.h"
#include "tpu.h"

#define MAX_SETS 64

static void usage(FILE *f)
{
    fputs("usage: tpu-bench row [--n N] [--seconds S]\n"
          "       tpu-bench run [--config NAME|FILE] [--set KEY=VALUE]... [--max-cycles N]\n"
          "                     [--repeat R] PROG.bin\n"
          "\n"
          "Measure the C model's speed on this host (one thread); `make bench` runs both.\n"
          "  row   time tpu_ref_row, the MXU model's inner loop, on an N x N array\n"
          "        (default N = 128) for about S seconds (default 1): multiply-adds per second\n"
          "  run   run PROG.bin to halt on the model (default config: tiny) and print the\n"
          "        simulated cycles and multiply-adds per host second of the run alone (not\n"
          "        loading or checking) and the peak memory (max RSS) of the process;\n"
          "        --repeat R runs it R times on fresh systems (default 1) and sums\n"
          "  -h, --help   print this help and exit\n"
          "\n"
          "environment: TPU_REF_KERNEL=auto|soft|sse2|avx2|avx2-fma|avx512-fma picks the\n"
          "MXU kernel (default: the fastest this host runs); both print the one in use\n"
          "\n"
          "exit status: 0 measured, 1 the program did not load or halt, 2 bad command line\n", f);
}

static int bad_usage(const char *fmt, const char *arg)
{
    fprintf(stderr, "tpu-bench: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\nTry 'tpu-bench --help'.\n");
    return 2;
}

static double now_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static double max_rss_mib(void)
{
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru))
        return -1;
    return (double)ru.ru_maxrss / 1024.0;     /* Linux: KiB */
}

/* A number argument: whole for n, real for seconds. */
static int parse_number(const char *s, double lo, double hi, double *out)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s || *end || !(v >= lo && v <= hi))
        return -1;
    *out = v;
    return 0;
}

/* tpu-bench row: normal bf16 operands (no NaN shortcuts), timed calls; the
 * tile is scanned once, as the MXU model does when it loads one. */
static int bench_row(int argc, char **argv)
{
    double n = 128, seconds = 1;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--n") && i + 1 < argc) {
            if (parse_number(argv[++i], 1, 4096, &n) || n != (unsigned)n)
                return bad_usage("--n wants a whole number from 1 to 4096, not '%s'", argv[i]);
        } else if (!strcmp(argv[i], "--seconds") && i + 1 < argc) {
            if (parse_number(argv[++i], 0.01, 600, &seconds))
                return bad_usage("--seconds wants a number from 0.01 to 600, not '%s'", argv[i]);
        } else {
            return bad_usage("row: unexpected argument '%s'", argv[i]);
        }
    }
    unsigned un = (unsigned)n;
    uint16_t *x = malloc(un * sizeof *x), *w = malloc((size_t)un * un * sizeof *w);
    uint32_t *y = malloc(un * sizeof *y);
    if (!x || !w || !y) {
        free(x); free(w); free(y);
        fprintf(stderr, "tpu-bench: out of memory\n");
        return 1;
    }
    uint64_t s = 0x243f6a8885a308d3ull;
    for (size_t i = 0; i < un; i++, s = s * 6364136223846793005ull + 1442695040888963407ull)
        x[i] = (uint16_t)(0x3f00 + ((s >> 33) & 0xff)) ^ (uint16_t)((s >> 20) & 0x8000);
    for (size_t i = 0; i < (size_t)un * un; i++, s = s * 6364136223846793005ull + 1)
        w[i] = (uint16_t)(0x3e80 + ((s >> 33) & 0x1ff)) ^ (uint16_t)((s >> 21) & 0x8000);
    uint64_t calls = 0, batch = 1 + 4000000 / ((uint64_t)un * un);
    uint32_t sink = 0;
    tpu_ref_tile tile;
    tpu_ref_tile_scan(w, un, &tile);
    double t0 = now_seconds(), t;
    do {
        for (uint64_t b = 0; b < batch; b++) {
            tpu_ref_row_tile(x, w, &tile, un, y);
            sink += y[b % un];
            x[b % un] ^= 1;                  /* a different row each call */
        }
        calls += batch;
        t = now_seconds() - t0;
    } while (t < seconds);
    double macs = (double)calls * un * un;
    printf("tpu_ref_row_tile n=%u: %.3g MACs per host second (%llu rows in %.2f s; checksum %08x)\n",
           un, macs / t, (unsigned long long)calls, t, sink);
    free(x); free(w); free(y);
    return 0;
}

/* tpu-bench run: load, then time the run alone. */
static int bench_run(int argc, char **argv)
{
    const char *config = "tiny", *prog = NULL, *sets[MAX_SETS];
    unsigned nsets = 0;
    double maxc = 0, repeat = 1;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--config") && i + 1 < argc) {
            config = argv[++i];
        } else if (!strcmp(a, "--set") && i + 1 < argc) {
            if (nsets == MAX_SETS)
                return bad_usage("too many --set options (at most %s)", "64");
            sets[nsets++] = argv[++i];
        } else if (!strcmp(a, "--max-cycles") && i + 1 < argc) {
            if (parse_number(argv[++i], 0, 1e18, &maxc) || maxc != (double)(uint64_t)maxc)
                return bad_usage("--max-cycles wants a whole number, not '%s'", argv[i]);
        } else if (!strcmp(a, "--repeat") && i + 1 < argc) {
            if (parse_number(argv[++i], 1, 1e6, &repeat) || repeat != (unsigned)repeat)
                return bad_usage("--repeat wants a whole number from 1 to 1000000, not '%s'",
                                 argv[i]);
        } else if (a[0] == '-' && a[1]) {
            return bad_usage("run: unknown option or missing value '%s'", a);
        } else if (prog) {
            return bad_usage("run: only one program is allowed (got '%s' too)", a);
        } else {
            prog = a;
        }
    }
    if (!prog)
        return bad_usage("%s", "run: no program given");

    char err[512];
    tpu_config cfg;
    tpu_config_defaults(&cfg);
    if (tpu_config_load(&cfg, config, err, sizeof err)) {
        fprintf(stderr, "tpu-bench: --config %s: %s\n", config, err);
        return 2;
    }
    for (unsigned i = 0; i < nsets; i++)
        if (tpu_config_set(&cfg, sets[i], err, sizeof err)) {
            fprintf(stderr, "tpu-bench: --set %s: %s\n", sets[i], err);
            return 2;
        }
    if (tpu_config_validate(&cfg, err, sizeof err)) {
        fprintf(stderr, "tpu-bench: config %s: %s\n", cfg.name, err);
        return 2;
    }
    tpu_object obj;
    if (tpu_obj_read(prog, &obj, err, sizeof err)) {
        fprintf(stderr, "tpu-bench: error: %s\n", err);
        return 1;
    }
    tpu_system_opts so = { .cores = 1, .topology = TPU_TOPO_SINGLE };
    double t = 0, macs = 0;
    uint64_t cycles = 0;
    int rc = 0;
    for (unsigned rep = 0; rc == 0 && rep < (unsigned)repeat; rep++) {
        tpu_system *s = tpu_system_create(&cfg, &so, err, sizeof err);
        if (!s) {
            fprintf(stderr, "tpu-bench: %s\n", err);
            tpu_obj_free(&obj);
            return 2;
        }
        if (tpu_system_load(s, &obj, err, sizeof err)) {
            fprintf(stderr, "tpu-bench: error: %s: %s\n", prog, err);
            rc = 1;
        } else {
            double t0 = now_seconds();
            enum tpu_stop stop = tpu_system_run(s, (uint64_t)maxc);
            t += now_seconds() - t0;
            tpu_stats st;
            tpu_core_stats(tpu_system_core(s, 0), &st);
            cycles += tpu_system_cycle(s);
            macs += (double)st.macs;
            if (stop != TPU_STOP_HALT) {
                fprintf(stderr, "tpu-bench: error: %s: %s\n", prog, tpu_system_error(s));
                rc = 1;
            }
        }
        tpu_system_destroy(s);
    }
    char times[32] = "";
    if (repeat > 1)
        snprintf(times, sizeof times, " x %u", (unsigned)repeat);
    if (cycles)
        printf("%s on %s%s: %llu cycles, %.4g MACs in %.3f host s: %.4g cycles/s, "
               "%.4g MACs/s; max RSS %.1f MiB\n", prog, cfg.name, times,
               (unsigned long long)cycles, macs, t, t > 0 ? (double)cycles / t : 0,
               t > 0 ? macs / t : 0, max_rss_mib());
    tpu_obj_free(&obj);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return bad_usage("%s", "which benchmark: row or run?");
    if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
        usage(stdout);
        return 0;
    }
    for (int i = 2; i < argc; i++)
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            usage(stdout);
            return 0;
        }
    char err[200];
    if (tpu_ref_kernel_from_env(err, sizeof err)) {
        fprintf(stderr, "tpu-bench: %s\n", err);
        return 2;
    }
    if (!strcmp(argv[1], "row") || !strcmp(argv[1], "run"))
        printf("MXU kernel: %s\n", tpu_ref_kernel_name(tpu_ref_kernel_current()));
    if (!strcmp(argv[1], "row"))
        return bench_row(argc - 2, argv + 2);
    if (!strcmp(argv[1], "run"))
        return bench_run(argc - 2, argv + 2);
    return bad_usage("unknown benchmark '%s' (row or run)", argv[1]);
}
