/*
 * lab05.c - lab 5: the crossover batch and the roofline
 * (docs/labs/05-crossover.md).  programs/matmul.s at D x F on mid with
 * some HBM bandwidth; the answers come from the machine's numbers and from
 * runs the grader makes itself (the smallest B, a multiple of 8, that
 * tpu-sim's verdict calls compute-bound; the cycles at B = 128).
 *
 * Variants (lab_variant.h): the HBM bandwidth of mid (tpu-sim --set
 * hbm_bw=...), D and F.  Variant 0 is the handout's: mid as it is
 * (32 bytes per cycle), D = F = 256.
 */
#include "labs.h"
#include "lab_variant.h"

#include "report.h"

const lab_check lab05_checks[] = {
    { "ridge", 2, "the machine's ridge point in FLOP/byte (within 1%)",
      "peak FLOP per cycle over HBM bytes per cycle (docs/config.md, Presets; docs/roofline.md)" },
    { "intensity16", 2, "the intensity of the matmul at B = 16 (within 1%)",
      "2BDF FLOPs over the HBM bytes 2BD + 2DF + 4BF (docs/roofline.md, 'The crossover, "
      "exactly'); tpu-sim's 'intensity' line" },
    { "predicted", 2, "the crossover batch the exact byte count predicts (within 2%)",
      "B = R D F / (D F - R D - 2 R F) (docs/roofline.md)" },
    { "measured", 2, "the smallest B (a multiple of 8) tpu-sim calls compute-bound",
      "run programs/matmul.s on the lab's machine at B = 8, 16, ..., 128 with your D and F: "
      "the 'bound' line" },
    { "bound16", 1, "what bounds the run at B = 16 (memory or compute)",
      "tpu-sim's 'bound' line at B = 16; which of T_math and T_memory is larger" },
    { "cycles128", 1, "the cycles of the run at B = 128 (within 0.5%)",
      "tpu-sim's 'cycles' line" },
    { 0 },
};

/* ---- the variant ------------------------------------------------------------- */
typedef struct lab05_params {
    unsigned hbm;            /* HBM bytes per cycle: hbm_bw = hbm * 1e9 on mid's 1 GHz */
    unsigned d, f;
} lab05_params;

static void lab05_params_of(uint64_t variant, lab05_params *p)
{
    *p = (lab05_params){ .hbm = 32, .d = 256, .f = 256 };
    if (!variant)
        return;
    /* ridges 42.7 to 21.3, D and F 256 to 512: 7 x 9 x 9 = 567 variants.
     * The largest crossover, HBM 24 at D = F = 256, is measured at B = 96
     * (predicted 85.3): every variant turns compute-bound below B = 128. */
    static const unsigned hbms[] = { 24, 28, 32, 36, 40, 44, 48 };
    static const unsigned dims[] = { 256, 288, 320, 352, 384, 416, 448, 480, 512 };
    lab_rng r;
    lab_rng_seed(&r, variant, 5);
    p->hbm = LAB_PICK(&r, hbms);
    p->d = LAB_PICK(&r, dims);
    p->f = LAB_PICK(&r, dims);
    if (p->hbm == 32 && p->d == 256 && p->f == 256)
        p->hbm = 40;        /* never the handout's numbers */
}

static int lab05_machine(lab_grade *g, const lab05_params *p, tpu_config *cfg)
{
    char set[64];
    snprintf(set, sizeof set, "hbm_bw=%ue9", p->hbm);
    const char *sets[] = { set };
    return lab_machine(g, "mid", sets, 1, cfg);
}

static int run_mm(lab_grade *g, const tpu_config *cfg, const lab05_params *p, unsigned b,
                  lab_run *r)
{
    char db[32], dd[32], df[32];
    const char *defs[3] = { db, dd, df };
    snprintf(db, sizeof db, "B=%u", b);
    snprintf(dd, sizeof dd, "D=%u", p->d);
    snprintf(df, sizeof df, "F=%u", p->f);
    *r = (lab_run){ .cfg = cfg, .defines = defs, .ndefines = 3, .max_cycles = 4000000 };
    int rc = lab_run_own(g, r, "matmul.s");
    r->defines = NULL;
    return rc;
}

typedef struct lab05_answers {
    double ridge, inten, pred, measured, cycles128;
    int memory16;            /* B = 16 is memory-bound */
} lab05_answers;

