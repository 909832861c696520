/*
 * seq.h - the sequencer: fetches, decodes and issues at most one
 * instruction per cycle, runs the scalar ALU, branches and the semaphores,
 * and dispatches the other units' instructions into their queues
 * (docs/timing.md T1-T10, rtl/seq.v).
 *
 * Registers: pc, sreg[32], sem[32], halted.  The sequencer does not see the
 * units themselves: the core hands it, in a tpu_seq_env, the register
 * values it may look at in this cycle (which units are idle, the queues'
 * fill levels) and the memory sizes for the address checks of T5.  What it
 * wants to push is staged in push_q/push_e and pushed when the cycle
 * commits, so a unit sees its new entry in the next cycle (T4).
 */
#ifndef TPU_SEQ_H
#define TPU_SEQ_H

#include <stdint.h>

#include "events.h"
#include "isa.h"
#include "queue.h"

/* Stall reasons (tpu_stall_reason_name). */
enum { TPU_SEQ_STALL_QUEUE, TPU_SEQ_STALL_SEM, TPU_SEQ_STALL_SYNC, TPU_SEQ_STALL_HALT,
       TPU_SEQ_STALL_VPU, TPU_SEQ_STALL_COUNT };

/* What the sequencer may look at in this cycle. */
typedef struct tpu_seq_env {
    uint64_t t;
    uint32_t idle;          /* TPU_UNITS_* bits of idle units (T7); absent MXUs are idle */
    tpu_queue *q_dma, *q_ici, *q_vpu, *q_xlu, *q_mxu[TPU_MAX_MXUS];
    int vpu_idle;           /* the VPU alone is idle (T35: an XLU instruction waits for it) */
    unsigned num_mxu, mxu_n;
    uint64_t vmem_bytes, hbm_bytes;
    uint64_t vpu_elems;     /* S * Lanes */
    uint32_t ports;         /* bit p: ICI port p has a neighbour */
    unsigned mxu_int8;      /* config mxu_int8: 0 bf16 only, 1 bf16 and int8, 2 int8 only */
} tpu_seq_env;

/* One decoded IMEM word (the decode cache). */
typedef struct tpu_dcode {
    tpu_insn in;
    const char *why;        /* illegal: the decoder's reason */
    uint8_t state;          /* 0 not decoded yet, 1 legal, 2 illegal */
} tpu_dcode;

#define TPU_DCODE_BLOCK 256

typedef struct tpu_seq {
    uint64_t pc;
    int64_t  sreg[TPU_NUM_SREGS];   /* sreg[0] stays 0, sreg[31] holds the core id */
    uint32_t sem[TPU_NUM_SEMS];
    int      halted;

    uint64_t *imem;
    uint64_t imem_words;
    tpu_dcode **dblocks;    /* lazily decoded IMEM, TPU_DCODE_BLOCK words per block */
    uint64_t ndblocks;

    /* this cycle's outcome */
    int      issued;
    int      stall;         /* reason, or -1 */
    char     stall_text[64];
    const char *stall_fmt, *stall_arg;  /* what stall_text was made from */
    int      stall_num;
    int      waiting_sem;   /* stalled on sem.wait (for deadlock detection) */
    unsigned wait_sem;      /* ... on this semaphore */
    uint32_t wait_count;    /* ... needing this count */
    uint32_t sem_dec[TPU_NUM_SEMS];
    int      sem_dec_dirty;
    tpu_queue *push_q;      /* staged dispatch, or NULL */
    tpu_qentry push_e;
    enum tpu_unit_id push_unit;
    /* T5b: per MXU, the mode of the last mxu.lw / mxu.lw.i8 issued to it
     * (1 = int8; 0 = bf16, also after reset): the weights its next stream uses */
    uint8_t  w_i8[TPU_MAX_MXUS];

    /* a run-time error stops the core: reason and the instruction at pc */
    int      error;
    char     errmsg[256];
    char     errinsn[96];

    const tpu_evsrc *ev;
    uint64_t instructions;  /* issued */
} tpu_seq;

int  tpu_seq_init(tpu_seq *s, uint64_t imem_words, unsigned core_id, const tpu_evsrc *ev);
void tpu_seq_free(tpu_seq *s);
/* IMEM words [first, first + n) changed: forget their decoding. */
void tpu_seq_invalidate(tpu_seq *s, uint64_t first, uint64_t n);

/* Cycle env->t: issue the instruction at pc or stall; may set an error. */
void tpu_seq_step(tpu_seq *s, const tpu_seq_env *env);

/* End of cycle: the staged dispatch enters its queue (T4: visible next
 * cycle), and the semaphores take this cycle's sem.signal/sem.wait
 * decrements and the units' completion increments `sems` (T6, T9; 32 bits,
 * wrapping), which are then cleared.  A TPU_EV_SEM event per semaphore that
 * changed. */
void tpu_seq_commit(tpu_seq *s, tpu_sem_inc *sems);

/* Format the instruction at pc as "mxu.mm 0, s1, ..." (or ".insn 0x..."). */
void tpu_seq_insn_text(tpu_seq *s, uint64_t pc, char *buf, size_t len);

#endif /* TPU_SEQ_H */
