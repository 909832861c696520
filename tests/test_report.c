/*
 * test_report.c - sim/view/report.c with hand-filled tpu_stats: the roofline
 * arithmetic, every verdict rule and its boundaries, the text lines and
 * the JSON keys (checked for well-formedness by a small parser here).
 * No C model is involved.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

/* ---- fixtures ---------------------------------------------------------------- */

/* v5e's numbers: peak 4 * 2 * 128 * 128 = 131072 FLOP/cycle, HBM 1640/3 B/cycle. */
static tpu_config v5e(void)
{
    tpu_config c;
    memset(&c, 0, sizeof c);
    snprintf(c.name, sizeof c.name, "v5e");
    c.clock_hz = 1.5e9;
    c.mxu_n = 128;
    c.num_mxu = 4;
    c.hbm_bw = 8.2e11;
    c.vpu_sublanes = 8;
    c.vpu_lanes = 128;       /* VPU peak 1024 FLOP/cycle */
    return c;
}

static tpu_config tiny(void)
{
    tpu_config c;
    memset(&c, 0, sizeof c);
    snprintf(c.name, sizeof c.name, "tiny");
    c.clock_hz = 1e9;
    c.mxu_n = 8;
    c.num_mxu = 1;
    c.hbm_bw = 16e9;         /* 16 B/cycle; peak 128 FLOP/cycle */
    c.vpu_sublanes = 8;
    c.vpu_lanes = 8;         /* VPU peak 64 FLOP/cycle */
    c.ici_bw = 4e9;          /* 4 B/cycle per link and direction */
    return c;
}

static const char *fake_unit_name(enum tpu_unit_id u)
{
    static const char *const names[TPU_U_COUNT] = { "seq", "dma", "mxu0", "mxu1", "mxu2", "mxu3",
                                                    "vpu", "ici" };
    return (unsigned)u < TPU_U_COUNT ? names[u] : NULL;
}

static const char *fake_reason_name(enum tpu_unit_id u, unsigned i)
{
    if (u == TPU_U_SEQ) {
        static const char *const r[] = { "sem.wait", "queue full: mxu0", "sync" };
        return i < 3 ? r[i] : NULL;
    }
    return i == 0 ? "vmem busy" : NULL;
}

static tpu_report report_for(const tpu_config *cfg, const tpu_stats *st, unsigned ncores,
                             uint64_t cycles)
{
    tpu_report r;
    memset(&r, 0, sizeof r);
    r.program = "prog.bin";
    r.cfg = cfg;
    r.topology = ncores > 1 ? "ring" : "single";
    r.ncores = ncores;
    r.core = st;
    r.cycles = cycles;
    r.stop = TPU_STOP_HALT;
    r.checked = 1;
    r.expect.status = TPU_EXPECT_PASS;
    r.expect.checked = 1;
    snprintf(r.expect.message, sizeof r.expect.message, "bit-exact");
    r.unit_name = fake_unit_name;
    r.reason_name = fake_reason_name;
    return r;
}

/* Render into a string (free it). */
static char *render(const tpu_report *r, int as_json)
{
    FILE *f = tmpfile();
    assert_non_null(f);
    if (as_json)
        tpu_report_json(f, r);
    else
        tpu_report_text(f, r);
    long len = ftell(f);
    assert_true(len > 0);
    rewind(f);
    char *buf = malloc((size_t)len + 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)len, f), (size_t)len);
    buf[len] = 0;
    fclose(f);
    return buf;
}

static void assert_contains(const char *hay, const char *needle)
{
    if (!strstr(hay, needle)) {
        print_error("missing: \"%s\"\nin:\n%s\n", needle, hay);
        fail();
    }
}

/* ---- roofline and verdict ---------------------------------------------------------- */

