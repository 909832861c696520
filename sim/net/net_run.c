/*
 * net_run.c - one layer of a network on the C model (net.h): the
 * generator's plan (sim/kernels/kgen.h, as tpu-gen gemm makes it), its
 * program assembled in memory, the data's seeds mixed with the run's seed,
 * run in slices of NET_WINDOW cycles (the HBM traffic sampled for the peak
 * bandwidth, Ctrl-C looked at) and checked against the program's .expect.
 */
#include "net.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "asm.h"
#include "expect.h"
#include "objfile.h"
#include "run.h"

const char *net_engine_name(enum net_engine e)
{
    switch (e) {
    case NET_ENG_GEMM: return "gemm";
    case NET_ENG_CONV_MXU: return "conv-mxu";
    case NET_ENG_CONV_VPU: return "conv-vpu";
    case NET_ENG_IM2COL: return "im2col-gemm";
    }
    return "?";
}

int net_plan_layer(const tpu_config *cfg, const net_layer *l, int timing_only, int conv,
                   net_plan *p)
{
    memset(p, 0, sizeof *p);
    p->reps = 1;
    if (l->conv && conv && l->sh == l->sw) {
        kgen_conv_opts o;
        memset(&o, 0, sizeof o);
        o.nb = l->batch ? l->batch : 1;
        o.h = l->ih;
        o.w = l->iw;
        o.c = l->c;
        o.f = l->f;
        o.r = l->fh;
        o.s = l->fw;
        o.stride = l->sh;
        o.pad = 0;                   /* the IFMAP is the padded input (SCALE-Sim) */
        o.groups = l->groups;
        o.timing_only = timing_only;
        if (kgen_conv_plan_make(cfg, &o, &p->cplan, p->err, sizeof p->err))
            return -1;
        p->engine = p->cplan.vpu ? NET_ENG_CONV_VPU : NET_ENG_CONV_MXU;
        p->cost = p->cplan.cost;
        p->vmem_need = p->cplan.vmem_need;
        p->efficiency = p->cplan.efficiency;
        if (!p->cplan.vpu) {
            p->plan = p->cplan.gemm;
            p->np = p->plan.np;
            p->kp = p->plan.kp;
        }
        p->ok = 1;
        return 0;
    }
    kgen_gemm_opts o;
    memset(&o, 0, sizeof o);
    o.m = l->m;
    o.n = l->n;
    o.k = l->k;
    o.dtype = KGEN_BF16;
    o.timing_only = timing_only;
    if (kgen_gemm_plan(cfg, &o, &p->plan, p->err, sizeof p->err))
        return -1;
    kgen_gemm_cost(cfg, &p->plan, &p->cost);
    p->engine = l->conv ? NET_ENG_IM2COL : NET_ENG_GEMM;
    p->reps = l->g;
    p->np = p->plan.np;
    p->kp = p->plan.kp;
    p->vmem_need = p->plan.vmem_need;
    p->efficiency = p->plan.efficiency;
    p->ok = 1;
    return 0;
}

/* splitmix64: the seeds of a layer's fills from the run's seed */
static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* The HBM traffic of core 0 between two slices: the busiest window. */
typedef struct window {
    net_result *r;
    uint64_t last;
} window;

