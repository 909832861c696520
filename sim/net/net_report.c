/*
 * net_report.c - what a network run writes (net.h, docs/workloads.md
 * "Networks"): per layer a CSV row and a JSON object with SCALE-Sim's
 * COMPUTE_REPORT and BANDWIDTH_REPORT columns where they mean the same
 * thing and ours; the summary; a Perfetto timeline with a slice per layer;
 * the roofline plot's script.  Every file goes to NAME.tmp first and is
 * renamed once it is whole.
 */
#include "net.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "report.h"

/* ---- the rows ----------------------------------------------------------------------- */

static double row_energy_uj(const net_design *d, const net_row *w);

void net_design_rows(const net_topo *t, net_design *d)
{
    const tpu_config *c = &d->cfg;
    double peak_macs = (double)c->num_mxu * (double)c->mxu_n * (double)c->mxu_n;
    d->done = d->failed = 0;
    d->cycles = d->macs = d->hbm_bytes = 0;
    d->energy_uj = 0;
    double at = 0;
    for (size_t i = 0; i < t->n; i++) {
        net_row *w = &d->row[i];
        memset(w, 0, sizeof *w);
        w->l = &t->layer[i];
        w->p = &d->plan[i];
        w->r = &d->res[i];
        w->bound = "";
        const net_result *r = w->r;
        w->done = r->status == NET_OK || r->status == NET_FAILED;
        if (!w->done || r->cycles == 0)
            continue;
        uint64_t g = w->p->reps;
        tpu_stats st = r->st;
        st.cycles *= g;
        st.flops *= g;
        st.macs *= g;
        st.int8_macs *= g;
        st.vpu_flops *= g;
        st.hbm_read_bytes *= g;
        st.hbm_write_bytes *= g;
        for (int u = 0; u < TPU_U_COUNT; u++) {
            st.unit[u].busy_cycles *= g;
            st.unit[u].stall_cycles *= g;
        }
        tpu_roofline rl;
        tpu_roofline_core(c, &st, &rl);
        w->cycles = st.cycles;
        w->start = at;
        at += (double)w->cycles;
        w->hbm_bytes = st.hbm_read_bytes + st.hbm_write_bytes;
        w->macs = w->l->g * w->l->m * w->l->n * w->l->k;
        w->mxu_macs = st.macs;
        w->flops = st.flops;
        w->t_math = rl.t_math;
        w->t_memory = rl.t_memory;
        w->roofline = rl.roofline_cycles;
        w->pct_of_roofline = w->cycles ? 100.0 * rl.roofline_cycles / (double)w->cycles : 0;
        w->intensity = rl.intensity;
        w->flops_per_cycle = rl.flops_per_cycle;
        w->bound = rl.t_math >= rl.t_memory ? "compute" : "memory";
        double cyc = (double)w->cycles;
        w->compute_cycles = (double)(g * r->mxu_busy);
        w->stall_cycles = cyc - w->compute_cycles;
        w->overall_util = 100.0 * (double)w->macs / (peak_macs * cyc);
        w->mapping_eff = 100.0 * w->p->efficiency;
        w->compute_util = w->compute_cycles > 0
                              ? 100.0 * (double)w->mxu_macs / (peak_macs * w->compute_cycles)
                              : 0;
        w->avg_rd_bw = (double)st.hbm_read_bytes / cyc;
        w->avg_wr_bw = (double)st.hbm_write_bytes / cyc;
        w->avg_bw = (double)w->hbm_bytes / cyc;
        w->peak_bw = (double)r->peak_window_bytes / NET_WINDOW;
        w->predicted = (double)g * w->p->cost.predicted;   /* the conv2d's: every group */
        w->pred_err = 100.0 * (w->predicted - cyc) / cyc;
        d->done++;
        d->failed += r->status != NET_OK;
        d->cycles += w->cycles;
        d->macs += w->macs;
        d->hbm_bytes += w->hbm_bytes;
        d->energy_uj += row_energy_uj(d, w);
    }
    d->seconds = (double)d->cycles / c->clock_hz;
}

/* ---- files -------------------------------------------------------------------------- */

