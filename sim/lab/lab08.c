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
 */
#include "labs.h"

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

void lab08_grade(lab_grade *g)
{
    tpu_config cfg;
    if (lab_machine(g, "tiny", NULL, 0, &cfg))
        return;
    size_t len;
    char *src = lab_read_program(g, g->lab->starter, &len);
    if (!src)
        return;
    tpu_asm_options ao = { .config = &cfg };
    tpu_object obj;
    tpu_asm_result ar;
    int arc = tpu_asm_assemble(src, len, g->lab->starter, &ao, &obj, &ar);
    free(src);
    tpu_asm_result_free(&ar);
    if (arc) {
        lab_internal(g, "%s does not assemble", g->lab->starter);
        return;
    }
    char err[512];
    tpu_system_opts so = { .cores = 1 };
    lab08_scan sc = { .pc = -1, .cycle = -1 };
    sc.sys = tpu_system_create(&cfg, &so, err, sizeof err);
    if (!sc.sys || tpu_system_load(sc.sys, &obj, err, sizeof err)) {
        lab_internal(g, "%s: %s", g->lab->starter, err);
        tpu_system_destroy(sc.sys);
        tpu_obj_free(&obj);
        return;
    }
    tpu_system_subscribe(sc.sys, (1u << TPU_EV_ISSUE) | (1u << TPU_EV_MEM_WRITE), on_event, &sc);
    enum tpu_stop stop = tpu_system_run(sc.sys, 100000);
    tpu_system_destroy(sc.sys);
    tpu_obj_free(&obj);
    if (stop != TPU_STOP_HALT || sc.pc < 0 || sc.cycle < 0) {
        lab_internal(g, "%s did not run as lab 8 expects", g->lab->starter);
        return;
    }
    lab_check_num(g, "cycle", "cycle", (double)sc.cycle, 0, 0);
    lab_check_word(g, "unit", "unit", "dma");
    lab_check_num(g, "pc", "pc", (double)sc.pc, 0, 0);
    lab_check_num(g, "rtl_addr", "rtl_addr", (double)(sc.hdst + sc.sstride), 0, 0);
    lab_check_word(g, "file", "file", "rtl/dma.v|dma.v");
    lab_check_num(g, "line", "line", 240, 3, 0);
}
