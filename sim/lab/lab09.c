/*
 * lab09.c - lab 9: co-design over a whole network under an area budget
 * (docs/labs/09-network-codesign.md).  The student hands in a config that
 * changes only mxu_n, num_mxu, hbm_bw and vmem_bw of the lab's v5e-like
 * machine (programs/labs/09-network-codesign.cfg) and names the layers
 * that are memory-bound on it (a "# answer: memory_bound = ..." line).
 * The grader prices the design with lab 7's area model (lab_area.c), runs
 * ResNet-18 at batch 1 (programs/networks/resnet18.csv) on it through the
 * net library (sim/net/: each layer's tpu-gen program on the C model,
 * timing only, in this process; a layer of a shape already run takes its
 * cycles), and compares the total with the starter's and the reference's.
 */
#include "labs.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "net.h"

#define LAB09_BUDGET 60000000.0
#define LAB09_NET "networks/resnet18.csv"
#define LAB09_BEST 1.10
/* a design the cost model says takes longer than this is not run (it
 * would take minutes to grade): a few times the starter's 645,712 */
#define LAB09_MAX_PREDICTED 4000000.0

const lab_check lab09_checks[] = {
    { "config", 1, "the config loads and changes only mxu_n (32, 64, 128 or 256), num_mxu (1 to 4), "
      "hbm_bw and vmem_bw",
      "tpu-sim --config FILE names a bad key or value; keep the starter's other lines" },
    { "area", 2, "the area model's total is at most 60,000,000 cells",
      "the area model of docs/labs/07-codesign.md (an MXU about 2548 N^2 cells, a byte per cycle "
      "of HBM about 20,900, of VMEM 400); tpu-net --sweep prints each design's area" },
    { "runs", 1, "every layer of ResNet-18 has a plan on the machine and runs",
      "tpu-net programs/networks/resnet18.csv --config FILE --timing-only names the layer and why" },
    { "faster", 2, "fewer cycles for the network than the starter's machine",
      "tpu-net's summary: where the time goes, and which bound each layer is at" },
    { "best", 2, "within 110% of the cycles of the lab's reference design",
      "sweep the four keys with tpu-net --sweep and read the Pareto front under the budget "
      "(docs/labs/09-network-codesign.md)" },
    { "answer", 2, "'# answer: memory_bound = ...' names exactly the layers that are "
      "memory-bound on your machine",
      "tpu-net's layers.csv, column bound (the roofline of each layer's run: T_memory > T_math)" },
    { 0 },
};

/* One design's run of the network. */
typedef struct {
    net_design d;
    int ok;                  /* every layer planned and ran */
    double predicted;        /* the cost model's total */
    char why[480];           /* when not ok */
} design;

static void design_free(design *x)
{
    free(x->d.plan);
    free(x->d.res);
    free(x->d.row);
}

/* The same layer for timing (tpu_net.c's test): its run gives both. */
static int same_layer(const net_layer *o, const net_layer *l, const net_plan *po,
                      const net_plan *pl)
{
    return o->m == l->m && o->n == l->n && o->k == l->k && o->g == l->g && o->conv == l->conv
           && po->engine == pl->engine
           && (!l->conv || (o->ih == l->ih && o->iw == l->iw && o->fh == l->fh && o->fw == l->fw
                            && o->c == l->c && o->f == l->f && o->sh == l->sh && o->sw == l->sw));
}

/* Plan and run every layer of t on cfg (timing only); 0, or -1 when
 * Ctrl-C stopped it (g->interrupted).  x->ok says whether it all ran. */
