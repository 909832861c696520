/*
 * asm_insn.c - one instruction: look the mnemonic up in the ISA table
 * (cmodel/isa.def), read each operand as its kind says, encode with
 * tpu_encode.  The table is the only description of the instructions.
 */
#include <stdio.h>
#include <string.h>

#include "asm_impl.h"
#include "strdist.h"

/* What an operand kind looks like, for "must be ..." messages. */
static const char *kind_wanted(unsigned kind)
{
    switch (kind) {
    case TPU_K_SREG:
    case TPU_K_SREGW: return "a scalar register (s0..s31, zero, cid)";
    case TPU_K_VREG:
    case TPU_K_VREGW: return "a vector register (v0..v31)";
    case TPU_K_SEM: return "a semaphore number (0..31)";
    case TPU_K_MXU: return "an MXU number (0..3)";
    case TPU_K_PORT: return "an ICI port number (0..3)";
    case TPU_K_SIMM: return "a signed 32-bit immediate";
    case TPU_K_UIMM: return "an unsigned 32-bit immediate";
    case TPU_K_SHAMT: return "a shift amount (0..63)";
    case TPU_K_TARGET: return "a code label or an instruction index";
    case TPU_K_UNITS: return "a unit set (mxu0..mxu3, mxu, vpu, dma, ici, all, joined by '|')";
    default: return "?";
    }
}

/* The noun for a number of this kind in "... out of range" messages. */
static const char *kind_noun(unsigned kind)
{
    switch (kind) {
    case TPU_K_SEM: return "semaphore";
    case TPU_K_MXU: return "MXU";
    case TPU_K_PORT: return "port";
    case TPU_K_TARGET: return "target";
    default: return "immediate";
    }
}

static void unknown_mnemonic(asm_ctx *a, const asm_tok *t)
{
    char b[ASM_CLIP_BUF];
    const char *best = NULL;
    size_t bestd = t->len <= 3 ? 2 : 3;
    for (size_t k = 0; k < tpu_isa_count; k++) {
        const char *m = tpu_isa_table[k].mnemonic;
        size_t d = tpu_edit_distance(t->s, t->len, m, strlen(m), 0);
        if (d < bestd)
            bestd = d, best = m;
    }
    if (best)
        asm_error(a, t->col, "unknown instruction '%s'; did you mean '%s'?",
                  asm_tok_text(t, b, sizeof b), best);
    else
        asm_error(a, t->col, "unknown instruction '%s'", asm_tok_text(t, b, sizeof b));
}

/* The source text of toks[start..end), for messages. */
static const char *span_text(const asm_ctx *a, size_t start, size_t end, char *buf, size_t bufsz)
{
    const asm_tok *f = &a->toks[start], *l = &a->toks[end - 1];
    return asm_clip(buf, bufsz, f->s, (size_t)(l->s + l->len - f->s));
}

static int units_operand(asm_ctx *a, const tpu_insn_desc *d, unsigned k, size_t start,
                         size_t end, int64_t *val)
{
    char b[ASM_CLIP_BUF];
    const asm_tok *t = a->toks;
    for (size_t j = start; j < end; j++) {
        int want_name = (j - start) % 2 == 0;
        if ((want_name && t[j].type != T_IDENT) || (!want_name && t[j].type != T_PIPE) ||
            (!want_name && j + 1 == end)) {
            asm_error(a, t[start].col, "operand %u of '%s' must be %s, got '%s'", k + 1,
                      d->mnemonic, kind_wanted(TPU_K_UNITS), span_text(a, start, end, b, sizeof b));
            return -1;
        }
    }
    uint32_t mask = 0;
    for (size_t j = start; j < end; j += 2) {
        uint32_t m;
        if (tpu_units_parse(t[j].s, t[j].len, &m)) {
            asm_error(a, t[j].col,
                      "unknown unit '%s' (expected mxu0..mxu3, mxu, vpu, dma, ici or all)",
                      asm_tok_text(&t[j], b, sizeof b));
            return -1;
        }
        mask |= m;
    }
    *val = mask;
    return 0;
}

