/*
 * kgen_shard.c - the transformer MLP sharded across the cores of a ring or a
 * 2-D torus (tpu-gen ffn-shard; docs/transformers.md, "Sharded across
 * chips"), in the book's notation:
 *
 *   data parallel     X[B_X, D], W_in[D, F], W_out[F, D]: each core runs
 *                     tpu-gen ffn on its T / dp tokens; no communication
 *   Megatron          X[B, D], W_in[D, F_Y], W_out[F_Y, D]: each core runs
 *                     the stages on its F / tp hidden units and gets a
 *                     partial O^T [D][T]; the partials are summed over the
 *                     model axis (an AllReduce)
 *   both              X[B_X, D], W_in[D, F_Y], W_out[F_Y, D] on a 2-D torus
 *
 * The AllReduce (--reduce a2a, the default) is an AllToAll then an AllGather
 * (programs/lib/ring.inc, as it is): chunk j (rows j D/n .. of O^T) of every core's partial goes to the
 * core at position j, which adds the n partials on the VPU in the fixed
 * order of the positions, P_0 + P_1 + ... + P_{n-1}, left to right, then
 * the sums are gathered.  A ring ReduceScatter adds in an order that
 * depends on the chunk; this one is the same for every value and is the
 * reference's (kgen_shard_reference).  One chip adds the second GEMM's
 * K-tiles left to right in one accumulation, so the two agree bit for bit
 * when every core holds one K-tile (F / tp = MXU_N) and otherwise differ
 * by the fp32 rounding of a different association.  --reduce ring uses
 * ring_reducescatter instead (2 (n-1) chunks on a core's links rather
 * than the AllToAll's n^2/4 + n - 1): chunk c's first half is summed along
 * +1 from position c+1, its second half along -1 from c-1, position c
 * last; the reference adds in that order.
 *
 * --overlap is the book's collective matmul (overlap_code): GEMM 2 in n pieces
 * of D/n rows, each piece's two half chunks added to what came from behind
 * and sent on both ways round the ring while the MXUs compute the next, in
 * --reduce ring's order (the same result, the same bytes), then the
 * AllGather.  --partials bf16 (with it) sends each sum rounded to bf16 and
 * gathers the chunks in bf16 (docs/numerics.md 14; the reference rounds
 * the same way).
 *
 * Every core runs the same program; it starts with a jump on `cid` to its
 * own copy of the stages (the GEMM code's addresses are immediates), each
 * with its own HBM block (core c's at c x region) holding its slices of
 * the whole X^T, W_in^T and W_out^T.  Element (r, c) of a whole matrix cut
 * into nb column blocks of cb is element c mod cb of the fill with seed
 * base + r nb + c / cb, so a core's slice is the same values wherever it
 * sits, and the C reference rebuilds the whole from the same rule.
 */
#include "kgen_shard.h"

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
#define LO_BITS 0xbf800000u      /* .random's default range [-1, 1) */
#define HI_BITS 0x3f800000u
#define SEED_WIN 0x100000u
#define SEED_X 0x200000u
#define SEED_WOUT 0x400000u
#define SEM_DMA 1
#define SEM_PIECE 16          /* --overlap: a piece landed in VMEM */
#define SEM_ARR_U 17          /* a sum landed from the -1 neighbour (it sent +1) */
#define SEM_ARR_D 18          /* from the +1 neighbour */
#define SEM_SENT 19           /* a send has left */

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -1;
}

int kgen_shard_spec(kgen_shard *s, const char *spec, char *err, size_t errlen)
{
    s->bx = s->by = s->fx = s->fy = 0;
    if (!strcmp(spec, "dp")) {
        s->bx = 1, s->by = 2;    /* 2: Y too when the mesh has it (kgen_shard_plan) */
        return 0;
    }
    if (!strcmp(spec, "tp")) {
        s->fx = 1;
        return 0;
    }
    const char *p = spec;
    if (!*p)
        return fail(err, errlen, "--shard: empty (give B_X, F_Y, B_X,F_Y, B_XY, dp or tp)");
    while (*p) {
        char dim = *p;
        if (dim != 'B' && dim != 'T' && dim != 'F')
            return fail(err, errlen, "--shard '%s': '%c' is not a shardable dimension: B (or T, the tokens) "
                        "or F (the hidden units; D, the model width, stays whole)", spec, dim);
        if (p[1] != '_')
            return fail(err, errlen, "--shard '%s': expected '_' after '%c' (the book's notation: B_X, F_Y)", spec, dim);
        p += 2;
        if (*p != 'X' && *p != 'Y')
            return fail(err, errlen, "--shard '%s': unknown mesh axis '%c' (the axes are X, along a row, and Y, "
                        "along a column)", spec, *p ? *p : ' ');
        while (*p == 'X' || *p == 'Y') {
            unsigned *a = dim == 'F' ? (*p == 'X' ? &s->fx : &s->fy) : (*p == 'X' ? &s->bx : &s->by);
            if ((*p == 'X' && (s->bx || s->fx)) || (*p == 'Y' && (s->by || s->fy)))
                return fail(err, errlen, "--shard '%s': axis %c is used twice", spec, *p);
            *a = 1;
            p++;
        }
        if (*p == ',')
            p++;
        else if (*p)
            return fail(err, errlen, "--shard '%s': unknown mesh axis '%c' (the axes are X, along a row, and Y, "
                        "along a column)", spec, *p);
    }
    if (s->fx && s->fy)
        return fail(err, errlen, "--shard '%s': F over both axes needs a two-axis AllReduce: not done (shard F over "
                    "one axis, B over the other)", spec);
    return 0;
}

