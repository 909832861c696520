/*
 * kgen_block_cli.c - the command line of tpu-gen block (kgen_block.c;
 * docs/transformers.md "The block"): the program, its report (cycles
 * predicted, FLOPs and HBM bytes against T_math and T_memory, the error
 * against float64) and --ref, y^T as the C reference computes it.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kgen_args.h"
#include "kgen_block.h"
#include "ref_nn.h"

#define TOOL "tpu-gen"
#define REPORT_LIMIT (1ull << 30)    /* float64 MACs of the error report */
#define REF_LIMIT (1ull << 36)       /* MACs of --ref (bit-exact, vectorised) */

static void usage(FILE *f)
{
    fprintf(f,
            "usage: tpu-gen block --config NAME -T TOKENS -D WIDTH -F HIDDEN [--heads H] [--causal]\n"
            "       [--decode --past P] [--key-block K] [--eps E] [--timing-only] [--predict]\n"
            "       [--ref FILE.npy] [-o FILE] [--quiet]\n"
            "A pre-norm transformer block on one core, feature-major (x^T [D][T] fp32 in,\n"
            "y^T [D][T] fp32 out), bf16 weights: X = layernorm(x); Q, K, V = X Wqkv (bf16);\n"
            "per head (dh = D / H) P = softmax(Q K^T / sqrt(dh)) over the keys, O = P V side\n"
            "by side; x1 = x + O Wo; y = x1 + gelu(layernorm(x1) Win) Wout.  K is written\n"
            "token-major (the KV cache) by a DMA per feature: the transpose.\n"
            "--causal: a key after its query scores -inf before the softmax.\n"
            "--decode --past P: the KV cache already holds P tokens (K_h [P][dh], V_h [dh][P]\n"
            "per head, as the prefill writes them); the T new tokens' K and V follow them and\n"
            "their queries are positions P .. P + T - 1.\n"
            "Attention goes flash-style, K keys a block with a running max and sum, when the\n"
            "softmax over all the keys of a vector of queries does not fit VMEM, or with\n"
            "--key-block K (a multiple of the MXU size; K >= the keys: one softmax).\n"
            "T must be a multiple of the vector's S x L (the tokens are the lanes).  Each stage\n"
            "checks itself bit for bit; --ref FILE.npy writes y^T as the C reference\n"
            "(tpu_ref_block) computes it, to compare with tpu-sim --dump Y=FILE.npy.\n");
    kgen_usage_exit(f, "a shape");
}

struct block_emit { const char *config; const tpu_config *cfg; const kgen_block *b; };
static long emit_block(FILE *f, const void *ctx)
{
    const struct block_emit *e = ctx;
    return kgen_block_emit(f, e->config, e->cfg, e->b);
}

static void params(const kgen_block *b, const tpu_config *cfg, const kgen_block_data *d, tpu_block_params *p)
{
    memset(p, 0, sizeof *p);
    p->t = b->tp, p->d = b->d, p->f = b->f, p->heads = b->heads, p->past = b->past, p->t_keys = b->t;
    p->causal = b->causal, p->tile = (unsigned)cfg->mxu_n, p->eps = b->eps;
    p->x = d->x, p->g1 = d->g1, p->b1 = d->b1, p->g2 = d->g2, p->b2 = d->b2;
    p->wqkv = d->wqkv, p->wo = d->wo, p->win = d->win, p->wout = d->wout;
    p->kpast = d->kpast, p->vpast = d->vpast;
    p->kblock = b->flash ? b->kb : 0;
}

