/*
 * tpu_isagen.c - tpu-isagen: write the files derived from cmodel/isa.def.
 *
 *   tpu-isagen --markdown   > docs/isa.md       the instruction set reference
 *   tpu-isagen --verilog    > rtl/tpu_isa.vh    opcodes, fields, units, classes
 *   tpu-isagen --seq-decode > rtl/seq_decode.vh the sequencer's decode table
 *   tpu-isagen --vpu-decode > rtl/vpu_decode.vh the VPU's register reads and writes
 *   tpu-isagen --trace      > rtl/tpu_trace.vh  the trace port (rtl/trace_ports.def)
 *   tpu-isagen --queue      > rtl/tpu_queue.vh  a queue entry (rtl/queue_entry.def)
 *   tpu-isagen --rtl-doc docs/rtl.md            its tables of both, refreshed
 *
 * Everything printed comes from the instruction table (isa.h) so the
 * outputs cannot drift from the assembler and the C model; `make
 * check-generated` compares the committed files with fresh output.  The
 * output depends on nothing but the table (no dates, no paths).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "isa.h"

/* ---- shared helpers ------------------------------------------------------ */

/* The sections of the reference page, by opcode range. */
static const struct {
    unsigned lo, hi;
    const char *title;
    const char *intro;
} sections[] = {
    { 0x00, 0x0f, "Control", "Executed by the sequencer itself." },
    { 0x10, 0x1f, "Scalar ALU: register-register",
      "64-bit integer operations on scalar registers, executed by the sequencer.  "
      "Writes to `zero` (s0) are dropped." },
    { 0x20, 0x2f, "Scalar ALU: register-immediate",
      "The immediate is the signed 32-bit IMM field, sign-extended to 64 bits "
      "(shift amounts: 0..63)." },
    { 0x30, 0x3f, "Branches and jumps",
      "Targets are instruction indices; in assembly, usually a label." },
    { 0x40, 0x4f, "DMA and ICI",
      "Copies run on the DMA engines, ICI sends on the ICI unit.  Each signals its "
      "completion by incrementing a semaphore (`sem.wait` waits for it).  `dma.h2v.i8` "
      "widens int8 to bf16 on the way in (docs/numerics.md section 9)." },
    { 0x50, 0x5f, "Matrix units (MXU)",
      "Weight-stationary N x N systolic arrays: bf16 inputs, fp32 results "
      "(docs/numerics.md).  `mxu.lw` loads weights into a shadow buffer; `mxu.mm` and "
      "`mxu.mma` use the latest weights loaded.  On machines with `mxu_int8` (docs/config.md) "
      "the `.i8` forms run the same array in int8 (docs/numerics.md section 9): each 16-bit "
      "weight slot holds two int8 weights of consecutive k (the K-pair-interleaved layout) and "
      "each 16-bit activation lane two int8 activations, so a pass contracts 2N at twice the "
      "bf16 MAC rate, with int32 results that wrap; the timing is the bf16 one (docs/timing.md "
      "T26a).  The weights remember their mode: a stream of the other mode is a run-time "
      "error at issue (T5b)." },
    { 0x60, 0x77, "Vector unit (VPU)",
      "Vector registers hold sublanes x lanes fp32 elements (S x L).  Arithmetic is "
      "elementwise fp32 as docs/numerics.md specifies." },
    { 0x78, 0x7f, "Synchronisation", "Executed by the sequencer." },
    { 0x80, 0x8f, "Cross-lane unit (XLU)",
      "Reductions, rotates and transposes of a vector register (S x L fp32, element [s][l]), "
      "read from and written to the VPU's registers by a unit of its own (docs/timing.md "
      "section 5a).  Sums and maxima are pairwise trees in index order (docs/numerics.md "
      "section 13), so they are bit-exact but not the left-to-right sum.  Rotate amounts are "
      "taken modulo S or L.  `sync vpu` waits for the XLU too.\n\n"
      "**How to use the XLU from assembly.**  An XLU instruction is dispatched only when the "
      "VPU is idle, and a VPU instruction that names a register an XLU instruction still "
      "holds waits for it: program order is kept without any `sync`.  Row-wise softmax of an "
      "S x L register (a row per sublane):\n\n"
      "```\n"
      "        vld      v0, s1, 0       # X\n"
      "        xlu.lmax v1, v0          # v1[s][*] = max of row s\n"
      "        vsub     v2, v0, v1      # waits for the XLU (T35)\n"
      "        vexp     v2, v2\n"
      "        xlu.lsum v3, v2          # waits until the VPU is idle (T35)\n"
      "        vrcp     v3, v3\n"
      "        vmul     v2, v2, v3\n"
      "        vst      v2, s1, 0\n"
      "```\n\n"
      "`xlu.tr` transposes a register in B x B blocks (B = min(S, L)).  With S = L = N (as on "
      "tiny: 8 x 8, N = 8) `vld.bf16`, `xlu.tr`, `vst.bf16` transpose a whole N x N bf16 tile, "
      "so a kernel can load K^T as MXU weights.  Where L > S (v5e: 8 x 128) each 8 x 8 block "
      "comes out transposed in place and must still be moved to its mirrored block (rows of "
      "16 bytes at a stride: a 2-D DMA through HBM does it); a VMEM-to-VMEM tile transpose is "
      "not in the instruction set yet." },
    { 0x90, 0xff, "Other", "" },
};

static void upper(const char *s, char *out, size_t n)
{
    size_t i = 0;
    for (; s[i] && i + 1 < n; i++)
        out[i] = (char)(s[i] >= 'a' && s[i] <= 'z' ? s[i] - 'a' + 'A' : s[i]);
    out[i] = 0;
}

/* Spaces that align a name of up to `w` characters in a column (at least 1). */
static int pad(const char *name, int w)
{
    int n = w + 1 - (int)strlen(name);
    return n > 0 ? n : 1;
}

/* The width of a class number in the RTL. */
static unsigned class_bits(void)
{
    unsigned b = 1;
    while ((1u << b) < TPU_CLASS_COUNT)
        b++;
    return b;
}

static void put_syntax(FILE *f, const tpu_insn_desc *d)
{
    fprintf(f, "%s", d->mnemonic);
    for (unsigned k = 0; k < d->noperands; k++)
        fprintf(f, "%s%s", k ? ", " : " ", d->op[k].name);
}