static int lab05_answer(lab_grade *g, const lab05_params *p, lab05_answers *a)
{
    tpu_config cfg;
    if (lab05_machine(g, p, &cfg))
        return -1;
    double d = p->d, f = p->f, b = 16;
    double ridge = lab_peak(&cfg) / lab_hbm_bpc(&cfg);
    a->ridge = ridge;
    a->inten = 2 * b * d * f / (2 * b * d + 2 * d * f + 4 * b * f);
    a->pred = ridge * d * f / (d * f - ridge * d - 2 * ridge * f);
    a->memory16 = a->inten < ridge;
    unsigned measured = 0;
    lab_run r;
    for (unsigned bb = 8; bb <= 128 && !measured; bb += 8) {
        if (run_mm(g, &cfg, p, bb, &r))
            return -1;
        tpu_roofline rf;
        tpu_roofline_core(&cfg, &r.stats, &rf);
        if (rf.bound == TPU_BOUND_COMPUTE)
            measured = bb;
    }
    if (!measured) {
        lab_internal(g, "matmul.s on the lab's machine never turned compute-bound up to B = 128");
        return -1;
    }
    a->measured = measured;
    if (run_mm(g, &cfg, p, 128, &r))
        return -1;
    a->cycles128 = (double)r.cycles;
    return 0;
}

void lab05_grade(lab_grade *g)
{
    lab05_params p;
    lab05_params_of(g->variant, &p);
    lab05_answers a;
    if (lab05_answer(g, &p, &a))
        return;
    lab_check_num(g, "ridge", "ridge", a.ridge, 0, 0.01);
    lab_check_num(g, "intensity16", "intensity16", a.inten, 0, 0.01);
    lab_check_num(g, "predicted", "predicted", a.pred, 0, 0.02);
    lab_check_num(g, "measured", "measured", a.measured, 0, 0);
    lab_check_word(g, "bound16", "bound16",
                   a.memory16 ? "memory|memory-bound|hbm" : "compute|compute-bound|mxu|math");
    lab_check_num(g, "cycles128", "cycles128", a.cycles128, 0, 0.005);
}

/* ---- the student's sheet ----------------------------------------------------------- */
static void lab05_sheet(lab_grade *g, const lab05_params *p, const lab05_answers *a, FILE *f)
{
    char set[64] = "";
    if (p->hbm != 32)
        snprintf(set, sizeof set, " --set hbm_bw=%ue9", p->hbm);
    lab_variant_header(g, f);
    if (p->hbm == 32)
        fprintf(f, "#\n# The machine is mid as it is (HBM 32 bytes per cycle).\n");
    else
        fprintf(f, "#\n# The machine is mid with HBM at %u bytes per cycle: tpu-sim --set\n"
                   "# hbm_bw=%ue9 (%u GB/s at mid's 1 GHz; tpu-as needs no --set).\n",
                p->hbm, p->hbm, p->hbm);
    fprintf(f, "# The program is programs/matmul.s with D = %u, F = %u, e.g. at B = 16:\n"
               "#   tpu-as --config mid -D B=16 -D D=%u -D F=%u -o m.bin programs/matmul.s\n"
               "#   tpu-sim --config mid%s m.bin\n",
            p->d, p->f, p->d, p->f, set);
    fprintf(f, "\n# ridge: the machine's ridge point, FLOP per byte of HBM\n");
    if (a) fprintf(f, "ridge = %.6g\n", a->ridge); else fprintf(f, "ridge =\n");
    fprintf(f, "# intensity16: the matmul's arithmetic intensity at B = 16, FLOP per byte\n");
    if (a) fprintf(f, "intensity16 = %.6g\n", a->inten); else fprintf(f, "intensity16 =\n");
    fprintf(f, "# predicted: the batch where the exact byte count predicts the crossover\n");
    if (a) fprintf(f, "predicted = %.6g\n", a->pred); else fprintf(f, "predicted =\n");
    fprintf(f, "# measured: the smallest B (8, 16, 24, ... 128) that tpu-sim calls "
               "compute-bound\n");
    if (a) fprintf(f, "measured = %.0f\n", a->measured); else fprintf(f, "measured =\n");
    fprintf(f, "# bound16: what bounds the run at B = 16: memory or compute\n");
    if (a) fprintf(f, "bound16 = %s\n", a->memory16 ? "memory" : "compute");
    else fprintf(f, "bound16 =\n");
    fprintf(f, "# cycles128: the cycles of the run at B = 128\n");
    if (a) fprintf(f, "cycles128 = %.0f\n", a->cycles128); else fprintf(f, "cycles128 =\n");
}

int lab05_print_variant(lab_grade *g, FILE *f)
{
    lab05_params p;
    lab05_params_of(g->variant, &p);
    lab05_sheet(g, &p, NULL, f);
    return 0;
}

int lab05_answers_file(lab_grade *g, FILE *f)
{
    lab05_params p;
    lab05_params_of(g->variant, &p);
    lab05_answers a;
    if (lab05_answer(g, &p, &a))
        return -1;
    lab05_sheet(g, &p, &a, f);
    return 0;
}
