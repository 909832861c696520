/*
 * lab01.c - lab 1: read a weight-stationary matmul in the stepper
 * (docs/labs/01-stepper.md).  The student answers ten questions about
 * programs/labs/01-stepper.s on programs/tut4.cfg in an answers file; the
 * grader finds the right answers by running the same program on the C
 * model cycle by cycle and reading the same views the stepper prints
 * (tpu_core_mxu_cell, the MXU's events), so they follow the model.
 *
 * Variants (lab_variant.h): the program's -D values (M LHS rows, the data
 * offsets WOFF and XOFF, DELAY nops before the weight load) and which
 * cell, row and cycle each question asks about.  Variant 0 is the
 * handout's: M = 5, WOFF = XOFF = 1, DELAY = 0 and the cells of
 * programs/labs/01-answers.txt.
 */
#include "labs.h"
#include "lab_variant.h"

#include <stdlib.h>
#include <string.h>

#include "asm.h"
#include "fp.h"

const lab_check lab01_checks[] = {
    { "q1", 1, "the cycle the mxu.lw starts (l)",
      "step to the cycle where cell (0, 0) first shows an 'l' line: the load started one cycle "
      "before (tutorial section 3, timing.md T19-T20)" },
    { "q2", 1, "the cycle a given cell receives its weight",
      "T20: cell (k, c) gets its weight in cycle l + k + 1 + c ('l' line in show mxu)" },
    { "q3", 1, "how many cells receive a weight in a given cycle after l",
      "count the 'l' lines of show mxu in that cycle: one anti-diagonal k + c" },
    { "q4", 1, "the cycle the mxu.mm stream starts (s)",
      "break mxu-start 0, continue: the status line's cycle (T21)" },
    { "q5", 1, "the cycle a given cell multiplies a given LHS row",
      "T22: row b is in cell (k, c) in cycle s + b + 1 + k + c; or trace cell K C" },
    { "q6", 1, "the partial sum out of a given cell for a given LHS row",
      "trace cell K C, continue: the y after the arrow on the line of that LHS row" },
    { "q7", 1, "how many cells multiply in a given cycle after s",
      "show mxu in that cycle: count the cells of the LHS-row map that are not '.'" },
    { "q8", 1, "the cycle a given result row is written to VMEM",
      "T24: row b is written in s + b + 2N; or watch vmem Y+16b 16 (row b starts 16 b bytes "
      "into Y)" },
    { "q9", 1, "the weight in use (w) of a given cell in a given cycle after s",
      "show cell K C in that cycle: the swap reaches (k, c) in cycle s + 1 + k + c (T22)" },
    { "q10", 1, "the cycles of the whole run",
      "tpu-sim without --step: the 'cycles' line; or 'continue' to the end in the stepper" },
    { 0 },
};

/* ---- the variant ------------------------------------------------------------- */
enum { L1_N = 4, L1_MAXM = 8 };

typedef struct lab01_params {
    unsigned m, woff, xoff, delay;   /* the program's -D values */
    unsigned q2k, q2c;               /* q2: the cell that receives its weight */
    unsigned q3a;                    /* q3: cycle l + q3a */
    unsigned q5k, q5c, q5b;          /* q5: the cell and the LHS row */
    unsigned q6k, q6c, q6b;          /* q6: the cell and the LHS row */
    unsigned q7a;                    /* q7: cycle s + q7a */
    unsigned q8b;                    /* q8: the result row */
    unsigned q9k, q9c, q9a;          /* q9: the cell, in cycle s + q9a */
} lab01_params;

static const lab01_params lab01_handout = {
    .m = 5, .woff = 1, .xoff = 1, .delay = 0,
    .q2k = 2, .q2c = 3, .q3a = 3, .q5k = 3, .q5c = 3, .q5b = 0, .q6k = 1, .q6c = 2, .q6b = 3,
    .q7a = 5, .q8b = 4, .q9k = 3, .q9c = 0, .q9a = 2,
};