static void test_compute_bound(void **state)
{
    (void)state;
    tpu_config c = v5e();
    tpu_stats st = { 0 };
    st.cycles = 104000;
    st.flops = 131072ull * 100000;            /* T_math = 100000 cycles */
    st.hbm_read_bytes = 1640ull * 10000;      /* T_memory = 30000 cycles exactly */
    tpu_roofline r;
    tpu_roofline_core(&c, &st, &r);
    assert_true(fabs(r.peak_flops_per_cycle - 131072) < 1e-9);
    assert_true(fabs(r.hbm_bw_per_cycle - 1640.0 / 3) < 1e-9);
    assert_true(fabs(r.t_math - 100000) < 1e-6);
    assert_true(fabs(r.t_memory - 30000) < 1e-6);
    assert_true(fabs(r.roofline_cycles - 100000) < 1e-6);
    assert_true(fabs(r.pct - 104.0) < 1e-9);
    assert_true(fabs(r.intensity - 131072.0 * 100000 / (1640.0 * 10000)) < 1e-9);
    assert_true(fabs(r.ridge - 131072 / (1640.0 / 3)) < 1e-9);
    assert_true(fabs(r.flops_per_cycle - 131072.0 * 100000 / 104000) < 1e-6);
    assert_int_equal(r.bound, TPU_BOUND_COMPUTE);
    assert_string_equal(r.why, "the run took 1.04x T_math, within 1.25x");
}

static void test_memory_bound(void **state)
{
    (void)state;
    tpu_config c = tiny();
    tpu_stats st = { 0 };
    st.cycles = 1100;
    st.flops = 128 * 100;                     /* T_math = 100 */
    st.hbm_read_bytes = 8000;
    st.hbm_write_bytes = 8000;                /* 16000 B at 16 B/cycle: T_memory = 1000 */
    tpu_roofline r;
    tpu_roofline_core(&c, &st, &r);
    assert_true(fabs(r.t_memory - 1000) < 1e-9);
    assert_int_equal(r.bound, TPU_BOUND_MEMORY);
    assert_string_equal(r.why, "the run took 1.10x T_memory, within 1.25x");
    assert_true(fabs(r.hbm_bytes_per_cycle - 16000.0 / 1100) < 1e-9);
}

/* VPU FLOPs count against the VPU's peak (sublanes x lanes per cycle), in
 * parallel with the MXUs: T_math is the larger of the two. */
static void test_vpu_math(void **state)
{
    (void)state;
    tpu_config c = tiny();
    tpu_stats st = { 0 };
    st.cycles = 1040;
    st.vpu_flops = 64 * 1000;                 /* T_math (VPU) 1000 */
    st.flops = st.vpu_flops + 128 * 300;      /* MXU: T_math 300 */
    st.hbm_read_bytes = 16 * 500;             /* T_memory 500 */
    tpu_roofline r;
    tpu_roofline_core(&c, &st, &r);
    assert_true(fabs(r.t_math_mxu - 300) < 1e-9);
    assert_true(fabs(r.t_math_vpu - 1000) < 1e-9);
    assert_true(fabs(r.t_math - 1000) < 1e-9);
    assert_true(fabs(r.flops_per_cycle - 128.0 * 300 / 1040) < 1e-9);
    assert_true(fabs(r.vpu_flops_per_cycle - 64000.0 / 1040) < 1e-9);
    assert_true(fabs(r.intensity - (64000.0 + 38400) / 8000) < 1e-9);
    assert_int_equal(r.bound, TPU_BOUND_COMPUTE);
    assert_string_equal(r.why, "the run took 1.04x T_math (VPU), within 1.25x");
    tpu_report rep = report_for(&c, &st, 1, 1040);
    char *t = render(&rep, 0);
    assert_contains(t, "roofline      1000 cycles = max(T_math 1000 (MXU 300, VPU 1000), T_memory 500); the run took 104.0% of it\n");
    assert_contains(t, "compute       MXU 36.9 FLOP/cycle of 128 peak  (28.8%); VPU 61.5 of 64  (96.2%)\n");
    free(t);
    t = render(&rep, 1);
    assert_contains(t, "\"vpu_flops\": 64000");
    assert_contains(t, "\"t_math_vpu_cycles\": 1000");
    assert_contains(t, "\"t_math_mxu_cycles\": 300");
    free(t);
    /* an elementwise add as the book counts it: 1 FLOP per 12 bytes, memory-bound */
    tpu_stats pw = { 0 };
    pw.vpu_flops = pw.flops = 4096;
    pw.hbm_read_bytes = 8 * 4096;
    pw.hbm_write_bytes = 4 * 4096;
    pw.cycles = 3100;                         /* T_memory 3072 */
    tpu_roofline_core(&c, &pw, &r);
    assert_true(fabs(r.intensity - 1.0 / 12) < 1e-12);
    assert_int_equal(r.bound, TPU_BOUND_MEMORY);
}

