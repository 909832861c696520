/*
 * kgen_nn.c - transformer layers on the VPU (kgen_nn.h): softmax,
 * layernorm, RMSnorm, GELU and SiLU, docs/transformers.md.
 *
 * The activation is feature-major: column c of the N rows is a run of N
 * fp32 in HBM (N a multiple of the vector's e = S x L rows), so a vector
 * register holds one column of e rows, a row per lane, and a row's
 * reduction over its C columns is a chain of vadd / vmax over registers
 * in column order, the order the references (cmodel/ref_nn.c) use.  The
 * program goes a tile at a time: rb vectors of rows (rb <= 8, all C
 * columns; one 2-D DMA in, one out), two tiles in flight.  Per tile, in
 * passes over the columns (numerics.md section 12):
 *
 *   softmax    max of scale x; e = exp(scale x - m) stored, sum; times rcp(sum)
 *   layernorm  sum; sum of (x - mean)^2; (x - mean) r gamma + beta
 *   rmsnorm    sum of x^2; x r gamma
 *   gelu, silu one pass, elementwise
 *
 * gamma and beta are C fp32 in HBM; the program first makes a vector of
 * each value (one DMA per column, source stride 0) in VMEM, read once per
 * column and tile.
 */
#include "kgen_nn.h"

#include <inttypes.h>
#include <stdarg.h>
#include <string.h>

#include "fp.h"
#include "kgen_impl.h"
#include "objfile.h"

#define ALIGN64(x) (((x) + 63) / 64 * 64)
#define T0 "s1"
#define T1 "s2"
#define T2 "s3"
#define T3 "s4"
#define XP "s9"          /* the column's input in the tile */
#define CN "s10"         /* columns left */
#define ZP "s13"         /* the column's output in the tile */
#define GP "s14"         /* the column's gamma vector */
#define BP "s15"         /* the column's beta vector */
/* constant registers */
#define VSCALE 24
#define VEPS 25
#define VONE 26
#define VHALF 27
#define VA 28
#define VK 29
#define VZERO 30
#define VINV 31
#define VNEG 25          /* softmax, causal: -inf */
#define VKEY 26          /* softmax, causal: the column's key position c */
#define VONEC 27         /* softmax, causal: 1.0 */
#define VM0 30           /* softmax, causal: two masks in turn */
#define VG 26            /* layernorm, rmsnorm: the column's gamma (no VONE there) */
#define VB 27            /* layernorm: the column's beta */

const char *const kgen_nn_names[TPU_NN_COUNT] = { "softmax", "layernorm", "rmsnorm", "gelu",
                                                  "silu", "residual" };

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -1;
}

/* bytes of one column of a tile's output: fp32, or bf16 for a GEMM to read */
static uint64_t zcol(const kgen_nn_plan *p) { return p->o.out_bf16 ? p->col_bytes / 2 : p->col_bytes; }

/* VPU instructions per (column, vector) of a tile, and per column. */
static void per_elem(tpu_nn_op op, double *k, double *col)
{
    static const double ke[TPU_NN_COUNT] = { 12, 12, 7, 16, 7, 4 };
    static const double kc[TPU_NN_COUNT] = { 0, 2, 1, 0, 0, 0 };
    *k = ke[op];
    *col = kc[op];
}

static void nn_cost(const tpu_config *cfg, const kgen_nn_plan *p, kgen_cost *c)
{
    uint64_t num, den;
    tpu_config_bytes_per_cycle(cfg->hbm_bw, cfg->clock_hz, &num, &den);
    double bw = (double)num / (double)den, L = (double)cfg->hbm_latency;
    double eng = (double)(cfg->dma_engines > 1 ? cfg->dma_engines : 1);
    double k, kc, C = (double)p->o.c, rb = (double)p->rb;
    per_elem(p->o.op, &k, &kc);
    if (p->o.causal)
        k += 2, kc += 1;                     /* vcmplt, vsel a vector; the key's vadd */
    int passes = p->o.op == TPU_NN_GELU || p->o.op == TPU_NN_SILU || p->o.op == TPU_NN_ADD ? 1
                 : p->o.op == TPU_NN_RMSNORM ? 2 : 3;
    double issue = C * (rb * k + kc + 3.0 * passes) + 40.0;
    /* the dependent steps: a step of v = rb q vectors takes the larger of v
     * and its latency (T27; a transcendental's T27a) */
    static const double plain[TPU_NN_COUNT] = { 11, 12, 7, 14, 5, 3 }, tr[TPU_NN_COUNT] = { 1, 0, 0, 2, 2, 0 };
    double v = (double)(p->rb * p->q), vl = (double)cfg->vpu_latency;
    double chain = C / (double)p->q * (plain[p->o.op] * (v > vl ? v : vl)
                                       + tr[p->o.op] * (v > vl + TPU_TR_STEPS ? v : vl + TPU_TR_STEPS));
    if (chain + 40.0 > issue)
        issue = chain + 40.0;
    double tb = (double)p->tile_bytes;
    double mem = (p->o.op == TPU_NN_ADD ? 3.0 : 2.0) * tb / bw;
    if (L + tb / bw > mem)
        mem = L + tb / bw > 2.0 * mem ? (L + tb / bw) / 2.0 : mem;
    double tiles = (double)p->tiles;
    double steps = 0;
    for (uint64_t w = 1; w < p->e; w *= 2)
        steps += 2;
    double setup = p->ng ? (steps + 1.0) * (L + 20.0) + 2.0 * (double)p->ng * C * (double)p->e * 4.0 / bw : 0.0;
    (void)eng;
    c->t_math = tiles * C * rb * k;
    c->t_memory = tiles * mem;
    c->t_issue = tiles * issue;
    c->fill = setup + L + tb / bw;
    c->drain = L + tb / bw;
    c->predicted = c->fill + tiles * (mem > issue ? mem : issue) + c->drain;
    c->bound = mem > issue ? "memory" : "issue";
    c->hbm_bytes = (uint64_t)(tiles * 2.0 * tb) + (uint64_t)p->ng * p->o.c * 4
                   + (uint64_t)(p->ng ? 2 * p->ng * p->o.c * p->e * 4 : 0);
    c->flops = (uint64_t)(tiles * C * rb * (double)p->e * k);
}

