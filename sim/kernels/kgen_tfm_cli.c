/*
 * kgen_tfm_cli.c - the command lines of tpu-gen ffn and tpu-gen attention
 * (kgen_tfm.c; docs/transformers.md).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kgen_args.h"
#include "kgen_tfm.h"

#define TOOL "tpu-gen"
#define REPORT_LIMIT (1ull << 30)    /* float64 MACs: above, the error report is skipped */

static void usage(FILE *f, int att)
{
    if (att)
        fprintf(f,
                "usage: tpu-gen attention --config NAME -T QUERIES --dh D [--kv KEYS] [--heads H]\n"
                "       [--timing-only] [--predict] [-o FILE] [--quiet]\n"
                "One attention head, feature-major: S^T = K Q^T on the MXUs (K cache [Tk][dh]\n"
                "token-major, Q^T [dh][Tq]), P^T = softmax over the keys of S^T / sqrt(dh) on the\n"
                "VPU (bf16), O^T = V^T P^T (V cache stored [dh][Tk]); no transpose anywhere.\n"
                "T must be a multiple of the vector's S x L (the queries are the lanes).\n"
                "--kv KEYS: the keys (default T); --heads H: H heads one after the other\n"
                "(each its own Q, K, V and O^T rows).  Each stage checks itself bit for bit;\n"
                "tpu-gen prints the error against float64 (docs/transformers.md).\n");
    else
        fprintf(f,
                "usage: tpu-gen ffn --config NAME -T TOKENS -D WIDTH -F HIDDEN [--prenorm [--eps E]]\n"
                "       [--timing-only] [--predict] [-o FILE] [--quiet]\n"
                "The transformer MLP, feature-major: H^T = W_in^T X^T on the MXUs, G^T =\n"
                "gelu(H^T) (tanh form) on the VPU, rounded to bf16, O^T = W_out^T G^T; bf16\n"
                "weights and input, fp32 output.  T must be a multiple of the vector's S x L\n"
                "(the tokens are the lanes).  Each stage checks itself bit for bit; tpu-gen\n"
                "prints the error against float64 (docs/transformers.md).\n"
                "--prenorm: the block's MLP half: X^T = layernorm(x^T) (gamma, beta; bf16) on\n"
                "the VPU first, y^T = x^T + O^T (the residual, fp32) last; --eps E its epsilon\n"
                "(default 1e-5).\n");
    kgen_usage_exit(f, "a shape");
}

/* kgen_write_program's callback: the MLP's or attention's program */
struct tfm_emit { const char *config; const tpu_config *cfg; const kgen_tfm *p; };
static long emit_tfm(FILE *f, const void *ctx)
{
    const struct tfm_emit *e = ctx;
    return kgen_tfm_emit(f, e->config, e->cfg, e->p);
}