int kgen_shard_plan(const tpu_config *cfg, kgen_shard *s, char *err, size_t errlen)
{
    if (s->by == 2)              /* dp: every axis of the mesh */
        s->by = s->rows > 1;
    if (!s->t || !s->d || !s->f)
        return fail(err, errlen, "the sizes must be positive");
    if (s->rows * s->cols < 2 || s->rows * s->cols > 64)
        return fail(err, errlen, "--mesh: 2 to 64 cores, got %u", s->rows * s->cols);
    if ((s->by || s->fy) && s->rows < 2)
        return fail(err, errlen, "--shard uses axis Y, but a ring of %u has one axis (X); give --mesh RxC for a "
                    "2-D torus", s->cols);
    s->dp = (s->bx ? s->cols : 1) * (s->by ? s->rows : 1);
    s->tp = s->fx ? s->cols : s->fy ? s->rows : 1;
    s->taxis = s->fx ? 0 : s->fy ? 1 : -1;
    if (s->dp * s->tp != s->rows * s->cols)
        return fail(err, errlen, "--shard leaves an axis of the %ux%u mesh unused (every core would repeat "
                    "another's work): shard B or F over every axis", s->rows, s->cols);
    uint64_t e = (uint64_t)cfg->vpu_sublanes * cfg->vpu_lanes;
    if (s->t % s->dp || (s->t / s->dp) % e)
        return fail(err, errlen, "-T %" PRIu64 " does not divide: %u token blocks of a multiple of %" PRIu64
                    " (the vector's %ux%u lanes) each", s->t, s->dp, e,
                    (unsigned)cfg->vpu_sublanes, (unsigned)cfg->vpu_lanes);
    if (s->f % s->tp)
        return fail(err, errlen, "-F %" PRIu64 " does not divide over the %u cores of the model axis", s->f, s->tp);
    if (s->tp > 1 && s->d % s->tp)
        return fail(err, errlen, "-D %" PRIu64 " does not divide into %u chunks (the AllReduce's: each core sums D/%u "
                    "rows of O^T)", s->d, s->tp, s->tp);
    if (s->part != KGEN_SHARD_ALL) {
        if (s->tp < 2)
            return fail(err, errlen, "--part: only with F sharded (there is no communication to separate)");
        s->timing_only = 1;
    }
    memset(&s->l, 0, sizeof s->l);
    s->l.kind = KGEN_TFM_FFN;
    s->l.t = s->t / s->dp, s->l.d = s->d, s->l.f = s->f / s->tp;
    s->l.timing_only = s->timing_only;
    char e2[700];
    if (kgen_tfm_plan(cfg, &s->l, e2, sizeof e2))
        return fail(err, errlen, "a core's block (T %" PRIu64 ", D %" PRIu64 ", F %" PRIu64 "): %s", s->l.t, s->l.d,
                    s->l.f, e2);
    uint64_t tl = s->l.t, ob = s->d * tl * 4;
    s->h_o = ALIGN64(s->l.head_bytes);
    s->region = ALIGN64(s->h_o + ob);
    uint64_t cores = (uint64_t)s->rows * s->cols;
    if (s->region * cores > cfg->hbm_bytes)
        return fail(err, errlen, "the data does not fit HBM: %" PRIu64 " bytes, the machine '%s' has %" PRIu64,
                    s->region * cores, cfg->name, (uint64_t)cfg->hbm_bytes);
    s->predicted_local = s->l.predicted;
    s->predicted_comm = s->predicted_exposed = 0;
    if (s->bf16 && !s->overlap)
        return fail(err, errlen, "--partials bf16: only with --overlap (the library's ReduceScatter and the AllToAll's "
                    "sum add fp32 partials)");
    if (s->overlap && s->tp < 2)
        return fail(err, errlen, "--overlap: only with F sharded (there is no sum to overlap with GEMM 2)");
    if (s->tp > 1) {
        uint64_t n = s->tp, vb = (uint64_t)cfg->vpu_sublanes * cfg->vpu_lanes * 4;
        s->chunk = ob / n;
        if (s->chunk % vb)
            return fail(err, errlen, "internal: a chunk of %" PRIu64 " bytes is not whole vectors", s->chunk);
        if (s->overlap && s->d % (2 * n))
            return fail(err, errlen, "--overlap: -D %" PRIu64 " does not divide into %" PRIu64 " half chunks (each of the "
                    "%" PRIu64 " chunks of O^T is summed in two halves, one each way round the ring)",
                    s->d, 2 * n, n);
        uint64_t dcw = n / 2, dcc = n - 1 - dcw, work = dcw * (dcw - (dcw > 0)) / 2 + dcc * (dcc - (dcc > 0)) / 2;
        if (s->ring) {
            work = 4;                /* ring_reducescatter's scratch: 4 chunks */
            if (s->chunk % (2 * vb))
                return fail(err, errlen, "--reduce ring: a chunk (D/%" PRIu64 " rows of O^T, %" PRIu64 " bytes) must be an even "
                            "number of vectors (each direction sums half of it)", n, s->chunk);
        }
        if (s->overlap) {
            s->hr = s->d / (2 * n);
            s->half = s->chunk / 2;
            kgen_gemm_opts o;
            memset(&o, 0, sizeof o);
            o.m = s->d / n, o.k = s->l.f, o.n = tl, o.dtype = KGEN_BF16, o.timing_only = s->timing_only;
            char e3[400];
            if (kgen_gemm_plan(cfg, &o, &s->piece, e3, sizeof e3))
                return fail(err, errlen, "--overlap: a piece of GEMM 2 (%" PRIu64 " x %" PRIu64 " x %" PRIu64 "): %s",
                            s->d / n, tl, s->l.f, e3);
            if (s->piece.kp != s->l.g2.kp || s->piece.np != s->l.g2.np || s->piece.x_row != s->l.g2.x_row)
                return fail(err, errlen, "internal: a piece's layout is not GEMM 2's");
            kgen_gemm_cost(cfg, &s->piece, &s->cpiece);
            /* above every stage's VMEM: a neighbour may send before this core is done with them */
            uint64_t top = s->l.g1.vmem_need;
            if (s->l.v.vmem_need > top)
                top = s->l.v.vmem_need;
            if (s->l.g2.vmem_need > top)
                top = s->l.g2.vmem_need;
            if (s->piece.vmem_need > top)
                top = s->piece.vmem_need;
            s->hs = s->bf16 ? s->half / 2 : s->half;
            s->v_mine = (top + vb - 1) / vb * vb;
            s->v_recv = s->v_mine + n * s->chunk;
            s->v_send = s->v_recv + 2 * (n - 1) * s->hs;
            s->v_og = s->v_send + (s->bf16 ? 2 * (n - 1) * s->hs : 0);
            s->v_o = s->v_og + (s->bf16 ? ob / 2 : 0);
            s->vmem_need = s->v_o + ob;
            if (s->vmem_need > cfg->vmem_bytes || s->vmem_need >= (1ull << 31))
                return fail(err, errlen, "--overlap: the pieces' buffers do not fit VMEM: %" PRIu64 " bytes (the stages' "
                            "%" PRIu64 ", then %" PRIu64 " half chunks of O^T and O^T [%" PRIu64 "][%" PRIu64 "] fp32), "
                            "the machine '%s' has %" PRIu64, s->vmem_need, top, 4 * n - 2, s->d, tl, cfg->name,
                            (uint64_t)cfg->vmem_bytes);
            double w = cfg->ici_bw / cfg->clock_hz, hbmw = cfg->hbm_bw / cfg->clock_hz;
            double L = (double)cfg->ici_latency, nvh = (double)(s->half / vb);
            /* a step: the piece, its trip back to VMEM, two additions; the sends of a step go while the
             * next step computes */
            double piece = s->cpiece.predicted;
            double c = piece + (double)s->chunk / hbmw + (double)cfg->hbm_latency + 8 * nvh;
            double send = (double)s->hs / w + L, ag = (double)(n - 1) * (double)s->hs / w + (double)n * L;
            if (s->bf16)
                ag += (double)(ob / vb) * 2;         /* the widening of the gathered O^T */
            double step = c > send + 8 * nvh ? c : send + 8 * nvh;
            double local = s->l.c1.predicted + s->l.v.cost.predicted + (double)n * piece;
            double total = s->l.c1.predicted + s->l.v.cost.predicted + c + (double)(n - 1) * step + ag
                           + (double)ob / hbmw;
            s->predicted_local = local;
            s->predicted_comm = total - local;
            s->predicted_exposed = s->predicted_comm;
            return 0;
        }
        s->v_p = 0;
        s->v_slots = ob;
        s->v_work = 2 * ob;
        s->v_o = s->v_work + work * s->chunk;
        s->vmem_need = s->v_o + ob;
        if (s->vmem_need > cfg->vmem_bytes || s->vmem_need >= (1ull << 31))
            return fail(err, errlen, "the AllReduce's buffers do not fit VMEM: %" PRIu64 " bytes (three copies of "
                        "O^T [%" PRIu64 "][%" PRIu64 "] fp32 and the AllToAll's scratch), the machine '%s' has %" PRIu64,
                        s->vmem_need, s->d, tl, cfg->name, (uint64_t)cfg->vmem_bytes);
        /* the schedule's link time: the AllToAll's busiest link carries dcw (dcw + 1) / 2 chunks,
         * the AllGather's (n - 1) half chunks each way; plus the hops and the loads */
        double w = cfg->ici_bw / cfg->clock_hz, hbmw = cfg->hbm_bw / cfg->clock_hz;
        s->predicted_comm = (s->ring ? (double)(n - 1) * (double)s->chunk / 2 / w
                                     : (double)(dcw * (dcw + 1) / 2) * (double)s->chunk / w)
                            + (double)(n - 1) * (double)s->chunk / 2 / w
                            + (double)(s->ring ? 2 * n : dcw + n) * (double)cfg->ici_latency + 2.0 * (double)ob / hbmw;
        s->predicted_exposed = s->predicted_comm;    /* nothing overlaps */
    }
    return 0;
}

