/*
 * kgen_cli.c - the command lines of tpu-gen's layer kernels: conv2d, pool,
 * eltwise and mlp (tpu_gen.c keeps gemm's and hands the others here).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "kgen.h"

#define TOOL "tpu-gen"

int kgen_cli_layer(int argc, char **argv);

static const char *const elt_names[] = { "add", "relu", "add_relu", "max", "mul" };

static int bad(const char *fmt, const char *a)
{
    fprintf(stderr, TOOL ": error: ");
    fprintf(stderr, fmt, a);
    fputc('\n', stderr);
    return 2;
}

typedef struct {
    const char *name;
    uint64_t *dst;
    int zero_ok;
    int *seen;
} numopt;

static void usage(FILE *f, const char *kernel)
{
    if (strcmp(kernel, "conv2d") == 0)
        fprintf(f,
                "usage: tpu-gen conv2d --config NAME -H H -W W -C C --filters F -R R -S S\n"
                "                      [--stride 1] [--pad 0] [--groups 1] [--batch 1] [--bias] [--relu]\n"
                "                      [--engine mxu|vpu] [--tile-m ROWS] [--tile-n COLS] [--tile-k K]\n"
                "                      [--timing-only] [--predict] [-o FILE] [--quiet]\n"
                "NHWC bf16 input, HWIO bf16 filters, fp32 output; im2col + GEMM on the MXUs,\n"
                "depthwise (--groups = -C = --filters) on the VPU (docs/workloads.md).\n");
    else if (strcmp(kernel, "pool") == 0)
        fprintf(f,
                "usage: tpu-gen pool --config NAME --mode max|avg -H H -W W -C C -R R -S S\n"
                "                    [--stride 1] [--pad 0] [--batch 1] [--timing-only] [--predict] [-o FILE]\n"
                "fp32 NHWC pooling on the VPU (docs/workloads.md).\n");
    else if (strcmp(kernel, "eltwise") == 0)
        fprintf(f,
                "usage: tpu-gen eltwise --config NAME --op add|relu|add_relu|max|mul -H H -W W -C C\n"
                "                       [--batch 1] [--timing-only] [--predict] [-o FILE]\n"
                "fp32 elementwise layers on the VPU (docs/workloads.md).\n");
    else
        fprintf(f,
                "usage: tpu-gen mlp --config NAME -M ROWS --dims D0,D1,...,Dn [--relu] [--bias]\n"
                "                   [--via-hbm] [--timing-only] [--predict] [-o FILE]\n"
                "A chain of GEMMs in one program: Y = ((X W1 + b1) relu ...) Wn + bn; the\n"
                "intermediates bf16 in VMEM when they fit there beside the layers, else (or\n"
                "with --via-hbm) through HBM; each layer checked (docs/workloads.md).\n");
}

static int parse_dims(const char *v, kgen_chain *c)
{
    unsigned n = 0;
    const char *s = v;
    while (*s) {
        char *end;
        if (*s < '0' || *s > '9')
            return bad("--dims wants sizes separated by commas, got '%s'", v);
        errno = 0;
        unsigned long long d = strtoull(s, &end, 10);
        if (errno || d == 0 || d > (1ull << 31))
            return bad("--dims: every size must be 1 .. 2^31, got '%s'", v);
        if (n > KGEN_MAX_LAYERS)
            return bad("--dims: at most 17 sizes (16 layers), got '%s'", v);
        c->dims[n++] = d;
        s = end;
        if (*s == ',')
            s++;
        else if (*s)
            return bad("--dims wants sizes separated by commas, got '%s'", v);
    }
    if (n < 2)
        return bad("--dims needs at least two sizes (one layer), got '%s'", v);
    c->nlayers = n - 1;
    return 0;
}

/* kgen_write_program's callback: a convolution's, a chain's (mlp) or a VPU
 * layer's program, whichever the command planned */
struct layer_emit {
    const char *config;
    const tpu_config *cfg;
    const kgen_conv_plan *conv;
    const kgen_chain *chain;
    const kgen_vpu_plan *vpu;
};
static long emit_layer(FILE *f, const void *ctx)
{
    const struct layer_emit *e = ctx;
    return e->conv    ? kgen_conv_emit(f, e->config, e->cfg, e->conv)
           : e->chain ? kgen_chain_emit(f, e->config, e->cfg, e->chain)
                      : kgen_vpu_emit(f, e->config, e->cfg, e->vpu);
}

