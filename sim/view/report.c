/*
 * report.c - tpu-sim's run report: roofline arithmetic, the verdict, and
 * the text and JSON renderings (report.h; docs/tpu-sim.md explains every
 * line).
 *
 * The roofline of a run: T_math = the larger of MXU FLOPs / MXU peak and
 * VPU FLOPs / VPU peak (the units work in parallel), T_memory = HBM bytes
 * / HBM bytes per cycle; no run can be faster than max(T_math, T_memory).  The verdict compares the run's cycles with that
 * bound: within TPU_ROOFLINE_SLACK (1.25x) it is "compute-bound" when
 * T_math >= T_memory, else "memory-bound"; slower runs are "neither", with
 * the reason (a unit outside the roofline busy nearly all the time, or
 * else latency).  A run that sends over ICI has a third term, T_ici = the
 * busiest link's bytes / the link's bytes per cycle: when it is the largest
 * and the run is within the slack of it, the run is "ici-bound".
 */
#include "report.h"

#include <math.h>
#include <string.h>

/* A unit outside the roofline (VPU, ICI) busy for at least this share of
 * the cycles is named as what bounds a slow run. */
#define BUSY_BOUND_SHARE 0.9

/* ---- roofline ------------------------------------------------------------------- */

static double ratio(double a, double b)
{
    return b > 0 ? a / b : 0;
}

static double peak_flops(const tpu_config *cfg)
{
    return (double)cfg->num_mxu * 2.0 * (double)cfg->mxu_n * (double)cfg->mxu_n;
}

/* The MXUs' time and peak for a run's MXU work (numerics.md section 9): bf16
 * FLOPs at peak_flops, int8 OPs (2 per int8 MAC) at twice that (two int8
 * MACs per cell).  The peak is the one the run's mix sees: mxu_ops /
 * t_math, that of the machine's main mode when the MXUs did nothing. */
static void mxu_math(const tpu_config *cfg, double bf16_peak, uint64_t mxu_ops,
                     uint64_t int8_macs, double *t_math, double *peak)
{
    uint64_t i8 = 2 * int8_macs <= mxu_ops ? 2 * int8_macs : mxu_ops;
    *t_math = ratio((double)(mxu_ops - i8), bf16_peak) + ratio((double)i8, 2 * bf16_peak);
    if (mxu_ops && *t_math > 0)
        *peak = (double)mxu_ops / *t_math;
    else
        *peak = cfg->mxu_int8 == 2 ? 2 * bf16_peak : bf16_peak;
}

static double vpu_peak(const tpu_config *cfg)
{
    return (double)cfg->vpu_sublanes * (double)cfg->vpu_lanes;
}

static double hbm_bw(const tpu_config *cfg)
{
    return ratio(cfg->hbm_bw, cfg->clock_hz);
}

/* Fill the verdict from the t_* fields, the cycles and the busiest
 * non-roofline unit (its name and busy share, or NULL). */
static void verdict(tpu_roofline *r, uint64_t cycles, const char *busiest, double busy_share)
{
    r->roofline_cycles = r->t_math > r->t_memory ? r->t_math : r->t_memory;
    if (r->t_ici > r->roofline_cycles)
        r->roofline_cycles = r->t_ici;
    r->pct = r->roofline_cycles > 0 ? 100.0 * (double)cycles / r->roofline_cycles : 0;
    if (r->roofline_cycles <= 0) {
        r->bound = TPU_BOUND_NEITHER;
        snprintf(r->why, sizeof r->why, "no MXU work, HBM or ICI traffic to bound the run");
        return;
    }
    double slow = (double)cycles / r->roofline_cycles;
    if (slow <= TPU_ROOFLINE_SLACK && r->t_ici >= r->t_math && r->t_ici >= r->t_memory) {
        r->bound = TPU_BOUND_ICI;
        snprintf(r->why, sizeof r->why, "the run took %.2fx T_ici, within %.2fx", slow,
                 TPU_ROOFLINE_SLACK);
        return;
    }
    if (slow <= TPU_ROOFLINE_SLACK) {
        int math = r->t_math >= r->t_memory;
        r->bound = math ? TPU_BOUND_COMPUTE : TPU_BOUND_MEMORY;
        snprintf(r->why, sizeof r->why, "the run took %.2fx %s, within %.2fx", slow,
                 !math ? "T_memory" : r->t_math_vpu > r->t_math_mxu ? "T_math (VPU)" : "T_math",
                 TPU_ROOFLINE_SLACK);
        return;
    }
    r->bound = TPU_BOUND_NEITHER;
    if (busiest && busy_share >= BUSY_BOUND_SHARE)
        snprintf(r->why, sizeof r->why, "%s-bound: the %s was busy %.0f%% of the cycles; the run "
                 "took %.1fx its roofline bound", busiest, busiest, 100 * busy_share, slow);
    else
        snprintf(r->why, sizeof r->why, "latency-bound: the run took %.1fx its roofline bound",
                 slow);
}

