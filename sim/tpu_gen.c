/*
 * tpu_gen.c - tpu-gen: write a kernel as an assembly program for a machine.
 *
 *   tpu-gen gemm --config v5e -M 300 -N 500 -K 700 [--dtype bf16|int8|w8]
 *                [--tile-m R] [--tile-n C] [--tile-k K] [--timing-only]
 *                [--x X.npy] [--w W.npy] [-o gemm.s] [--quiet]
 *
 * The planner, the cost model and the writer are sim/kernels/ (kgen.h);
 * this file is only the command line, and the `.array` lines that give
 * X, W and Y their logical shapes (so tpu-sim --load/--dump move the
 * user's arrays in and out of the padded layout; --x and --w take the
 * shape from .npy files).  docs/workloads.md is the manual.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "kgen.h"
#include "kgen_nn.h"
#include "kgen_tfm.h"
#include "kgen_shard.h"
#include "kgen_block.h"
#include "kgen_block_shard.h"
#include "npy.h"

#define TOOL "tpu-gen"

int kgen_cli_layer(int argc, char **argv);

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
            "Other kernels: tpu-gen conv2d|pool|eltwise|mlp --help; transformer layers:\n"
            "tpu-gen softmax|layernorm|rmsnorm|gelu|silu|ffn|attention|ffn-shard|block|block-shard --help\n"
            "(docs/transformers.md).\n"
            "\n"
            "options:\n"
            "  --config NAME|FILE  the machine: tiny, mid, v5e, ... or a .cfg file (required)\n"
            "  -M, -N, -K SIZE     the shape: positive whole numbers\n"
            "  --dtype TYPE        bf16 (default: bf16 X and W, fp32 Y), int8 (int8 X and W,\n"
            "                      int32 Y), w8 (bf16 X, int8 W widened to bf16, fp32 Y)\n"
            "  --tile-m ROWS       rows of X per M-tile (default: the most VMEM allows)\n"
            "  --tile-n COLS       columns per group: a multiple of the MXU size, at most\n"
            "                      MXU size x MXUs (default: every MXU)\n"
            "  --bias, --relu      the VPU epilogue: relu(X . W + bias), bias fp32 per column\n"
            "  --predict           print the predicted cycles and bound, write no program\n"
            "  --tile-k K          K per W block DMA: a multiple of the K-tile (the MXU\n"
            "                      size; int8 twice it) that divides the padded K\n"
            "  --timing-only       no data and no .expect (zeros): for timing large shapes\n"
            "  --x FILE.npy        X's shape [M, K] (and dtype) from a .npy file: -M and -K\n"
            "                      may then be left out; run the program with tpu-sim\n"
            "                      --load X=FILE.npy\n"
            "  --w FILE.npy        W's shape [K, N] from a .npy file, the same way\n"
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

/* --x or --w: a 2-D array whose dtype fits the GEMM's input; its shape
 * into rows, cols.  Exit status 2 after a message on failure. */
static int npy_shape(const char *opt, const char *path, kgen_dtype dt, int is_w, uint64_t *rows,
                     uint64_t *cols)
{
    npy_array a;
    char err[512], s[256];
    if (npy_read(path, &a, 0, err, sizeof err)) {
        fprintf(stderr, TOOL ": %s: error: %s (%s)\n", path, err, opt);
        return 2;
    }
    int int8 = dt == KGEN_INT8 || (dt == KGEN_W8 && is_w);
    int ok = int8 ? a.dtype == NPY_I8 : a.dtype == NPY_F32 || a.dtype == NPY_U16;
    npy_shape_text(a.shape, a.ndim, s, sizeof s);
    if (a.ndim != 2 || !ok || a.shape[0] == 0 || a.shape[1] == 0) {
        fprintf(stderr, TOOL ": %s: error: %s %s is %s of %s: expected a 2-D array %s of %s\n",
                path, opt, is_w ? "W" : "X", s, npy_dtype_name(a.dtype),
                is_w ? "[K, N]" : "[M, K]",
                int8 ? "int8 ('|i1')" : "float32 ('<f4') or uint16 ('<u2', bf16 bits)");
        return 2;
    }
    *rows = a.shape[0];
    *cols = a.shape[1];
    return 0;
}

