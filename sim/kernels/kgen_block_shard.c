/*
 * kgen_block_shard.c - the pre-norm transformer block (tpu-gen block,
 * kgen_block.c) sharded Megatron-style across the cores of a ring or a 2-D
 * torus (tpu-gen block-shard; docs/transformers.md, "The block sharded
 * across chips").  In the book's notation, with the model axis M (the
 * axis F is sharded over: X on a ring, X or Y on a torus) and the data
 * axis the other:
 *
 *   x[B_data, T, D]             each core its sequence(s): B / dp of them (one)
 *   Wqkv[D, 3 (H_M dh)]         each core the Q, K, V columns of its H / tp heads
 *   attention                   each core its heads, whole (no communication)
 *   Wo[(H_M dh), D]             each core the rows of its heads: a partial Y1
 *                               [D][T] fp32, AllReduced over M
 *   W_in[D, F_M], W_out[F_M, D] as tpu-gen ffn-shard: a partial O2, AllReduced
 *
 * The residual stream x, x1, y stays replicated (whole [D][T] on every core
 * of the model axis: both layernorms need every feature of a token).  The
 * AllReduce is the one of ffn-shard: an AllToAll, the sum P_0 + P_1 + ...
 * in the order of the positions on the VPU, an AllGather (--reduce a2a), or
 * the library's ReduceScatter then the AllGather (--reduce ring).  One chip
 * adds Wo's and W_out's K-tiles left to right in one MXU accumulation, so
 * with one K-tile a core (D / tp = F / tp = MXU_N) and --reduce a2a the
 * block's y is bit for bit one chip's (tpu_ref_block); otherwise it is the
 * order kgen_bshard_reference follows.
 *
 * Every core runs the same program and jumps on `cid` to its own copy of
 * the stages (their addresses are immediates), each with its own HBM region
 * (core c's at c x region) holding its slices of x and the weights as
 * literal values (the one-chip block's data, tpu-gen block's fills), and
 * checks each of its stages bit for bit (.expect ...@c).
 */
#include "kgen_block_shard.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "fp.h"
#include "kgen_allreduce.h"
#include "kgen_impl.h"
#include "objfile.h"
#include "ref.h"
#include "ref_nn.h"

#define ALIGN64(x) (((x) + 63) / 64 * 64)
#define SEED_XS 0x7100u          /* sequence s > 0's x: its own fill (sequence 0: tpu-gen block's) */
#define SEM_DMA 1

static int nn(const tpu_config *cfg, kgen_nn_plan *p, tpu_nn_op op, uint64_t n, uint64_t c, int bf16,
              const kgen_bshard *b, const char *what, char *err, size_t errlen)
{
    kgen_nn_opts o;
    memset(&o, 0, sizeof o);
    o.op = op, o.n = n, o.c = c, o.out_bf16 = bf16, o.timing_only = b->timing_only, o.eps = b->eps;
    char e2[600];
    if (kgen_nn_plan_make(cfg, &o, p, e2, sizeof e2))
        return kgen_block_fail(err, errlen, "%s: %s", what, e2);
    return 0;
}

