/*
 * coll_model.c - which collective runs on which topology, and what each
 * should cost (collectives.h, docs/collectives.md).
 */
#include "collectives.h"

const char *const coll_name[NCOLL] = { "allgather", "reducescatter", "allreduce",
                                              "alltoall", "allgather-whole", "allgather-both",
                                              "reducescatter-both", "allreduce-both" };
const char *const coll_title[NCOLL] = { "AllGather", "ReduceScatter", "AllReduce",
                                               "AllToAll",
                                               "AllGather, whole shards half way round",
                                               "AllGather, both torus axes at once",
                                               "ReduceScatter, both torus axes at once",
                                               "AllReduce, both torus axes at once" };
/* the program each runs (allgather-whole: allgather.s -D WHOLE=1; the
 * -both ones: -D BOTH=1) */
const char *const coll_prog[NCOLL] = { "allgather", "reducescatter", "allreduce",
                                              "alltoall", "allgather", "allgather",
                                              "reducescatter", "allreduce" };
int coll_one_axis_of(int coll)
{
    return coll == AGB ? AG : coll == RSB ? RS : coll == ARB ? AR : -1;
}

/* Which collectives run on which topologies: all of them everywhere but
 * the whole-shard AllGather on a mesh (it needs wraparound), and the
 * both-axes ones only on a torus of at least 2 x 2.  (AllToAll on a
 * mesh: mesh_alltoall, alltoall.s -D WRAP=0.) */
int coll_runs_on(int coll, const topo *t)
{
    if (t->kind == TPU_TOPO_TORUS3D)        /* programs/torus3d.s */
        return coll == AG || coll == RS || coll == AR;
    if (coll_one_axis_of(coll) >= 0)
        return t->kind == TPU_TOPO_TORUS2D && t->rows >= 2 && t->cols >= 2;
    return coll != AGW || t->kind != TPU_TOPO_MESH2D;
}

/* ---- the model --------------------------------------------------------------------------- */

/* The programs' costs (docs/collectives.md): axis by axis, a ring of n
 * moves (n - 1) slots, half each way with wraparound, whole slots both ways
 * without; AllGather goes along the row first (slots of S bytes, then
 * blocks of C*S on the columns), ReduceScatter the other way round
 * (blocks of R*S on the rows, then S); AllReduce is both.  AllToAll: on
 * a ring of n a link carries D (D+1)/2 chunks, D = n/2, over D hops; on a
 * torus the rows move super-chunks of R chunks, the columns blocks of C,
 * and the barrier between is one more hop.  On a mesh (mesh_alltoall) the
 * time follows a chain of whole bundles rather than the busiest link: the
 * bundle core 0 starts has n - 1 units, the next hop forwards n - 2, ...:
 * n (n-1)/2 units per axis over n - 1 hops, which the model counts as its
 * bytes (the middle link itself carries only n/2 x (n - n/2) units).  Both axes at once (AGB): a
 * quarter of every shard per link; phase 0 puts C - 1 quarters on a row
 * link and R - 1 on a column link, phase 1 (C - 1) R and (R - 1) C, and
 * each phase takes as long as its busier axis, over max(R, C) - 1 hops.
 * ReduceScatter on both axes (RSB) is the same backwards (phase 0 the long
 * slots, phase 1 the short ones: the same quarters of a chunk); AllReduce
 * (ARB) is both, four phases. */
unsigned coll_group(const topo *t, unsigned axes)
{
    if (t->kind != TPU_TOPO_TORUS3D)
        return t->rows * t->cols;
    return axes >= 3 ? t->cols * t->rows * t->depth : axes == 2 ? t->cols * t->rows : t->cols;
}

/* A torus3d (programs/torus3d.s, lib/torus3d.inc): one axis after the other,
 * each a ring with wraparound on its two links.  AllGather runs z, y, x
 * with slots of s, then Z*s, then Y*Z*s bytes (over the first `axes` axes
 * only: the axes it skips count as 1); a link of axis i carries (n_i - 1)
 * halves of its slot.  ReduceScatter the same blocks the other way round,
 * AllReduce both.  The ring_barrier between axes is not counted. */
static void model3d(const topo *t, int coll, uint64_t s, double w, double lat, unsigned axes,
                    point *p)
{
    unsigned d[3] = { t->cols, axes >= 2 ? t->rows : 1, axes >= 3 ? t->depth : 1 };
    double bytes = 0, slot = (double)s;
    unsigned hops = 0;
    for (int i = 2; i >= 0; i--) {
        bytes += (d[i] - 1) * slot / 2;
        hops += d[i] - 1;
        slot *= d[i];
    }
    int twice = coll == AR;
    p->hops = (twice ? 2 : 1) * hops;
    p->link_bytes = (twice ? 2 : 1) * bytes;
    p->bw = p->link_bytes / w;
    p->lat = p->hops * lat;
}