int kgen_nn_plan_make(const tpu_config *cfg, const kgen_nn_opts *o, kgen_nn_plan *p, char *err,
                      size_t errlen)
{
    memset(p, 0, sizeof *p);
    p->o = *o;
    p->e = (uint64_t)cfg->vpu_sublanes * cfg->vpu_lanes;
    const char *name = kgen_nn_names[o->op];
    if (!o->n || !o->c)
        return fail(err, errlen, "-N and -C must be positive");
    if (o->n > (1ull << 24) || o->c > (1ull << 20))
        return fail(err, errlen, "too large: -N up to 2^24 rows, -C up to 2^20 columns");
    if (o->n % p->e)
        return fail(err, errlen, "-N %" PRIu64 " does not divide into vectors: %s keeps a row per "
                    "lane, so N must be a multiple of the vector's %" PRIu64 " elements (%ux%u) on '%s'",
                    o->n, name, p->e, (unsigned)cfg->vpu_sublanes, (unsigned)cfg->vpu_lanes,
                    cfg->name);
    p->blocks = o->n / p->e;
    p->ng = o->op == TPU_NN_LAYERNORM ? 2 : o->op == TPU_NN_RMSNORM ? 1 : 0;
    uint64_t par = (uint64_t)p->ng * o->c * p->e * 4;
    uint64_t qp = o->causal ? o->n * 4 + 64 : 0;      /* the queries' positions */
    uint64_t want = 8;
    if (o->tile_rows) {
        if (o->tile_rows % p->e || o->tile_rows / p->e > 8 || p->blocks % (o->tile_rows / p->e))
            return fail(err, errlen, "--tile-rows %" PRIu64 " is impossible: it must be a multiple "
                        "of %" PRIu64 " (a vector's rows), at most 8 vectors, and divide N = %" PRIu64,
                        o->tile_rows, p->e, o->n);
        want = o->tile_rows / p->e;
    }
    /* the largest rb <= want dividing the blocks whose two tile sets fit */
    uint64_t rb, nbuf = o->op == TPU_NN_ADD ? 6 : 4;    /* per set: in, out (and the second input) */
    for (rb = want; rb >= 1; rb--) {
        if (p->blocks % rb)
            continue;
        p->col_bytes = rb * p->e * 4;
        p->tile_bytes = o->c * p->col_bytes;
        if (par + qp + nbuf * p->tile_bytes + nbuf * 64 <= cfg->vmem_bytes || o->tile_rows)
            break;
    }
    p->rb = rb;
    if (rb == 0 || par + qp + nbuf * p->tile_bytes + nbuf * 64 > cfg->vmem_bytes) {
        p->rb = 0;
        p->col_bytes = (o->tile_rows ? want : 1) * p->e * 4;
        p->tile_bytes = o->c * p->col_bytes;
        return fail(err, errlen, "C = %" PRIu64 " is too large for VMEM: one tile (C columns of "
                    "%s%" PRIu64 " rows: %" PRIu64 " bytes in, as many out, two in flight)%s needs "
                    "%" PRIu64 " bytes, the machine '%s' has %" PRIu64, o->c,
                    o->tile_rows ? "" : "at least ", o->tile_rows ? o->tile_rows : p->e,
                    p->tile_bytes, p->ng ? " with the gamma/beta vectors" : "",
                    par + qp + nbuf * p->tile_bytes, cfg->name, (uint64_t)cfg->vmem_bytes);
    }
    p->tiles = p->blocks / p->rb;
    /* elementwise: q columns a step, so that a step has up to 8 independent vectors */
    p->q = 1;
    if (o->op == TPU_NN_GELU || o->op == TPU_NN_SILU || o->op == TPU_NN_ADD)
        for (uint64_t q = 8 / p->rb; q > 1; q--)
            if (o->c % q == 0) {
                p->q = q;
                break;
            }
    uint64_t a = 0;
    for (int i = 0; i < 2; i++) {
        p->v_in[i] = a;
        a = ALIGN64(a + p->tile_bytes);
        p->v_out[i] = a;
        a = ALIGN64(a + p->tile_bytes);
        if (o->op == TPU_NN_ADD) {           /* the second input, at the same distance in each set */
            p->r_delta = a - p->v_in[i];
            a = ALIGN64(a + p->tile_bytes);
        }
    }
    p->v_par = a;
    a += par;
    if (o->causal) {
        if (o->op != TPU_NN_SOFTMAX)
            return fail(err, errlen, "internal: the causal mask is the softmax's");
        a = ALIGN64(a);
        p->v_qpos = a;
        a += o->n * 4;
    }
    p->vmem_need = a;
    if (a > INT32_MAX)
        return fail(err, errlen, "the VPU buffers pass 2^31 bytes of VMEM");
    uint64_t bytes = o->n * o->c * 4;
    p->h_x = 0;
    p->h_par = ALIGN64(bytes);                /* gamma, then beta right after it */
    p->h_scr = ALIGN64(p->h_par + 2 * o->c * 4);
    p->h_z = ALIGN64(p->h_scr + par);
    p->h_r = ALIGN64(p->h_z + bytes);          /* the residual's second input */
    p->hbm_need = o->op == TPU_NN_ADD ? p->h_r + bytes : p->h_z + bytes;
    if (p->hbm_need > cfg->hbm_bytes)
        return fail(err, errlen, "the data does not fit HBM: %" PRIu64 " bytes, the machine '%s' has %" PRIu64,
                    p->hbm_need, cfg->name, (uint64_t)cfg->hbm_bytes);
    nn_cost(cfg, p, &p->cost);
    return 0;
}