/* The busiest unit the roofline does not account for (VPU, ICI). */
static const char *busiest_other(const tpu_stats *st, uint64_t cycles, double *share)
{
    uint64_t vpu = st->unit[TPU_U_VPU].busy_cycles, ici = st->unit[TPU_U_ICI].busy_cycles;
    *share = ratio((double)(vpu >= ici ? vpu : ici), (double)cycles);
    if (vpu == 0 && ici == 0)
        return NULL;
    return vpu >= ici ? "VPU" : "ICI";
}

void tpu_roofline_core(const tpu_config *cfg, const tpu_stats *st, tpu_roofline *r)
{
    memset(r, 0, sizeof *r);
    uint64_t hbm = st->hbm_read_bytes + st->hbm_write_bytes;
    r->hbm_bw_per_cycle = hbm_bw(cfg);
    uint64_t vpu = st->vpu_flops <= st->flops ? st->vpu_flops : st->flops;
    double t_mxu;
    mxu_math(cfg, peak_flops(cfg), st->flops - vpu, st->int8_macs, &t_mxu,
             &r->peak_flops_per_cycle);
    r->vpu_peak_per_cycle = vpu_peak(cfg);
    r->flops_per_cycle = ratio((double)(st->flops - vpu), (double)st->cycles);
    r->vpu_flops_per_cycle = ratio((double)vpu, (double)st->cycles);
    r->hbm_bytes_per_cycle = ratio((double)hbm, (double)st->cycles);
    r->intensity = hbm ? (double)st->flops / (double)hbm : -1;
    r->ridge = ratio(r->peak_flops_per_cycle, r->hbm_bw_per_cycle);
    r->t_math_mxu = t_mxu;
    r->t_math_vpu = ratio((double)vpu, vpu_peak(cfg));
    r->t_math = r->t_math_mxu > r->t_math_vpu ? r->t_math_mxu : r->t_math_vpu;
    r->t_memory = ratio((double)hbm, r->hbm_bw_per_cycle);
    r->ici_bw_per_cycle = ratio(cfg->ici_bw, cfg->clock_hz);
    uint64_t link = 0;
    for (int p = 0; p < 6; p++)
        if (st->ici_port_bytes[p] > link)
            link = st->ici_port_bytes[p];
    r->t_ici = ratio((double)link, r->ici_bw_per_cycle);
    double share;
    const char *busiest = busiest_other(st, st->cycles, &share);
    verdict(r, st->cycles, busiest, share);
}

void tpu_roofline_system(const tpu_config *cfg, const tpu_stats *core, unsigned ncores,
                         uint64_t cycles, tpu_roofline *r)
{
    memset(r, 0, sizeof *r);
    tpu_stats total;
    tpu_report_total(core, ncores, cycles, &total);
    uint64_t hbm = total.hbm_read_bytes + total.hbm_write_bytes;
    r->hbm_bw_per_cycle = hbm_bw(cfg) * ncores;
    uint64_t vpu = total.vpu_flops <= total.flops ? total.vpu_flops : total.flops;
    double t_mxu;
    mxu_math(cfg, peak_flops(cfg) * ncores, total.flops - vpu, total.int8_macs, &t_mxu,
             &r->peak_flops_per_cycle);
    r->vpu_peak_per_cycle = vpu_peak(cfg) * ncores;
    r->flops_per_cycle = ratio((double)(total.flops - vpu), (double)cycles);
    r->vpu_flops_per_cycle = ratio((double)vpu, (double)cycles);
    r->hbm_bytes_per_cycle = ratio((double)hbm, (double)cycles);
    r->intensity = hbm ? (double)total.flops / (double)hbm : -1;
    r->ridge = ratio(r->peak_flops_per_cycle, r->hbm_bw_per_cycle);
    /* Each core needs at least its own bound; they run in parallel. */
    const char *busiest = NULL;
    double best_share = 0;
    for (unsigned i = 0; i < ncores; i++) {
        tpu_roofline c;
        tpu_roofline_core(cfg, &core[i], &c);
        if (c.t_math > r->t_math)
            r->t_math = c.t_math;
        if (c.t_math_mxu > r->t_math_mxu)
            r->t_math_mxu = c.t_math_mxu;
        if (c.t_math_vpu > r->t_math_vpu)
            r->t_math_vpu = c.t_math_vpu;
        if (c.t_memory > r->t_memory)
            r->t_memory = c.t_memory;
        if (c.t_ici > r->t_ici)
            r->t_ici = c.t_ici;
        r->ici_bw_per_cycle = c.ici_bw_per_cycle;
        double share;
        const char *b = busiest_other(&core[i], cycles, &share);
        if (b && share > best_share) {
            busiest = b;
            best_share = share;
        }
    }
    verdict(r, cycles, busiest, best_share);
}

