/*
 * lab07.c - lab 7: co-design under an area budget
 * (docs/labs/07-codesign.md).  The student hands in a config that changes
 * only mxu_n, num_mxu, hbm_bw and vmem_bw of the lab's machine
 * (programs/labs/07-codesign.cfg); the grader prices it with the area
 * model (lab_area.c), runs programs/matmul.s at B = 64, D = F = 256 on it
 * and compares the cycles with the starter's and the reference's.
 */
#include "labs.h"

#include <stdlib.h>
#include <string.h>

#define LAB07_BUDGET 2000000.0

const lab_check lab07_checks[] = {
    { "config", 1, "the config loads and changes only mxu_n, num_mxu, hbm_bw and vmem_bw",
      "tpu-sim --config FILE names a bad key or value; keep the starter's other lines" },
    { "area", 3, "the area model's total is at most 2,000,000 cells",
      "the area model of docs/labs/07-codesign.md: an MXU costs about 2548 N^2 cells, a byte "
      "per cycle of HBM about 20,900, of VMEM 400" },
    { "result", 2, "the workload (programs/matmul.s, B 64, D = F = 256) runs bit-exact",
      "matmul.s needs D a multiple of N and F a multiple of N * num_mxu; T11 sets vmem_bw's "
      "minimum (docs/config.md, Checks)" },
    { "faster", 2, "fewer cycles than the starter's machine",
      "tpu-sim's roofline line: is the workload compute-bound or memory-bound on your machine?" },
    { "best", 2, "within 115% of the cycles of the lab's reference design",
      "balance the two: spend the budget where the bound is (docs/roofline.md; the ridge "
      "peak / HBM bytes per cycle against the workload's intensity)" },
    { 0 },
};

static int run_workload(lab_grade *g, const tpu_config *cfg, lab_run *r, const char *src,
                        size_t len)
{
    static const char *const defs[] = { "B=64", "D=256", "F=256" };
    lab_array arr[3] = {
        { "X", LAB_IN_BF16, 64 * 256, 1, -1, 1, 0, 0 },
        { "W", LAB_IN_BF16, 256 * 256, 2, -1, 1, 0, 0 },
        { "Y", LAB_OUT_F32, 64 * 256, 0, 0, 0, 0, 0 },
    };
    lab_check_spec chk = { .how = LAB_REF_MATMUL, .b = 64, .d = 256, .f = 256 };
    *r = (lab_run){ .cfg = cfg, .src = src, .src_len = len, .name = "programs/matmul.s",
                    .defines = defs, .ndefines = 3, .arrays = arr, .narrays = 3, .check = &chk,
                    .max_cycles = 4000000 };
    lab_run_program(g, r);
    r->defines = NULL;
    r->arrays = NULL;
    r->check = NULL;
    return r->status == LAB_RUN_OK ? 0 : -1;
}

void lab07_grade(lab_grade *g)
{
    char err[512], key[64];
    size_t blen, slen, wlen;
    char *base_text = lab_read_program(g, g->lab->starter, &blen);
    char *sol_text = base_text ? lab_read_program(g, g->lab->solution, &slen) : NULL;
    char *work = sol_text ? lab_read_program(g, "matmul.s", &wlen) : NULL;
    tpu_config base, sol, cfg;
    if (!work)
        goto out;
    if (lab_parse_cfg(base_text, g->lab->starter, &base, err, sizeof err)
        || lab_parse_cfg(sol_text, g->lab->solution, &sol, err, sizeof err)) {
        lab_internal(g, "%s", err);
        goto out;
    }
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
    lab_pass(g, "config", "%llu x %llux%llu MXUs, HBM %.4g B/cycle, VMEM %llu B/cycle",
             (unsigned long long)cfg.num_mxu, (unsigned long long)cfg.mxu_n,
             (unsigned long long)cfg.mxu_n, lab_hbm_bpc(&cfg), (unsigned long long)cfg.vmem_bw);
    lab_area a;
    lab_area_of(&cfg, &a);
    int in_budget = lab_verdict(g, "area", a.total <= LAB07_BUDGET,
                                "%.0f cells (MXUs %.0f, DMA %.0f, HBM interface %.0f, VMEM "
                                "bandwidth %.0f) of %.0f",
                                a.total, a.mxu, a.dma, a.hbm_phy, a.vmem_ports, LAB07_BUDGET);
    lab_run r, rs, rb;
    if (run_workload(g, &cfg, &r, work, wlen)) {
        lab_result(g, "result", &r, "your machine");
        if (r.status == LAB_RUN_ASM)
            lab_stop(g, "the workload does not assemble for this machine");
        goto out;
    }
    lab_result(g, "result", &r, "your machine");
    if (run_workload(g, &base, &rs, work, wlen) || run_workload(g, &sol, &rb, work, wlen)) {
        lab_internal(g, "the workload failed on the lab's own machines");
        goto out;
    }
    if (!in_budget) {
        lab_measure(g, "faster", r.cycles, 0);
        lab_fail_after(g, "faster", "area", "no: over the budget (%llu cycles)",
                       (unsigned long long)r.cycles);
        lab_fail_after(g, "best", "area", "no: over the budget");
        goto out;
    }
    lab_measure(g, "faster", r.cycles, 0);
    lab_measure(g, "best", r.cycles, (double)rb.cycles);
    lab_verdict(g, "faster", r.cycles < rs.cycles, "%llu cycles, the starter's machine %llu",
                (unsigned long long)r.cycles, (unsigned long long)rs.cycles);
    lab_verdict(g, "best", (double)r.cycles <= 1.15 * (double)rb.cycles,
                "%llu cycles, %.1f%% of the reference design's %llu", (unsigned long long)r.cycles,
                100.0 * (double)r.cycles / (double)rb.cycles, (unsigned long long)rb.cycles);
out:
    free(base_text);
    free(sol_text);
    free(work);
}