/* The .random fills: X's range per kernel (wide enough to reach GELU's and
 * SiLU's saturation and softmax's flushed exponentials), gamma, beta. */
static void data_range(tpu_nn_op op, float *lo, float *hi)
{
    static const float r[TPU_NN_COUNT][2] = {
        { -8.0f, 8.0f }, { 0.5f, 4.5f }, { -3.0f, 3.0f }, { -8.0f, 8.0f }, { -12.0f, 12.0f },
        { -4.0f, 4.0f } };
    *lo = r[op][0];
    *hi = r[op][1];
}
#define SEED_X 1
#define SEED_G 2
#define SEED_B 3

void kgen_nn_data(const kgen_nn_plan *p, uint32_t *x, uint32_t *gamma, uint32_t *beta)
{
    float lo, hi;
    data_range(p->o.op, &lo, &hi);
    uint32_t l = tpu_f32_from_float(lo), h = tpu_f32_from_float(hi);
    for (uint64_t i = 0; i < p->o.n * p->o.c; i++)
        x[i] = tpu_fill_random_f32(SEED_X, i, l, h, 0);
    for (uint64_t i = 0; i < p->o.c; i++) {
        gamma[i] = tpu_fill_random_f32(SEED_G, i, tpu_f32_from_float(0.5f),
                                       tpu_f32_from_float(1.5f), 0);
        beta[i] = tpu_fill_random_f32(SEED_B, i, tpu_f32_from_float(-0.5f),
                                      tpu_f32_from_float(0.5f), 0);
    }
}

/* ---- the program ---- */

typedef struct {
    kgen_emitter *e;
    const kgen_nn_plan *p;
    uint64_t vb;                 /* bytes of a vector */
} nctx;

static void vconst(nctx *n, unsigned v, uint32_t bits, const char *what)
{
    kgen_li(n->e, T0, bits);
    kgen_ins(n->e, "vbcast  v%u, %s                  # %s", v, T0, what);
}

/* Point XP (and ZP, GP, BP) at column 0 of the set being computed (s8). */
static void start_cols(nctx *n, int x, int z, int g)
{
    kgen_emitter *e = n->e;
    const kgen_nn_plan *p = n->p;
    if (x) {
        kgen_li(e, XP, p->v_in[0]);
        kgen_ins(e, "add     %s, %s, s8", XP, XP);
    }
    if (z) {
        kgen_li(e, ZP, p->v_out[0]);
        kgen_ins(e, "add     %s, %s, s8", ZP, ZP);
    }
    if (g) {
        kgen_li(e, GP, p->v_par);
        if (g > 1)
            kgen_li(e, BP, p->v_par + p->o.c * p->e * 4);
    }
}

static void next_col(nctx *n, int x, int z, int g)
{
    kgen_emitter *e = n->e;
    if (x)
        kgen_addi(e, XP, XP, (int64_t)(n->p->q * n->p->col_bytes), T0);
    if (z)
        kgen_addi(e, ZP, ZP, (int64_t)(n->p->q * zcol(n->p)), T0);
    if (g)
        kgen_addi(e, GP, GP, (int64_t)n->vb, T0);
    if (g > 1)
        kgen_addi(e, BP, BP, (int64_t)n->vb, T0);
}

/* The body of a pass for one column, all rb vectors; first: column 0. */
typedef void (*col_body)(nctx *n, int first);

/* A pass over the C columns: column 0 (first = 1), then a loop over the
 * others (first = 0) when `peel`, else one loop over all. */
static void pass(nctx *n, col_body body, int peel, int x, int z, int g, const char *what)
{
    kgen_emitter *e = n->e;
    uint64_t C = n->p->o.c;
    kgen_line(e, "        # %s", what);
    start_cols(n, x, z, g);
    if (peel) {
        body(n, 1);
        if (C == 1)
            return;
        next_col(n, x, z, g);
    }
    kgen_li(e, CN, (peel ? C - 1 : C) / n->p->q);
    unsigned top = kgen_new_label(e);
    kgen_put_label(e, top);
    body(n, 0);
    next_col(n, x, z, g);
    kgen_ins(e, "addi    %s, %s, -1", CN, CN);
    kgen_ins(e, "bne     %s, zero, L%u", CN, top);
}