static int run_design(lab_grade *g, const net_topo *t, const tpu_config *cfg, design *x)
{
    memset(x, 0, sizeof *x);
    x->d.cfg = *cfg;
    x->d.config_name = cfg->name;
    x->d.plan = calloc(t->n, sizeof *x->d.plan);
    x->d.res = calloc(t->n, sizeof *x->d.res);
    x->d.row = calloc(t->n, sizeof *x->d.row);
    if (!x->d.plan || !x->d.res || !x->d.row) {
        snprintf(x->why, sizeof x->why, "out of memory");
        return 0;
    }
    for (size_t k = 0; k < t->n; k++) {
        if (net_plan_layer(cfg, &t->layer[k], 1, 1, &x->d.plan[k])) {
            snprintf(x->why, sizeof x->why, "layer %s (line %u) has no plan: %.380s",
                     t->layer[k].name, t->layer[k].line, x->d.plan[k].err);
            return 0;
        }
        x->predicted += (double)x->d.plan[k].reps * x->d.plan[k].cost.predicted;
    }
    if (x->predicted > LAB09_MAX_PREDICTED) {
        snprintf(x->why, sizeof x->why,
                 "the cost model predicts %.0f cycles, more than the %.0f the grader runs",
                 x->predicted, LAB09_MAX_PREDICTED);
        return 0;
    }
    for (size_t k = 0; k < t->n; k++) {
        size_t j = k;
        for (size_t i = 0; i < k && j == k; i++)
            if (same_layer(&t->layer[i], &t->layer[k], &x->d.plan[i], &x->d.plan[k]))
                j = i;
        if (j != k) {
            x->d.res[k] = x->d.res[j];
            continue;
        }
        net_run_layer(cfg, cfg->name, &t->layer[k], k, &x->d.plan[k], 1, 1, &x->d.res[k]);
        if (x->d.res[k].status == NET_INTERRUPTED) {
            g->interrupted = 1;
            lab_stop(g, "interrupted");
            return -1;
        }
        if (x->d.res[k].status != NET_OK) {
            snprintf(x->why, sizeof x->why, "layer %s (line %u) failed: %.380s", t->layer[k].name,
                     t->layer[k].line, x->d.res[k].error);
            return 0;
        }
    }
    net_design_rows(t, &x->d);
    x->ok = 1;
    return 0;
}

/* Is `name` one of the comma- (or blank-) separated names in list? */
static int listed(const char *list, const char *name)
{
    size_t n = strlen(name);
    const char *p = list;
    while (*p) {
        while (*p == ',' || isspace((unsigned char)*p))
            p++;
        size_t w = strcspn(p, ", \t");
        if (w == n && !strncmp(p, name, n))
            return 1;
        p += w;
    }
    return 0;
}

/* The answer against the run: every name a layer, the memory-bound ones
 * exactly.  "none" names no layer. */
static void check_answer(lab_grade *g, const net_topo *t, const design *x)
{
    char ans[4096];
    if (!lab_answer_text(g, "memory_bound", ans, sizeof ans) || !ans[0]) {
        lab_fail(g, "answer", "no '# answer: memory_bound = ...' line");
        return;
    }
    int none = !strcmp(ans, "none");
    /* every name must be a layer of the network */
    const char *p = ans;
    while (!none && *p) {
        while (*p == ',' || isspace((unsigned char)*p))
            p++;
        size_t w = strcspn(p, ", \t");
        if (!w)
            break;
        int known = 0;
        for (size_t k = 0; k < t->n && !known; k++)
            known = strlen(t->layer[k].name) == w && !strncmp(p, t->layer[k].name, w);
        if (!known) {
            lab_fail(g, "answer", "'%.*s' is not a layer of ResNet-18 (resnet18.csv names them)",
                     (int)(w > 60 ? 60 : w), p);
            return;
        }
        p += w;
    }
    size_t nmem = 0, missing = 0, extra = 0;
    const char *first_missing = NULL, *first_extra = NULL;
    for (size_t k = 0; k < t->n; k++) {
        const net_row *w = &x->d.row[k];
        int mem = !strcmp(w->bound, "memory");
        int named = !none && listed(ans, t->layer[k].name);
        nmem += mem;
        if (mem && !named && !missing++)
            first_missing = t->layer[k].name;
        if (!mem && named && !extra++)
            first_extra = t->layer[k].name;
    }
    if (!missing && !extra) {
        lab_pass(g, "answer", "the %zu memory-bound layer%s of %zu", nmem, nmem == 1 ? "" : "s",
                 t->n);
        return;
    }
    if (missing)
        lab_fail(g, "answer", "%zu memory-bound layer%s not named (the first: %s)%s", missing,
                 missing == 1 ? "" : "s", first_missing, extra ? "; and a compute-bound one named" : "");
    else
        lab_fail(g, "answer", "%zu compute-bound layer%s named (the first: %s)", extra,
                 extra == 1 ? "" : "s", first_extra);
}