/* A block of a whole bf16 matrix: rows r0 .. r0+rows of column block cb_i (cb values each, nb
 * blocks a row), each row padded to pitch values, then zero rows up to prow. */
static void block(kgen_emitter *e, const char *label, uint64_t seed, uint64_t r0, uint64_t rows, uint64_t nb,
                  uint64_t cb_i, uint64_t cb, uint64_t pitch, uint64_t prow)
{
    kgen_line(e, "%s:                                     # %" PRIu64 " rows of %" PRIu64 ", padded to %" PRIu64,
              label, rows, cb, pitch);
    for (uint64_t r = 0; r < rows; r++) {
        kgen_line(e, "        .random bf16, %" PRIu64 ", %" PRIu64, cb, seed + (r0 + r) * nb + cb_i);
        if (pitch > cb)
            kgen_line(e, "        .zero   %" PRIu64, (pitch - cb) * 2);
    }
    if (prow > rows)
        kgen_line(e, "        .zero   %" PRIu64 "                  # rows of padding", (prow - rows) * pitch * 2);
}

/* --overlap: W_out^T's block mi with its rows in the order of core pos's steps (overlap_row) */
static uint64_t overlap_row(const kgen_shard *s, unsigned pos, uint64_t k);
static void block_steps(kgen_emitter *e, const char *label, const kgen_shard *s, unsigned pos, unsigned mi,
                        uint64_t pitch, uint64_t prow)
{
    uint64_t cb = s->l.f;
    kgen_line(e, "%s:                                     # %" PRIu64 " rows of %" PRIu64 ", padded to %" PRIu64
              ", in the order of the steps", label, s->d, cb, pitch);
    for (uint64_t k = 0; k < s->d; k++) {
        kgen_line(e, "        .random bf16, %" PRIu64 ", %" PRIu64 "   # row %" PRIu64, cb,
                  SEED_WOUT + overlap_row(s, pos, k) * s->tp + mi, overlap_row(s, pos, k));
        if (pitch > cb)
            kgen_line(e, "        .zero   %" PRIu64, (pitch - cb) * 2);
    }
    if (prow > s->d)
        kgen_line(e, "        .zero   %" PRIu64 "                  # rows of padding", (prow - s->d) * pitch * 2);
}

