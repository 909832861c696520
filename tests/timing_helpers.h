/*
 * timing_helpers.h - what the tests/test_timing_*.c files share: the
 * harness of model_helpers.h, plus a few programs' building blocks.
 *
 * Programs are built with tpu_encode (no assembler).  Unless a test says
 * otherwise the machine is the `tiny` preset: N = 8, one MXU, HBM 16
 * bytes/cycle with L = 20, two DMA engines, queues of Q = 4, VL = 2, W = 1,
 * vmem_bw = 512, ICI 4 bytes/cycle with 10 cycles per hop (model_helpers.h
 * pins these).  Cycle numbers come from the event stream (TPU_EV_ISSUE of
 * a pc, TPU_EV_SEM, ...).
 */
#ifndef TPU_TIMING_HELPERS_H
#define TPU_TIMING_HELPERS_H

#include "model_helpers.h"
#include "probe.h"
#include "ref.h"

/* li s<r>, v for a list of (register, value) pairs; returns nothing. */
static inline void set_regs(harness *h, const int64_t *rv, unsigned n)
{
    for (unsigned i = 0; i < n; i += 2)
        I(h, "li", rv[i], rv[i + 1]);
}
#define REGS(h, ...) set_regs((h), OPS(__VA_ARGS__), NOPS(__VA_ARGS__))

/* A 1-row, `bytes`-byte dma.h2v from HBM 0 to VMEM `vdst` on semaphore sem,
 * using s20..s23 as scratch.  Returns its pc. */
static inline uint64_t dma_h2v(harness *h, int64_t vdst, int64_t hsrc, int64_t bytes, int64_t sem)
{
    REGS(h, 20, vdst, 21, hsrc, 22, 1, 23, bytes);
    return I(h, "dma.h2v", 20, 21, 22, 23, 0, 0, sem);
}

#endif /* TPU_TIMING_HELPERS_H */