int kgen_bshard_plan(const tpu_config *cfg, kgen_bshard *p, char *err, size_t errlen)
{
    kgen_shard *s = &p->s;
    uint64_t H = p->heads ? p->heads : 1, D = p->d, F = p->f, T = p->t;
    p->heads = H;
    if (!T || !D || !F)
        return kgen_block_fail(err, errlen, "the sizes must be positive");
    if (D % H)
        return kgen_block_fail(err, errlen, "-D %" PRIu64 " does not divide into %" PRIu64 " heads", D, H);
    /* the mesh and the sharding: ffn-shard's plan of the MLP's share, and of the sum's VMEM */
    if (s->by == 2)
        s->by = s->rows > 1;
    uint64_t dpw = (s->bx ? s->cols : 1) * (s->by ? s->rows : 1);
    if (!p->b)
        p->b = dpw;
    if (p->b != dpw)
        return kgen_block_fail(err, errlen, "-B %" PRIu64 ": one sequence a core of the data axis, %" PRIu64 " of them "
                    "(the batch over %s)", p->b, dpw, s->bx && s->by ? "X and Y" : s->bx ? "X" : s->by ? "Y" : "no axis");
    uint64_t tpw = s->fx ? s->cols : s->fy ? s->rows : 1;
    if (H % tpw)
        return kgen_block_fail(err, errlen, "--heads %" PRIu64 " does not divide over the %" PRIu64 " cores of the model axis %s "
                    "(each core its heads)", H, tpw, s->fx ? "X" : "Y");
    s->t = p->b * T, s->d = D, s->f = F;
    s->part = KGEN_SHARD_ALL;
    s->timing_only = p->timing_only;
    char e2[900];
    if (kgen_shard_plan(cfg, s, e2, sizeof e2))
        return kgen_block_fail(err, errlen, "%s", e2);
    if (p->part != KGEN_SHARD_ALL) {
        if (s->tp < 2)
            return kgen_block_fail(err, errlen, "--part: only with the heads and F sharded (there is no communication to separate)");
        p->timing_only = 1;
    }
    uint64_t tp = s->tp;
    p->hl = H / tp, p->dl = D / tp, p->fl = F / tp;
    /* the attention of this core's heads: tpu-gen block's stages 3-6 with D = its heads' width */
    memset(&p->ab, 0, sizeof p->ab);
    p->ab.t = T, p->ab.d = p->dl, p->ab.f = cfg->mxu_n, p->ab.heads = p->hl;
    p->ab.causal = p->causal, p->ab.timing_only = p->timing_only, p->ab.eps = p->eps;
    if (kgen_block_plan(cfg, &p->ab, e2, sizeof e2))
        return kgen_block_fail(err, errlen, "a core's attention (T %" PRIu64 ", %" PRIu64 " heads of %" PRIu64 "): %s", T, p->hl,
                    D / H, e2);
    if (p->ab.flash)
        return kgen_block_fail(err, errlen, "a core's attention (T %" PRIu64 " keys) goes flash-style, its softmax tile does not fit VMEM: "
                    "not done for block-shard (the flash code's labels are one copy's; use fewer tokens)", T);
    int to = p->timing_only;
    if (nn(cfg, &p->ln1, TPU_NN_LAYERNORM, T, D, 1, p, "the first layernorm", err, errlen)
        || kgen_block_gemm(cfg, &p->qkv, 3 * p->dl, D, T, 1, to, "QKV^T = Wqkv^T X^T (this core's heads)", err, errlen)
        || kgen_block_gemm(cfg, &p->wo, D, p->dl, T, 0, to, "Y1^T = Wo^T O^T (this core's rows of Wo)", err, errlen)
        || nn(cfg, &p->res1, TPU_NN_ADD, T, D, 0, p, "the first residual", err, errlen)
        || nn(cfg, &p->ln2, TPU_NN_LAYERNORM, T, D, 1, p, "the second layernorm", err, errlen)
        || kgen_block_gemm(cfg, &p->win, p->fl, D, T, 0, to, "H^T = Win^T X2^T", err, errlen)
        || nn(cfg, &p->gl, TPU_NN_GELU, T, p->fl, 1, p, "the GELU", err, errlen)
        || kgen_block_gemm(cfg, &p->wout, D, p->fl, T, 0, to, "O2^T = Wout^T G^T", err, errlen)
        || nn(cfg, &p->res2, TPU_NN_ADD, T, D, 0, p, "the second residual", err, errlen))
        return -1;
    if (p->qkv.y_bytes != p->ab.qkv.y_bytes || p->wo.w_bytes != p->ab.wo.w_bytes || p->wo.y_bytes != D * T * 4
        || p->wout.y_bytes != D * T * 4)
        return kgen_block_fail(err, errlen, "internal: the stages' layouts disagree");
    /* HBM: the attention's region first (QKV^T, the heads, O^T), then ours */
    uint64_t a = ALIGN64(p->ab.hbm_need);
    kgen_nn_plan *l1 = &p->ln1, *l2 = &p->ln2;
    l1->h_x = a; a = ALIGN64(a + D * T * 4);                 /* x^T, the residual stream */
    l1->h_par = a; a = ALIGN64(a + 2 * D * 4);
    l1->h_scr = a; a = ALIGN64(a + 2 * D * l1->e * 4);
    p->qkv.h_w = l1->h_z = a; a = ALIGN64(a + p->qkv.w_bytes);   /* X^T bf16 */
    p->qkv.h_x = a; a = ALIGN64(a + p->qkv.x_bytes);         /* this core's rows of Wqkv^T */
    p->qkv.h_y = p->ab.h_qkv;
    p->wo.h_w = p->ab.h_ob;
    p->wo.h_x = a; a = ALIGN64(a + p->wo.x_bytes);           /* this core's columns of Wo^T */
    p->h_p1 = p->wo.h_y = a; a = ALIGN64(a + p->wo.y_bytes); /* the partial */
    p->h_y1 = a; a = ALIGN64(a + D * T * 4);                 /* Y1^T, the sum */
    if (tp < 2)
        p->h_y1 = p->h_p1;
    p->res1.h_x = l1->h_x, p->res1.h_r = p->h_y1;
    p->res1.h_z = a; a = ALIGN64(a + D * T * 4);             /* x1^T */
    l2->h_x = p->res1.h_z;
    l2->h_par = a; a = ALIGN64(a + 2 * D * 4);
    l2->h_scr = a; a = ALIGN64(a + 2 * D * l2->e * 4);
    p->win.h_w = l2->h_z = a; a = ALIGN64(a + p->win.w_bytes);
    p->win.h_x = a; a = ALIGN64(a + p->win.x_bytes);
    p->win.h_y = p->gl.h_x = a; a = ALIGN64(a + p->win.y_bytes);
    p->wout.h_w = p->gl.h_z = a; a = ALIGN64(a + p->wout.w_bytes);
    p->wout.h_x = a; a = ALIGN64(a + p->wout.x_bytes);
    p->h_p2 = p->wout.h_y = a; a = ALIGN64(a + p->wout.y_bytes);
    p->h_o2 = a; a = ALIGN64(a + D * T * 4);
    if (tp < 2)
        p->h_o2 = p->h_p2;
    p->res2.h_x = p->res1.h_z, p->res2.h_r = p->h_o2;
    p->res2.h_z = a; a = ALIGN64(a + D * T * 4);             /* y^T */
    p->region = ALIGN64(a);
    uint64_t cores = (uint64_t)s->rows * s->cols;
    if (p->region * cores > cfg->hbm_bytes)
        return kgen_block_fail(err, errlen, "the data does not fit HBM: %" PRIu64 " bytes (%" PRIu64 " cores), the machine '%s' has %" PRIu64,
                    p->region * cores, cores, cfg->name, (uint64_t)cfg->hbm_bytes);
    /* the cost model */
    kgen_gemm_cost(cfg, &p->qkv, &p->c_qkv);
    kgen_gemm_cost(cfg, &p->wo, &p->c_wo);
    kgen_gemm_cost(cfg, &p->win, &p->c_win);
    kgen_gemm_cost(cfg, &p->wout, &p->c_wout);
    const kgen_block *ab = &p->ab;
    p->t_attn = ab->predicted - (ab->ln1.cost.predicted + ab->c_qkv.predicted + ab->c_wo.predicted
                                 + ab->res1.cost.predicted + ab->ln2.cost.predicted + ab->c_win.predicted
                                 + ab->gl.cost.predicted + ab->c_wout.predicted + ab->res2.cost.predicted);
    p->predicted_local = p->ln1.cost.predicted + p->c_qkv.predicted + p->t_attn + p->c_wo.predicted
                         + p->res1.cost.predicted + p->ln2.cost.predicted + p->c_win.predicted
                         + p->gl.cost.predicted + p->c_wout.predicted + p->res2.cost.predicted;
    p->predicted_comm = p->part == KGEN_SHARD_ALL ? 2.0 * s->predicted_comm : 0;
    p->flops = ab->flops - (ab->c_qkv.flops + ab->c_wo.flops + ab->c_win.flops + ab->c_wout.flops)
               + p->c_qkv.flops + p->c_wo.flops + p->c_win.flops + p->c_wout.flops;
    p->hbm_bytes = ab->hbm_bytes - (ab->ln1.cost.hbm_bytes + ab->c_qkv.hbm_bytes + ab->c_wo.hbm_bytes
                                    + ab->res1.cost.hbm_bytes + ab->ln2.cost.hbm_bytes + ab->c_win.hbm_bytes
                                    + ab->gl.cost.hbm_bytes + ab->c_wout.hbm_bytes + ab->res2.cost.hbm_bytes)
                   + p->ln1.cost.hbm_bytes + p->c_qkv.hbm_bytes + p->c_wo.hbm_bytes + p->res1.cost.hbm_bytes
                   + p->ln2.cost.hbm_bytes + p->c_win.hbm_bytes + p->gl.cost.hbm_bytes + p->c_wout.hbm_bytes
                   + p->res2.cost.hbm_bytes;
    return 0;
}

