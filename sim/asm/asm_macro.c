/*
 * asm_macro.c - gas-style macros: `.macro NAME PARAMS` ... `.endm`.
 *
 * The pre-pass (asm_run.c) finds each definition and its .endm and hands
 * the .macro line here (asm_macro_define), which reads the name and the
 * parameters (NAME, NAME=DEFAULT, NAME:req) from the raw text: '=' is not a
 * token of the language, so these lines are not lexed.
 *
 * A call is a line whose first word after its labels names a macro.  The
 * passes run the body from its place in the source, line by line, with each
 * \NAME replaced by the argument's text, \@ by the number of macro calls
 * executed before this one in the pass, and \() by nothing (to join
 * \NAME\()text); .rept inside a body works as anywhere.  Everything here
 * keeps pointers into the source, which never moves.  The limits
 * (TPU_ASM_MAX_MACRO_*, the expansion budget) are checked by the caller.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "asm_impl.h"

static int id_start(int c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; }
static int id_char(int c) { return id_start(c) || (c >= '0' && c <= '9') || c == '.'; }
static int blank(int c) { return c == ' ' || c == '\t' || c == '\r'; }

/* Does a comment start at s[k] (outside strings)? */
static int comment(int c) { return c == '#' || c == ';'; }

int asm_first_word(const char *s, uint32_t len, uint32_t *w, uint32_t *wlen, uint32_t *lablen)
{
    uint32_t k = 0;
    *lablen = 0;
    for (;;) {
        while (k < len && blank((unsigned char)s[k]))
            k++;
        uint32_t start = k;
        if (k < len && s[k] == '.')
            k++;
        /* a label may be spelt with \NAME, \@ and \() inside a macro body */
        while (k < len && (id_char((unsigned char)s[k]) || s[k] == '\\' || s[k] == '@' ||
                           (s[k] == '(' && k > 0 && s[k - 1] == '\\') ||
                           (s[k] == ')' && k > 1 && s[k - 1] == '(' && s[k - 2] == '\\')))
            k++;
        if (k == start || (k == start + 1 && s[start] == '.'))
            return 0;
        uint32_t end = k;
        while (k < len && blank((unsigned char)s[k]))
            k++;
        if (s[start] != '.' && k < len && s[k] == ':') {
            *lablen = ++k;
            continue;
        }
        /* the word itself: its identifier characters only */
        uint32_t e = start + (s[start] == '.');
        while (e < end && id_char((unsigned char)s[e]))
            e++;
        if (e == start + (s[start] == '.'))
            return 0;
        *w = start;
        *wlen = e - start;
        return 1;
    }
}

static int grow_subst(asm_ctx *a, size_t need)
{
    if (need <= a->substcap)
        return 0;
    size_t cap = a->substcap ? a->substcap : 256;
    while (cap < need)
        cap *= 2;
    char *p = realloc(a->subst, cap);
    if (!p) {
        asm_oom(a);
        return -1;
    }
    a->subst = p;
    a->substcap = cap;
    return 0;
}

const char *asm_macro_sanitize(asm_ctx *a, const char *s, uint32_t len)
{
    if (!memchr(s, '\\', len) || grow_subst(a, (size_t)len + 1) < 0)
        return NULL;
    char *o = a->subst;
    int in_string = 0;
    for (uint32_t k = 0; k < len; k++) {
        char c = s[k];
        o[k] = c;
        if (in_string) {
            if (c == '\\' && k + 1 < len && (s[k + 1] == '"' || s[k + 1] == '\\'))
                o[k + 1] = s[k + 1], k++;
            else if (c == '"')
                in_string = 0;
            continue;
        }
        if (c == '"')
            in_string = 1;
        else if (comment(c)) {
            memcpy(o + k, s + k, len - k);
            break;
        } else if (c == '\\') {
            o[k] = '_';
            if (k + 1 < len && s[k + 1] == '@')
                o[++k] = '_';
            else if (k + 2 < len && s[k + 1] == '(' && s[k + 2] == ')')
                o[k + 1] = '_', o[k + 2] = '_', k += 2;
        }
    }
    return o;
}

