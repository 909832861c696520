/*
 * lab02.c - lab 2: a pointwise kernel at 90% of the HBM roofline
 * (docs/labs/02-pointwise.md).  Z = relu(X + Y) in fp32, on tiny and mid
 * with an HBM latency of 400 cycles; the bound is the lab's own bytes
 * (12 per element) over the HBM bytes per cycle.
 */
#include "labs.h"

#include <string.h>

#include "fp.h"

const lab_check lab02_checks[] = {
    { "assembles", 1, "the file assembles for both machines",
      "the first assembler message (tpu-as --config tiny -D NELEM=65536 FILE)" },
    { "result-tiny", 2, "Z = relu(X + Y) bit for bit on tiny-lat",
      "run it with tpu-sim --config tiny --set hbm_latency=400; the order vadd then vrelu" },
    { "result-mid", 2, "Z = relu(X + Y) bit for bit on mid-lat",
      "mid has 8x16 vector registers (512 bytes): sizes written as VPU_SUBLANES * VPU_LANES * 4" },
    { "faster", 1, "fewer cycles than the starter on tiny-lat",
      "tpu-sim's units lines: what waits, and for what (docs/tpu-sim.md)" },
    { "roofline-tiny", 2, "within 90% of the HBM roofline on tiny-lat (cycles <= T_memory / 0.9)",
      "DMAs in flight while the VPU works (a ring of slots, docs/labs/02-pointwise.md); "
      "chunks large enough to hide the 400-cycle latency" },
    { "roofline-mid", 2, "within 90% of the HBM roofline on mid-lat",
      "mid moves 32 bytes per cycle: a chunk must be twice as large to hide the same latency" },
    { 0 },
};

static uint32_t relu_add(uint32_t x, uint32_t y)
{
    return tpu_f32_relu(tpu_f32_add(x, y));
}

void lab02_grade(lab_grade *g)
{
    static const char *const sets[] = { "hbm_latency=400" };
    static const char *const names[2] = { "tiny-lat", "mid-lat" };
    static const char *const bases[2] = { "tiny", "mid" };
    static const uint64_t nelem[2] = { 65536, 131072 };
    tpu_config cfg[2];
    lab_run r[2];
    char defs[2][40];
    const char *dp[2][1];
    lab_array arr[2][3];
    lab_check_spec chk = { .how = LAB_REF_ELEM, .fn = relu_add };
    for (int i = 0; i < 2; i++) {
        if (lab_machine(g, bases[i], sets, 1, &cfg[i]))
            return;
        snprintf(defs[i], sizeof defs[i], "NELEM=%llu", (unsigned long long)nelem[i]);
        dp[i][0] = defs[i];
        arr[i][0] = (lab_array){ "X", LAB_IN_F32, nelem[i], 1, -4, 4, 0, 0 };
        arr[i][1] = (lab_array){ "Y", LAB_IN_F32, nelem[i], 2, -4, 4, 0, 0 };
        arr[i][2] = (lab_array){ "Z", LAB_OUT_F32, nelem[i], 0, 0, 0, 0, 0 };
        r[i] = (lab_run){ .cfg = &cfg[i], .defines = dp[i], .ndefines = 1, .arrays = arr[i],
                          .narrays = 3, .check = &chk, .max_cycles = 2000000 };
        lab_run_program(g, &r[i]);
    }
    if (r[0].status == LAB_RUN_ASM || r[1].status == LAB_RUN_ASM) {
        lab_result(g, "result-tiny", &r[0], names[0]);
        lab_result(g, "result-mid", &r[1], names[1]);
        lab_fail(g, "assembles", "%s", r[0].status == LAB_RUN_ASM ? r[0].msg : r[1].msg);
        return;
    }
    lab_pass(g, "assembles", "for tiny and mid");
    int ok0 = lab_result(g, "result-tiny", &r[0], names[0]);
    int ok1 = lab_result(g, "result-mid", &r[1], names[1]);
    if (g->interrupted)
        return;
    for (int i = 0; i < 2; i++) {
        double bound = 12.0 * (double)nelem[i] / lab_hbm_bpc(&cfg[i]);
        const char *id = i ? "roofline-mid" : "roofline-tiny";
        if (!(i ? ok1 : ok0))
            lab_fail_after(g, id, i ? "result-mid" : "result-tiny",
                           "no: the result is not right on %s", names[i]);
        else
            lab_check_speed(g, id, r[i].cycles, bound, 1 / 0.9);
    }
    if (!ok0) {
        lab_fail_after(g, "faster", "result-tiny", "no: the result is not right on %s", names[0]);
        return;
    }
    lab_array sarr[3];
    memcpy(sarr, arr[0], sizeof sarr);
    lab_run s = r[0];
    s.arrays = sarr;
    if (lab_run_own(g, &s, g->lab->starter))
        return;
    lab_measure(g, "faster", r[0].cycles, 0);
    lab_verdict(g, "faster", r[0].cycles < s.cycles, "%llu cycles, the starter %llu on %s",
                (unsigned long long)r[0].cycles, (unsigned long long)s.cycles, names[0]);
}
