/*
 * lab05.c - lab 5: the crossover batch and the roofline
 * (docs/labs/05-crossover.md).  programs/matmul.s at D = F = 256 on mid;
 * the answers come from the machine's numbers and from runs the grader
 * makes itself (the smallest B, a multiple of 8, that tpu-sim's verdict
 * calls compute-bound; the cycles at B = 128).
 */
#include "labs.h"

#include "report.h"

const lab_check lab05_checks[] = {
    { "ridge", 2, "mid's ridge point in FLOP/byte (within 1%)",
      "peak FLOP per cycle over HBM bytes per cycle (docs/config.md, Presets; docs/roofline.md)" },
    { "intensity16", 2, "the intensity of the matmul at B = 16 (within 1%)",
      "2BDF FLOPs over the HBM bytes 2BD + 2DF + 4BF (docs/roofline.md, 'The crossover, "
      "exactly'); tpu-sim's 'intensity' line" },
    { "predicted", 2, "the crossover batch the exact byte count predicts (within 2%)",
      "B = R D F / (D F - R D - 2 R F) (docs/roofline.md)" },
    { "measured", 2, "the smallest B (a multiple of 8) tpu-sim calls compute-bound",
      "run programs/matmul.s on mid at B = 8, 16, ..., 128 (D = F = 256): the 'bound' line" },
    { "bound16", 1, "what bounds the run at B = 16 (memory or compute)",
      "tpu-sim's 'bound' line at B = 16; which of T_math and T_memory is larger" },
    { "cycles128", 1, "the cycles of the run at B = 128 (within 0.5%)",
      "tpu-sim's 'cycles' line" },
    { 0 },
};

static int run_mm(lab_grade *g, const tpu_config *cfg, unsigned b, lab_run *r)
{
    char db[32];
    const char *defs[3] = { db, "D=256", "F=256" };
    snprintf(db, sizeof db, "B=%u", b);
    *r = (lab_run){ .cfg = cfg, .defines = defs, .ndefines = 3, .max_cycles = 2000000 };
    int rc = lab_run_own(g, r, "matmul.s");
    r->defines = NULL;
    return rc;
}

void lab05_grade(lab_grade *g)
{
    tpu_config cfg;
    if (lab_machine(g, "mid", NULL, 0, &cfg))
        return;
    double d = 256, f = 256, b = 16;
    double ridge = lab_peak(&cfg) / lab_hbm_bpc(&cfg);
    double inten = 2 * b * d * f / (2 * b * d + 2 * d * f + 4 * b * f);
    double pred = ridge * d * f / (d * f - ridge * d - 2 * ridge * f);
    unsigned measured = 0;
    lab_run r;
    for (unsigned bb = 8; bb <= 128 && !measured; bb += 8) {
        if (run_mm(g, &cfg, bb, &r))
            return;
        tpu_roofline rf;
        tpu_roofline_core(&cfg, &r.stats, &rf);
        if (rf.bound == TPU_BOUND_COMPUTE)
            measured = bb;
    }
    if (!measured) {
        lab_internal(g, "matmul.s on mid never turned compute-bound up to B = 128");
        return;
    }
    if (run_mm(g, &cfg, 128, &r))
        return;
    lab_check_num(g, "ridge", "ridge", ridge, 0, 0.01);
    lab_check_num(g, "intensity16", "intensity16", inten, 0, 0.01);
    lab_check_num(g, "predicted", "predicted", pred, 0, 0.02);
    lab_check_num(g, "measured", "measured", measured, 0, 0);
    lab_check_word(g, "bound16", "bound16", "memory|memory-bound|hbm");
    lab_check_num(g, "cycles128", "cycles128", (double)r.cycles, 0, 0.005);
}
