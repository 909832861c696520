/*
 * tpu_gen.c - tpu-gen: write a kernel as an assembly program for a machine.
 *
 *   tpu-gen gemm --config v5e -M 300 -N 500 -K 700 [--dtype bf16|int8|w8]
 *                [--tile-m R] [--tile-n C] [--tile-k K] [--timing-only]
 *                [-o gemm.s] [--quiet]
 *
 * The planner, the cost model and the writer are sim/kernels/ (kgen.h);
 * this file is only the command line.  docs/workloads.md is the manual.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "kgen.h"

#define TOOL "tpu-gen"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: tpu-gen gemm --config NAME|FILE -M ROWS -N COLS -K INNER [options]\n"
            "\n"
            "Write Y[M,N] = X[M,K] . W[K,N] as an assembly program for the machine:\n"
            "loops over M-tiles, column groups and K-tiles (its length does not grow\n"
            "with the sizes), the data zero-padded to the MXU size in HBM, and an\n"
            ".expect that checks the result bit for bit.  Assemble and run it with\n"
            "  tpu-as --config NAME gemm.s && tpu-sim --config NAME gemm.bin\n"
            "The plan, the predicted cycles and the bound are printed (docs/workloads.md).\n"
            "\n"
            "options:\n"
            "  --config NAME|FILE  the machine: tiny, mid, v5e, ... or a .cfg file (required)\n"
            "  -M, -N, -K SIZE     the shape: positive whole numbers\n"
            "  --dtype TYPE        bf16 (default: bf16 X and W, fp32 Y), int8 (int8 X and W,\n"
            "                      int32 Y), w8 (bf16 X, int8 W widened to bf16, fp32 Y)\n"
            "  --tile-m ROWS       rows of X per M-tile (default: the most VMEM allows)\n"
            "  --tile-n COLS       columns per group: a multiple of the MXU size, at most\n"
            "                      MXU size x MXUs (default: every MXU)\n"
            "  --tile-k K          K per W block DMA: a multiple of the K-tile (the MXU\n"
            "                      size; int8 twice it) that divides the padded K\n"
            "  --timing-only       no data and no .expect (zeros): for timing large shapes\n"
            "  -o FILE             write the program to FILE (default: standard output)\n"
            "  --quiet             do not print the plan\n"
            "  -h, --help          show this help\n"
            "\n"
            "exit status: 0 success, 1 the output cannot be written, 2 a bad command\n"
            "line or a shape or tiling the machine cannot take.\n");
}

static int bad(const char *fmt, const char *a, const char *b)
{
    fprintf(stderr, TOOL ": error: ");
    fprintf(stderr, fmt, a, b);
    fputc('\n', stderr);
    return 2;
}

/* A size: decimal digits only, 1 .. 2^40. */
static int parse_size(const char *opt, const char *s, uint64_t *out)
{
    if (!s || !*s)
        return bad("%s needs a value%s", opt, "");
    if (s[0] == '-')
        return bad("%s must be positive, got '%s'", opt, s);
    for (const char *c = s; *c; c++)
        if (*c < '0' || *c > '9')
            return bad("%s must be a positive whole number, got '%s'", opt, s);
    errno = 0;
    unsigned long long v = strtoull(s, NULL, 10);
    if (errno || v > (1ull << 40))
        return bad("%s is too large: '%s'", opt, s);
    if (v == 0)
        return bad("%s must be positive, got '%s'", opt, s);
    *out = v;
    return 0;
}

