/*
 * lab06.c - lab 6: weights resident in VMEM and the VMEM ridge
 * (docs/labs/06-weights-in-vmem.md).  programs/matmul_sweep.s with
 * WVMEM=1 at D x F on mid (N = 16, W = mxu_wloads); the answers come from
 * the machine's numbers and from the grader's own run at B = 32.
 *
 * Variants (lab_variant.h): mid's mxu_wloads (1 or 2) and vmem_bw
 * (tpu-sim --set), D and F.  Variant 0 is the handout's: mid as it is
 * (W = 2, vmem_bw = 512), D = F = 256.
 */
#include "labs.h"
#include "lab_variant.h"

const lab_check lab06_checks[] = {
    { "vmem_ridge", 2, "the machine's VMEM ridge in FLOP/byte (within 1%)",
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
      "tpu-as --config mid -D WVMEM=1 -D WL=W -D LAT=20 -D HBMB=32 -D B=32 -D D=D -D F=F "
      "-D REPS=4 programs/matmul_sweep.s, then tpu-sim --config mid (with your --set) "
      "(tpu-lab variant 6 YOURNAME prints your command)" },
    { 0 },
};

/* ---- the variant ------------------------------------------------------------- */
typedef struct lab06_params {
    unsigned wl;             /* mxu_wloads */
    unsigned vmem_bw;        /* bytes per cycle */
    unsigned d, f;
} lab06_params;

static void lab06_params_of(uint64_t variant, lab06_params *p)
{
    *p = (lab06_params){ .wl = 2, .vmem_bw = 512, .d = 256, .f = 256 };
    if (!variant)
        return;
    /* W = 4 would put the crossover N/W at B = 4, where bound4 is asked;
     * 2 x 4 x (25 - 1) = 192 variants */
    static const unsigned wls[] = { 1, 2 };
    static const unsigned vbws[] = { 512, 640, 768, 1024 };
    static const unsigned dims[] = { 128, 192, 256, 320, 384 };
    lab_rng r;
    lab_rng_seed(&r, variant, 6);
    p->wl = LAB_PICK(&r, wls);
    p->vmem_bw = LAB_PICK(&r, vbws);
    p->d = LAB_PICK(&r, dims);
    p->f = LAB_PICK(&r, dims);
    if (p->d == 384 && p->f == 384)
        p->f = 320;         /* 384 x 384 at REPS = 4 is more than mid's 8192 instructions */
    if (p->wl == 2 && p->d == 256 && p->f == 256)
        p->wl = 1;          /* never the handout's answers */
}

/* tpu-sim's --set options for the variant ("" for the handout's). */
static const char *lab06_sets(const lab06_params *p, char *buf, size_t len)
{
    int n = 0;
    buf[0] = 0;
    if (p->wl != 2)
        n = snprintf(buf, len, " --set mxu_wloads=%u", p->wl);
    if (p->vmem_bw != 512 && n >= 0 && (size_t)n < len)
        snprintf(buf + n, len - (size_t)n, " --set vmem_bw=%u", p->vmem_bw);
    return buf;
}

typedef struct lab06_answers {
    double vmem_ridge, crossover, t_weights4, cycles32;
} lab06_answers;

static int lab06_answer(lab_grade *g, const lab06_params *p, lab06_answers *a)
{
    char swl[32], svb[32];
    snprintf(swl, sizeof swl, "mxu_wloads=%u", p->wl);
    snprintf(svb, sizeof svb, "vmem_bw=%u", p->vmem_bw);
    const char *sets[] = { swl, svb };
    tpu_config cfg;
    if (lab_machine(g, "mid", sets, LAB_N(sets), &cfg))
        return -1;
    char dwl[32], dd[32], df[32];
    snprintf(dwl, sizeof dwl, "WL=%u", p->wl);
    snprintf(dd, sizeof dd, "D=%u", p->d);
    snprintf(df, sizeof df, "F=%u", p->f);
    const char *defs[] = { "WVMEM=1", dwl, "LAT=20", "HBMB=32", "B=32", dd, df, "REPS=4" };
    lab_run r = { .cfg = &cfg, .defines = defs, .ndefines = LAB_N(defs), .max_cycles = 4000000 };
    if (lab_run_own(g, &r, "matmul_sweep.s"))
        return -1;
    double n = (double)cfg.mxu_n, w = (double)cfg.mxu_wloads, d = p->d, f = p->f;
    double tiles = (d / n) * (f / n) / (double)cfg.num_mxu;
    a->vmem_ridge = lab_peak(&cfg) / (double)cfg.vmem_bw;
    a->crossover = n / w;
    a->t_weights4 = tiles * n / w;
    a->cycles32 = (double)r.cycles;
    return 0;
}