int kgen_cli_tfm(int argc, char **argv)
{
    int att = strcmp(argv[1], "attention") == 0;
    if (!att && strcmp(argv[1], "ffn") != 0)
        return -1;
    static kgen_tfm t;
    memset(&t, 0, sizeof t);
    t.kind = att ? KGEN_TFM_ATTENTION : KGEN_TFM_FFN;
    uint64_t T = 0, D = 0, F = 0;
    int have_eps = 0;
    t.eps = 0x3727c5acu;                     /* 1e-5 */
    const kgen_opt ffn_opts[] = {
        { "-T", KGEN_OPT_COUNT, .dst = &T },
        { "-D", KGEN_OPT_COUNT, .dst = &D },
        { "-F", KGEN_OPT_COUNT, .dst = &F },
        { "--prenorm", KGEN_OPT_FLAG, .dst = &t.prenorm },
        { "--eps", KGEN_OPT_FP32, .dst = &t.eps, .zero_ok = 1, .seen = &have_eps },
    };
    const kgen_opt att_opts[] = {
        { "-T", KGEN_OPT_COUNT, .dst = &T },
        { "--dh", KGEN_OPT_COUNT, .dst = &D },
        { "--kv", KGEN_OPT_COUNT, .dst = &F },
        { "--heads", KGEN_OPT_COUNT, .dst = &t.heads },
    };
    kgen_args a;
    int pr = att ? kgen_args_parse(argc, argv, att_opts, sizeof att_opts / sizeof att_opts[0], &a)
                 : kgen_args_parse(argc, argv, ffn_opts, sizeof ffn_opts / sizeof ffn_opts[0], &a);
    if (pr)
        return pr < 0 ? (usage(stdout, att), 0) : pr;    /* --help, or an error */
    const char *config = a.config, *out = a.out;
    t.timing_only = a.timing_only;
    if (!T || !D || (!att && !F))
        return kgen_bad("%s", att ? "attention needs -T and --dh" : "ffn needs -T, -D and -F");
    if (att && !F)
        F = T;
    if (have_eps && !t.prenorm)
        return kgen_bad("--eps is for --prenorm (the layernorm)%s", "");
    t.t = T, t.d = D, t.f = F;
    tpu_config cfg;
    if (kgen_args_config(&a, &cfg))
        return 2;
    char err[800], what[300];
    if (kgen_tfm_plan(&cfg, &t, err, sizeof err))
        return kgen_bad("%s", err);
    if (att)
        snprintf(what, sizeof what, "attention Tq %llu, Tk %llu, dh %llu, %llu head%s on %s: GEMM, softmax on the VPU, GEMM%s",
                 (unsigned long long)T, (unsigned long long)F, (unsigned long long)D,
                 (unsigned long long)t.heads, t.heads > 1 ? "s" : "", cfg.name, t.heads > 1 ? " a head" : "");
    else
        snprintf(what, sizeof what, "ffn T %llu, D %llu, F %llu on %s: %sGEMM, GELU on the VPU, GEMM%s",
                 (unsigned long long)T, (unsigned long long)D, (unsigned long long)F, cfg.name,
                 t.prenorm ? "layernorm, " : "", t.prenorm ? ", residual" : "");
    if (a.predict) {
        printf("tpu-gen: %s\n", what);
        printf("tpu-gen: predicted %.0f cycles (a head: GEMM %.0f, VPU %.0f, GEMM %.0f)\n", t.predicted,
               t.c1.predicted, t.v.cost.predicted, t.c2.predicted);
        return 0;
    }
    const struct tfm_emit ctx = { config, &cfg, &t };
    long n = kgen_write_program(out, &cfg, emit_tfm, &ctx);
    if (n < 0)
        return n == -1 ? 1 : 2;
    if (!a.quiet) {
        FILE *rp = out ? stdout : stderr;
        fprintf(rp, "tpu-gen: %s\n", what);
        fprintf(rp, "tpu-gen: program: %ld instructions of %llu; HBM %llu bytes\n", n,
                (unsigned long long)cfg.imem_words, (unsigned long long)t.hbm_need);
        fprintf(rp, "tpu-gen: predicted %.0f cycles (a head: GEMM %.0f, VPU %.0f, GEMM %.0f)\n", t.predicted,
                t.c1.predicted, t.v.cost.predicted, t.c2.predicted);
        double macs = (double)T * (double)D * (double)F * 2.0;
        double cells = (double)T * (double)(F > D ? F : D);
        if (t.timing_only) {
        } else if (macs > (double)REPORT_LIMIT || cells > (double)(1ull << 25)) {
            fprintf(rp, "tpu-gen: error against float64: not computed (%.3g MACs and %.3g intermediate values; "
                    "the report takes at most %llu and %llu)\n", macs, cells,
                    (unsigned long long)REPORT_LIMIT, 1ull << 25);
        } else {
            kgen_tfm_err r;
            if (kgen_tfm_error(&t, &r))
                fprintf(rp, "tpu-gen: error against float64: not computed (out of memory)\n");
            else
                fprintf(rp, "tpu-gen: error against float64 (this data%s; the exact result from the same bf16 inputs, "
                        "no rounding on the way): %s max abs %.3g (largest |%s| %.3g), max rel %.3g over |%s| >= 1%% of it\n",
                        t.heads > 1 ? ", head 0" : "", t.prenorm ? "y" : "O", r.e.max_abs, t.prenorm ? "y" : "O",
                        r.max_exact, r.e.max_rel, t.prenorm ? "y" : "O");
        }
    }
    return 0;
}
