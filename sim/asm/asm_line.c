/*
 * asm_line.c - what every statement needs from its line: the operands
 * split at top-level commas, the line's text, and the listing.  Below the
 * statements (asm_stmt.c), directives and instructions, which all call it.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "asm_impl.h"

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
