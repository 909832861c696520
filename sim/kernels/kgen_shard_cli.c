/*
 * kgen_shard_cli.c - the command line of tpu-gen ffn-shard (kgen_shard.c;
 * docs/transformers.md, "Sharded across chips"): the plan, the per-op report
 * (FLOPs, HBM bytes, ICI bytes, T_math, T_memory, T_ici and the book's
 * formulas), the program, and with --ref the whole result of core 0's
 * token block as the C reference computes it (.npy, for tpu-sim --dump).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "kgen_shard.h"
#include "npy.h"

#define TOOL "tpu-gen"
#define REF_LIMIT (1ull << 31)       /* MACs of the reference: above, --ref and the comparison refuse */

static int bad(const char *fmt, const char *a)
{
    fprintf(stderr, TOOL ": error: ");
    fprintf(stderr, fmt, a);
    fputc('\n', stderr);
    return 2;
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: tpu-gen ffn-shard --config NAME -T TOKENS -D WIDTH -F HIDDEN --mesh N|RxC\n"
            "       --shard SPEC [--reduce a2a|ring] [--overlap [--partials fp32|bf16]]\n"
            "       [--part all|compute|comm]"
            "       [--timing-only] [--predict]\n"
            "       [--ref FILE.npy] [-o FILE] [--quiet]\n"
            "The transformer MLP (tpu-gen ffn) sharded across the cores of a ring (--mesh N)\n"
            "or a 2-D torus (--mesh RxC: R rows, C columns; run with --topology torus2d\n"
            "--grid RxC).  Mesh axes: X along a row (C cores), Y along a column (R cores).\n"
            "SPEC in the book's notation: B_X (the tokens over X), B_XY, F_X (W_in[D, F_X],\n"
            "W_out[F_X, D]: Megatron), B_X,F_Y (both), or dp (the tokens over every axis)\n"
            "and tp (F over the ring).  With F sharded, each core's partial O^T is summed\n"
            "over the model axis in the fixed order P_0 + P_1 + ... (an AllToAll, the VPU,\n"
            "an AllGather: programs/lib/ring.inc; assemble with tpu-as -I programs), or with\n"
            "--reduce ring the library's ReduceScatter (each half chunk added in its ring's\n"
            "order, fewer bytes on the links) then the AllGather.  Each core checks its\n"
            "stages bit for bit;\n"
            "--ref FILE.npy writes the whole O^T [D][T/dp] of core 0's tokens as the C\n"
            "reference computes it (compare with tpu-sim --dump O0=... or P0=...).\n"
            "--overlap: the collective matmul: GEMM 2 computed in n pieces of D/n rows, each\n"
            "piece's two half chunks sent on round the ring both ways (as --reduce ring: the\n"
            "same order and bytes) while the MXUs compute the next; then the AllGather.\n"
            "--partials bf16 (with --overlap): every partial sum sent rounded to bf16 and the\n"
            "summed chunks gathered in bf16 (half the ICI bytes; docs/numerics.md 14); the\n"
            "report gives the error against float64 with and without.\n"
            "--part compute|comm: the stages only, or the AllReduce only (timing).\n"
            "\nexit status: 0 success, 1 the output cannot be written, 2 a bad command line\n"
            "or a shape or sharding the machine cannot take.\n");
}

/* A whole number 1..max for option opt (the sharded commands' -T, -D, -F, ...). */
int kgen_shard_parse_num(const char *opt, const char *s, uint64_t max, uint64_t *out)
{
    char msg[200];
    if (!s || !*s || strspn(s, "0123456789") != strlen(s) || strlen(s) > 12) {
        snprintf(msg, sizeof msg, "%s must be a positive whole number, got '%s'", opt, s ? s : "");
        return bad("%s", msg);
    }
    unsigned long long v = strtoull(s, NULL, 10);
    if (v == 0 || v > max) {
        snprintf(msg, sizeof msg, "%s must be 1 to 2^%d, got '%s'", opt, 63 - __builtin_clzll(max), s);
        return bad("%s", msg);
    }
    *out = v;
    return 0;
}

