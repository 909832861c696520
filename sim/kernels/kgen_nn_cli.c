/*
 * kgen_nn_cli.c - the command lines of tpu-gen's transformer layers:
 * softmax, layernorm, rmsnorm, gelu, silu (kgen_nn.c; docs/transformers.md).
 * Besides the plan it reports the kernel's error against float64 on the
 * program's own data: the C reference (ref_nn.c) gives the program's bits
 * exactly (the .expect check proves it at run time), so its error is the
 * program's.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kgen_args.h"
#include "kgen_nn.h"

#define TOOL "tpu-gen"
#define REPORT_LIMIT (1ull << 22)    /* values: above, the error report is skipped */

static void usage(FILE *f, const char *k)
{
    int norm = strcmp(k, "layernorm") == 0 || strcmp(k, "rmsnorm") == 0;
    fprintf(f,
            "usage: tpu-gen %s --config NAME -N ROWS -C COLS%s [--tile-rows R]\n"
            "       [--timing-only] [--predict] [-o FILE] [--quiet]\n"
            "%s over each of N rows (tokens) of C fp32 values (features) on the VPU.\n"
            "The activation is feature-major: column c of all rows is a run of N values,\n"
            "a row per lane, so N must be a multiple of the vector's S x L elements.\n"
            "The program checks itself bit for bit (.expect); tpu-gen prints the error\n"
            "against float64 on the program's data (docs/transformers.md).\n"
            "\n"
            "options:\n"
            "  --config NAME|FILE  the machine (required)\n"
            "  -N ROWS, -C COLS    the shape\n"
            "%s"
            "  --tile-rows R       rows per tile: a multiple of S x L, at most 8 vectors,\n"
            "                      dividing N (default: the most VMEM allows, up to 8 vectors)\n"
            "  --timing-only       no data and no .expect\n"
            "  --predict           print the predicted cycles, write no program\n"
            "  -o FILE             the program (default: standard output)\n"
            "  --quiet             print nothing but errors\n",
            k, strcmp(k, "softmax") == 0 ? " [--scale S]" : norm ? " [--eps E]" : "",
            strcmp(k, "softmax") == 0 ? "softmax(scale * x) (the row's maximum subtracted)"
            : strcmp(k, "layernorm") == 0 ? "layernorm: (x - mean) / sqrt(var + eps) * gamma + beta"
            : strcmp(k, "rmsnorm") == 0 ? "RMSnorm: x / sqrt(mean(x^2) + eps) * gamma"
            : strcmp(k, "gelu") == 0 ? "GELU (tanh form), elementwise,"
                                     : "SiLU, x * sigmoid(x), elementwise,",
            strcmp(k, "softmax") == 0 ? "  --scale S           multiply x by S first (default 1; attention: 1/sqrt(d))\n"
            : norm ? "  --eps E             added to the mean square (default 1e-5)\n" : "");
    kgen_usage_exit(f, "a shape");
}

/* The error of the kernel against float64 on the program's data. */
static void error_report(FILE *rp, const kgen_nn_plan *p)
{
    uint64_t n = p->o.n, c = p->o.c, cnt = n * c;
    if (cnt > REPORT_LIMIT) {
        fprintf(rp, "tpu-gen: error against float64: not computed (%llu values, the report takes at most %llu)\n",
                (unsigned long long)cnt, (unsigned long long)REPORT_LIMIT);
        return;
    }
    uint32_t *x = malloc(cnt * 4), *z = malloc(cnt * 4), *g = malloc(c * 4), *b = malloc(c * 4);
    uint32_t *tmp = malloc(c * 4);
    double *w = malloc(cnt * sizeof *w);
    if (!x || !z || !g || !b || !tmp || !w) {
        fprintf(rp, "tpu-gen: error against float64: not computed (out of memory)\n");
    } else {
        kgen_nn_data(p, x, g, b);
        tpu_nn_params pr = { p->o.op, c, g, b, p->o.eps, p->o.scale, NULL };
        tpu_ref_nn(&pr, x, z, n, n, tmp);
        tpu_ref_nn_f64(&pr, x, w, n, n);
        tpu_nn_error er;
        memset(&er, 0, sizeof er);
        tpu_nn_error_add(&er, z, w, cnt, 1e-3, 0);
        fprintf(rp, "tpu-gen: error against float64 (this data, %llu values): max abs %.3g at [row %llu][col %llu], "
                "max rel %.3g at [row %llu][col %llu] (over |exact| >= 1e-3)\n",
                (unsigned long long)cnt, er.max_abs, (unsigned long long)(er.at_abs % n),
                (unsigned long long)(er.at_abs / n), er.max_rel,
                (unsigned long long)(er.at_rel % n), (unsigned long long)(er.at_rel / n));
    }
    free(x); free(z); free(g); free(b); free(tmp); free(w);
}