static void block_data(uint16_t *out, uint64_t seed, uint64_t r0, uint64_t rows, uint64_t nb, uint64_t cb_i,
                       uint64_t cb, uint64_t pitch, uint64_t prow)
{
    memset(out, 0, prow * pitch * 2);
    for (uint64_t r = 0; r < rows; r++)
        for (uint64_t c = 0; c < cb; c++)
            out[r * pitch + c] = (uint16_t)(tpu_fill_random_f32(seed + (r0 + r) * nb + cb_i, c, LO_BITS,
                                                                HI_BITS, 1) >> 16);
}

void kgen_shard_place(const kgen_shard *s, unsigned c, unsigned *di, unsigned *mi)
{
    unsigned x = c % s->cols, y = c / s->cols;
    *di = s->bx && s->by ? x * s->rows + y : s->bx ? x : s->by ? y : 0;
    *mi = s->fx ? x : s->fy ? y : 0;
}

/* One code for every core (the position on the axis in s3, the partial's HBM in s1, O^T's in
 * s2): the AllReduce's reduction (kgen_allreduce.c), then SHARD_GATHER */
static void gather_code(kgen_emitter *e, const tpu_config *cfg, const kgen_shard *s);

static void sum_code(kgen_emitter *e, const tpu_config *cfg, const kgen_shard *s)
{
    kgen_line(e, "");
    kgen_line(e, "# ======== the AllReduce over the model axis (%s, %u cores): an AllToAll of the chunks, the sum",
              s->taxis == 0 ? "X" : "Y", s->tp);
    kgen_line(e, "# P_0 + P_1 + ... in the order of the positions on the VPU, an AllGather (programs/lib/ring.inc)");
    kgen_line(e, "# s1: HBM of this core's partial P^T, s2: HBM of O^T, s3: the position on the axis");
    kgen_line(e, "SHARD_SUM:");
    kgen_allreduce_code(e, cfg, s, s->d, s->l.t * 4, -1, 0, s->part != KGEN_SHARD_COMM);
    gather_code(e, cfg, s);
}

/* every chunk of O^T (chunk pos of it summed at v_o + pos x chunk) to every core, then O^T to
 * HBM: s2 HBM of O^T, s3 the position on the axis */
static void gather_code(kgen_emitter *e, const tpu_config *cfg, const kgen_shard *s)
{
    kgen_line(e, "SHARD_GATHER:");
    kgen_allgather_code(e, cfg, s, s->d, s->l.t * 4, -1, 0);
    kgen_ins(e, "halt");
}

/* The vectors of n bytes at a + b (left to right: a's first) into d, u at a time. */
static void vadd_code(kgen_emitter *e, const tpu_config *cfg, uint64_t a, uint64_t b, uint64_t d, uint64_t n)
{
    uint64_t vb = (uint64_t)cfg->vpu_sublanes * cfg->vpu_lanes * 4, nv = n / vb;
    unsigned u = nv % 8 == 0 ? 8 : nv % 4 == 0 ? 4 : nv % 2 == 0 ? 2 : 1;
    unsigned l = kgen_new_label(e);
    kgen_ins(e, "li      s4, 0");
    kgen_ins(e, "li      s5, %" PRIu64, n);
    kgen_put_label(e, l);
    for (unsigned k = 0; k < u; k++)
        kgen_ins(e, "vld     v%u, s4, %" PRIu64, k, a + k * vb);
    for (unsigned k = 0; k < u; k++)
        kgen_ins(e, "vld     v%u, s4, %" PRIu64, 8 + k, b + k * vb);
    for (unsigned k = 0; k < u; k++)
        kgen_ins(e, "vadd    v%u, v%u, v%u", k, k, 8 + k);
    for (unsigned k = 0; k < u; k++)
        kgen_ins(e, "vst     v%u, s4, %" PRIu64, k, d + k * vb);
    kgen_ins(e, "addi    s4, s4, %" PRIu64, u * vb);
    kgen_ins(e, "blt     s4, s5, L%u", l);
}

/* --partials bf16: dst (bf16) = bf16(fp32(a) + b) for the n bytes of fp32 at b (a: bf16; without
 * have_a, dst = bf16(b)), u vectors a step; s4 walks the fp32 bytes, s6 the bf16 ones */