/* The 1.25x boundary belongs to the bound; just above it is "neither". */
static void test_slack_boundary(void **state)
{
    (void)state;
    tpu_config c = tiny();
    tpu_stats st = { 0 };
    st.flops = 128 * 1000;                    /* T_math = 1000 */
    st.cycles = 1250;
    tpu_roofline r;
    tpu_roofline_core(&c, &st, &r);
    assert_int_equal(r.bound, TPU_BOUND_COMPUTE);
    st.cycles = 1251;
    tpu_roofline_core(&c, &st, &r);
    assert_int_equal(r.bound, TPU_BOUND_NEITHER);
    /* a run faster than the bound cannot happen, but must not confuse the verdict */
    st.cycles = 900;
    tpu_roofline_core(&c, &st, &r);
    assert_int_equal(r.bound, TPU_BOUND_COMPUTE);
    /* T_math == T_memory: compute-bound (ties go to math) */
    st.cycles = 1000;
    st.hbm_read_bytes = 16000;
    tpu_roofline_core(&c, &st, &r);
    assert_true(fabs(r.t_math - r.t_memory) < 1e-9);
    assert_int_equal(r.bound, TPU_BOUND_COMPUTE);
}

static void test_neither(void **state)
{
    (void)state;
    tpu_config c = tiny();
    tpu_stats st = { 0 };
    st.flops = 128 * 1000;
    st.cycles = 3200;
    tpu_roofline r;
    tpu_roofline_core(&c, &st, &r);
    assert_int_equal(r.bound, TPU_BOUND_NEITHER);
    assert_string_equal(r.why, "latency-bound: the run took 3.2x its roofline bound");
    assert_true(fabs(r.pct - 320) < 1e-9);
    /* the VPU busy nearly all the time names it */
    st.unit[TPU_U_VPU].busy_cycles = 3100;
    tpu_roofline_core(&c, &st, &r);
    assert_string_equal(r.why, "VPU-bound: the VPU was busy 97% of the cycles; the run took "
                               "3.2x its roofline bound");
    st.unit[TPU_U_VPU].busy_cycles = 2000;    /* 62%: not enough */
    tpu_roofline_core(&c, &st, &r);
    assert_string_equal(r.why, "latency-bound: the run took 3.2x its roofline bound");
    st.unit[TPU_U_ICI].busy_cycles = 3200;
    tpu_roofline_core(&c, &st, &r);
    assert_string_equal(r.why, "ICI-bound: the ICI was busy 100% of the cycles; the run took "
                               "3.2x its roofline bound");
    /* nothing at all */
    tpu_stats none = { 0 };
    none.cycles = 10;
    tpu_roofline_core(&c, &none, &r);
    assert_int_equal(r.bound, TPU_BOUND_NEITHER);
    assert_true(r.roofline_cycles == 0);
    assert_true(r.intensity < 0);
    assert_string_equal(r.why, "no MXU work, HBM or ICI traffic to bound the run");
}

/* ICI: T_ici is the busiest link's bytes over the link's bytes per cycle
 * (tiny: 4); a run within the slack of it, when it is the largest term, is
 * ici-bound; slower, it is neither. */
