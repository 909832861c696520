/*
 * lab06.c - lab 6: weights resident in VMEM and the VMEM ridge
 * (docs/labs/06-weights-in-vmem.md).  programs/matmul_sweep.s with
 * WVMEM=1 at D = F = 256 on mid (N = 16, W = mxu_wloads = 2); the answers
 * come from the machine's numbers and from the grader's own run at B = 32.
 */
#include "labs.h"

const lab_check lab06_checks[] = {
    { "vmem_ridge", 2, "mid's VMEM ridge in FLOP/byte (within 1%)",
      "peak FLOP per cycle over vmem_bw (docs/roofline.md, 'Reading the plot')" },
    { "crossover", 2, "the batch where the matmul with W in VMEM turns compute-bound",
      "a new N x N tile can start every N/W cycles (docs/roofline.md, 'Weights in VMEM')" },
    { "t_weights4", 2, "T_weights at B = 4 in cycles (within 1%)",
      "tiles per MXU times N/W (docs/roofline.md: each MXU loads its share of the "
      "(D/N) (F/N) tiles)" },
    { "bound4", 1, "what bounds the run at B = 4 (weights, compute or memory)",
      "compare T_math, T_memory and T_weights at B = 4" },
    { "bound32", 1, "what bounds the run at B = 32",
      "compare T_math, T_memory and T_weights at B = 32" },
    { "cycles32", 2, "the cycles of matmul_sweep.s with W in VMEM at B = 32, REPS = 4 (within 0.5%)",
      "tpu-as --config mid -D WVMEM=1 -D WL=2 -D LAT=20 -D HBMB=32 -D B=32 -D D=256 -D F=256 "
      "-D REPS=4 programs/matmul_sweep.s, then tpu-sim --config mid" },
    { 0 },
};

void lab06_grade(lab_grade *g)
{
    tpu_config cfg;
    if (lab_machine(g, "mid", NULL, 0, &cfg))
        return;
    const char *defs[] = { "WVMEM=1", "WL=2", "LAT=20", "HBMB=32", "B=32", "D=256", "F=256",
                           "REPS=4" };
    lab_run r = { .cfg = &cfg, .defines = defs, .ndefines = LAB_N(defs), .max_cycles = 2000000 };
    if (lab_run_own(g, &r, "matmul_sweep.s"))
        return;
    double n = (double)cfg.mxu_n, w = (double)cfg.mxu_wloads, d = 256, f = 256;
    double tiles = (d / n) * (f / n) / (double)cfg.num_mxu;
    lab_check_num(g, "vmem_ridge", "vmem_ridge", lab_peak(&cfg) / (double)cfg.vmem_bw, 0, 0.01);
    lab_check_num(g, "crossover", "crossover", n / w, 0, 0.05);
    lab_check_num(g, "t_weights4", "t_weights4", tiles * n / w, 0, 0.01);
    lab_check_word(g, "bound4", "bound4", "weights|weight|weight-load|weight-bound");
    lab_check_word(g, "bound32", "bound32", "compute|compute-bound|mxu|math");
    lab_check_num(g, "cycles32", "cycles32", (double)r.cycles, 0, 0.005);
}