void tpu_report_total(const tpu_stats *core, unsigned ncores, uint64_t cycles, tpu_stats *t)
{
    memset(t, 0, sizeof *t);
    t->cycles = cycles;
    for (unsigned i = 0; i < ncores; i++) {
        const tpu_stats *c = &core[i];
        t->instructions += c->instructions;
        t->flops += c->flops;
        t->macs += c->macs;
        t->int8_macs += c->int8_macs;
        t->vpu_flops += c->vpu_flops;
        t->hbm_read_bytes += c->hbm_read_bytes;
        t->hbm_write_bytes += c->hbm_write_bytes;
        t->vmem_read_bytes += c->vmem_read_bytes;
        t->vmem_write_bytes += c->vmem_write_bytes;
        t->ici_bytes += c->ici_bytes;
        for (int p = 0; p < 6; p++)
            t->ici_port_bytes[p] += c->ici_port_bytes[p];
        for (int u = 0; u < TPU_U_COUNT; u++) {
            t->unit[u].busy_cycles += c->unit[u].busy_cycles;
            t->unit[u].stall_cycles += c->unit[u].stall_cycles;
            for (int k = 0; k < 8; k++)
                t->unit[u].stall_by_reason[k] += c->unit[u].stall_by_reason[k];
        }
    }
}

const char *tpu_bound_name(enum tpu_bound b)
{
    switch (b) {
    case TPU_BOUND_COMPUTE: return "compute-bound";
    case TPU_BOUND_MEMORY:  return "memory-bound";
    case TPU_BOUND_ICI:     return "ici-bound";
    default:                return "neither";
    }
}

/* ---- result ------------------------------------------------------------------------ */

void tpu_report_result_line(const tpu_report *r, char *buf, size_t len)
{
    if (!r->checked) {
        snprintf(buf, len, "not checked (the run did not halt)");
        return;
    }
    switch (r->expect.status) {
    case TPU_EXPECT_NONE:  snprintf(buf, len, "nothing to check (no .expect records)"); break;
    case TPU_EXPECT_PASS:  snprintf(buf, len, "bit-exact"); break;
    case TPU_EXPECT_ERROR: snprintf(buf, len, "cannot check: %s", r->expect.message); break;
    default:               snprintf(buf, len, "%s", r->expect.message); break;
    }
}

const char *tpu_report_result_key(const tpu_report *r)
{
    if (!r->checked)
        return "not-checked";
    switch (r->expect.status) {
    case TPU_EXPECT_NONE:     return "none";
    case TPU_EXPECT_PASS:     return "bit-exact";
    case TPU_EXPECT_MISMATCH: return "mismatch";
    default:                  return "error";
    }
}

static const char *stop_name(const tpu_report *r)
{
    if (r->interrupted)
        return "interrupted";
    switch (r->stop) {
    case TPU_STOP_HALT:        return "halt";
    case TPU_STOP_ERROR:       return "error";
    case TPU_STOP_CYCLE_LIMIT: return "cycle-limit";
    case TPU_STOP_BREAK:       return "break";
    default:                   return "running";
    }
}

/* ---- text ---------------------------------------------------------------------------- */

static const char *unit_name(const tpu_report *r, enum tpu_unit_id u, char *buf, size_t len)
{
    const char *n = r->unit_name ? r->unit_name(u) : NULL;
    if (n)
        return n;
    snprintf(buf, len, "unit%d", (int)u);
    return buf;
}

/* Units that exist in this config: MXUs past num_mxu do not. */
static int unit_exists(const tpu_config *cfg, int u)
{
    if (u >= TPU_U_MXU0 && u <= TPU_U_MXU3)
        return (unsigned)(u - TPU_U_MXU0) < cfg->num_mxu;
    return 1;
}

/* "1.5 GHz", "820 MHz" */
static void fmt_hz(double hz, char *buf, size_t len)
{
    if (hz >= 1e9)
        snprintf(buf, len, "%.4g GHz", hz / 1e9);
    else
        snprintf(buf, len, "%.4g MHz", hz / 1e6);
}