static void test_ici_bound(void **state)
{
    (void)state;
    tpu_config c = tiny();
    tpu_roofline r;
    tpu_stats st = { 0 };
    st.cycles = 1100;
    st.flops = 128 * 100;                  /* T_math 100 */
    st.ici_bytes = 6000;
    st.ici_port_bytes[0] = 2000;
    st.ici_port_bytes[1] = 4000;           /* T_ici 1000 */
    tpu_roofline_core(&c, &st, &r);
    assert_true(r.t_ici == 1000.0);
    assert_true(r.roofline_cycles == 1000.0);
    assert_int_equal(r.bound, TPU_BOUND_ICI);
    assert_string_equal(tpu_bound_name(r.bound), "ici-bound");
    assert_string_equal(r.why, "the run took 1.10x T_ici, within 1.25x");
    st.cycles = 1300;
    tpu_roofline_core(&c, &st, &r);
    assert_int_equal(r.bound, TPU_BOUND_NEITHER);
    st.cycles = 1100;
    st.flops = 128 * 1050;                 /* T_math 1050 > T_ici: compute-bound */
    tpu_roofline_core(&c, &st, &r);
    assert_int_equal(r.bound, TPU_BOUND_COMPUTE);
}

/* Several cores: the bound is the slowest core's; peaks add up. */
static void test_system_roofline(void **state)
{
    (void)state;
    tpu_config c = tiny();
    tpu_stats st[2];
    memset(st, 0, sizeof st);
    st[0].cycles = st[1].cycles = 2100;
    st[0].flops = 128 * 1500;                 /* core 0: T_math 1500 */
    st[0].hbm_read_bytes = 16 * 500;          /*         T_memory 500 */
    st[1].flops = 128 * 100;                  /* core 1: T_math 100 */
    st[1].hbm_write_bytes = 16 * 2000;        /*         T_memory 2000 */
    tpu_roofline r;
    tpu_roofline_system(&c, st, 2, 2100, &r);
    assert_true(fabs(r.t_math - 1500) < 1e-9);
    assert_true(fabs(r.t_memory - 2000) < 1e-9);
    assert_true(fabs(r.roofline_cycles - 2000) < 1e-9);
    assert_true(fabs(r.peak_flops_per_cycle - 256) < 1e-9);
    assert_true(fabs(r.hbm_bw_per_cycle - 32) < 1e-9);
    assert_true(fabs(r.intensity - (128.0 * 1600) / (16.0 * 2500)) < 1e-9);
    assert_int_equal(r.bound, TPU_BOUND_MEMORY);
    tpu_stats total;
    tpu_report_total(st, 2, 2100, &total);
    assert_int_equal(total.flops, 128 * 1600);
    assert_int_equal(total.hbm_read_bytes + total.hbm_write_bytes, 16 * 2500);
    assert_int_equal(total.cycles, 2100);
}

static void assert_json(const char *s);

/* ---- text ------------------------------------------------------------------------------ */