static void bf16_code(kgen_emitter *e, const tpu_config *cfg, uint64_t a, int have_a, uint64_t b, uint64_t d,
                      uint64_t n)
{
    uint64_t vb = (uint64_t)cfg->vpu_sublanes * cfg->vpu_lanes * 4, hb = vb / 2, nv = n / vb;
    unsigned u = nv % 8 == 0 ? 8 : nv % 4 == 0 ? 4 : nv % 2 == 0 ? 2 : 1;
    unsigned l = kgen_new_label(e);
    kgen_ins(e, "li      s4, 0");
    kgen_ins(e, "li      s6, 0");
    kgen_ins(e, "li      s5, %" PRIu64, n);
    kgen_put_label(e, l);
    if (have_a) {
        for (unsigned k = 0; k < u; k++)
            kgen_ins(e, "vld.bf16 v%u, s6, %" PRIu64, k, a + k * hb);
        for (unsigned k = 0; k < u; k++)
            kgen_ins(e, "vld     v%u, s4, %" PRIu64, 8 + k, b + k * vb);
        for (unsigned k = 0; k < u; k++)
            kgen_ins(e, "vadd    v%u, v%u, v%u", k, k, 8 + k);
    } else {
        for (unsigned k = 0; k < u; k++)
            kgen_ins(e, "vld     v%u, s4, %" PRIu64, k, b + k * vb);
    }
    for (unsigned k = 0; k < u; k++)
        kgen_ins(e, "vst.bf16 v%u, s6, %" PRIu64, k, d + k * hb);
    kgen_ins(e, "addi    s4, s4, %" PRIu64, u * vb);
    kgen_ins(e, "addi    s6, s6, %" PRIu64, u * hb);
    kgen_ins(e, "blt     s4, s5, L%u", l);
}

/* --overlap: the row of W_out^T (and of P^T) that core pos keeps at row k of its HBM block: its
 * rows in the order of the steps (overlap_code), two half chunks a step */
static uint64_t overlap_row(const kgen_shard *s, unsigned pos, uint64_t k)
{
    uint64_t n = s->tp, rpc = s->d / n, hr = s->hr, t = k / rpc, d = k % rpc / hr;
    uint64_t ck = d == 0 ? (pos + 2 * n - t - 1) % n : (pos + t + 1) % n;
    return ck * rpc + d * hr + k % hr;
}

/* --overlap, core c at position pos of the model axis: the collective matmul's ReduceScatter.
 * The core keeps the rows of its W_out^T slice in the order of the steps (overlap_row), so that
 * at step t = 0 .. n-1 one piece of GEMM 2 (D/n rows) computes two half chunks of its partial
 * P^T: the first half of chunk (pos - t - 1) mod n, which goes +1, and the second half of chunk
 * (pos + t + 1) mod n, which goes -1.  For each half: (t > 0) the sum that came from the
 * neighbour behind plus this core's, sent on (t < n - 1) while the MXUs compute the next piece,
 * or (t = n - 1: the chunk is pos) kept in O^T's chunk pos.  Chunk c's first half is summed
 * c+1, c+2, ..., c; its second half c-1, c-2, ..., c: --reduce ring's order.  Then the
 * AllGather (gather_code). */
static void overlap_code(kgen_emitter *e, const tpu_config *cfg, const kgen_shard *s, unsigned c, unsigned pos,
                         uint64_t off)
{
    uint64_t n = s->tp, rpc = s->d / n, hr = s->hr, half = s->half, rowb = s->l.t * 4;
    int port[2] = { s->taxis == 0 ? 0 : 2, s->taxis == 0 ? 1 : 3 };
    const char *way[2] = { "+1", "-1" };
    kgen_line(e, "# ======== GEMM 2 in %" PRIu64 " pieces of %" PRIu64 " rows (W_out^T's rows in the order of the steps), "
              "each piece's halves sent on as the next is computed (the collective matmul; position %u)", n, rpc, pos);
    for (uint64_t t = 0; t < n; t++) {
        uint64_t mine = s->v_mine + t * s->chunk;
        kgen_line(e, "# ---- step %" PRIu64 ": P^T rows %" PRIu64 " .. (chunk %" PRIu64 ", first half: +1) and %" PRIu64
                  " .. (chunk %" PRIu64 ", second half: -1)", t, overlap_row(s, pos, t * rpc), (pos + 2 * n - t - 1) % n,
                  overlap_row(s, pos, t * rpc + hr), (pos + t + 1) % n);
        if (s->part != KGEN_SHARD_COMM) {
            kgen_plan q = s->piece;
            q.h_x = s->l.g2.h_x + off + t * rpc * s->l.g2.x_row;
            q.h_w = s->l.g2.h_w + off;
            q.h_y = s->l.g2.h_y + off + t * rpc * rowb;
            char lp[40];
            snprintf(lp, sizeof lp, "C%uS%" PRIu64 "_", c, t);
            e->p = &q;
            e->lp = lp;
            kgen_gemm_code(e, 0);
        }
        if (s->part == KGEN_SHARD_COMPUTE)
            continue;
        kgen_ins(e, "li      s6, %" PRIu64, mine);
        kgen_ins(e, "li      s7, %" PRIu64, s->l.g2.h_y + off + t * rpc * rowb);
        kgen_ins(e, "li      s8, %" PRIu64, rpc);
        kgen_ins(e, "li      s9, %" PRIu64, rowb);
        kgen_ins(e, "dma.h2v s6, s7, s8, s9, s9, s9, %d", SEM_PIECE);
        kgen_ins(e, "sem.wait %d, 1                 # the piece is in VMEM", SEM_PIECE);
        for (int d = 0; d < 2; d++) {
            uint64_t my = mine + (uint64_t)d * half, src = my, hs = s->hs;
            uint64_t recv = s->v_recv + ((uint64_t)d * (n - 1) + t) * hs;          /* step t's arrival there */
            uint64_t acc = t ? s->v_recv + ((uint64_t)d * (n - 1) + t - 1) * hs : 0;  /* step t-1's here */
            if (t > 0)
                kgen_ins(e, "sem.wait %d, 1                 # %s: the sum of the cores behind has landed",
                         d ? SEM_ARR_D : SEM_ARR_U, way[d]);
            if (s->bf16) {
                /* sum = fp32(the bf16 that came) + mine; sent (or gathered) as bf16 */
                uint64_t dst = t == n - 1 ? s->v_og + pos * (s->chunk / 2) + (uint64_t)d * hs
                                          : s->v_send + ((uint64_t)d * (n - 1) + t) * hs;
                bf16_code(e, cfg, t ? acc : 0, t > 0, my, dst, half);
                kgen_ins(e, "sync    vpu");
                src = dst;
            } else if (t > 0) {
                uint64_t dst = t == n - 1 ? s->v_o + pos * s->chunk + (uint64_t)d * half : acc;
                vadd_code(e, cfg, acc, my, dst, half);
                kgen_ins(e, "sync    vpu");
                src = acc;
            }
            if (t + 1 < n) {
                kgen_ins(e, "li      s6, %" PRIu64, recv);
                kgen_ins(e, "li      s7, %" PRIu64, src);
                kgen_ins(e, "li      s8, %" PRIu64, hs);
                kgen_ins(e, "dma.ici %d, s6, s7, s8, %d, %d   # on %s, while the next piece is computed", port[d],
                         SEM_SENT, d ? SEM_ARR_D : SEM_ARR_U, way[d]);
            }
        }
    }
    if (s->part == KGEN_SHARD_COMPUTE) {
        kgen_ins(e, "halt");
        return;
    }
    kgen_ins(e, "sem.wait %d, %" PRIu64 "                 # every send has left", SEM_SENT, 2 * (n - 1));
    kgen_ins(e, "li      s2, %" PRIu64, s->h_o + off);
    kgen_ins(e, "li      s3, %u", pos);
    kgen_ins(e, "jmp     SHARD_GATHER");
}