static unsigned field_msb(enum tpu_field fl) { return tpu_field_lsb(fl) + tpu_field_width(fl) - 1; }

/* The operand range as written in assembly: "s0..s30", "0..63". */
static void range_text(enum tpu_operand_kind k, char *buf, size_t len)
{
    int64_t lo, hi;
    tpu_kind_range(k, &lo, &hi);
    switch (k) {
    case TPU_K_SREG:
    case TPU_K_SREGW:
        snprintf(buf, len, "s%" PRId64 "..s%" PRId64, lo, hi);
        break;
    case TPU_K_VREG:
    case TPU_K_VREGW:
        snprintf(buf, len, "v%" PRId64 "..v%" PRId64, lo, hi);
        break;
    case TPU_K_UNITS:
        snprintf(buf, len, "a non-empty unit set (mask 0x%" PRIx64 "..0x%" PRIx64 ")", lo, hi);
        break;
    default:
        snprintf(buf, len, "%" PRId64 "..%" PRId64, lo, hi);
        break;
    }
}

/* How an operand of kind k is accessed: "r", "w", "rw" or "-". */
static const char *access_text(enum tpu_operand_kind k)
{
    static const char *const t[4] = { "-", "r", "w", "rw" };
    return t[tpu_kind_access(k) & 3];
}

/* An instruction's flags as names joined by ", " ("" for none). */
static const char *flags_text(unsigned fl, char *buf, size_t len)
{
    size_t n = 0;
    buf[0] = 0;
    for (int b = 0; b < TPU_FLB_COUNT; b++)
        if (fl & (1u << b))
            n += (size_t)snprintf(buf + n, n < len ? len - n : 0, "%s%s", n ? ", " : "",
                                  tpu_flag_name(b));
    return buf;
}

/* ---- markdown ------------------------------------------------------------- */

static const char *kind_syntax(enum tpu_operand_kind k)
{
    switch (k) {
    case TPU_K_SREG:   return "scalar register read: `s0`..`s31`, `zero` (= s0, reads 0), `cid` (= s31, the core id)";
    case TPU_K_SREGW:  return "scalar register written: `s0`..`s30` (`cid` is read-only; writes to `zero` are dropped)";
    case TPU_K_VREG:   return "vector register read: `v0`..`v31`";
    case TPU_K_VREGW:  return "vector register written: `v0`..`v31`";
    case TPU_K_SEM:    return "semaphore number (a unit adds 1 to it when done; `sem.wait` takes from it)";
    case TPU_K_MXU:    return "matrix unit number (must exist in the configuration)";
    case TPU_K_PORT:   return "ICI port number";
    case TPU_K_SIMM:   return "signed 32-bit immediate, sign-extended to 64 bits";
    case TPU_K_UIMM:   return "unsigned 32-bit immediate";
    case TPU_K_SHAMT:  return "shift amount";
    case TPU_K_TARGET: return "instruction index (a label)";
    case TPU_K_UNITS:  return "unit names joined by `\\|`: `mxu0`..`mxu3`, `mxu` (all four), `vpu`, `dma`, `ici`, `all`";
    default:           return "";
    }
}

/* One form of the word as a row of fields from bit 63 down: the given
 * fields, with unused stretches shown as "-". */
static void put_layout(FILE *f, const char *label, const enum tpu_field *fl, size_t n)
{
    char row[400];
    size_t len = 0;
    int top = 63;
    len += (size_t)snprintf(row + len, sizeof row - len, "%-16s|", label);
    while (top >= 0) {
        const char *name = "-";
        int lsb = -1;
        for (size_t i = 0; i < n; i++)
            if ((int)field_msb(fl[i]) == top) {
                name = tpu_field_name(fl[i]);
                lsb = (int)tpu_field_lsb(fl[i]);
            }
        if (top <= 7) {
            name = "opcode";
            lsb = 0;
        }
        if (lsb < 0) {                      /* unused: down to the next field */
            lsb = 8;
            for (size_t i = 0; i < n; i++)
                if ((int)field_msb(fl[i]) < top && (int)field_msb(fl[i]) + 1 > lsb)
                    lsb = (int)field_msb(fl[i]) + 1;
        }
        len += (size_t)snprintf(row + len, sizeof row - len, " %s %d:%d |", name, top, lsb);
        top = lsb - 1;
    }
    fprintf(f, "%s\n", row);
}

