/*
 * xlu.h - the cross-lane unit: reductions across lanes and sublanes, lane
 * and sublane rotates and block transposes of the VPU's vector registers
 * (docs/timing.md section 5a, T33-T36; numerics.md section 13; rtl/xlu.v).
 *
 * Registers (those of rtl/xlu.v): the XLU queue, `running` with the
 * instruction's opcode and registers, the work register `work` (S x L
 * fp32) and the counts of lanes and sublanes still to reduce (`nl`, `ns`).
 * The XLU runs one instruction at a time.  In its start cycle s it reads
 * its source register (rotated or transposed, for those) into `work`; in
 * each following cycle it does one level of a pairwise tree, first across
 * lanes while nl > 1, then across sublanes while ns > 1; in the cycle
 * after the last level it writes the result (broadcast along what was
 * reduced) into the VPU's register file, at the end of that cycle.
 *
 * The VPU's register hazards (T35): an XLU instruction is dispatched only
 * when the VPU is idle (seq.c), and a VPU instruction does not issue while
 * it names a register that an XLU instruction queued or running names
 * (tpu_xlu_vmask), so the two units never touch one register out of
 * program order.
 */
#ifndef TPU_XLU_H
#define TPU_XLU_H

#include <stdint.h>

#include "events.h"
#include "queue.h"
#include "vpu.h"

/* Stall reasons (tpu_stall_reason_name). */
enum { TPU_XLU_STALL_BUSY, TPU_XLU_STALL_COUNT };

typedef struct tpu_xlu {
    tpu_queue q;
    unsigned S, L;
    int      running;       /* an instruction is in flight */
    int      wb;            /* its result is written at the end of this cycle */
    uint8_t  op;            /* enum tpu_opcode */
    unsigned rd, ra;
    uint64_t pc, word;
    unsigned nl, ns;        /* lanes, sublanes still to reduce */
    uint32_t *work;         /* S * L fp32 bits, row-major [s][l] */
    uint32_t *out;          /* the broadcast result of the write-back cycle */
    /* wiring */
    tpu_vpu *vpu;           /* the register file */
    const tpu_evsrc *ev;
    /* statistics */
    uint64_t ops;           /* instructions started */
} tpu_xlu;

int  tpu_xlu_init(tpu_xlu *x, unsigned sublanes, unsigned lanes, unsigned qdepth, tpu_vpu *vpu,
                  const tpu_evsrc *ev);
void tpu_xlu_free(tpu_xlu *x);

/* Cycle t: a tree level, the write-back, or a start; returns a stall
 * reason or -1. */
int  tpu_xlu_step(tpu_xlu *x, uint64_t t);
/* End of cycle t: the result of the write-back cycle lands in its register. */
void tpu_xlu_commit(tpu_xlu *x, uint64_t t);

/* T35: the vector registers named by an XLU instruction queued or running. */
uint32_t tpu_xlu_vmask(const tpu_xlu *x);

static inline int tpu_xlu_busy(const tpu_xlu *x)
{
    return x->q.count != 0 || x->running;
}

#endif /* TPU_XLU_H */