double coll_book_cycles(const topo *t, int coll, uint64_t s, unsigned axes, double w,
                        double lat)
{
    if (t->kind != TPU_TOPO_TORUS3D || (coll != AG && coll != RS && coll != AR))
        return 0;
    unsigned d[3] = { t->cols, t->rows, t->depth }, n = 0, sum = 0;
    for (unsigned i = 0; i < 3 && i < axes; i++)
        if (d[i] > 1)
            n++, sum += d[i];
    if (!n)
        return 0;
    double v = (double)coll_group(t, axes) * (double)s;    /* the whole array */
    double bw = v / (2 * w * n), hop = lat * sum / 2;
    return (coll == AR ? 2 : 1) * (bw > hop ? bw : hop);
}

/* A torus3d's three axes at once (lib/torus3d_once.inc): a shard (chunk) in
 * six parts; in phase p = 0, 1, 2 the stream of axis d carries part d - p
 * over n_d - 1 steps of 1, n_(d-1), n_(d-1) n_(d+1) sixths (AllGather; the
 * ReduceScatter the other way round: n_(d-1) n_(d+1), n_(d+1), 1), and a
 * phase takes as long as its busiest stream, over max(n) - 1 hops. */
/* the sixths of a shard (chunk) the busiest link of each phase carries,
 * summed over the phases: AllGather (rs = 0) or ReduceScatter (rs = 1) */
static double once_sixths(const unsigned n[3], int rs)
{
    double sum = 0;
    for (int ph = 0; ph < 3; ph++) {
        double most = 0;
        for (int d = 0; d < 3; d++) {
            double before = n[(d + 2) % 3], after = n[(d + 1) % 3];
            double segs = !rs ? (ph == 0 ? 1 : ph == 1 ? before : before * after)
                              : (ph == 0 ? before * after : ph == 1 ? after : 1);
            double c = (n[d] - 1) * segs;
            most = c > most ? c : most;
        }
        sum += most;
    }
    return sum;
}

/* A torus3d's three axes at once (lib/torus3d_once.inc): a shard (chunk) in
 * six parts; in phase p = 0, 1, 2 the stream of axis d carries part d - p
 * over n_d - 1 steps of 1, n_(d-1), n_(d-1) n_(d+1) sixths (AllGather; the
 * ReduceScatter n_(d-1) n_(d+1), n_(d+1), 1), and a phase takes as long as
 * its busiest stream, over max(n) - 1 hops.  AllReduce is both. */
static void model3d_once(const topo *t, int coll, uint64_t s, double w, double lat, point *p)
{
    unsigned n[3] = { t->cols, t->rows, t->depth }, m = 0;
    for (int d = 0; d < 3; d++)
        m = n[d] > m ? n[d] : m;
    double sixths = (coll != AG ? once_sixths(n, 1) : 0) + (coll != RS ? once_sixths(n, 0) : 0);
    p->hops = (coll == AR ? 6 : 3) * (m - 1);
    p->link_bytes = sixths * (double)s / 6;
    p->bw = p->link_bytes / w;
    p->lat = p->hops * lat;
}

void coll_model(const topo *t, int coll, uint64_t s, double w, double lat, unsigned axes,
                int once, point *p)
{
    if (t->kind == TPU_TOPO_TORUS3D) {
        if (once)
            model3d_once(t, coll, s, w, lat, p);
        else
            model3d(t, coll, s, w, lat, axes, p);
        return;
    }
    if (coll == AA && t->kind == TPU_TOPO_MESH2D) {
        unsigned r = t->rows, c = t->cols;
        p->hops = (c - 1) + (r - 1) + (r > 1);
        p->link_bytes = ((double)c * (c - 1) / 2 * r + (double)r * (r - 1) / 2 * c) * (double)s;
        p->bw = p->link_bytes / w;
        p->lat = p->hops * lat;
        return;
    }
    if (coll == AA) {
        unsigned r = t->rows, c = t->cols, dc = c / 2, dr = r / 2;
        p->hops = dc + dr + (r > 1);
        p->link_bytes = ((double)dc * (dc + 1) / 2 * r + (double)dr * (dr + 1) / 2 * c) * (double)s;
        p->bw = p->link_bytes / w;
        p->lat = p->hops * lat;
        return;
    }
    if (coll == AGB || coll == RSB || coll == ARB) {
        unsigned r = t->rows, c = t->cols, h = (r > c ? r : c) - 1;
        double p0 = c > r ? c - 1.0 : r - 1.0;
        double p1 = (double)(c - 1) * r > (double)(r - 1) * c ? (double)(c - 1) * r
                                                              : (double)(r - 1) * c;
        p->hops = (coll == ARB ? 4 : 2) * h;
        p->link_bytes = (coll == ARB ? 2 : 1) * (p0 + p1) * (double)s / 4;
        p->bw = p->link_bytes / w;
        p->lat = p->hops * lat;
        return;
    }
    if (coll == AGW) {      /* whole slots, n/2 of them per link and n/2 hops, axis by axis */
        unsigned r = t->rows, c = t->cols;
        p->hops = c / 2 + r / 2;
        p->link_bytes = ((double)(c / 2) + (double)(r / 2) * c) * (double)s;
        p->bw = p->link_bytes / w;
        p->lat = p->hops * lat;
        return;
    }
    double wrap = t->kind == TPU_TOPO_MESH2D ? 1.0 : 2.0;
    unsigned r = t->rows, c = t->cols;
    double ag_link = ((c - 1) * (double)s + (r - 1) * (double)c * s) / wrap;
    double rs_link = ((c - 1) * (double)r * s + (r - 1) * (double)s) / wrap;
    p->hops = (r - 1) + (c - 1);
    p->link_bytes = coll == AG ? ag_link : coll == RS ? rs_link : ag_link + rs_link;
    p->bw = p->link_bytes / w;
    p->lat = (coll == AR ? 2.0 : 1.0) * p->hops * lat;
    if (coll == AR)
        p->hops *= 2;
}