#define FOR_J for (unsigned j = 0; j < (unsigned)(n->p->rb * n->p->q); j++)
#define X(j) (16 + (j))
#define A(j) (j)
#define S(j) (8 + (j))
/* vector j of a step: column j / rb of the q the step takes, vector j % rb of it */
#define OFF(j) ((uint64_t)(j) / n->p->rb * n->p->col_bytes + (uint64_t)(j) % n->p->rb * n->vb)
#define OFFZ(j) ((uint64_t)(j) / n->p->rb * zcol(n->p) + (uint64_t)(j) % n->p->rb * n->vb / (n->p->o.out_bf16 ? 2 : 1))
#define VSTZ (n->p->o.out_bf16 ? "vst.bf16" : "vst    ")

/* softmax: m = max(scale x) (A); e = exp(scale x - m) to Z, s = sum (S); Z *= rcp(s) */
static void sm_max(nctx *n, int first)
{
    FOR_J kgen_ins(n->e, "vld     v%u, %s, %" PRIu64, X(j), XP, OFF(j));
    if (n->p->o.causal) {
        /* v = scale x; v = -inf where the key c is after the query (q < c, the
         * positions in S(j)); stored in place for pass 2; m = max v */
        FOR_J kgen_ins(n->e, "vmul    v%u, v%u, v%u", X(j), X(j), VSCALE);
        unsigned nj = (unsigned)(n->p->rb * n->p->q);
        for (unsigned j = 0; j <= nj; j++) {
            if (j < nj)
                kgen_ins(n->e, "vcmplt  v%u, v%u, v%u", VM0 + j % 2, S(j), VKEY);
            if (j >= 1)
                kgen_ins(n->e, "vsel    v%u, v%u, v%u, v%u", first ? A(j - 1) : X(j - 1), VM0 + (j - 1) % 2,
                         VNEG, X(j - 1));
        }
        FOR_J kgen_ins(n->e, "vst     v%u, %s, %" PRIu64, first ? A(j) : X(j), XP, OFF(j));
        if (!first)
            FOR_J kgen_ins(n->e, "vmax    v%u, v%u, v%u", A(j), A(j), X(j));
        kgen_ins(n->e, "vadd    v%u, v%u, v%u", VKEY, VKEY, VONEC);
        return;
    }
    FOR_J {
        if (first)
            kgen_ins(n->e, "vmul    v%u, v%u, v%u", A(j), X(j), VSCALE);
        else
            kgen_ins(n->e, "vmul    v%u, v%u, v%u", X(j), X(j), VSCALE);
    }
    if (!first)
        FOR_J kgen_ins(n->e, "vmax    v%u, v%u, v%u", A(j), A(j), X(j));
}
static void sm_exp(nctx *n, int first)
{
    FOR_J kgen_ins(n->e, "vld     v%u, %s, %" PRIu64, X(j), XP, OFF(j));
    if (!n->p->o.causal)                 /* causal: pass 1 stored scale x, masked */
        FOR_J kgen_ins(n->e, "vmul    v%u, v%u, v%u", X(j), X(j), VSCALE);
    FOR_J kgen_ins(n->e, "vsub    v%u, v%u, v%u", X(j), X(j), A(j));
    FOR_J kgen_ins(n->e, "vexp    v%u, v%u", first ? S(j) : X(j), X(j));
    FOR_J kgen_ins(n->e, "vst     v%u, %s, %" PRIu64, first ? S(j) : X(j), XP, OFF(j));
    if (!first)
        FOR_J kgen_ins(n->e, "vadd    v%u, v%u, v%u", S(j), S(j), X(j));
}
static void sm_scale(nctx *n, int first)
{
    (void)first;
    FOR_J kgen_ins(n->e, "vld     v%u, %s, %" PRIu64, X(j), XP, OFF(j));
    FOR_J kgen_ins(n->e, "vmul    v%u, v%u, v%u", X(j), X(j), S(j));
    FOR_J kgen_ins(n->e, "%s v%u, %s, %" PRIu64, VSTZ, X(j), ZP, OFFZ(j));
}

/* layernorm: s = sum x (A), mean = s * 1/C; q = sum (x - mean)^2 (S); r = rsqrt(q/C + eps) */
static void ln_sum(nctx *n, int first)
{
    FOR_J kgen_ins(n->e, "vld     v%u, %s, %" PRIu64, first ? A(j) : X(j), XP, OFF(j));
    if (!first)
        FOR_J kgen_ins(n->e, "vadd    v%u, v%u, v%u", A(j), A(j), X(j));
}
static void ln_var(nctx *n, int first)
{
    FOR_J kgen_ins(n->e, "vld     v%u, %s, %" PRIu64, X(j), XP, OFF(j));
    FOR_J kgen_ins(n->e, "vsub    v%u, v%u, v%u", X(j), X(j), A(j));
    FOR_J kgen_ins(n->e, "vmul    v%u, v%u, v%u", first ? S(j) : X(j), X(j), X(j));
    if (!first)
        FOR_J kgen_ins(n->e, "vadd    v%u, v%u, v%u", S(j), S(j), X(j));
}
static void ln_out(nctx *n, int first)
{
    (void)first;
    kgen_ins(n->e, "vld     v%u, %s, 0", VG, GP);
    kgen_ins(n->e, "vld     v%u, %s, 0", VB, BP);
    FOR_J kgen_ins(n->e, "vld     v%u, %s, %" PRIu64, X(j), XP, OFF(j));
    FOR_J kgen_ins(n->e, "vsub    v%u, v%u, v%u", X(j), X(j), A(j));
    FOR_J kgen_ins(n->e, "vmul    v%u, v%u, v%u", X(j), X(j), S(j));
    FOR_J kgen_ins(n->e, "vmul    v%u, v%u, v%u", X(j), X(j), VG);
    FOR_J kgen_ins(n->e, "vadd    v%u, v%u, v%u", X(j), X(j), VB);
    FOR_J kgen_ins(n->e, "%s v%u, %s, %" PRIu64, VSTZ, X(j), ZP, OFFZ(j));
}