long kgen_shard_emit(FILE *f, const char *config_name, const tpu_config *cfg, const kgen_shard *s)
{
    const kgen_plan *p1 = &s->l.g1, *p2 = &s->l.g2;
    kgen_emitter E = { f, 0, 0, p1, "" }, *e = &E;
    unsigned cores = s->rows * s->cols;
    kgen_shard_head(e, s, config_name, "ffn-shard", "kgen_shard.c", "");
    kgen_line(e, "#   the MLP T = %" PRIu64 ", D = %" PRIu64 ", F = %" PRIu64 " on %u cores: X[%s, D], W_in[D, %s], W_out[%s, D]",
              s->t, s->d, s->f, cores, s->bx && s->by ? "B_XY" : s->bx ? "B_X" : s->by ? "B_Y" : "B",
              s->fx ? "F_X" : s->fy ? "F_Y" : "F", s->fx ? "F_X" : s->fy ? "F_Y" : "F");
    kgen_line(e, "#   a core: T %" PRIu64 ", D %" PRIu64 ", F %" PRIu64 " (tpu-gen ffn's stages)%s", s->l.t, s->l.d, s->l.f,
              s->tp > 1 ? "; then the partials of O^T summed over the model axis" : "");
    if (s->part == KGEN_SHARD_COMPUTE)
        kgen_line(e, "#   --part compute: the stages only, no AllReduce (timing)");
    if (s->part == KGEN_SHARD_COMM)
        kgen_line(e, "#   --part comm: the AllReduce only (timing)");
    kgen_line(e, "#");
    kgen_line(e, "        .assert MXU_N == %" PRIu64 " && NUM_MXU >= %" PRIu64 " && VPU_SUBLANES * VPU_LANES == %" PRIu64
              ", \"generated for another machine: assemble with --config %s\"",
              p1->n_mxu, (uint64_t)cfg->num_mxu, s->l.v.e, config_name);
    kgen_shard_dispatch(e, s);
    for (unsigned c = 0; c < cores; c++) {
        unsigned di, mi;
        kgen_shard_place(s, c, &di, &mi);
        unsigned pos = mi;
        uint64_t off = (uint64_t)c * s->region;
        kgen_line(e, "");
        kgen_line(e, "# ================ core %u: tokens block %u, F block %u", c, di, mi);
        kgen_line(e, "CORE%u:", c);
        if (s->part != KGEN_SHARD_COMM) {
            kgen_plan q1 = *p1;
            kgen_nn_plan qv = s->l.v;
            q1.h_x += off, q1.h_w += off, q1.h_y += off;
            qv.h_x += off, qv.h_z += off;
            char lp1[32];
            snprintf(lp1, sizeof lp1, "C%uA1_", c);
            e->p = &q1;
            e->lp = lp1;
            kgen_line(e, "# ======== GEMM 1: H^T = W_in^T X^T");
            kgen_gemm_code(e, 0);
            kgen_line(e, "# ======== GELU on the VPU");
            kgen_nn_code(e, &qv);
        }
        if (s->overlap) {
            overlap_code(e, cfg, s, c, pos, off);
            continue;
        }
        if (s->part != KGEN_SHARD_COMM) {
            kgen_plan q2 = *p2;
            q2.h_x += off, q2.h_w += off, q2.h_y += off;
            char lp2[32];
            snprintf(lp2, sizeof lp2, "C%uA2_", c);
            e->p = &q2;
            e->lp = lp2;
            kgen_line(e, "# ======== GEMM 2: %s = W_out^T G^T", s->tp > 1 ? "the partial P^T" : "O^T");
            kgen_gemm_code(e, s->tp < 2 || s->part == KGEN_SHARD_COMPUTE);
        }
        if (s->tp > 1 && s->part != KGEN_SHARD_COMPUTE) {
            kgen_ins(e, "li      s1, %" PRIu64, p2->h_y + off);
            kgen_ins(e, "li      s2, %" PRIu64, s->h_o + off);
            kgen_ins(e, "li      s3, %u", pos);
            kgen_ins(e, "jmp     SHARD_SUM");
        }
    }
    if (s->overlap && s->part != KGEN_SHARD_COMPUTE) {
        kgen_line(e, "");
        kgen_line(e, "# ======== the AllGather of the summed chunks (programs/lib/ring.inc)");
        gather_code(e, cfg, s);
    } else if (s->tp > 1 && s->part != KGEN_SHARD_COMPUTE) {
        sum_code(e, cfg, s);
    }
    if (!s->timing_only) {
        uint64_t tl = s->l.t;
        kgen_line(e, "");
        kgen_line(e, "# ---- HBM: every core's block (each core uses its own; the image is the same for all)");
        for (unsigned c = 0; c < cores; c++) {
            unsigned di, mi;
            kgen_shard_place(s, c, &di, &mi);
            uint64_t off = (uint64_t)c * s->region;
            char l[6][32];
            const char *nm[6] = { "WIN", "XT", "H", "G", "WOUT", "P" };
            for (int i = 0; i < 6; i++)
                snprintf(l[i], sizeof l[i], "%s%u", nm[i], c);
            kgen_line(e, "");
            kgen_line(e, "        .hbm    %" PRIu64, p1->h_x + off);
            block(e, l[0], SEED_WIN, (uint64_t)mi * s->l.f, s->l.f, 1, 0, s->d, p1->kp, p1->o.m);
            kgen_line(e, "        .hbm    %" PRIu64, p1->h_w + off);
            block(e, l[1], SEED_X, 0, s->d, s->dp, di, tl, p1->np, p1->kp);
            kgen_line(e, "        .hbm    %" PRIu64, p1->h_y + off);
            kgen_line(e, "%s:      .zero   %" PRIu64 "                  # [%" PRIu64 "][%" PRIu64 "] fp32", l[2], p1->y_bytes,
                      p1->o.m, p1->np);
            kgen_line(e, "        .hbm    %" PRIu64, p2->h_w + off);
            kgen_line(e, "%s:      .zero   %" PRIu64 "                  # [%" PRIu64 "][%" PRIu64 "] bf16", l[3], p2->w_bytes,
                      p2->kp, p2->np);
            kgen_line(e, "        .hbm    %" PRIu64, p2->h_x + off);
            if (s->overlap)
                block_steps(e, l[4], s, mi, mi, p2->kp, p2->o.m);
            else
                block(e, l[4], SEED_WOUT, 0, s->d, s->tp, mi, s->l.f, p2->kp, p2->o.m);
            kgen_line(e, "        .hbm    %" PRIu64, p2->h_y + off);
            kgen_line(e, "%s:      .zero   %" PRIu64 "                  # [%" PRIu64 "][%" PRIu64 "] fp32%s", l[5], p2->y_bytes,
                      p2->o.m, p2->np, s->tp > 1 ? ": this core's partial" : "");
            if (s->tp > 1) {
                kgen_line(e, "        .hbm    %" PRIu64, s->h_o + off);
                kgen_line(e, "O%u:      .zero   %" PRIu64 "                  # [%" PRIu64 "][%" PRIu64 "] fp32: the sum", c,
                          s->d * tl * 4, s->d, tl);
                kgen_line(e, "        .array  O%u, f32, %" PRIu64 ", %" PRIu64, c, s->d, tl);
            } else {
                kgen_line(e, "        .array  P%u, f32, %" PRIu64 ", %" PRIu64, c, s->d, tl);
            }
            kgen_line(e, "        .expect matmul@%u %s, %s, %s, %" PRIu64 ", %" PRIu64 ", %" PRIu64, c, l[2], l[0], l[1],
                      p1->o.m, p1->kp, p1->np);
            kgen_line(e, "        .expect gelu@%u %s, %s, %" PRIu64 ", 12", c, l[3], l[2], s->l.v.o.n * s->l.v.o.c);
            kgen_line(e, "        .expect matmul_epi@%u %s, %s, %s, %s, %" PRIu64 ", %" PRIu64 ", %" PRIu64 ", 64", c, l[5],
                      l[4], l[3], l[5], p2->o.m, p2->kp, p2->np);
        }
    }
    fflush(f);
    return ferror(f) ? -1 : E.insns;
}

