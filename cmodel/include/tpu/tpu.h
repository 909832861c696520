/*
 * tpu.h - the C model's public API.
 *
 * A tpu_system is k cores (k = 1 for a single core) stepping together on one
 * clock.  Create it from a tpu_config, load an object file into every core,
 * then step it cycle by cycle or run it to halt.  Everything a front end needs
 * (tpu-sim's report, the stepper, the timeline, the co-simulation) comes from
 * the read-only views and the event stream declared here.  No globals: any
 * number of systems may live in one process.
 */
#ifndef TPU_TPU_H
#define TPU_TPU_H

#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "expect.h"
#include "objfile.h"

typedef struct tpu_system tpu_system;
typedef struct tpu_core tpu_core;

enum tpu_topology { TPU_TOPO_SINGLE, TPU_TOPO_RING, TPU_TOPO_TORUS2D, TPU_TOPO_MESH2D,
                    TPU_TOPO_TORUS3D };

typedef struct tpu_system_opts {
    unsigned cores;             /* 1 by default (0 means 1) */
    enum tpu_topology topology; /* ring: cores in a ring; torus2d/mesh2d: rows x cols;
                                 * torus3d: cols (X) x rows (Y) x depth (Z) */
    unsigned rows, cols;        /* for torus2d/mesh2d (mesh2d = no wraparound), torus3d */
    unsigned depth;             /* torus3d only: Z, the planes of rows x cols */
} tpu_system_opts;

/* Why a run stopped. */
enum tpu_stop {
    TPU_RUNNING = 0,
    TPU_STOP_HALT,          /* every core executed halt */
    TPU_STOP_ERROR,         /* a run-time error: see tpu_system_error() */
    TPU_STOP_CYCLE_LIMIT,   /* max_cycles reached */
    TPU_STOP_BREAK,         /* a subscriber asked to stop (the stepper) */
};

/* ---- life cycle -------------------------------------------------------- */
/* Returns NULL and a message in err when the config or options are invalid. */
tpu_system *tpu_system_create(const tpu_config *cfg, const tpu_system_opts *opts,
                              char *err, size_t errlen);
void tpu_system_destroy(tpu_system *s);

/* Load the object into every core (instructions, data, symbols).  Checks
 * that it fits the config (CONFIG record, memory sizes).  -1 + message. */
int tpu_system_load(tpu_system *s, const tpu_object *obj, char *err, size_t errlen);

/* ---- running ----------------------------------------------------------- */
/* One clock cycle of every core.  Returns the stop state after the cycle. */
enum tpu_stop tpu_system_step(tpu_system *s);
/* Step until halt, error, a break request or max_cycles (0 = no limit). */
enum tpu_stop tpu_system_run(tpu_system *s, uint64_t max_cycles);
/* Run the cores on up to n host threads (0: none of this, the plain loop).  The cores interact
 * only through ICI links that take at least ici_latency cycles, so they can
 * run apart for windows of that many cycles (conservative parallel
 * simulation, docs/collectives.md): the results are the one-thread results
 * bit for bit.  Used by tpu_system_run when the system has several cores,
 * no event subscribers (the stepper, timelines and traces run on one
 * thread) and a loaded object: a run that meets a run-time error or a
 * deadlock starts again from it on one thread, so that the error is the
 * one-thread error exactly.  The object must outlive the runs. */
void tpu_system_set_threads(tpu_system *s, unsigned n);
/* How many windows the cores have run apart so far (0: only the plain
 * loop ran): for tests and tools that must know the threads were used. */
uint64_t tpu_system_windows(const tpu_system *s);

/* Several processes (MPI ranks, sim/mpi/) each step a part of the cores
 * and exchange the link traffic of every window.  Every process creates
 * the whole system and loads the object (only into the cores it owns), and
 * calls tpu_system_run the same way; then a core's counters and memories
 * are right only in the process that owns it.  A run that fails restarts
 * on one thread in every process, which then all hold the whole system. */