/* rmsnorm: q = sum x^2 (S); r = rsqrt(q/C + eps); x r gamma */
static void rms_sq(nctx *n, int first)
{
    FOR_J kgen_ins(n->e, "vld     v%u, %s, %" PRIu64, X(j), XP, OFF(j));
    FOR_J kgen_ins(n->e, "vmul    v%u, v%u, v%u", first ? S(j) : X(j), X(j), X(j));
    if (!first)
        FOR_J kgen_ins(n->e, "vadd    v%u, v%u, v%u", S(j), S(j), X(j));
}
static void rms_out(nctx *n, int first)
{
    (void)first;
    kgen_ins(n->e, "vld     v%u, %s, 0", VG, GP);
    FOR_J kgen_ins(n->e, "vld     v%u, %s, %" PRIu64, X(j), XP, OFF(j));
    FOR_J kgen_ins(n->e, "vmul    v%u, v%u, v%u", X(j), X(j), S(j));
    FOR_J kgen_ins(n->e, "vmul    v%u, v%u, v%u", X(j), X(j), VG);
    FOR_J kgen_ins(n->e, "%s v%u, %s, %" PRIu64, VSTZ, X(j), ZP, OFFZ(j));
}

/* gelu (numerics.md 12): x in X(j), t in A(j), h in S(j) */
static void gelu_col(nctx *n, int first)
{
    (void)first;
    kgen_emitter *e = n->e;
    FOR_J kgen_ins(e, "vld     v%u, %s, %" PRIu64, X(j), XP, OFF(j));
    FOR_J kgen_ins(e, "vmul    v%u, v%u, v%u", A(j), X(j), X(j));
    FOR_J kgen_ins(e, "vmul    v%u, v%u, v%u", A(j), A(j), X(j));
    FOR_J kgen_ins(e, "vmul    v%u, v%u, v%u", A(j), A(j), VA);
    FOR_J kgen_ins(e, "vadd    v%u, v%u, v%u", A(j), X(j), A(j));
    FOR_J kgen_ins(e, "vmul    v%u, v%u, v%u", A(j), A(j), VK);
    FOR_J kgen_ins(e, "vadd    v%u, v%u, v%u", A(j), A(j), A(j));
    FOR_J kgen_ins(e, "vexp    v%u, v%u", A(j), A(j));
    FOR_J kgen_ins(e, "vadd    v%u, v%u, v%u", A(j), A(j), VONE);
    FOR_J kgen_ins(e, "vrcp    v%u, v%u", A(j), A(j));
    FOR_J kgen_ins(e, "vadd    v%u, v%u, v%u", A(j), A(j), A(j));
    FOR_J kgen_ins(e, "vsub    v%u, v%u, v%u", A(j), VONE, A(j));
    FOR_J kgen_ins(e, "vadd    v%u, v%u, v%u", A(j), A(j), VONE);
    FOR_J kgen_ins(e, "vmul    v%u, v%u, v%u", S(j), X(j), VHALF);
    FOR_J kgen_ins(e, "vmul    v%u, v%u, v%u", A(j), S(j), A(j));
    FOR_J kgen_ins(e, "%s v%u, %s, %" PRIu64, VSTZ, A(j), ZP, OFFZ(j));
}
static void silu_col(nctx *n, int first)
{
    (void)first;
    kgen_emitter *e = n->e;
    FOR_J kgen_ins(e, "vld     v%u, %s, %" PRIu64, X(j), XP, OFF(j));
    FOR_J kgen_ins(e, "vsub    v%u, v%u, v%u", A(j), VZERO, X(j));
    FOR_J kgen_ins(e, "vexp    v%u, v%u", A(j), A(j));
    FOR_J kgen_ins(e, "vadd    v%u, v%u, v%u", A(j), A(j), VONE);
    FOR_J kgen_ins(e, "vrcp    v%u, v%u", A(j), A(j));
    FOR_J kgen_ins(e, "vmul    v%u, v%u, v%u", A(j), X(j), A(j));
    FOR_J kgen_ins(e, "%s v%u, %s, %" PRIu64, VSTZ, A(j), ZP, OFFZ(j));
}