static void markdown(FILE *f)
{
    fprintf(f, "<!-- Generated by `tpu-isagen --markdown` from cmodel/isa.def.  Do not edit:\n"
               "     change cmodel/isa.def and run `make generate`. -->\n");
    fprintf(f, "# Instruction set reference\n\n");
    fprintf(f, "The TPU core runs one instruction stream.  Every instruction is one 64-bit word,\n"
               "stored little-endian; instruction addresses are word indices (the first\n"
               "instruction is at 0).  This page is generated from `cmodel/isa.def`, the one\n"
               "table that the assembler, the disassembler, the C model and the RTL\n"
               "(`rtl/tpu_isa.vh`) all use.  Assembly syntax: [assembler.md](assembler.md).\n"
               "Timing (issue rules, latencies, queues) is not part of the instruction set:\n"
               "see [timing.md](timing.md).  Floating point rules: [numerics.md](numerics.md).\n\n");

    fprintf(f, "## Instruction word\n\n");
    fprintf(f, "| field | bits | width |\n|---|---|---|\n| opcode | 7:0 | 8 |\n");
    for (int fl = TPU_F_A; fl < TPU_F_COUNT; fl++)
        fprintf(f, "| %s | %u:%u | %u |\n", tpu_field_name(fl), field_msb(fl), tpu_field_lsb(fl),
                tpu_field_width(fl));
    fprintf(f, "\nE, F and G overlap IMM: an instruction uses either IMM or E/F/G, never both.\n"
               "So a word has one of two layouts:\n\n```\n");
    static const enum tpu_field reg_form[] = { TPU_F_A, TPU_F_B, TPU_F_C, TPU_F_D, TPU_F_E,
                                               TPU_F_F, TPU_F_G };
    static const enum tpu_field imm_form[] = { TPU_F_A, TPU_F_B, TPU_F_C, TPU_F_D, TPU_F_IMM };
    put_layout(f, "register form", reg_form, sizeof reg_form / sizeof reg_form[0]);
    put_layout(f, "immediate form", imm_form, sizeof imm_form / sizeof imm_form[0]);
    fprintf(f, "```\n\n");
    fprintf(f, "A word is an **illegal instruction** (the core traps, the disassembler prints\n"
               "`.insn`) when its opcode is not in the table below (opcode 0x00 never is, so\n"
               "zeroed memory traps), when any bit outside the instruction's own fields is\n"
               "set, or when a field holds a value outside its operand's range (for example\n"
               "`cid` as a destination, MXU 4, a shift of 64, an empty unit set).\n\n");

    fprintf(f, "## Operands\n\n"
               "An operand's kind says how it is written, its range, and how the instruction\n"
               "accesses it: `r` reads it, `w` writes it, `rw` updates it, `-` it is a number\n"
               "(not a register).  The C model's and the RTL's VPU scoreboard go by it.\n\n"
               "| kind | access | written as | range |\n|---|---|---|---|\n");
    for (int k = TPU_K_SREG; k < TPU_K_COUNT; k++) {
        char r[96];
        range_text(k, r, sizeof r);
        fprintf(f, "| %s | %s | %s | %s |\n", tpu_kind_name(k), access_text(k), kind_syntax(k), r);
    }
    fprintf(f, "\nUnit set bits: ");
    static const struct { const char *name; unsigned mask; } units[] = {
        { "mxu0", TPU_UNITS_MXU0 }, { "mxu1", TPU_UNITS_MXU1 }, { "mxu2", TPU_UNITS_MXU2 },
        { "mxu3", TPU_UNITS_MXU3 }, { "vpu", TPU_UNITS_VPU },   { "dma", TPU_UNITS_DMA },
        { "ici", TPU_UNITS_ICI },
    };
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        fprintf(f, "%s`%s` = 0x%02x", i ? ", " : "", units[i].name, units[i].mask);
    fprintf(f, ".\n\nNotation in the semantics: `sext(imm)` sign-extends; `<s`/`<u`, `>>s`/`>>u`\n"
               "are signed/unsigned; `N` is the MXU size, `S x L` the VPU shape (sublanes x\n"
               "lanes); `VMEM[a .. +n]` is n bytes from byte address a.\n\n");

    fprintf(f, "## Units, classes and flags\n\n"
               "Each instruction has the unit that executes it, a class that says what it\n"
               "does whatever the unit, and flags.  The sequencer's decode table\n"
               "(`rtl/seq_decode.vh`), the VPU's (`rtl/vpu_decode.vh`), the assembler and\n"
               "`tpu-randprog` take them from the table.\n\n"
               "| unit | what |\n|---|---|\n");
    for (int u = 0; u < TPU_UNIT_COUNT; u++)
        fprintf(f, "| %s | %s |\n", tpu_unit_name(u), tpu_unit_what(u));
    fprintf(f, "\n| class | what |\n|---|---|\n");
    for (int c = 0; c < TPU_CLASS_COUNT; c++)
        fprintf(f, "| %s | %s |\n", tpu_class_name(c), tpu_class_what(c));
    fprintf(f, "\n| flag | what |\n|---|---|\n");
    for (int b = 0; b < TPU_FLB_COUNT; b++)
        fprintf(f, "| %s | %s |\n", tpu_flag_name(b), tpu_flag_what(b));
    fprintf(f, "\n");

    fprintf(f, "## Summary\n\n| mnemonic | syntax | unit | class | opcode | summary |\n"
               "|---|---|---|---|---|---|\n");
    for (size_t i = 0; i < tpu_isa_count; i++) {
        const tpu_insn_desc *d = &tpu_isa_table[i];
        char fl[64];
        fprintf(f, "| [`%s`](#%s) | `", d->mnemonic, d->id);
        put_syntax(f, d);
        flags_text(d->flags, fl, sizeof fl);
        fprintf(f, "` | %s | %s%s%s%s | 0x%02x | %s |\n", tpu_unit_name(d->unit),
                tpu_class_name(d->cls), fl[0] ? " (" : "", fl, fl[0] ? ")" : "", d->opcode,
                d->summary);
    }

    for (size_t c = 0; c < sizeof sections / sizeof sections[0]; c++) {
        int any = 0;
        for (size_t i = 0; i < tpu_isa_count; i++) {
            const tpu_insn_desc *d = &tpu_isa_table[i];
            if (d->opcode < sections[c].lo || d->opcode > sections[c].hi)
                continue;
            if (!any) {
                fprintf(f, "\n## %s\n\n", sections[c].title);
                if (sections[c].intro[0])
                    fprintf(f, "%s\n", sections[c].intro);
                any = 1;
            }
            /* an explicit anchor: the summary table links to it */
            fprintf(f, "\n<a id=\"%s\"></a>\n### %s\n\n%c%s.\n\n```\n", d->id, d->mnemonic,
                    d->summary[0] >= 'a' && d->summary[0] <= 'z' ? d->summary[0] - 'a' + 'A'
                                                                 : d->summary[0],
                    d->summary + (d->summary[0] != 0));
            put_syntax(f, d);
            char fl[64];
            flags_text(d->flags, fl, sizeof fl);
            fprintf(f, "\n```\n\nUnit: %s.  Class: %s.  %s%s%sOpcode 0x%02x.  ",
                    tpu_unit_name(d->unit), tpu_class_name(d->cls), fl[0] ? "Flags: " : "", fl,
                    fl[0] ? ".  " : "", d->opcode);
            if (d->noperands == 0) {
                fprintf(f, "No operands: every bit above the opcode is zero.\n\n");
            } else {
                fprintf(f, "Unused bits (zero): mask 0x%016" PRIx64 ".\n\n",
                        ~d->used_mask);
                fprintf(f, "| operand | kind | access | field | bits | range |\n"
                           "|---|---|---|---|---|---|\n");
                for (unsigned k = 0; k < d->noperands; k++) {
                    char r[96];
                    enum tpu_field fld = d->op[k].field;
                    range_text(d->op[k].kind, r, sizeof r);
                    fprintf(f, "| %s | %s | %s | %s | %u:%u | %s |\n", d->op[k].name,
                            tpu_kind_name(d->op[k].kind), access_text(d->op[k].kind),
                            tpu_field_name(fld), field_msb(fld), tpu_field_lsb(fld), r);
                }
                fprintf(f, "\n");
            }
            fprintf(f, "Semantics: `%s`\n", d->semantics);
        }
    }
}