static const char *clip(char *b, size_t n, const char *s, size_t len)
{
    return asm_clip(b, n, s, len);
}

/* The end of a default value or an argument starting at s[k]: the next
 * comma outside parentheses and strings, a comment, or the end. */
static uint32_t value_end(const char *s, uint32_t len, uint32_t k)
{
    int depth = 0, in_string = 0;
    for (; k < len; k++) {
        char c = s[k];
        if (in_string) {
            if (c == '\\' && k + 1 < len)
                k++;
            else if (c == '"')
                in_string = 0;
        } else if (c == '"')
            in_string = 1;
        else if (c == '(')
            depth++;
        else if (c == ')' && depth > 0)
            depth--;
        else if ((c == ',' && depth == 0) || comment(c))
            break;
    }
    return k;
}

static void trim(const char *s, uint32_t *b, uint32_t *e)
{
    while (*b < *e && blank((unsigned char)s[*b]))
        (*b)++;
    while (*e > *b && blank((unsigned char)s[*e - 1]))
        (*e)--;
}

int asm_macro_define(asm_ctx *a, const char *s, uint32_t len, uint32_t off, uint32_t lineno,
                     uint32_t col)
{
    char b[ASM_CLIP_BUF], b2[ASM_CLIP_BUF];
    if (a->nmacros == a->macrocap) {
        size_t cap = a->macrocap ? a->macrocap * 2 : 16;
        asm_macro *m = realloc(a->macros, cap * sizeof *m);
        if (!m) {
            asm_oom(a);
            return -1;
        }
        a->macros = m, a->macrocap = cap;
    }
    asm_macro *m = &a->macros[a->nmacros++];
    memset(m, 0, sizeof *m);
    m->def_off = off;
    m->def_line = lineno;
    m->def_col = col;
    m->endm_off = (uint32_t)a->srclen;
    m->param0 = a->nmparams;
    uint32_t k = col - 1 + 6;                   /* after ".macro" */
    while (k < len && blank((unsigned char)s[k]))
        k++;
    if (k == len || comment(s[k])) {
        asm_error_at(a, lineno, col, "'.macro' needs a name");
        return 0;
    }
    if (!id_start((unsigned char)s[k])) {
        asm_error_at(a, lineno, k + 1, "expected a macro name after '.macro', got '%c'", s[k]);
        return 0;
    }
    uint32_t n0 = k;
    while (k < len && id_char((unsigned char)s[k]))
        k++;
    m->name = s + n0;
    m->len = k - n0;
    if (asm_is_reserved(m->name, m->len)) {
        asm_error_at(a, lineno, n0 + 1, "'%s' is a reserved name and cannot be a macro",
                     clip(b, sizeof b, m->name, m->len));
        return 0;
    }
    if (tpu_isa_by_mnemonic(m->name, m->len)) {
        asm_error_at(a, lineno, n0 + 1, "'%s' is an instruction and cannot be a macro",
                     clip(b, sizeof b, m->name, m->len));
        return 0;
    }
    for (;;) {
        while (k < len && blank((unsigned char)s[k]))
            k++;
        if (k == len || comment(s[k]))
            break;
        if (s[k] == ',') {
            k++;
            while (k < len && blank((unsigned char)s[k]))
                k++;
            if (k == len || comment(s[k]) || s[k] == ',') {
                asm_error_at(a, lineno, k + 1, "expected a parameter name after ','");
                return 0;
            }
        }
        if (!id_start((unsigned char)s[k])) {
            asm_error_at(a, lineno, k + 1, "expected a parameter name, got '%c'", s[k]);
            return 0;
        }
        uint32_t p0 = k;
        while (k < len && id_char((unsigned char)s[k]))
            k++;
        asm_mparam p = { s + p0, NULL, k - p0, 0, 0 };
        for (size_t j = m->param0; j < a->nmparams; j++)
            if (a->mparams[j].len == p.len && memcmp(a->mparams[j].name, p.name, p.len) == 0) {
                asm_error_at(a, lineno, p0 + 1, "parameter '%s' appears twice in macro '%s'",
                             clip(b, sizeof b, p.name, p.len), clip(b2, sizeof b2, m->name, m->len));
                return 0;
            }
        if (m->nparams == TPU_ASM_MAX_MACRO_PARAMS) {
            asm_error_at(a, lineno, p0 + 1, "macro '%s' has too many parameters (at most %d)",
                         clip(b, sizeof b, m->name, m->len), TPU_ASM_MAX_MACRO_PARAMS);
            return 0;
        }
        while (k < len && blank((unsigned char)s[k]))
            k++;
        if (k + 3 < len && s[k] == ':' && memcmp(s + k + 1, "req", 3) == 0 &&
            (k + 4 == len || !id_char((unsigned char)s[k + 4]))) {
            p.req = 1;
            k += 4;
        } else if (k < len && s[k] == '=') {
            uint32_t d0 = k + 1, d1 = value_end(s, len, d0);
            trim(s, &d0, &d1);
            p.def = s + d0;
            p.deflen = d1 - d0;
            k = value_end(s, len, k + 1);
        }
        while (k < len && blank((unsigned char)s[k]))
            k++;
        if (k < len && !comment(s[k]) && s[k] != ',' && !id_start((unsigned char)s[k])) {
            asm_error_at(a, lineno, k + 1, "expected ',' after parameter '%s', got '%c'",
                         clip(b, sizeof b, p.name, p.len), s[k]);
            return 0;
        }
        if (a->nmparams == a->mparamcap) {
            size_t cap = a->mparamcap ? a->mparamcap * 2 : 32;
            asm_mparam *q = realloc(a->mparams, cap * sizeof *q);
            if (!q) {
                asm_oom(a);
                return -1;
            }
            a->mparams = q, a->mparamcap = cap;
        }
        a->mparams[a->nmparams++] = p;
        m->nparams++;
    }
    m->ok = 1;
    return 0;
}

