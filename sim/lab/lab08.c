/*
 * lab08.c - lab 8: find the bug (docs/labs/08-find-the-bug.md).  The lab's
 * RTL (make lab8-mutant: rtl/ with programs/labs/solutions/08-mutant.patch)
 * moves a DMA's destination to its next row by the source stride when it
 * copies VMEM to HBM.  The student runs programs/labs/08-find-bug.s in
 * lockstep, reads the mismatch report and the waveform, and answers in an
 * answers file.  The grader needs no RTL: it runs the program on the C
 * model and finds the first dma.v2h whose rows > 1 and strides differ,
 * the cycle the C model writes the first byte of that copy's second row
 * (where the RTL parts from it), and where the RTL writes that row
 * instead (the destination plus the source stride).
 *
 * Variants (lab_variant.h): the mutant is one prebuilt RTL, so the file,
 * the line and the unit are every student's; the program varies with -D
 * (POFF: where P lies in HBM, PAD: nops before P is written back, ORDER:
 * which half of P goes back first), and with it the cycle, the pc and
 * the RTL's address.  Variant 0 is the handout's: POFF = PAD = ORDER = 0.
 */
#include "labs.h"
#include "lab_variant.h"

#include <stdlib.h>
#include <string.h>

#include "asm.h"
#include "isa.h"

const lab_check lab08_checks[] = {
    { "cycle", 2, "the cycle of the first mismatch",
      "tpu-cosim --bench build/rtl/lab8/rtl-bench bug.bin: the first line of the report "
      "(docs/cosim.md, 'Reading a mismatch report')" },
    { "unit", 1, "the unit whose record differs",
      "the word after the cycle and core in the report's first line" },
    { "pc", 2, "the pc of the instruction in flight",
      "'in flight: pc N ...' in the report; tpu-as --list maps pcs to lines" },
    { "rtl_addr", 2, "the HBM address where the RTL writes that copy's second row",
      "the 'RTL only' record, or hbm_waddr in the waveform at the failing cycle "
      "(gtkwave bug.fail.fst sim/gtkwave/rtl.gtkw); compare with the copy's operands" },
    { "file", 1, "the RTL file with the bug",
      "the unit named in the report is implemented in rtl/UNIT.v (docs/architecture.md)" },
    { "line", 2, "the line of the bug in that file (within 3 lines)",
      "where the file advances a copy's addresses from one row to the next (timing.md T16)" },
    { 0 },
};

/* The line of rtl/dma.v that programs/labs/solutions/08-mutant.patch
 * changes (tests/labs.sh checks that the patch applies there). */
#define LAB08_LINE 311

/* ---- the variant ------------------------------------------------------------- */
typedef struct lab08_params {
    unsigned poff, pad, order;     /* the program's -D values */
} lab08_params;

static void lab08_params_of(uint64_t variant, lab08_params *p)
{
    *p = (lab08_params){ 0, 0, 0 };
    if (!variant)
        return;
    lab_rng r;
    lab_rng_seed(&r, variant, 8);
    p->poff = lab_rng_below(&r, 16);
    p->pad = lab_rng_below(&r, 16);
    p->order = lab_rng_below(&r, 2);
    if (!p->poff && !p->pad && !p->order)
        p->pad = 1 + lab_rng_below(&r, 15);     /* never the handout's program */
}

typedef struct lab08_scan {
    tpu_system *sys;
    int64_t pc;               /* the first affected dma.v2h */
    uint64_t hdst, sstride, dstride, rowbytes;
    int64_t cycle;            /* the C model writes row 1's first byte */
} lab08_scan;

static void on_event(void *ctx, const tpu_event *ev)
{
    lab08_scan *sc = ctx;
    if (ev->kind == TPU_EV_ISSUE && sc->pc < 0) {
        tpu_insn in;
        if (tpu_decode(ev->word, &in, NULL) || in.desc->opcode != TPU_OP_DMA_V2H)
            return;
        tpu_seq_view v;
        tpu_core_seq_view(tpu_system_core(sc->sys, ev->core), &v);
        int64_t rows = v.sreg[in.val[2]], rb = v.sreg[in.val[3]];
        int64_t ss = v.sreg[in.val[4]], ds = v.sreg[in.val[5]];
        if (rows > 1 && rb > 0 && ss != ds) {
            sc->pc = (int64_t)ev->pc;
            sc->hdst = (uint64_t)v.sreg[in.val[0]];
            sc->rowbytes = (uint64_t)rb;
            sc->sstride = (uint64_t)ss;
            sc->dstride = (uint64_t)ds;
        }
    } else if (ev->kind == TPU_EV_MEM_WRITE && sc->pc >= 0 && sc->cycle < 0
               && ev->space == TPU_SPACE_HBM) {
        uint64_t a = sc->hdst + sc->dstride;
        if (ev->addr <= a && a < ev->addr + ev->len)
            sc->cycle = (int64_t)ev->cycle;
    }
}

typedef struct lab08_answers {
    double cycle, pc, rtl_addr;
} lab08_answers;

