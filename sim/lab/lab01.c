/*
 * lab01.c - lab 1: read a weight-stationary matmul in the stepper
 * (docs/labs/01-stepper.md).  The student answers ten questions about
 * programs/labs/01-stepper.s on programs/tut4.cfg in an answers file; the
 * grader finds the right answers by running the same program on the C
 * model cycle by cycle and reading the same views the stepper prints
 * (tpu_core_mxu_cell, the MXU's events), so they follow the model.
 */
#include "labs.h"

#include <stdlib.h>
#include <string.h>

#include "asm.h"
#include "fp.h"

const lab_check lab01_checks[] = {
    { "q1", 1, "the cycle the mxu.lw starts (l)",
      "step to the cycle where cell (0, 0) first shows an 'l' line: the load started one cycle "
      "before (tutorial section 3, timing.md T19-T20)" },
    { "q2", 1, "the cycle cell (2, 3) receives its weight",
      "T20: cell (k, c) gets its weight in cycle l + k + 1 + c ('l' line in show mxu)" },
    { "q3", 1, "how many cells receive a weight in cycle l + 3",
      "count the 'l' lines of show mxu in that cycle: one anti-diagonal k + c" },
    { "q4", 1, "the cycle the mxu.mm stream starts (s)",
      "break mxu-start 0, continue: the status line's cycle (T21)" },
    { "q5", 1, "the cycle cell (3, 3) multiplies LHS row 0",
      "T22: row b is in cell (k, c) in cycle s + b + 1 + k + c; or trace cell 3 3" },
    { "q6", 1, "the partial sum out of cell (1, 2) for LHS row 3",
      "trace cell 1 2, continue: the y after the arrow on the line of LHS row 3" },
    { "q7", 1, "how many cells multiply in cycle s + 5",
      "show mxu in cycle s + 5: count the cells of the LHS-row map that are not '.'" },
    { "q8", 1, "the cycle result row 4 is written to VMEM",
      "T24: row b is written in s + b + 2N; or watch Y+64 (row 4 starts 64 bytes into Y)" },
    { "q9", 1, "the weight in use (w) of cell (3, 0) in cycle s + 2",
      "show cell 3 0 in cycle s + 2: the swap reaches (k, c) in cycle s + 1 + k + c (T22)" },
    { "q10", 1, "the cycles of the whole run",
      "tpu-sim without --step: the 'cycles' line; or 'continue' to the end in the stepper" },
    { 0 },
};

typedef struct lab01_facts {
    int64_t tile_start;       /* cycle of the stream's start */
    int64_t row_out[8];       /* cycle result row b is written */
} lab01_facts;

static void on_event(void *ctx, const tpu_event *ev)
{
    lab01_facts *f = ctx;
    if (ev->kind == TPU_EV_MXU_TILE_START && f->tile_start < 0)
        f->tile_start = (int64_t)ev->cycle;
    if (ev->kind == TPU_EV_MXU_ROW_OUT && ev->index < 8)
        f->row_out[ev->index] = (int64_t)ev->cycle;
}

/* The answers, from the model. */
static int lab01_answers(lab_grade *g, double want[10])
{
    tpu_config cfg;
    if (lab_machine(g, "tut4.cfg", NULL, 0, &cfg))
        return -1;
    size_t len;
    char *src = lab_read_program(g, g->lab->starter, &len);
    if (!src)
        return -1;
    tpu_asm_options ao = { .config = &cfg };
    tpu_object obj;
    tpu_asm_result ar;
    int arc = tpu_asm_assemble(src, len, g->lab->starter, &ao, &obj, &ar);
    free(src);
    if (arc) {
        lab_internal(g, "%s: %s", g->lab->starter, ar.messages);
        tpu_asm_result_free(&ar);
        return -1;
    }
    tpu_asm_result_free(&ar);
    char err[512];
    tpu_system_opts so = { .cores = 1 };
    tpu_system *s = tpu_system_create(&cfg, &so, err, sizeof err);
    if (!s || tpu_system_load(s, &obj, err, sizeof err)) {
        lab_internal(g, "%s: %s", g->lab->starter, err);
        tpu_system_destroy(s);
        tpu_obj_free(&obj);
        return -1;
    }
    lab01_facts f;
    memset(&f, -1, sizeof f);
    tpu_system_subscribe(s, (1u << TPU_EV_MXU_TILE_START) | (1u << TPU_EV_MXU_ROW_OUT), on_event,
                         &f);
    /* per cycle: which cells load, which multiply, and what */
    enum { MAXC = 200 };
    int64_t first_load00 = -1, load23 = -1, mac33_row0 = -1;
    double psum12_row3 = -1;
    unsigned loads[MAXC] = { 0 }, macs[MAXC] = { 0 };
    uint16_t w30[MAXC] = { 0 };
    enum tpu_stop stop = TPU_RUNNING;
    while (stop == TPU_RUNNING && tpu_system_cycle(s) < MAXC) {
        stop = tpu_system_step(s);
        uint64_t t = tpu_system_cycle(s) - 1;     /* the cycle just computed */
        tpu_core *c = tpu_system_core(s, 0);
        for (unsigned k = 0; k < 4; k++)
            for (unsigned col = 0; col < 4; col++) {
                tpu_cell_view v;
                if (tpu_core_mxu_cell(c, 0, k, col, &v))
                    continue;
                if (v.loading) {
                    loads[t]++;
                    if (k == 0 && col == 0 && first_load00 < 0)
                        first_load00 = (int64_t)t;
                    if (k == 2 && col == 3 && load23 < 0)
                        load23 = (int64_t)t;
                }
                if (v.active) {
                    macs[t]++;
                    if (k == 3 && col == 3 && v.row == 0)
                        mac33_row0 = (int64_t)t;
                    if (k == 1 && col == 2 && v.row == 3)
                        psum12_row3 = tpu_f32_to_float(v.psum);
                }
                if (k == 3 && col == 0)
                    w30[t] = v.weight;
            }
    }
    uint64_t cycles = tpu_system_cycle(s);
    tpu_system_destroy(s);
    tpu_obj_free(&obj);
    int64_t l = first_load00 - 1, st = f.tile_start;
    if (stop != TPU_STOP_HALT || l < 0 || st < 0 || st + 5 >= MAXC || l + 3 >= MAXC
        || load23 < 0 || mac33_row0 < 0 || psum12_row3 < 0 || f.row_out[4] < 0) {
        lab_internal(g, "%s did not run as lab 1 expects", g->lab->starter);
        return -1;
    }
    want[0] = (double)l;
    want[1] = (double)load23;
    want[2] = loads[l + 3];
    want[3] = (double)st;
    want[4] = (double)mac33_row0;
    want[5] = psum12_row3;
    want[6] = macs[st + 5];
    want[7] = (double)f.row_out[4];
    want[8] = tpu_f32_to_float(tpu_f32_from_bf16(w30[st + 2]));
    want[9] = (double)cycles;
    return 0;
}

void lab01_grade(lab_grade *g)
{
    double want[10];
    if (lab01_answers(g, want))
        return;
    for (int i = 0; i < 10; i++) {
        char key[8];
        snprintf(key, sizeof key, "q%d", i + 1);
        /* cycles and counts exactly; the partial sum and weight to 0.1% */
        int value = i == 5 || i == 8;
        lab_check_num(g, key, key, want[i], value ? 1e-6 : 0, value ? 1e-3 : 0);
    }
}