static void lab01_params_of(uint64_t variant, lab01_params *p)
{
    *p = lab01_handout;
    if (!variant)
        return;
    lab_rng r;
    lab_rng_seed(&r, variant, 1);
    p->m = 4 + lab_rng_below(&r, L1_MAXM - 3);        /* 4..8 rows */
    p->woff = 1 + lab_rng_below(&r, 4);
    p->xoff = 1 + lab_rng_below(&r, 4);
    p->delay = 1 + lab_rng_below(&r, 8);              /* never the handout's 0 */
    p->q2k = lab_rng_below(&r, L1_N);
    p->q2c = lab_rng_below(&r, L1_N);
    p->q3a = 1 + lab_rng_below(&r, 2 * L1_N - 1);     /* anti-diagonals 0..6 */
    p->q5k = lab_rng_below(&r, L1_N);
    p->q5c = lab_rng_below(&r, L1_N);
    p->q5b = lab_rng_below(&r, p->m);
    p->q6k = lab_rng_below(&r, L1_N);
    p->q6c = lab_rng_below(&r, L1_N);
    p->q6b = lab_rng_below(&r, p->m);
    p->q7a = 2 + lab_rng_below(&r, p->m + 4);         /* s + 2 .. s + m + 5 */
    p->q8b = lab_rng_below(&r, p->m);
    p->q9k = lab_rng_below(&r, L1_N);
    p->q9c = lab_rng_below(&r, L1_N);
    p->q9a = lab_rng_below(&r, 2 * L1_N);             /* s .. s + 7 */
}

/* The questions, with the variant's numbers filled in. */
static void lab01_question(const lab01_params *p, int i, char *buf, size_t len)
{
    switch (i) {
    case 0: snprintf(buf, len, "in which cycle does the mxu.lw start (l)?"); break;
    case 1:
        snprintf(buf, len, "in which cycle does cell (%u, %u) receive its weight (the 'l' line)?",
                 p->q2k, p->q2c);
        break;
    case 2: snprintf(buf, len, "how many cells receive a weight in cycle l + %u?", p->q3a); break;
    case 3: snprintf(buf, len, "in which cycle does the mxu.mm stream start (s)?"); break;
    case 4:
        snprintf(buf, len, "in which cycle does cell (%u, %u) do the multiply-add of LHS row %u?",
                 p->q5k, p->q5c, p->q5b);
        break;
    case 5:
        snprintf(buf, len, "what partial sum leaves cell (%u, %u) for LHS row %u?", p->q6k, p->q6c,
                 p->q6b);
        break;
    case 6: snprintf(buf, len, "how many cells do a multiply-add in cycle s + %u?", p->q7a); break;
    case 7: snprintf(buf, len, "in which cycle is result row %u written to VMEM?", p->q8b); break;
    case 8:
        snprintf(buf, len, "what weight is in use (w) in cell (%u, %u) in cycle s + %u?", p->q9k,
                 p->q9c, p->q9a);
        break;
    default: snprintf(buf, len, "how many cycles does the whole run take?"); break;
    }
}

/* ---- the answers, from the model ------------------------------------------------ */
typedef struct lab01_facts {
    int64_t tile_start;       /* cycle of the stream's start */
    int64_t row_out[L1_MAXM]; /* cycle result row b is written */
} lab01_facts;

static void on_event(void *ctx, const tpu_event *ev)
{
    lab01_facts *f = ctx;
    if (ev->kind == TPU_EV_MXU_TILE_START && f->tile_start < 0)
        f->tile_start = (int64_t)ev->cycle;
    if (ev->kind == TPU_EV_MXU_ROW_OUT && ev->index < L1_MAXM)
        f->row_out[ev->index] = (int64_t)ev->cycle;
}