/* The logical shape of X, W and Y for tpu-sim --load/--dump: `.array`
 * lines over the padded layout (rows pitch bytes apart; int8 W in
 * K-pairs).  Not for --timing-only, whose X, W, Y are not labels. */
static void emit_arrays(FILE *f, const kgen_plan *p)
{
    const kgen_gemm_opts *o = &p->o;
    const char *xt = o->dtype == KGEN_INT8 ? "i8" : "bf16";
    const char *wt = o->dtype == KGEN_BF16 ? "bf16" : "i8";
    fprintf(f, "\n# ---- the arrays' logical shapes (padding left out), for tpu-sim --load/--dump\n");
    fprintf(f, "        .array  X, %s, %llu, %llu, pitch %llu\n", xt, (unsigned long long)o->m,
            (unsigned long long)o->k, (unsigned long long)p->x_row);
    fprintf(f, "        .array  W, %s, %llu, %llu, pitch %llu%s\n", wt, (unsigned long long)o->k,
            (unsigned long long)o->n, (unsigned long long)p->w_row_hbm,
            o->dtype == KGEN_INT8 ? ", kpairs" : "");
    fprintf(f, "        .array  Y, %s, %llu, %llu, pitch %llu\n",
            o->dtype == KGEN_INT8 ? "i32" : "f32", (unsigned long long)o->m,
            (unsigned long long)o->n, (unsigned long long)(4 * p->np));
}

/* kgen_write_program's callback: the GEMM's program, then its arrays
 * (unless --timing-only) */