typedef struct tpu_partition {
    unsigned nparts, self;      /* this process is part `self` of nparts */
    const unsigned *owner;      /* ncores entries: the part that steps core c */
    /* Send out[p] (outlen[p] bytes) to every part p, receive in[p] from it
     * (malloc'ed by the callee, freed by the caller); 0 or -1. */
    int (*exchange)(void *ctx, void *const *out, const size_t *outlen, void **in, size_t *inlen);
    /* v[i] = the largest v[i] of all the parts, in place; 0 or -1. */
    int (*max_u64)(void *ctx, uint64_t *v, unsigned n);
    void *ctx;
} tpu_partition;
/* One direction of one ICI link, as the stepper shows it (`show links`). */
typedef struct tpu_link_view {
    int to;                 /* the core port p of core c leads to, -1: not connected */
    unsigned to_port;       /* where it arrives there: p ^ 1 */
    uint64_t bytes;         /* bytes on the wire: left, not yet written at the far end */
    uint64_t chunks;        /* pieces of transfers among them */
    uint64_t next_arrive;   /* the cycle the first of them lands (0 if none) */
    int sending;            /* core c has a transfer on this port */
    uint64_t send_bytes, send_left;  /* its size, and the bytes that have not left */
} tpu_link_view;
/* Link (c, p); -1 when c or p is out of range. */
int tpu_system_link_view(const tpu_system *s, unsigned c, unsigned p, tpu_link_view *v);

/* p is copied (owner is not: it must outlive the system); NULL: no parts. */
void tpu_system_set_partition(tpu_system *s, const tpu_partition *p);
/* Whether this process steps core c (always, without a partition or after
 * a restart on one thread). */
int tpu_system_owns(const tpu_system *s, unsigned c);
uint64_t tpu_system_cycle(const tpu_system *s);
/* The run-time error as one line: "core 0: cycle 123: pc 7 (mxu.mm 0, s1,
 * s2, s3, s4, s5): VMEM address 0x40000 out of range (VMEM is 0x40000
 * bytes)", or "" when there is none. */
const char *tpu_system_error(const tpu_system *s);

unsigned tpu_system_ncores(const tpu_system *s);
tpu_core *tpu_system_core(tpu_system *s, unsigned i);
const tpu_config *tpu_system_config(const tpu_system *s);

/* After the run: check the object's .expect records against every core's
 * memories (expect.h), the one way every front end checks a result.  The
 * SystemC host checks through its bus instead (sim/systemc/tpu_host.cpp). */
void tpu_system_check(tpu_system *s, const tpu_object *obj, tpu_expect_result *res);
/* The same through `read` (NULL: the backdoor of this process's cores): a
 * front end whose cores live in other processes reads them its own way
 * (tpu-sim-mpi, sim/mpi/sim_mpi.c). */
void tpu_system_check_via(tpu_system *s, const tpu_object *obj, tpu_expect_read_fn read,
                          void *ctx, tpu_expect_result *res);

/* ---- backdoor memory access (no timing, no events) --------------------- */
/* Return -1 when the range is outside the memory. */
int tpu_mem_read(tpu_core *c, enum tpu_space space, uint64_t addr, void *dst, size_t n);
int tpu_mem_write(tpu_core *c, enum tpu_space space, uint64_t addr, const void *src, size_t n);

/* ---- direct memory access (SystemC TLM DMI) ----------------------------- */
/* HBM is stored in lazily allocated pages of this many bytes. */
uint64_t tpu_mem_hbm_page_bytes(void);
/* A pointer to byte `addr` of `space` and how many bytes from *base on may
 * be accessed through it in place (*len), or NULL when the memory is not
 * one array there:
 *   IMEM  the whole instruction memory (words little-endian); do not write
 *         through it (the decode cache would not see it: use tpu_mem_write);
 *   VMEM  the whole VMEM;
 *   HBM   the page holding addr if it has been written, else NULL.
 * *base is the address of the first byte the range covers.  Writes through
 * the pointer bypass timing and events, as tpu_mem_write does. */