static int lab01_answers(lab_grade *g, const lab01_params *p, double want[10])
{
    tpu_config cfg;
    if (lab_machine(g, "tut4.cfg", NULL, 0, &cfg))
        return -1;
    size_t len;
    char *src = lab_read_program(g, g->lab->starter, &len);
    if (!src)
        return -1;
    const tpu_asm_define defs[] = {
        { "M", 1, p->m }, { "WOFF", 4, p->woff }, { "XOFF", 4, p->xoff },
        { "DELAY", 5, p->delay },
    };
    tpu_asm_options ao = { .config = &cfg, .defines = defs, .ndefines = LAB_N(defs) };
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
    enum { MAXC = 256 };
    int64_t first_load00 = -1, load_q2 = -1, mac_q5 = -1;
    double psum_q6 = 0;
    int have_q6 = 0;
    unsigned loads[MAXC] = { 0 }, macs[MAXC] = { 0 };
    uint16_t w_q9[MAXC] = { 0 };
    enum tpu_stop stop = TPU_RUNNING;
    while (stop == TPU_RUNNING && tpu_system_cycle(s) < MAXC) {
        stop = tpu_system_step(s);
        uint64_t t = tpu_system_cycle(s) - 1;     /* the cycle just computed */
        tpu_core *c = tpu_system_core(s, 0);
        for (unsigned k = 0; k < L1_N; k++)
            for (unsigned col = 0; col < L1_N; col++) {
                tpu_cell_view v;
                if (tpu_core_mxu_cell(c, 0, k, col, &v))
                    continue;
                if (v.loading) {
                    loads[t]++;
                    if (k == 0 && col == 0 && first_load00 < 0)
                        first_load00 = (int64_t)t;
                    if (k == p->q2k && col == p->q2c && load_q2 < 0)
                        load_q2 = (int64_t)t;
                }
                if (v.active) {
                    macs[t]++;
                    if (k == p->q5k && col == p->q5c && v.row == p->q5b)
                        mac_q5 = (int64_t)t;
                    if (k == p->q6k && col == p->q6c && v.row == p->q6b) {
                        psum_q6 = tpu_f32_to_float(v.psum);
                        have_q6 = 1;
                    }
                }
                if (k == p->q9k && col == p->q9c)
                    w_q9[t] = v.weight;
            }
    }
    uint64_t cycles = tpu_system_cycle(s);
    tpu_system_destroy(s);
    tpu_obj_free(&obj);
    int64_t l = first_load00 - 1, st = f.tile_start;
    if (stop != TPU_STOP_HALT || l < 0 || st < 0 || st + p->q7a >= MAXC || st + p->q9a >= MAXC
        || l + p->q3a >= MAXC || load_q2 < 0 || mac_q5 < 0 || !have_q6 || f.row_out[p->q8b] < 0) {
        lab_internal(g, "%s did not run as lab 1 expects", g->lab->starter);
        return -1;
    }
    want[0] = (double)l;
    want[1] = (double)load_q2;
    want[2] = loads[l + p->q3a];
    want[3] = (double)st;
    want[4] = (double)mac_q5;
    want[5] = psum_q6;
    want[6] = macs[st + p->q7a];
    want[7] = (double)f.row_out[p->q8b];
    want[8] = tpu_f32_to_float(tpu_f32_from_bf16(w_q9[st + p->q9a]));
    want[9] = (double)cycles;
    return 0;
}

void lab01_grade(lab_grade *g)
{
    lab01_params p;
    lab01_params_of(g->variant, &p);
    double want[10];
    if (lab01_answers(g, &p, want))
        return;
    for (int i = 0; i < 10; i++) {
        char key[8];
        snprintf(key, sizeof key, "q%d", i + 1);
        /* cycles and counts exactly; the partial sum and weight to 0.1% */
        int value = i == 5 || i == 8;
        lab_check_num(g, key, key, want[i], value ? 1e-6 : 0, value ? 1e-3 : 0);
    }
}

/* ---- the student's sheet ----------------------------------------------------------- */
static void lab01_sheet(lab_grade *g, const lab01_params *p, const double *want, FILE *f)
{
    lab_variant_header(g, f);
    fprintf(f, "#\n"
               "# The program is programs/labs/01-stepper.s on programs/tut4.cfg (one 4x4\n"
               "# MXU) with M = %u LHS rows, W[k][c] = k + 4c + %u, X[b][k] = b + k + %u\n"
               "# and %u nop%s before the weight load:\n"
               "#   tpu-as --config programs/tut4.cfg -D M=%u -D WOFF=%u -D XOFF=%u -D DELAY=%u \\\n"
               "#          -o lab1.bin programs/labs/01-stepper.s\n"
               "#   tpu-sim --config programs/tut4.cfg --step lab1.bin\n"
               "# \"Cycle\" means the cycle number the stepper prints (cycle 0 is the\n"
               "# first after reset).  Cells are (k, c): row k from the top, column c from\n"
               "# the left.  l is the cycle the mxu.lw starts, s the cycle the mxu.mm\n"
               "# stream starts.\n",
            p->m, p->woff, p->xoff, p->delay, p->delay == 1 ? "" : "s", p->m, p->woff, p->xoff,
            p->delay);
    for (int i = 0; i < 10; i++) {
        char q[160];
        lab01_question(p, i, q, sizeof q);
        fprintf(f, "%s# q%d: %s\n", i ? "" : "\n", i + 1, q);
        if (want)
            fprintf(f, "q%d = %.9g\n", i + 1, want[i]);
        else
            fprintf(f, "q%d =\n", i + 1);
    }
}

int lab01_print_variant(lab_grade *g, FILE *f)
{
    lab01_params p;
    lab01_params_of(g->variant, &p);
    lab01_sheet(g, &p, NULL, f);
    return 0;
}

int lab01_answers_file(lab_grade *g, FILE *f)
{
    lab01_params p;
    lab01_params_of(g->variant, &p);
    double want[10];
    if (lab01_answers(g, &p, want))
        return -1;
    lab01_sheet(g, &p, want, f);
    return 0;
}