/* ---- the data: the one-chip block's (tpu-gen block's fills) ---- */

typedef struct {
    kgen_block wb;               /* the one-chip block of one sequence */
    kgen_block_data d;           /* its weights; d.x: sequence 0 */
    uint32_t *x;                 /* x^T [D][B T]: sequence s at columns s T .. */
} bs_data;

static uint32_t fbits(double v) { return tpu_f32_from_float((float)v); }

static void data_free(bs_data *z)
{
    kgen_block_data_free(&z->d);
    free(z->x);
    z->x = NULL;
}

/* 0, -1 out of memory, -2 the one-chip block does not plan (err) */
static int data_make(const tpu_config *cfg, const kgen_bshard *p, bs_data *z, char *err, size_t errlen)
{
    memset(z, 0, sizeof *z);
    z->wb.t = p->t, z->wb.d = p->d, z->wb.f = p->f, z->wb.heads = p->heads;
    z->wb.causal = p->causal, z->wb.eps = p->eps;
    if (kgen_block_plan(cfg, &z->wb, err, errlen))
        return -2;
    if (kgen_block_data_make(&z->wb, &z->d))
        return -1;
    uint64_t D = p->d, T = p->t, BT = p->b * T;
    z->x = malloc(D * BT * 4);
    if (!z->x) {
        data_free(z);
        return -1;
    }
    for (uint64_t r = 0; r < D; r++)
        for (uint64_t c = 0; c < BT; c++)
            z->x[r * BT + c] = c < T ? z->d.x[r * T + c]
                                     : tpu_fill_random_f32(SEED_XS + c / T, r * T + c % T, fbits(-2.0), fbits(2.0), 0);
    return 0;
}

/* ---- the program ---- */

static void shift_gemm(kgen_plan *q, uint64_t off) { q->h_x += off, q->h_w += off, q->h_y += off; }
static void shift_nn(kgen_nn_plan *q, uint64_t off)
{
    q->h_x += off, q->h_par += off, q->h_scr += off, q->h_z += off, q->h_r += off;
}

/* the AllReduce of the partial [D][T] fp32 at HBM src into dst over the
 * model axis (this core at position pos): ffn-shard's schedule, in line */
