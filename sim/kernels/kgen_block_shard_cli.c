/*
 * kgen_block_shard_cli.c - the command line of tpu-gen block-shard
 * (kgen_block_shard.c; docs/transformers.md, "The block sharded across
 * chips"): the plan, the per-op report (FLOPs, HBM bytes, ICI bytes,
 * T_math, T_memory, T_ici and the book's formulas, the exposed
 * communication), the program, and with --ref core 0's y^T as the C
 * reference computes it (.npy, for tpu-sim --dump Y0=...).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kgen_args.h"
#include "kgen_block_shard.h"

#define TOOL "tpu-gen"
#define REF_LIMIT (1ull << 33)       /* MACs of the reference: above, --ref refuses */

static void usage(FILE *f)
{
    fprintf(f,
            "usage: tpu-gen block-shard --config NAME -T TOKENS -D WIDTH -F HIDDEN --heads H\n"
            "       --mesh N|RxC --shard SPEC [-B SEQUENCES] [--causal] [--reduce a2a|ring]\n"
            "       [--part all|compute] [--timing-only] [--predict] [--ref FILE.npy]\n"
            "       [-o FILE] [--quiet]\n"
            "The pre-norm transformer block (tpu-gen block) sharded Megatron-style across\n"
            "the cores of a ring (--mesh N) or a 2-D torus (--mesh RxC; run with --topology\n"
            "torus2d --grid RxC).  Mesh axes: X along a row, Y along a column.  SPEC in the\n"
            "book's notation names the model axis by F: F_X (a ring: Megatron), B_X,F_Y or\n"
            "F_X,B_Y (a torus: the sequences over one axis, the heads and F over the other).\n"
            "Each core of the model axis computes its H / tp heads (its Q, K, V columns of\n"
            "Wqkv, their attention, its rows of Wo) and its F / tp hidden units (W_in[D, F_M],\n"
            "W_out[F_M, D]); the partial sums of Wo and W_out are AllReduced over the model\n"
            "axis (an AllToAll, the sum P_0 + P_1 + ... on the VPU, an AllGather; --reduce\n"
            "ring: the library's ReduceScatter, then the AllGather; assemble with tpu-as -I\n"
            "programs).  The residual stream stays replicated.  B: one sequence of T tokens\n"
            "a core of the data axis (the default).  Each core checks its stages bit for bit;\n"
            "--ref FILE.npy writes core 0's whole y^T [D][T] as the C reference computes it\n"
            "(compare with tpu-sim --dump Y0=...); tpu-gen says how many values differ from\n"
            "one chip's (tpu_ref_block).  --part compute: no AllReduce (timing: the whole\n"
            "minus it is the exposed communication).\n");
    kgen_usage_exit(f, "a shape or sharding");
}

struct bs_emit { const char *config; const tpu_config *cfg; const kgen_bshard *p; };
static long emit_bs(FILE *f, const void *ctx)
{
    const struct bs_emit *e = ctx;
    return kgen_bshard_emit(f, e->config, e->cfg, e->p);
}

typedef struct { FILE *f; double peak, hbmw, w; } rep;

static void row(const rep *r, const char *op, uint64_t flops, uint64_t hbm, uint64_t ici, double t_ici, double pred)
{
    char tm[32], ti[32];
    snprintf(tm, sizeof tm, "%.0f", (double)flops / r->peak);
    snprintf(ti, sizeof ti, "%.0f", t_ici);
    fprintf(r->f, "tpu-gen:   %-14s %14llu %12llu %12llu %10s %10.0f %10s %10.0f\n", op, (unsigned long long)flops,
            (unsigned long long)hbm, (unsigned long long)ici, flops ? tm : "-", (double)hbm / r->hbmw,
            ici ? ti : "-", pred);
}