/* --mesh N (a ring) or RxC (a 2-D torus) into s's rows, cols and torus. */
int kgen_shard_parse_mesh(const char *v, kgen_shard *s)
{
    unsigned long a = 0, b = 0;
    const char *x = strchr(v, 'x');
    char *end;
    if (!*v || strspn(v, "0123456789x") != strlen(v))
        return bad("--mesh must be N (a ring) or RxC (a 2-D torus), got '%s'", v);
    a = strtoul(v, &end, 10);
    if (x) {
        if (end != x || !x[1])
            return bad("--mesh must be N (a ring) or RxC (a 2-D torus), got '%s'", v);
        b = strtoul(x + 1, &end, 10);
        if (*end)
            return bad("--mesh must be N (a ring) or RxC (a 2-D torus), got '%s'", v);
        s->rows = a > 64 ? 65 : (unsigned)a, s->cols = b > 64 ? 65 : (unsigned)b, s->torus = 1;
    } else {
        s->rows = 1, s->cols = a > 64 ? 65 : (unsigned)a, s->torus = 0;
    }
    if (s->rows * s->cols < 2 || s->rows * s->cols > 64 || !s->rows || !s->cols)
        return bad("--mesh '%s': 2 to 64 cores", v);
    return 0;
}

/* kgen_write_program's callback: the sharded MLP's program */
struct shard_emit { const char *config; const tpu_config *cfg; const kgen_shard *p; };
static long emit_shard(FILE *f, const void *ctx)
{
    const struct shard_emit *e = ctx;
    return kgen_shard_emit(f, e->config, e->cfg, e->p);
}