static void sum_code(kgen_emitter *e, const tpu_config *cfg, const kgen_bshard *p, uint64_t src, uint64_t dst,
                     unsigned pos, const char *what)
{
    const kgen_shard *s = &p->s;
    kgen_line(e, "");
    kgen_line(e, "# ======== %s: the AllReduce over the model axis (%s, %u cores, position %u): %s", what,
              s->taxis == 0 ? "X" : "Y", s->tp, pos,
              s->ring ? "the library's ReduceScatter, an AllGather" : "an AllToAll, P_0 + P_1 + ... on the VPU, an AllGather");
    kgen_allreduce_code(e, cfg, s, p->d, p->t * 4, (int)pos, src, 1);
    kgen_allgather_code(e, cfg, s, p->d, p->t * 4, (int)pos, dst);
}

static void core_code(kgen_emitter *e, const tpu_config *cfg, const kgen_bshard *p, unsigned c)
{
    unsigned di, mi;
    kgen_shard_place(&p->s, c, &di, &mi);
    uint64_t off = (uint64_t)c * p->region;
    kgen_bshard q = *p;          /* this core's copy: every HBM address + off */
    kgen_block *ab = &q.ab;
    ab->h_qkv += off, ab->h_head += off, ab->h_ob += off, ab->h_qpos += off, ab->sm.o.h_qpos += off;
    shift_nn(&q.ln1, off), shift_nn(&q.res1, off), shift_nn(&q.ln2, off), shift_nn(&q.gl, off), shift_nn(&q.res2, off);
    shift_gemm(&q.qkv, off), shift_gemm(&q.wo, off), shift_gemm(&q.win, off), shift_gemm(&q.wout, off);
    char lp[16][32];
    const char *nm[4] = { "QKV", "WO", "WIN", "WOUT" };
    for (int i = 0; i < 4; i++)
        snprintf(lp[i], sizeof lp[i], "C%u%s_", c, nm[i]);
    kgen_line(e, "");
    kgen_line(e, "# ================ core %u: sequence %u, heads %" PRIu64 " .. %" PRIu64 ", F block %u", c, di,
              (uint64_t)mi * p->hl, (uint64_t)mi * p->hl + p->hl - 1, mi);
    kgen_line(e, "CORE%u:", c);
    kgen_stage_nn(e, &q.ln1, "1: X^T = layernorm(x^T), bf16 (x replicated: every feature)");
    kgen_stage_gemm(e, &q.qkv, lp[0], "2: QKV^T = Wqkv^T X^T, this core's heads' Q, K, V rows, bf16");
    kgen_line(e, "");
    kgen_line(e, "# ======== 3: the KV cache of this core's heads");
    for (uint64_t h = 0; h < p->hl; h++)
        kgen_block_kv_code(e, ab, h);
    for (uint64_t h = 0; h < p->hl; h++) {
        char lp[48], w[160];
        snprintf(lp, sizeof lp, "C%uH%" PRIu64, c, h);
        snprintf(w, sizeof w, "4-6: head %" PRIu64 " (the block's head %" PRIu64 "): S^T, softmax%s, O^T", h,
                 (uint64_t)mi * p->hl + h, p->causal ? " (causal)" : "");
        const char *const what[3] = { w, "softmax over the keys", "O_h^T = V_h^T P^T, bf16" };
        kgen_block_head_code(e, ab, h, lp, what);
    }
    int sum = p->s.tp > 1 && p->part == KGEN_SHARD_ALL;
    kgen_stage_gemm(e, &q.wo, lp[1], p->s.tp > 1 ? "7: the partial Y1^T = Wo^T O^T (this core's heads' rows of Wo)" : "7: Y1^T = Wo^T O^T");
    if (sum)
        sum_code(e, cfg, p, p->h_p1 + off, p->h_y1 + off, mi, "7b: Y1^T");
    kgen_stage_nn(e, &q.res1, "8: x1^T = x^T + Y1^T, the residual (replicated)");
    kgen_stage_nn(e, &q.ln2, "9: X2^T = layernorm(x1^T), bf16");
    kgen_stage_gemm(e, &q.win, lp[2], "10: H^T = Win^T X2^T (this core's F block)");
    kgen_stage_nn(e, &q.gl, "11: G^T = gelu(H^T), bf16");
    kgen_stage_gemm(e, &q.wout, lp[3], p->s.tp > 1 ? "12: the partial O2^T = Wout^T G^T" : "12: O2^T = Wout^T G^T");
    if (sum)
        sum_code(e, cfg, p, p->h_p2 + off, p->h_o2 + off, mi, "12b: O2^T");
    kgen_stage_nn(e, &q.res2, "13: y^T = x1^T + O2^T, the residual");
    kgen_ins(e, "halt");
}

/* n fp32 values as .i32 bit patterns */
static void lit32(kgen_emitter *e, const uint32_t *v, uint64_t n, uint64_t stride)
{
    for (uint64_t i = 0; i < n; i += 8) {
        char buf[200];
        int k = 0;
        for (uint64_t j = i; j < i + 8 && j < n; j++)
            k += snprintf(buf + k, sizeof buf - (size_t)k, "%s0x%08x", j > i ? ", " : "", v[j * stride]);
        kgen_line(e, "        .i32    %s", buf);
    }
}

/* rows of a bf16 matrix (whole [.][cols], rows `rows[i]`, columns c0 .. c0 + n)
 * padded to pitch, then zeros up to `bytes` */