struct gemm_emit {
    const char *config;
    const tpu_config *cfg;
    const kgen_plan *plan;
    const kgen_cost *cost;
    int arrays;
};
static long emit_gemm(FILE *f, const void *ctx)
{
    const struct gemm_emit *e = ctx;
    long n = kgen_gemm_emit(f, e->config, e->cfg, e->plan, e->cost);
    if (n >= 0 && e->arrays) {
        emit_arrays(f, e->plan);
        if (ferror(f))
            n = -1;
    }
    return n;
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
    const char *config = NULL, *out = NULL, *xfile = NULL, *wfile = NULL;
    int quiet = 0, have_m = 0, have_n = 0, have_k = 0, predict = 0;
    char sk1[64], sk2[64];
    kgen_gemm_opts o;
    memset(&o, 0, sizeof o);

    if (argc >= 2 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
        usage(stdout);
        return 0;
    }
    if (argc < 2)
        return bad("no kernel named (try: tpu-gen gemm --config tiny -M 8 -N 8 -K 8; --help)%s%s", "", "");
    if (strcmp(argv[1], "gemm") != 0) {
        int rc = kgen_cli_layer(argc, argv);    /* conv2d, pool, eltwise, mlp: kgen_cli.c */
        if (rc < 0)
            rc = kgen_cli_nn(argc, argv);       /* softmax, layernorm, ...: kgen_nn_cli.c */
        if (rc < 0)
            rc = kgen_cli_tfm(argc, argv);      /* ffn, attention: kgen_tfm_cli.c */
        if (rc < 0)
            rc = kgen_cli_shard(argc, argv);    /* ffn-shard: kgen_shard_cli.c */
        if (rc < 0)
            rc = kgen_cli_block(argc, argv);    /* block: kgen_block_cli.c */
        if (rc < 0)
            rc = kgen_cli_bshard(argc, argv);   /* block-shard: kgen_block_shard_cli.c */
        if (rc >= 0)
            return rc;
        return bad("unknown kernel '%s' (the kernels: gemm, conv2d, pool, eltwise, mlp, softmax, layernorm, rmsnorm, gelu, silu, ffn, attention, ffn-shard, block, block-shard)%s", argv[1], "");
    }

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
        } else if (strcmp(a, "--predict") == 0) {
            predict = 1;
        } else if (strcmp(a, "--relu") == 0) {
            o.relu = 1;
        } else if (strcmp(a, "--bias") == 0) {
            o.bias = 1;
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
        } else if ((v = tpu_cli_opt_value(argc, argv, &i, "--x", &missing)) || missing) {
            if (missing)
                return bad("%s needs a .npy file%s", a, "");
            xfile = v;
        } else if ((v = tpu_cli_opt_value(argc, argv, &i, "--w", &missing)) || missing) {
            if (missing)
                return bad("%s needs a .npy file%s", a, "");
            wfile = v;
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
    /* --x [M, K] and --w [K, N]: the shape, where -M, -N, -K do not give it */
    uint64_t xm = 0, xk = 0, wk = 0, wn = 0;
    if (xfile && npy_shape("--x", xfile, o.dtype, 0, &xm, &xk))
        return 2;
    if (wfile && npy_shape("--w", wfile, o.dtype, 1, &wk, &wn))
        return 2;
    if (xfile && wfile && xk != wk)
        return bad("--x is [M, K] with K = %s, --w is [K, N] with K = %s: K must agree",
                   (snprintf(sk1, sizeof sk1, "%llu", (unsigned long long)xk), sk1),
                   (snprintf(sk2, sizeof sk2, "%llu", (unsigned long long)wk), sk2));
    const struct { int given; uint64_t *dim; uint64_t from; const char *opt, *file; } dims[] = {
        { have_m, &o.m, xm, "-M", "--x" }, { have_k, &o.k, xk, "-K", "--x" },
        { have_k, &o.k, wk, "-K", "--w" }, { have_n, &o.n, wn, "-N", "--w" },
    };
    for (int j = 0; j < 4; j++) {
        if (!dims[j].from)
            continue;
        if (*dims[j].dim && *dims[j].dim != dims[j].from) {
            snprintf(sk1, sizeof sk1, "%llu", (unsigned long long)*dims[j].dim);
            snprintf(sk2, sizeof sk2, "%s %llu", dims[j].opt, (unsigned long long)dims[j].from);
            fprintf(stderr, TOOL ": error: %s %s does not match %s's shape (%s)\n", dims[j].opt,
                    sk1, dims[j].file, sk2);
            return 2;
        }
        *dims[j].dim = dims[j].from;
    }
    have_m |= xm != 0;
    have_k |= xk != 0 || wk != 0;
    have_n |= wn != 0;
    if (!have_m || !have_n || !have_k)
        return bad("the shape needs -M, -N and -K (or --x X.npy and --w W.npy)%s%s", "", "");

    tpu_config cfg;
    if (tpu_cli_load_config(TOOL, config, &cfg) || tpu_cli_finish_config(TOOL, &cfg, NULL, 0))
        return 2;

    kgen_plan plan;
    char err[512];
    if (kgen_gemm_plan(&cfg, &o, &plan, err, sizeof err))
        return bad("%s%s", err, "");
    kgen_cost cost;
    kgen_gemm_cost(&cfg, &plan, &cost);
    if (predict) {
        printf("tpu-gen: predicted %.0f cycles, %s-bound (math %.0f, memory %.0f, issue %.0f)\n",
               cost.predicted, cost.bound, cost.t_math, cost.t_memory, cost.t_issue);
        return 0;
    }

    const struct gemm_emit ctx = { config, &cfg, &plan, &cost, !o.timing_only };
    long n = kgen_write_program(out, &cfg, emit_gemm, &ctx);
    if (n < 0)
        return n == -1 ? 1 : 2;
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
        if ((xfile || wfile) && !o.timing_only) {
            /* gemm.s -> gemm.bin, as tpu-as names it */
            char obj[512] = "PROG.bin";
            size_t len = out ? strlen(out) : 0;
            if (len > 2 && len < sizeof obj - 4 && !strcmp(out + len - 2, ".s"))
                snprintf(obj, sizeof obj, "%.*s.bin", (int)(len - 2), out);
            fprintf(r, "tpu-gen: on your arrays: tpu-as --config %s %s -o %s && tpu-sim "
                    "--config %s%s%s%s%s --dump Y=Y.npy %s\n", config, out ? out : "PROG.s", obj,
                    config, xfile ? " --load X=" : "", xfile ? xfile : "",
                    wfile ? " --load W=" : "", wfile ? wfile : "", obj);
        }
    }
    return 0;
}