uint8_t *tpu_mem_ptr(tpu_core *c, enum tpu_space space, uint64_t addr, uint64_t *base,
                     uint64_t *len);
/* The address of the first allocated HBM page at or after `from`, or
 * UINT64_MAX when there is none (copying a core's HBM costs what it uses). */
uint64_t tpu_mem_hbm_next_page(const tpu_core *c, uint64_t from);

/* ---- state views ------------------------------------------------------- */
enum tpu_unit_id {          /* units of one core, for stats and events */
    TPU_U_SEQ, TPU_U_DMA, TPU_U_MXU0, TPU_U_MXU1, TPU_U_MXU2, TPU_U_MXU3, TPU_U_VPU,
    TPU_U_ICI, TPU_U_XLU, TPU_U_COUNT
};
const char *tpu_unit_id_name(enum tpu_unit_id u);   /* "seq", "dma", "mxu0", ... */

typedef struct tpu_seq_view {
    uint64_t pc;
    int64_t  sreg[32];
    uint32_t sem[32];
    int      halted;
    const char *stall;      /* why the instruction at pc did not issue this cycle, or NULL */
} tpu_seq_view;
void tpu_core_seq_view(const tpu_core *c, tpu_seq_view *v);

/* One MXU cell in the current cycle (after the last step). */
typedef struct tpu_cell_view {
    uint16_t weight;        /* active weight (bf16 bits) */
    uint16_t shadow;        /* shadow weight */
    int      loading;       /* a weight reaches the cell in this cycle (T20: cycle l + k + 1 + c
                               of an mxu.lw started in l); its shadow takes it at the end */
    uint16_t chain;         /* that weight in transit (bf16), when loading; else 0 */
    int      active;        /* a multiply-add happened in this cell this cycle */
    int64_t  row;           /* the LHS row index in its stream, when active */
    uint16_t x;             /* activation that passed through (bf16), when active */
    uint32_t psum;          /* partial sum it produced (fp32), when active */
    int      i8;            /* that row is int8 mode: x, the weights and psum hold two int8,
                               two int8 and an int32 (numerics.md section 9) */
} tpu_cell_view;
int tpu_core_mxu_cell(const tpu_core *c, unsigned mxu, unsigned k, unsigned col,
                      tpu_cell_view *v);

/* Vector register r as S x Lanes fp32 bits (row-major); -1 if r is bad. */
int tpu_core_vreg(const tpu_core *c, unsigned r, uint32_t *dst);

/* ---- statistics --------------------------------------------------------- */
typedef struct tpu_unit_stats {
    uint64_t busy_cycles;   /* cycles with work in flight */
    uint64_t stall_cycles;  /* cycles it wanted to progress but could not */
    uint64_t stall_by_reason[8];
} tpu_unit_stats;

typedef struct tpu_stats {
    uint64_t cycles;
    uint64_t instructions;  /* issued */
    uint64_t flops;         /* MXU: 2*N*N per streamed row (int8: 4*N*N OPs); plus the VPU's */
    uint64_t macs;          /* MXU multiply-adds, bf16 and int8 (an int8 row: 2*N*N) */
    uint64_t int8_macs;     /* of them, int8 (counted in flops as 2 OPs each) */
    uint64_t vpu_flops;     /* one per element of a VPU arithmetic instruction */
    uint64_t hbm_read_bytes, hbm_write_bytes;   /* by DMA */
    uint64_t vmem_read_bytes, vmem_write_bytes;
    uint64_t ici_bytes;     /* sent */
    uint64_t ici_port_bytes[6];             /* sent on each port (TPU_NUM_PORTS) */
    tpu_unit_stats unit[TPU_U_COUNT];
} tpu_stats;
/* Reason names for stall_by_reason[i] of a unit ("queue full", ...; NULL past the end). */
const char *tpu_stall_reason_name(enum tpu_unit_id u, unsigned i);
void tpu_core_stats(const tpu_core *c, tpu_stats *st);