int net_write_file(const char *dir, const char *name, int (*write)(FILE *f, void *ctx),
                   void *ctx)
{
    char path[4096], tmp[4200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (!f) {
        fprintf(stderr, NET_TOOL ": error: cannot write %s: %s\n", tmp, strerror(errno));
        return -1;
    }
    int bad = write(f, ctx) != 0;
    bad |= ferror(f) != 0;
    bad |= fclose(f) != 0;
    if (bad || rename(tmp, path)) {
        fprintf(stderr, NET_TOOL ": error: writing %s failed\n", path);
        remove(tmp);
        return -1;
    }
    return 0;
}

/* a name in a CSV field: quoted when it holds a quote (the reader splits at commas) */
static void csv_name(FILE *f, const char *s)
{
    if (!strpbrk(s, "\",\n")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

static void json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\')
            fprintf(f, "\\%c", ch);
        else if (ch < 0x20)
            fprintf(f, "\\u%04x", ch);
        else
            fputc(ch, f);
    }
    fputc('"', f);
}

/* a number JSON can hold (no inf, no nan) */
static void json_num(FILE *f, double v)
{
    if (!isfinite(v))
        fputs("null", f);
    else
        fprintf(f, "%.6g", v);
}

static const char *result_key(const net_row *w)
{
    if (w->r->status == NET_OK)
        return w->r->checked ? "bit-exact" : "timing-only";
    if (strstr(w->r->error, "MISMATCH"))
        return "mismatch";
    return "error";
}

/* A layer's energy (docs/tpu-sim.md, "Energy"): its group's, times the groups. */
static double row_energy_uj(const net_design *d, const net_row *w)
{
    tpu_energy e;
    tpu_energy_of(&d->cfg, &w->r->st, (double)w->r->st.cycles, &e);
    return e.total_pj * 1e-6 * (double)w->p->reps;
}

static double total_energy_uj(const net_topo *t, const net_design *d)
{
    double sum = 0;
    for (size_t i = 0; i < t->n; i++)
        if (d->row[i].done && d->row[i].r->cycles)
            sum += row_energy_uj(d, &d->row[i]);
    return sum;
}

typedef struct ctx {
    const net_topo *t;
    net_design *d;
    const net_opts *o;
    int interrupted;
} ctx;

#define CSV_HEADER                                                                            \
    "layer,name,line,type,engine,groups,M,N,K,Np,Kp,"                                                \
    "total_cycles,compute_cycles,stall_cycles,overall_util_pct,mapping_efficiency_pct,"       \
    "compute_util_pct,avg_dram_read_bw,avg_dram_write_bw,avg_dram_bw,peak_dram_bw,"           \
    "macs,mxu_macs,hbm_bytes,intensity,t_math,t_memory,bound,pct_of_roofline,"                \
    "predicted_cycles,predicted_bound,predicted_error_pct,measured_cycles,time_us,"           \
    "vmem_peak_bytes,instructions,energy_uj,result\n"

static int write_csv(FILE *f, void *vp)
{
    ctx *x = vp;
    fputs(CSV_HEADER, f);
    for (size_t i = 0; i < x->t->n; i++) {
        const net_row *w = &x->d->row[i];
        if (!w->done)
            continue;
        const net_layer *l = w->l;
        const net_plan *p = w->p;
        fprintf(f, "%zu,", i + 1);
        csv_name(f, l->name);
        fprintf(f, ",%u,%s,%s,%llu,%llu,%llu,%llu,%llu,%llu,", l->line, l->conv ? "conv" : "gemm",
                net_engine_name(p->engine), (unsigned long long)l->g, (unsigned long long)l->m,
                (unsigned long long)l->n, (unsigned long long)l->k, (unsigned long long)p->np,
                (unsigned long long)p->kp);
        fprintf(f, "%llu,%.0f,%.0f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,",
                (unsigned long long)w->cycles, w->compute_cycles, w->stall_cycles,
                w->overall_util, w->mapping_eff, w->compute_util, w->avg_rd_bw, w->avg_wr_bw,
                w->avg_bw, w->peak_bw);
        fprintf(f, "%llu,%llu,%llu,%.3f,%.0f,%.0f,%s,%.2f,%.0f,%s,%.2f,%llu,%.3f,%llu,%llu,%.3f,%s\n",
                (unsigned long long)w->macs, (unsigned long long)w->mxu_macs,
                (unsigned long long)w->hbm_bytes, w->intensity, w->t_math, w->t_memory, w->bound,
                w->pct_of_roofline, w->predicted, w->p->cost.bound, w->pred_err,
                (unsigned long long)w->cycles, (double)w->cycles / x->d->cfg.clock_hz * 1e6,
                (unsigned long long)w->p->vmem_need, (unsigned long long)w->r->ntext,
                row_energy_uj(x->d, w), result_key(w));
    }
    return 0;
}

static int write_json(FILE *f, void *vp)
{
    ctx *x = vp;
    const net_design *d = x->d;
    fprintf(f, "{\n  \"tool\": \"tpu-net\",\n  \"network\": ");
    json_str(f, x->t->name);
    fprintf(f, ",\n  \"topology\": ");
    json_str(f, x->t->path);
    fprintf(f, ",\n  \"format\": \"%s\",\n  \"config\": ", x->t->format == NET_GEMM ? "gemm" : "conv");
    json_str(f, d->label);
    fprintf(f, ",\n  \"clock_hz\": ");
    json_num(f, d->cfg.clock_hz);
    fprintf(f, ",\n  \"batch\": %llu,\n  \"timing_only\": %s,\n  \"seed\": %llu,\n",
            (unsigned long long)x->o->batch, x->o->timing_only ? "true" : "false",
            (unsigned long long)x->o->seed);
    fprintf(f, "  \"interrupted\": %s,\n  \"layers_total\": %zu,\n  \"layers_done\": %zu,\n"
            "  \"layers_failed\": %zu,\n", x->interrupted ? "true" : "false", x->t->n, d->done,
            d->failed);
    fprintf(f, "  \"total_cycles\": %llu,\n  \"total_seconds\": ", (unsigned long long)d->cycles);
    json_num(f, d->seconds);
    fprintf(f, ",\n  \"total_macs\": %llu,\n  \"total_hbm_bytes\": %llu,\n  \"total_energy_uj\": ",
            (unsigned long long)d->macs, (unsigned long long)d->hbm_bytes);
    json_num(f, total_energy_uj(x->t, d));
    fprintf(f, ",\n  \"layers\": [");
    int first = 1;
    for (size_t i = 0; i < x->t->n; i++) {
        const net_row *w = &d->row[i];
        if (!w->done)
            continue;
        const net_layer *l = w->l;
        fprintf(f, "%s\n    {\"layer\": %zu, \"name\": ", first ? "" : ",", i + 1);
        first = 0;
        json_str(f, l->name);
        fprintf(f, ", \"line\": %u, \"type\": \"%s\", \"engine\": \"%s\"", l->line,
                l->conv ? "conv" : "gemm", net_engine_name(w->p->engine));
        if (l->conv)
            fprintf(f, ", \"ifmap\": [%llu, %llu], \"filter\": [%llu, %llu], \"channels\": %llu,"
                    " \"filters\": %llu, \"stride\": [%llu, %llu], \"ofmap\": [%llu, %llu]",
                    (unsigned long long)l->ih, (unsigned long long)l->iw,
                    (unsigned long long)l->fh, (unsigned long long)l->fw,
                    (unsigned long long)l->c, (unsigned long long)l->f,
                    (unsigned long long)l->sh, (unsigned long long)l->sw,
                    (unsigned long long)l->oh, (unsigned long long)l->ow);
        fprintf(f, ", \"groups\": %llu, \"M\": %llu, \"N\": %llu, \"K\": %llu, \"Np\": %llu, "
                "\"Kp\": %llu,\n     ", (unsigned long long)l->g, (unsigned long long)l->m,
                (unsigned long long)l->n, (unsigned long long)l->k,
                (unsigned long long)w->p->plan.np, (unsigned long long)w->p->plan.kp);
        struct { const char *k; double v; } nums[] = {
            { "total_cycles", (double)w->cycles }, { "compute_cycles", w->compute_cycles },
            { "stall_cycles", w->stall_cycles }, { "overall_util_pct", w->overall_util },
            { "mapping_efficiency_pct", w->mapping_eff }, { "compute_util_pct", w->compute_util },
            { "avg_dram_read_bw", w->avg_rd_bw }, { "avg_dram_write_bw", w->avg_wr_bw },
            { "avg_dram_bw", w->avg_bw }, { "peak_dram_bw", w->peak_bw },
            { "macs", (double)w->macs }, { "mxu_macs", (double)w->mxu_macs },
            { "hbm_bytes", (double)w->hbm_bytes }, { "intensity", w->intensity },
            { "t_math", w->t_math }, { "t_memory", w->t_memory },
            { "pct_of_roofline", w->pct_of_roofline }, { "predicted_cycles", w->predicted },
            { "predicted_error_pct", w->pred_err }, { "measured_cycles", (double)w->cycles },
            { "time_us", (double)w->cycles / d->cfg.clock_hz * 1e6 },
            { "vmem_peak_bytes", (double)w->p->vmem_need },
            { "instructions", (double)w->r->ntext }, { "host_seconds", w->r->seconds },
            { "energy_uj", w->r->cycles ? row_energy_uj(d, w) : 0 },
        };
        for (size_t k = 0; k < sizeof nums / sizeof nums[0]; k++) {
            fprintf(f, "%s\"%s\": ", k ? ", " : "", nums[k].k);
            if (nums[k].v == floor(nums[k].v) && fabs(nums[k].v) < 9e15)
                fprintf(f, "%.0f", nums[k].v);
            else
                json_num(f, nums[k].v);
        }
        fprintf(f, ",\n     \"bound\": \"%s\", \"predicted_bound\": \"%s\", \"result\": \"%s\"",
                w->bound, w->p->cost.bound, result_key(w));
        if (w->r->status != NET_OK) {
            fprintf(f, ", \"error\": ");
            json_str(f, w->r->error);
        }
        fputc('}', f);
    }
    fprintf(f, "\n  ]\n}\n");
    return 0;
}

/* Perfetto / Chrome trace: a slice per layer on one track, in cycles
 * written as microseconds (docs/timeline.md), and counters. */
static int write_timeline(FILE *f, void *vp)
{
    ctx *x = vp;
    const net_design *d = x->d;
    fprintf(f, "{\"displayTimeUnit\": \"ns\",\n \"otherData\": {\"tool\": \"tpu-net\", "
            "\"network\": ");
    json_str(f, x->t->name);
    fprintf(f, ", \"config\": ");
    json_str(f, d->label);
    fprintf(f, ", \"clock_hz\": ");
    json_num(f, d->cfg.clock_hz);
    fprintf(f, ", \"time_unit\": \"one cycle shows as 1 us\", \"layers_done\": %zu, "
            "\"layers_total\": %zu},\n \"traceEvents\": [\n", d->done, x->t->n);
    fprintf(f, "  {\"ph\": \"M\", \"pid\": 1, \"name\": \"process_name\", \"args\": {\"name\": ");
    {
        char pn[256];
        snprintf(pn, sizeof pn, "%s on %s", x->t->name, d->label);
        json_str(f, pn);
    }
    fprintf(f, "}},\n  {\"ph\": \"M\", \"pid\": 1, \"tid\": 1, \"name\": \"thread_name\", "
            "\"args\": {\"name\": \"layers\"}},\n");
    fprintf(f, "  {\"ph\": \"M\", \"pid\": 1, \"tid\": 2, \"name\": \"thread_name\", "
            "\"args\": {\"name\": \"bound\"}}");
    for (size_t i = 0; i < x->t->n; i++) {
        const net_row *w = &d->row[i];
        if (!w->done)
            continue;
        fprintf(f, ",\n  {\"ph\": \"X\", \"pid\": 1, \"tid\": 1, \"ts\": %.0f, \"dur\": %llu, "
                "\"name\": ", w->start, (unsigned long long)w->cycles);
        json_str(f, w->l->name);
        fprintf(f, ", \"cat\": \"layer\", \"args\": {\"layer\": %zu, \"M\": %llu, \"N\": %llu, "
                "\"K\": %llu, \"groups\": %llu, \"bound\": \"%s\", \"pct_of_roofline\": %.1f, "
                "\"predicted_cycles\": %.0f, \"hbm_bytes\": %llu, \"result\": \"%s\"}}",
                i + 1, (unsigned long long)w->l->m, (unsigned long long)w->l->n,
                (unsigned long long)w->l->k, (unsigned long long)w->l->g, w->bound,
                w->pct_of_roofline, w->predicted, (unsigned long long)w->hbm_bytes,
                result_key(w));
        fprintf(f, ",\n  {\"ph\": \"X\", \"pid\": 1, \"tid\": 2, \"ts\": %.0f, \"dur\": %llu, "
                "\"name\": \"%s-bound\", \"cat\": \"bound\"}", w->start,
                (unsigned long long)w->cycles, w->bound);
        fprintf(f, ",\n  {\"ph\": \"C\", \"pid\": 1, \"ts\": %.0f, \"name\": \"HBM bytes/cycle\", "
                "\"args\": {\"average\": %.3f}}", w->start, w->avg_bw);
        fprintf(f, ",\n  {\"ph\": \"C\", \"pid\": 1, \"ts\": %.0f, \"name\": \"MXU utilisation\", "
                "\"args\": {\"%%\": %.2f}}", w->start, w->overall_util);
    }
    fprintf(f, "\n ]\n}\n");
    return 0;
}

/* ---- the summary -------------------------------------------------------------------- */

static void commas(char *buf, size_t len, double v)
{
    char tmp[64];
    snprintf(tmp, sizeof tmp, "%.0f", v);
    size_t n = strlen(tmp), o = 0;
    for (size_t i = 0; i < n && o + 2 < len; i++) {
        buf[o++] = tmp[i];
        size_t left = n - 1 - i;
        if (left && left % 3 == 0 && tmp[i] != '-')
            buf[o++] = ',';
    }
    buf[o] = 0;
}

/* qsort has no context argument: the rows being sorted */
static const net_row *sort_rows;
static int cmp_cycles(const void *a, const void *b)
{
    const net_row *r = sort_rows;
    size_t i = *(const size_t *)a, j = *(const size_t *)b;
    if (r[i].cycles != r[j].cycles)
        return r[i].cycles < r[j].cycles ? 1 : -1;
    return i < j ? -1 : 1;
}

static const net_row *err_rows;
static int cmp_err(const void *a, const void *b)
{
    size_t i = *(const size_t *)a, j = *(const size_t *)b;
    double x = fabs(err_rows[i].pred_err), y = fabs(err_rows[j].pred_err);
    if (x != y)
        return x < y ? 1 : -1;
    return i < j ? -1 : 1;
}

static void shape(char *buf, size_t len, const net_layer *l)
{
    if (l->g > 1)
        snprintf(buf, len, "%llux%llux%llu x%llu", (unsigned long long)l->m,
                 (unsigned long long)l->n, (unsigned long long)l->k, (unsigned long long)l->g);
    else
        snprintf(buf, len, "%llux%llux%llu", (unsigned long long)l->m, (unsigned long long)l->n,
                 (unsigned long long)l->k);
}

static int write_summary(FILE *f, void *vp)
{
    ctx *x = vp;
    const net_design *d = x->d;
    const tpu_config *c = &d->cfg;
    char b1[64], b2[64];
    fprintf(f, "tpu-net: %s (%s) on %s: %zu layers, batch %llu, %s", x->t->name, x->t->path,
            d->label, x->t->n, (unsigned long long)x->o->batch,
            x->t->format == NET_GEMM ? "" : x->o->conv ? "conv rows as conv2d programs, "
                                                       : "conv rows as im2col GEMMs, ");
    if (x->o->timing_only)
        fprintf(f, "timing only (no data, no check)\n");
    else
        fprintf(f, "random data (seed %llu) checked bit for bit\n",
                (unsigned long long)x->o->seed);
    if (x->interrupted)
        fprintf(f, "stop: interrupted after %zu of %zu layers (the reports hold the layers done)\n",
                d->done, x->t->n);
    if (!d->done)
        return 0;
    double peak_macs = (double)c->num_mxu * (double)c->mxu_n * (double)c->mxu_n;
    double pred = 0, roof = 0, tc = 0, tm = 0;
    size_t nc = 0, nm = 0;
    for (size_t i = 0; i < x->t->n; i++) {
        const net_row *w = &d->row[i];
        if (!w->done)
            continue;
        pred += w->predicted;
        roof += w->roofline;
        if (!strcmp(w->bound, "compute")) {
            nc++;
            tc += (double)w->cycles;
        } else {
            nm++;
            tm += (double)w->cycles;
        }
    }
    double cyc = (double)d->cycles;
    commas(b1, sizeof b1, cyc);
    fprintf(f, "total: %s cycles = %.4g ms at %.4g GHz (the layers one after another)%s\n", b1,
            d->seconds * 1e3, c->clock_hz / 1e9, d->done < x->t->n ? ", of the layers done" : "");
    fprintf(f, "work: %.4g MACs (useful, unpadded), %.4g HBM bytes; %.4g TFLOP/s = %.3g%% of the "
            "MXUs' peak\n", (double)d->macs, (double)d->hbm_bytes,
            2.0 * (double)d->macs / d->seconds / 1e12,
            100.0 * (double)d->macs / (peak_macs * cyc));
    double euj = total_energy_uj(x->t, d);
    fprintf(f, "energy: %.4g mJ = %.4g W on average (docs/tpu-sim.md, \"Energy\")\n", euj * 1e-3,
            d->seconds > 0 ? euj * 1e-6 / d->seconds : 0.0);
    fprintf(f, "bound: %zu of %zu layers compute-bound (%.1f%% of the time), %zu memory-bound "
            "(%.1f%%); the run is at %.1f%% of the layers' rooflines\n", nc, d->done,
            100.0 * tc / cyc, nm, 100.0 * tm / cyc, 100.0 * roof / cyc);
    commas(b2, sizeof b2, pred);
    fprintf(f, "predicted: %s cycles by the generator's cost model (%+.1f%% of measured)\n", b2,
            100.0 * (pred - cyc) / cyc);
    if (x->o->timing_only)
        fprintf(f, "result: %zu layers run, timing only%s\n", d->done - d->failed,
                d->failed ? "" : "");
    else if (!d->failed)
        fprintf(f, "result: every layer run bit-exact (%zu of %zu)\n", d->done, x->t->n);
    if (d->failed) {
        fprintf(f, "result: %zu layer%s FAILED:\n", d->failed, d->failed > 1 ? "s" : "");
        for (size_t i = 0; i < x->t->n; i++)
            if (d->row[i].done && d->row[i].r->status != NET_OK)
                fprintf(f, "  %s:%u: %s: %s\n", x->t->path, d->row[i].l->line,
                        d->row[i].l->name, d->row[i].r->error);
    }

    size_t *idx = malloc(x->t->n * sizeof *idx), n = 0;
    if (!idx)
        return -1;
    for (size_t i = 0; i < x->t->n; i++)
        if (d->row[i].done)
            idx[n++] = i;
    sort_rows = d->row;
    qsort(idx, n, sizeof *idx, cmp_cycles);
    unsigned top = x->o->top < n ? x->o->top : (unsigned)n;
    fprintf(f, "\nwhere the time goes: the %u longest of %zu layers\n", top, n);
    fprintf(f, "  %-4s %-16s %-22s %12s %6s %6s %-8s %7s %12s %7s\n", "#", "layer",
            "M x N x K (x groups)", "cycles", "share", "cum", "bound", "roof%", "predicted",
            "error");
    double cum = 0;
    for (unsigned k = 0; k < top; k++) {
        const net_row *w = &d->row[idx[k]];
        char sh[64];
        shape(sh, sizeof sh, w->l);
        cum += (double)w->cycles;
        commas(b1, sizeof b1, (double)w->cycles);
        commas(b2, sizeof b2, w->predicted);
        fprintf(f, "  %-4zu %-16.16s %-22s %12s %5.1f%% %5.1f%% %-8s %6.1f%% %12s %+6.1f%%\n",
                idx[k] + 1, w->l->name, sh, b1, 100.0 * (double)w->cycles / cyc, 100.0 * cum / cyc,
                w->bound, w->pct_of_roofline, b2, w->pred_err);
    }
    /* by kind: the names with their numbers taken out (h3_head7_qk -> h#_head#_qk) */
    typedef struct kind { char key[NET_MAX_NAME]; double cycles; size_t count; } kind;
    kind *kd = calloc(n ? n : 1, sizeof *kd);
    size_t nk = 0;
    if (kd) {
        for (size_t a = 0; a < n; a++) {
            const net_row *w = &d->row[idx[a]];
            char key[NET_MAX_NAME];
            size_t o = 0;
            for (const char *c = w->l->name; *c && o + 1 < sizeof key; c++) {
                if (*c >= '0' && *c <= '9') {
                    if (!o || key[o - 1] != '#')
                        key[o++] = '#';
                } else {
                    key[o++] = *c;
                }
            }
            key[o] = 0;
            size_t k;
            for (k = 0; k < nk && strcmp(kd[k].key, key); k++)
                ;
            if (k == nk) {
                snprintf(kd[nk].key, sizeof kd[nk].key, "%s", key);
                nk++;
            }
            kd[k].cycles += (double)w->cycles;
            kd[k].count++;
        }
        for (size_t a = 1; a < nk; a++)
            for (size_t b = a; b > 0 && kd[b - 1].cycles < kd[b].cycles; b--) {
                kind tmp = kd[b];
                kd[b] = kd[b - 1];
                kd[b - 1] = tmp;
            }
        if (nk < n) {
            unsigned kt = x->o->top < nk ? x->o->top : (unsigned)nk;
            fprintf(f, "\nby kind (the names with their numbers as #): the %u longest of %zu kinds\n",
                    kt, nk);
            cum = 0;
            for (unsigned k = 0; k < kt; k++) {
                cum += kd[k].cycles;
                commas(b1, sizeof b1, kd[k].cycles);
                fprintf(f, "  %-24.24s %4zu layer%s %12s cycles %5.1f%% %5.1f%%\n", kd[k].key,
                        kd[k].count, kd[k].count > 1 ? "s" : " ", b1, 100.0 * kd[k].cycles / cyc,
                        100.0 * cum / cyc);
            }
        }
        free(kd);
    }
    err_rows = d->row;
    qsort(idx, n, sizeof *idx, cmp_err);
    fprintf(f, "\nthe prediction's worst layers (one of each shape):");
    for (size_t a = 0, shown = 0; a < n && shown < 3; a++) {
        const net_row *w = &d->row[idx[a]];
        int again = 0;
        for (size_t b = 0; b < a && !again; b++) {
            const net_layer *o = d->row[idx[b]].l;
            again = o->m == w->l->m && o->n == w->l->n && o->k == w->l->k && o->g == w->l->g;
        }
        if (again)
            continue;
        fprintf(f, "%s %s %+.1f%% (%.0f predicted, %llu measured, %s-bound)", shown ? ";" : "",
                w->l->name, w->pred_err, w->predicted, (unsigned long long)w->cycles, w->bound);
        shown++;
    }
    fputc('\n', f);
    free(idx);
    return 0;
}

static int write_gp(FILE *f, void *vp)
{
    ctx *x = vp;
    return net_write_roofline_gp(f, x->t, x->d, "layers.csv", "roofline.png", "roofline.svg");
}

int net_write_reports(const net_topo *t, net_design *d, const net_opts *o, int interrupted,
                      FILE *out)
{
    ctx x = { t, d, o, interrupted };
    int rc = 0;
    rc |= net_write_file(o->out_dir, "layers.csv", write_csv, &x);
    rc |= net_write_file(o->out_dir, "layers.json", write_json, &x);
    rc |= net_write_file(o->out_dir, "timeline.json", write_timeline, &x);
    rc |= net_write_file(o->out_dir, "summary.txt", write_summary, &x);
    int gp = net_write_file(o->out_dir, "roofline.gp", write_gp, &x);
    rc |= gp;
    if (!gp && o->plot && !interrupted && d->done)
        rc |= net_run_gnuplot(o->out_dir, "roofline.gp");
    if (!o->quiet && out) {
        write_summary(out, &x);
        fprintf(out, "reports: %s/layers.csv, layers.json, summary.txt, timeline.json, "
                "roofline.gp%s\n", o->out_dir,
                o->plot && !interrupted && d->done ? " (.png, .svg)" : "");
    }
    return rc ? -1 : 0;
}