static int lab08_answer(lab_grade *g, const lab08_params *p, lab08_answers *a)
{
    tpu_config cfg;
    if (lab_machine(g, "tiny", NULL, 0, &cfg))
        return -1;
    size_t len;
    char *src = lab_read_program(g, g->lab->starter, &len);
    if (!src)
        return -1;
    const tpu_asm_define defs[] = {
        { "POFF", 4, p->poff }, { "PAD", 3, p->pad }, { "ORDER", 5, p->order },
    };
    tpu_asm_options ao = { .config = &cfg, .defines = defs, .ndefines = LAB_N(defs) };
    tpu_object obj;
    tpu_asm_result ar;
    int arc = tpu_asm_assemble(src, len, g->lab->starter, &ao, &obj, &ar);
    free(src);
    tpu_asm_result_free(&ar);
    if (arc) {
        lab_internal(g, "%s does not assemble", g->lab->starter);
        return -1;
    }
    char err[512];
    tpu_system_opts so = { .cores = 1 };
    lab08_scan sc = { .pc = -1, .cycle = -1 };
    sc.sys = tpu_system_create(&cfg, &so, err, sizeof err);
    if (!sc.sys || tpu_system_load(sc.sys, &obj, err, sizeof err)) {
        lab_internal(g, "%s: %s", g->lab->starter, err);
        tpu_system_destroy(sc.sys);
        tpu_obj_free(&obj);
        return -1;
    }
    tpu_system_subscribe(sc.sys, (1u << TPU_EV_ISSUE) | (1u << TPU_EV_MEM_WRITE), on_event, &sc);
    enum tpu_stop stop = tpu_system_run(sc.sys, 100000);
    tpu_system_destroy(sc.sys);
    tpu_obj_free(&obj);
    if (stop != TPU_STOP_HALT || sc.pc < 0 || sc.cycle < 0) {
        lab_internal(g, "%s did not run as lab 8 expects", g->lab->starter);
        return -1;
    }
    a->cycle = (double)sc.cycle;
    a->pc = (double)sc.pc;
    a->rtl_addr = (double)(sc.hdst + sc.sstride);
    return 0;
}

void lab08_grade(lab_grade *g)
{
    lab08_params p;
    lab08_params_of(g->variant, &p);
    lab08_answers a;
    if (lab08_answer(g, &p, &a))
        return;
    lab_check_num(g, "cycle", "cycle", a.cycle, 0, 0);
    lab_check_word(g, "unit", "unit", "dma");
    lab_check_num(g, "pc", "pc", a.pc, 0, 0);
    lab_check_num(g, "rtl_addr", "rtl_addr", a.rtl_addr, 0, 0);
    lab_check_word(g, "file", "file", "rtl/dma.v|dma.v");
    lab_check_num(g, "line", "line", LAB08_LINE, 3, 0);
}

/* ---- the student's sheet ----------------------------------------------------------- */
static void lab08_sheet(lab_grade *g, const lab08_params *p, const lab08_answers *a, FILE *f)
{
    char defs[96] = "";
    if (p->poff || p->pad || p->order)
        snprintf(defs, sizeof defs, " -D POFF=%u -D PAD=%u -D ORDER=%u", p->poff, p->pad,
                 p->order);
    lab_variant_header(g, f);
    fprintf(f, "#\n"
               "# The program is programs/labs/08-find-bug.s on tiny");
    if (defs[0])
        fprintf(f, " with POFF = %u (P starts\n"
                   "# %u bytes further into HBM), PAD = %u (nops before P is written back)\n"
                   "# and ORDER = %u (%s)",
                p->poff, 64 * p->poff, p->pad, p->order,
                p->order ? "Y1 goes back first" : "Y0 goes back first");
    fprintf(f, ":\n"
               "#   tpu-as --config tiny%s -o bug.bin programs/labs/08-find-bug.s\n"
               "#   tpu-sim --config tiny bug.bin\n"
               "#   tpu-cosim --bench build/rtl/lab8/rtl-bench bug.bin\n"
               "# The RTL with the bug is build/rtl/lab8/rtl-bench (make lab8-mutant).\n"
               "# Numbers are decimal or 0x hex.\n",
            defs);
    fprintf(f, "\n# cycle: the cycle of the first mismatch between the RTL and the C model\n");
    if (a) fprintf(f, "cycle = %.0f\n", a->cycle); else fprintf(f, "cycle =\n");
    fprintf(f, "# unit: the unit whose record differs (seq, dma, mxu0, vpu or ici)\n");
    fprintf(f, "unit =%s\n", a ? " dma" : "");
    fprintf(f, "# pc: the pc of the instruction that unit has in flight\n");
    if (a) fprintf(f, "pc = %.0f\n", a->pc); else fprintf(f, "pc =\n");
    fprintf(f, "# rtl_addr: the HBM address where the RTL writes the second row of that\n"
               "# instruction's copy\n");
    if (a) fprintf(f, "rtl_addr = 0x%llx\n", (unsigned long long)a->rtl_addr);
    else fprintf(f, "rtl_addr =\n");
    fprintf(f, "# file: the RTL file with the bug (rtl/NAME.v)\n");
    fprintf(f, "file =%s\n", a ? " rtl/dma.v" : "");
    fprintf(f, "# line: the line of that file with the bug\n");
    if (a) fprintf(f, "line = %d\n", LAB08_LINE); else fprintf(f, "line =\n");
}

int lab08_print_variant(lab_grade *g, FILE *f)
{
    lab08_params p;
    lab08_params_of(g->variant, &p);
    lab08_sheet(g, &p, NULL, f);
    return 0;
}

int lab08_answers_file(lab_grade *g, FILE *f)
{
    lab08_params p;
    lab08_params_of(g->variant, &p);
    lab08_answers a;
    if (lab08_answer(g, &p, &a))
        return -1;
    lab08_sheet(g, &p, &a, f);
    return 0;
}