static void sample(void *ctx, tpu_system *s, uint64_t cycle)
{
    (void)cycle;
    window *w = ctx;
    tpu_stats st;
    tpu_core_stats(tpu_system_core(s, 0), &st);
    uint64_t b = st.hbm_read_bytes + st.hbm_write_bytes;
    if (b - w->last > w->r->peak_window_bytes)
        w->r->peak_window_bytes = b - w->last;
    w->last = b;
}

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void net_run_layer(const tpu_config *cfg, const char *config_name, const net_layer *l,
                   size_t index, const net_plan *p, uint64_t seed, int interruptible,
                   net_result *r)
{
    memset(r, 0, sizeof *r);
    r->status = NET_FAILED;
    double t0 = now_seconds();

    /* the program, as tpu-gen writes it */
    char *src = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&src, &len);
    if (!f) {
        snprintf(r->error, sizeof r->error, "out of memory");
        return;
    }
    long n = p->engine == NET_ENG_CONV_MXU || p->engine == NET_ENG_CONV_VPU
                 ? kgen_conv_emit(f, config_name, cfg, &p->cplan)
                 : kgen_gemm_emit(f, config_name, cfg, &p->plan, &p->cost);
    if (fclose(f) || n < 0) {
        free(src);
        snprintf(r->error, sizeof r->error, "the program could not be written (out of memory)");
        return;
    }
    if ((uint64_t)n > cfg->imem_words) {
        free(src);
        snprintf(r->error, sizeof r->error, "the program has %ld instructions, IMEM holds %llu",
                 n, (unsigned long long)cfg->imem_words);
        return;
    }

    char fname[NET_MAX_NAME + 16];
    snprintf(fname, sizeof fname, "%s.s", l->name);
    int timing_only = p->engine == NET_ENG_CONV_MXU || p->engine == NET_ENG_CONV_VPU
                          ? p->cplan.o.timing_only : p->plan.o.timing_only;
    window w = { .r = r };
    tpu_run run = { .cfg = cfg, .check = !timing_only,
                    .limits = { .slice = NET_WINDOW, .interruptible = interruptible,
                                .progress = sample, .ctx = &w } };
    tpu_run_init(&run);
    tpu_asm_options ao = { .config = cfg };
    int arc = tpu_run_assemble(&run, src, len, fname, &ao);
    free(src);
    if (arc) {
        snprintf(r->error, sizeof r->error, "the generated program does not assemble: %.358s",
                 run.error);
        return;
    }
    r->ntext = run.obj.ntext;
    /* the layer's own data: every random fill reseeded from (seed, layer) */
    uint64_t ls = mix(seed ^ mix((uint64_t)index + 1));
    for (size_t i = 0; i < run.obj.nchunks; i++)
        if (run.obj.chunks[i].rec == TPU_REC_FILL && run.obj.chunks[i].fill != TPU_FILL_ZERO)
            run.obj.chunks[i].seed = mix(ls ^ run.obj.chunks[i].seed);

    if (tpu_run_load(&run)) {
        snprintf(r->error, sizeof r->error, "%.390s", run.error);
        tpu_run_free(&run);
        return;
    }
    tpu_run_go(&run);
    sample(&w, run.sys, run.cycles);        /* the last window */
    r->cycles = run.cycles;
    r->st = run.stats;
    for (unsigned m = 0; m < cfg->num_mxu && m < 4; m++)
        if (r->st.unit[TPU_U_MXU0 + m].busy_cycles > r->mxu_busy)
            r->mxu_busy = r->st.unit[TPU_U_MXU0 + m].busy_cycles;
    /* a layer on the VPU computes there */
    if (r->st.unit[TPU_U_VPU].busy_cycles > r->mxu_busy)
        r->mxu_busy = r->st.unit[TPU_U_VPU].busy_cycles;
    if (run.end == TPU_RUN_INTERRUPTED) {
        r->status = NET_INTERRUPTED;
        snprintf(r->error, sizeof r->error, "%.390s", run.error);
    } else if (run.end != TPU_RUN_HALT) {
        snprintf(r->error, sizeof r->error, "%.390s",
                 run.error[0] ? run.error : "the run did not halt");
    } else if (timing_only) {
        r->status = NET_OK;
    } else if (run.expect.status == TPU_EXPECT_PASS) {
        r->status = NET_OK;
        r->checked = 1;
    } else {
        snprintf(r->error, sizeof r->error, "%.390s", run.expect.message);
    }
    tpu_run_free(&run);
    r->seconds = now_seconds() - t0;
}