int kgen_cli_bshard(int argc, char **argv)
{
    if (strcmp(argv[1], "block-shard") != 0)
        return -1;
    const char *ref = NULL, *spec = NULL;
    int have_mesh = 0;
    static kgen_bshard p;
    memset(&p, 0, sizeof p);
    p.eps = 0x3727c5acu;                     /* 1e-5, tpu-gen block's */
    kgen_mesh mesh = { 0, 0, 0 };
    const kgen_opt opts[] = {
        { "--causal", KGEN_OPT_FLAG, .dst = &p.causal },
        { "--ref", KGEN_OPT_TEXT, .dst = &ref, .need = "a file name" },
        { "--shard", KGEN_OPT_TEXT, .dst = &spec, .need = "a value (F_X, B_X,F_Y, F_X,B_Y)" },
        { "--mesh", KGEN_OPT_MESH, .dst = &mesh, .need = "a value (N or RxC)", .seen = &have_mesh },
        { "--reduce", KGEN_OPT_WORD, .dst = &p.s.ring, .words = "a2a|ring" },
        { "--part", KGEN_OPT_WORD, .dst = &p.part, .words = "all|compute" },
        { "-B", KGEN_OPT_COUNT, .dst = &p.b, .max = 1ull << 20 },
        { "-T", KGEN_OPT_COUNT, .dst = &p.t, .max = 1ull << 20 },
        { "-D", KGEN_OPT_COUNT, .dst = &p.d, .max = 1ull << 20 },
        { "-F", KGEN_OPT_COUNT, .dst = &p.f, .max = 1ull << 20 },
        { "--heads", KGEN_OPT_COUNT, .dst = &p.heads, .max = 1ull << 20 },
    };
    kgen_args a;
    int pr = kgen_args_parse(argc, argv, opts, sizeof opts / sizeof opts[0], &a);
    if (pr)
        return pr < 0 ? (usage(stdout), 0) : pr;    /* --help, or an error */
    const char *config = a.config, *out = a.out;
    int quiet = a.quiet, predict = a.predict;
    p.timing_only = a.timing_only;
    p.s.rows = mesh.rows, p.s.cols = mesh.cols, p.s.torus = mesh.torus;
    if (!p.t || !p.d || !p.f || !p.heads)
        return kgen_bad("%s", "block-shard needs -T, -D, -F and --heads");
    if (!have_mesh)
        return kgen_bad("%s", "block-shard needs --mesh N (a ring) or RxC (a 2-D torus)");
    if (!spec)
        return kgen_bad("%s", "block-shard needs --shard (F_X, B_X,F_Y or F_X,B_Y)");
    char err[1000];
    if (kgen_shard_spec(&p.s, spec, err, sizeof err))
        return kgen_bad("%s", err);
    tpu_config cfg;
    if (kgen_args_config(&a, &cfg))
        return 2;
    if (kgen_bshard_plan(&cfg, &p, err, sizeof err))
        return kgen_bad("%s", err);
    if (ref && p.timing_only)
        return kgen_bad("%s", "--ref needs the data: not with --timing-only or --part");
    const kgen_shard *s = &p.s;
    unsigned cores = s->rows * s->cols;
    FILE *rp = out ? stdout : stderr;
    if (predict)
        rp = stdout;
    if (!quiet || predict) {
        rep r = { rp, 2.0 * (double)cfg.num_mxu * cfg.mxu_n * cfg.mxu_n, cfg.hbm_bw / cfg.clock_hz,
                  cfg.ici_bw / cfg.clock_hz };
        const kgen_block *ab = &p.ab;
        uint64_t T = p.t, D = p.d, n = s->tp, V = D * T * 4;
        fprintf(rp, "tpu-gen: block-shard B %llu x T %llu, D %llu, F %llu, %llu heads on %u cores (%s %ux%u) of %s: "
                    "%u sequence%s, the model axis %s of %llu; a core: %llu heads, F %llu\n",
                (unsigned long long)p.b, (unsigned long long)T, (unsigned long long)D, (unsigned long long)p.f,
                (unsigned long long)p.heads, cores, s->torus ? "torus2d" : "ring", s->rows, s->cols, cfg.name, s->dp,
                s->dp > 1 ? "s" : "", s->taxis == 0 ? "X" : s->taxis == 1 ? "Y" : "-", (unsigned long long)n,
                (unsigned long long)p.hl, (unsigned long long)p.fl);
        fprintf(rp, "tpu-gen: per core, cycles (the book: T_math = FLOPs / C, C = %.0f FLOP a cycle; T_memory = bytes / "
                    "W_hbm, %.1f B a cycle; T_ici = bytes / W_ici, %.1f B a link and direction a cycle):\n",
                r.peak, r.hbmw, r.w);
        fprintf(rp, "tpu-gen:   %-14s %14s %12s %12s %10s %10s %10s %10s\n", "op", "FLOPs", "HBM bytes", "ICI bytes",
                "T_math", "T_memory", "T_ici", "predicted");
        uint64_t af = ab->flops - (ab->c_qkv.flops + ab->c_wo.flops + ab->c_win.flops + ab->c_wout.flops);
        uint64_t ah = ab->hbm_bytes - (ab->ln1.cost.hbm_bytes + ab->c_qkv.hbm_bytes + ab->c_wo.hbm_bytes
                                       + ab->res1.cost.hbm_bytes + ab->ln2.cost.hbm_bytes + ab->c_win.hbm_bytes
                                       + ab->gl.cost.hbm_bytes + ab->c_wout.hbm_bytes + ab->res2.cost.hbm_bytes);
        uint64_t dcw = n / 2, dcc = n - 1 - dcw;
        uint64_t sent = s->ring ? 2 * (n - 1) * s->chunk : (dcw * (dcw + 1) / 2 + dcc * (dcc + 1) / 2 + (n - 1)) * s->chunk;
        double book = n > 1 ? 2.0 * (double)(n - 1) / (double)n * (double)V / (2.0 * r.w) : 0;
        row(&r, "LN1 (VPU)", 0, p.ln1.cost.hbm_bytes, 0, 0, p.ln1.cost.predicted);
        row(&r, "QKV", p.c_qkv.flops, p.c_qkv.hbm_bytes, 0, 0, p.c_qkv.predicted);
        row(&r, "attention", af, ah, 0, 0, p.t_attn);
        row(&r, "Wo (partial)", p.c_wo.flops, p.c_wo.hbm_bytes, 0, 0, p.c_wo.predicted);
        if (n > 1 && p.part == KGEN_SHARD_ALL)
            row(&r, "AllReduce Y1", 0, 2 * V, sent, book, s->predicted_comm);
        row(&r, "res1+LN2 (VPU)", 0, p.res1.cost.hbm_bytes + p.ln2.cost.hbm_bytes, 0, 0,
            p.res1.cost.predicted + p.ln2.cost.predicted);
        row(&r, "W_in", p.c_win.flops, p.c_win.hbm_bytes, 0, 0, p.c_win.predicted);
        row(&r, "GELU (VPU)", 0, p.gl.cost.hbm_bytes, 0, 0, p.gl.cost.predicted);
        row(&r, "W_out (partial)", p.c_wout.flops, p.c_wout.hbm_bytes, 0, 0, p.c_wout.predicted);
        if (n > 1 && p.part == KGEN_SHARD_ALL)
            row(&r, "AllReduce O2", 0, 2 * V, sent, book, s->predicted_comm);
        row(&r, "res2 (VPU)", 0, p.res2.cost.hbm_bytes, 0, 0, p.res2.cost.predicted);
        if (n > 1) {
            fprintf(rp, "tpu-gen: the book: an AllReduce of V = %llu bytes ([D][T] fp32) over %llu cores: "
                        "2 (n-1)/n V / W_bidir = %.0f cycles; this schedule (%s + AllGather) sends %llu bytes a core\n",
                    (unsigned long long)V, (unsigned long long)n, book, s->ring ? "ReduceScatter" : "AllToAll",
                    (unsigned long long)sent);
            double tm = (double)p.flops / r.peak;
            fprintf(rp, "tpu-gen: T_math (every GEMM) %.0f against 2 T_ici (book) %.0f: the AllReduces %s under the "
                        "GEMMs if overlapped; here they are not: the exposed communication is all of it, predicted %.0f cycles "
                        "(%.0f%% of the block)\n", tm, 2 * book, tm >= 2 * book ? "could hide" : "could not hide",
                    p.predicted_comm, 100.0 * p.predicted_comm / (p.predicted_local + p.predicted_comm));
        }
        fprintf(rp, "tpu-gen: per core: MXU FLOPs %llu (T_math %.0f), HBM bytes %llu (T_memory %.0f)\n",
                (unsigned long long)p.flops, (double)p.flops / r.peak, (unsigned long long)p.hbm_bytes,
                (double)p.hbm_bytes / r.hbmw);
        fprintf(rp, "tpu-gen: predicted %.0f cycles (the stages %.0f, the AllReduces %.0f, not overlapped)\n",
                p.predicted_local + p.predicted_comm, p.predicted_local, p.predicted_comm);
    }
    if (predict)
        return 0;
    const struct bs_emit ctx = { config, &cfg, &p };
    long ni = kgen_write_program(out, &cfg, emit_bs, &ctx);
    if (ni < 0)
        return ni == -1 ? 1 : 2;
    if (!quiet)
        fprintf(rp, "tpu-gen: program: %ld instructions of %llu; HBM %llu bytes\n", ni,
                (unsigned long long)cfg.imem_words, (unsigned long long)(p.region * cores));
    double macs = (double)p.t * (4.0 * (double)p.d * (double)p.d + 2.0 * (double)p.d * (double)p.f)
                  + 2.0 * (double)p.t * (double)p.t * (double)p.d;
    if (p.timing_only || (quiet && !ref))
        return 0;
    if (macs > (double)REF_LIMIT) {
        if (ref)
            return kgen_bad("--ref: the reference would take too many MACs (%s)", "at most 2^33");
        fprintf(rp, "tpu-gen: the C reference is not computed (%.3g MACs)\n", macs);
        return 0;
    }
    uint64_t cnt = p.d * p.t, differ = 0, ulp = 0;
    uint32_t *y = malloc(cnt * 4);
    int rr = y ? kgen_bshard_reference(&cfg, &p, y, &differ, &ulp) : -1;
    if (rr) {
        free(y);
        fprintf(stderr, TOOL ": error: %s\n", rr == -2 ? "the one-chip block does not plan on this machine (its data)"
                                                        : "out of memory for the reference");
        return rr == -2 ? 2 : 1;
    }
    if (!quiet)
        fprintf(rp, "tpu-gen: against one chip (tpu_ref_block, core 0's sequence): %llu of %llu values differ, by at most %llu ulp%s\n",
                (unsigned long long)differ, (unsigned long long)cnt, (unsigned long long)ulp,
                differ ? " (the partial sums over the cores associate differently)" : "");
    int rc = ref ? kgen_write_ref(ref, y, p.d, p.t) : 0;
    free(y);
    return rc;
}
