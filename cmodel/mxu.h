/*
 * mxu.h - one weight-stationary N x N matrix unit (docs/timing.md T19-T26,
 * rtl/mxu.v and rtl/mxu_cell.v).
 *
 * The model is computed at the array's edges.  LHS row b is read from VMEM
 * in cycle s + b and waits in a ring, indexed by its read cycle, until the
 * array would deliver it at the bottom (T24: written in s + b + 2N); its
 * whole result row is computed at once with tpu_ref_row() one cycle before
 * that, against the weight tile the row carries (the tile of the stream's
 * swap).  Computing it late matters: a stream may start one cycle after its
 * mxu.lw (T21), while that load is still reading the tile from VMEM; every
 * weight reaches its cell's shadow before the swap gets there, so the late
 * result is what the cell-by-cell array computes.  (For speed, the rows
 * read after it that are already in the ring with the same tile get their
 * products computed with it, up to MXU_BATCH rows at once: a product
 * depends only on the row's activations, read already, and on the tile,
 * complete by then; mxu.mma still reads and adds the old output row in its
 * own cycle.)  Every value still
 * enters and leaves at the cycle the array would use, and the ring keeps
 * each in-flight row's activations and tile, so tpu_mxu_cell_view() can
 * show any cell's weight, shadow, weight in transit, activation and partial
 * sum for the current cycle.  Per cycle the work is one row kernel per MXU
 * (N*N multiply-adds) plus O(N*W) copies (W = mxu_wloads weight rows).
 *
 * Weight loads (T19, T20): up to W mxu.lws read at once, each one row per
 * cycle, top row first, into a tile of its own: a later DMA that overwrites
 * the tile in VMEM, or a later load, never changes it.  Weight row i of a
 * load started in l enters the array in l + i + 1 and moves right one
 * column per cycle: cell (i, c)'s shadow is written at the end of
 * l + i + 1 + c, a diagonal wavefront.
 *
 * Weight tiles are N*N bf16 buffers shared by reference count: the tile
 * each load fills, the tile the next stream swaps in, the tile every
 * in-flight row multiplies by, and the short histories of loads and swaps
 * that tell which tile a cell's shadow and active registers hold in a given
 * cycle (the swap reaches cell (k, c) k + c + 1 cycles after row 0 is read;
 * a load writes cell (k, c)'s shadow k + c + 1 cycles after it starts).
 */
#ifndef TPU_MXU_H
#define TPU_MXU_H

#include <stdint.h>

#include "events.h"
#include "queue.h"
#include "ref.h"
#include "vmem.h"

#define TPU_MXU_MAX_W 256     /* mxu_wloads at most (config.def) */

/* Stall reasons (tpu_stall_reason_name). */
enum { TPU_MXU_STALL_LOADS, TPU_MXU_STALL_STREAM, TPU_MXU_STALL_COUNT };

/* One LHS row in the array (or its de-skew buffer). */
typedef struct tpu_mxu_row {
    uint64_t read_at;       /* cycle its activations were read: s + b; UINT64_MAX = empty */
    uint64_t b;             /* its index in the stream */
    uint64_t dst;           /* VMEM address of its fp32 result */
    uint64_t pc, word;      /* the mxu.mm/mxu.mma it belongs to */
    uint64_t issued;        /* its issue cycle (TPU_EV_VMEM_ACCESS) */
    uint64_t rows;          /* M of that stream */
    int      tile;          /* the weights it multiplies */
    uint8_t  mma;
    uint8_t  i8;            /* int8 mode: int8 pairs, int32 results (numerics.md section 9) */
    uint8_t  sem;           /* semaphore bumped when the stream's last row is written */
    uint8_t  has_y;         /* its product is in ring_y already (computed with an older row's) */
} tpu_mxu_row;

/* A swap: the read cycle of row 0 of a stream that swapped in a tile. */
typedef struct tpu_mxu_mark {
    uint64_t at;
    int tile;
} tpu_mxu_mark;

/* An mxu.lw from its start until its wavefront has left the array
 * (cycles l .. l + 2N - 1). */
