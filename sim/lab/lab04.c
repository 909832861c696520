/*
 * lab04.c - lab 4: double buffering, overlap DMA and compute
 * (docs/labs/04-double-buffer.md).  Y = X . W with B = 2048, D = 64,
 * F = 8 on tiny, X through VMEM in blocks; the bound is max(T_math,
 * T_memory) of the compulsory bytes; the student's measured speedup over
 * the starter is a numeric answer.
 */
#include "labs.h"

#include <math.h>
#include <string.h>

const lab_check lab04_checks[] = {
    { "result", 3, "assembles and is bit-exact on tiny",
      "tpu-as --config tiny FILE, tpu-sim: which buffer each block's X and Y use" },
    { "overlap", 4, "within 120% of the bound max(T_math, T_memory) (the starter takes 183%)",
      "HBM busy all the time: block rb+1 must already be coming in while the MXU works on "
      "block rb (tpu-sim --timeline, docs/timeline.md, shows the DMA and MXU tracks)" },
    { "speedup", 3, "'# answer: speedup = S', the starter's cycles over yours, within 3%",
      "run the starter and your file with tpu-sim and divide the two 'cycles' lines" },
    { 0 },
};

void lab04_grade(lab_grade *g)
{
    tpu_config cfg;
    if (lab_machine(g, "tiny", NULL, 0, &cfg))
        return;
    const uint64_t b = 2048, d = 64, f = 8;
    lab_array arr[3] = {
        { "X", LAB_IN_BF16, b * d, 1, -1, 1, 0, 0 },
        { "W", LAB_IN_BF16, d * f, 2, -1, 1, 0, 0 },
        { "Y", LAB_OUT_F32, b * f, 0, 0, 0, 0, 0 },
    };
    lab_check_spec chk = { .how = LAB_REF_MATMUL, .b = b, .d = d, .f = f };
    lab_run r = { .cfg = &cfg, .arrays = arr, .narrays = 3, .check = &chk,
                  .max_cycles = 2000000 };
    lab_run_program(g, &r);
    if (!lab_result(g, "result", &r, "tiny")) {
        lab_fail_after(g, "overlap", "result", "no: the result is not right");
        lab_fail_after(g, "speedup", "result", "no: the result is not right");
        return;
    }
    double t_math = 2.0 * (double)(b * d * f) / lab_peak(&cfg);
    double t_mem = (double)(2 * b * d + 2 * d * f + 4 * b * f) / lab_hbm_bpc(&cfg);
    double bound = t_math > t_mem ? t_math : t_mem;
    lab_check_speed(g, "overlap", r.cycles, bound, 1.2);
    lab_array sarr[3];
    memcpy(sarr, arr, sizeof sarr);
    lab_run s = r;
    s.arrays = sarr;
    if (lab_run_own(g, &s, g->lab->starter))
        return;
    double speedup = (double)s.cycles / (double)r.cycles;
    double got;
    if (lab_answer_num(g, "speedup", &got) == 1 && fabs(got - speedup) > 0.03 * speedup)
        lab_fail(g, "speedup", "speedup = %g, but the starter's %llu cycles over your %llu are %.2f",
                 got, (unsigned long long)s.cycles, (unsigned long long)r.cycles, speedup);
    else
        lab_check_num(g, "speedup", "speedup", speedup, 0, 0.03);
}