/* ---- verilog --------------------------------------------------------------- */

static void verilog(FILE *f)
{
    fprintf(f,
            "// rtl/tpu_isa.vh - instruction set constants for the RTL.\n"
            "//\n"
            "// Generated by `tpu-isagen --verilog` from cmodel/isa.def.  Do not edit:\n"
            "// change cmodel/isa.def and run `make generate`.  docs/isa.md describes\n"
            "// every instruction.\n"
            "//\n"
            "// Include it once inside each module that needs it:\n"
            "//\n"
            "//     module tpu_decode (...);\n"
            "//       `include \"tpu_isa.vh\"\n"
            "//       ...\n"
            "//\n"
            "// The localparams are declared at each inclusion, so several modules of one\n"
            "// compilation can include it.  The TPU_ISA_VH guard covers the `define\n"
            "// macros, which are global to the compilation.\n"
            "\n"
            "`ifndef TPU_ISA_VH\n"
            "`define TPU_ISA_VH\n"
            "`define TPU_INSN_BITS 64\n"
            "`endif\n"
            "\n"
            "/* verilator lint_off UNUSEDPARAM */\n"
            "\n"
            "// ---- instruction word fields: bits [LSB + WIDTH - 1 : LSB]\n"
            "localparam integer F_OPCODE_LSB = 0;\n"
            "localparam integer F_OPCODE_WIDTH = 8;\n");
    for (int fl = TPU_F_A; fl < TPU_F_COUNT; fl++) {
        fprintf(f, "localparam integer F_%s_LSB = %u;\n", tpu_field_name(fl), tpu_field_lsb(fl));
        fprintf(f, "localparam integer F_%s_WIDTH = %u;\n", tpu_field_name(fl),
                tpu_field_width(fl));
    }

    fprintf(f, "\n// ---- opcodes (0x00 is never legal)\n");
    for (size_t i = 0; i < tpu_isa_count; i++) {
        const tpu_insn_desc *d = &tpu_isa_table[i];
        fprintf(f, "localparam [7:0] OP_%s = 8'h%02x;%*s// %s\n", d->id, d->opcode,
                (int)(10 - strlen(d->id)) > 0 ? (int)(10 - strlen(d->id)) : 1, "", d->mnemonic);
    }

    fprintf(f, "\n// ---- bits each instruction uses; any other bit set makes the word illegal\n");
    for (size_t i = 0; i < tpu_isa_count; i++) {
        const tpu_insn_desc *d = &tpu_isa_table[i];
        fprintf(f, "localparam [63:0] USED_%s = 64'h%016" PRIx64 ";\n", d->id, d->used_mask);
    }

    fprintf(f, "\n// ---- executing units (isa.def's UNIT rows)\n");
    char up[TPU_UNIT_COUNT][16];
    for (int u = 0; u < TPU_UNIT_COUNT; u++) {
        upper(tpu_unit_name(u), up[u], sizeof up[u]);
        fprintf(f, "localparam [2:0] UNIT_%s = 3'd%d;%*s// %s\n", up[u], u,
                pad(up[u], 4), "", tpu_unit_what(u));
    }
    for (size_t i = 0; i < tpu_isa_count; i++) {
        const tpu_insn_desc *d = &tpu_isa_table[i];
        fprintf(f, "localparam [2:0] OPUNIT_%s = UNIT_%s;\n", d->id,
                d->unit < TPU_UNIT_COUNT ? up[d->unit] : "SEQ");
    }

    fprintf(f, "\n// ---- instruction classes (isa.def's CLASS rows)\n"
               "localparam integer CLASS_BITS = %u;\n", class_bits());
    for (int c = 0; c < TPU_CLASS_COUNT; c++) {
        char u[32];
        upper(tpu_class_name(c), u, sizeof u);
        fprintf(f, "localparam [CLASS_BITS-1:0] CLASS_%s = %u'd%d;%*s// %s\n", u, class_bits(), c,
                pad(u, 6), "", tpu_class_what(c));
    }
    fprintf(f, "\n// ---- flags (isa.def's FLAG rows): bit numbers of a decode's `flags`\n"
               "localparam integer NUM_FLAGS = %d;\n", TPU_FLB_COUNT);
    for (int b = 0; b < TPU_FLB_COUNT; b++) {
        char u[32];
        upper(tpu_flag_name(b), u, sizeof u);
        fprintf(f, "localparam integer FL_%s = %d;%*s// %s\n", u, b, pad(u, 4), "",
                tpu_flag_what(b));
    }

    fprintf(f,
            "\n// ---- unit sets (the UNITS operand of sync)\n"
            "localparam [6:0] UNITS_MXU0 = 7'h%02x;\n"
            "localparam [6:0] UNITS_MXU1 = 7'h%02x;\n"
            "localparam [6:0] UNITS_MXU2 = 7'h%02x;\n"
            "localparam [6:0] UNITS_MXU3 = 7'h%02x;\n"
            "localparam [6:0] UNITS_MXU = 7'h%02x;\n"
            "localparam [6:0] UNITS_VPU = 7'h%02x;\n"
            "localparam [6:0] UNITS_DMA = 7'h%02x;\n"
            "localparam [6:0] UNITS_ICI = 7'h%02x;\n"
            "localparam [6:0] UNITS_ALL = 7'h%02x;\n",
            TPU_UNITS_MXU0, TPU_UNITS_MXU1, TPU_UNITS_MXU2, TPU_UNITS_MXU3, TPU_UNITS_MXU,
            TPU_UNITS_VPU, TPU_UNITS_DMA, TPU_UNITS_ICI, TPU_UNITS_ALL);

    fprintf(f,
            "\n// ---- registers and numbered resources\n"
            "localparam integer NUM_SREGS = %d;\n"
            "localparam integer NUM_VREGS = %d;\n"
            "localparam integer NUM_SEMS = %d;\n"
            "localparam integer MAX_MXUS = %d;\n"
            "localparam integer NUM_PORTS = %d;\n"
            "localparam integer SREG_ZERO = %d;   // reads 0, writes dropped\n"
            "localparam integer SREG_CID = %d;   // reads the core id, read-only\n",
            TPU_NUM_SREGS, TPU_NUM_VREGS, TPU_NUM_SEMS, TPU_MAX_MXUS, TPU_NUM_PORTS,
            TPU_SREG_ZERO, TPU_SREG_CID);
    fprintf(f, "\n/* verilator lint_on UNUSEDPARAM */\n");
}

