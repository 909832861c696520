/*
 * kgen_shard_cli.c - the command line of tpu-gen ffn-shard (kgen_shard.c;
 * docs/transformers.md, "Sharded across chips"): the plan, the per-op report
 * (FLOPs, HBM bytes, ICI bytes, T_math, T_memory, T_ici and the book's
 * formulas), the program, and with --ref the whole result of core 0's
 * token block as the C reference computes it (.npy, for tpu-sim --dump).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kgen_args.h"
#include "kgen_shard.h"

#define TOOL "tpu-gen"
#define REF_LIMIT (1ull << 31)       /* MACs of the reference: above, --ref and the comparison refuse */

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
            "--part compute|comm: the stages only, or the AllReduce only (timing).\n");
    kgen_usage_exit(f, "a shape or sharding");
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
    const char *ref = NULL, *spec = NULL;
    int have_mesh = 0, have_reduce = 0;
    static kgen_shard s;
    memset(&s, 0, sizeof s);
    kgen_mesh mesh = { 0, 0, 0 };
    const kgen_opt opts[] = {
        { "--overlap", KGEN_OPT_FLAG, .dst = &s.overlap },
        { "--ref", KGEN_OPT_TEXT, .dst = &ref, .need = "a file name" },
        { "--shard", KGEN_OPT_TEXT, .dst = &spec, .need = "a value (B_X, F_X, B_X,F_Y, B_XY, dp, tp)" },
        { "--mesh", KGEN_OPT_MESH, .dst = &mesh, .need = "a value (N or RxC)", .seen = &have_mesh },
        { "--reduce", KGEN_OPT_WORD, .dst = &s.ring, .words = "a2a|ring", .seen = &have_reduce },
        { "--partials", KGEN_OPT_WORD, .dst = &s.bf16, .words = "fp32|bf16" },
        { "--part", KGEN_OPT_WORD, .dst = &s.part, .words = "all|compute|comm" },
        { "-T", KGEN_OPT_COUNT, .dst = &s.t, .max = 1ull << 30 },
        { "-D", KGEN_OPT_COUNT, .dst = &s.d, .max = 1ull << 30 },
        { "-F", KGEN_OPT_COUNT, .dst = &s.f, .max = 1ull << 30 },
    };
    kgen_args a;
    int pr = kgen_args_parse(argc, argv, opts, sizeof opts / sizeof opts[0], &a);
    if (pr)
        return pr < 0 ? (usage(stdout), 0) : pr;    /* --help, or an error */
    const char *out = a.out;
    int quiet = a.quiet, predict = a.predict, a2a = have_reduce && !s.ring;
    s.timing_only = a.timing_only;
    s.rows = mesh.rows, s.cols = mesh.cols, s.torus = mesh.torus;
    if (!s.t || !s.d || !s.f)
        return kgen_bad("%s", "ffn-shard needs -T, -D and -F");
    if (!have_mesh)
        return kgen_bad("%s", "ffn-shard needs --mesh N (a ring) or RxC (a 2-D torus)");
    if (!spec)
        return kgen_bad("%s", "ffn-shard needs --shard (B_X, F_X, B_X,F_Y, B_XY, dp or tp)");
    char err[800];
    if (kgen_shard_spec(&s, spec, err, sizeof err))
        return kgen_bad("%s", err);
    if (s.overlap && a2a)
        return kgen_bad("%s", "--overlap sums each half chunk in its ring's order (the collective matmul's "
                   "ReduceScatter): not with --reduce a2a");
    if (s.overlap)
        s.ring = 1;
    tpu_config cfg;
    if (kgen_args_config(&a, &cfg))
        return 2;
    if (kgen_shard_plan(&cfg, &s, err, sizeof err))
        return kgen_bad("%s", err);
    if (ref && s.timing_only)
        return kgen_bad("%s", "--ref needs the data: not with --timing-only or --part");
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
    const struct shard_emit ctx = { a.config, &cfg, &s };
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
                return kgen_bad("--ref: the reference would take %s MACs (at most 2^31)", "too many");
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
        int rc = ref ? kgen_write_ref(ref, o, s.d, s.l.t) : 0;
        free(o);
        return rc;
    }
    return 0;
}
