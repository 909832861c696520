/*
 * system_impl.h - the inside of a tpu_system, shared by system.c (creation,
 * loading, the serial cycle loop) and parallel.c (the same cycles on host
 * threads).  Nothing outside cmodel/ includes it.
 */
#ifndef TPU_SYSTEM_IMPL_H
#define TPU_SYSTEM_IMPL_H

#include "core.h"
#include "tpu.h"

struct tpu_pool;

struct tpu_system {
    tpu_config cfg;
    enum tpu_topology topo;
    unsigned ncores, rows, cols, depth;
    tpu_core **cores;
    tpu_link *links;        /* ncores * TPU_NUM_PORTS, link (c, p) at c * TPU_NUM_PORTS + p */
    uint64_t cycle;
    tpu_event_bus bus;
    enum tpu_stop state;
    char error[600];

    /* host threads (parallel.c) */
    unsigned threads;       /* tpu_system_set_threads; 0: the plain cycle loop */
    const tpu_object *obj;  /* the object last loaded: a parallel run that meets an
                             * error starts again from it, serially */
    int serial_only;        /* after such a restart */
    tpu_link *stage;        /* per link: what its sender sent in the current window */
    unsigned *owned, nowned;    /* the cores this process steps, in order */
    uint64_t last_arrive;   /* the latest landing cycle of anything sent so far */
    uint64_t windows;       /* windows run apart (tpu_system_windows) */
    struct tpu_pool *pool;
    tpu_partition part;     /* nparts 0: none (tpu_system_set_partition) */
};

/* system.c */
int tpu_system_links_empty(const tpu_system *s);
/* The core port p of core c is wired to, or -1. */
int tpu_system_neighbour(const tpu_system *s, unsigned c, unsigned p);
/* Tear the cores and links down and build them again from the config and
 * topology, then load s->obj: the system as tpu_system_load left it. */
int tpu_system_rebuild(tpu_system *s, char *err, size_t errlen);

/* parallel.c: run windows of ici_latency cycles on threads until halt,
 * max_cycles, or something only the serial loop can report exactly (an
 * error, a deadlock): then the system is rebuilt and runs serially.  The
 * result is the serial loop's, bit for bit. */
enum tpu_stop tpu_system_run_parallel(tpu_system *s, uint64_t max_cycles);
int tpu_system_parallel_ok(const tpu_system *s);
void tpu_pool_destroy(struct tpu_pool *p);

#endif