/* ---- the rules the RTL's decode relies on (isa.def's header) --------------- */

/* 0 when the table keeps them; else 1 and a message per broken rule. */
static int isa_check(void)
{
    int bad = 0;
#define ISA_ERR(d, ...) do { fprintf(stderr, "tpu-isagen: cmodel/isa.def: error: %s: ", (d)->id); \
                             fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); bad = 1; } while (0)
    if (TPU_UNIT_COUNT > 8)
        fprintf(stderr, "tpu-isagen: cmodel/isa.def: error: %d units, the RTL's unit number "
                "has 3 bits\n", TPU_UNIT_COUNT), bad = 1;
    if (TPU_FLB_COUNT > 8)
        fprintf(stderr, "tpu-isagen: cmodel/isa.def: error: %d flags, tpu_insn_desc.flags has "
                "8 bits\n", TPU_FLB_COUNT), bad = 1;
    for (size_t i = 0; i < tpu_isa_count; i++) {
        const tpu_insn_desc *d = &tpu_isa_table[i];
        unsigned vw = 0, vr = 0;
        for (unsigned k = 0; k < d->noperands; k++) {
            enum tpu_operand_kind kind = d->op[k].kind;
            enum tpu_field fl = d->op[k].field;
            if (d->unit != TPU_UNIT_SEQ && fl != TPU_F_IMM && fl != (enum tpu_field)(TPU_F_A + k))
                ISA_ERR(d, "operand %u ('%s') of a queued instruction must sit in field %s or "
                        "IMM, not %s", k, d->op[k].name, tpu_field_name(TPU_F_A + k),
                        tpu_field_name(fl));
            if ((kind == TPU_K_SREGW || kind == TPU_K_MXU || kind == TPU_K_PORT) && fl != TPU_F_A)
                ISA_ERR(d, "a %s operand ('%s') must sit in field A", tpu_kind_name(kind),
                        d->op[k].name);
            if ((kind == TPU_K_SHAMT || kind == TPU_K_UNITS) && fl != TPU_F_IMM)
                ISA_ERR(d, "a %s operand ('%s') must sit in IMM", tpu_kind_name(kind),
                        d->op[k].name);
            if (d->unit == TPU_UNIT_VPU && kind == TPU_K_VREGW) {
                vw++;
                if (k != 0 || fl != TPU_F_A)
                    ISA_ERR(d, "the VPU writes the vector register of operand 0 (field A), "
                            "not '%s'", d->op[k].name);
            }
            if (d->unit == TPU_UNIT_VPU && kind == TPU_K_VREG) {
                vr++;
                if (k > 3)
                    ISA_ERR(d, "the VPU reads vector registers among operands 0..3, not '%s' "
                            "(operand %u)", d->op[k].name, k);
            }
        }
        if (vw > 1)
            ISA_ERR(d, "a VPU instruction writes at most one vector register, not %u", vw);
        if (vr > 3)
            ISA_ERR(d, "a VPU instruction reads at most three vector registers, not %u", vr);
    }
#undef ISA_ERR
    return bad;
}

/* ---- the sequencer's decode table (rtl/seq_decode.vh) ----------------------- */

/* Bit i set for each operand i of d of kind k (or, k == TPU_K_NONE, in IMM). */
static unsigned operand_mask(const tpu_insn_desc *d, int k)
{
    unsigned m = 0;
    for (unsigned i = 0; i < d->noperands; i++)
        if (k == TPU_K_NONE ? d->op[i].field == TPU_F_IMM : d->op[i].kind == (unsigned)k)
            m |= 1u << i;
    return m;
}

static void bits7(char *buf, unsigned m)
{
    for (int i = 6; i >= 0; i--)
        *buf++ = (char)('0' + ((m >> i) & 1));
    *buf = 0;
}

/* "CLASS_X; flags[FL_Y] = 1'b1;" parts of a row. */
static void put_class_flags(FILE *f, const tpu_insn_desc *d)
{
    char u[32];
    upper(tpu_class_name(d->cls), u, sizeof u);
    fprintf(f, " cls = CLASS_%s;", u);
    for (int b = 0; b < TPU_FLB_COUNT; b++)
        if (d->flags & (1u << b)) {
            upper(tpu_flag_name(b), u, sizeof u);
            fprintf(f, " flags[FL_%s] = 1'b1;", u);
        }
}