void lab06_grade(lab_grade *g)
{
    lab06_params p;
    lab06_params_of(g->variant, &p);
    lab06_answers a;
    if (lab06_answer(g, &p, &a))
        return;
    /* B = 4 is below every variant's crossover (8 or 16), B = 32 above */
    lab_check_num(g, "vmem_ridge", "vmem_ridge", a.vmem_ridge, 0, 0.01);
    lab_check_num(g, "crossover", "crossover", a.crossover, 0, 0.05);
    lab_check_num(g, "t_weights4", "t_weights4", a.t_weights4, 0, 0.01);
    lab_check_word(g, "bound4", "bound4", "weights|weight|weight-load|weight-bound");
    lab_check_word(g, "bound32", "bound32", "compute|compute-bound|mxu|math");
    lab_check_num(g, "cycles32", "cycles32", a.cycles32, 0, 0.005);
}

/* ---- the student's sheet ----------------------------------------------------------- */
static void lab06_sheet(lab_grade *g, const lab06_params *p, const lab06_answers *a, FILE *f)
{
    char sets[96];
    lab06_sets(p, sets, sizeof sets);
    lab_variant_header(g, f);
    if (!sets[0])
        fprintf(f, "#\n# The machine is mid as it is (N = 16, W = mxu_wloads = 2, "
                   "vmem_bw = 512).\n");
    else
        fprintf(f, "#\n# The machine is mid with W = mxu_wloads = %u and vmem_bw = %u (N = 16):\n"
                   "# tpu-sim --config mid%s (tpu-as needs no --set).\n",
                p->wl, p->vmem_bw, sets);
    fprintf(f, "# The program is programs/matmul_sweep.s with W in VMEM, D = %u, F = %u:\n"
               "#   tpu-as --config mid -D WVMEM=1 -D WL=%u -D LAT=20 -D HBMB=32 \\\n"
               "#          -D B=32 -D D=%u -D F=%u -D REPS=4 -o s.bin programs/matmul_sweep.s\n"
               "#   tpu-sim --config mid%s s.bin\n"
               "# and the same at B = 4.\n",
            p->d, p->f, p->wl, p->d, p->f, sets);
    fprintf(f, "\n# vmem_ridge: the machine's VMEM ridge, peak FLOP per byte of VMEM bandwidth\n");
    if (a) fprintf(f, "vmem_ridge = %.6g\n", a->vmem_ridge); else fprintf(f, "vmem_ridge =\n");
    fprintf(f, "# crossover: the batch B where the matmul with W in VMEM turns compute-bound\n");
    if (a) fprintf(f, "crossover = %.6g\n", a->crossover); else fprintf(f, "crossover =\n");
    fprintf(f, "# t_weights4: T_weights at B = 4, in cycles\n");
    if (a) fprintf(f, "t_weights4 = %.6g\n", a->t_weights4); else fprintf(f, "t_weights4 =\n");
    fprintf(f, "# bound4: what bounds the run at B = 4: weights, compute or memory\n");
    fprintf(f, "bound4 =%s\n", a ? " weights" : "");
    fprintf(f, "# bound32: what bounds the run at B = 32: weights, compute or memory\n");
    fprintf(f, "bound32 =%s\n", a ? " compute" : "");
    fprintf(f, "# cycles32: the cycles of the run at B = 32 with REPS = 4\n");
    if (a) fprintf(f, "cycles32 = %.0f\n", a->cycles32); else fprintf(f, "cycles32 =\n");
}

int lab06_print_variant(lab_grade *g, FILE *f)
{
    lab06_params p;
    lab06_params_of(g->variant, &p);
    lab06_sheet(g, &p, NULL, f);
    return 0;
}

int lab06_answers_file(lab_grade *g, FILE *f)
{
    lab06_params p;
    lab06_params_of(g->variant, &p);
    lab06_answers a;
    if (lab06_answer(g, &p, &a))
        return -1;
    lab06_sheet(g, &p, &a, f);
    return 0;
}
