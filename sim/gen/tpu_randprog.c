/*
 * tpu_randprog.c - tpu-randprog: constrained-random test programs for the
 * co-simulation of the C model and the RTL (docs/cosim.md).
 *
 *   tpu-randprog [--config NAME|FILE] [--seed N] [--length N] [--errors]
 *                [--cores N] [--int8] [-o OUT.s] [--coverage]
 *
 * One seed makes one program, printed as assembly text for tpu-as.  The
 * program is a weighted mix of every instruction class the config has
 * (scalar ALU, branches and bounded loops, DMA, MXU, VPU, semaphores,
 * sync; with --cores 2 or 4 also dma.ici) plus directed hazard streams
 * (back-to-back weight swaps, DMA into a tile the MXU is reading, full
 * queues, reused semaphores, extreme strides, special fp values; with
 * several cores transfers landing in tiles the neighbour's units are using,
 * back-to-back transfers on one link, and every VMEM client at once).
 * The instructions come from the table in cmodel/isa.def: an instruction
 * this file knows nothing about is still generated when its operands are
 * plain registers and immediates.
 *
 * Every program terminates: loops are counted, every sem.wait takes no
 * more than the increments already dispatched before it, every memory
 * footprint is checked here against the config as T5 checks it, and the
 * program ends with halt.  A program for several cores (a ring of two or
 * four: rtl-bench2, rtl-bench4, tpu-sim --cores N) runs on every core, and
 * its control flow never depends on cid, so each core's transfers are
 * matched by a neighbour's: a dma.ici on port p lands on the next core
 * (port 0) or the previous one (port 1), and every core runs it, so the
 * rsem increments a core waits for are those of its neighbour's copy of a
 * dma.ici the core has itself dispatched.  Data
 * (VPU scalars, some source addresses) do depend on cid.  --errors inserts
 * one run-time error on purpose (out-of-range or misaligned access,
 * illegal word, deadlock, bad pc, no such MXU, an ICI port without a
 * neighbour); the C model and the RTL must then stop at the same cycle.
 * int8 (on by default on machines with mxu_int8 = 1, where the MXU has both
 * modes; --int8 asks for it, --no-int8 turns it off) makes about half the
 * weight loads mxu.lw.i8, every stream after one of them an int8 stream
 * (the generator keeps each MXU's mode as the sequencer does, T5b, so no
 * stream meets weights of the other mode), and one DMA from HBM in four a
 * widening dma.h2v.i8; --errors may then pick a stream against weights of
 * the other mode (T5b).  Without int8 the generator draws no random number
 * more than it did before int8.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "isa.h"

/* Register roles: operands of dispatched instructions are loaded into
 * s1..s9 right before them; random ALU code works on s10..s25; s26..s29
 * are loop counters and jump addresses. */
#define REG_OPD_FIRST 1
#define REG_SCRATCH_FIRST 10
#define REG_SCRATCH_LAST 25
#define REG_LINK 26
#define REG_JR 27
#define REG_LOOP 28

/* Data laid out in VMEM and HBM at the start of the program (bytes). */
#define DATA_BF16 0x0000     /* random bf16, 8 KiB */
#define DATA_SPECIAL 0x2000  /* special bf16 and fp32 values, 1 KiB */
#define DATA_F32 0x2400      /* random fp32, 4 KiB */

typedef struct gen {
    uint64_t rng;
    tpu_config cfg;
    FILE *out;
    char cfgname[256];
    unsigned n, nmxu, elems, qdepth;
    unsigned cores;           /* 1, or 2 or 4: a ring with dma.ici */
    uint64_t vwin, hwin;      /* windows most accesses stay in */
    uint64_t pending[TPU_NUM_SEMS];
    int errors, error_done;
    unsigned labels;
    long budget;              /* instructions still to emit */
    long emitted;
    unsigned loop_depth;
    int int8;                 /* int8 MXU work and dma.h2v.i8 (default: mxu_int8 = 1) */
    uint8_t w_i8[TPU_MAX_MXUS];   /* each MXU's weights: int8 (T5b) */
} gen;

/* ---- random numbers (splitmix64: small and the same everywhere) ---------- */

