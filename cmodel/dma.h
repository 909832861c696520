/*
 * dma.h - the DMA engines: 2-D strided copies between HBM and VMEM
 * (docs/timing.md T13-T18, rtl/dma.v).
 *
 * Registers: the DMA queue, per engine its state (IDLE, WAIT, XFER), the
 * cycle its XFER begins, its copy cursor (row, column) and bytes left, and
 * one bandwidth accumulator `acc` for the HBM port, in 1/den bytes.  The
 * engines that are not IDLE are kept in start order (`order`), which is the
 * order they get HBM bytes and the order their writes land.
 */
#ifndef TPU_DMA_H
#define TPU_DMA_H

#include <stdint.h>

#include "events.h"
#include "hbm.h"
#include "queue.h"
#include "vmem.h"

#define TPU_DMA_MAX_ENGINES 16

enum tpu_dma_state { TPU_DMA_IDLE, TPU_DMA_WAIT, TPU_DMA_XFER };

/* Stall reasons (tpu_stall_reason_name). */
enum { TPU_DMA_STALL_ENGINES, TPU_DMA_STALL_VMEM, TPU_DMA_STALL_COUNT };

typedef struct tpu_dma_engine {
    uint8_t  state;         /* enum tpu_dma_state */
    uint8_t  to_vmem;       /* dma.h2v (else dma.v2h) */
    uint8_t  wide;          /* dma.h2v.i8: each HBM byte (int8) lands as 2 bytes (bf16) */
    uint8_t  sem;
    uint64_t xfer_at;       /* first cycle of XFER (start + L) */
    uint64_t src, dst;      /* first byte of row 0, source and destination */
    int64_t  sstride, dstride;
    uint64_t rows, rowbytes;
    uint64_t row, col;      /* next byte to move */
    uint64_t left, total;   /* bytes still to move, bytes in all */
    uint64_t pc, word;
    uint64_t issued;        /* its issue cycle, for TPU_EV_VMEM_ACCESS */
} tpu_dma_engine;

typedef struct tpu_dma {
    tpu_queue q;
    tpu_dma_engine eng[TPU_DMA_MAX_ENGINES];
    unsigned nengines;
    unsigned order[TPU_DMA_MAX_ENGINES];   /* engines not IDLE, oldest first */
    unsigned norder;
    uint64_t num, den;      /* HBM bytes per cycle = num / den */
    uint64_t latency;       /* L */
    uint64_t acc;           /* T15 accumulator, in 1/den bytes */
    /* wiring */
    tpu_vmem *vmem;
    tpu_hbm *hbm;
    tpu_sem_inc *sems;
    const tpu_evsrc *ev;
    /* statistics */
    uint64_t hbm_read_bytes, hbm_write_bytes;
} tpu_dma;

void tpu_dma_init(tpu_dma *d, unsigned engines, unsigned qdepth, uint64_t num, uint64_t den,
                  uint64_t latency, tpu_vmem *vmem, tpu_hbm *hbm, tpu_sem_inc *sems,
                  const tpu_evsrc *ev);

/* One cycle: start the queue head on an idle engine, count WAITs, move the
 * bytes the credit and the VMEM arbiter allow.  Returns a stall reason, or
 * -1 when the unit did not stall. */
int tpu_dma_step(tpu_dma *d, uint64_t t);

/* T7: work queued or in flight (from the registers only). */
static inline int tpu_dma_busy(const tpu_dma *d)
{
    return d->q.count != 0 || d->norder != 0;
}

#endif /* TPU_DMA_H */