/* Seconds with a readable unit: "175 us". */
static void fmt_seconds(double s, char *buf, size_t len)
{
    if (s < 1e-6)
        snprintf(buf, len, "%.4g ns", s * 1e9);
    else if (s < 1e-3)
        snprintf(buf, len, "%.4g us", s * 1e6);
    else if (s < 1)
        snprintf(buf, len, "%.4g ms", s * 1e3);
    else
        snprintf(buf, len, "%.4g s", s);
}

static double pct(double a, double b)
{
    return 100.0 * ratio(a, b);
}

/* "sem.wait 180, queue full: mxu0 20" or "-" */
static void fmt_reasons(const tpu_report *r, enum tpu_unit_id u, const tpu_unit_stats *us,
                        char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = 0;
    for (unsigned i = 0; i < 8; i++) {
        const char *name = r->reason_name ? r->reason_name(u, i) : NULL;
        if (r->reason_name && !name)
            break;
        if (us->stall_by_reason[i] == 0)
            continue;
        char tmp[32];
        if (!name) {
            snprintf(tmp, sizeof tmp, "reason %u", i);
            name = tmp;
        }
        int n = snprintf(buf + used, len - used, "%s%s %llu", used ? ", " : "", name,
                         (unsigned long long)us->stall_by_reason[i]);
        if (n < 0 || (size_t)n >= len - used)
            break;
        used += (size_t)n;
    }
    if (!used)
        snprintf(buf, len, "-");
}

/* For a run that is "neither": the unit other than the sequencer (which
 * waits on the others by design) with the most stall cycles and its main
 * reason, "dma on no idle engine, 63.8% of the cycles"; "" when none. */
static void stall_hint(const tpu_report *r, const tpu_stats *st, unsigned summed, char *buf,
                       size_t len)
{
    buf[0] = 0;
    int best = -1;
    for (int u = 0; u < TPU_U_COUNT; u++)
        if (u != TPU_U_SEQ && unit_exists(r->cfg, u) && st->unit[u].stall_cycles
            && (best < 0 || st->unit[u].stall_cycles > st->unit[best].stall_cycles))
            best = u;
    if (best < 0)
        return;
    const tpu_unit_stats *us = &st->unit[best];
    unsigned top = 0;
    for (unsigned i = 1; i < 8; i++)
        if (us->stall_by_reason[i] > us->stall_by_reason[top])
            top = i;
    const char *reason = r->reason_name ? r->reason_name((enum tpu_unit_id)best, top) : NULL;
    char nb[16], rb[32];
    if (!reason) {
        snprintf(rb, sizeof rb, "reason %u", top);
        reason = rb;
    }
    snprintf(buf, len, "%s on %s, %.1f%% of the cycles", unit_name(r, (enum tpu_unit_id)best, nb,
             sizeof nb), reason, pct((double)us->stall_by_reason[top],
                                     (double)st->cycles * (summed ? summed : 1)));
}

/* The lines of one section: one core, or the total of `summed` cores
 * (unit percentages are then of summed * cycles). */
void tpu_energy_of(const tpu_config *cfg, const tpu_stats *st, double core_cycles,
                   tpu_energy *e)
{
    uint64_t bf16 = st->macs >= st->int8_macs ? st->macs - st->int8_macs : 0;
    e->mac_pj = (double)bf16 * cfg->e_mac_bf16_pj + (double)st->int8_macs * cfg->e_mac_int8_pj;
    e->vpu_pj = (double)st->vpu_flops * cfg->e_vpu_pj;
    e->vmem_pj = (double)st->vmem_read_bytes * cfg->e_vmem_read_pj +
                 (double)st->vmem_write_bytes * cfg->e_vmem_write_pj;
    e->hbm_pj = (double)(st->hbm_read_bytes + st->hbm_write_bytes) * cfg->e_hbm_pj;
    e->ici_pj = (double)st->ici_bytes * cfg->e_ici_pj;
    e->idle_pj = core_cycles * cfg->e_idle_pj;
    e->total_pj = e->mac_pj + e->vpu_pj + e->vmem_pj + e->hbm_pj + e->ici_pj + e->idle_pj;
}

