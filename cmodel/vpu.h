/*
 * vpu.h - the vector unit: S sublanes x L lanes of fp32, 32 registers
 * (docs/timing.md T27-T29, rtl/vpu.v).
 *
 * Registers: the VPU queue, the register file, per register the cycle from
 * which it may be read (`ready`), and a result pipeline of VL stages.  An
 * instruction issued in cycle t computes its result from registers that are
 * ready (so final) and puts it in stage t mod VL; the stage is written into
 * the register file at the end of cycle t + VL - 1, and the register is
 * ready from t + VL (T27).  vld reads VMEM and vst writes it in the issue
 * cycle (T28); their bytes come from the arbiter all or nothing (T12).
 *
 * The transcendentals (vexp, vrcp, vrsqrt; T27a) go first through a
 * pipeline of their own, TPU_TR_STEPS stages (rtl/fp32_tr.v): one issued
 * in cycle t sits in `tr` slot t mod TPU_TR_STEPS until cycle
 * t + TPU_TR_STEPS, when it enters the result pipeline as if it issued
 * then (no other instruction that writes a register issues in that
 * cycle).  The C model computes its values at issue; the RTL one step a
 * stage; the registers that decide timing are the same.
 */
#ifndef TPU_VPU_H
#define TPU_VPU_H

#include <stdint.h>

#include "events.h"
#include "fp.h"                 /* TPU_TR_STEPS */
#include "queue.h"
#include "vmem.h"

#define TPU_VPU_MAX_LATENCY 64

/* Stall reasons (tpu_stall_reason_name). */
enum { TPU_VPU_STALL_HAZARD, TPU_VPU_STALL_VMEM, TPU_VPU_STALL_COUNT };

typedef struct tpu_vpu_stage {
    uint64_t due;           /* cycle at whose end the result lands; UINT64_MAX: empty */
    unsigned reg;
    uint64_t pc, word;
} tpu_vpu_stage;

typedef struct tpu_vpu {
    tpu_queue q;
    unsigned elems;         /* S * L */
    uint64_t vl;
    uint32_t *regs;         /* 32 * elems, fp32 bits */
    uint64_t ready[TPU_NUM_VREGS];
    uint32_t *stage_data;   /* vl * elems */
    tpu_vpu_stage stage[TPU_VPU_MAX_LATENCY];
    uint32_t xlu_mask;      /* T35: registers an XLU instruction queued or running names
                               (the XLU's registers at the start of the cycle, set by the core) */
    uint64_t busy_end;      /* T29: a result is on its way in cycles < busy_end */
    tpu_vpu_stage tr[TPU_TR_STEPS];  /* T27a: `due` is the cycle it leaves (issue + TPU_TR_STEPS) */
    uint32_t *tr_data;      /* TPU_TR_STEPS * elems */
    unsigned tr_count;      /* slots in use */
    /* wiring */
    tpu_vmem *vmem;
    const tpu_evsrc *ev;
    /* statistics */
    uint64_t ops;           /* instructions issued */
    uint64_t flops;         /* elements of arithmetic instructions */
} tpu_vpu;

int  tpu_vpu_init(tpu_vpu *v, unsigned sublanes, unsigned lanes, uint64_t latency,
                  unsigned qdepth, tpu_vmem *vmem, const tpu_evsrc *ev);
void tpu_vpu_free(tpu_vpu *v);

/* Issue the queue head if it can; returns a stall reason or -1. */
int tpu_vpu_step(tpu_vpu *v, uint64_t t);
/* End of cycle t: the result due now lands in its register. */
void tpu_vpu_commit(tpu_vpu *v, uint64_t t);

static inline int tpu_vpu_busy(const tpu_vpu *v, uint64_t t)
{
    return v->q.count != 0 || t < v->busy_end;
}

#endif /* TPU_VPU_H */