static void add_col(nctx *n, int first)
{
    (void)first;
    kgen_emitter *e = n->e;
    FOR_J kgen_ins(e, "vld     v%u, %s, %" PRIu64, X(j), XP, OFF(j));
    FOR_J kgen_ins(e, "vld     v%u, %s, %" PRIu64, A(j), XP, OFF(j) + n->p->r_delta);
    FOR_J kgen_ins(e, "vadd    v%u, v%u, v%u", A(j), X(j), A(j));
    FOR_J kgen_ins(e, "%s v%u, %s, %" PRIu64, VSTZ, A(j), ZP, OFFZ(j));
}

/* The tile's computation, from the input set s8 into the output set. */
static void tile_code(nctx *n)
{
    kgen_emitter *e = n->e;
    switch (n->p->o.op) {
    case TPU_NN_SOFTMAX:
        if (n->p->o.causal) {
            kgen_ins(e, "vbcast  v%u, zero                  # the key position c = 0", VKEY);
            kgen_li(e, T0, n->p->rb * n->p->e * 4);
            kgen_ins(e, "mul     %s, %s, s11", T0, T0);
            kgen_addi(e, T0, T0, (int64_t)n->p->v_qpos, T1);
            FOR_J kgen_ins(e, "vld     v%u, %s, %" PRIu64 "          # the queries' positions", S(j), T0, OFF(j));
        }
        pass(n, sm_max, 1, 1, 0, 0, n->p->o.causal ? "pass 1: m = max over the columns of scale * x, -inf after the query (stored)"
                                                  : "pass 1: m = max over the columns of scale * x");
        pass(n, sm_exp, 1, 1, 0, 0, "pass 2: e = exp(scale * x - m) in place of x, s = their sum");
        FOR_J kgen_ins(e, "vrcp    v%u, v%u", S(j), S(j));
        pass(n, sm_scale, 0, 1, 1, 0, "pass 3: Z = e * rcp(s)");
        break;
    case TPU_NN_LAYERNORM:
        pass(n, ln_sum, 1, 1, 0, 0, "pass 1: the sum of the columns");
        FOR_J kgen_ins(e, "vmul    v%u, v%u, v%u", A(j), A(j), VINV);
        pass(n, ln_var, 1, 1, 0, 0, "pass 2: the sum of (x - mean)^2");
        FOR_J kgen_ins(e, "vmul    v%u, v%u, v%u", S(j), S(j), VINV);
        FOR_J kgen_ins(e, "vadd    v%u, v%u, v%u", S(j), S(j), VEPS);
        FOR_J kgen_ins(e, "vrsqrt  v%u, v%u", S(j), S(j));
        pass(n, ln_out, 0, 1, 1, 2, "pass 3: Z = (x - mean) * r * gamma + beta");
        break;
    case TPU_NN_RMSNORM:
        pass(n, rms_sq, 1, 1, 0, 0, "pass 1: the sum of x^2");
        FOR_J kgen_ins(e, "vmul    v%u, v%u, v%u", S(j), S(j), VINV);
        FOR_J kgen_ins(e, "vadd    v%u, v%u, v%u", S(j), S(j), VEPS);
        FOR_J kgen_ins(e, "vrsqrt  v%u, v%u", S(j), S(j));
        pass(n, rms_out, 0, 1, 1, 1, "pass 2: Z = x * r * gamma");
        break;
    case TPU_NN_GELU:
        pass(n, gelu_col, 0, 1, 1, 0, "Z = gelu(x), elementwise");
        break;
    case TPU_NN_SILU:
        pass(n, silu_col, 0, 1, 1, 0, "Z = silu(x), elementwise");
        break;
    case TPU_NN_ADD:
        pass(n, add_col, 0, 1, 1, 0, "Z = x + y, elementwise (the residual)");
        break;
    default:
        break;
    }
}

