/*
 * collectives.h - the inside of tpu-collectives (sim/tpu_collectives.c):
 * the collectives and topologies it knows, its options, the model of each
 * program's cost, running one point, and the CSV/summary/gnuplot output.
 *
 *   coll_args.c     the command line (--help, the lists, the sizes)
 *   coll_model.c    which collective runs where, the cost model, VMEM per point
 *   coll_run.c      the programs: finding them, running one point
 *   coll_output.c   the fit, the CSV, the summary and the gnuplot script
 *   coll_matmul2.c  --matmul-2chip
 */
#ifndef TPU_COLLECTIVES_H
#define TPU_COLLECTIVES_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "tpu.h"

enum { EXIT_FAIL = 1, EXIT_USAGE = 2, EXIT_FILES = 3 };
enum { AG, RS, AR, AA, AGW, AGB, RSB, ARB, NCOLL };
extern const char *const coll_name[NCOLL];
extern const char *const coll_title[NCOLL];
extern const char *const coll_prog[NCOLL];

#define MAX_TOPOS 16
#define MAX_POINTS 2048

typedef struct topo {
    char name[32];          /* ring8, torus4x4, mesh4x4, torus3d4x4x4 */
    enum tpu_topology kind;
    unsigned rows, cols;    /* a ring: 1 x n; torus3d: cols = X, rows = Y */
    unsigned depth;         /* torus3d: Z; 1 otherwise */
} topo;

typedef struct point {
    int coll, topo;
    uint64_t shard;         /* bytes each core brings (AG) or ends with (RS, AR) */
    uint64_t cycles;
    double bw, lat;         /* the model's bandwidth and latency terms, cycles */
    double link_bytes;      /* bytes the busiest link direction carries */
    unsigned hops;
    int ok;
} point;

typedef struct options {
    const char *config, *out, *img, *programs;
    const char *sets[256];
    unsigned nsets;
    topo topos[MAX_TOPOS];
    unsigned ntopos;
    int colls[NCOLL];
    uint64_t min_bytes, max_bytes;
    int plot, quiet;
    unsigned axes;                  /* --axes: a torus3d's collectives over its first 1..3 axes */
    int once;                       /* --at-once: a torus3d's three axes at once (torus3d.s -D ONCE=1) */
    int matmul2;                    /* --matmul-2chip */
    uint64_t mm_b, mm_f;
    uint64_t mm_d[32];
    unsigned mm_nd;
} options;

typedef struct program {
    char path[1100];
    char *src;
    size_t len;
} program;

/* coll_args.c */
void coll_usage(FILE *f);
int coll_bad_usage(const char *fmt, const char *arg);
int coll_parse_args(int argc, char **argv, options *o);

/* coll_model.c */
/* a both-axes collective's one axis after the other (its plot shows both), or -1 */
int coll_one_axis_of(int coll);
int coll_runs_on(int coll, const topo *t);
/* once: a torus3d's three axes at once (lib/torus3d_once.inc), else one
 * after the other */
void coll_model(const topo *t, int coll, uint64_t s, double w, double lat, unsigned axes,
                int once, point *p);
uint64_t coll_vmem_need(const topo *t, int coll, uint64_t s, unsigned axes, int once);
/* the smallest size a collective's program takes, and the unit of its
 * sizes (the sweep doubles it up to --min-bytes, then takes every fourth) */
uint64_t coll_first_size(const topo *t, int coll, uint64_t vb, int once);
/* the cores of one collective: all of them, or a torus3d's group of its
 * first `axes` axes */
unsigned coll_group(const topo *t, unsigned axes);
/* The book's time of a collective over the axes of a torus3d at once
 * (../shared/reference/tpu-facts.md, "Collective costs"), in cycles:
 * max(hop x sum(X_i)/2, V / (W x axes)), W the bidirectional link
 * bandwidth, V the bytes of the whole array; AllReduce twice that.  0 for
 * other topologies. */
double coll_book_cycles(const topo *t, int coll, uint64_t s, unsigned axes, double w,
                        double lat);

/* coll_run.c */
int coll_load_program(const options *o, const char *argv0, const char *name, program *p);
int coll_run_point(const options *o, const tpu_config *cfg, const program *prog, point *p,
              char *err, size_t errlen);
int coll_run_gnuplot(const char *script);

/* coll_output.c */
int coll_write_outputs(const options *o, const tpu_config *cfg, const point *pts, size_t np,
                  int interrupted, char *paths, size_t pathlen);

/* coll_matmul2.c */
int coll_matmul_2chip(const options *o, const tpu_config *cfg, const char *argv0);

#endif
