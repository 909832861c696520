/*
 * mxu.h - one weight-stationary N x N matrix unit (docs/timing.md T19-T26,
 * rtl/mxu.v and rtl/mxu_cell.v).
 *
 * The model is computed at the array's edges.  When LHS row b is read from
 * VMEM (cycle s + b) its whole result row is computed at once with
 * tpu_ref_row() against the weight tile the row carries; the row then waits
 * in a ring, indexed by its read cycle, until the cycle the array would
 * deliver it at the bottom (T24: written in s + b + 2N).  Every value still
 * enters and leaves at the cycle the cell-by-cell array would use, and the
 * ring keeps each in-flight row's activations and tile, so
 * tpu_mxu_cell_view() can show any cell's weight, shadow, load chain, activation and partial
 * sum for the current cycle.  Per cycle the work is one row kernel per MXU
 * (N*N multiply-adds) plus O(N) copies; nothing else grows with N*N.
 *
 * Weight tiles are N*N bf16 buffers shared by reference count: the tile an
 * mxu.lw fills, the tile the next stream swaps in, the tile every in-flight
 * row multiplies by, and the short histories of loads and swaps that tell
 * which tile a cell's shadow and active registers hold in a given cycle
 * (the swap reaches cell (k, c) k + c cycles after row 0 enters; a column's
 * shadow is replaced N + c cycles after its mxu.lw starts).
 */
#ifndef TPU_MXU_H
#define TPU_MXU_H

#include <stdint.h>

#include "events.h"
#include "queue.h"
#include "vmem.h"

#define TPU_MXU_MAX_TILES 16
#define TPU_MXU_HIST      8

/* Stall reasons (tpu_stall_reason_name). */
enum { TPU_MXU_STALL_CHAIN, TPU_MXU_STALL_STREAM, TPU_MXU_STALL_WEIGHTS, TPU_MXU_STALL_COUNT };

/* One LHS row in the array (or its de-skew buffer). */
typedef struct tpu_mxu_row {
    uint64_t read_at;       /* cycle its activations were read: s + b; UINT64_MAX = empty */
    uint64_t b;             /* its index in the stream */
    uint64_t dst;           /* VMEM address of its fp32 result */
    uint64_t pc, word;      /* the mxu.mm/mxu.mma it belongs to */
    uint64_t rows;          /* M of that stream */
    int      tile;          /* the weights it multiplies */
    uint8_t  mma;
    uint8_t  sem;           /* semaphore bumped when the stream's last row is written */
} tpu_mxu_row;

/* A point in time at which a tile reaches the array: for loads the start
 * cycle l of mxu.lw, for swaps the read cycle of row 0. */
typedef struct tpu_mxu_mark {
    uint64_t at;
    int tile;
} tpu_mxu_mark;

typedef struct tpu_mxu {
    unsigned id, n;
    tpu_queue q;

    uint16_t *tile[TPU_MXU_MAX_TILES];  /* tile 0: the zero weights after reset */
    int refs[TPU_MXU_MAX_TILES];

    /* load chain (T19, T20) */
    uint64_t lw_next;       /* earliest start of the next mxu.lw: l' + N */
    int      lw_reading;    /* rows still being read from VMEM */
    uint64_t lw_start, lw_addr;
    int64_t  lw_stride;
    int      lw_tile;
    uint8_t  lw_sem;        /* bumped after the last weight row is read */
    struct { uint64_t at, pc, word; } lw_done[4];   /* RETIRE events due (l + 2N - 1) */
    unsigned lw_ndone;

    /* weights for the next stream (T21) */
    int      pending;       /* an mxu.lw came after the last stream */
    int      pending_tile;
    uint64_t pending_l;
    int      active_tile;   /* what a stream without an mxu.lw before it uses */

    /* the stream being read (T22) */
    int      streaming;
    uint64_t s, m, src, dst;
    int64_t  sstride, dstride;
    int      s_tile, s_mma;
    uint8_t  s_sem;
    uint64_t s_pc, s_word;
    uint64_t stream_free;   /* s' + M': earliest start of the next stream */

    uint64_t busy_end;      /* T26: busy in cycles < busy_end (besides the queue) */

    /* rows in flight: ring of R >= 2N + 2 entries, slot = read cycle & mask */
    tpu_mxu_row *ring;
    uint16_t *ring_x;       /* R * N activations */
    uint32_t *ring_y;       /* R * N results (mma: already old + y) */
    uint64_t mask;

    /* histories for the views */
    tpu_mxu_mark loads[TPU_MXU_HIST];  unsigned nloads;  int base_shadow;
    tpu_mxu_mark swaps[TPU_MXU_HIST];  unsigned nswaps;  int base_active;

    /* wiring */
    tpu_vmem *vmem;
    tpu_sem_inc *sems;      /* completion semaphores (T20a, T24a) */
    const tpu_evsrc *ev;
    enum tpu_unit_id unit;

    /* statistics */
    uint64_t rows_streamed;
    int      oom;           /* out of tiles or host memory (an internal error) */
} tpu_mxu;

int  tpu_mxu_init(tpu_mxu *m, unsigned id, unsigned n, unsigned qdepth, tpu_vmem *vmem,
                  tpu_sem_inc *sems, const tpu_evsrc *ev);
void tpu_mxu_free(tpu_mxu *m);

/* One cycle.  Returns a stall reason or -1. */
int tpu_mxu_step(tpu_mxu *m, uint64_t t);

/* T26 at the start of cycle t. */
static inline int tpu_mxu_busy(const tpu_mxu *m, uint64_t t)
{
    return m->q.count != 0 || t < m->busy_end;
}

/* Cell (k, c) as it was in cycle t, the cycle the last step computed. */
void tpu_mxu_cell_view(const tpu_mxu *m, uint64_t t, unsigned k, unsigned c, tpu_cell_view *v);

#endif /* TPU_MXU_H */