static void seq_decode(FILE *f)
{
    fprintf(f,
            "// rtl/seq_decode.vh - the sequencer's decode table: one row per instruction.\n"
            "//\n"
            "// Generated by `tpu-isagen --seq-decode` from cmodel/isa.def.  Do not edit:\n"
            "// change cmodel/isa.def and run `make generate`.  Included by rtl/seq.v\n"
            "// inside the module, after tpu_isa.vh and the declaration of `opcode`.\n"
            "//\n"
            "// From `opcode` (the word's bits 7:0) it decodes, all from the table:\n"
            "//   known        the opcode is an instruction's (else the word is illegal)\n"
            "//   used         the bits the instruction uses (USED_<ID>): any other set\n"
            "//                makes the word illegal\n"
            "//   unit, cls    the unit that runs it (UNIT_*) and its class (CLASS_*)\n"
            "//   flags        its flags (bit FL_* set)\n"
            "//   sreg_fields  bit i: operand i of a queued instruction (a unit other than\n"
            "//                the sequencer's; operand i in field i) is a scalar register\n"
            "//                read at issue (kind sreg)\n"
            "//   imm_ops      bit i: operand i of a queued instruction is the IMM field,\n"
            "//                sign-extended when imm_sext (kind simm), else zero-extended\n"
            "//   op_sregw     field A is a scalar register written: cid is out of range\n"
            "//   op_mxu       field A is an MXU number: 0..3\n"
            "//   op_port      field A is an ICI port number: 0..NUM_PORTS-1\n"
            "//   op_shamt     IMM is a shift amount: 0..63\n"
            "//   op_units     IMM is a unit set: 1..UNITS_ALL\n"
            "\n"
            "logic                  known;\n"
            "logic [63:0]           used;\n"
            "logic [2:0]            unit;\n"
            "logic [CLASS_BITS-1:0] cls;\n"
            "logic [NUM_FLAGS-1:0]  flags;\n"
            "logic [6:0]            sreg_fields, imm_ops;\n"
            "logic                  imm_sext, op_sregw, op_mxu, op_port, op_shamt, op_units;\n"
            "\n"
            "always_comb begin\n"
            "  known       = 1'b1;\n"
            "  used        = 64'd0;\n"
            "  unit        = UNIT_SEQ;\n"
            "  cls         = '0;\n"
            "  flags       = '0;\n"
            "  sreg_fields = 7'b0000000;\n"
            "  imm_ops     = 7'b0000000;\n"
            "  imm_sext    = 1'b0;\n"
            "  op_sregw    = 1'b0;\n"
            "  op_mxu      = 1'b0;\n"
            "  op_port     = 1'b0;\n"
            "  op_shamt    = 1'b0;\n"
            "  op_units    = 1'b0;\n"
            "  case (opcode)\n");
    for (size_t i = 0; i < tpu_isa_count; i++) {
        const tpu_insn_desc *d = &tpu_isa_table[i];
        char u[16], b[8];
        upper(tpu_unit_name(d->unit), u, sizeof u);
        fprintf(f, "    OP_%s:%*sbegin used = USED_%s; unit = UNIT_%s;", d->id, pad(d->id, 10), "",
                d->id, u);
        put_class_flags(f, d);
        if (d->unit != TPU_UNIT_SEQ) {
            unsigned sr = operand_mask(d, TPU_K_SREG), im = operand_mask(d, TPU_K_NONE);
            if (sr) {
                bits7(b, sr);
                fprintf(f, " sreg_fields = 7'b%s;", b);
            }
            if (im) {
                bits7(b, im);
                fprintf(f, " imm_ops = 7'b%s;", b);
                if (operand_mask(d, TPU_K_SIMM))
                    fprintf(f, " imm_sext = 1'b1;");
            }
        }
        if (operand_mask(d, TPU_K_SREGW))
            fprintf(f, " op_sregw = 1'b1;");
        if (operand_mask(d, TPU_K_MXU))
            fprintf(f, " op_mxu = 1'b1;");
        if (operand_mask(d, TPU_K_PORT))
            fprintf(f, " op_port = 1'b1;");
        if (operand_mask(d, TPU_K_SHAMT))
            fprintf(f, " op_shamt = 1'b1;");
        if (operand_mask(d, TPU_K_UNITS))
            fprintf(f, " op_units = 1'b1;");
        fprintf(f, " end\n");
    }
    fprintf(f, "    default: known = 1'b0;\n  endcase\nend\n");
}

/* ---- the VPU's register reads and writes (rtl/vpu_decode.vh) ----------------- */

static void vpu_decode(FILE *f)
{
    fprintf(f,
            "// rtl/vpu_decode.vh - the vector registers a VPU instruction reads and writes.\n"
            "//\n"
            "// Generated by `tpu-isagen --vpu-decode` from cmodel/isa.def (its operand\n"
            "// kinds vreg and vregw).  Do not edit: change cmodel/isa.def and run `make\n"
            "// generate`.  Included by rtl/vpu.v inside the module, after tpu_isa.vh\n"
            "// and the declarations of `op` (the queue head's opcode) and r0..r3 (its\n"
            "// operands 0..3 as register numbers); cmodel/vpu.c reads the same kinds.\n"
            "//\n"
            "//   nsrc, src[0..2]  the registers it reads (T27): src[i] for i < nsrc\n"
            "//   vwrite           it writes register r0 (operand 0, a vregw)\n"
            "//   cls, flags       its class (CLASS_*) and flags (bit FL_* set)\n"
            "\n"
            "logic [2:0]            nsrc;\n"
            "logic [4:0]            src [3];\n"
            "logic                  vwrite;\n"
            "logic [CLASS_BITS-1:0] cls;\n"
            "logic [NUM_FLAGS-1:0]  flags;\n"
            "\n"
            "always_comb begin\n"
            "  nsrc   = 3'd0;\n"
            "  src[0] = r1;\n"
            "  src[1] = r2;\n"
            "  src[2] = r3;\n"
            "  vwrite = 1'b0;\n"
            "  cls    = '0;\n"
            "  flags  = '0;\n"
            "  case (op)\n");
    for (size_t i = 0; i < tpu_isa_count; i++) {
        const tpu_insn_desc *d = &tpu_isa_table[i];
        if (d->unit != TPU_UNIT_VPU)
            continue;
        unsigned n = 0;
        fprintf(f, "    OP_%s:%*sbegin", d->id, pad(d->id, 8), "");
        for (unsigned k = 0; k < d->noperands; k++)
            if (d->op[k].kind == TPU_K_VREG) {
                if (k != n + 1)   /* the default is r(n + 1) */
                    fprintf(f, " src[%u] = r%u;", n, k);
                n++;
            }
        fprintf(f, " nsrc = 3'd%u;", n);
        if (operand_mask(d, TPU_K_VREGW))
            fprintf(f, " vwrite = 1'b1;");
        put_class_flags(f, d);
        fprintf(f, " end\n");
    }
    fprintf(f, "    default: ;\n  endcase\nend\n");
}

/* ---- the trace port (rtl/trace_ports.def) ------------------------------------ */

struct bus_field {
    const char *name, *count, *bits, *what;
};

static const struct bus_field trace_ports[] = {
#define TRACE_PORT(name, count, bits, what) { #name, #count, #bits, what },
#include "../../rtl/trace_ports.def"
#undef TRACE_PORT
};
#define NTRACE (sizeof trace_ports / sizeof trace_ports[0])

/* A port's width per core as a Verilog expression: COUNT*BITS, without a
 * factor of 1. */
