/*
 * queue.h - the per-unit instruction queues between the sequencer and the
 * units (docs/timing.md T4).
 *
 * The sequencer reads an instruction's register operands when it issues it
 * and pushes the values, not the register numbers: a tpu_qentry is what
 * travels down the queue wire.  Each queue is a ring of at most
 * TPU_QUEUE_MAX entries whose depth (Q = seq_queue_depth) is fixed at
 * creation.  The RTL has the same thing: a FIFO of Q entries with head and
 * count registers.
 */
#ifndef TPU_QUEUE_H
#define TPU_QUEUE_H

#include <stdint.h>

#include "cmutant.h"
#include "isa.h"

#define TPU_QUEUE_MAX 64   /* the largest seq_queue_depth config.def allows */

/* One dispatched instruction: where it came from and its operand values in
 * assembly order (register operands already replaced by their contents). */
typedef struct tpu_qentry {
    uint64_t pc;
    uint64_t word;
    uint64_t issued;                /* the cycle it issued: names it in events (an
                                     * observation: the RTL's queue has no such field) */
    uint8_t  op;                    /* enum tpu_opcode */
    int64_t  v[TPU_MAX_OPERANDS];
} tpu_qentry;

typedef struct tpu_queue {
    tpu_qentry e[TPU_QUEUE_MAX];
    unsigned head, count, depth;
} tpu_queue;

static inline void tpu_queue_init(tpu_queue *q, unsigned depth)
{
    q->head = q->count = 0;
    q->depth = depth > TPU_QUEUE_MAX ? TPU_QUEUE_MAX : (depth ? depth : 1);
}

static inline int tpu_queue_empty(const tpu_queue *q) { return q->count == 0; }
static inline int tpu_queue_full(const tpu_queue *q)
{
    return CMUTANT(106, q->count >= q->depth, q->count > q->depth);
}
static inline const tpu_qentry *tpu_queue_head(const tpu_queue *q) { return &q->e[q->head]; }

static inline void tpu_queue_pop(tpu_queue *q)
{
    if (q->count) {
        q->head = (q->head + 1) % TPU_QUEUE_MAX;
        q->count--;
    }
}

/* The caller checked that the queue is not full. */
static inline void tpu_queue_push(tpu_queue *q, const tpu_qentry *in)
{
    if (q->count < q->depth) {
        q->e[(q->head + q->count) % TPU_QUEUE_MAX] = *in;
        q->count++;
    }
}

/* Semaphore increments of one cycle (T9): units add here, the core adds
 * them to the sequencer's semaphores when the cycle commits. */
typedef struct tpu_sem_inc {
    uint32_t inc[TPU_NUM_SEMS];
    int dirty;
} tpu_sem_inc;

static inline void tpu_sem_bump(tpu_sem_inc *s, unsigned sem)
{
    s->inc[sem % TPU_NUM_SEMS]++;
    s->dirty = 1;
}

#endif /* TPU_QUEUE_H */
