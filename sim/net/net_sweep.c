/*
 * net_sweep.c - co-design sweeps of tpu-net (net.h): --sweep KEY=V1,V2,...
 * over six keys of the machine, every combination a design (the config
 * keys set on top of --config with tpu_config_set, then validated); each
 * design's area from lab 7's fitted model (lab_area_of, sim/lab/lab_area.c:
 * MXUs and DMA fitted to Yosys cell counts, the HBM interface and the VMEM
 * ports assumed); the Pareto front of (time, area).
 */
#include "net.h"

#include <string.h>

#include "lab.h"

static const char *const sweep_keys[] = { "mxu_n", "num_mxu", "hbm_bw", "vmem_bytes", "vmem_bw",
                                          "clock_hz" };
#define NKEYS (sizeof sweep_keys / sizeof sweep_keys[0])

int net_sweep_add(net_sweep *s, const char *arg, char *err, size_t errlen)
{
    const char *eq = strchr(arg, '=');
    if (!eq || eq == arg) {
        snprintf(err, errlen, "--sweep '%s': expected KEY=V1,V2,... (the keys: mxu_n, num_mxu, "
                 "hbm_bw, vmem_bytes, vmem_bw, clock_hz)", arg);
        return -1;
    }
    size_t kl = (size_t)(eq - arg);
    unsigned k;
    for (k = 0; k < NKEYS; k++)
        if (strlen(sweep_keys[k]) == kl && !strncmp(arg, sweep_keys[k], kl))
            break;
    if (k == NKEYS) {
        snprintf(err, errlen, "--sweep '%s': unknown key '%.*s' (the keys: mxu_n, num_mxu, "
                 "hbm_bw, vmem_bytes, vmem_bw, clock_hz)", arg, (int)(kl < 40 ? kl : 40), arg);
        return -1;
    }
    for (unsigned i = 0; i < s->nkeys; i++)
        if (!strcmp(s->key[i], sweep_keys[k])) {
            snprintf(err, errlen, "--sweep '%s': %s is already swept (give its values in one "
                     "--sweep)", arg, sweep_keys[k]);
            return -1;
        }
    if (s->nkeys == NET_MAX_SWEEP_KEYS) {
        snprintf(err, errlen, "--sweep '%s': at most %d keys", arg, NET_MAX_SWEEP_KEYS);
        return -1;
    }
    unsigned i = s->nkeys;
    snprintf(s->key[i], sizeof s->key[i], "%s", sweep_keys[k]);
    s->nval[i] = 0;
    const char *p = eq + 1;
    for (;;) {
        size_t n = strcspn(p, ",");
        if (n == 0 || n >= sizeof s->val[0][0]) {
            snprintf(err, errlen, "--sweep '%s': %s", arg,
                     n ? "a value is too long" : "an empty value (expected KEY=V1,V2,...)");
            return -1;
        }
        if (s->nval[i] == NET_MAX_SWEEP_VALUES) {
            snprintf(err, errlen, "--sweep '%s': at most %d values per key", arg,
                     NET_MAX_SWEEP_VALUES);
            return -1;
        }
        memcpy(s->val[i][s->nval[i]], p, n);
        s->val[i][s->nval[i]][n] = 0;
        /* the value must be one the config takes for this key */
        tpu_config probe;
        tpu_config_defaults(&probe);
        char kv[80], e2[300];
        snprintf(kv, sizeof kv, "%s=%s", s->key[i], s->val[i][s->nval[i]]);
        if (tpu_config_set(&probe, kv, e2, sizeof e2)) {
            const char *m = e2;
            if (!strncmp(m, "--set: error: ", 14))
                m += 14;
            snprintf(err, errlen, "--sweep '%s': %s", arg, m);
            return -1;
        }
        s->nval[i]++;
        p += n;
        if (!*p)
            break;
        p++;
    }
    s->nkeys++;
    if (net_sweep_count(s) > NET_MAX_DESIGNS) {
        snprintf(err, errlen, "--sweep: %zu designs, at most %d", net_sweep_count(s),
                 NET_MAX_DESIGNS);
        return -1;
    }
    return 0;
}

size_t net_sweep_count(const net_sweep *s)
{
    size_t n = 1;
    for (unsigned i = 0; i < s->nkeys; i++)
        n *= s->nval[i];
    return n;
}