static void test_text_single_core(void **state)
{
    (void)state;
    tpu_config c = v5e();
    tpu_stats st = { 0 };
    st.cycles = 104000;
    st.instructions = 321;
    st.flops = 131072ull * 100000;
    st.macs = st.flops / 2;
    st.hbm_read_bytes = 1640ull * 10000;
    st.vmem_read_bytes = 5;
    st.vmem_write_bytes = 7;
    st.unit[TPU_U_SEQ].busy_cycles = 104000;
    st.unit[TPU_U_SEQ].stall_cycles = 900;
    st.unit[TPU_U_SEQ].stall_by_reason[0] = 800;
    st.unit[TPU_U_SEQ].stall_by_reason[1] = 100;
    st.unit[TPU_U_MXU3].busy_cycles = 52000;
    tpu_report rep = report_for(&c, &st, 1, 104000);
    char *t = render(&rep, 0);
    assert_contains(t, "program       prog.bin\n");
    assert_contains(t, "machine       v5e: 4 MXUs of 128x128, 1.5 GHz, HBM 546.67 B/cycle; 1 core (single)\n");
    assert_contains(t, "stop          halt after 104000 cycles\n");
    assert_contains(t, "cycles        104000  (69.33 us at 1.5 GHz)\n");
    assert_contains(t, "instructions  321\n");
    assert_contains(t, "flops         13107200000  (1.311e+10; MXU 6553600000 MACs, VPU 0 FLOPs)\n");
    assert_contains(t, "hbm bytes     16400000  (read 16400000, write 0)\n");
    assert_contains(t, "vmem bytes    12  (read 5, write 7)\n");
    assert_contains(t, "intensity     799.2 FLOP/byte of HBM  (ridge 239.8)\n");
    assert_contains(t, "compute       MXU 126030.8 FLOP/cycle of 131072 peak  (96.2%); VPU 0.0 of 1024  (0.0%)\n");
    assert_contains(t, "hbm bandwidth 157.69 B/cycle of 546.67  (28.8%)\n");
    assert_contains(t, "roofline      100000 cycles = max(T_math 100000, T_memory 30000); the run took 104.0% of it\n");
    assert_contains(t, "bound         compute-bound (the run took 1.04x T_math, within 1.25x)\n");
    assert_contains(t, "  seq         104000 (100.0%)        900 (0.9%)             sem.wait 800, queue full: mxu0 100\n");
    assert_contains(t, "  mxu3        52000 (50.0%)          0 (0.0%)               -\n");
    assert_contains(t, "  vpu ");
    assert_contains(t, "  ici ");
    assert_true(strstr(t, "== core") == NULL);
    /* the result is the last line */
    size_t n = strlen(t);
    assert_true(n > 18 && strcmp(t + n - 18, "result: bit-exact\n") == 0);
    free(t);

    /* tiny has one MXU: no mxu1..3 lines */
    tpu_config ct = tiny();
    rep.cfg = &ct;
    t = render(&rep, 0);
    assert_contains(t, "  mxu0 ");
    assert_true(strstr(t, "mxu1") == NULL && strstr(t, "mxu3") == NULL);
    free(t);
}

/* A slow run names the most stalled unit (not the sequencer) and reason. */
static void test_text_stall_hint(void **state)
{
    (void)state;
    tpu_config c = tiny();
    tpu_stats st = { 0 };
    st.cycles = 4000;
    st.flops = 128 * 1000;                    /* T_math 1000: 4x */
    st.unit[TPU_U_SEQ].stall_cycles = 3900;   /* ignored: the sequencer waits by design */
    st.unit[TPU_U_SEQ].stall_by_reason[0] = 3900;
    st.unit[TPU_U_VPU].stall_cycles = 1000;
    st.unit[TPU_U_VPU].stall_by_reason[0] = 1000;
    st.unit[TPU_U_MXU0].stall_cycles = 400;
    st.unit[TPU_U_MXU0].stall_by_reason[0] = 400;
    tpu_report rep = report_for(&c, &st, 1, 4000);
    char *t = render(&rep, 0);
    assert_contains(t, "bound         neither (latency-bound: the run took 4.0x its roofline "
                       "bound; most stalls: vpu on vmem busy, 25.0% of the cycles)\n");
    free(t);
    t = render(&rep, 1);
    assert_json(t);
    assert_contains(t, "\"most_stalls\": \"vpu on vmem busy, 25.0% of the cycles\"");
    free(t);
    /* at the bound, no hint in the text; none at all without stalls */
    st.cycles = 1000;
    st.unit[TPU_U_VPU].stall_cycles = st.unit[TPU_U_MXU0].stall_cycles = 0;
    rep = report_for(&c, &st, 1, 1000);
    t = render(&rep, 0);
    assert_contains(t, "bound         compute-bound (the run took 1.00x T_math, within 1.25x)\n");
    free(t);
    t = render(&rep, 1);
    assert_contains(t, "\"most_stalls\": null");
    free(t);
}