static const char *trace_width(const struct bus_field *p, char *buf, size_t n)
{
    if (strcmp(p->count, "1") == 0)
        snprintf(buf, n, "%s", p->bits);
    else if (strcmp(p->bits, "1") == 0)
        snprintf(buf, n, "%s", p->count);
    else
        snprintf(buf, n, "%s*%s", p->count, p->bits);
    return buf;
}

static void trace_verilog(FILE *f)
{
    char w[128];
    fprintf(f,
            "// rtl/tpu_trace.vh - the trace port of core and system, as macros.\n"
            "//\n"
            "// Generated by `tpu-isagen --trace` from rtl/trace_ports.def.  Do not edit:\n"
            "// change rtl/trace_ports.def and run `make generate`.  docs/rtl.md, \"Trace\n"
            "// port\", says what the records mean.\n"
            "//\n"
            "//   `TPU_TRACE_PORTS        the %zu port names, for a module's port list\n"
            "//   `TPU_TRACE_DECLS(K)     their output declarations, K cores wide\n"
            "//   `TPU_TRACE_CONNECT(C)   the connections of core C to its slices\n"
            "//\n"
            "// Include it before the module (the macros are used in its header).\n"
            "\n"
            "`ifndef TPU_TRACE_VH\n"
            "`define TPU_TRACE_VH\n\n", NTRACE);
    for (size_t i = 0; i < NTRACE; i++)
        fprintf(f, "// tr_%s_o [%s]: %s\n", trace_ports[i].name,
                trace_width(&trace_ports[i], w, sizeof w), trace_ports[i].what);
    fprintf(f, "\n`define TPU_TRACE_PORTS \\\n");
    for (size_t i = 0; i < NTRACE; i++)
        fprintf(f, "  tr_%s_o%s\n", trace_ports[i].name, i + 1 < NTRACE ? ", \\" : "");
    fprintf(f, "\n`define TPU_TRACE_DECLS(K) \\\n");
    for (size_t i = 0; i < NTRACE; i++)
        fprintf(f, "  output logic [(K)*(%s)-1:0] tr_%s_o;%s\n",
                trace_width(&trace_ports[i], w, sizeof w), trace_ports[i].name,
                i + 1 < NTRACE ? " \\" : "");
    fprintf(f, "\n`define TPU_TRACE_CONNECT(C) \\\n");
    for (size_t i = 0; i < NTRACE; i++) {
        trace_width(&trace_ports[i], w, sizeof w);
        fprintf(f, "  .tr_%s_o (tr_%s_o[(%s)*(C) +: (%s)])%s\n", trace_ports[i].name,
                trace_ports[i].name, w, w, i + 1 < NTRACE ? ", \\" : "");
    }
    fprintf(f, "\n`endif\n");
}

/* ---- the queue entry (rtl/queue_entry.def) ------------------------------------ */

static const struct queue_field {
    const char *name;
    unsigned count, bits;
    const char *what;
} queue_fields[] = {
#define QUEUE_FIELD(name, count, bits, what) { #name, count, bits, what },
#include "../../rtl/queue_entry.def"
#undef QUEUE_FIELD
};
#define NQUEUE (sizeof queue_fields / sizeof queue_fields[0])

/* The C model's tpu_qentry has TPU_MAX_OPERANDS operands (v[]): so must the
 * RTL's entry.  0 when the table agrees. */
static int queue_check(void)
{
    for (size_t i = 0; i < NQUEUE; i++)
        if (strcmp(queue_fields[i].name, "opnd") == 0 &&
            queue_fields[i].count != TPU_MAX_OPERANDS) {
            fprintf(stderr, "tpu-isagen: rtl/queue_entry.def: error: opnd has %u elements, "
                    "the C model's tpu_qentry %d (TPU_MAX_OPERANDS)\n", queue_fields[i].count,
                    TPU_MAX_OPERANDS);
            return 1;
        }
    return 0;
}

static void queue_verilog(FILE *f)
{
    unsigned lsb = 0;
    char u[64];
    fprintf(f,
            "// rtl/tpu_queue.vh - the layout of a dispatch queue entry, as macros.\n"
            "//\n"
            "// Generated by `tpu-isagen --queue` from rtl/queue_entry.def.  Do not edit:\n"
            "// change rtl/queue_entry.def and run `make generate`.\n"
            "//\n"
            "//   `TPU_QE_BITS          the width of an entry\n"
            "//   `TPU_QE_<F>           the lowest bit of field F (element 0)\n"
            "//   `TPU_QE_<F>_BITS      the width of one element of F\n"
            "//   `TPU_QE_<F>_COUNT     how many elements F has\n"
            "//   `TPU_QE_<F>_AT(i)     the lowest bit of element i of F\n"
            "//\n"
            "// Include it before the module (the macros are used in its header).\n"
            "\n"
            "`ifndef TPU_QUEUE_VH\n"
            "`define TPU_QUEUE_VH\n\n");
    for (size_t i = 0; i < NQUEUE; i++) {
        const struct queue_field *q = &queue_fields[i];
        upper(q->name, u, sizeof u);
        fprintf(f, "// %s: %s\n", q->name, q->what);
        fprintf(f, "`define TPU_QE_%s %u\n", u, lsb);
        fprintf(f, "`define TPU_QE_%s_BITS %u\n", u, q->bits);
        fprintf(f, "`define TPU_QE_%s_COUNT %u\n", u, q->count);
        fprintf(f, "`define TPU_QE_%s_AT(i) (%u + %u*(i))\n\n", u, lsb, q->bits);
        lsb += q->count * q->bits;
    }
    fprintf(f, "`define TPU_QE_BITS %u\n\n`endif\n", lsb);
}

/* ---- the tables in docs/rtl.md ---------------------------------------------- */

static void trace_markdown(FILE *f)
{
    fprintf(f, "| port (per core) | elements x bits | meaning |\n|---|---|---|\n");
    for (size_t i = 0; i < NTRACE; i++)
        fprintf(f, "| `tr_%s_o` | %s x %s | %s |\n", trace_ports[i].name, trace_ports[i].count,
                trace_ports[i].bits, trace_ports[i].what);
}