void kgen_nn_code(kgen_emitter *e, const kgen_nn_plan *p)
{
    nctx N = { e, p, p->e * 4 }, *n = &N;
    const kgen_nn_opts *o = &p->o;
    uint64_t setd = p->v_in[1] - p->v_in[0];
    /* constants */
    switch (o->op) {
    case TPU_NN_SOFTMAX:
        vconst(n, VSCALE, o->scale, "scale");
        if (o->causal) {
            vconst(n, VNEG, 0xff800000u, "-inf: the mask");
            vconst(n, VONEC, TPU_NN_ONE, "1.0: the next key");
            kgen_line(e, "        # the queries' positions (fp32) into VMEM, once");
            kgen_li(e, T0, p->v_qpos);
            kgen_li(e, T1, o->h_qpos);
            kgen_li(e, T2, 1);
            kgen_li(e, T3, o->n * 4);
            kgen_ins(e, "dma.h2v %s, %s, %s, %s, %s, %s, 3", T0, T1, T2, T3, T3, T3);
            kgen_ins(e, "sem.wait 3, 1");
        }
        break;
    case TPU_NN_LAYERNORM: case TPU_NN_RMSNORM:
        vconst(n, VEPS, o->eps, "eps");
        vconst(n, VINV, tpu_nn_inv(o->c), "1/C");
        break;
    case TPU_NN_GELU:
        vconst(n, VONE, TPU_NN_ONE, "1.0");
        vconst(n, VHALF, TPU_NN_HALF, "0.5");
        vconst(n, VA, TPU_NN_GELU_A, "0.044715");
        vconst(n, VK, TPU_NN_GELU_K, "sqrt(2/pi)");
        break;
    case TPU_NN_SILU:
        vconst(n, VONE, TPU_NN_ONE, "1.0");
        vconst(n, VZERO, 0, "+0");
        break;
    default:
        break;
    }
    /* gamma (and beta) vectors: value c repeated over a vector.  One DMA
     * puts each value in lane 0 of its vector; then the lanes double,
     * lanes [0, w) copied to [w, 2w) of every vector at once through the
     * HBM scratch (2-D DMAs, there and back): 1 + 2 log2(e) DMAs. */
    if (p->ng) {
        uint64_t rows = (uint64_t)p->ng * o->c, vb = p->e * 4;
        kgen_line(e, "        # the gamma%s vectors: value c over all %" PRIu64 " lanes of vector c (lanes doubled through HBM)",
                  p->ng > 1 ? "/beta" : "", p->e);
        kgen_li(e, T0, p->v_par);
        kgen_li(e, T1, p->h_par);
        kgen_li(e, T2, rows);
        kgen_li(e, T3, 4);
        kgen_li(e, XP, vb);
        kgen_ins(e, "dma.h2v %s, %s, %s, %s, %s, %s, 3", T0, T1, T2, T3, T3, XP);
        kgen_ins(e, "sem.wait 3, 1");
        for (uint64_t w = 1; w < p->e; w *= 2) {
            uint64_t cnt = w < p->e - w ? w : p->e - w;
            kgen_li(e, T0, p->h_scr);
            kgen_li(e, T1, p->v_par);
            kgen_li(e, T3, cnt * 4);
            kgen_ins(e, "dma.v2h %s, %s, %s, %s, %s, %s, 3", T0, T1, T2, T3, XP, XP);
            kgen_ins(e, "sem.wait 3, 1");
            kgen_li(e, T1, p->v_par + w * 4);
            kgen_ins(e, "dma.h2v %s, %s, %s, %s, %s, %s, 3", T1, T0, T2, T3, XP, XP);
            kgen_ins(e, "sem.wait 3, 1");
        }
    }
    kgen_li(e, "s5", p->tiles);
    kgen_li(e, "s6", 0);
    kgen_li(e, "s7", 0);
    kgen_li(e, "s8", 0);
    kgen_li(e, "s11", 0);
    kgen_li(e, "s12", 0);
    unsigned tile = kgen_new_label(e);
    /* LOAD: the next tile (HBM offset s6) into set s7: C rows of col_bytes */
    for (int ps = 0; ps < 2; ps++) {
        if (ps == 1)
            kgen_put_label(e, tile);
        unsigned skip = kgen_new_label(e);
        if (ps == 1) {
            kgen_li(e, T0, p->tiles - 1);
            kgen_ins(e, "bge     s11, %s, L%u          # the last tile: nothing to load next", T0, skip);
        }
        kgen_li(e, T0, p->v_in[0]);
        kgen_ins(e, "add     %s, %s, s7", T0, T0);
        kgen_li(e, T1, p->h_x);
        kgen_ins(e, "add     %s, %s, s6", T1, T1);
        kgen_li(e, T2, o->c);
        kgen_li(e, T3, p->col_bytes);
        kgen_li(e, XP, o->n * 4);
        kgen_ins(e, "dma.h2v %s, %s, %s, %s, %s, %s, 0", T0, T1, T2, T3, XP, T3);
        if (o->op == TPU_NN_ADD) {
            kgen_addi(e, T0, T0, (int64_t)p->r_delta, T1);
            kgen_li(e, T1, p->h_r);
            kgen_ins(e, "add     %s, %s, s6", T1, T1);
            kgen_ins(e, "dma.h2v %s, %s, %s, %s, %s, %s, 0", T0, T1, T2, T3, XP, T3);
        }
        kgen_addi(e, "s6", "s6", (int64_t)p->col_bytes, T0);
        kgen_li(e, T0, setd);
        kgen_ins(e, "xor     s7, s7, %s", T0);
        kgen_put_label(e, skip);
    }
    kgen_ins(e, "sem.wait 0, %d                 # this tile's input%s", o->op == TPU_NN_ADD ? 2 : 1,
             o->op == TPU_NN_ADD ? "s" : "");
    {
        unsigned l = kgen_new_label(e);
        kgen_li(e, T0, 2);
        kgen_ins(e, "blt     s11, %s, L%u", T0, l);
        kgen_ins(e, "sem.wait 2, 1                 # the output set's last tile has left");
        kgen_put_label(e, l);
    }
    tile_code(n);
    kgen_ins(e, "sync    vpu");
    kgen_li(e, T0, p->v_out[0]);
    kgen_ins(e, "add     %s, %s, s8", T0, T0);
    kgen_li(e, T1, p->h_z);
    kgen_ins(e, "add     %s, %s, s12", T1, T1);
    kgen_li(e, T2, o->c);
    kgen_li(e, T3, zcol(p));
    kgen_li(e, XP, o->n * (o->out_bf16 ? 2 : 4));
    kgen_ins(e, "dma.v2h %s, %s, %s, %s, %s, %s, 2", T1, T0, T2, T3, T3, XP);
    kgen_addi(e, "s12", "s12", (int64_t)zcol(p), T0);
    kgen_li(e, T0, setd);
    kgen_ins(e, "xor     s8, s8, %s", T0);
    kgen_ins(e, "addi    s11, s11, 1");
    kgen_ins(e, "addi    s5, s5, -1");
    kgen_ins(e, "bne     s5, zero, L%u", tile);
    kgen_ins(e, "sem.wait 2, %" PRIu64 "                 # the last outputs", p->tiles < 2 ? p->tiles : 2);
}