static void text_section(FILE *out, const tpu_report *r, const tpu_stats *st,
                         const tpu_roofline *rl, unsigned summed)
{
    double unit_cycles = (double)st->cycles * (summed ? summed : 1);
    const tpu_config *cfg = r->cfg;
    char t[64], hz[32];
    fmt_seconds(ratio((double)st->cycles, cfg->clock_hz), t, sizeof t);
    fmt_hz(cfg->clock_hz, hz, sizeof hz);
    fprintf(out, "cycles        %llu  (%s at %s)\n", (unsigned long long)st->cycles, t, hz);
    fprintf(out, "instructions  %llu\n", (unsigned long long)st->instructions);
    /* int8 MXU work counts 2 OPs per MAC, as FLOPs do: the words say OP then */
    const char *op = st->int8_macs ? "OP" : "FLOP";
    if (st->int8_macs)
        fprintf(out, "ops           %llu  (%.4g; MXU %llu MACs, %llu of them int8; VPU %llu "
                "FLOPs)\n", (unsigned long long)st->flops, (double)st->flops,
                (unsigned long long)st->macs, (unsigned long long)st->int8_macs,
                (unsigned long long)st->vpu_flops);
    else
        fprintf(out, "flops         %llu  (%.4g; MXU %llu MACs, VPU %llu FLOPs)\n",
                (unsigned long long)st->flops, (double)st->flops, (unsigned long long)st->macs,
                (unsigned long long)st->vpu_flops);
    fprintf(out, "hbm bytes     %llu  (read %llu, write %llu)\n",
            (unsigned long long)(st->hbm_read_bytes + st->hbm_write_bytes),
            (unsigned long long)st->hbm_read_bytes, (unsigned long long)st->hbm_write_bytes);
    fprintf(out, "vmem bytes    %llu  (read %llu, write %llu)\n",
            (unsigned long long)(st->vmem_read_bytes + st->vmem_write_bytes),
            (unsigned long long)st->vmem_read_bytes, (unsigned long long)st->vmem_write_bytes);
    if (st->ici_bytes && (st->ici_port_bytes[4] || st->ici_port_bytes[5]))
        fprintf(out, "ici bytes     %llu  (sent; ports 0-5: %llu, %llu, %llu, %llu, %llu, %llu; "
                "busiest link %.1f%% of %.2f B/cycle)\n", (unsigned long long)st->ici_bytes,
                (unsigned long long)st->ici_port_bytes[0], (unsigned long long)st->ici_port_bytes[1],
                (unsigned long long)st->ici_port_bytes[2], (unsigned long long)st->ici_port_bytes[3],
                (unsigned long long)st->ici_port_bytes[4], (unsigned long long)st->ici_port_bytes[5],
                pct(rl->t_ici, (double)st->cycles), rl->ici_bw_per_cycle);
    else if (st->ici_bytes)
        fprintf(out, "ici bytes     %llu  (sent; ports 0-3: %llu, %llu, %llu, %llu; busiest link "
                "%.1f%% of %.2f B/cycle)\n", (unsigned long long)st->ici_bytes,
                (unsigned long long)st->ici_port_bytes[0], (unsigned long long)st->ici_port_bytes[1],
                (unsigned long long)st->ici_port_bytes[2], (unsigned long long)st->ici_port_bytes[3],
                pct(rl->t_ici, (double)st->cycles), rl->ici_bw_per_cycle);
    else
        fprintf(out, "ici bytes     %llu  (sent)\n", (unsigned long long)st->ici_bytes);
    if (rl->intensity >= 0)
        fprintf(out, "intensity     %.4g %s/byte of HBM  (ridge %.4g)\n", rl->intensity, op,
                rl->ridge);
    else
        fprintf(out, "intensity     - (no HBM bytes)  (ridge %.4g)\n", rl->ridge);
    fprintf(out, "compute       MXU %.1f %s/cycle of %.0f peak  (%.1f%%); VPU %.1f of %.0f  "
            "(%.1f%%)\n", rl->flops_per_cycle, op, rl->peak_flops_per_cycle,
            pct(rl->flops_per_cycle, rl->peak_flops_per_cycle), rl->vpu_flops_per_cycle,
            rl->vpu_peak_per_cycle, pct(rl->vpu_flops_per_cycle, rl->vpu_peak_per_cycle));
    fprintf(out, "hbm bandwidth %.2f B/cycle of %.2f  (%.1f%%)\n", rl->hbm_bytes_per_cycle,
            rl->hbm_bw_per_cycle, pct(rl->hbm_bytes_per_cycle, rl->hbm_bw_per_cycle));
    char ici[48] = "";
    if (rl->t_ici > 0)
        snprintf(ici, sizeof ici, ", T_ici %.0f", rl->t_ici);
    if (rl->roofline_cycles > 0 && rl->t_math_vpu > 0)
        fprintf(out, "roofline      %.0f cycles = max(T_math %.0f (MXU %.0f, VPU %.0f), T_memory "
                "%.0f%s); the run took %.1f%% of it\n", rl->roofline_cycles, rl->t_math,
                rl->t_math_mxu, rl->t_math_vpu, rl->t_memory, ici, rl->pct);
    else if (rl->roofline_cycles > 0)
        fprintf(out, "roofline      %.0f cycles = max(T_math %.0f, T_memory %.0f%s); the run took "
                "%.1f%% of it\n", rl->roofline_cycles, rl->t_math, rl->t_memory, ici, rl->pct);
    else
        fprintf(out, "roofline      0 cycles (no FLOPs, no HBM bytes)\n");
    char hint[160];
    stall_hint(r, st, summed, hint, sizeof hint);
    if (rl->bound == TPU_BOUND_NEITHER && hint[0])
        fprintf(out, "bound         neither (%s; most stalls: %s)\n", rl->why, hint);
    else if (rl->bound == TPU_BOUND_NEITHER)
        fprintf(out, "bound         neither (%s)\n", rl->why);
    else
        fprintf(out, "bound         %s (%s)\n", tpu_bound_name(rl->bound), rl->why);
    tpu_energy en;
    tpu_energy_of(cfg, st, unit_cycles, &en);
    fprintf(out, "energy        %.4g uJ  (MAC %.1f%%, VPU %.1f%%, VMEM %.1f%%, HBM %.1f%%, ICI %.1f%%, "
            "idle %.1f%%)\n", en.total_pj * 1e-6, pct(en.mac_pj, en.total_pj),
            pct(en.vpu_pj, en.total_pj), pct(en.vmem_pj, en.total_pj), pct(en.hbm_pj, en.total_pj),
            pct(en.ici_pj, en.total_pj), pct(en.idle_pj, en.total_pj));
    fprintf(out, "units         %-22s %-22s stall reasons\n", "busy cycles", "stall cycles");
    for (int u = 0; u < TPU_U_COUNT; u++) {
        if (!unit_exists(cfg, u))
            continue;
        const tpu_unit_stats *us = &st->unit[u];
        if (u == TPU_U_XLU && !us->busy_cycles && !us->stall_cycles)
            continue;                       /* a program that never used the XLU */
        char nb[16], busy[40], stall[40], reasons[256];
        snprintf(busy, sizeof busy, "%llu (%.1f%%)", (unsigned long long)us->busy_cycles,
                 pct((double)us->busy_cycles, unit_cycles));
        snprintf(stall, sizeof stall, "%llu (%.1f%%)", (unsigned long long)us->stall_cycles,
                 pct((double)us->stall_cycles, unit_cycles));
        fmt_reasons(r, (enum tpu_unit_id)u, us, reasons, sizeof reasons);
        fprintf(out, "  %-11s %-22s %-22s %s\n", unit_name(r, (enum tpu_unit_id)u, nb, sizeof nb),
                busy, stall, reasons);
    }
}