static int name_cmp(const asm_macro *x, const asm_macro *y)
{
    size_t n = x->len < y->len ? x->len : y->len;
    int c = memcmp(x->name, y->name, n);
    if (c)
        return c;
    return x->len < y->len ? -1 : x->len > y->len;
}

typedef struct name_ix {
    const char *name;
    uint32_t len, idx;
} name_ix;

static int byname_cmp(const void *pa, const void *pb)
{
    const name_ix *x = pa, *y = pb;
    size_t n = x->len < y->len ? x->len : y->len;
    int c = memcmp(x->name, y->name, n);
    if (c)
        return c;
    if (x->len != y->len)
        return x->len < y->len ? -1 : 1;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

void asm_macro_index(asm_ctx *a)
{
    char b[ASM_CLIP_BUF], pl[ASM_PLACE_BUF];
    free(a->byname);
    a->byname = NULL;
    a->nbyname = 0;
    size_t n = 0;
    for (size_t k = 0; k < a->nmacros; k++)
        n += a->macros[k].name != NULL;
    if (n == 0)
        return;
    name_ix *ix = malloc(n * sizeof *ix);
    uint32_t *idx = malloc(n * sizeof *idx);
    if (!ix || !idx) {
        free(ix);
        free(idx);
        asm_oom(a);
        return;
    }
    n = 0;
    for (size_t k = 0; k < a->nmacros; k++)
        if (a->macros[k].name)
            ix[n++] = (name_ix){ a->macros[k].name, a->macros[k].len, (uint32_t)k };
    qsort(ix, n, sizeof *ix, byname_cmp);
    size_t out = 0;
    for (size_t k = 0; k < n; k++) {
        asm_macro *m = &a->macros[ix[k].idx];
        if (out > 0 && name_cmp(&a->macros[idx[out - 1]], m) == 0) {
            const asm_macro *f = &a->macros[idx[out - 1]];
            asm_error_at(a, m->def_line, (uint32_t)(m->name - (a->src + m->def_off)) + 1,
                         "macro '%s' is already defined at %s", clip(b, sizeof b, m->name, m->len),
                         asm_place(a, f->def_line, (uint32_t)(f->name - (a->src + f->def_off)) + 1,
                                   pl, sizeof pl));
            m->dup = 1;
            continue;
        }
        idx[out++] = ix[k].idx;
    }
    free(ix);
    a->byname = idx;
    a->nbyname = out;
}

asm_macro *asm_macro_at(const asm_ctx *a, size_t off)
{
    size_t lo = 0, hi = a->nmacros;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (a->macros[mid].def_off < off)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < a->nmacros && a->macros[lo].def_off == off ? &a->macros[lo] : NULL;
}

asm_macro *asm_macro_find(const asm_ctx *a, const char *s, uint32_t len)
{
    asm_macro key = { .name = s, .len = len };
    size_t lo = 0, hi = a->nbyname;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        int c = name_cmp(&a->macros[a->byname[mid]], &key);
        if (c == 0)
            return &a->macros[a->byname[mid]];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

int asm_macro_bind(asm_ctx *a, const asm_macro *m, const char *s, uint32_t len, uint32_t col0,
                   uint32_t ncol, char **blob, uint32_t **aoff, uint32_t **alen)
{
    char b[ASM_CLIP_BUF], b2[ASM_CLIP_BUF];
    const asm_mparam *p = &a->mparams[m->param0];
    uint32_t np = m->nparams;
    /* given[k]: the argument's span in s, or unset */
    uint32_t gb[TPU_ASM_MAX_MACRO_PARAMS], ge[TPU_ASM_MAX_MACRO_PARAMS];
    uint8_t given[TPU_ASM_MAX_MACRO_PARAMS] = { 0 };
    uint32_t k = 0, pos = 0;
    while (k < len && blank((unsigned char)s[k]))
        k++;
    int any = k < len && !comment(s[k]);
    uint32_t k0 = k;
    while (any) {
        uint32_t e = value_end(s, len, k), vb = k, ve = e;
        trim(s, &vb, &ve);
        /* NAME=VALUE names the parameter */
        uint32_t j = vb;
        int slot = -1;
        if (j < ve && id_start((unsigned char)s[j])) {
            while (j < ve && id_char((unsigned char)s[j]))
                j++;
            uint32_t ne = j;
            while (j < ve && blank((unsigned char)s[j]))
                j++;
            if (j < ve && s[j] == '=' && (j + 1 == ve || s[j + 1] != '=')) {
                for (uint32_t q = 0; q < np && slot < 0; q++)
                    if (p[q].len == ne - vb && memcmp(p[q].name, s + vb, p[q].len) == 0)
                        slot = (int)q;
                if (slot < 0) {
                    asm_error(a, col0 + vb, "macro '%s' has no parameter '%s'",
                              clip(b, sizeof b, m->name, m->len), clip(b2, sizeof b2, s + vb, ne - vb));
                    return -1;
                }
                vb = j + 1;
                trim(s, &vb, &ve);
            }
        }
        if (slot < 0) {
            if (pos >= np) {
                unsigned nargs = 1;
                for (uint32_t q = value_end(s, len, k0); q < len && s[q] == ',';
                     q = value_end(s, len, q + 1))
                    nargs++;
                asm_error(a, col0 + vb, "macro '%s' takes %u argument%s, got %u",
                          clip(b, sizeof b, m->name, m->len), np, np == 1 ? "" : "s", nargs);
                return -1;
            }
            slot = (int)pos++;
        }
        if (given[slot]) {
            asm_error(a, col0 + vb, "argument '%s' of macro '%s' is given twice",
                      clip(b, sizeof b, p[slot].name, p[slot].len),
                      clip(b2, sizeof b2, m->name, m->len));
            return -1;
        }
        given[slot] = 1;
        gb[slot] = vb;
        ge[slot] = ve;
        if (e == len || s[e] != ',')
            break;
        k = e + 1;
    }
    size_t total = 0;
    for (uint32_t q = 0; q < np; q++) {
        if (given[q] && ge[q] == gb[q])
            given[q] = 0;                   /* an empty argument takes the default */
        if (!given[q] && p[q].req) {
            asm_error(a, ncol, "missing value for required parameter '%s' of macro '%s'",
                      clip(b, sizeof b, p[q].name, p[q].len), clip(b2, sizeof b2, m->name, m->len));
            return -1;
        }
        total += given[q] ? ge[q] - gb[q] : p[q].deflen;
    }
    char *bl = malloc(total + 2 * (size_t)np * sizeof(uint32_t) + 1);
    if (!bl) {
        asm_oom(a);
        return -1;
    }
    uint32_t *o = (uint32_t *)(void *)bl, *l = o + np;
    char *text = (char *)(l + np);
    size_t at = 0;
    for (uint32_t q = 0; q < np; q++) {
        const char *src = given[q] ? s + gb[q] : p[q].def;
        uint32_t n = given[q] ? ge[q] - gb[q] : p[q].deflen;
        if (n)
            memcpy(text + at, src, n);
        o[q] = (uint32_t)at;
        l[q] = n;
        at += n;
    }
    *blob = bl;
    *aoff = o;
    *alen = l;
    return 0;
}

int asm_macro_subst(asm_ctx *a, const asm_macro *m, const char *blob, const uint32_t *aoff,
                    const uint32_t *alen, uint64_t uniq, const char *s, uint32_t len,
                    const char **out, uint32_t *outlen)
{
    char b[ASM_CLIP_BUF], b2[ASM_CLIP_BUF];
    const char *text = blob ? (const char *)(aoff + 2 * (size_t)m->nparams) : NULL;
    const asm_mparam *p = &a->mparams[m->param0];
    size_t n = 0;
    int in_string = 0;
    if (grow_subst(a, (size_t)len + 1) < 0)
        return -1;
    for (uint32_t k = 0; k < len; k++) {
        char c = s[k];
        const char *piece = &s[k];
        size_t plen = 1;
        char num[24];
        if (in_string && c == '\\' && k + 1 < len && (s[k + 1] == '"' || s[k + 1] == '\\')) {
            plen = 2;
            k++;
        } else if (c == '"') {
            in_string = !in_string;
        } else if (!in_string && comment(c)) {
            plen = len - k;
            k = len;
        } else if (c == '\\') {
            if (k + 1 < len && s[k + 1] == '@') {
                plen = (size_t)snprintf(num, sizeof num, "%llu", (unsigned long long)uniq);
                piece = num;
                k++;
            } else if (k + 2 < len && s[k + 1] == '(' && s[k + 2] == ')') {
                plen = 0;
                k += 2;
            } else {
                uint32_t j = k + 1;
                while (j < len && (j == k + 1 ? id_start((unsigned char)s[j])
                                              : id_char((unsigned char)s[j])))
                    j++;
                int q = -1;
                for (uint32_t t = 0; t < m->nparams && q < 0; t++)
                    if (p[t].len == j - k - 1 && memcmp(p[t].name, s + k + 1, p[t].len) == 0)
                        q = (int)t;
                if (q < 0) {
                    if (j == k + 1)
                        asm_error(a, k + 1, "stray '\\' in macro '%s' (expected \\NAME, \\@ or "
                                  "\\())", clip(b, sizeof b, m->name, m->len));
                    else
                        asm_error(a, k + 1, "'\\%s' is not a parameter of macro '%s'",
                                  clip(b, sizeof b, s + k + 1, j - k - 1),
                                  clip(b2, sizeof b2, m->name, m->len));
                    return -1;
                }
                piece = text + aoff[q];
                plen = alen[q];
                k = j - 1;
            }
        }
        if (n + plen > TPU_ASM_MAX_LINE) {
            asm_error(a, 1, "line too long after the arguments of macro '%s' are put in "
                      "(at most %u bytes)", clip(b, sizeof b, m->name, m->len), TPU_ASM_MAX_LINE);
            return -1;
        }
        if (grow_subst(a, n + plen + 1) < 0)
            return -1;
        memcpy(a->subst + n, piece, plen);
        n += plen;
    }
    *out = a->subst;
    *outlen = (uint32_t)n;
    return 0;
}

void asm_macro_free(asm_ctx *a)
{
    free(a->macros);
    free(a->mparams);
    free(a->byname);
    free(a->subst);
}