int net_sweep_design(const net_sweep *s, size_t i, const tpu_config *base, tpu_config *cfg,
                     char *label, size_t labellen, char *err, size_t errlen)
{
    *cfg = *base;
    size_t o = 0;
    label[0] = 0;
    size_t rest = i;                  /* the last key varies fastest */
    unsigned pick[NET_MAX_SWEEP_KEYS];
    for (unsigned k = s->nkeys; k-- > 0;) {
        pick[k] = (unsigned)(rest % s->nval[k]);
        rest /= s->nval[k];
    }
    for (unsigned k = 0; k < s->nkeys; k++) {
        char kv[80], e2[300];
        snprintf(kv, sizeof kv, "%s=%s", s->key[k], s->val[k][pick[k]]);
        if (tpu_config_set(cfg, kv, e2, sizeof e2)) {
            snprintf(err, errlen, "design %zu: %s", i + 1, e2);
            return -1;
        }
        int n = snprintf(label + o, labellen - o, "%s%s", o ? " " : "", kv);
        if (n > 0 && (size_t)n < labellen - o)
            o += (size_t)n;
    }
    if (!s->nkeys)
        snprintf(label, labellen, "%s", base->name);
    char e3[400];
    if (tpu_config_validate(cfg, e3, sizeof e3)) {
        snprintf(err, errlen, "design %zu (%s): the model cannot build it: %s", i + 1, label, e3);
        return -1;
    }
    return 0;
}

void net_sweep_pareto(net_design *d, size_t nd, size_t nlayers)
{
    for (size_t i = 0; i < nd; i++) {
        lab_area a;
        lab_area_of(&d[i].cfg, &a);
        d[i].area = a.total;
        d[i].area_mxu = a.mxu;
        d[i].area_dma = a.dma;
        d[i].area_hbm = a.hbm_phy;
        d[i].area_vmem = a.vmem_ports;
    }
    for (size_t i = 0; i < nd; i++) {
        net_design *x = &d[i];
        x->pareto = 0;
        int ok = x->feasible && !x->failed && x->done == nlayers;
        if (!ok)
            continue;
        int dominated = 0;
        for (size_t j = 0; j < nd && !dominated; j++) {
            const net_design *y = &d[j];
            if (j == i || !y->feasible || y->failed || y->done != nlayers)
                continue;
            if (y->seconds <= x->seconds && y->area <= x->area
                && (y->seconds < x->seconds || y->area < x->area))
                dominated = 1;
            /* of two equal designs, the first one stands for both */
            if (y->seconds == x->seconds && y->area == x->area && j < i)
                dominated = 1;
        }
        x->pareto = !dominated;
    }
}

int net_write_sweep_csv(FILE *f, const net_sweep *s, const net_design *d, size_t nd)
{
    fprintf(f, "design");
    for (unsigned k = 0; k < s->nkeys; k++)
        fprintf(f, ",%s", s->key[k]);
    fprintf(f, ",feasible,layers_done,layers_failed,cycles,time_ms,tflops,macs,hbm_bytes,"
            "energy_uj,area_cells,area_mxu,area_dma,area_hbm_phy,area_vmem_ports,pareto\n");
    for (size_t i = 0; i < nd; i++) {
        fprintf(f, "%zu", i + 1);
        /* the values from the label: KEY=VALUE words in key order */
        const char *p = d[i].label;
        for (unsigned k = 0; k < s->nkeys; k++) {
            const char *eq = strchr(p, '=');
            size_t n = eq ? strcspn(eq + 1, " ") : 0;
            fprintf(f, ",%.*s", (int)n, eq ? eq + 1 : "");
            p = eq ? eq + 1 + n : p;
        }
        double tf = d[i].seconds > 0 ? 2.0 * (double)d[i].macs / d[i].seconds / 1e12 : 0;
        fprintf(f, ",%d,%zu,%zu,%llu,%.6f,%.4f,%llu,%llu,%.3f,%.0f,%.0f,%.0f,%.0f,%.0f,%d\n",
                d[i].feasible, d[i].done, d[i].failed, (unsigned long long)d[i].cycles,
                d[i].seconds * 1e3, tf, (unsigned long long)d[i].macs,
                (unsigned long long)d[i].hbm_bytes, d[i].energy_uj, d[i].area, d[i].area_mxu, d[i].area_dma,
                d[i].area_hbm, d[i].area_vmem, d[i].pareto);
    }
    return 0;
}