int main(int argc, char **argv)
{
    const char *config = NULL, *out = NULL;
    int quiet = 0, have_m = 0, have_n = 0, have_k = 0;
    kgen_gemm_opts o;
    memset(&o, 0, sizeof o);

    if (argc >= 2 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
        usage(stdout);
        return 0;
    }
    if (argc < 2)
        return bad("no kernel named (try: tpu-gen gemm --config tiny -M 8 -N 8 -K 8; --help)%s%s", "", "");
    if (strcmp(argv[1], "gemm") != 0)
        return bad("unknown kernel '%s' (the kernels: gemm)%s", argv[1], "");

    for (int i = 2; i < argc; i++) {
        const char *a = argv[i], *v;
        int missing = 0;
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(a, "--timing-only") == 0) {
            o.timing_only = 1;
        } else if (strcmp(a, "--quiet") == 0) {
            quiet = 1;
        } else if (strcmp(a, "--relu") == 0 || strcmp(a, "--bias") == 0) {
            return bad("%s is not supported yet: the VPU epilogue is not part of this slice%s", a, "");
        } else if ((v = tpu_cli_opt_value(argc, argv, &i, "--config", &missing)) || missing) {
            if (missing)
                return bad("%s needs a value%s", a, "");
            config = v;
        } else if ((v = tpu_cli_opt_value(argc, argv, &i, "--dtype", &missing)) || missing) {
            if (missing)
                return bad("%s needs a value%s", a, "");
            if (strcmp(v, "bf16") == 0)
                o.dtype = KGEN_BF16;
            else if (strcmp(v, "int8") == 0)
                o.dtype = KGEN_INT8;
            else if (strcmp(v, "w8") == 0)
                o.dtype = KGEN_W8;
            else
                return bad("unknown --dtype '%s' (bf16, int8, w8)%s", v, "");
        } else if ((v = tpu_cli_opt_value(argc, argv, &i, "-o", &missing)) || missing) {
            if (missing)
                return bad("%s needs a file name%s", a, "");
            out = v;
        } else {
            static const char *const names[] = { "-M", "-N", "-K", "--tile-m", "--tile-n", "--tile-k" };
            uint64_t *dst[] = { &o.m, &o.n, &o.k, &o.tile_m, &o.tile_n, &o.tile_k };
            int *seen[] = { &have_m, &have_n, &have_k, NULL, NULL, NULL };
            int j;
            for (j = 0; j < 6; j++) {
                missing = 0;
                if ((v = tpu_cli_opt_value(argc, argv, &i, names[j], &missing)) || missing)
                    break;
            }
            if (j == 6)
                return bad("unknown option '%s' (try --help)%s", a, "");
            if (missing)
                return bad("%s needs a value%s", names[j], "");
            if (parse_size(names[j], v, dst[j]))
                return 2;
            if (seen[j])
                *seen[j] = 1;
        }
    }
    if (!config)
        return bad("--config is required: the machine to generate for (tiny, mid, v5e, ...)%s%s", "", "");
    if (!have_m || !have_n || !have_k)
        return bad("the shape needs -M, -N and -K%s%s", "", "");

    tpu_config cfg;
    if (tpu_cli_load_config(TOOL, config, &cfg) || tpu_cli_finish_config(TOOL, &cfg, NULL, 0))
        return 2;

    kgen_plan plan;
    char err[512];
    if (kgen_gemm_plan(&cfg, &o, &plan, err, sizeof err))
        return bad("%s%s", err, "");
    kgen_cost cost;
    kgen_gemm_cost(&cfg, &plan, &cost);

    FILE *f = stdout;
    if (out && !(f = fopen(out, "w"))) {
        fprintf(stderr, TOOL ": error: cannot write '%s': %s\n", out, strerror(errno));
        return 1;
    }
    long n = kgen_gemm_emit(f, config, &cfg, &plan, &cost);
    if (out && fclose(f) != 0)
        n = -1;
    if (n < 0) {
        fprintf(stderr, TOOL ": error: cannot write '%s'\n", out ? out : "standard output");
        return 1;
    }
    if ((uint64_t)n > cfg.imem_words) {
        fprintf(stderr, TOOL ": error: the program has %ld instructions, IMEM holds %llu\n", n,
                (unsigned long long)cfg.imem_words);
        return 2;
    }
    if (!quiet) {
        /* the plan goes where the program does not */
        FILE *r = out ? stdout : stderr;
        fprintf(r, "tpu-gen: gemm %llux%llux%llu %s on %s: padded N %llu, K %llu, mapping %.1f%%\n",
                (unsigned long long)o.m, (unsigned long long)o.n, (unsigned long long)o.k,
                kgen_dtype_name(o.dtype), cfg.name, (unsigned long long)plan.np,
                (unsigned long long)plan.kp, 100.0 * plan.efficiency);
        fprintf(r, "tpu-gen: tiles: %llu M-tile%s of %llu rows, %llu group%s of %llu columns, %llu K-tiles in blocks of %llu; ring %u, X buffers %u\n",
                (unsigned long long)plan.mtiles, plan.mtiles > 1 ? "s" : "", (unsigned long long)plan.tm,
                (unsigned long long)plan.groups, plan.groups > 1 ? "s" : "", (unsigned long long)plan.tn,
                (unsigned long long)plan.kt, (unsigned long long)plan.kb, plan.ring, plan.xbufs);
        fprintf(r, "tpu-gen: program: %ld instructions of %llu; VMEM %llu of %llu bytes; HBM %llu bytes\n",
                n, (unsigned long long)cfg.imem_words, (unsigned long long)plan.vmem_need,
                (unsigned long long)cfg.vmem_bytes, (unsigned long long)plan.hbm_need);
        fprintf(r, "tpu-gen: predicted %.0f cycles, %s-bound (math %.0f, memory %.0f, issue %.0f)\n",
                cost.predicted, cost.bound, cost.t_math, cost.t_memory, cost.t_issue);
    }
    return 0;
}