/* ---- events ------------------------------------------------------------ */
enum tpu_event_kind {
    TPU_EV_ISSUE,       /* an instruction issued: pc, word */
    TPU_EV_RETIRE,      /* a unit finished an instruction: pc, unit */
    TPU_EV_STALL,       /* a unit stalled: unit, reason */
    TPU_EV_BUSY,        /* a unit became busy */
    TPU_EV_IDLE,        /* a unit became idle */
    TPU_EV_MEM_WRITE,   /* space, addr, len, data */
    TPU_EV_SEM,         /* sem index, new value */
    TPU_EV_DMA_DONE,    /* engine, bytes */
    TPU_EV_ICI_SEND,    /* port, bytes */
    TPU_EV_ICI_RECV,    /* port, bytes */
    TPU_EV_MXU_TILE_START, TPU_EV_MXU_TILE_END, /* unit = mxu, rows */
    TPU_EV_MXU_ROW_OUT, /* a result row written: addr, len (fp32 data) */
    TPU_EV_HALT,
    TPU_EV_ERROR,
    TPU_EV_VMEM_ACCESS, /* a unit reads or writes VMEM in this cycle: unit, pc, word, issued,
                           addr, len, index TPU_ACCESS_* (below; docs/tpu-sim.md, races) */
    TPU_EV_XLU_WRITE,   /* the XLU writes a vector register: index = register, len, data
                           (S x L fp32), pc, word */
    TPU_EV_KIND_COUNT
};

/* TPU_EV_VMEM_ACCESS, for checkers that follow who touches which bytes
 * (sim/view/races.c).  It is sent while the unit computes the cycle, before
 * any write of the cycle lands (a read sees the memory as it was at the
 * start of the cycle, T12a), once per contiguous piece: an MXU row, a
 * weight row, an mma's old row, a VPU vld/vst, a DMA segment (a part of a
 * row), an ICI chunk.  `issued` is the cycle the instruction issued: with
 * the core it names one execution of pc.  An incoming ICI write (a chunk
 * landing from a neighbour) has pc = word = 0, issued = UINT64_MAX and
 * value = the port it arrives on.  Nothing is sent without a subscriber. */
enum { TPU_ACCESS_READ = 0, TPU_ACCESS_WRITE = 1 };

typedef struct tpu_event {
    enum tpu_event_kind kind;
    uint64_t cycle;
    unsigned core;
    enum tpu_unit_id unit;
    uint64_t pc;            /* instruction concerned, when there is one */
    uint64_t word;          /* its encoding */
    uint8_t  space;         /* MEM_WRITE, MXU_ROW_OUT */
    uint64_t addr, len;     /* MEM_WRITE, MXU_ROW_OUT; DMA/ICI bytes in len */
    const uint8_t *data;    /* MEM_WRITE/MXU_ROW_OUT data (valid during the callback) */
    uint32_t index, value;  /* SEM: index, new value; STALL: reason index; DMA: engine; ICI: port */
    const char *text;       /* STALL reason, ERROR message */
    uint64_t issued;        /* ISSUE, VMEM_ACCESS: the cycle the instruction issued */
    const int64_t *ops;     /* ISSUE of a DMA, ICI, MXU or VPU instruction: the operand values
                               it takes to its unit, in assembly order (TPU_MAX_OPERANDS of
                               isa.h; registers replaced by their contents), valid during the
                               callback; NULL for the sequencer's own instructions */
} tpu_event;

/* The callback may call tpu_system_request_break() to stop tpu_system_run
 * after the current cycle.  Memory-write events are only produced when a
 * subscriber asked for them (they cost time). */
typedef void (*tpu_event_fn)(void *ctx, const tpu_event *ev);
int tpu_system_subscribe(tpu_system *s, uint32_t kind_mask, tpu_event_fn fn, void *ctx);
void tpu_system_request_break(tpu_system *s);

#endif /* TPU_TPU_H */
