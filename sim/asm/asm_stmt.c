/*
 * asm_stmt.c - one statement: its labels, then a directive or an
 * instruction.  The assembler's layers call downwards only: asm_run.c (the
 * passes) -> asm_stmt.c -> asm_directive.c (.insn: -> asm_insn.c) and
 * asm_insn.c -> asm_line.c, asm_expr.c, asm_data.c, asm_sym.c ...
 */
#include <string.h>

#include "asm_impl.h"

/* Define `name:` at the current address (instruction index in .text, byte
 * address in .hbm/.vmem). */
static void define_label(asm_ctx *a, const asm_tok *t)
{
    char b[ASM_CLIP_BUF];
    if (asm_is_reserved(t->s, t->len)) {
        asm_error(a, t->col, "'%s' is a reserved name and cannot be a label",
                  asm_tok_text(t, b, sizeof b));
        return;
    }
    if (t->len > TPU_OBJ_MAX_NAME) {
        asm_error(a, t->col, "label name too long (%u characters, at most %d)", t->len,
                  TPU_OBJ_MAX_NAME);
        return;
    }
    asm_sym *s = asm_sym_find(a, t->s, t->len);
    if (s && s->kind == SYM_CMDLINE) {
        asm_error(a, t->col, "'%s' is already defined on the command line",
                  asm_tok_text(t, b, sizeof b));
        return;
    }
    if (s && s->defined) {
        char pl[ASM_PLACE_BUF];
        asm_error(a, t->col, "'%s' is already defined at %s", asm_tok_text(t, b, sizeof b),
                  asm_place(a, s->line, s->col, pl, sizeof pl));
        return;
    }
    if (!s && !(s = asm_sym_add(a, t->s, t->len)))
        return;
    int64_t value = a->section == SEC_TEXT ? (int64_t)a->ntext : (int64_t)a->pos;
    uint8_t space = a->section == SEC_TEXT ? TPU_SPACE_IMEM
                  : a->section == SEC_HBM ? TPU_SPACE_HBM : TPU_SPACE_VMEM;
    if (s->kind == SYM_LABEL && s->known && (s->value != value || s->space != space)) {
        asm_fatal_at(a, a->lineno, t->col, "internal error: label '%s' moved between passes",
                     asm_tok_text(t, b, sizeof b));
        return;
    }
    s->kind = SYM_LABEL;
    s->value = value;
    s->space = space;
    s->defined = 1;
    s->line = a->lineno;
    s->col = t->col;
}

int asm_exec_line(asm_ctx *a, int64_t *rept_count)
{
    char b[ASM_CLIP_BUF];
    size_t i = 0;
    const asm_tok *t = a->toks;
    while (t[i].type == T_IDENT && t[i + 1].type == T_COLON) {
        define_label(a, &t[i]);
        i += 2;
    }
    switch (t[i].type) {
    case T_EOL:
        return ACT_NONE;
    case T_DIRECTIVE:
        if (asm_tok_is(&t[i], ".rept")) {
            asm_val v;
            *rept_count = 0;
            if (t[i + 1].type == T_EOL)
                asm_error(a, t[i].col, "'.rept' needs a count");
            else if (asm_expr_operand(a, i + 1, a->ntoks - 1, 0, &v) == 0) {
                if (v.v < 0)
                    asm_error(a, t[i + 1].col, "'.rept' count %lld is negative", (long long)v.v);
                else
                    *rept_count = v.v;
            }
            return ACT_REPT;
        }
        if (asm_tok_is(&t[i], ".endr")) {
            if (t[i + 1].type != T_EOL)
                asm_error(a, t[i + 1].col, "unexpected '%s' after '.endr'",
                          asm_tok_text(&t[i + 1], b, sizeof b));
            return ACT_ENDR;
        }
        if (asm_tok_is(&t[i], ".endm") || asm_tok_is(&t[i], ".exitm")) {
            /* the run loop leaves a body at its .endm by position; a .endm
             * reached here has no .macro (the pre-pass said so) */
            if (t[i + 1].type != T_EOL)
                asm_error(a, t[i + 1].col, "unexpected '%s' after '%s'",
                          asm_tok_text(&t[i + 1], b, sizeof b), t[i].len == 5 ? ".endm" : ".exitm");
            return t[i].len == 5 ? ACT_ENDM : ACT_EXITM;
        }
        if (asm_tok_is(&t[i], ".macro")) {
            asm_error(a, t[i].col, "'.macro' must begin its own line (a macro argument cannot "
                      "make one)");
            return ACT_NONE;
        }
        asm_directive(a, i);
        return ACT_NONE;
    case T_IDENT:
        asm_instruction(a, i);
        return ACT_NONE;
    default:
        asm_error(a, t[i].col, "expected a label, an instruction or a directive, got '%s'",
                  asm_tok_text(&t[i], b, sizeof b));
        return ACT_NONE;
    }
}