void tpu_report_text(FILE *out, const tpu_report *r)
{
    const tpu_config *cfg = r->cfg;
    char hz[32];
    fmt_hz(cfg->clock_hz, hz, sizeof hz);
    if (r->program)
        fprintf(out, "program       %s\n", r->program);
    fprintf(out, "machine       %s: %llu MXU%s of %llux%llu, %s, HBM %.2f B/cycle; %u core%s "
            "(%s)\n", cfg->name, (unsigned long long)cfg->num_mxu, cfg->num_mxu == 1 ? "" : "s",
            (unsigned long long)cfg->mxu_n, (unsigned long long)cfg->mxu_n, hz, hbm_bw(cfg),
            r->ncores, r->ncores == 1 ? "" : "s", r->topology ? r->topology : "single");
    if (r->interrupted)
        fprintf(out, "stop          interrupted at cycle %llu (Ctrl-C)\n",
                (unsigned long long)r->cycles);
    else
        fprintf(out, "stop          %s after %llu cycle%s\n", stop_name(r),
                (unsigned long long)r->cycles, r->cycles == 1 ? "" : "s");
    if (r->error && r->error[0])
        fprintf(out, "error         %s\n", r->error);
    if (r->ncores <= 1 && r->core) {
        tpu_stats st = r->core[0];
        st.cycles = r->cycles;
        tpu_roofline rl;
        tpu_roofline_core(cfg, &st, &rl);
        text_section(out, r, &st, &rl, 1);
    } else if (r->core) {
        for (unsigned i = 0; i < r->ncores; i++) {
            tpu_roofline rl;
            tpu_roofline_core(cfg, &r->core[i], &rl);
            fprintf(out, "== core %u\n", i);
            text_section(out, r, &r->core[i], &rl, 1);
        }
        tpu_stats total;
        tpu_roofline rl;
        tpu_report_total(r->core, r->ncores, r->cycles, &total);
        tpu_roofline_system(cfg, r->core, r->ncores, r->cycles, &rl);
        fprintf(out, "== total (%u cores)\n", r->ncores);
        text_section(out, r, &total, &rl, r->ncores);
    }
    char res[600];
    tpu_report_result_line(r, res, sizeof res);
    fprintf(out, "result: %s\n", res);
}