/* kgen_write_program's callback: the layer's program */
struct nn_emit { const char *config; const tpu_config *cfg; const kgen_nn_plan *p; };
static long emit_nn(FILE *f, const void *ctx)
{
    const struct nn_emit *e = ctx;
    return kgen_nn_emit(f, e->config, e->cfg, e->p);
}

int kgen_cli_nn(int argc, char **argv)
{
    const char *k = argv[1];
    int op;
    for (op = 0; op < TPU_NN_ADD && strcmp(k, kgen_nn_names[op]) != 0; op++)
        ;
    if (op == TPU_NN_ADD)                    /* the residual is a stage of ffn --prenorm only */
        return -1;
    int softmax = op == TPU_NN_SOFTMAX, norm = op == TPU_NN_LAYERNORM || op == TPU_NN_RMSNORM;
    kgen_nn_opts o;
    memset(&o, 0, sizeof o);
    o.op = (tpu_nn_op)op;
    o.eps = 0x3727c5acu;                     /* 1e-5 */
    o.scale = TPU_NN_ONE;
    kgen_opt opts[4] = {
        { "-N", KGEN_OPT_COUNT, .dst = &o.n },
        { "-C", KGEN_OPT_COUNT, .dst = &o.c },
        { "--tile-rows", KGEN_OPT_COUNT, .dst = &o.tile_rows },
        { "--scale", KGEN_OPT_FP32, .dst = &o.scale },
    };
    if (norm)                                /* --eps for the norms, --scale for softmax */
        opts[3] = (kgen_opt){ "--eps", KGEN_OPT_FP32, .dst = &o.eps, .zero_ok = 1 };
    kgen_args a;
    int pr = kgen_args_parse(argc, argv, opts, softmax || norm ? 4 : 3, &a);
    if (pr)
        return pr < 0 ? (usage(stdout, k), 0) : pr;    /* --help, or an error */
    const char *config = a.config, *out = a.out;
    o.timing_only = a.timing_only;
    if (!o.n || !o.c)
        return kgen_bad("%s needs -N and -C (rows and columns)", k);
    tpu_config cfg;
    if (kgen_args_config(&a, &cfg))
        return 2;
    static kgen_nn_plan p;
    char err[600];
    if (kgen_nn_plan_make(&cfg, &o, &p, err, sizeof err))
        return kgen_bad("%s", err);
    char what[300];
    snprintf(what, sizeof what, "%s N %llu x C %llu on %s: VPU, feature-major, %llu tile%s of %llu rows",
             k, (unsigned long long)o.n, (unsigned long long)o.c, cfg.name,
             (unsigned long long)p.tiles, p.tiles == 1 ? "" : "s", (unsigned long long)(p.rb * p.e));
    if (a.predict) {
        printf("tpu-gen: %s\n", what);
        printf("tpu-gen: predicted %.0f cycles, %s-bound (vpu %.0f, memory %.0f, issue %.0f)\n",
               p.cost.predicted, p.cost.bound, p.cost.t_math, p.cost.t_memory, p.cost.t_issue);
        return 0;
    }
    const struct nn_emit ctx = { config, &cfg, &p };
    long n = kgen_write_program(out, &cfg, emit_nn, &ctx);
    if (n < 0)
        return n == -1 ? 1 : 2;
    if (!a.quiet) {
        FILE *rp = out ? stdout : stderr;
        fprintf(rp, "tpu-gen: %s\n", what);
        fprintf(rp, "tpu-gen: program: %ld instructions of %llu; VMEM %llu of %llu bytes; HBM %llu bytes\n",
                n, (unsigned long long)cfg.imem_words, (unsigned long long)p.vmem_need,
                (unsigned long long)cfg.vmem_bytes, (unsigned long long)p.hbm_need);
        fprintf(rp, "tpu-gen: predicted %.0f cycles, %s-bound (vpu %.0f, memory %.0f, issue %.0f)\n",
                p.cost.predicted, p.cost.bound, p.cost.t_math, p.cost.t_memory, p.cost.t_issue);
        if (!o.timing_only)
            error_report(rp, &p);
    }
    return 0;
}