static void test_result_lines(void **state)
{
    (void)state;
    tpu_config c = tiny();
    tpu_stats st = { 0 };
    st.cycles = 10;
    tpu_report rep = report_for(&c, &st, 1, 10);
    char line[600];
    tpu_report_result_line(&rep, line, sizeof line);
    assert_string_equal(line, "bit-exact");
    assert_string_equal(tpu_report_result_key(&rep), "bit-exact");

    rep.expect.status = TPU_EXPECT_MISMATCH;
    snprintf(rep.expect.message, sizeof rep.expect.message, "MISMATCH in matmul Y (hbm 0x3000) "
             "at [3][5]: expected 0x3f800000 (1), got 0x3f800001 (1.00000012)");
    tpu_report_result_line(&rep, line, sizeof line);
    assert_string_equal(line, rep.expect.message);
    assert_string_equal(tpu_report_result_key(&rep), "mismatch");
    char *t = render(&rep, 0);
    assert_contains(t, "\nresult: MISMATCH in matmul Y (hbm 0x3000) at [3][5]: expected "
                       "0x3f800000 (1), got 0x3f800001 (1.00000012)\n");
    free(t);

    rep.expect.status = TPU_EXPECT_ERROR;
    snprintf(rep.expect.message, sizeof rep.expect.message, ".expect #1 (f32): why");
    tpu_report_result_line(&rep, line, sizeof line);
    assert_string_equal(line, "cannot check: .expect #1 (f32): why");
    assert_string_equal(tpu_report_result_key(&rep), "error");

    rep.expect.status = TPU_EXPECT_NONE;
    tpu_report_result_line(&rep, line, sizeof line);
    assert_string_equal(line, "nothing to check (no .expect records)");
    assert_string_equal(tpu_report_result_key(&rep), "none");

    rep.checked = 0;
    rep.stop = TPU_STOP_ERROR;
    rep.error = "core 0: cycle 5: pc 2 (halt): boom";
    tpu_report_result_line(&rep, line, sizeof line);
    assert_string_equal(line, "not checked (the run did not halt)");
    assert_string_equal(tpu_report_result_key(&rep), "not-checked");
    t = render(&rep, 0);
    assert_contains(t, "stop          error after 10 cycles\n");
    assert_contains(t, "error         core 0: cycle 5: pc 2 (halt): boom\n");
    free(t);

    /* one cycle: singular */
    rep.cycles = 1;
    t = render(&rep, 0);
    assert_contains(t, "stop          error after 1 cycle\n");
    free(t);

    /* Ctrl-C: the stop line says so, in text and JSON */
    rep.cycles = 10;
    rep.stop = TPU_STOP_BREAK;
    rep.interrupted = 1;
    rep.error = "";
    t = render(&rep, 0);
    assert_contains(t, "stop          interrupted at cycle 10 (Ctrl-C)\n");
    free(t);
    t = render(&rep, 1);
    assert_json(t);
    assert_contains(t, "\"stop\": \"interrupted\"");
    free(t);
}

