/*
 * net.h - tpu-net: whole networks from SCALE-Sim topology files, one
 * generated GEMM program per layer (docs/workloads.md, "Networks").
 *
 *   net_topo.c    the topology reader: SCALE-Sim's conv and GEMM CSVs
 *   net_run.c     one layer: plan and program (sim/kernels/kgen.h),
 *                 assemble, run on the C model, check bit for bit
 *   net_pool.c    the layers (of every design) in child processes
 *   net_report.c  per-layer CSV and JSON, the summary, the timeline
 *   net_plot.c    the gnuplot scripts: roofline and sweep
 *   net_sweep.c   co-design sweeps: designs, area (lab 7), Pareto front
 *
 * Nothing here prints to stdout except the summary; messages go to stderr
 * as "tpu-net: ...".
 */
#ifndef TPU_NET_H
#define TPU_NET_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "config.h"
#include "kgen.h"
#include "tpu.h"

#define NET_TOOL "tpu-net"
#define NET_MAX_NAME 64
#define NET_MAX_SIZE (1ull << 24)   /* the largest size a topology may give */
#define NET_WINDOW 1024             /* cycles per sample of the HBM traffic (peak bandwidth) */

/* ---- the topology (net_topo.c) ------------------------------------------------------ */

enum net_format { NET_CONV, NET_GEMM };

typedef struct net_layer {
    char name[NET_MAX_NAME];
    unsigned line;               /* in the topology file */
    int conv;                    /* a conv row (else a GEMM row) */
    /* conv: as the file gives them (IFMAP padded: SCALE-Sim's convention) */
    uint64_t ih, iw, fh, fw, c, f, sh, sw, groups;
    uint64_t oh, ow;             /* (ih - fh) / sh + 1, (iw - fw) / sw + 1 */
    /* the GEMM run for it, per group: Y[m, n] = X[m, k] . W[k, n] */
    uint64_t m, n, k, g;         /* g groups of that GEMM, one after another */
    uint64_t batch;              /* images (conv) */
} net_layer;

typedef struct net_topo {
    const char *path;
    char name[NET_MAX_NAME];     /* the file's base name without .csv */
    enum net_format format;
    int has_groups, has_stride_w;
    net_layer *layer;
    size_t n;
} net_topo;

/* Read a topology file.  0, or -1 with one message "FILE:LINE:COL: error:
 * ..." in err (the column named, what was expected). */
int net_topo_read(const char *path, net_topo *t, char *err, size_t errlen);
/* The GEMM of each layer for a batch: conv M = OH x OW x batch; a GEMM
 * file's M as given (batch must be 1 there: -1 and a message). */
int net_topo_shapes(net_topo *t, uint64_t batch, char *err, size_t errlen);
void net_topo_free(net_topo *t);

/* ---- one layer (net_run.c) ---------------------------------------------------------- */

enum net_status { NET_NOT_RUN = 0, NET_OK, NET_FAILED, NET_INTERRUPTED };

/* How a layer becomes a program. */
enum net_engine {
    NET_ENG_GEMM,                /* a GEMM row: kgen_gemm_plan */
    NET_ENG_CONV_MXU,            /* a conv row: kgen_conv_plan_make, im2col built in VMEM */
    NET_ENG_CONV_VPU,            /* a depthwise conv row: kgen_conv_plan_make on the VPU */
    NET_ENG_IM2COL               /* a conv row as its im2col GEMM (the matrix in HBM), one
                                  * group's program, its run counted `groups` times */
};
const char *net_engine_name(enum net_engine e);

/* A layer's plan: what the generator makes of it on a machine. */
typedef struct net_plan {
    int ok;                      /* 0: err says why no plan fits */
    char err[400];
    enum net_engine engine;
    uint64_t reps;               /* the run counts this many times (groups of im2col) */
    kgen_plan plan;              /* the GEMM (NET_ENG_CONV_MXU: group 0's) */
    kgen_conv_plan cplan;        /* NET_ENG_CONV_* */
    kgen_cost cost;              /* the generator's prediction of one run */
    uint64_t np, kp;             /* the padded N and K (0: no MXU) */
    uint64_t vmem_need;
    double efficiency;           /* mapping: useful MACs / padded MACs */
} net_plan;

/* What a run gives back (plain data: it crosses a pipe). */
typedef struct net_result {
    int status;                  /* enum net_status */
    int checked;                 /* the .expect ran and is bit-exact */
    char error[400];
    uint64_t ntext;              /* instructions */
    uint64_t cycles;             /* of one group */
    uint64_t peak_window_bytes;  /* HBM bytes in the busiest NET_WINDOW cycles */
    uint64_t mxu_busy;           /* the busiest MXU's busy cycles */
    tpu_stats st;                /* core 0, one group */
    double seconds;              /* host time of the run */
} net_result;

/* conv: 1 lowers conv rows with kgen's conv2d (when it has the layer's
 * stride: one for both directions), 0 as their im2col GEMM. */
int net_plan_layer(const tpu_config *cfg, const net_layer *l, int timing_only, int conv,
                   net_plan *p);
/* Generate, assemble (seeded data: every .random fill's seed mixed with
 * seed and the layer's index), run and check one group of layer l.  With
 * `interruptible`, Ctrl-C stops it (NET_INTERRUPTED). */
void net_run_layer(const tpu_config *cfg, const char *config_name, const net_layer *l,
                   size_t index, const net_plan *p, uint64_t seed, int interruptible,
                   net_result *r);