static void lit16(kgen_emitter *e, const uint16_t *w, uint64_t cols, const uint64_t *rows, uint64_t nrows, uint64_t c0,
                  uint64_t n, uint64_t pitch, uint64_t bytes)
{
    for (uint64_t r = 0; r < nrows; r++) {
        const uint16_t *src = w + rows[r] * cols + c0;
        for (uint64_t i = 0; i < n; i += 12) {
            char buf[200];
            int k = 0;
            for (uint64_t j = i; j < i + 12 && j < n; j++)
                k += snprintf(buf + k, sizeof buf - (size_t)k, "%s0x%04x", j > i ? ", " : "", src[j]);
            kgen_line(e, "        .i16    %s", buf);
        }
        if (pitch > n)
            kgen_line(e, "        .zero   %" PRIu64, (pitch - n) * 2);
    }
    if (bytes > nrows * pitch * 2)
        kgen_line(e, "        .zero   %" PRIu64, bytes - nrows * pitch * 2);
}

static void core_data(kgen_emitter *e, const kgen_bshard *p, const bs_data *z, unsigned c)
{
    unsigned di, mi;
    kgen_shard_place(&p->s, c, &di, &mi);
    uint64_t off = (uint64_t)c * p->region, T = p->t, D = p->d, BT = p->b * T, dl = p->dl, fl = p->fl;
    uint64_t dh = D / p->heads, F = p->f;
    const kgen_block *ab = &p->ab;
    uint64_t *rows = malloc((3 * D + F + 1) * sizeof *rows);
    if (!rows) {
        kgen_line(e, "        .error \"tpu-gen: out of memory\"");
        return;
    }
    kgen_line(e, "");
    kgen_line(e, "# ---- core %u's HBM at %" PRIu64 ": sequence %u, heads %" PRIu64 " .., F block %u", c, off, di,
              (uint64_t)mi * p->hl, mi);
    kgen_line(e, "        .hbm    %" PRIu64, off + ab->h_qkv);
    kgen_line(e, "        .zero   %" PRIu64 "      # QKV^T [3x%" PRIu64 "][%" PRIu64 "] bf16 (and rows of padding)", ab->qkv.y_bytes + ab->sc.kp * T * 2, dl, T);
    for (uint64_t h = 0; h < p->hl; h++) {
        uint64_t hb = off + ab->h_head + h * ab->head_bytes;
        kgen_line(e, "        .hbm    %" PRIu64, hb);
        kgen_line(e, "        .zero   %" PRIu64 "      # head %" PRIu64 "'s K_h, V_h, S, P", ab->head_bytes, h);
    }
    kgen_line(e, "        .hbm    %" PRIu64, off + ab->h_ob);
    kgen_line(e, "        .zero   %" PRIu64 "      # O^T of this core's heads, bf16", ab->wo.w_bytes);
    if (p->causal) {
        kgen_line(e, "        .hbm    %" PRIu64, off + ab->h_qpos);
        for (uint64_t i = 0; i < T; i += 16) {
            char buf[400];
            int n = 0;
            for (uint64_t j = i; j < i + 16 && j < T; j++)
                n += snprintf(buf + n, sizeof buf - (size_t)n, "%s%" PRIu64, j > i ? ", " : "", j);
            kgen_line(e, "        .f32    %s", buf);
        }
    }
    kgen_line(e, "        .hbm    %" PRIu64, off + p->ln1.h_x);
    kgen_line(e, "XRES%u:                                  # x^T [%" PRIu64 "][%" PRIu64 "] fp32, sequence %u", c, D, T, di);
    for (uint64_t r = 0; r < D; r++)
        lit32(e, z->x + r * BT + (uint64_t)di * T, T, 1);
    kgen_line(e, "        .hbm    %" PRIu64, off + p->ln1.h_par);
    kgen_line(e, "GB1_%u:", c);
    lit32(e, z->d.g1, D, 1);
    lit32(e, z->d.b1, D, 1);
    kgen_line(e, "        .hbm    %" PRIu64, off + p->ln2.h_par);
    kgen_line(e, "GB2_%u:", c);
    lit32(e, z->d.g2, D, 1);
    lit32(e, z->d.b2, D, 1);
    kgen_line(e, "        .hbm    %" PRIu64, off + p->qkv.h_x);
    kgen_line(e, "WQKV%u:                                  # Wqkv^T rows of heads %" PRIu64 " ..: Q, K, V", c, (uint64_t)mi * p->hl);
    for (uint64_t k = 0; k < 3; k++)
        for (uint64_t r = 0; r < dl; r++)
            rows[k * dl + r] = k * D + mi * dl + r;
    lit16(e, z->d.wqkv, D, rows, 3 * dl, 0, D, p->qkv.kp, p->qkv.x_bytes);
    kgen_line(e, "        .hbm    %" PRIu64, off + p->wo.h_x);
    kgen_line(e, "WO%u:                                    # Wo^T [D][its %" PRIu64 " columns]", c, dl);
    for (uint64_t r = 0; r < D; r++)
        rows[r] = r;
    lit16(e, z->d.wo, D, rows, D, mi * dl, dl, p->wo.kp, p->wo.x_bytes);
    kgen_line(e, "        .hbm    %" PRIu64, off + p->win.h_x);
    kgen_line(e, "WIN%u:                                   # Win^T rows %" PRIu64 " ..", c, mi * fl);
    for (uint64_t r = 0; r < fl; r++)
        rows[r] = mi * fl + r;
    lit16(e, z->d.win, D, rows, fl, 0, D, p->win.kp, p->win.x_bytes);
    kgen_line(e, "        .hbm    %" PRIu64, off + p->wout.h_x);
    kgen_line(e, "WOUT%u:                                  # Wout^T [D][its %" PRIu64 " columns]", c, fl);
    for (uint64_t r = 0; r < D; r++)
        rows[r] = r;
    lit16(e, z->d.wout, F, rows, D, mi * fl, fl, p->wout.kp, p->wout.x_bytes);
    free(rows);
    kgen_line(e, "        .hbm    %" PRIu64, off + p->res2.h_z);
    kgen_line(e, "Y%u:     .zero   %" PRIu64 "      # y^T [D][T] fp32", c, D * T * 4);
    kgen_line(e, "        .array  Y%u, f32, %" PRIu64 ", %" PRIu64, c, D, T);
    kgen_line(e, "        .hbm    %" PRIu64, off + p->res1.h_z);
    kgen_line(e, "X1_%u:   .zero   %" PRIu64 "      # x1^T [D][T] fp32", c, D * T * 4);
    kgen_line(e, "        .array  X1_%u, f32, %" PRIu64 ", %" PRIu64, c, D, T);
    /* the checks, each stage against the one before (the block's) */
    uint64_t o = off;
    kgen_line(e, "        .expect layernorm@%u hbm(%" PRIu64 "), XRES%u, GB1_%u, hbm(%" PRIu64 "), %" PRIu64 ", %" PRIu64 ", 0x%08x, 8",
              c, o + p->ln1.h_z, c, c, o + p->ln1.h_par + D * 4, T, D, p->eps);
    kgen_line(e, "        .expect matmul_epi@%u hbm(%" PRIu64 "), WQKV%u, hbm(%" PRIu64 "), hbm(%" PRIu64 "), %" PRIu64 ", %" PRIu64 ", %" PRIu64 ", 72",
              c, o + p->qkv.h_y, c, o + p->qkv.h_w, o + p->qkv.h_y, 3 * dl, p->qkv.kp, T);
    for (uint64_t h = 0; h < p->hl; h++) {
        uint64_t hb = o + ab->h_head + h * ab->head_bytes, q = o + ab->h_qkv + h * dh * T * 2;
        kgen_line(e, "        .expect matmul_epi@%u hbm(%" PRIu64 "), hbm(%" PRIu64 "), hbm(%" PRIu64 "), hbm(%" PRIu64 "), %" PRIu64
                  ", %" PRIu64 ", %" PRIu64 ", 68", c, hb + ab->o_s, hb + ab->o_kh, q, hb + ab->o_s, ab->tk, ab->sc.kp, T);
        if (!p->causal)
            kgen_line(e, "        .expect softmax_s@%u hbm(%" PRIu64 "), hbm(%" PRIu64 "), %" PRIu64 ", %" PRIu64 ", 0x%08x, 12", c,
                      hb + ab->o_p, hb + ab->o_s, T, ab->tk, ab->sm.o.scale);
        kgen_line(e, "        .expect matmul_epi@%u hbm(%" PRIu64 "), hbm(%" PRIu64 "), hbm(%" PRIu64 "), hbm(%" PRIu64 "), %" PRIu64
                  ", %" PRIu64 ", %" PRIu64 ", 76", c, o + ab->h_ob + h * dh * T * 2, hb + ab->o_v, hb + ab->o_p,
                  o + ab->h_ob, dh, ab->av.kp, T);
    }
    kgen_line(e, "        .expect matmul_epi@%u hbm(%" PRIu64 "), WO%u, hbm(%" PRIu64 "), hbm(%" PRIu64 "), %" PRIu64 ", %" PRIu64 ", %" PRIu64 ", 64",
              c, o + p->h_p1, c, o + p->wo.h_w, o + p->h_p1, D, p->wo.kp, T);
    kgen_line(e, "        .expect residual@%u X1_%u, XRES%u, hbm(%" PRIu64 "), %" PRIu64 ", 64", c, c, c, o + p->h_y1, D * T);
    kgen_line(e, "        .expect layernorm@%u hbm(%" PRIu64 "), X1_%u, GB2_%u, hbm(%" PRIu64 "), %" PRIu64 ", %" PRIu64 ", 0x%08x, 12",
              c, o + p->ln2.h_z, c, c, o + p->ln2.h_par + D * 4, T, D, p->eps);
    kgen_line(e, "        .expect matmul_epi@%u hbm(%" PRIu64 "), WIN%u, hbm(%" PRIu64 "), hbm(%" PRIu64 "), %" PRIu64 ", %" PRIu64 ", %" PRIu64 ", 64",
              c, o + p->win.h_y, c, o + p->win.h_w, o + p->win.h_y, fl, p->win.kp, T);
    kgen_line(e, "        .expect gelu@%u hbm(%" PRIu64 "), hbm(%" PRIu64 "), %" PRIu64 ", 12", c, o + p->gl.h_z, o + p->gl.h_x, fl * T);
    kgen_line(e, "        .expect matmul_epi@%u hbm(%" PRIu64 "), WOUT%u, hbm(%" PRIu64 "), hbm(%" PRIu64 "), %" PRIu64 ", %" PRIu64 ", %" PRIu64 ", 64",
              c, o + p->h_p2, c, o + p->wout.h_w, o + p->h_p2, D, p->wout.kp, T);
    kgen_line(e, "        .expect residual@%u Y%u, X1_%u, hbm(%" PRIu64 "), %" PRIu64 ", 68", c, c, c, o + p->h_o2, D * T);
}