/* Read operand k (toks[start..end)) as its kind says. */
static int operand(asm_ctx *a, const tpu_insn_desc *d, unsigned k, size_t start, size_t end,
                   int64_t *val)
{
    char b[ASM_CLIP_BUF];
    unsigned kind = d->op[k].kind;
    const asm_tok *t = &a->toks[start];
    int single_ident = end == start + 1 && t->type == T_IDENT;
    if (tpu_kind_regfile(kind)) {
        int r = single_ident ? tpu_reg_parse(kind, t->s, t->len) : -1;
        if (r < 0) {
            asm_error(a, t->col, "operand %u of '%s' must be %s, got '%s'", k + 1, d->mnemonic,
                      kind_wanted(kind), span_text(a, start, end, b, sizeof b));
            return -1;
        }
        if (kind == TPU_K_SREGW && r == TPU_SREG_CID) {
            asm_error(a, t->col, "register '%s' is read-only", asm_tok_text(t, b, sizeof b));
            return -1;
        }
        *val = r;
        return 0;
    }
    if (kind == TPU_K_UNITS)
        return units_operand(a, d, k, start, end, val);
    if (single_ident && (tpu_reg_parse(TPU_K_SREG, t->s, t->len) >= 0 ||
                         tpu_reg_parse(TPU_K_VREG, t->s, t->len) >= 0)) {
        asm_error(a, t->col, "operand %u of '%s' must be %s, got '%s'", k + 1, d->mnemonic,
                  kind_wanted(kind), asm_tok_text(t, b, sizeof b));
        return -1;
    }
    asm_val v;
    if (asm_expr_operand(a, start, end, EXPR_FORWARD, &v))
        return -1;
    if (kind == TPU_K_TARGET && (v.space == TPU_SPACE_HBM || v.space == TPU_SPACE_VMEM)) {
        asm_error(a, t->col, "operand %u of '%s' must be %s, got %s address '%s'", k + 1,
                  d->mnemonic, kind_wanted(kind), asm_space_name(v.space),
                  span_text(a, start, end, b, sizeof b));
        return -1;
    }
    int64_t lo, hi;
    tpu_kind_range(kind, &lo, &hi);
    if (v.v < lo || v.v > hi) {
        asm_error(a, t->col, "%s %lld out of range for %s: %lld..%lld", kind_noun(kind),
                  (long long)v.v, d->op[k].name, (long long)lo, (long long)hi);
        return -1;
    }
    if (kind == TPU_K_MXU && a->opt->config && (uint64_t)v.v >= a->opt->config->num_mxu) {
        asm_error(a, t->col, "MXU %lld does not exist: the configuration has %llu (0..%llu)",
                  (long long)v.v, (unsigned long long)a->opt->config->num_mxu,
                  (unsigned long long)a->opt->config->num_mxu - 1);
        return -1;
    }
    *val = v.v;
    return 0;
}