typedef struct tpu_mxu_load {
    uint64_t at;            /* start cycle l: reads row i in l + i (T20) */
    uint64_t addr;          /* weight row 0 in VMEM */
    int64_t  stride;
    uint64_t pc, word;      /* the mxu.lw: RETIRE at l + 2N - 1 */
    uint64_t issued;        /* its issue cycle (TPU_EV_VMEM_ACCESS) */
    int      tile;          /* its own tile, filled row by row as it reads */
    unsigned slot;          /* load slot: the lowest free one, as rtl/mxu.v numbers them */
    uint8_t  sem;           /* bumped after the last row is read (T20a) */
} tpu_mxu_load;

typedef struct tpu_mxu {
    unsigned id, n, w;      /* w: loads in flight at most (mxu_wloads) */
    tpu_queue q;

    uint16_t **tile;        /* tile 0: the zero weights after reset */
    int *refs;
    tpu_ref_tile *scan;     /* each tile's exponent windows (ref.h), for the row kernel */
    uint8_t *scanned;       /* scan[i] is up to date: cleared when tile i is written */
    unsigned ntiles;        /* grows as needed (bounded by about 4W + 8) */

    /* weight loads (T19, T20): oldest first, kept until l + 2N <= t;
     * the newest dropped one's tile is in every shadow register */
    tpu_mxu_load *loads;
    unsigned nloads, maxloads;
    int      base_shadow;

    /* weights for the next stream (T21) */
    int      pending;       /* an mxu.lw came after the last stream */
    int      pending_tile;
    int      active_tile;   /* what a stream without an mxu.lw before it uses */

    /* the stream being read (T22) */
    int      streaming;
    uint64_t s, m, src, dst;
    int64_t  sstride, dstride;
    int      s_tile, s_mma, s_i8;
    uint8_t  s_sem;
    uint64_t s_pc, s_word, s_issued;
    uint64_t stream_free;   /* s' + M': earliest start of the next stream */

    uint64_t busy_end;      /* T26: busy in cycles < busy_end (besides the queue) */

    /* rows in flight: ring of R >= 2N + 2 entries, slot = read cycle & mask */
    tpu_mxu_row *ring;
    uint16_t *ring_x;       /* R * N activations */
    uint32_t *ring_y;       /* YR * N results (mma: old + y), computed in s + b + 2N - 1
                             * (the product part possibly earlier, see finish_row) */
    uint64_t mask;
    uint64_t ymask;         /* YR - 1: ring_y is indexed by read cycle & ymask (mxu.c) */

    /* swaps for the views, kept until every cell has seen them */
    tpu_mxu_mark *swaps;
    unsigned nswaps, maxswaps;
    int      base_active;

    /* wiring */
    tpu_vmem *vmem;
    tpu_sem_inc *sems;      /* completion semaphores (T20a, T24a) */
    const tpu_evsrc *ev;
    enum tpu_unit_id unit;

    /* statistics */
    uint64_t rows_streamed;
    uint64_t rows_i8;       /* of them, in int8 mode (2N x N MACs each) */
    int      oom;           /* out of host memory (an internal error) */
} tpu_mxu;

/* An MXU of n x n cells with up to w weight loads in flight (1 <= w <= n). */
int  tpu_mxu_init(tpu_mxu *m, unsigned id, unsigned n, unsigned w, unsigned qdepth,
                  tpu_vmem *vmem, tpu_sem_inc *sems, const tpu_evsrc *ev);
void tpu_mxu_free(tpu_mxu *m);

/* One cycle.  Returns a stall reason or -1. */
int tpu_mxu_step(tpu_mxu *m, uint64_t t);

/* T26 at the start of cycle t. */
static inline int tpu_mxu_busy(const tpu_mxu *m, uint64_t t)
{
    return m->q.count != 0 || t < m->busy_end;
}

/* Load slots reading a weight row in cycle t, as the RTL's lw_reading_q
 * shows them at the start of t: bit j for slot j (j < 64), set while a load
 * reads its rows 1 .. N-1 (not in its start cycle). */
uint64_t tpu_mxu_lw_reading(const tpu_mxu *m, uint64_t t);

/* Cell (k, c) as it was in cycle t, the cycle the last step computed. */
void tpu_mxu_cell_view(const tpu_mxu *m, uint64_t t, unsigned k, unsigned c, tpu_cell_view *v);

#endif /* TPU_MXU_H */