long kgen_bshard_emit(FILE *f, const char *config_name, const tpu_config *cfg, const kgen_bshard *p)
{
    const kgen_shard *s = &p->s;
    kgen_emitter E = { f, 0, 0, &p->qkv, "" }, *e = &E;
    unsigned cores = s->rows * s->cols;
    bs_data z;
    memset(&z, 0, sizeof z);
    if (!p->timing_only) {
        char err[600];
        if (data_make(cfg, p, &z, err, sizeof err))
            return -2;
    }
    kgen_shard_head(e, s, config_name, "block-shard", "kgen_block_shard.c", "tpu-as -I programs; ");
    kgen_line(e, "#   the pre-norm block, B = %" PRIu64 " sequences of T = %" PRIu64 " tokens, D = %" PRIu64 ", F = %" PRIu64
              ", %" PRIu64 " heads%s, on %u cores:", p->b, p->t, p->d, p->f, p->heads, p->causal ? ", causal" : "", cores);
    const char *ba = s->bx && s->by ? "B_XY" : s->bx ? "B_X" : s->by ? "B_Y" : "B", *ma = s->fx ? "X" : s->fy ? "Y" : "";
    kgen_line(e, "#   x[%s, T, D], Wqkv[D, 3 (H_%s dh)], Wo[(H_%s dh), D], W_in[D, F_%s], W_out[F_%s, D]", ba, ma, ma, ma, ma);
    kgen_line(e, "#   a core: %" PRIu64 " heads, F %" PRIu64 "; the residual stream replicated%s", p->hl, p->fl,
              s->tp > 1 ? "; Wo's and W_out's partials AllReduced over the model axis" : "");
    if (p->part == KGEN_SHARD_COMPUTE)
        kgen_line(e, "#   --part compute: the stages only, no AllReduce (timing)");
    kgen_line(e, "#");
    kgen_line(e, "        .assert MXU_N == %" PRIu64 " && NUM_MXU >= %" PRIu64 " && VPU_SUBLANES * VPU_LANES == %" PRIu64
              ", \"generated for another machine: assemble with --config %s\"",
              p->qkv.n_mxu, (uint64_t)cfg->num_mxu, p->ab.e, config_name);
    kgen_shard_dispatch(e, s);
    for (unsigned c = 0; c < cores; c++)
        core_code(e, cfg, p, c);
    kgen_line(e, "");
    if (p->timing_only) {
        kgen_line(e, "# ---- HBM (--timing-only: zeros)");
        kgen_line(e, "        .hbm    %" PRIu64, p->region * cores - 64);
        kgen_line(e, "        .zero   64");
    } else {
        for (unsigned c = 0; c < cores; c++)
            core_data(e, p, &z, c);
        data_free(&z);
    }
    fflush(f);
    return ferror(f) ? -1 : E.insns;
}