int kgen_cli_shard(int argc, char **argv)
{
    if (strcmp(argv[1], "ffn-shard") != 0)
        return -1;
    const char *config = NULL, *out = NULL, *ref = NULL, *spec = NULL;
    int quiet = 0, predict = 0, have_mesh = 0, a2a = 0;
    static kgen_shard s;
    memset(&s, 0, sizeof s);
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i], *v;
        int missing = 0;
        uint64_t *dst = NULL;
        const char *opt = NULL;
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(a, "--quiet") == 0) {
            quiet = 1;
        } else if (strcmp(a, "--predict") == 0) {
            predict = 1;
        } else if (strcmp(a, "--overlap") == 0) {
            s.overlap = 1;
        } else if (strcmp(a, "--timing-only") == 0) {
            s.timing_only = 1;
        } else if ((v = tpu_cli_opt_value(argc, argv, &i, "--config", &missing)) || missing) {
            if (missing)
                return bad("%s needs a value", a);
            config = v;
        } else if ((v = tpu_cli_opt_value(argc, argv, &i, "-o", &missing)) || missing) {
            if (missing)
                return bad("%s needs a file name", a);
            out = v;
        } else if ((v = tpu_cli_opt_value(argc, argv, &i, "--ref", &missing)) || missing) {
            if (missing)
                return bad("%s needs a file name", a);
            ref = v;
        } else if ((v = tpu_cli_opt_value(argc, argv, &i, "--shard", &missing)) || missing) {
            if (missing)
                return bad("%s needs a value (B_X, F_X, B_X,F_Y, B_XY, dp, tp)", a);
            spec = v;
        } else if ((v = tpu_cli_opt_value(argc, argv, &i, "--mesh", &missing)) || missing) {
            if (missing)
                return bad("%s needs a value (N or RxC)", a);
            if (kgen_shard_parse_mesh(v, &s))
                return 2;
            have_mesh = 1;
        } else if ((v = tpu_cli_opt_value(argc, argv, &i, "--reduce", &missing)) || missing) {
            if (missing)
                return bad("%s needs a value (a2a, ring)", a);
            if (!strcmp(v, "a2a"))
                s.ring = 0, a2a = 1;
            else if (!strcmp(v, "ring"))
                s.ring = 1;
            else
                return bad("--reduce must be a2a or ring, got '%s'", v);
        } else if ((v = tpu_cli_opt_value(argc, argv, &i, "--partials", &missing)) || missing) {
            if (missing)
                return bad("%s needs a value (fp32, bf16)", a);
            if (!strcmp(v, "fp32"))
                s.bf16 = 0;
            else if (!strcmp(v, "bf16"))
                s.bf16 = 1;
            else
                return bad("--partials must be fp32 or bf16, got '%s'", v);
        } else if ((v = tpu_cli_opt_value(argc, argv, &i, "--part", &missing)) || missing) {
            if (missing)
                return bad("%s needs a value (all, compute, comm)", a);
            if (!strcmp(v, "all"))
                s.part = KGEN_SHARD_ALL;
            else if (!strcmp(v, "compute"))
                s.part = KGEN_SHARD_COMPUTE;
            else if (!strcmp(v, "comm"))
                s.part = KGEN_SHARD_COMM;
            else
                return bad("--part must be all, compute or comm, got '%s'", v);
        } else if ((v = tpu_cli_opt_value(argc, argv, &i, opt = "-T", &missing)) || missing) {
            dst = &s.t;
        } else if ((v = tpu_cli_opt_value(argc, argv, &i, opt = "-D", &missing)) || missing) {
            dst = &s.d;
        } else if ((v = tpu_cli_opt_value(argc, argv, &i, opt = "-F", &missing)) || missing) {
            dst = &s.f;
        } else {
            return bad("unknown option '%s' (try --help)", a);
        }
        if (dst) {
            if (missing)
                return bad("%s needs a value", opt);
            if (kgen_shard_parse_num(opt, v, 1ull << 30, dst))
                return 2;
        }
    }
    if (!config)
        return bad("--config is required: the machine to generate for (tiny, mid, v5e, ...)%s", "");
    if (!s.t || !s.d || !s.f)
        return bad("%s", "ffn-shard needs -T, -D and -F");
    if (!have_mesh)
        return bad("%s", "ffn-shard needs --mesh N (a ring) or RxC (a 2-D torus)");
    if (!spec)
        return bad("%s", "ffn-shard needs --shard (B_X, F_X, B_X,F_Y, B_XY, dp or tp)");
    char err[800];
    if (kgen_shard_spec(&s, spec, err, sizeof err))
        return bad("%s", err);
    if (s.overlap && a2a)
        return bad("%s", "--overlap sums each half chunk in its ring's order (the collective matmul's "
                   "ReduceScatter): not with --reduce a2a");
    if (s.overlap)
        s.ring = 1;
    tpu_config cfg;
    if (tpu_cli_load_config(TOOL, config, &cfg) || tpu_cli_finish_config(TOOL, &cfg, NULL, 0))
        return 2;
    if (kgen_shard_plan(&cfg, &s, err, sizeof err))
        return bad("%s", err);
    if (ref && s.timing_only)
        return bad("%s", "--ref needs the data: not with --timing-only or --part");
    unsigned cores = s.rows * s.cols;
    FILE *rp = out ? stdout : stderr;
    if (predict)
        rp = stdout;
    if (!quiet || predict) {
        double peak = 2.0 * (double)cfg.num_mxu * cfg.mxu_n * cfg.mxu_n, hbmw = cfg.hbm_bw / cfg.clock_hz;
        double w = cfg.ici_bw / cfg.clock_hz;
        const kgen_tfm *l = &s.l;
        uint64_t tl = l->t;
        fprintf(rp, "tpu-gen: ffn-shard T %llu, D %llu, F %llu on %u cores (%s %ux%u) of %s: %u token block%s, %u F block%s; a core: T %llu, F %llu\n",
                (unsigned long long)s.t, (unsigned long long)s.d, (unsigned long long)s.f, cores,
                s.torus ? "torus2d" : "ring", s.rows, s.cols, cfg.name, s.dp, s.dp > 1 ? "s" : "", s.tp,
                s.tp > 1 ? "s" : "", (unsigned long long)tl, (unsigned long long)l->f);
        fprintf(rp, "tpu-gen: per core, cycles (peak %.0f FLOP, HBM %.1f B, ICI %.1f B a link and direction, a cycle):\n",
                peak, hbmw, w);
        fprintf(rp, "tpu-gen:   %-10s %14s %12s %12s %10s %10s %10s %10s %10s %10s\n", "op", "FLOPs", "HBM bytes",
                "ICI bytes", "T_math", "T_memory", "T_ici", "predicted", "exposed", "book exp.");
        kgen_cost c2 = l->c2;
        if (s.overlap) {        /* GEMM 2 as its n pieces */
            double k = (double)s.tp;
            c2 = s.cpiece;
            c2.flops = (uint64_t)((double)c2.flops * k), c2.hbm_bytes = (uint64_t)((double)c2.hbm_bytes * k);
            c2.predicted *= k;
        }
        const kgen_cost *c[2] = { &l->c1, &c2 };
        const char *nm[2] = { "GEMM 1", s.overlap ? "GEMM 2 (n)" : "GEMM 2" };
        for (int k = 0; k < 2; k++) {
            fprintf(rp, "tpu-gen:   %-10s %14llu %12llu %12d %10.0f %10.0f %10s %10.0f %10s %10s\n", nm[k],
                    (unsigned long long)c[k]->flops, (unsigned long long)c[k]->hbm_bytes, 0,
                    (double)c[k]->flops / peak, (double)c[k]->hbm_bytes / hbmw, "-", c[k]->predicted, "-", "-");
            if (k == 0) {
                uint64_t hb = tl * l->f * 6;
                fprintf(rp, "tpu-gen:   %-10s %14s %12llu %12d %10s %10.0f %10s %10.0f %10s %10s\n", "GELU", "(VPU)",
                        (unsigned long long)hb, 0, "-", (double)hb / hbmw, "-", l->v.cost.predicted, "-", "-");
            }
        }
        if (s.tp > 1) {
            uint64_t n = s.tp, V = s.d * tl * (s.bf16 ? 2 : 4), dcw = n / 2, dcc = n - 1 - dcw;
            uint64_t sent = (dcw * (dcw + 1) / 2 + dcc * (dcc + 1) / 2 + (n - 1)) * s.chunk;
            double book = 2.0 * (double)(n - 1) / (double)n * (double)V / (2.0 * w);
            double t_rs = book / 2, tm2 = (double)c2.flops / peak;
            double book_exp = s.overlap ? (t_rs > tm2 ? t_rs - tm2 : 0) + t_rs : book;
            if (s.ring)
                sent = 2 * (n - 1) * s.chunk / (s.bf16 ? 2 : 1);
            fprintf(rp, "tpu-gen:   %-10s %14llu %12llu %12llu %10s %10.0f %10.0f %10.0f %10.0f %10.0f\n", "AllReduce",
                    (unsigned long long)((n - 1) * s.chunk / 4), (unsigned long long)(2 * s.d * tl * 4),
                    (unsigned long long)sent, "-", (double)(2 * s.d * tl * 4) / hbmw, book, s.predicted_comm,
                    s.predicted_exposed, book_exp);
            double tm = (double)(l->c1.flops + l->c2.flops) / peak;
            fprintf(rp, "tpu-gen: the book: AllReduce of V = %llu bytes (O^T %s) on a ring of %llu: 2 (n-1)/n V / W_bidir = %.0f cycles; "
                    "this schedule (%s + AllGather) sends %llu bytes a core\n",
                    (unsigned long long)V, s.bf16 ? "bf16" : "fp32", (unsigned long long)n, book,
                    s.overlap ? "the collective matmul's ReduceScatter" : s.ring ? "ReduceScatter" : "AllToAll",
                    (unsigned long long)sent);
            if (s.overlap)
                fprintf(rp, "tpu-gen: exposed communication, the book: max(0, T_RS - T_math(GEMM 2)) + T_AG = max(0, %.0f - %.0f) "
                        "+ %.0f = %.0f cycles (T_RS = T_AG = (n-1)/n V / W_bidir; the ReduceScatter hides under GEMM 2, "
                        "the AllGather under nothing)\n", t_rs, tm2, t_rs, book_exp);
            else
                fprintf(rp, "tpu-gen: exposed communication, the book: the whole AllReduce, %.0f cycles (not overlapped; "
                        "--overlap hides the ReduceScatter under GEMM 2)\n", book_exp);
            double fstar = 2.0 * (double)(n - 1) / (double)n * peak / (2.0 * w);
            fprintf(rp, "tpu-gen: T_math (both GEMMs) / T_ici (book) = %.2f: the AllReduce %s under the GEMMs if overlapped "
                    "(F / tp = %llu against 2 (n-1)/n C / W_ici = %.0f for fp32 partials; the book's bf16 C / W_ici = %.0f)\n",
                    tm / book, tm >= book ? "can hide" : "cannot hide", (unsigned long long)l->f, fstar,
                    peak / (2.0 * w));
        }
        fprintf(rp, "tpu-gen: predicted %.0f cycles (the stages %.0f, the AllReduce %.0f%s)\n",
                s.predicted_local + s.predicted_comm, s.predicted_local, s.predicted_comm,
                s.overlap ? " not under them" : ", not overlapped");
    }
    if (predict)
        return 0;
    const struct shard_emit ctx = { config, &cfg, &s };
    long n = kgen_write_program(out, &cfg, emit_shard, &ctx);
    if (n < 0)
        return n == -1 ? 1 : 2;
    if (!quiet)
        fprintf(rp, "tpu-gen: program: %ld instructions of %llu; HBM %llu bytes a core\n", n,
                (unsigned long long)cfg.imem_words, (unsigned long long)(s.region * cores));
    double macs = (double)s.l.t * (double)s.d * (double)s.f * 2.0;
    if (!s.timing_only && (ref || !quiet)) {
        if (macs > (double)REF_LIMIT) {
            if (ref)
                return bad("--ref: the reference would take %s MACs (at most 2^31)", "too many");
            fprintf(rp, "tpu-gen: the C reference is not computed (%.3g MACs, at most 2^31)\n", macs);
            return 0;
        }
        uint64_t cnt = s.d * s.l.t, differ = 0, ulp = 0;
        uint32_t *o = malloc(cnt * 4);
        if (!o || kgen_shard_reference(&s, o, &differ, &ulp)) {
            free(o);
            fprintf(stderr, TOOL ": error: out of memory for the reference\n");
            return 1;
        }
        if (!quiet)
            fprintf(rp, "tpu-gen: against one chip (the second GEMM's K = F in one accumulation, core 0's tokens): "
                        "%llu of %llu values differ, by at most %llu ulp%s\n",
                    (unsigned long long)differ, (unsigned long long)cnt, (unsigned long long)ulp,
                    s.tp > 1 && differ ? " (the sum over the cores associates differently)" : "");
        if (!quiet && s.bf16) {
            double e64, e32, omax;
            if (kgen_shard_error64(&s, o, &e64, &e32, &omax)) {
                free(o);
                fprintf(stderr, TOOL ": error: out of memory for the float64 reference\n");
                return 1;
            }
            fprintf(rp, "tpu-gen: against float64 (the second GEMM from the same bf16 G^T, summed exactly; core 0's tokens): "
                        "max abs error %.3g with bf16 partials, %.3g with fp32 partials in the same order; largest |O| %.3g "
                        "(%.2g and %.2g of it)\n", e64, e32, omax, omax > 0 ? e64 / omax : 0, omax > 0 ? e32 / omax : 0);
        }
        if (ref) {
            npy_array a;
            memset(&a, 0, sizeof a);
            a.dtype = NPY_F32, a.ndim = 2, a.shape[0] = s.d, a.shape[1] = s.l.t, a.count = cnt, a.esize = 4;
            a.data = (uint8_t *)o;
            char e2[300];
            if (npy_write(ref, &a, e2, sizeof e2)) {
                free(o);
                fprintf(stderr, TOOL ": error: %s\n", e2);
                return 1;
            }
        }
        free(o);
    }
    return 0;
}