/* Encode the instruction at toks[i]; 0 and the word, or -1 after errors. */
static int encode(asm_ctx *a, size_t i, uint64_t *word)
{
    const asm_tok *t = &a->toks[i];
    const tpu_insn_desc *d = tpu_isa_by_mnemonic(t->s, t->len);
    if (!d) {
        unknown_mnemonic(a, t);
        return -1;
    }
    /* The machine's MXU modes, when the config is known (timing.md T5b):
     * the table's i8 flag says which MXU instructions are the int8 forms. */
    if (d->unit == TPU_UNIT_MXU && a->opt->config) {
        int i8 = (d->flags & TPU_FL_I8) != 0;
        uint64_t mode = a->opt->config->mxu_int8;
        if (i8 && mode == 0) {
            asm_error(a, t->col, "'%s': the machine '%s' has no int8 MXU mode (mxu_int8 = 0)",
                      d->mnemonic, a->opt->config->name);
            return -1;
        }
        if (!i8 && mode == 2) {
            asm_error(a, t->col, "'%s': the machine '%s' has int8 MXUs only (mxu_int8 = 2): "
                      "use '%s.i8'", d->mnemonic, a->opt->config->name, d->mnemonic);
            return -1;
        }
    }
    size_t starts[TPU_MAX_OPERANDS], ends[TPU_MAX_OPERANDS];
    int n = asm_split_operands(a, i + 1, starts, ends, TPU_MAX_OPERANDS);
    if (n < 0)
        return -1;
    if ((unsigned)n != d->noperands) {
        char names[200] = "";
        for (unsigned k = 0; k < d->noperands; k++)
            snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s",
                     k ? ", " : "", d->op[k].name);
        if (d->noperands == 0)
            asm_error(a, t->col, "'%s' takes no operands, got %d", d->mnemonic, n);
        else
            asm_error(a, t->col, "'%s' takes %u operand%s (%s), got %d", d->mnemonic,
                      d->noperands, d->noperands == 1 ? "" : "s", names, n);
        return -1;
    }
    int64_t val[TPU_MAX_OPERANDS] = { 0 };
    int bad = 0;
    for (unsigned k = 0; k < d->noperands; k++)
        if (operand(a, d, k, starts[k], ends[k], &val[k]))
            bad = 1;
    if (bad)
        return -1;
    int which = 0;
    if (tpu_encode(d, val, word, &which)) {
        asm_error(a, a->toks[starts[which]].col, "operand %d of '%s' out of range", which + 1,
                  d->mnemonic);
        return -1;
    }
    return 0;
}

/* Append one word to the text (both passes count it, pass 2 stores it). */
static void emit_word(asm_ctx *a, uint64_t word)
{
    if (a->pass == 2 && !a->fatal) {
        const char *s;
        int len;
        if (tpu_obj_add_text(a->obj, word)) {
            asm_oom(a);
            return;
        }
        asm_line_text(a, &s, &len);
        asm_listing(a, "text 0x%08llx  %016llx  %.*s\n", (unsigned long long)a->ntext,
                    (unsigned long long)word, len, s);
    }
    a->ntext++;
}

/* Is there room for one more instruction?  Running out is fatal: it would
 * otherwise take time and memory in proportion to a runaway .rept. */
static int text_room(asm_ctx *a, uint32_t col)
{
    if (a->section != SEC_TEXT)
        return 0;
    if (a->ntext >= a->text_max) {
        asm_fatal_at(a, a->lineno, col, "too many instructions (more than %llu)",
                     (unsigned long long)a->text_max);
        return 0;
    }
    return 1;
}

void asm_instruction(asm_ctx *a, size_t i)
{
    char b[ASM_CLIP_BUF];
    const asm_tok *t = &a->toks[i];
    if (a->section != SEC_TEXT) {
        asm_error(a, t->col, "instruction '%s' in a data section (.%s); write '.text' first",
                  asm_tok_text(t, b, sizeof b), a->section == SEC_HBM ? "hbm" : "vmem");
        return;
    }
    if (!text_room(a, t->col))
        return;
    uint64_t word = 0;
    if (a->pass == 2 && encode(a, i, &word))
        word = 0;
    emit_word(a, word);
}

/* `.insn EXPR`: a raw instruction word. */
void asm_insn_raw(asm_ctx *a, size_t i, size_t start, size_t end)
{
    asm_val v = { 0, 0 };
    if (a->section != SEC_TEXT) {
        asm_error(a, a->toks[i].col, "'.insn' is only allowed in .text");
        return;
    }
    if (!text_room(a, a->toks[i].col))
        return;
    if (a->pass == 2 && asm_expr_operand(a, start, end, EXPR_FORWARD, &v))
        v.v = 0;
    emit_word(a, (uint64_t)v.v);
}