long kgen_nn_emit(FILE *f, const char *config_name, const tpu_config *cfg, const kgen_nn_plan *p)
{
    kgen_emitter E = { f, 0, 0, NULL, "" }, *e = &E;
    const kgen_nn_opts *o = &p->o;
    const char *name = kgen_nn_names[o->op];
    kgen_line(e, "# tpu-as: --config %s", config_name);
    kgen_line(e, "#");
    kgen_line(e, "# Generated by tpu-gen %s (sim/kernels/kgen_nn.c, docs/transformers.md); do not edit.", name);
    kgen_line(e, "#");
    kgen_line(e, "#   Z = %s(X) over each of N = %" PRIu64 " rows of C = %" PRIu64 " fp32 values, feature-major:",
              name, o->n, o->c);
    kgen_line(e, "#   column c of every row is a run of N values (X + 4 N c), a row per lane");
    if (o->op == TPU_NN_SOFTMAX)
        kgen_line(e, "#   scale 0x%08x (%.9g)", o->scale, (double)tpu_f32_to_float(o->scale));
    if (o->op == TPU_NN_LAYERNORM || o->op == TPU_NN_RMSNORM)
        kgen_line(e, "#   eps 0x%08x (%.9g), 1/C 0x%08x; gamma%s: C fp32", o->eps,
                  (double)tpu_f32_to_float(o->eps), tpu_nn_inv(o->c),
                  o->op == TPU_NN_LAYERNORM ? ", beta" : "");
    kgen_line(e, "#   machine %s: a vector holds %" PRIu64 " rows; %" PRIu64 " tiles of %" PRIu64
              " vectors (%" PRIu64 " rows, %" PRIu64 " bytes), two in flight",
              cfg->name, p->e, p->tiles, p->rb, p->rb * p->e, p->tile_bytes);
    kgen_line(e, "#   predicted       %.0f cycles, %s-bound (vpu %.0f, memory %.0f, issue %.0f)",
              p->cost.predicted, p->cost.bound, p->cost.t_math, p->cost.t_memory, p->cost.t_issue);
    kgen_line(e, "# Registers: s5 tiles left, s6 the next tile's HBM offset, s7 its set, s8 the set computed,");
    kgen_line(e, "# s9 the column's input, s10 columns left, s11 tiles done, s12 the output's HBM offset,");
    kgen_line(e, "# s13 the column's output, s14/s15 its gamma/beta vector; v24-v31 constants.");
    kgen_line(e, "# Semaphores: 0 inputs landed, 2 outputs written, 3 the gamma/beta vectors' copies.");
    kgen_line(e, "");
    kgen_line(e, "        .assert VPU_SUBLANES * VPU_LANES == %" PRIu64 ", \"generated for %" PRIu64
              " fp32 a vector: assemble with --config %s\"", p->e, p->e, config_name);
    kgen_line(e, "        .text");
    kgen_nn_code(e, p);
    kgen_ins(e, "halt");
    if (!o->timing_only) {
        float lo, hi;
        data_range(o->op, &lo, &hi);
        kgen_line(e, "");
        kgen_line(e, "# ---- HBM: X [C][N] fp32 (feature-major), gamma, beta [C], Z [C][N]");
        kgen_line(e, "        .hbm    %" PRIu64, p->h_x);
        kgen_line(e, "X:      .random f32, %" PRIu64 ", %d, %.1f, %.1f", o->n * o->c, SEED_X,
                  (double)lo, (double)hi);
        kgen_line(e, "        .hbm    %" PRIu64, p->h_par);
        kgen_line(e, "G:      .random f32, %" PRIu64 ", %d, 0.5, 1.5", o->c, SEED_G);
        kgen_line(e, "        .hbm    %" PRIu64, p->h_par + o->c * 4);
        kgen_line(e, "B:      .random f32, %" PRIu64 ", %d, -0.5, 0.5", o->c, SEED_B);
        kgen_line(e, "        .hbm    %" PRIu64, p->h_z);
        kgen_line(e, "Z:      .zero   %" PRIu64, o->n * o->c * 4);
        kgen_line(e, "");
        kgen_line(e, "# ---- check, bit for bit (numerics.md section 12)");
        switch (o->op) {
        case TPU_NN_SOFTMAX:
            kgen_line(e, "        .expect softmax_s Z, X, %" PRIu64 ", %" PRIu64 ", 0x%08x, 0", o->n, o->c, o->scale);
            break;
        case TPU_NN_LAYERNORM:
            kgen_line(e, "        .expect layernorm Z, X, G, B, %" PRIu64 ", %" PRIu64 ", 0x%08x, 0", o->n, o->c, o->eps);
            break;
        case TPU_NN_RMSNORM:
            kgen_line(e, "        .expect rmsnorm Z, X, G, %" PRIu64 ", %" PRIu64 ", 0x%08x, 0", o->n, o->c, o->eps);
            break;
        default:
            kgen_line(e, "        .expect %s Z, X, %" PRIu64 ", 0", name, o->n * o->c);
            break;
        }
    }
    fflush(f);
    return ferror(f) ? -1 : E.insns;
}