/* the forward areas on an axis of n, in chunks (lib/ring.inc): ring_alltoall's
 * with wraparound, mesh_alltoall's (2 pos (n-1-pos), the middle core's) without */
static uint64_t a2a_work(uint64_t n, int mesh)
{
    if (mesh) {
        uint64_t x = n ? (n - 1) / 2 : 0;
        return n ? 2 * x * (n - 1 - x) : 0;
    }
    uint64_t d = n / 2, e = n - 1 - d;
    return d * (d - (d > 0)) / 2 + e * (e - (e > 0)) / 2;
}

/* VMEM the program needs for shard s (DATA=0), as its .asserts say. */
uint64_t coll_first_size(const topo *t, int coll, uint64_t vb, int once)
{
    if (once && t->kind == TPU_TOPO_TORUS3D)   /* torus3d.s -D ONCE=1: 24 bytes, 6 vregs */
        return coll == AG ? 384 : 6 * vb;
    return coll == AG || coll == AGW || coll == AGB ? 256 : coll == AA ? vb
         : coll == RSB || coll == ARB ? 4 * vb : 2 * vb;
}

uint64_t coll_vmem_need(const topo *t, int coll, uint64_t s, unsigned axes, int once)
{
    if (t->kind == TPU_TOPO_TORUS3D && once) {     /* torus3d.s -D ONCE=1, DATA=0 */
        uint64_t n[3] = { t->cols, t->rows, t->depth }, g = n[0] * n[1] * n[2], w = 0;
        for (int d = 0; d < 3; d++)
            w += (n[d] > 1 ? n[d] - 1 : 1) * (g / n[d] + n[(d + 1) % 3] + 1);
        if (coll == AG)
            return g * s;
        return g * s + (coll == RS ? s : g * s) + w * s / 3 + 64 + 8192;
    }
    if (t->kind == TPU_TOPO_TORUS3D) {      /* torus3d.s's .asserts, DATA=0 */
        uint64_t g = coll_group(t, axes), x = t->cols, z = axes >= 3 ? t->depth : 1;
        uint64_t mid = axes >= 3 ? (g / x + z) * s : axes == 2 ? g / x * s : 0;
        if (coll == AG)
            return g * s;
        return g * s + (coll == RS ? s : g * s) + mid + 4 * g / x * s + 64 + 8192;
    }
    uint64_t k = (uint64_t)t->rows * t->cols, r = t->rows, c = t->cols;
    int mesh = t->kind == TPU_TOPO_MESH2D;
    uint64_t wrow = (mesh ? c + 1 : 4) * r * s, wcol = (mesh ? r + 1 : 4) * s;
    uint64_t work = wrow > wcol ? wrow : wcol;         /* the reductions' scratch */
    uint64_t m = r > c ? r : c;                        /* torus.inc's, after OUT or RES */
    uint64_t twork = m ? (m - 1) * (r + c + 2) * s / 2 : 0;
    switch (coll) {
    case AG:
    case AGW:
    case AGB: return k * s;
    case RS: return k * s + r * s + work + s;
    case RSB: return k * s + twork;
    case ARB: return 2 * k * s + twork;
    case AA: {
        uint64_t wa = a2a_work(c, mesh) * r, wb = a2a_work(r, mesh) * c;
        return (k + k * (r > 1 ? 3 : 1) + (wa > wb ? wa : wb) + 1) * s;
    }
    default: return 2 * k * s + r * s + work;
    }
}