/* ---- the runs (net_pool.c) ---------------------------------------------------------- */

typedef struct net_job {
    const tpu_config *cfg;
    const char *config_name;
    const net_layer *layer;
    size_t index;                /* the layer's index: its seed */
    const net_plan *plan;
    net_result *out;
    double est;                  /* predicted cycles: the longest first */
} net_job;

/* Run the jobs, `jobs` at a time in child processes (in this process when
 * jobs is 1).  Ctrl-C: no more starts, the running ones end (not done).
 * Returns the jobs done. */
size_t net_run_jobs(net_job *job, size_t njobs, unsigned jobs, uint64_t seed,
                    const char *what);

/* ---- one design's results (net_report.c) -------------------------------------------- */

typedef struct net_row {
    const net_layer *l;
    const net_plan *p;
    net_result *r;               /* NULL or status NET_NOT_RUN: not done */
    /* derived, for the whole layer (all groups) */
    int done;
    uint64_t cycles, hbm_bytes, macs, mxu_macs, flops;
    double start;                /* cycles before it (the layers run one after another) */
    double t_math, t_memory, roofline, pct_of_roofline, intensity, flops_per_cycle;
    const char *bound;           /* "compute", "memory", "neither" */
    double compute_cycles, stall_cycles, overall_util, mapping_eff, compute_util;
    double avg_rd_bw, avg_wr_bw, avg_bw, peak_bw;  /* bytes per cycle */
    double predicted, pred_err;  /* the generator's cycles; (predicted - measured) / measured */
} net_row;

typedef struct net_design {
    tpu_config cfg;
    const char *config_name;
    char label[160];             /* "mxu_n=128 num_mxu=4" or the config's name */
    net_plan *plan;              /* one per layer */
    net_result *res;             /* one per layer */
    net_row *row;
    int feasible;                /* every layer has a plan */
    char why[480];               /* when not */
    /* totals over the layers done */
    size_t done, failed;
    uint64_t cycles, macs, hbm_bytes;
    double energy_uj;            /* the layers' energies added up (docs/tpu-sim.md, "Energy") */
    double seconds;              /* cycles / clock_hz */
    double area;                 /* lab 7's model, cells */
    double area_mxu, area_dma, area_hbm, area_vmem;
    int pareto;
} net_design;

/* Fill d->row from the plans and results; the totals. */
void net_design_rows(const net_topo *t, net_design *d);

typedef struct net_opts {
    const char *out_dir;
    int timing_only;
    uint64_t batch, seed;
    unsigned top;                /* layers in the summary's "where the time goes" */
    int plot;                    /* run gnuplot */
    int quiet;
    int conv;                    /* conv rows through kgen's conv2d */
} net_opts;

/* The reports of one design into o->out_dir: layers.csv, layers.json,
 * timeline.json, roofline.gp (+ .png, .svg), summary.txt (also to `out`
 * unless quiet).  Each is written to a temporary file and renamed.
 * `interrupted`: the summary says the run stopped.  0 or -1. */
int net_write_reports(const net_topo *t, net_design *d, const net_opts *o, int interrupted,
                      FILE *out);

/* Write a whole file through FILE *: write(f, ctx) into DIR/NAME.tmp, then
 * rename to DIR/NAME.  0 or -1 with a message on stderr. */
int net_write_file(const char *dir, const char *name, int (*write)(FILE *f, void *ctx),
                   void *ctx);

/* ---- plots (net_plot.c) ------------------------------------------------------------- */

int net_write_roofline_gp(FILE *f, const net_topo *t, const net_design *d, const char *csv,
                          const char *png, const char *svg);
int net_write_sweep_gp(FILE *f, const net_topo *t, const net_design *d, size_t nd,
                       const char *csv, const char *png, const char *svg);
/* gnuplot DIR/SCRIPT in DIR; 0 or -1 (with a message). */
int net_run_gnuplot(const char *dir, const char *script);

/* ---- sweeps (net_sweep.c) ----------------------------------------------------------- */

#define NET_MAX_SWEEP_KEYS 6
#define NET_MAX_SWEEP_VALUES 32
#define NET_MAX_DESIGNS 1024

typedef struct net_sweep {
    unsigned nkeys;
    char key[NET_MAX_SWEEP_KEYS][32];
    unsigned nval[NET_MAX_SWEEP_KEYS];
    char val[NET_MAX_SWEEP_KEYS][NET_MAX_SWEEP_VALUES][32];
} net_sweep;

/* Add one --sweep KEY=V1,V2,... (a key of the six, values the config
 * accepts).  0, or -1 with a message. */
int net_sweep_add(net_sweep *s, const char *arg, char *err, size_t errlen);
/* The number of designs (the product of the value counts). */
size_t net_sweep_count(const net_sweep *s);
/* Design i: base with its values set and validated, label written.  0 or
 * -1 with a message naming the design. */
int net_sweep_design(const net_sweep *s, size_t i, const tpu_config *base, tpu_config *cfg,
                     char *label, size_t labellen, char *err, size_t errlen);
/* lab 7's area of each design and the Pareto front of (time, area) among
 * the feasible designs with every layer done. */
void net_sweep_pareto(net_design *d, size_t nd, size_t nlayers);
int net_write_sweep_csv(FILE *f, const net_sweep *s, const net_design *d, size_t nd);

#endif /* TPU_NET_H */
