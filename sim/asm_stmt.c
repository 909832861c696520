/*
 * asm_stmt.c - one statement: its labels, then a directive or an
 * instruction.  Also the helpers every statement uses (operand splitting,
 * the listing).
 */
#include <stdio.h>
#include <stdlib.h>
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
        asm_error(a, t->col, "'%s' is already defined at %.250s:%u:%u",
                  asm_tok_text(t, b, sizeof b), a->file, s->line, s->col);
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

int asm_split_operands(asm_ctx *a, size_t from, size_t *starts, size_t *ends, size_t max)
{
    const asm_tok *t = a->toks;
    size_t n = 0, start = from;
    int depth = 0;
    if (t[from].type == T_EOL)
        return 0;
    for (size_t k = from;; k++) {
        if (t[k].type == T_LPAREN)
            depth++;
        else if (t[k].type == T_RPAREN && depth > 0)
            depth--;
        if ((t[k].type == T_COMMA && depth == 0) || t[k].type == T_EOL) {
            if (k == start) {
                if (t[k].type == T_COMMA)
                    asm_error(a, t[k].col, "expected an operand before ','");
                else
                    asm_error(a, t[k].col, "expected an operand after ','");
                return -1;
            }
            if (n < max)
                starts[n] = start, ends[n] = k;
            n++;
            start = k + 1;
            if (t[k].type == T_EOL)
                return (int)(n > (size_t)INT32_MAX ? INT32_MAX : n);
        }
    }
}

void asm_line_text(const asm_ctx *a, const char **s, int *len)
{
    const char *p = a->line, *e = a->line + a->linelen;
    while (p < e && (*p == ' ' || *p == '\t'))
        p++;
    while (e > p && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
        e--;
    *s = p;
    *len = (int)(e - p);
}

/* Append one line to the listing (pass 2 with options.listing only). */
void asm_listing(asm_ctx *a, const char *fmt, ...)
{
    if (a->pass != 2 || !a->opt->listing || a->oom)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if (a->list_len + (size_t)n + 1 > a->list_cap) {
        size_t cap = a->list_cap ? a->list_cap : 4096;
        while (cap < a->list_len + (size_t)n + 1)
            cap *= 2;
        char *p = realloc(a->list, cap);
        if (!p) {
            asm_oom(a);
            return;
        }
        a->list = p, a->list_cap = cap;
    }
    va_start(ap, fmt);
    vsnprintf(a->list + a->list_len, a->list_cap - a->list_len, fmt, ap);
    va_end(ap);
    a->list_len += (size_t)n;
}
