/*
 * kgen_impl.h - what the kernel writers share (sim/kernels/ only): the
 * emitter (counted instructions, labels) and the GEMM code as a piece that
 * conv2d and chains place several times in one program.
 */
#ifndef TPU_KGEN_IMPL_H
#define TPU_KGEN_IMPL_H

#include <stdint.h>
#include <stdio.h>

#include "kgen.h"

typedef struct {
    FILE *f;
    long insns;
    unsigned label;
    const kgen_plan *p;
    const char *lp;              /* label prefix: "" for one GEMM, "G1_" ... in a chain */
} kgen_emitter;

void kgen_line(kgen_emitter *e, const char *fmt, ...);
void kgen_ins(kgen_emitter *e, const char *fmt, ...);
void kgen_li(kgen_emitter *e, const char *rd, uint64_t v);
void kgen_addi(kgen_emitter *e, const char *rd, const char *rs, int64_t v, const char *tmp);
unsigned kgen_new_label(kgen_emitter *e);
void kgen_put_label(kgen_emitter *e, unsigned l);

/* The GEMM's code for e->p from its first instruction to its end: `halt`
 * (last = 1), or (last = 0) wait until every semaphore is back to zero and
 * go on with the code written after it. */
void kgen_gemm_code(kgen_emitter *e, int last);

/* The header comment lines of a GEMM plan (the plan, the loops, registers). */
void kgen_gemm_plan_comment(kgen_emitter *e, const tpu_config *cfg, const kgen_cost *c);

#define KGEN_SEM_B 3             /* bias patterns landed */

#endif