/* the partial of the F block mi for the token block 0, into y (D x tl) */
static int partial(const kgen_shard *s, unsigned mi, uint32_t *y, uint16_t *gfull, uint64_t gpitch_rows)
{
    const kgen_plan *p1 = &s->l.g1, *p2 = &s->l.g2;
    uint64_t tl = s->l.t, m1 = p1->o.m, kp1 = p1->kp, kp2 = p2->kp, D = s->d, fl = s->l.f;
    uint16_t *a1 = malloc(m1 * kp1 * 2), *b1 = malloc(kp1 * tl * 2), *a2 = malloc(D * kp2 * 2);
    uint16_t *zb = calloc(kp2 * tl, 2);
    uint32_t *y1 = malloc(m1 * tl * 4);
    int rc = -1;
    if (!a1 || !b1 || !a2 || !zb || !y1)
        goto out;
    block_data(a1, SEED_WIN, (uint64_t)mi * fl, fl, 1, 0, D, kp1, m1);
    block_data(b1, SEED_X, 0, D, s->dp, 0, tl, tl, kp1);
    block_data(a2, SEED_WOUT, 0, D, s->tp, mi, fl, kp2, D);
    if (tpu_ref_matmul(a1, b1, y1, m1, kp1, tl, (unsigned)p1->n_mxu) < 0)
        goto out;
    for (uint64_t i = 0; i < m1 * tl; i++)
        zb[i] = tpu_bf16_from_f32(tpu_nn_gelu(y1[i]));
    if (tpu_ref_matmul(a2, zb, y, D, kp2, tl, (unsigned)p2->n_mxu) < 0)
        goto out;
    if (gfull)
        memcpy(gfull + (uint64_t)mi * fl * tl, zb, fl * tl * 2);
    (void)gpitch_rows;
    rc = 0;
out:
    free(a1); free(b1); free(a2); free(zb); free(y1);
    return rc;
}