int kgen_cli_layer(int argc, char **argv)
{
    const char *kernel = argv[1];
    int conv = strcmp(kernel, "conv2d") == 0, pool = strcmp(kernel, "pool") == 0;
    int elt = strcmp(kernel, "eltwise") == 0, mlp = strcmp(kernel, "mlp") == 0;
    if (!conv && !pool && !elt && !mlp)
        return -1;

    const char *config = NULL, *out = NULL;
    int quiet = 0, predict = 0, timing = 0, bias = 0, relu = 0, via_hbm = 0, have_mode = 0, have_op = 0;
    uint64_t h = 0, w = 0, c = 0, f = 0, r = 0, s = 0, stride = 1, pad = 0, groups = 1, batch = 1;
    uint64_t tile_m = 0, tile_n = 0, tile_k = 0, m = 0;
    int seen_h = 0, seen_w = 0, seen_c = 0, seen_f = 0, seen_r = 0, seen_s = 0, seen_m = 0;
    int engine = 0;
    kgen_pool_mode mode = KGEN_POOL_MAX;
    kgen_elt_op op = KGEN_ELT_ADD;
    static kgen_chain chain;
    memset(&chain, 0, sizeof chain);
    int have_dims = 0;

    numopt nums[] = {
        { "-H", &h, 0, &seen_h }, { "-W", &w, 0, &seen_w }, { "-C", &c, 0, &seen_c },
        { "--filters", &f, 0, &seen_f }, { "-R", &r, 0, &seen_r }, { "-S", &s, 0, &seen_s },
        { "--stride", &stride, 0, NULL }, { "--pad", &pad, 1, NULL }, { "--groups", &groups, 0, NULL },
        { "--batch", &batch, 0, NULL }, { "--tile-m", &tile_m, 0, NULL },
        { "--tile-n", &tile_n, 0, NULL }, { "--tile-k", &tile_k, 0, NULL }, { "-M", &m, 0, &seen_m },
    };
    const size_t nnums = sizeof nums / sizeof nums[0];

    for (int i = 2; i < argc; i++) {
        const char *a = argv[i], *v;
        int missing = 0;
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            usage(stdout, kernel);
            return 0;
        } else if (strcmp(a, "--quiet") == 0) {
            quiet = 1;
        } else if (strcmp(a, "--predict") == 0) {
            predict = 1;
        } else if (strcmp(a, "--timing-only") == 0) {
            timing = 1;
        } else if (strcmp(a, "--via-hbm") == 0 && mlp) {
            via_hbm = 1;
        } else if (strcmp(a, "--bias") == 0 && (conv || mlp)) {
            bias = 1;
        } else if (strcmp(a, "--relu") == 0 && (conv || mlp)) {
            relu = 1;
        } else if ((v = tpu_cli_opt_value(argc, argv, &i, "--config", &missing)) || missing) {
            if (missing)
                return bad("%s needs a value", a);
            config = v;
        } else if ((v = tpu_cli_opt_value(argc, argv, &i, "-o", &missing)) || missing) {
            if (missing)
                return bad("%s needs a file name", a);
            out = v;
        } else if (conv && ((v = tpu_cli_opt_value(argc, argv, &i, "--engine", &missing)) || missing)) {
            if (missing)
                return bad("%s needs a value", a);
            if (strcmp(v, "mxu") == 0)
                engine = 1;
            else if (strcmp(v, "vpu") == 0)
                engine = 2;
            else
                return bad("unknown --engine '%s' (mxu, vpu)", v);
        } else if (pool && ((v = tpu_cli_opt_value(argc, argv, &i, "--mode", &missing)) || missing)) {
            if (missing)
                return bad("%s needs a value", a);
            if (strcmp(v, "max") == 0)
                mode = KGEN_POOL_MAX;
            else if (strcmp(v, "avg") == 0)
                mode = KGEN_POOL_AVG;
            else
                return bad("unknown --mode '%s' (max, avg)", v);
            have_mode = 1;
        } else if (elt && ((v = tpu_cli_opt_value(argc, argv, &i, "--op", &missing)) || missing)) {
            if (missing)
                return bad("%s needs a value", a);
            static const char *const ops[] = { "add", "relu", "add_relu", "max", "mul" };
            size_t k;
            for (k = 0; k < 5 && strcmp(v, ops[k]) != 0; k++)
                ;
            if (k == 5)
                return bad("unknown --op '%s' (add, relu, add_relu, max, mul)", v);
            op = (kgen_elt_op)k;
            have_op = 1;
        } else if (mlp && ((v = tpu_cli_opt_value(argc, argv, &i, "--dims", &missing)) || missing)) {
            if (missing)
                return bad("%s needs a value", a);
            if (parse_dims(v, &chain))
                return 2;
            have_dims = 1;
        } else {
            size_t j;
            for (j = 0; j < nnums; j++) {
                missing = 0;
                if ((v = tpu_cli_opt_value(argc, argv, &i, nums[j].name, &missing)) || missing)
                    break;
            }
            if (j == nnums)
                return bad("unknown option '%s' (try --help)", a);
            if (missing)
                return bad("%s needs a value", nums[j].name);
            if (kgen_parse_count(nums[j].name, v, nums[j].dst, nums[j].zero_ok))
                return 2;
            if (nums[j].seen)
                *nums[j].seen = 1;
        }
    }
    if (!config)
        return bad("--config is required: the machine to generate for (tiny, mid, v5e, ...)%s", "");
    if (conv && !(seen_h && seen_w && seen_c && seen_f && seen_r && seen_s))
        return bad("conv2d needs -H, -W, -C, --filters, -R and -S%s", "");
    if (pool && !(seen_h && seen_w && seen_c && seen_r && seen_s))
        return bad("pool needs -H, -W, -C, -R and -S%s", "");
    if (pool && !have_mode)
        return bad("pool needs --mode max or --mode avg%s", "");
    if (elt && !(seen_h && seen_w && seen_c))
        return bad("eltwise needs -H, -W and -C (the tensor's shape)%s", "");
    if (elt && !have_op)
        return bad("eltwise needs --op (add, relu, add_relu, max, mul)%s", "");
    if (mlp && !(seen_m && have_dims))
        return bad("mlp needs -M and --dims%s", "");

    tpu_config cfg;
    if (tpu_cli_load_config(TOOL, config, &cfg) || tpu_cli_finish_config(TOOL, &cfg, NULL, 0))
        return 2;

    char err[512], what[512];
    static kgen_conv_plan cp;
    static kgen_vpu_plan vp;
    const kgen_cost *cost;
    uint64_t vmem = 0, hbm = 0;
    if (conv) {
        kgen_conv_opts o;
        memset(&o, 0, sizeof o);
        o.nb = batch, o.h = h, o.w = w, o.c = c, o.f = f, o.r = r, o.s = s;
        o.stride = stride, o.pad = pad, o.groups = groups, o.bias = bias, o.relu = relu;
        o.timing_only = timing, o.engine = engine;
        o.tile_m = tile_m, o.tile_n = tile_n, o.tile_k = tile_k;
        if (kgen_conv_plan_make(&cfg, &o, &cp, err, sizeof err))
            return bad("%s", err);
        cost = &cp.cost;
        vmem = cp.vmem_need, hbm = cp.hbm_need;
        if (cp.vpu)
            snprintf(what, sizeof what, "conv2d %llux%llux%llux%llu, %llux%llu, %llu filters, stride %llu, pad %llu, groups %llu on %s: depthwise on the VPU (%llu output rows a tile, %llu tiles)",
                     (unsigned long long)batch, (unsigned long long)h, (unsigned long long)w,
                     (unsigned long long)c, (unsigned long long)r, (unsigned long long)s,
                     (unsigned long long)f, (unsigned long long)stride, (unsigned long long)pad,
                     (unsigned long long)groups, cfg.name, (unsigned long long)cp.rows_per_tile,
                     (unsigned long long)cp.tiles);
        else
            snprintf(what, sizeof what, "conv2d %llux%llux%llux%llu, %llux%llu, %llu filters, stride %llu, pad %llu, groups %llu on %s: im2col GEMM %llu x %llu x %llu per group, mapping %.1f%%; %llu M-tiles of %llu rows, %llu DMAs per output row",
                     (unsigned long long)batch, (unsigned long long)h, (unsigned long long)w,
                     (unsigned long long)c, (unsigned long long)r, (unsigned long long)s,
                     (unsigned long long)f, (unsigned long long)stride, (unsigned long long)pad,
                     (unsigned long long)groups, cfg.name, (unsigned long long)cp.pixels,
                     (unsigned long long)(f / groups), (unsigned long long)(r * s * (c / groups)),
                     100.0 * cp.efficiency, (unsigned long long)cp.gemm.mtiles,
                     (unsigned long long)cp.gemm.tm, (unsigned long long)cp.gemm.cv.dmas_row);
    } else if (pool || elt) {
        kgen_vpu_opts o;
        memset(&o, 0, sizeof o);
        o.pool = pool, o.mode = mode, o.op = op;
        o.nb = batch, o.h = h, o.w = w, o.c = c, o.r = pool ? r : 1, o.s = pool ? s : 1;
        o.stride = pool ? stride : 1, o.pad = pool ? pad : 0, o.timing_only = timing;
        if (kgen_vpu_plan_make(&cfg, &o, &vp, err, sizeof err))
            return bad("%s", err);
        cost = &vp.cost;
        vmem = vp.vmem_need, hbm = vp.hbm_need;
        if (pool)
            snprintf(what, sizeof what, "pool %s %llux%llux%llux%llu, %llux%llu, stride %llu, pad %llu on %s: VPU, %llu output rows a tile, %llu tiles",
                     mode == KGEN_POOL_MAX ? "max" : "avg", (unsigned long long)batch,
                     (unsigned long long)h, (unsigned long long)w, (unsigned long long)c,
                     (unsigned long long)r, (unsigned long long)s, (unsigned long long)stride,
                     (unsigned long long)pad, cfg.name, (unsigned long long)vp.rows_per_tile,
                     (unsigned long long)vp.tiles);
        else
            snprintf(what, sizeof what, "eltwise %s of %llu fp32 values on %s: VPU, %llu tiles of %llu vectors",
                     elt_names[op],
                     (unsigned long long)vp.elems, cfg.name, (unsigned long long)vp.tiles,
                     (unsigned long long)vp.vec_tile);
    } else {
        chain.m = m, chain.bias = bias, chain.relu = relu, chain.timing_only = timing;
        chain.via_hbm = via_hbm;
        if (kgen_chain_plan(&cfg, &chain, err, sizeof err))
            return bad("%s", err);
        static kgen_cost cc;
        memset(&cc, 0, sizeof cc);
        cc.predicted = chain.predicted;
        cc.bound = "compute";
        double worst = 0;
        for (unsigned i = 0; i < chain.nlayers; i++) {
            cc.t_math += chain.cost[i].t_math;
            cc.t_memory += chain.cost[i].t_memory;
            cc.t_issue += chain.cost[i].t_issue;
            if (chain.cost[i].predicted > worst) {
                worst = chain.cost[i].predicted;
                cc.bound = chain.cost[i].bound;
            }
            if (chain.layer[i].vmem_need > vmem)
                vmem = chain.layer[i].vmem_need;
        }
        cost = &cc;
        hbm = chain.hbm_need;
        int n = snprintf(what, sizeof what, "mlp M %llu, dims", (unsigned long long)m);
        for (unsigned i = 0; i <= chain.nlayers && n > 0 && (size_t)n < sizeof what; i++)
            n += snprintf(what + n, sizeof what - (size_t)n, "%s%llu", i ? "," : " ",
                          (unsigned long long)chain.dims[i]);
        if (n > 0 && (size_t)n < sizeof what)
            snprintf(what + n, sizeof what - (size_t)n, " on %s: %u GEMMs, intermediates bf16 in %s",
                     cfg.name, chain.nlayers, chain.resident ? "VMEM" : "HBM");
    }

    if (predict) {
        printf("tpu-gen: %s\n", what);
        printf("tpu-gen: predicted %.0f cycles, %s-bound (math %.0f, memory %.0f, issue %.0f)\n",
               cost->predicted, cost->bound, cost->t_math, cost->t_memory, cost->t_issue);
        return 0;
    }

    const struct layer_emit ctx = { config, &cfg, conv ? &cp : NULL, mlp ? &chain : NULL, &vp };
    long n = kgen_write_program(out, &cfg, emit_layer, &ctx);
    if (n < 0)
        return n == -1 ? 1 : 2;
    if (!quiet) {
        FILE *rp = out ? stdout : stderr;
        fprintf(rp, "tpu-gen: %s\n", what);
        fprintf(rp, "tpu-gen: program: %ld instructions of %llu; VMEM %llu of %llu bytes; HBM %llu bytes\n",
                n, (unsigned long long)cfg.imem_words, (unsigned long long)vmem,
                (unsigned long long)cfg.vmem_bytes, (unsigned long long)hbm);
        fprintf(rp, "tpu-gen: predicted %.0f cycles, %s-bound (math %.0f, memory %.0f, issue %.0f)\n",
                cost->predicted, cost->bound, cost->t_math, cost->t_memory, cost->t_issue);
    }
    return 0;
}