static void test_text_multi_core(void **state)
{
    (void)state;
    tpu_config c = tiny();
    tpu_stats st[2];
    memset(st, 0, sizeof st);
    st[0].cycles = st[1].cycles = 2100;
    st[0].flops = 128 * 1500;
    st[1].hbm_write_bytes = 16 * 2000;
    st[1].ici_bytes = 64;
    st[1].ici_port_bytes[0] = 64;          /* T_ici 16 on tiny's 4 bytes per cycle */
    st[0].unit[TPU_U_DMA].busy_cycles = 2100;
    st[1].unit[TPU_U_DMA].busy_cycles = 1050;
    tpu_report rep = report_for(&c, st, 2, 2100);
    char *t = render(&rep, 0);
    assert_contains(t, "; 2 cores (ring)\n");
    char *c0 = strstr(t, "== core 0\n"), *c1 = strstr(t, "== core 1\n");
    char *tot = strstr(t, "== total (2 cores)\n");
    assert_non_null(c0); assert_non_null(c1); assert_non_null(tot);
    assert_true(c0 < c1 && c1 < tot);
    assert_contains(tot, "roofline      2000 cycles = max(T_math 1500, T_memory 2000, T_ici 16); the run took 105.0% of it\n");
    assert_contains(tot, "bound         memory-bound");
    assert_contains(tot, "compute       MXU 91.4 FLOP/cycle of 256 peak  (35.7%); VPU 0.0 of 128  (0.0%)\n");
    assert_contains(c1, "ici bytes     64  (sent; ports 0-3: 64, 0, 0, 0; busiest link 0.8% of 4.00 B/cycle)\n");
    assert_contains(c0, "ici bytes     0  (sent)\n");
    assert_contains(c1, "  dma         1050 (50.0%) ");
    assert_contains(tot, "  dma         3150 (75.0%) ");   /* of 2 cores x 2100 cycles */
    assert_contains(c0, "intensity     - (no HBM bytes)");
    free(t);
}

/* ---- JSON ---------------------------------------------------------------------------------- */

/* A strict little JSON syntax checker: returns the end of one value or NULL. */
static const char *json_value(const char *p);

