/*
 * asm_diag.c - the assembler's error messages.
 *
 * Messages are collected, not printed: "FILE:LINE:COL: error: MESSAGE".
 * The same message at the same place is kept once (an error inside a
 * .rept body would otherwise repeat for every iteration).  After
 * TPU_ASM_MAX_ERRORS distinct errors one more, "too many errors, stopping",
 * ends the assembly.  At the end they are sorted by position.
 *
 * An error on a line of a macro body names that line, and a note line per
 * call being expanded follows it, innermost first, as gcc does:
 *   "FILE:LINE: note: in expansion of macro 'NAME'" (LINE: the call's).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "asm_impl.h"

#define MSG_MAX 512
#define NOTE_MAX 400            /* "FILE:LINE: note: in expansion of macro 'NAME'" */

static void add_diag(asm_ctx *a, uint32_t line, uint32_t col, const char *msg)
{
    char text[MSG_MAX + 300 + NOTE_MAX * TPU_ASM_MAX_MACRO_DEPTH];
    uint32_t oline;
    const char *file = asm_where(a, line, &oline);
    int n = snprintf(text, MSG_MAX + 300, "%.250s:%u:%u: error: %s", file, oline, col, msg);
    size_t used = n < 0 ? 0 : (size_t)n < MSG_MAX + 300 ? (size_t)n : MSG_MAX + 299;
    if (line == a->lineno)
        for (unsigned k = a->nmcalls; k-- > 0;) {
            const asm_macro *m = &a->macros[a->mcalls[k].macro];
            char b[ASM_CLIP_BUF];
            uint32_t cl;
            const char *cf = asm_where(a, a->mcalls[k].line, &cl);
            n = snprintf(text + used, NOTE_MAX, "\n%.250s:%u: note: in expansion of macro '%s'",
                         cf, cl, asm_clip(b, sizeof b, m->name, m->len));
            used += n < 0 ? 0 : (size_t)n < NOTE_MAX ? (size_t)n : NOTE_MAX - 1;
        }
    for (unsigned k = 0; k < a->ndiags; k++)
        if (a->diags[k].line == line && a->diags[k].col == col &&
            strcmp(a->diags[k].text, text) == 0)
            return;
    if (a->ndiags == TPU_ASM_MAX_ERRORS) {
        snprintf(text, MSG_MAX + 300, "%.250s:%u:%u: error: too many errors, stopping", file,
                 oline, col);
        a->stopped = 1;
    }
    char *copy = malloc(strlen(text) + 1);
    if (!copy) {
        a->oom = 1;
        a->stopped = 1;
        return;
    }
    strcpy(copy, text);
    a->diags[a->ndiags].line = line;
    a->diags[a->ndiags].col = col;
    a->diags[a->ndiags].seq = a->seq++;
    a->diags[a->ndiags].text = copy;
    a->ndiags++;
}

static void verror(asm_ctx *a, uint32_t line, uint32_t col, int fatal, const char *fmt,
                   va_list ap)
{
    char msg[MSG_MAX];
    if (a->stopped || a->fatal)
        return;
    if (fatal)
        a->fatal = 1;
    else if (a->quiet)
        return;
    vsnprintf(msg, sizeof msg, fmt, ap);
    add_diag(a, line, col, msg);
}

/* An error at column col of the line being executed. */
void asm_error(asm_ctx *a, uint32_t col, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    verror(a, a->lineno, col, 0, fmt, ap);
    va_end(ap);
}

void asm_error_at(asm_ctx *a, uint32_t line, uint32_t col, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    verror(a, line, col, 0, fmt, ap);
    va_end(ap);
}

/* A limit was hit (expansion budget, program size): report it even in the
 * quiet pass, and stop. */
void asm_fatal_at(asm_ctx *a, uint32_t line, uint32_t col, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    verror(a, line, col, 1, fmt, ap);
    va_end(ap);
}

void asm_oom(asm_ctx *a)
{
    if (!a->oom)
        asm_fatal_at(a, a->lineno ? a->lineno : 1, 1, "out of memory");
    a->oom = 1;
    a->fatal = 1;
}

static int diag_cmp(const void *pa, const void *pb)
{
    const asm_diag *x = pa, *y = pb;
    if (x->line != y->line)
        return x->line < y->line ? -1 : 1;
    if (x->col != y->col)
        return x->col < y->col ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Sort the messages by position (the stop message stays last) and hand
 * them to the caller.  Returns the number of errors, or -1 when out of
 * memory for the buffer. */
int asm_finish_diags(asm_ctx *a, tpu_asm_result *res)
{
    size_t nsort = a->ndiags;
    if (a->stopped && nsort > TPU_ASM_MAX_ERRORS)
        nsort = TPU_ASM_MAX_ERRORS;
    qsort(a->diags, nsort, sizeof a->diags[0], diag_cmp);
    size_t total = 1;
    for (unsigned k = 0; k < a->ndiags; k++)
        total += strlen(a->diags[k].text) + 1;
    res->messages = malloc(total);
    res->messages_len = 0;
    res->nerrors = a->ndiags;
    if (!res->messages)
        return -1;
    for (unsigned k = 0; k < a->ndiags; k++) {
        size_t n = strlen(a->diags[k].text);
        memcpy(res->messages + res->messages_len, a->diags[k].text, n);
        res->messages_len += n;
        res->messages[res->messages_len++] = '\n';
    }
    res->messages[res->messages_len] = '\0';
    return (int)a->ndiags;
}

void asm_free_diags(asm_ctx *a)
{
    for (unsigned k = 0; k < a->ndiags; k++)
        free(a->diags[k].text);
    a->ndiags = 0;
}

/* Source text for a message: at most ~60 bytes, then "...".  The pre-pass
 * has already refused lines with control bytes, but be safe anyway. */
const char *asm_clip(char *buf, size_t bufsz, const char *s, size_t len)
{
    size_t max = bufsz - 4, n = 0;
    for (size_t k = 0; k < len && n < max; k++) {
        unsigned char c = (unsigned char)s[k];
        buf[n++] = (c >= 0x20 && c < 0x7f) ? (char)c : '?';
    }
    if (len > max)
        memcpy(buf + n, "...", 3), n += 3;
    buf[n] = '\0';
    return buf;
}