/* ---- JSON ------------------------------------------------------------------------------ */

/* A minimal writer: objects of keys, each value written by the caller. */
typedef struct json {
    FILE *out;
    int first;          /* no comma before the next key */
} json;

static void json_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(out, "\\%c", *p);
        else if (*p < 0x20)
            fprintf(out, "\\u%04x", *p);
        else
            fputc(*p, out);
    }
    fputc('"', out);
}

static void json_key(json *j, const char *key)
{
    if (!j->first)
        fputs(", ", j->out);
    j->first = 0;
    json_string(j->out, key);
    fputs(": ", j->out);
}

static void json_u64(json *j, const char *key, uint64_t v)
{
    json_key(j, key);
    fprintf(j->out, "%llu", (unsigned long long)v);
}

static void json_f64(json *j, const char *key, double v)
{
    json_key(j, key);
    if (isfinite(v))
        fprintf(j->out, "%.10g", v);
    else
        fputs("null", j->out);
}

static void json_str(json *j, const char *key, const char *v)
{
    json_key(j, key);
    if (v)
        json_string(j->out, v);
    else
        fputs("null", j->out);
}

/* The keys of one section (a core or the total), inside an open object. */
static void json_section(json *j, const tpu_report *r, const tpu_stats *st,
                         const tpu_roofline *rl, unsigned summed)
{
    char hint[160];
    stall_hint(r, st, summed, hint, sizeof hint);
    json_u64(j, "cycles", st->cycles);
    json_f64(j, "time_s", ratio((double)st->cycles, r->cfg->clock_hz));
    json_u64(j, "instructions", st->instructions);
    json_u64(j, "flops", st->flops);
    json_u64(j, "macs", st->macs);
    json_u64(j, "int8_macs", st->int8_macs);
    json_u64(j, "vpu_flops", st->vpu_flops);
    json_u64(j, "hbm_bytes", st->hbm_read_bytes + st->hbm_write_bytes);
    json_u64(j, "hbm_read_bytes", st->hbm_read_bytes);
    json_u64(j, "hbm_write_bytes", st->hbm_write_bytes);
    json_u64(j, "vmem_bytes", st->vmem_read_bytes + st->vmem_write_bytes);
    json_u64(j, "vmem_read_bytes", st->vmem_read_bytes);
    json_u64(j, "vmem_write_bytes", st->vmem_write_bytes);
    json_u64(j, "ici_bytes", st->ici_bytes);
    json_f64(j, "intensity", rl->intensity >= 0 ? rl->intensity : NAN);
    json_f64(j, "ridge", rl->ridge);
    json_f64(j, "peak_flops_per_cycle", rl->peak_flops_per_cycle);
    json_f64(j, "flops_per_cycle", rl->flops_per_cycle);
    json_f64(j, "vpu_peak_flops_per_cycle", rl->vpu_peak_per_cycle);
    json_f64(j, "vpu_flops_per_cycle", rl->vpu_flops_per_cycle);
    json_f64(j, "hbm_bw_bytes_per_cycle", rl->hbm_bw_per_cycle);
    json_f64(j, "hbm_bytes_per_cycle", rl->hbm_bytes_per_cycle);
    json_f64(j, "t_math_cycles", rl->t_math);
    json_f64(j, "t_math_mxu_cycles", rl->t_math_mxu);
    json_f64(j, "t_math_vpu_cycles", rl->t_math_vpu);
    json_f64(j, "t_memory_cycles", rl->t_memory);
    json_f64(j, "t_ici_cycles", rl->t_ici);
    json_u64(j, "ici_port0_bytes", st->ici_port_bytes[0]);
    json_u64(j, "ici_port1_bytes", st->ici_port_bytes[1]);
    json_u64(j, "ici_port2_bytes", st->ici_port_bytes[2]);
    json_u64(j, "ici_port3_bytes", st->ici_port_bytes[3]);
    json_u64(j, "ici_port4_bytes", st->ici_port_bytes[4]);
    json_u64(j, "ici_port5_bytes", st->ici_port_bytes[5]);
    json_f64(j, "ici_link_busiest_pct", pct(rl->t_ici, (double)st->cycles));
    json_f64(j, "roofline_cycles", rl->roofline_cycles);
    json_f64(j, "roofline_pct", rl->roofline_cycles > 0 ? rl->pct : NAN);
    json_str(j, "bound", tpu_bound_name(rl->bound));
    json_str(j, "bound_why", rl->why);
    json_str(j, "most_stalls", hint[0] ? hint : NULL);
    tpu_energy en;
    tpu_energy_of(r->cfg, st, (double)st->cycles * (summed ? summed : 1), &en);
    json_f64(j, "energy_uj", en.total_pj * 1e-6);
    json_f64(j, "energy_mac_uj", en.mac_pj * 1e-6);
    json_f64(j, "energy_vpu_uj", en.vpu_pj * 1e-6);
    json_f64(j, "energy_vmem_uj", en.vmem_pj * 1e-6);
    json_f64(j, "energy_hbm_uj", en.hbm_pj * 1e-6);
    json_f64(j, "energy_ici_uj", en.ici_pj * 1e-6);
    json_f64(j, "energy_idle_uj", en.idle_pj * 1e-6);
    json_key(j, "units");
    fputc('{', j->out);
    json units = { j->out, 1 };
    for (int u = 0; u < TPU_U_COUNT; u++) {
        if (!unit_exists(r->cfg, u))
            continue;
        char nb[16];
        const tpu_unit_stats *us = &st->unit[u];
        json_key(&units, unit_name(r, (enum tpu_unit_id)u, nb, sizeof nb));
        fputc('{', j->out);
        json ju = { j->out, 1 };
        json_u64(&ju, "busy_cycles", us->busy_cycles);
        json_u64(&ju, "stall_cycles", us->stall_cycles);
        json_key(&ju, "stalls");
        fputc('{', j->out);
        json js = { j->out, 1 };
        for (unsigned i = 0; i < 8; i++) {
            const char *name = r->reason_name ? r->reason_name((enum tpu_unit_id)u, i) : NULL;
            if (r->reason_name && !name)
                break;
            if (us->stall_by_reason[i] == 0)
                continue;
            char tmp[32];
            if (!name) {
                snprintf(tmp, sizeof tmp, "reason %u", i);
                name = tmp;
            }
            json_u64(&js, name, us->stall_by_reason[i]);
        }
        fputs("}}", j->out);
    }
    fputc('}', j->out);
}