void lab09_grade(lab_grade *g)
{
    char err[512], key[64], path[4200];
    size_t blen, slen;
    char *base_text = lab_read_program(g, g->lab->starter, &blen);
    char *sol_text = base_text ? lab_read_program(g, g->lab->solution, &slen) : NULL;
    tpu_config base, sol, cfg;
    net_topo topo;
    memset(&topo, 0, sizeof topo);
    design mine, start, ref;
    memset(&mine, 0, sizeof mine);
    memset(&start, 0, sizeof start);
    memset(&ref, 0, sizeof ref);
    if (!sol_text)
        goto out;
    if (lab_parse_cfg(base_text, g->lab->starter, &base, err, sizeof err)
        || lab_parse_cfg(sol_text, g->lab->solution, &sol, err, sizeof err)) {
        lab_internal(g, "%s", err);
        goto out;
    }
    snprintf(path, sizeof path, "%s/%s", g->env->programs, LAB09_NET);
    if (net_topo_read(path, &topo, err, sizeof err) || net_topo_shapes(&topo, 1, err, sizeof err)) {
        lab_internal(g, "%s", err);
        goto out;
    }

    /* config: text only (no file names: tpu_config_parse reads KEY = VALUE) */
    if (lab_parse_cfg(g->text, g->path, &cfg, err, sizeof err)) {
        lab_fail(g, "config", "%s", err);
        lab_stop(g, "the config does not load");
        goto out;
    }
    if (lab_changed_key(&base, &cfg, key, sizeof key)) {
        lab_fail(g, "config", "it changes %s: only mxu_n, num_mxu, hbm_bw and vmem_bw are yours",
                 key);
        lab_stop(g, "the config changes a key that is the lab's");
        goto out;
    }
    if ((cfg.mxu_n != 32 && cfg.mxu_n != 64 && cfg.mxu_n != 128 && cfg.mxu_n != 256)
        || cfg.num_mxu < 1 || cfg.num_mxu > 4) {
        lab_fail(g, "config", "mxu_n %llu, num_mxu %llu: the lab takes mxu_n 32, 64, 128 or 256 "
                 "and 1 to 4 MXUs", (unsigned long long)cfg.mxu_n,
                 (unsigned long long)cfg.num_mxu);
        lab_stop(g, "the design is outside the lab's range");
        goto out;
    }
    lab_pass(g, "config", "%llu x %llux%llu MXUs, HBM %.4g B/cycle, VMEM %llu B/cycle",
             (unsigned long long)cfg.num_mxu, (unsigned long long)cfg.mxu_n,
             (unsigned long long)cfg.mxu_n, lab_hbm_bpc(&cfg), (unsigned long long)cfg.vmem_bw);

    lab_area a;
    lab_area_of(&cfg, &a);
    int in_budget = lab_verdict(g, "area", a.total <= LAB09_BUDGET,
                                "%.0f cells (MXUs %.0f, DMA %.0f, HBM interface %.0f, VMEM "
                                "bandwidth %.0f) of %.0f",
                                a.total, a.mxu, a.dma, a.hbm_phy, a.vmem_ports, LAB09_BUDGET);

    if (run_design(g, &topo, &cfg, &mine))
        goto out;
    if (!mine.ok) {
        lab_fail(g, "runs", "%s", mine.why);
        lab_stop(g, "the network does not run on this machine");
        goto out;
    }
    lab_pass(g, "runs", "%zu layers, %llu cycles (the cost model predicted %.0f)", topo.n,
             (unsigned long long)mine.d.cycles, mine.predicted);
    check_answer(g, &topo, &mine);

    if (run_design(g, &topo, &base, &start) || run_design(g, &topo, &sol, &ref))
        goto out;
    if (!start.ok || !ref.ok) {
        lab_internal(g, "the network failed on the lab's own machines: %s",
                     start.ok ? ref.why : start.why);
        goto out;
    }
    uint64_t c = mine.d.cycles;
    lab_measure(g, "faster", c, 0);
    lab_measure(g, "best", c, (double)ref.d.cycles);
    if (!in_budget) {
        lab_fail_after(g, "faster", "area", "no: over the budget (%llu cycles)",
                       (unsigned long long)c);
        lab_fail_after(g, "best", "area", "no: over the budget");
        goto out;
    }
    lab_verdict(g, "faster", c < start.d.cycles, "%llu cycles, the starter's machine %llu",
                (unsigned long long)c, (unsigned long long)start.d.cycles);
    lab_verdict(g, "best", (double)c <= LAB09_BEST * (double)ref.d.cycles,
                "%llu cycles, %.1f%% of the reference design's %llu", (unsigned long long)c,
                100.0 * (double)c / (double)ref.d.cycles, (unsigned long long)ref.d.cycles);
out:
    design_free(&mine);
    design_free(&start);
    design_free(&ref);
    net_topo_free(&topo);
    free(base_text);
    free(sol_text);
}