/* ---- the reference ---- */

static void ln_bf16(const uint32_t *x, uint16_t *z, uint32_t *tmpz, uint64_t d, uint64_t t, const uint32_t *g,
                    const uint32_t *b, uint32_t eps, uint32_t *tmp)
{
    tpu_nn_params lp = { TPU_NN_LAYERNORM, d, g, b, eps, 0, NULL };
    tpu_ref_nn(&lp, x, tmpz, t, t, tmp);
    for (uint64_t i = 0; i < d * t; i++)
        z[i] = tpu_bf16_from_f32(tmpz[i]);
}

/* column block [c0, c0 + n) of a [rows][cols] bf16 matrix */
static void cols16(const uint16_t *w, uint64_t rows, uint64_t cols, uint64_t c0, uint64_t n, uint16_t *out)
{
    for (uint64_t r = 0; r < rows; r++)
        memcpy(out + r * n, w + r * cols + c0, n * 2);
}

int kgen_bshard_reference(const tpu_config *cfg, const kgen_bshard *p, uint32_t *y, uint64_t *differ, uint64_t *ulp)
{
    uint64_t T = p->t, D = p->d, F = p->f, H = p->heads, dh = D / H, tp = p->s.tp, dl = p->dl, fl = p->fl;
    unsigned tile = (unsigned)cfg->mxu_n;
    bs_data z;
    char err[600];
    *differ = *ulp = 0;
    int r = data_make(cfg, p, &z, err, sizeof err);
    if (r)
        return r;
    int rc = -1;
    uint64_t *qpos = NULL;
    uint64_t big = F > 3 * D ? F : 3 * D, cnt = D * T;
    uint32_t *f32 = malloc(big * T * 4), *tmp = malloc((T > D ? T : D) * 4 + 64), *pm = malloc(tp * cnt * 4);
    uint32_t *y1 = malloc(cnt * 4), *x1 = malloc(cnt * 4), *s = malloc(T * T * 4), *pz = malloc(T * T * 4);
    uint32_t *o = malloc(dh * T * 4), *y0 = malloc(cnt * 4);
    uint16_t *xb = malloc(D * T * 2), *qkv = malloc(3 * D * T * 2), *ob = malloc(D * T * 2), *kh = malloc(T * dh * 2);
    uint16_t *pb = malloc(T * T * 2), *gb = malloc(F * T * 2), *ws = malloc((D > F ? D : F) * D * 2);
    if (!f32 || !tmp || !pm || !y1 || !x1 || !s || !pz || !o || !y0 || !xb || !qkv || !ob || !kh || !pb || !gb || !ws)
        goto out;
    uint32_t scale = tpu_f32_from_float((float)(1.0 / sqrt((double)dh)));
    if (p->causal) {
        qpos = malloc(T * sizeof *qpos);
        if (!qpos)
            goto out;
        for (uint64_t i = 0; i < T; i++)
            qpos[i] = i;
    }
    const kgen_block_data *d = &z.d;      /* d->x: sequence 0, core 0's */
    /* the attention: every head as one chip computes it (the QKV rows have K = D whole) */
    ln_bf16(d->x, xb, f32, D, T, d->g1, d->b1, p->eps, tmp);
    if (tpu_ref_matmul(d->wqkv, xb, f32, 3 * D, D, T, tile) < 0)
        goto out;
    for (uint64_t i = 0; i < 3 * D * T; i++)
        qkv[i] = tpu_bf16_from_f32(f32[i]);
    for (uint64_t h = 0; h < H; h++) {
        const uint16_t *q = qkv + h * dh * T, *k = qkv + (D + h * dh) * T, *v = qkv + (2 * D + h * dh) * T;
        for (uint64_t c = 0; c < T; c++)
            for (uint64_t j = 0; j < dh; j++)
                kh[c * dh + j] = k[j * T + c];
        if (tpu_ref_matmul(kh, q, s, T, dh, T, tile) < 0)
            goto out;
        tpu_ref_softmax_keys(s, pz, T, T, scale, qpos, tmp);
        for (uint64_t i = 0; i < T * T; i++)
            pb[i] = tpu_bf16_from_f32(pz[i]);
        if (tpu_ref_matmul(v, pb, o, dh, T, T, tile) < 0)
            goto out;
        for (uint64_t i = 0; i < dh * T; i++)
            ob[h * dh * T + i] = tpu_bf16_from_f32(o[i]);
    }
    /* Wo: each position's rows (its heads), partials summed as the AllReduce */
    for (uint64_t m = 0; m < tp; m++) {
        cols16(d->wo, D, D, m * dl, dl, ws);
        if (tpu_ref_matmul(ws, ob + m * dl * T, pm + m * cnt, D, dl, T, tile) < 0)
            goto out;
    }
    kgen_allreduce_ref(&p->s, pm, y1, cnt);
    for (uint64_t i = 0; i < cnt; i++)
        x1[i] = tpu_f32_add(d->x[i], y1[i]);
    ln_bf16(x1, xb, f32, D, T, d->g2, d->b2, p->eps, tmp);
    if (tpu_ref_matmul(d->win, xb, f32, F, D, T, tile) < 0)
        goto out;
    for (uint64_t i = 0; i < F * T; i++)
        gb[i] = tpu_bf16_from_f32(tpu_nn_gelu(f32[i]));
    for (uint64_t m = 0; m < tp; m++) {
        cols16(d->wout, D, F, m * fl, fl, ws);
        if (tpu_ref_matmul(ws, gb + m * fl * T, pm + m * cnt, D, fl, T, tile) < 0)
            goto out;
    }
    kgen_allreduce_ref(&p->s, pm, y1, cnt);
    for (uint64_t i = 0; i < cnt; i++)
        y[i] = tpu_f32_add(x1[i], y1[i]);
    /* one chip: tpu_ref_block on the same sequence */
    tpu_block_params bp;
    memset(&bp, 0, sizeof bp);
    bp.t = T, bp.d = D, bp.f = F, bp.heads = H, bp.causal = p->causal, bp.tile = tile, bp.eps = p->eps;
    bp.x = d->x, bp.g1 = d->g1, bp.b1 = d->b1, bp.g2 = d->g2, bp.b2 = d->b2;
    bp.wqkv = d->wqkv, bp.wo = d->wo, bp.win = d->win, bp.wout = d->wout, bp.kpast = d->kpast, bp.vpast = d->vpast;
    if (tpu_ref_block(&bp, y0, NULL))
        goto out;
    kgen_ulp_diff(y, y0, cnt, differ, ulp);
    rc = 0;
out:
    free(qpos);
    free(f32); free(tmp); free(pm); free(y1); free(x1); free(s); free(pz); free(o); free(y0);
    free(xb); free(qkv); free(ob); free(kh); free(pb); free(gb); free(ws);
    data_free(&z);
    return rc;
}