static const char *json_ws(const char *p)
{
    while (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r')
        p++;
    return p;
}

static const char *json_str_end(const char *p)
{
    if (*p != '"')
        return NULL;
    for (p++; *p && *p != '"'; p++) {
        if ((unsigned char)*p < 0x20)
            return NULL;
        if (*p == '\\') {
            p++;
            if (*p == 'u') {
                for (int i = 1; i <= 4; i++)
                    if (!strchr("0123456789abcdefABCDEF", p[i]) || !p[i])
                        return NULL;
                p += 4;
            } else if (!*p || !strchr("\"\\/bfnrt", *p)) {
                return NULL;
            }
        }
    }
    return *p == '"' ? p + 1 : NULL;
}

static const char *json_value(const char *p)
{
    p = json_ws(p);
    if (*p == '{' || *p == '[') {
        char close = *p == '{' ? '}' : ']';
        p = json_ws(p + 1);
        if (*p == close)
            return p + 1;
        for (;;) {
            if (close == '}') {
                p = json_str_end(json_ws(p));
                if (!p)
                    return NULL;
                p = json_ws(p);
                if (*p++ != ':')
                    return NULL;
            }
            p = json_value(p);
            if (!p)
                return NULL;
            p = json_ws(p);
            if (*p == close)
                return p + 1;
            if (*p++ != ',')
                return NULL;
        }
    }
    if (*p == '"')
        return json_str_end(p);
    if (!strncmp(p, "null", 4) || !strncmp(p, "true", 4))
        return p + 4;
    if (!strncmp(p, "false", 5))
        return p + 5;
    char *end;
    strtod(p, &end);
    if (end == p || !strchr("-0123456789", *p))
        return NULL;
    return end;
}

static void assert_json(const char *s)
{
    const char *end = json_value(s);
    if (!end || *json_ws(end) != 0) {
        print_error("not one JSON value (%s):\n%s\n", end ? "trailing text" : "syntax", s);
        fail();
    }
}

static void test_json_checker_rejects(void **state)
{
    (void)state;
    /* the checker itself must be able to fail */
    assert_null(json_value("{\"a\": 1,}"));
    assert_null(json_value("{\"a\" 1}"));
    assert_null(json_value("{\"a\": \"x\ny\"}"));
    assert_null(json_value("[1 2]"));
    assert_non_null(json_value("{\"a\": [1, {\"b\": null}], \"c\": \"\\u0001\"}"));
}

static void test_json_single(void **state)
{
    (void)state;
    tpu_config c = v5e();
    tpu_stats st = { 0 };
    st.cycles = 104000;
    st.flops = 131072ull * 100000;
    st.hbm_read_bytes = 1640ull * 10000;
    st.unit[TPU_U_SEQ].stall_by_reason[2] = 4;
    tpu_report rep = report_for(&c, &st, 1, 104000);
    rep.program = "a \"quoted\\\" name\n";
    char *j = render(&rep, 1);
    assert_json(j);
    assert_contains(j, "\"program\": \"a \\\"quoted\\\\\\\" name\\u000a\"");
    assert_contains(j, "\"cycles\": 104000");
    assert_contains(j, "\"flops\": 13107200000");
    assert_contains(j, "\"hbm_bytes\": 16400000");
    assert_contains(j, "\"intensity\": 799.2195122");
    assert_contains(j, "\"roofline_cycles\": 100000");
    assert_contains(j, "\"t_math_cycles\": 100000");
    assert_contains(j, "\"t_memory_cycles\": 30000");
    assert_contains(j, "\"roofline_pct\": 104");
    assert_contains(j, "\"bound\": \"compute-bound\"");
    assert_contains(j, "\"result\": \"bit-exact\"");
    assert_contains(j, "\"error\": null");
    assert_contains(j, "\"seq\": {\"busy_cycles\": 0, \"stall_cycles\": 0, \"stalls\": {\"sync\": 4}}");
    assert_contains(j, "\"mxu3\": {");
    assert_true(strstr(j, "per_core") == NULL);
    free(j);

    /* no HBM bytes: intensity is null, not inf */
    tpu_stats none = { 0 };
    none.cycles = 5;
    rep = report_for(&c, &none, 1, 5);
    rep.checked = 0;
    rep.stop = TPU_STOP_CYCLE_LIMIT;
    rep.error = "cycle limit 5 reached";
    j = render(&rep, 1);
    assert_json(j);
    assert_contains(j, "\"intensity\": null");
    assert_contains(j, "\"roofline_pct\": null");
    assert_contains(j, "\"bound\": \"neither\"");
    assert_contains(j, "\"result\": \"not-checked\"");
    assert_contains(j, "\"stop\": \"cycle-limit\"");
    assert_contains(j, "\"error\": \"cycle limit 5 reached\"");
    free(j);
}

static void test_json_multi_core(void **state)
{
    (void)state;
    tpu_config c = tiny();
    tpu_stats st[3];
    memset(st, 0, sizeof st);
    for (int i = 0; i < 3; i++) {
        st[i].cycles = 1000;
        st[i].flops = 128 * 900;
    }
    tpu_report rep = report_for(&c, st, 3, 1000);
    char *j = render(&rep, 1);
    assert_json(j);
    assert_contains(j, "\"cores\": 3");
    assert_contains(j, "\"flops\": 345600");                 /* the total first */
    assert_contains(j, "\"per_core\": [{\"core\": 0, \"cycles\": 1000");
    assert_contains(j, "{\"core\": 2, ");
    assert_contains(j, "\"peak_flops_per_cycle\": 384");
    assert_contains(j, "\"roofline_cycles\": 900");
    free(j);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_compute_bound),
        cmocka_unit_test(test_memory_bound),
        cmocka_unit_test(test_vpu_math),
        cmocka_unit_test(test_slack_boundary),
        cmocka_unit_test(test_neither),
        cmocka_unit_test(test_ici_bound),
        cmocka_unit_test(test_system_roofline),
        cmocka_unit_test(test_text_single_core),
        cmocka_unit_test(test_text_stall_hint),
        cmocka_unit_test(test_result_lines),
        cmocka_unit_test(test_text_multi_core),
        cmocka_unit_test(test_json_checker_rejects),
        cmocka_unit_test(test_json_single),
        cmocka_unit_test(test_json_multi_core),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
