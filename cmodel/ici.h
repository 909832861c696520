/*
 * ici.h - the inter-chip interconnect: four ports per core, each the end
 * of two links (one per direction) to a neighbour core (docs/timing.md
 * T30-T31, rtl/ici.v).
 *
 * A tpu_link is one direction of one wire: the bytes that left the sender
 * and have not yet been written into the receiver's VMEM, each chunk tagged
 * with the cycle it lands (cycle it left + ici_latency).  The system owns
 * the links; a core's ICI unit sends on its ports' outgoing links and
 * receives from their incoming links.  Because a hop takes at least one
 * cycle, a receiver only ever looks at chunks made in earlier cycles, so the
 * cores of a system can be stepped in any order.
 */
#ifndef TPU_ICI_H
#define TPU_ICI_H

#include <stddef.h>
#include <stdint.h>

#include "events.h"
#include "queue.h"
#include "vmem.h"

/* Stall reasons (tpu_stall_reason_name). */
enum { TPU_ICI_STALL_LINK, TPU_ICI_STALL_VMEM, TPU_ICI_STALL_COUNT };

typedef struct tpu_link_chunk {
    uint64_t arrive;        /* cycle in which it is written into the receiver's VMEM */
    uint64_t addr, len;     /* receiver VMEM address, bytes (0: an empty transfer's marker) */
    size_t   off;           /* its bytes in the link's byte FIFO */
    int      rsem;          /* >= 0 on the last chunk of a transfer: bump it on arrival */
    uint64_t total;         /* bytes of the whole transfer (for the RECV event) */
} tpu_link_chunk;

typedef struct tpu_link {
    tpu_link_chunk *c;      /* FIFO of chunks: c[head .. head + n) */
    size_t head, n, cap;
    uint8_t *buf;           /* FIFO of bytes: buf[bhead .. bhead + blen) */
    size_t bhead, blen, bcap;
    int oom;
} tpu_link;

void tpu_link_free(tpu_link *l);
/* Move src's chunks, in order, behind dst's (the parallel runner's
 * staging, parallel.c); the latest landing cycle moved, or -1 (out of memory). */
int64_t tpu_link_append(tpu_link *dst, tpu_link *src);
static inline int tpu_link_empty(const tpu_link *l) { return l->n == 0; }

typedef struct tpu_ici_port {
    tpu_link *out, *in;     /* NULL when the port is not connected */
    int      sending;
    uint64_t rdst, src, bytes, sent;
    uint8_t  lsem, rsem;
    uint64_t acc;           /* link credit, in 1/den bytes (as T15) */
    uint64_t pc, word;
    uint64_t issued;        /* the dma.ici's issue cycle (TPU_EV_VMEM_ACCESS) */
} tpu_ici_port;

typedef struct tpu_ici {
    tpu_queue q;
    tpu_ici_port port[TPU_NUM_PORTS];
    unsigned nsending;      /* ports with a transfer (the busy register) */
    unsigned nin;           /* ports with an incoming link */
    uint64_t num, den, latency;
    /* wiring */
    tpu_vmem *vmem;
    tpu_sem_inc *sems;
    const tpu_evsrc *ev;
    /* statistics */
    uint64_t bytes_sent, bytes_received;
    uint64_t port_bytes[TPU_NUM_PORTS];     /* sent, per port */
} tpu_ici;

void tpu_ici_init(tpu_ici *x, unsigned qdepth, uint64_t num, uint64_t den, uint64_t latency,
                  tpu_vmem *vmem, tpu_sem_inc *sems, const tpu_evsrc *ev);

/* Class 1 of the arbiter: write what lands in cycle t (T31). */
void tpu_ici_receive(tpu_ici *x, uint64_t t);
/* Start the queue head, send bytes (class 5, T30).  Returns a stall reason
 * or -1. */
int tpu_ici_send(tpu_ici *x, uint64_t t);

/* T7 for `sync ici`: queued, or bytes still to leave (bytes on the wire do
 * not count: they are the receiver's). */
static inline int tpu_ici_busy(const tpu_ici *x)
{
    return x->q.count != 0 || x->nsending != 0;
}

/* 1 when port p has a neighbour. */
static inline int tpu_ici_connected(const tpu_ici *x, unsigned p)
{
    return p < TPU_NUM_PORTS && x->port[p].out != NULL;
}

#endif /* TPU_ICI_H */