static uint64_t rnd(gen *g)
{
    uint64_t z = (g->rng += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* A number in 0..n-1 (n > 0). */
static uint64_t below(gen *g, uint64_t n) { return rnd(g) % n; }

/* A number in lo..hi inclusive. */
static int64_t range(gen *g, int64_t lo, int64_t hi)
{
    return lo + (int64_t)below(g, (uint64_t)(hi - lo) + 1);
}

/* True with probability 1/n. */
static int one_in(gen *g, unsigned n) { return below(g, n) == 0; }

/* ---- output ------------------------------------------------------------- */

/* One instruction line; counts it against the budget. */
static void insn(gen *g, const char *f, ...) __attribute__((format(printf, 2, 3)));
static void insn(gen *g, const char *f, ...)
{
    va_list ap;
    va_start(ap, f);
    fputs("        ", g->out);
    vfprintf(g->out, f, ap);
    fputc('\n', g->out);
    va_end(ap);
    g->budget--;
    g->emitted++;
}

static void line(gen *g, const char *f, ...) __attribute__((format(printf, 2, 3)));
static void line(gen *g, const char *f, ...)
{
    va_list ap;
    va_start(ap, f);
    vfprintf(g->out, f, ap);
    fputc('\n', g->out);
    va_end(ap);
}

static void li(gen *g, unsigned reg, int64_t v)
{
    if (v == 0 && one_in(g, 2)) {
        insn(g, "add     s%u, zero, zero", reg);
        return;
    }
    if (v >= INT32_MIN && v <= INT32_MAX) {
        int64_t d = range(g, -64, 64);
        if (one_in(g, 6) && v - d >= INT32_MIN && v - d <= INT32_MAX) {
            /* made by an ALU op the cycle before its use */
            insn(g, "li      s%u, %" PRId64, reg, v - d);
            insn(g, "addi    s%u, s%u, %" PRId64, reg, reg, d);
        } else {
            insn(g, "li      s%u, %" PRId64, reg, v);
        }
        return;
    }
    insn(g, "li      s%u, %" PRId64, reg, (int64_t)(int32_t)(v >> 32));
    insn(g, "slli    s%u, s%u, 32", reg, reg);
    insn(g, "li      s%u, %" PRId64, REG_JR, (int64_t)(uint32_t)v);
    insn(g, "slli    s%u, s%u, 32", REG_JR, REG_JR);
    insn(g, "srli    s%u, s%u, 32", REG_JR, REG_JR);
    insn(g, "or      s%u, s%u, s%u", reg, reg, REG_JR);
}

/* ---- semaphores --------------------------------------------------------- */

/* A semaphore to increment: mostly a few reused ones. */
static unsigned pick_sem(gen *g)
{
    return one_in(g, 4) ? (unsigned)below(g, TPU_NUM_SEMS) : (unsigned)below(g, 3);
}

/* Wait on some of what has been dispatched (never more: no deadlock). */
static void sem_wait_some(gen *g)
{
    unsigned s = (unsigned)below(g, TPU_NUM_SEMS);
    for (unsigned i = 0; i < TPU_NUM_SEMS && !g->pending[s]; i++)
        s = (s + 1) % TPU_NUM_SEMS;
    if (!g->pending[s]) {
        insn(g, "sem.wait %u, 0", s);
        return;
    }
    uint64_t k = one_in(g, 2) ? g->pending[s] : 1 + below(g, g->pending[s]);
    insn(g, "sem.wait %u, %" PRIu64, s, k);
    g->pending[s] -= k;
}

/* ---- memory footprints -------------------------------------------------- */

/* A stride for `rows` rows of `width` bytes, a multiple of `align`: 0,
 * the row width, small, negative or large (up to the window). */
static int64_t pick_stride(gen *g, uint64_t rows, uint64_t width, uint64_t align, uint64_t win)
{
    int64_t s;
    switch (below(g, 7)) {
    case 0: s = 0; break;
    case 1: s = (int64_t)width; break;
    case 2: s = -(int64_t)width; break;
    case 3: s = range(g, 0, 64); break;
    case 4: s = -range(g, 0, 64); break;
    case 5: s = rows > 1 ? (int64_t)((win - width) / (rows - 1)) : 0; break;   /* large */
    default: s = -(rows > 1 ? (int64_t)((win - width) / (rows - 1)) : 0); break;
    }
    s -= s % (int64_t)align;
    return s;
}

/* A base address so that rows x width at stride fits in [0, win): returns
 * 0 and sets *base, or -1 when no base fits (the caller shrinks). */
static int place(gen *g, uint64_t rows, uint64_t width, int64_t stride, uint64_t align,
                 uint64_t win, uint64_t *base)
{
    if (rows == 0 || width == 0) {
        *base = below(g, win / align) * align;
        return 0;
    }
    int64_t span = (int64_t)(rows - 1) * stride;
    int64_t lo = span < 0 ? -span : 0;                      /* smallest base */
    int64_t hi = (int64_t)win - (int64_t)width - (span > 0 ? span : 0);
    lo = (lo + (int64_t)align - 1) / (int64_t)align * (int64_t)align;
    if (hi < lo)
        return -1;
    uint64_t slots = (uint64_t)(hi - lo) / align + 1;
    uint64_t k = below(g, slots);
    if (one_in(g, 8))
        k = one_in(g, 2) ? 0 : slots - 1;                     /* at an edge */
    *base = (uint64_t)lo + k * align;
    return 0;
}

/* Chooses stride and base for a 2-D operand; far ones use all of memory. */
static void region(gen *g, uint64_t rows, uint64_t width, uint64_t align, uint64_t win,
                   uint64_t memsize, int64_t *stride, uint64_t *base)
{
    if (one_in(g, 12))
        win = memsize;
    *stride = pick_stride(g, rows, width, align, win);
    while (place(g, rows, width, *stride, align, win, base) != 0)
        *stride /= 2, *stride -= *stride % (int64_t)align;
}

/* ---- instruction classes ------------------------------------------------ */

/* The mnemonic of a weight load on MXU m, padded to 9: with --int8 int8
 * half the time (the MXU's weights remember it); else mxu.lw. */
static const char *lw_op(gen *g, unsigned m)
{
    if (!g->int8)
        return "mxu.lw   ";
    g->w_i8[m] = (uint8_t)one_in(g, 2);
    return g->w_i8[m] ? "mxu.lw.i8" : "mxu.lw   ";
}

/* A stream on MXU m in the mode of its weights. */
static const char *mm_op(const gen *g, unsigned m, int mma)
{
    if (g->int8 && g->w_i8[m])
        return mma ? "mxu.mma.i8" : "mxu.mm.i8";
    return mma ? "mxu.mma" : "mxu.mm ";
}

/* An instruction of the sequencer that writes a register from registers
 * and numbers only: the table's class alu. */
static int is_alu(const tpu_insn_desc *d)
{
    return d->cls == TPU_CLASS_ALU;
}

static void gen_alu(gen *g)
{
    const tpu_insn_desc *d;
    for (;;) {   /* a table entry of the sequencer whose operands are registers and numbers */
        d = &tpu_isa_table[below(g, tpu_isa_count)];
        if (d->unit != TPU_UNIT_SEQ || d->noperands == 0)
            continue;
        if (is_alu(d))
            break;
    }
    char buf[160];
    int len = snprintf(buf, sizeof buf, "%-8s", d->mnemonic);
    for (unsigned i = 0; i < d->noperands; i++) {
        const char *sep = i ? ", " : " ";
        unsigned r = (unsigned)range(g, REG_SCRATCH_FIRST, REG_SCRATCH_LAST);
        int64_t v;
        switch (d->op[i].kind) {
        case TPU_K_SREGW:
            len += snprintf(buf + len, sizeof buf - (size_t)len, "%ss%u", sep, r);
            break;
        case TPU_K_SREG:   /* cid only on one core: control flow must not depend on it */
            if (one_in(g, 8))
                len += snprintf(buf + len, sizeof buf - (size_t)len, "%s%s", sep,
                                g->cores == 1 && one_in(g, 2) ? "cid" : "zero");
            else
                len += snprintf(buf + len, sizeof buf - (size_t)len, "%ss%u", sep, r);
            break;
        case TPU_K_SHAMT:
            len += snprintf(buf + len, sizeof buf - (size_t)len, "%s%u", sep,
                            (unsigned)below(g, 64));
            break;
        default:   /* SIMM, UIMM */
            switch (below(g, 4)) {
            case 0: v = range(g, -8, 8); break;
            case 1: v = one_in(g, 2) ? INT32_MIN : INT32_MAX; break;
            default: v = (int32_t)rnd(g); break;
            }
            if (d->op[i].kind == TPU_K_UIMM)
                v = (uint32_t)v;
            len += snprintf(buf + len, sizeof buf - (size_t)len, "%s%" PRId64, sep, v);
            break;
        }
    }
    insn(g, "%s", buf);
}

/* Control flow: a forward jump or branch over ALU code, jal/jr, or a
 * counted loop around random work. */
static void gen_random_block(gen *g, unsigned n, int in_loop);

static void gen_control(gen *g)
{
    unsigned l = g->labels++;
    switch (below(g, 5)) {
    case 0:
        insn(g, "jmp     L%u", l);
        for (unsigned i = 0; i < 1 + below(g, 3); i++)
            gen_alu(g);
        line(g, "L%u:", l);
        break;
    case 1: {
        static const char *const br[] = {"beq", "bne", "blt", "bge", "bltu", "bgeu"};
        insn(g, "%-8s s%u, s%u, L%u", br[below(g, 6)],
             (unsigned)range(g, REG_SCRATCH_FIRST, REG_SCRATCH_LAST),
             (unsigned)range(g, REG_SCRATCH_FIRST, REG_SCRATCH_LAST), l);
        for (unsigned i = 0; i < 1 + below(g, 3); i++)
            gen_alu(g);
        line(g, "L%u:", l);
        break;
    }
    case 2:
        insn(g, "jal     s%u, L%u", REG_LINK, l);
        gen_alu(g);
        line(g, "L%u:", l);
        break;
    case 3:
        insn(g, "li      s%u, L%u", REG_JR, l);
        insn(g, "jr      s%u", REG_JR);
        gen_alu(g);
        line(g, "L%u:", l);
        break;
    default:
        if (g->loop_depth >= 2 || g->budget < 40) {
            insn(g, "nop");
            break;
        }
        /* A counted loop: its body's semaphores are waited for inside the
         * body or left pending (times the count). */
        {
            unsigned count = (unsigned)range(g, 1, 4);
            uint64_t before[TPU_NUM_SEMS];
            memcpy(before, g->pending, sizeof before);
            memset(g->pending, 0, sizeof g->pending);
            g->loop_depth++;
            insn(g, "li      s%u, %u", REG_LOOP + g->loop_depth - 1, count);
            line(g, "L%u:", l);
            gen_random_block(g, (unsigned)range(g, 2, 8), 1);
            insn(g, "addi    s%u, s%u, -1", REG_LOOP + g->loop_depth - 1,
                 REG_LOOP + g->loop_depth - 1);
            insn(g, "bne     s%u, zero, L%u", REG_LOOP + g->loop_depth - 1, l);
            g->loop_depth--;
            for (unsigned s = 0; s < TPU_NUM_SEMS; s++)
                g->pending[s] = before[s] + count * g->pending[s];
        }
        break;
    }
}

static void gen_dma(gen *g)
{
    int to_hbm = one_in(g, 2);
    uint64_t rows = one_in(g, 8) ? 0 : (uint64_t)range(g, 1, 12);
    uint64_t width = one_in(g, 8) ? 0 : (uint64_t)(one_in(g, 3) ? range(g, 1, 8) : range(g, 1, 160));
    int wide = g->int8 && !to_hbm && one_in(g, 4);          /* dma.h2v.i8: 2 bytes of VMEM a byte */
    int64_t vs, hs;
    uint64_t vb, hb;
    region(g, rows, wide ? 2 * width : width, wide ? 2 : 1, g->vwin, g->cfg.vmem_bytes, &vs, &vb);
    region(g, rows, width, 1, g->hwin, g->cfg.hbm_bytes, &hs, &hb);
    unsigned sem = pick_sem(g);
    li(g, 1, (int64_t)(to_hbm ? hb : vb));
    li(g, 2, (int64_t)(to_hbm ? vb : hb));
    li(g, 3, (int64_t)rows);
    li(g, 4, (int64_t)width);
    li(g, 5, to_hbm ? vs : hs);
    li(g, 6, to_hbm ? hs : vs);
    insn(g, "%s s1, s2, s3, s4, s5, s6, %u", to_hbm ? "dma.v2h" : wide ? "dma.h2v.i8" : "dma.h2v",
         sem);
    g->pending[sem]++;
}

static void gen_mxu_lw(gen *g, unsigned m)
{
    int64_t st;
    uint64_t b;
    region(g, g->n, 2 * g->n, 2, g->vwin, g->cfg.vmem_bytes, &st, &b);
    if (one_in(g, 3)) {     /* a tile of the special values */
        b = DATA_SPECIAL;
        st = 2 * (int64_t)g->n;
    }
    unsigned sem = pick_sem(g);
    li(g, 1, (int64_t)b);
    li(g, 2, st);
    insn(g, "%s %u, s1, s2, %u", lw_op(g, m), m, sem);
    g->pending[sem]++;
}

static void gen_mxu_mm(gen *g, unsigned m)
{
    uint64_t rows = one_in(g, 10) ? 0 : (uint64_t)range(g, 1, 2 * g->n + 4);
    int64_t ss, ds;
    uint64_t sb, db;
    region(g, rows, 2 * g->n, 2, g->vwin, g->cfg.vmem_bytes, &ss, &sb);
    region(g, rows, 4 * g->n, 4, g->vwin, g->cfg.vmem_bytes, &ds, &db);
    unsigned sem = pick_sem(g);
    li(g, 1, (int64_t)db);
    li(g, 2, (int64_t)sb);
    li(g, 3, (int64_t)rows);
    li(g, 4, ss);
    li(g, 5, ds);
    insn(g, "%s %u, s1, s2, s3, s4, s5, %u", mm_op(g, m, one_in(g, 3)), m, sem);
    g->pending[sem]++;
}

static void gen_mxu(gen *g)
{
    unsigned m = (unsigned)below(g, g->nmxu);
    if (one_in(g, 2))
        gen_mxu_lw(g, m);
    else
        gen_mxu_mm(g, m);
}

/* A VPU instruction; memory ones split the address between rs and imm. */
static void gen_vpu(gen *g)
{
    const tpu_insn_desc *d = &tpu_isa_table[below(g, tpu_isa_count)];
    while (d->unit != TPU_UNIT_VPU && d->unit != TPU_UNIT_XLU)   /* the XLU: on vregs too */
        d = &tpu_isa_table[below(g, tpu_isa_count)];
    int is_mem = d->cls == TPU_CLASS_LOAD || d->cls == TPU_CLASS_STORE;
    if (is_mem) {
        int bf16 = (d->flags & TPU_FL_BF16) != 0;
        uint64_t bytes = (bf16 ? 2 : 4) * (uint64_t)g->elems, align = bf16 ? 2 : 4;
        int64_t st;
        uint64_t a;
        region(g, 1, bytes, align, g->vwin, g->cfg.vmem_bytes, &st, &a);
        if (d->cls == TPU_CLASS_LOAD && one_in(g, 3))
            a = DATA_SPECIAL;
        int64_t imm = one_in(g, 3) ? 0 : range(g, -4096, 4096);
        li(g, 8, (int64_t)a - imm);
        insn(g, "%-8s v%u, s8, %" PRId64, d->mnemonic, (unsigned)below(g, TPU_NUM_VREGS), imm);
        return;
    }
    char buf[160];
    int len = snprintf(buf, sizeof buf, "%-8s", d->mnemonic);
    for (unsigned i = 0; i < d->noperands; i++) {
        const char *sep = i ? ", " : " ";
        if (tpu_kind_regfile(d->op[i].kind) == 'v') {
            len += snprintf(buf + len, sizeof buf - (size_t)len, "%sv%u", sep,
                            (unsigned)(one_in(g, 2) ? below(g, 4) : below(g, TPU_NUM_VREGS)));
        } else if (d->op[i].kind == TPU_K_UIMM) {     /* an XLU rotate: any amount */
            len += snprintf(buf + len, sizeof buf - (size_t)len, "%s%u", sep,
                            (unsigned)(one_in(g, 2) ? below(g, 2 * g->elems) : rnd(g)));
        } else if (g->cores > 1 && one_in(g, 4)) {   /* per-core data: 0 or 1 (denormal) */
            len += snprintf(buf + len, sizeof buf - (size_t)len, "%scid", sep);
        } else {   /* a scalar register: a random fp32 pattern, often special */
            static const uint32_t special[] = {0x7fc00000u, 0x7f800000u, 0xff800000u, 0x80000000u,
                                               0x00000001u, 0x807fffffu, 0x3f800000u, 0x7f7fffffu};
            int64_t v = one_in(g, 2) ? (int32_t)special[below(g, 8)] : (int32_t)rnd(g);
            li(g, 9, v);
            len += snprintf(buf + len, sizeof buf - (size_t)len, "%ss9", sep);
        }
    }
    insn(g, "%s", buf);
}

static void gen_sync(gen *g)
{
    static const char *const units[] = {"mxu", "vpu", "dma", "ici", "all", "mxu0", "mxu0|vpu",
                                        "dma|vpu"};
    if (g->nmxu > 1 && one_in(g, 4)) {
        insn(g, "sync    mxu%u", (unsigned)below(g, g->nmxu));
        return;
    }
    insn(g, "sync    %s", units[below(g, 8)]);
}

/* A dma.ici of `bytes` from vsrc (plus 64 * cid when `per_core`) to rdst in
 * a neighbour's VMEM, on port 0 (to the next core) or 1 (the previous one;
 * in a ring of two both lead to the other core).  Every core runs the same
 * instruction, so rsem counts up here as often as lsem does. */
static void emit_ici(gen *g, unsigned port, uint64_t rdst, uint64_t vsrc, uint64_t bytes,
                     int per_core, unsigned lsem, unsigned rsem)
{
    li(g, 1, (int64_t)rdst);
    li(g, 2, (int64_t)vsrc);
    if (per_core) {
        insn(g, "slli    s9, cid, 6");
        insn(g, "add     s2, s2, s9");
    }
    li(g, 3, (int64_t)bytes);
    insn(g, "dma.ici %u, s1, s2, s3, %u, %u", port, lsem, rsem);
    g->pending[lsem]++;
    g->pending[rsem]++;
}

/* A transfer size: often 0 or a few bytes, up to a few vector registers. */
static uint64_t pick_ici_bytes(gen *g)
{
    if (one_in(g, 8))
        return 0;
    if (one_in(g, 3))
        return (uint64_t)range(g, 1, 9);
    return (uint64_t)range(g, 1, 8 * (int64_t)g->elems);
}

static void gen_ici(gen *g)
{
    uint64_t bytes = pick_ici_bytes(g), dst, src;
    int per_core = one_in(g, 3);
    int64_t st;
    region(g, 1, bytes, 1, g->vwin, g->cfg.vmem_bytes, &st, &dst);
    region(g, 1, bytes + 64 * (g->cores - 1), 1, g->vwin, g->cfg.vmem_bytes, &st, &src);
    emit_ici(g, (unsigned)below(g, 2), dst, src, bytes, per_core, pick_sem(g), pick_sem(g));
}

/* ---- directed hazard streams --------------------------------------------- */

/* mxu.lw, mxu.mm, mxu.lw, mxu.mm, ... back to back, operands preloaded. */
static void hazard_weight_swaps(gen *g)
{
    unsigned m = (unsigned)below(g, g->nmxu), n = g->n;
    uint64_t rows = (uint64_t)range(g, 1, 2 * n + 2);
    li(g, 1, DATA_BF16 + 2 * (int64_t)below(g, 512));     /* W0 */
    li(g, 2, 2 * (int64_t)n);
    li(g, 3, DATA_SPECIAL);                                   /* W1 */
    li(g, 4, 0x4000 + 4 * (int64_t)below(g, 256));           /* dst */
    li(g, 5, DATA_BF16 + 2 * (int64_t)below(g, 1024));       /* src */
    li(g, 6, (int64_t)rows);
    li(g, 7, 4 * (int64_t)n);
    unsigned sem = pick_sem(g), k = (unsigned)range(g, 2, 5);
    for (unsigned i = 0; i < k; i++) {
        insn(g, "%s %u, s%u, s2, %u", lw_op(g, m), m, i % 2 ? 3 : 1, sem);
        insn(g, "%s %u, s4, s5, s6, s2, s7, %u", mm_op(g, m, i % 2), m, sem);
        g->pending[sem] += 2;
    }
}

/* A DMA (or vst) into the tile or rows the MXU is reading right now. */
static void hazard_dma_into_mxu(gen *g)
{
    unsigned m = (unsigned)below(g, g->nmxu), n = g->n;
    uint64_t w = DATA_BF16 + 2 * below(g, 1024), x = DATA_BF16 + 4 * below(g, 512);
    unsigned sem = pick_sem(g);
    li(g, 1, (int64_t)w);
    li(g, 2, 2 * (int64_t)n);
    li(g, 3, 0x5000 + 4 * (int64_t)below(g, 256));
    li(g, 4, (int64_t)x);
    li(g, 5, (int64_t)range(g, 1, 2 * n));
    li(g, 6, 4 * (int64_t)n);
    li(g, 7, DATA_F32 + (int64_t)below(g, 2048));
    li(g, 8, (int64_t)range(g, 1, 4 * n * n));
    li(g, 9, 1);
    insn(g, "%s %u, s1, s2, %u", lw_op(g, m), m, sem);
    if (one_in(g, 2))
        insn(g, "dma.h2v s1, s7, s9, s8, zero, zero, %u", sem);   /* into the weights */
    else
        insn(g, "dma.h2v s4, s7, s9, s8, zero, zero, %u", sem);   /* into the activations */
    insn(g, "%s %u, s3, s4, s5, s2, s6, %u", mm_op(g, m, 0), m, sem);
    if (one_in(g, 2))
        insn(g, "vst     v%u, s4, 0", (unsigned)below(g, 4));
    insn(g, "dma.v2h s7, s3, s9, s8, zero, zero, %u", sem);      /* out of the results */
    g->pending[sem] += 4;
}

/* More dispatches to one unit than its queue holds. */
static void hazard_full_queue(gen *g)
{
    unsigned k = g->qdepth * 2 + (unsigned)below(g, 3);
    switch (below(g, 3)) {
    case 0: {
        unsigned sem = pick_sem(g);
        li(g, 1, (int64_t)below(g, g->vwin - 64));
        li(g, 2, (int64_t)below(g, g->hwin - 64));
        li(g, 3, 1);
        li(g, 4, (int64_t)range(g, 1, 64));
        for (unsigned i = 0; i < k; i++)
            insn(g, "%s s1, s2, s3, s4, zero, zero, %u", i % 2 ? "dma.v2h" : "dma.h2v", sem);
        g->pending[sem] += k;
        break;
    }
    case 1:
        for (unsigned i = 0; i < k; i++)
            insn(g, "vadd    v%u, v%u, v%u", i % 4, (i + 3) % 4, (i + 2) % 4);
        break;
    default: {
        unsigned m = (unsigned)below(g, g->nmxu), sem = pick_sem(g);
        li(g, 1, DATA_BF16);
        li(g, 2, 2 * (int64_t)g->n);
        li(g, 3, 0x6000);
        li(g, 4, 1);
        for (unsigned i = 0; i < k; i++)
            insn(g, "%s %u, s3, s1, s4, s2, zero, %u", mm_op(g, m, i % 2), m, sem);
        g->pending[sem] += k;
        break;
    }
    }
}

/* One semaphore counted up by several units and taken in pieces. */
static void hazard_sem_reuse(gen *g)
{
    unsigned sem = (unsigned)below(g, 2);
    for (unsigned i = 0; i < 3; i++) {
        switch (below(g, 2)) {
        case 0: gen_dma(g); break;
        default: gen_mxu(g); break;
        }
    }
    /* gen_dma/gen_mxu picked their own semaphores; add one on `sem` */
    li(g, 1, 0);
    insn(g, "dma.h2v s1, s1, zero, zero, zero, zero, %u", sem);
    g->pending[sem]++;
    insn(g, "sem.wait %u, 1", sem);
    g->pending[sem]--;
    sem_wait_some(g);
    sem_wait_some(g);
}

/* Special values through the VPU: load, compute, store as fp32 and bf16. */
static void hazard_special_vpu(gen *g)
{
    static const char *const ops[] = {"vadd", "vsub", "vmul", "vmax", "vmin", "vcmplt"};
    li(g, 8, DATA_SPECIAL);
    insn(g, "vld     v1, s8, 0");
    insn(g, "vld     v2, s8, %u", 4 * (unsigned)below(g, 8));
    insn(g, "vld.bf16 v3, s8, %u", 2 * (unsigned)below(g, 8));
    for (unsigned i = 0; i < 3; i++)
        insn(g, "%-8s v%u, v%u, v%u", ops[below(g, 6)], 4 + i, 1 + (unsigned)below(g, 3),
             1 + (unsigned)below(g, 3));
    li(g, 9, 0x7000 + 4 * (int64_t)below(g, 256));
    insn(g, "vst     v4, s9, 0");
    insn(g, "vst.bf16 v5, s9, %u", 4 * g->elems);
    insn(g, "vrelu   v6, v6");
    /* a transcendental on the specials (T27a), then, half the time, an
     * instruction that writes its register while it is still on its way */
    static const char *const tr[] = {"vexp", "vrcp", "vrsqrt"};
    insn(g, "%-8s v7, v%u", tr[below(g, 3)], 1 + (unsigned)below(g, 3));
    if (one_in(g, 2))
        insn(g, "%-8s v7, v%u, v%u", ops[below(g, 6)], 1 + (unsigned)below(g, 3),
             1 + (unsigned)below(g, 3));
    insn(g, "vst     v7, s9, %u", 8 * g->elems);
    /* the cross-lane unit on the specials (T33-T35): it waits for the VPU,
     * and a VPU instruction right behind it reads or writes its registers */
    static const char *const xl[] = {"xlu.lsum", "xlu.lmax", "xlu.ssum", "xlu.smax",
                                     "xlu.asum", "xlu.amax", "xlu.tr"};
    insn(g, "%-8s v8, v%u", xl[below(g, 7)], 1 + (unsigned)below(g, 7));
    if (one_in(g, 2))
        insn(g, "xlu.srot v9, v8, %u", (unsigned)below(g, 16));
    if (one_in(g, 2))
        insn(g, "%-8s v%u, v8, v%u", ops[below(g, 6)], 1 + (unsigned)below(g, 9),
             1 + (unsigned)below(g, 3));
    insn(g, "vst     v8, s9, %u", 12 * g->elems);
}

/* Several cores: a transfer into the weight tile, the activation rows or the
 * result rows the neighbour's MXU is using right now (the neighbour runs
 * the same stream), and a DMA and a vst into where the transfer lands, so
 * that incoming ICI (class 1), MXU, VPU and DMA writes meet. */
static void hazard_ici_into_busy(gen *g)
{
    unsigned m = (unsigned)below(g, g->nmxu), n = g->n, sem = pick_sem(g);
    uint64_t w = DATA_BF16 + 2 * below(g, 1024), x = DATA_BF16 + 4 * below(g, 512);
    uint64_t y = 0x5000 + 4 * below(g, 256), rows = (uint64_t)range(g, 1, 2 * n);
    uint64_t target[3] = {w, x, y}, t = target[below(g, 3)];
    uint64_t bytes = (uint64_t)range(g, 1, 4 * (int64_t)n * (int64_t)n);
    li(g, 4, (int64_t)w);
    li(g, 5, 2 * (int64_t)n);
    li(g, 6, (int64_t)y);
    li(g, 7, (int64_t)x);
    li(g, 8, (int64_t)rows);
    li(g, 9, 4 * (int64_t)n);
    insn(g, "%s %u, s4, s5, %u", lw_op(g, m), m, sem);
    insn(g, "%s %u, s6, s7, s8, s5, s9, %u", mm_op(g, m, 0), m, sem);
    g->pending[sem] += 2;
    emit_ici(g, (unsigned)below(g, 2), t, DATA_F32 + below(g, 1024), bytes, one_in(g, 2),
             pick_sem(g), pick_sem(g));
    if (one_in(g, 2)) {   /* a DMA row into the same place */
        li(g, 4, (int64_t)t);
        li(g, 5, (int64_t)below(g, 2048));
        li(g, 6, 1);
        li(g, 7, (int64_t)range(g, 1, 64));
        insn(g, "dma.h2v s4, s5, s6, s7, zero, zero, %u", sem);
        g->pending[sem]++;
    }
    if (one_in(g, 2)) {
        li(g, 8, (int64_t)(t & ~(uint64_t)3));
        insn(g, "vst     v%u, s8, 0", (unsigned)below(g, 4));
    }
}

/* Several cores: transfers back to back, on one link (the queue head waits for
 * it and holds back the rest) or both, 0-byte ones among them, more than
 * the ICI queue holds. */
static void hazard_ici_stream(gen *g)
{
    unsigned k = g->qdepth + 1 + (unsigned)below(g, g->qdepth + 2);
    int one_link = one_in(g, 2);
    unsigned port = (unsigned)below(g, 2), lsem = pick_sem(g), rsem = pick_sem(g);
    li(g, 1, 0x6000 + (int64_t)below(g, 0x1000));
    li(g, 2, DATA_F32 + (int64_t)below(g, 0x800));
    for (unsigned i = 0; i < k; i++) {
        li(g, 3, one_in(g, 4) ? 0 : range(g, 1, 4 * (int64_t)g->elems));
        insn(g, "dma.ici %u, s1, s2, s3, %u, %u", one_link ? port : i % 2, lsem, rsem);
        g->pending[lsem]++;
        g->pending[rsem]++;
    }
    if (one_in(g, 2)) {   /* the neighbour's k transfers have all landed here */
        insn(g, "sem.wait %u, %u", rsem, k);
        g->pending[rsem] -= k;
    }
}

/* Several cores: every VMEM client at once (T11, T12: incoming and outgoing
 * ICI, the MXUs, the VPU and the DMA engines share the budget). */
static void hazard_ici_budget(gen *g)
{
    unsigned sem = pick_sem(g), b = 4 * g->elems;
    emit_ici(g, 0, 0x6000, DATA_BF16, b, 0, pick_sem(g), pick_sem(g));
    emit_ici(g, 1, 0x6000 + b, DATA_F32, b, 0, pick_sem(g), pick_sem(g));
    for (unsigned m = 0; m < g->nmxu; m++) {
        li(g, 4, 0x5000 + 4 * (int64_t)below(g, 256));
        li(g, 5, DATA_BF16 + 2 * (int64_t)below(g, 1024));
        li(g, 6, (int64_t)range(g, 1, 2 * g->n));
        li(g, 7, 2 * (int64_t)g->n);
        li(g, 8, 4 * (int64_t)g->n);
        insn(g, "%s %u, s4, s5, s6, s7, s8, %u", mm_op(g, m, 0), m, sem);
        g->pending[sem]++;
    }
    li(g, 8, 0x7000);
    insn(g, "vld     v1, s8, 0");
    insn(g, "vst     v2, s8, %u", b);
    li(g, 4, 0x7000 + 2 * (int64_t)b);
    li(g, 5, 0);
    li(g, 6, 2);
    li(g, 7, (int64_t)range(g, 32, 128));
    insn(g, "dma.h2v s4, s5, s6, s7, s7, s7, %u", sem);
    insn(g, "dma.v2h s5, s4, s6, s7, s7, s7, %u", sem);
    g->pending[sem] += 2;
}

static void gen_hazard(gen *g)
{
    switch (below(g, g->cores > 1 ? 8 : 5)) {
    case 0: hazard_weight_swaps(g); break;
    case 1: hazard_dma_into_mxu(g); break;
    case 2: hazard_full_queue(g); break;
    case 3: hazard_sem_reuse(g); break;
    case 4: hazard_special_vpu(g); break;
    case 5: hazard_ici_into_busy(g); break;
    case 6: hazard_ici_stream(g); break;
    default: hazard_ici_budget(g); break;
    }
}

/* ---- deliberate errors (--errors) --------------------------------------- */

static void gen_error(gen *g)
{
    const char *what;
    switch (below(g, g->int8 ? 11 : 10)) {
    case 10:
        what = "a stream against weights of the other mode (T5b)";
        li(g, 1, 0);
        insn(g, "%s 0, s1, s1, s1, s1, s1, 0",
             g->w_i8[0] ? (one_in(g, 2) ? "mxu.mma" : "mxu.mm ") : "mxu.mm.i8");
        break;
    case 8:
        what = g->cores > 1 ? "ICI on a port without a neighbour" : "ICI on a single core";
        li(g, 1, 0);
        /* ports 2..5 (a ring wires 0 and 1), any of the six on one core */
        insn(g, "dma.ici %u, s1, s1, s1, 0, 0", g->cores > 1 ? 2 + (unsigned)below(g, 4)
                                                              : (unsigned)below(g, 6));
        break;
    case 9:
        if (g->cores == 1) {
            what = "ICI on a single core, to a far address";
            li(g, 1, (int64_t)g->cfg.vmem_bytes - 8);
            insn(g, "dma.ici 0, s1, zero, zero, 0, 0");
            break;
        }
        what = "ICI past the end of the neighbour's VMEM";
        li(g, 1, (int64_t)g->cfg.vmem_bytes - (int64_t)range(g, 0, 16));
        li(g, 2, 0);
        li(g, 3, 32);
        insn(g, "dma.ici %u, s1, s2, s3, 0, 0", (unsigned)below(g, 2));
        break;
    case 0:
        what = "DMA past the end of VMEM";
        li(g, 1, (int64_t)g->cfg.vmem_bytes - (int64_t)range(g, 1, 16));
        li(g, 2, 0);
        li(g, 3, 2);
        li(g, 4, 32);
        insn(g, "dma.h2v s1, s2, s3, s4, s4, s4, 0");
        break;
    case 1:
        what = "misaligned MXU result rows";
        li(g, 1, 0x4002);
        li(g, 2, 0);
        li(g, 3, 2);
        li(g, 4, 2 * (int64_t)g->n);
        insn(g, "%s 0, s1, s2, s3, s4, s4, 0", mm_op(g, 0, 0));
        break;
    case 2:
        what = "VPU load past the end of VMEM";
        li(g, 8, (int64_t)g->cfg.vmem_bytes - 4);
        insn(g, "vld     v0, s8, 0");
        break;
    case 3:
        what = "illegal instruction word";
        insn(g, ".insn   0x%" PRIx64, one_in(g, 2) ? (uint64_t)0 : (uint64_t)0xff);
        break;
    case 4:
        what = "deadlock on sem.wait";
        insn(g, "sem.wait 31, %" PRIu64, g->pending[31] + 1);
        break;
    case 5:
        what = "jump past the instruction memory";
        li(g, REG_JR, (int64_t)g->cfg.imem_words + range(g, 0, 100));
        insn(g, "jr      s%u", REG_JR);
        break;
    case 6: {
        what = "negative DMA row count";
        li(g, 1, -1);
        insn(g, "dma.v2h zero, zero, s1, s1, zero, zero, 0");
        break;
    }
    default: {
        what = "an MXU the config does not have";
        if (g->nmxu >= TPU_MAX_MXUS) {
            insn(g, ".insn   0");
            break;
        }
        const tpu_insn_desc *d = tpu_isa_by_mnemonic("mxu.lw", 6);
        int64_t v[TPU_MAX_OPERANDS] = {g->nmxu, 0, 0, 0};
        uint64_t w = 0;
        int bad;
        if (d && tpu_encode(d, v, &w, &bad) == 0)
            insn(g, ".insn   0x%" PRIx64 "    # mxu.lw %u, zero, zero, 0", w, g->nmxu);
        else
            insn(g, ".insn   0");
        break;
    }
    }
    line(g, "# ^ deliberate run-time error: %s", what);
    g->error_done = 1;
}

/* ---- the program --------------------------------------------------------- */

/* n items of the weighted mix; in a loop body no hazard stream, error or
 * nested loop beyond depth 2, and every semaphore taken is one given in
 * the body (g->pending was cleared by the caller). */
static void gen_random_block(gen *g, unsigned n, int in_loop)
{
    for (unsigned i = 0; i < n && g->budget > 30; i++) {
        unsigned w = (unsigned)below(g, 100);
        if (g->cores > 1 && one_in(g, 10))
            gen_ici(g);
        else if (w < 25)
            gen_alu(g);
        else if (w < 32)
            gen_control(g);
        else if (w < 44)
            gen_dma(g);
        else if (w < 58)
            gen_mxu(g);
        else if (w < 78)
            gen_vpu(g);
        else if (w < 86)
            sem_wait_some(g);
        else if (w < 90)
            gen_sync(g);
        else if (w < 91)
            insn(g, "nop");
        else if (!in_loop)
            gen_hazard(g);
        else
            gen_alu(g);
        if (!in_loop && g->errors && !g->error_done && one_in(g, 40))
            gen_error(g);
    }
}

static void gen_data(gen *g)
{
    line(g, "        .vmem   0x%x", DATA_BF16);
    line(g, "        .random bf16, 4096, %u", (unsigned)below(g, 1u << 30));
    line(g, "        .vmem   0x%x", DATA_SPECIAL);
    line(g, "        .rept   16");
    line(g, "        .bf16   nan, inf, -inf, -0.0, 0.0, bits(0x0001), bits(0x8050), 1.0078125");
    line(g, "        .bf16   bits(0x7f7f), bits(0xff7f), 1.0, -1.0, 3.0e38, 1.0e-38, bits(0x7fc1), 0.5");
    line(g, "        .endr");
    line(g, "        .rept   8");
    line(g, "        .f32    nan, -inf, inf, -0.0, bits(0x00000001), bits(0x807fffff), 1.0, -2.5");
    line(g, "        .f32    bits(0x3f808000), bits(0x3f818000), bits(0x7f7fffff), bits(0x00800000), "
            "bits(0xff800001), bits(0x3f80ffff), bits(0x80008000), bits(0x4b7f8000)");
    line(g, "        .endr");
    line(g, "        .vmem   0x%x", DATA_F32);
    line(g, "        .random f32, 1024, %u, -1e3, 1e3", (unsigned)below(g, 1u << 30));
    line(g, "        .hbm    0");
    line(g, "        .random f32, 2048, %u", (unsigned)below(g, 1u << 30));
    line(g, "        .hbm    0x%x", 0x2000);
    line(g, "        .rept   32");
    line(g, "        .bf16   nan, inf, -inf, -0.0, 0.0, bits(0x0001), bits(0x8050), 1.0078125");
    line(g, "        .endr");
    fputc('\n', g->out);
    line(g, "        .text");
}

static void generate(gen *g, uint64_t seed, long length)
{
    g->rng = seed * 0x2545f4914f6cdd1dull + 1;
    g->budget = length;
    fprintf(g->out, "# randprog seed %" PRIu64 "%s%s%s\n", seed, g->errors ? " (--errors)" : "",
            g->cores == 2   ? " (--cores 2: a ring of two, rtl-bench2, tpu-sim --cores 2)"
            : g->cores == 4 ? " (--cores 4: a ring of four, rtl-bench4, tpu-sim --cores 4)"
                            : "",
            g->int8 ? " (--int8)" : "");
    fprintf(g->out, "# tpu-as: --config %s\n", g->cfgname);
    gen_data(g);
    /* Scratch registers start with a mix of values. */
    for (unsigned r = REG_SCRATCH_FIRST; r <= REG_SCRATCH_LAST; r += 3)
        li(g, r, (int32_t)rnd(g));
    while (g->budget > 30)
        gen_random_block(g, 1, 0);
    if (g->errors && !g->error_done)
        gen_error(g);
    if (one_in(g, 2))
        sem_wait_some(g);
    insn(g, "halt");
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: tpu-randprog [--config NAME|FILE] [--seed N] [--length N] [--errors]\n"
            "                    [--cores N] [--int8|--no-int8] [-o OUT.s] [--coverage]\n"
            "\n"
            "Print a constrained-random test program (assembly for tpu-as) made from\n"
            "one seed: every instruction class of the config plus directed hazard\n"
            "streams.  It always terminates with halt and never stops with a\n"
            "run-time error, unless --errors is given (then it has exactly one on\n"
            "its path, which the C model and the RTL must report alike).\n"
            "\n"
            "options:\n"
            "  --config NAME|FILE  machine (default tiny)\n"
            "  --seed N            the seed (default 1)\n"
            "  --length N          about N instructions (default 300, 40..3000,\n"
            "                      and less than the config's imem_words)\n"
            "  --errors            put one deliberate run-time error in the program\n"
            "  --cores N           1 (default), 2 or 4: a program for a ring of N cores\n"
            "                      (rtl-bench2, rtl-bench4, tpu-sim --cores N) with\n"
            "                      dma.ici; every core runs it, with the same control flow\n"
            "  --int8              int8 MXU work too (mxu.*.i8, dma.h2v.i8): the default\n"
            "                      on machines with mxu_int8 = 1 (bf16 and int8)\n"
            "  --no-int8           no int8 instructions\n"
            "  -o OUT.s            write to OUT.s (default standard output)\n"
            "  --coverage          list the instructions of the table and whether\n"
            "                      the generator makes them (with --cores), then exit\n"
            "  -h, --help          show this help\n");
}

/* Which table entries the generator emits for `cores` cores (--coverage),
 * by unit, class and flags: every instruction of the sequencer, the VPU and
 * the XLU (gen_vpu draws from both); the DMA's loads and stores and every
 * MXU instruction, their int8 forms only with `int8`; the ICI's sends on
 * several cores. */
static int covered(const tpu_insn_desc *d, unsigned cores, int int8)
{
    if ((d->flags & TPU_FL_I8) && !int8)
        return 0;
    switch (d->unit) {
    case TPU_UNIT_SEQ:
    case TPU_UNIT_VPU:
    case TPU_UNIT_XLU:
    case TPU_UNIT_MXU:
        return 1;
    case TPU_UNIT_DMA:
        return d->cls == TPU_CLASS_LOAD || d->cls == TPU_CLASS_STORE;
    case TPU_UNIT_ICI:
        return cores > 1 && d->cls == TPU_CLASS_SEND;
    default:
        return 0;
    }
}

static int parse_num(const char *s, const char *what, uint64_t *v)
{
    char *end;
    errno = 0;
    *v = strtoull(s, &end, 0);
    if (errno || end == s || *end || *s == '-') {
        fprintf(stderr, "tpu-randprog: error: bad %s '%s'\n", what, s);
        return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    const char *cfgname = "tiny", *outname = NULL;
    uint64_t seed = 1, length = 300, cores = 1;
    int errors = 0, coverage = 0, int8 = -1;      /* -1: as the config allows */
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--errors")) {
            errors = 1;
        } else if (!strcmp(a, "--coverage")) {
            coverage = 1;
        } else if (!strcmp(a, "--int8")) {
            int8 = 1;
        } else if (!strcmp(a, "--no-int8")) {
            int8 = 0;
        } else if ((!strcmp(a, "--config") || !strcmp(a, "--seed") || !strcmp(a, "--length") ||
                    !strcmp(a, "--cores") || !strcmp(a, "-o")) && i + 1 < argc) {
            const char *v = argv[++i];
            if (!strcmp(a, "--config"))
                cfgname = v;
            else if (!strcmp(a, "-o"))
                outname = v;
            else if (parse_num(v, a + 2, !strcmp(a, "--seed")     ? &seed
                                         : !strcmp(a, "--length") ? &length
                                                                  : &cores) != 0)
                return 2;
        } else {
            fprintf(stderr, "tpu-randprog: error: %s '%s' (try --help)\n",
                    a[0] == '-' ? "unknown option or missing value" : "unexpected argument", a);
            return 2;
        }
    }
    if (cores != 1 && cores != 2 && cores != 4) {
        fprintf(stderr, "tpu-randprog: error: --cores %" PRIu64 " (1, 2 or 4)\n", cores);
        return 2;
    }
    if (coverage) {
        if (int8 < 0) {             /* the default: the config's */
            tpu_config c;
            char cerr[256];
            if (tpu_config_load(&c, cfgname, cerr, sizeof cerr) != 0) {
                fprintf(stderr, "tpu-randprog: %s\n", cerr);
                return 2;
            }
            int8 = c.mxu_int8 == 1;
        }
        for (size_t i = 0; i < tpu_isa_count; i++)
            printf("%-10s %s\n", tpu_isa_table[i].mnemonic,
                   covered(&tpu_isa_table[i], (unsigned)cores, int8) ? "generated"
                                                                      : "not generated");
        return 0;
    }
    gen *g = calloc(1, sizeof *g);
    if (!g) {
        fprintf(stderr, "tpu-randprog: error: out of memory\n");
        return 1;
    }
    char err[256];
    if (tpu_config_load(&g->cfg, cfgname, err, sizeof err) != 0) {
        fprintf(stderr, "tpu-randprog: %s\n", err);
        free(g);
        return 2;
    }
    snprintf(g->cfgname, sizeof g->cfgname, "%s", cfgname);
    g->n = (unsigned)g->cfg.mxu_n;
    g->nmxu = (unsigned)g->cfg.num_mxu;
    g->elems = (unsigned)(g->cfg.vpu_sublanes * g->cfg.vpu_lanes);
    g->qdepth = (unsigned)g->cfg.seq_queue_depth;
    g->vwin = g->cfg.vmem_bytes < 0x8000 ? g->cfg.vmem_bytes : 0x8000;
    g->hwin = g->cfg.hbm_bytes < 0x8000 ? g->cfg.hbm_bytes : 0x8000;
    g->errors = errors;
    g->cores = (unsigned)cores;
    if (int8 < 0)
        int8 = g->cfg.mxu_int8 == 1;
    g->int8 = int8;
    if (int8 && g->cfg.mxu_int8 != 1) {
        fprintf(stderr, "tpu-randprog: error: --int8: config '%s' has mxu_int8 = %llu (the "
                "generator needs bf16 and int8: 1)\n", cfgname,
                (unsigned long long)g->cfg.mxu_int8);
        free(g);
        return 2;
    }
    if (cores > 1 && g->cfg.ici_latency == 0) {
        fprintf(stderr, "tpu-randprog: error: config '%s' has ici_latency 0: no system of "
                "several cores\n", cfgname);
        free(g);
        return 2;
    }
    if (g->vwin < 0x8000 || g->hwin < 0x4000 || 4ull * g->elems > 0x1000 ||
        4ull * g->n * g->n > 0x1000) {
        fprintf(stderr, "tpu-randprog: error: config '%s' is too small or too large for the "
                "generator's memory layout (VMEM >= 32 KiB, HBM >= 16 KiB, MXU and VPU tiles "
                "<= 4 KiB)\n", cfgname);
        free(g);
        return 2;
    }
    uint64_t maxlen = g->cfg.imem_words > 200 ? g->cfg.imem_words - 100 : 100;
    if (length < 40 || length > 3000 || length > maxlen) {
        fprintf(stderr, "tpu-randprog: error: --length %" PRIu64 " out of range (40..%" PRIu64
                ")\n", length, maxlen < 3000 ? maxlen : 3000);
        free(g);
        return 2;
    }
    g->out = stdout;
    if (outname && !(g->out = fopen(outname, "w"))) {
        fprintf(stderr, "tpu-randprog: error: cannot write '%s': %s\n", outname, strerror(errno));
        free(g);
        return 1;
    }
    generate(g, seed, (long)length);
    int bad = ferror(g->out);
    if (g->out != stdout)
        bad |= fclose(g->out) != 0;
    if (bad)
        fprintf(stderr, "tpu-randprog: error: cannot write '%s'\n", outname ? outname : "stdout");
    free(g);
    return bad ? 1 : 0;
}