static void queue_markdown(FILE *f)
{
    unsigned lsb = 0;
    fprintf(f, "| bits | field | meaning |\n|---|---|---|\n");
    for (size_t i = 0; i < NQUEUE; i++) {
        const struct queue_field *q = &queue_fields[i];
        unsigned n = q->count * q->bits;
        if (q->count > 1)
            fprintf(f, "| [%u:%u] | `%s[0..%u]`, %u bits each | %s |\n", lsb + n - 1, lsb, q->name,
                    q->count - 1, q->bits, q->what);
        else
            fprintf(f, "| [%u:%u] | `%s` | %s |\n", lsb + n - 1, lsb, q->name, q->what);
        lsb += n;
    }
    fprintf(f, "\n%u bits in all.\n", lsb);
}

/* docs/rtl.md with its generated sections refreshed: the text between
 * "<!-- tpu-isagen: NAME -->" and "<!-- end of tpu-isagen: NAME -->"
 * replaced.  Returns 0, or 1 when the file cannot be read or lacks a
 * section (the message on stderr). */
static int rtl_doc(const char *path, FILE *out)
{
    static const struct {
        const char *name;
        void (*write)(FILE *);
    } sections[] = { { "trace ports", trace_markdown }, { "queue entry", queue_markdown } };
    FILE *in = fopen(path, "r");
    if (!in) {
        fprintf(stderr, "tpu-isagen: %s: ", path);
        perror(NULL);
        return 1;
    }
    char line[4096];
    int skipping = -1, found[2] = { 0, 0 }, lineno = 0;
    while (fgets(line, sizeof line, in)) {
        lineno++;
        if (skipping >= 0) {
            char end[128];
            snprintf(end, sizeof end, "<!-- end of tpu-isagen: %s -->", sections[skipping].name);
            if (strncmp(line, end, strlen(end)) != 0)
                continue;
            skipping = -1;
            fputs(line, out);
            continue;
        }
        fputs(line, out);
        for (int s = 0; s < 2; s++) {
            char begin[128];
            snprintf(begin, sizeof begin, "<!-- tpu-isagen: %s -->", sections[s].name);
            if (strncmp(line, begin, strlen(begin)) == 0) {
                sections[s].write(out);
                skipping = s;
                found[s]++;
            }
        }
    }
    int bad = ferror(in);
    fclose(in);
    if (bad) {
        fprintf(stderr, "tpu-isagen: %s: read error\n", path);
        return 1;
    }
    if (skipping >= 0) {
        fprintf(stderr, "tpu-isagen: %s:%d: error: no '<!-- end of tpu-isagen: %s -->' after "
                "the section's start\n", path, lineno, sections[skipping].name);
        return 1;
    }
    for (int s = 0; s < 2; s++)
        if (found[s] != 1) {
            fprintf(stderr, "tpu-isagen: %s: error: %s '<!-- tpu-isagen: %s -->' line\n", path,
                    found[s] ? "more than one" : "no", sections[s].name);
            return 1;
        }
    return 0;
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: tpu-isagen --markdown | --verilog | --seq-decode | --vpu-decode | --trace\n"
            "                  | --queue | --rtl-doc FILE\n"
            "\n"
            "Write a file derived from the project's tables to standard output:\n"
            "  --markdown       the instruction set reference (docs/isa.md), from\n"
            "                   cmodel/isa.def\n"
            "  --verilog        the RTL's opcode, field, unit, class and flag constants\n"
            "                   (rtl/tpu_isa.vh)\n"
            "  --seq-decode     the sequencer's decode table (rtl/seq_decode.vh)\n"
            "  --vpu-decode     the vector registers a VPU instruction reads and writes\n"
            "                   (rtl/vpu_decode.vh)\n"
            "  --trace          the trace port of core and system (rtl/tpu_trace.vh),\n"
            "                   from rtl/trace_ports.def\n"
            "  --queue          the layout of a queue entry (rtl/tpu_queue.vh), from\n"
            "                   rtl/queue_entry.def\n"
            "  --rtl-doc FILE   FILE (docs/rtl.md) with its generated tables (between\n"
            "                   '<!-- tpu-isagen: NAME -->' and '<!-- end of tpu-isagen:\n"
            "                   NAME -->', NAME 'trace ports' or 'queue entry') refreshed\n"
            "  -h, --help       show this help\n"
            "\n"
            "Each refuses a table that breaks a rule the RTL's decode relies on (the\n"
            "header of cmodel/isa.def lists them), naming the instruction; exit status 1.\n"
            "`make generate` refreshes every generated file; `make check-generated` fails\n"
            "when one is stale.\n");
}

int main(int argc, char **argv)
{
    static const struct {
        const char *opt;
        void (*write)(FILE *);
    } outs[] = {
        { "--markdown", markdown },     { "--verilog", verilog },       { "--seq-decode", seq_decode },
        { "--vpu-decode", vpu_decode }, { "--trace", trace_verilog },   { "--queue", queue_verilog },
    };
    const size_t nouts = sizeof outs / sizeof outs[0];
    if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        usage(stdout);
        return 0;
    }
    int which = -1;
    for (size_t i = 0; argc == 2 && i < nouts; i++)
        if (strcmp(argv[1], outs[i].opt) == 0)
            which = (int)i;
    int doc = argc == 3 && strcmp(argv[1], "--rtl-doc") == 0;
    if (which < 0 && !doc) {
        int known = argc >= 2 && strcmp(argv[1], "--rtl-doc") == 0;
        for (size_t i = 0; argc >= 2 && i < nouts; i++)
            known |= strcmp(argv[1], outs[i].opt) == 0;
        if (argc >= 2 && argv[1][0] == '-' && !known)
            fprintf(stderr, "tpu-isagen: unknown option '%s' (try --help)\n", argv[1]);
        else
            fprintf(stderr, "tpu-isagen: give exactly one of --markdown, --verilog, --seq-decode, "
                    "--vpu-decode, --trace, --queue or --rtl-doc FILE (try --help)\n");
        return 2;
    }
    if (queue_check() != 0 || isa_check() != 0)
        return 1;
    if (doc) {
        if (rtl_doc(argv[2], stdout) != 0)
            return 1;
    } else {
        outs[which].write(stdout);
    }
    if (fflush(stdout) != 0 || ferror(stdout)) {
        perror("tpu-isagen: standard output");
        return 1;
    }
    return 0;
}
