/*
 * lab03.c - lab 3: tile a matmul that does not fit VMEM
 * (docs/labs/03-tiling.md).  Y = X . W on programs/labs/03-tiny32k.cfg
 * (tiny with 32 KiB of VMEM) at B = D = F = 16 (fits) and B = 128,
 * D = 256, F = 64 (X, W and Y are 128 KiB); the bound is max(T_math,
 * the compulsory HBM bytes 2BD + 2DF + 4BF over the bandwidth).
 */
#include "labs.h"

const lab_check lab03_checks[] = {
    { "result-small", 3, "assembles and is bit-exact at B = D = F = 16",
      "tpu-as --config programs/labs/03-tiny32k.cfg -D B=16 -D D=16 -D F=16, then tpu-sim; "
      "the starter passes this one" },
    { "result-large", 4, "assembles and is bit-exact at B = 128, D = 256, F = 64",
      "the VMEM layout: what must be in VMEM at once (one tile of W, a block of X's rows, "
      "their part of Y); the first K-tile uses mxu.mm, the others mxu.mma" },
    { "speed", 3, "at the large size, within 150% of the bound max(T_math, T_memory)",
      "tpu-sim's units lines: an MXU that waits for weights or rows; bring the next "
      "pieces in while the MXU works (docs/labs/03-tiling.md)" },
    { 0 },
};

void lab03_grade(lab_grade *g)
{
    tpu_config cfg;
    if (lab_machine(g, "labs/03-tiny32k.cfg", NULL, 0, &cfg))
        return;
    static const uint64_t sz[2][3] = { { 16, 16, 16 }, { 128, 256, 64 } };
    lab_run r[2];
    for (int i = 0; i < 2; i++) {
        uint64_t b = sz[i][0], d = sz[i][1], f = sz[i][2];
        char defs[3][32];
        const char *dp[3] = { defs[0], defs[1], defs[2] };
        snprintf(defs[0], sizeof defs[0], "B=%llu", (unsigned long long)b);
        snprintf(defs[1], sizeof defs[1], "D=%llu", (unsigned long long)d);
        snprintf(defs[2], sizeof defs[2], "F=%llu", (unsigned long long)f);
        lab_array arr[3] = {
            { "X", LAB_IN_BF16, b * d, 1, -1, 1, 0, 0 },
            { "W", LAB_IN_BF16, d * f, 2, -1, 1, 0, 0 },
            { "Y", LAB_OUT_F32, b * f, 0, 0, 0, 0, 0 },
        };
        lab_check_spec chk = { .how = LAB_REF_MATMUL, .b = b, .d = d, .f = f };
        r[i] = (lab_run){ .cfg = &cfg, .defines = dp, .ndefines = 3, .arrays = arr,
                          .narrays = 3, .check = &chk, .max_cycles = 2000000 };
        lab_run_program(g, &r[i]);
        r[i].defines = NULL;
        r[i].arrays = NULL;
        r[i].check = NULL;
    }
    char mname[2][64];
    snprintf(mname[0], sizeof mname[0], "%s at 16 x 16 x 16", cfg.name);
    snprintf(mname[1], sizeof mname[1], "%s at B 128, D 256, F 64", cfg.name);
    lab_result(g, "result-small", &r[0], mname[0]);
    if (r[1].status == LAB_RUN_ASM) {
        lab_fail_run(g, "result-large", &r[1], mname[1]);
        lab_fail_after(g, "speed", "result-large", "no: it does not run at the large size");
        return;
    }
    if (!lab_result(g, "result-large", &r[1], mname[1])) {
        lab_fail_after(g, "speed", "result-large", "no: the large result is not right");
        return;
    }
    double b = 128, d = 256, f = 64;
    double t_math = 2 * b * d * f / lab_peak(&cfg);
    double t_mem = (2 * b * d + 2 * d * f + 4 * b * f) / lab_hbm_bpc(&cfg);
    double bound = t_math > t_mem ? t_math : t_mem;
    lab_check_speed(g, "speed", r[1].cycles, bound, 1.5);
}