int kgen_cli_block(int argc, char **argv)
{
    if (strcmp(argv[1], "block") != 0)
        return -1;
    const char *ref = NULL;
    int have_past = 0;
    static kgen_block b;
    memset(&b, 0, sizeof b);
    b.eps = 0x3727c5acu;                     /* 1e-5 */
    const kgen_opt opts[] = {
        { "--causal", KGEN_OPT_FLAG, .dst = &b.causal },
        { "--decode", KGEN_OPT_FLAG, .dst = &b.decode },
        { "--eps", KGEN_OPT_FP32, .dst = &b.eps, .zero_ok = 1 },
        { "--ref", KGEN_OPT_TEXT, .dst = &ref, .need = "a file name" },
        { "--heads", KGEN_OPT_COUNT, .dst = &b.heads },
        { "--key-block", KGEN_OPT_COUNT, .dst = &b.key_block },
        { "--past", KGEN_OPT_COUNT, .dst = &b.past, .zero_ok = 1, .seen = &have_past },
        { "-T", KGEN_OPT_COUNT, .dst = &b.t },
        { "-D", KGEN_OPT_COUNT, .dst = &b.d },
        { "-F", KGEN_OPT_COUNT, .dst = &b.f },
    };
    kgen_args a;
    int pr = kgen_args_parse(argc, argv, opts, sizeof opts / sizeof opts[0], &a);
    if (pr)
        return pr < 0 ? (usage(stdout), 0) : pr;    /* --help, or an error */
    const char *config = a.config, *out = a.out;
    int quiet = a.quiet, predict = a.predict;
    b.timing_only = a.timing_only;
    if (!b.t || !b.d || !b.f)
        return kgen_bad("%s", "block needs -T, -D and -F");
    if (have_past && !b.decode)
        return kgen_bad("--past is for --decode (the tokens already in the KV cache)%s", "");
    if (b.decode && !have_past)
        return kgen_bad("--decode needs --past P (the tokens already in the KV cache)%s", "");
    if (ref && b.timing_only)
        return kgen_bad("--ref needs the data: not with --timing-only%s", "");
    tpu_config cfg;
    if (kgen_args_config(&a, &cfg))
        return 2;
    char err[800], what[400];
    if (kgen_block_plan(&cfg, &b, err, sizeof err))
        return kgen_bad("%s", err);
    char fl[80] = "";
    if (b.flash)
        snprintf(fl, sizeof fl, ", flash: %llu blocks of %llu keys", (unsigned long long)b.nb, (unsigned long long)b.kb);
    snprintf(what, sizeof what, "block (%s) T %llu%s, D %llu, F %llu, %llu head%s of %llu%s%s on %s",
             b.decode ? "decode" : "prefill", (unsigned long long)b.t, b.decode ? " new" : "",
             (unsigned long long)b.d, (unsigned long long)b.f, (unsigned long long)b.heads,
             b.heads > 1 ? "s" : "", (unsigned long long)b.dh, b.causal ? ", causal" : "", fl, cfg.name);
    FILE *rp = out ? stdout : stderr;
    uint64_t num, den;
    tpu_config_bytes_per_cycle(cfg.hbm_bw, cfg.clock_hz, &num, &den);
    double bw = (double)num / (double)den;
    double peak = 2.0 * (double)cfg.mxu_n * (double)cfg.mxu_n * (double)cfg.num_mxu;
    double t_math = (double)b.flops / peak, t_mem = (double)b.hbm_bytes / bw;
    if (predict) {
        printf("tpu-gen: %s\n", what);
        printf("tpu-gen: predicted %.0f cycles\n", b.predicted);
        return 0;
    }
    const struct block_emit ctx = { config, &cfg, &b };
    long n = kgen_write_program(out, &cfg, emit_block, &ctx);
    if (n < 0)
        return n == -1 ? 1 : 2;
    if (!quiet) {
        fprintf(rp, "tpu-gen: %s\n", what);
        if (b.decode)
            fprintf(rp, "tpu-gen: the KV cache: %llu past tokens, %llu keys in all\n", (unsigned long long)b.past,
                    (unsigned long long)b.tk);
        fprintf(rp, "tpu-gen: program: %ld instructions of %llu; HBM %llu bytes\n", n,
                (unsigned long long)cfg.imem_words, (unsigned long long)b.hbm_need);
        fprintf(rp, "tpu-gen: predicted %.0f cycles (QKV %.0f, the KV cache write %.0f, a head %.0f, Wo %.0f, the MLP %.0f, "
                    "norms and residuals %.0f)\n", b.predicted, b.c_qkv.predicted, b.t_transpose,
                b.flash ? ((double)(b.nb - 1) * b.c_sc.predicted + b.c_sc_last.predicted + (double)b.nb * b.c_avf.predicted + b.t_flash)
                        : b.c_sc.predicted + b.sm.cost.predicted + b.c_av.predicted, b.c_wo.predicted,
                b.c_win.predicted + b.gl.cost.predicted + b.c_wout.predicted,
                b.ln1.cost.predicted + b.ln2.cost.predicted + b.res1.cost.predicted + b.res2.cost.predicted);
        fprintf(rp, "tpu-gen: MXU FLOPs %llu (T_math %.0f cycles), HBM bytes %llu (T_memory %.0f cycles): %s-bound by the book's rule\n",
                (unsigned long long)b.flops, t_math, (unsigned long long)b.hbm_bytes, t_mem,
                t_math > t_mem ? "compute" : "memory");
        if (b.decode) {
            /* the book's decode step: the useful FLOPs of the new tokens against the
             * bytes that must come from HBM (the weights, the KV cache, x and y) */
            double t = (double)b.t, dd = (double)b.d, ff = (double)b.f, kk = (double)b.tk;
            double fl = 2.0 * t * (4.0 * dd * dd + 2.0 * dd * ff) + 4.0 * t * (double)(b.past + b.t) * dd;
            double by = 2.0 * (4.0 * dd * dd + 2.0 * dd * ff) + 2.0 * 2.0 * kk * dd + 8.0 * t * dd;
            fprintf(rp, "tpu-gen: decode, the book's count: %.0f useful FLOPs (T_math %.0f cycles) against %.0f bytes of "
                        "weights, KV cache, x and y (T_memory %.0f cycles): %s-bound (%.1fx); the program computes "
                        "%llu token columns (the lanes)\n", fl, fl / peak, by, by / bw,
                    fl / peak > by / bw ? "compute" : "HBM", fl / peak > by / bw ? fl / peak / (by / bw) : by / bw / (fl / peak),
                    (unsigned long long)b.tp);
        }
    }
    if (b.timing_only || (quiet && !ref))
        return 0;
    /* the C reference: --ref and the error against float64 */
    double T = (double)b.tp, D = (double)b.d, F = (double)b.f, tk = (double)b.tk;
    double macs = T * (4.0 * D * D + 2.0 * D * F) + 2.0 * T * tk * D;
    kgen_block_data d;
    if (macs > (double)REF_LIMIT) {
        if (ref)
            return kgen_bad("--ref: the reference would take too many MACs (%s)", "at most 2^36");
        return 0;
    }
    if (!ref && macs > (double)REPORT_LIMIT) {
        fprintf(rp, "tpu-gen: error against float64: not computed (%.3g MACs; the report takes at most %llu)\n",
                macs, (unsigned long long)REPORT_LIMIT);
        return 0;
    }
    if (kgen_block_data_make(&b, &d)) {
        fprintf(stderr, TOOL ": error: out of memory for the reference\n");
        return 1;
    }
    tpu_block_params p;
    params(&b, &cfg, &d, &p);
    uint64_t cnt = b.d * b.tp;
    uint32_t *y = malloc(cnt * 4);
    double *yd = NULL;
    int rc = 0;
    if (!y || tpu_ref_block(&p, y, NULL)) {
        fprintf(stderr, TOOL ": error: out of memory for the reference\n");
        rc = 1;
        goto done;
    }
    if (b.tp != b.t && !quiet) {
        /* the padding is invisible: the real tokens alone give the same y */
        uint64_t t = b.t, tp = b.tp, same = 1;
        uint32_t *x2 = malloc(b.d * t * 4), *y2 = malloc(b.d * t * 4);
        if (x2 && y2) {
            for (uint64_t r = 0; r < b.d; r++)
                memcpy(x2 + r * t, d.x + r * tp, t * 4);
            tpu_block_params p2 = p;
            p2.t = t, p2.x = x2, p2.t_keys = 0;
            if (tpu_ref_block(&p2, y2, NULL) == 0) {
                for (uint64_t r = 0; r < b.d; r++)
                    if (memcmp(y2 + r * t, y + r * tp, t * 4))
                        same = 0;
                fprintf(rp, "tpu-gen: the padding tokens %s the real ones' y (the reference on %llu tokens alone)\n",
                        same ? "do not change" : "CHANGE", (unsigned long long)t);
            }
        }
        free(x2);
        free(y2);
    }
    if (ref && kgen_write_ref(ref, y, b.d, b.tp)) {
        rc = 1;
        goto done;
    }
    if (!quiet) {
        if (macs > (double)REPORT_LIMIT) {
            fprintf(rp, "tpu-gen: error against float64: not computed (%.3g MACs; the report takes at most %llu)\n",
                    macs, (unsigned long long)REPORT_LIMIT);
        } else if (!(yd = malloc(cnt * sizeof(double))) || tpu_ref_block_f64(&p, yd)) {
            fprintf(rp, "tpu-gen: error against float64: not computed (out of memory)\n");
        } else {
            double mx = 0;
            for (uint64_t i = 0; i < cnt; i++)
                mx = fmax(mx, fabs(yd[i]));
            tpu_nn_error er;
            memset(&er, 0, sizeof er);
            tpu_nn_error_add(&er, y, yd, cnt, 1e-2 * mx, 0);
            fprintf(rp, "tpu-gen: error against float64 (this data; the exact result from the same x and bf16 weights, "
                        "no rounding on the way): y max abs %.3g (largest |y| %.3g), max rel %.3g over |y| >= 1%% of it\n",
                    er.max_abs, mx, er.max_rel);
        }
    }
done:
    free(y);
    free(yd);
    kgen_block_data_free(&d);
    return rc;
}