void tpu_report_json(FILE *out, const tpu_report *r)
{
    json j = { out, 1 };
    fputc('{', out);
    json_str(&j, "program", r->program);
    json_str(&j, "config", r->cfg->name);
    json_u64(&j, "cores", r->ncores);
    json_str(&j, "topology", r->topology ? r->topology : "single");
    json_f64(&j, "clock_hz", r->cfg->clock_hz);
    json_str(&j, "stop", stop_name(r));
    json_str(&j, "error", r->error && r->error[0] ? r->error : NULL);
    tpu_stats total;
    tpu_roofline rl;
    if (r->ncores <= 1 && r->core) {
        total = r->core[0];
        total.cycles = r->cycles;
        tpu_roofline_core(r->cfg, &total, &rl);
    } else {
        tpu_report_total(r->core, r->core ? r->ncores : 0, r->cycles, &total);
        tpu_roofline_system(r->cfg, r->core, r->core ? r->ncores : 0, r->cycles, &rl);
    }
    json_section(&j, r, &total, &rl, r->ncores > 1 ? r->ncores : 1);
    if (r->ncores > 1 && r->core) {
        json_key(&j, "per_core");
        fputc('[', out);
        for (unsigned i = 0; i < r->ncores; i++) {
            tpu_roofline c;
            tpu_roofline_core(r->cfg, &r->core[i], &c);
            fputs(i ? ", {" : "{", out);
            json jc = { out, 1 };
            json_u64(&jc, "core", i);
            json_section(&jc, r, &r->core[i], &c, 1);
            fputc('}', out);
        }
        fputc(']', out);
    }
    char res[600];
    tpu_report_result_line(r, res, sizeof res);
    json_str(&j, "result", tpu_report_result_key(r));
    json_str(&j, "result_message", res);
    json_u64(&j, "checks_passed", r->checked ? r->expect.checked : 0);
    fputs("}\n", out);
}