int kgen_shard_reference(const kgen_shard *s, uint32_t *o, uint64_t *differ, uint64_t *ulp)
{
    uint64_t tl = s->l.t, D = s->d, F = s->f, n = s->l.g2.n_mxu, cnt = D * tl, tp = s->tp;
    uint64_t fp = (F + n - 1) / n * n;
    uint32_t *pm = malloc(tp * cnt * 4), *o1 = malloc(cnt * 4);
    uint16_t *g = calloc(fp * tl, 2), *w = calloc(D * fp, 2);
    int rc = -1;
    *differ = *ulp = 0;
    if (!pm || !o1 || !g || !w)
        goto out;
    for (unsigned m = 0; m < tp; m++)
        if (partial(s, m, pm + m * cnt, g, fp))
            goto out;
    /* P_0 + P_1 + ... left to right, or ring_reducescatter's (and --overlap's) order: chunk c's
     * first half travels +1 from position c+1, its second half -1 from c-1, position c adds
     * last; --partials bf16: each sum rounded to bf16 before it travels, the last one too */
    kgen_allreduce_ref(s, pm, o, cnt);
    /* one chip: W_out^T [D][F] whole, K = F in one accumulation */
    for (uint64_t r = 0; r < D; r++)
        for (uint64_t c = 0; c < F; c++)
            w[r * fp + c] = (uint16_t)(tpu_fill_random_f32(SEED_WOUT + r * s->tp + c / s->l.f, c % s->l.f, LO_BITS,
                                                           HI_BITS, 1) >> 16);
    if (tpu_ref_matmul(w, g, o1, D, fp, tl, (unsigned)n) < 0)
        goto out;
    kgen_ulp_diff(o, o1, cnt, differ, ulp);
    rc = 0;
out:
    free(pm); free(o1); free(g); free(w);
    return rc;
}

/* the float64 sums of the second GEMM for core 0's tokens (D x tl) from the same bf16 data */
int kgen_shard_error64(const kgen_shard *s, const uint32_t *o, double *err, double *err_fp32, double *omax)
{
    uint64_t tl = s->l.t, D = s->d, F = s->f, cnt = D * tl, tp = s->tp, fl = s->l.f;
    uint64_t n = s->l.g2.n_mxu, fp = (F + n - 1) / n * n;
    uint32_t *pm = malloc(tp * cnt * 4);
    uint16_t *g = calloc(fp * tl, 2);
    double *x = calloc(cnt, sizeof *x), *row = malloc(F * sizeof *row);
    int rc = -1;
    *err = *err_fp32 = *omax = 0;
    if (!pm || !g || !x || !row)
        goto out;
    for (unsigned m = 0; m < tp; m++)
        if (partial(s, m, pm + m * cnt, g, fp))
            goto out;
    for (uint64_t r = 0; r < D; r++) {
        for (uint64_t c = 0; c < F; c++)
            row[c] = tpu_f32_to_float((uint32_t)(tpu_fill_random_f32(SEED_WOUT + r * tp + c / fl, c % fl, LO_BITS,
                                                                     HI_BITS, 1) >> 16) << 16);
        for (uint64_t c = 0; c < F; c++) {
            double w = row[c];
            const uint16_t *gr = g + c * tl;
            for (uint64_t t = 0; t < tl; t++)
                x[r * tl + t] += w * (double)tpu_f32_to_float((uint32_t)gr[t] << 16);
        }
    }
    /* the same order with fp32 partials */
    kgen_shard f32 = *s;
    f32.bf16 = 0;
    uint32_t *o32 = malloc(cnt * 4);
    uint64_t dif, ulp;
    if (!o32 || kgen_shard_reference(&f32, o32, &dif, &ulp)) {
        free(o32);
        goto out;
    }
    for (uint64_t i = 0; i < cnt; i++) {
        double a = fabs((double)tpu_f32_to_float(o[i]) - x[i]), b = fabs((double)tpu_f32_to_float(o32[i]) - x[i]);
        if (a > *err)
            *err = a;
        if (b > *err_fp32)
            *err_fp32 = b;
        if (fabs(x[i]) > *omax)
            *omax = fabs(x[i]);
    }
    free(o32);
    rc = 0;
out:
    free(pm); free(g); free(x); free(row);
    return rc;
}
