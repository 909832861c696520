/*
 * asm_run.c - the assembler's driver: the pre-pass over the lines, the two
 * passes with .rept unrolling, and the public entry points.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "asm_impl.h"

enum { F_REPT, F_MACRO };

typedef struct frame {      /* one active .rept or macro call */
    uint8_t kind;
    uint32_t rept_line, rept_col;   /* the .rept, or the call (its name's column) */
    size_t body_off;
    uint32_t body_line;
    uint32_t endr_off;      /* the .endr, or the macro's .endm */
    int64_t left;           /* iterations still to run, this one included */
    /* a macro call */
    const asm_macro *m;
    size_t ret_off;         /* the line after the call */
    uint32_t ret_line;
    uint64_t uniq;          /* \@ */
    char *blob;             /* the arguments (asm_macro_bind) */
    uint32_t *aoff, *alen;
    int outer;              /* the enclosing macro call's frame, or -1 */
} frame;

/* Frames at most: every macro level may hold a full nest of .rept's. */
#define MAX_FRAMES ((TPU_ASM_MAX_MACRO_DEPTH + 1) * TPU_ASM_MAX_REPT_DEPTH + \
                    TPU_ASM_MAX_MACRO_DEPTH)

/* Length of the line at off (without its '\n') and the offset after it. */
static uint32_t line_at(const asm_ctx *a, size_t off, size_t *next)
{
    const char *s = a->src + off;
    const char *nl = memchr(s, '\n', a->srclen - off);
    size_t len = nl ? (size_t)(nl - s) : a->srclen - off;
    *next = nl ? off + len + 1 : a->srclen;
    return len > UINT32_MAX ? UINT32_MAX : (uint32_t)len;
}

/* Can the line be executed?  The pre-pass has reported why not. */
static int line_ok(const asm_ctx *a, const char *s, uint32_t len)
{
    uint32_t col;
    (void)a;
    return len <= TPU_ASM_MAX_LINE && asm_check_line_bytes(s, len, &col) < 0;
}

/* The first token after the labels, if it is this directive. */
static const asm_tok *first_directive(const asm_ctx *a, const char *name)
{
    size_t i = 0;
    while (a->toks[i].type == T_IDENT && a->toks[i + 1].type == T_COLON)
        i += 2;
    if (a->toks[i].type == T_DIRECTIVE && asm_tok_is(&a->toks[i], name))
        return &a->toks[i];
    return NULL;
}

/* Check every line once (length, bytes), pair each .rept with its .endr
 * and each .macro with its .endm.  The pairs are found in the order of
 * their first lines.  Macros are defined at the top level only. */
enum { PK_REPT, PK_MACRO };
typedef struct pentry {
    uint8_t kind;
    size_t idx;             /* into repts[] or macros[] */
} pentry;

static void prepass(asm_ctx *a)
{
    pentry *stack = NULL;
    size_t depth = 0, stackcap = 0, nrept = 0;
    size_t off = 0, next;
    uint32_t lineno = 1;
    char b[ASM_CLIP_BUF];
    a->pass = 0;
    for (; off < a->srclen && !a->stopped && !a->fatal; off = next, lineno++) {
        uint32_t len = line_at(a, off, &next), col;
        const char *s = a->src + off;
        a->lineno = lineno;
        if (len > TPU_ASM_MAX_LINE) {
            asm_error(a, 1, "line too long (%u bytes, at most %u)", len, TPU_ASM_MAX_LINE);
            continue;
        }
        int bad = asm_check_line_bytes(s, len, &col);
        if (bad >= 0) {
            asm_error(a, col, "invalid character 0x%02x", bad);
            continue;
        }
        if (depth == stackcap) {
            size_t cap = stackcap ? stackcap * 2 : 16;
            pentry *st = realloc(stack, cap * sizeof *st);
            if (!st) {
                asm_oom(a);
                break;
            }
            stack = st, stackcap = cap;
        }
        uint32_t w, wlen, lablen;
        if (asm_first_word(s, len, &w, &wlen, &lablen) && wlen == 6 &&
            memcmp(s + w, ".macro", 6) == 0) {
            size_t mi = a->nmacros;
            if (lablen)
                asm_error(a, 1, "a '.macro' line cannot have a label");
            if (asm_macro_define(a, s, len, (uint32_t)off, lineno, w + 1) < 0)
                break;
            if (depth > 0) {
                asm_error(a, w + 1, "'.macro' inside a %s body (macros are defined at the top "
                          "level only)", stack[depth - 1].kind == PK_REPT ? "'.rept'" : "macro");
                a->macros[mi].ok = 0;
                a->macros[mi].name = NULL;      /* not callable */
            }
            stack[depth++] = (pentry){ PK_MACRO, mi };
            continue;
        }
        const char *ls = asm_macro_sanitize(a, s, len);
        a->quiet = 1;
        int lexed = asm_lex_line(a, ls ? ls : s, len);
        a->quiet = 0;
        if (lexed || a->fatal)
            continue;
        const asm_tok *t;
        if ((t = first_directive(a, ".rept"))) {
            if (a->nrepts == a->reptcap) {
                size_t cap = a->reptcap ? a->reptcap * 2 : 16;
                asm_rept *r = realloc(a->repts, cap * sizeof *r);
                if (!r) {
                    asm_oom(a);
                    break;
                }
                a->repts = r, a->reptcap = cap;
            }
            asm_rept *r = &a->repts[a->nrepts];
            r->rept_off = (uint32_t)off;
            r->rept_line = lineno;
            r->rept_col = t->col;
            r->endr_off = 0;
            r->endr_line = 0;
            r->ok = 1;
            if (nrept >= TPU_ASM_MAX_REPT_DEPTH) {
                asm_error(a, t->col, "'.rept' nested too deeply (at most %d levels)",
                          TPU_ASM_MAX_REPT_DEPTH);
                r->ok = 0;
            }
            stack[depth++] = (pentry){ PK_REPT, a->nrepts++ };
            nrept++;
        } else if ((t = first_directive(a, ".endr"))) {
            if (depth == 0 || stack[depth - 1].kind != PK_REPT) {
                asm_error(a, t->col, "'.endr' without '.rept'");
                continue;
            }
            asm_rept *r = &a->repts[stack[--depth].idx];
            nrept--;
            r->endr_off = (uint32_t)off;
            r->endr_line = lineno;
        } else if ((t = first_directive(a, ".endm"))) {
            size_t k = depth;
            while (k > 0 && stack[k - 1].kind != PK_MACRO)
                k--;
            if (k == 0) {
                asm_error(a, t->col, "'.endm' without '.macro'");
                continue;
            }
            while (depth > k) {                 /* .rept's left open in the body */
                asm_rept *r = &a->repts[stack[--depth].idx];
                nrept--;
                asm_error_at(a, r->rept_line, r->rept_col, "'.rept' without '.endr'");
                r->ok = 0;
            }
            asm_macro *m = &a->macros[stack[--depth].idx];
            m->endm_off = (uint32_t)off;
            m->endm_line = lineno;
            if (t[1].type != T_EOL)
                asm_error(a, t[1].col, "unexpected '%s' after '.endm'",
                          asm_tok_text(&t[1], b, sizeof b));
        }
    }
    while (depth > 0) {
        pentry e = stack[--depth];
        if (e.kind == PK_REPT) {
            asm_rept *r = &a->repts[e.idx];
            asm_error_at(a, r->rept_line, r->rept_col, "'.rept' without '.endr'");
            r->ok = 0;
        } else {
            asm_macro *m = &a->macros[e.idx];
            asm_error_at(a, m->def_line, m->def_col, "'.macro' without '.endm'");
            m->ok = 0;
        }
    }
    free(stack);
    if (!a->fatal)
        asm_macro_index(a);
}

static const asm_rept *find_rept(const asm_ctx *a, size_t off)
{
    size_t lo = 0, hi = a->nrepts;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (a->repts[mid].rept_off < off)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < a->nrepts && a->repts[lo].rept_off == off && a->repts[lo].ok)
        return &a->repts[lo];
    return NULL;
}

/* Leave the innermost macro call: its frame and the .rept frames above. */
static void pop_call(asm_ctx *a, frame *st, int *depth, int *mtop, size_t *off, uint32_t *lineno)
{
    frame *f = &st[*mtop];
    *off = f->ret_off;
    *lineno = f->ret_line;
    free(f->blob);
    *depth = *mtop;
    *mtop = f->outer;
    a->nmcalls--;
}

/* The line s (at lineno) calls macro m, whose name is at column ncol:
 * push its frame and go to its body.  0 when the body runs next. */
static int call_macro(asm_ctx *a, const asm_macro *m, const char *s, uint32_t len, uint32_t w,
                      uint32_t wlen, frame *st, int *depth, int *mtop, uint64_t *calls,
                      size_t *off, uint32_t *lineno, size_t next)
{
    char b[ASM_CLIP_BUF], pl[ASM_PLACE_BUF];
    if (!m->defined) {
        asm_error(a, w + 1, "macro '%s' is used before its definition at %s",
                  asm_clip(b, sizeof b, m->name, m->len),
                  asm_place(a, m->def_line, m->def_col, pl, sizeof pl));
        return -1;
    }
    if (!m->ok)
        return -1;                          /* the definition's error says why */
    if (a->nmcalls >= TPU_ASM_MAX_MACRO_DEPTH || *depth >= MAX_FRAMES) {
        asm_error(a, w + 1, "macro calls nested too deeply (at most %d levels)",
                  TPU_ASM_MAX_MACRO_DEPTH);
        return -1;
    }
    frame f = { .kind = F_MACRO, .m = m, .rept_line = *lineno, .rept_col = w + 1 };
    if (asm_macro_bind(a, m, s + w + wlen, len - w - wlen, w + wlen + 1, w + 1, &f.blob, &f.aoff,
                       &f.alen) < 0)
        return -1;
    f.uniq = (*calls)++;
    line_at(a, m->def_off, &f.body_off);
    f.body_line = m->def_line + 1;
    f.endr_off = m->endm_off;
    if (f.body_off >= f.endr_off) {         /* an empty body */
        free(f.blob);
        return -1;
    }
    f.ret_off = next;
    f.ret_line = *lineno + 1;
    f.outer = *mtop;
    a->mcalls[a->nmcalls++] = (asm_mcall){ *lineno, (uint32_t)(m - a->macros) };
    *mtop = *depth;
    st[(*depth)++] = f;
    *off = f.body_off;
    *lineno = f.body_line;
    return 0;
}

/* Past the expansion budget: report it at the outermost .rept or call. */
static int over_budget(asm_ctx *a, const frame *st, uint64_t lines, uint64_t bytes)
{
    char b[ASM_CLIP_BUF], what[ASM_CLIP_BUF + 16];
    if (lines <= TPU_ASM_MAX_EXPANSION && bytes <= TPU_ASM_MAX_EXPANSION_BYTES)
        return 0;
    if (st[0].kind == F_MACRO)
        snprintf(what, sizeof what, "macro '%s'", asm_clip(b, sizeof b, st[0].m->name, st[0].m->len));
    else
        snprintf(what, sizeof what, "'.rept'");
    if (lines > TPU_ASM_MAX_EXPANSION)
        asm_fatal_at(a, st[0].rept_line, st[0].rept_col, "%s expands to more than %u lines", what,
                     TPU_ASM_MAX_EXPANSION);
    else
        asm_fatal_at(a, st[0].rept_line, st[0].rept_col, "%s expands to more than %u MiB of "
                     "source text", what, TPU_ASM_MAX_EXPANSION_BYTES >> 20);
    return 1;
}

/* One pass over the program, unrolling .rept blocks and macro calls. */
static void run_pass(asm_ctx *a, int pass)
{
    frame *st = malloc(MAX_FRAMES * sizeof *st);
    int depth = 0, mtop = -1;
    uint64_t exp_lines = 0, exp_bytes = 0, calls = 0;
    size_t off = 0, next;
    uint32_t lineno = 1;

    if (!st) {
        asm_oom(a);
        return;
    }
    a->pass = pass;
    a->quiet = pass == 1;
    a->section = SEC_TEXT;
    a->pos = 0;
    a->ntext = 0;
    a->data_total = 0;
    a->rec_open = 0;
    a->rec_len = 0;
    a->have_target = 0;
    a->nmcalls = 0;
    for (size_t k = 0; k < a->nmacros; k++)
        a->macros[k].defined = 0;
    while (off < a->srclen && !a->stopped && !a->fatal && !(pass == 1 && a->halted)) {
        uint32_t len = line_at(a, off, &next);
        const char *s = a->src + off;
        /* the end of the body of the macro being run: back to the call */
        if (mtop >= 0 && off == st[mtop].endr_off) {
            pop_call(a, st, &depth, &mtop, &off, &lineno);
            continue;
        }
        /* a definition: note it, and skip its body */
        asm_macro *def = a->nmacros ? asm_macro_at(a, off) : NULL;
        if (def) {
            def->defined = 1;
            if (def->endm_off >= a->srclen)
                break;                      /* no .endm: the rest is its body */
            off = def->endm_off;
            lineno = def->endm_line;
            line_at(a, off, &next);
            off = next;
            lineno++;
            continue;
        }
        /* Count the lines of the bodies; an .endr only ends a repetition. */
        if (depth > 0 && off != st[depth - 1].endr_off) {
            exp_lines++;
            exp_bytes += (uint64_t)len + 1;
            if (over_budget(a, st, exp_lines, exp_bytes))
                break;
        }
        a->lineno = lineno;
        int ok = line_ok(a, s, len);
        if (ok && mtop >= 0) {              /* in a macro body: put the arguments in */
            const frame *f = &st[mtop];
            uint32_t len0 = len;
            ok = asm_macro_subst(a, f->m, f->blob, f->aoff, f->alen, f->uniq, s, len, &s, &len) == 0
                 && line_ok(a, s, len);
            /* the arguments' text counts too */
            exp_bytes += len > len0 ? len - len0 : 0;
            if (ok && over_budget(a, st, exp_lines, exp_bytes))
                break;
        }
        a->line = s;
        a->linelen = len;
        int act = ACT_NONE;
        int64_t count = 0;
        uint32_t w, wlen, lablen;
        const asm_macro *call = NULL;
        if (ok && a->nbyname && asm_first_word(s, len, &w, &wlen, &lablen) && s[w] != '.')
            call = asm_macro_find(a, s + w, wlen);
        if (call) {
            if (lablen && asm_lex_line(a, s, lablen) == 0)
                asm_exec_line(a, &count);   /* the labels */
            if (call_macro(a, call, s, len, w, wlen, st, &depth, &mtop, &calls, &off, &lineno,
                           next) == 0)
                continue;
        } else if (ok && asm_lex_line(a, s, len) == 0) {
            act = asm_exec_line(a, &count);
        }
        if (act == ACT_REPT) {
            const asm_rept *r = find_rept(a, off);
            /* No repetitions, or an empty body (whose repetitions no line
             * would count): skip the body and the .endr. */
            if (r && (count == 0 || r->endr_off == next)) {
                off = r->endr_off;
                lineno = r->endr_line;
                line_at(a, off, &next);
            } else if (r && depth < MAX_FRAMES) {
                frame *f = &st[depth++];
                f->kind = F_REPT;
                f->rept_line = lineno;
                f->rept_col = 1;
                for (size_t k = 0; k < a->ntoks; k++)
                    if (a->toks[k].type == T_DIRECTIVE) {
                        f->rept_col = a->toks[k].col;
                        break;
                    }
                f->body_off = next;
                f->body_line = lineno + 1;
                f->endr_off = r->endr_off;
                f->left = count;
            }
        } else if (act == ACT_ENDR && depth > 0 && st[depth - 1].kind == F_REPT &&
                   st[depth - 1].endr_off == off) {
            if (--st[depth - 1].left > 0) {
                off = st[depth - 1].body_off;
                lineno = st[depth - 1].body_line;
                continue;
            }
            depth--;
        } else if (act == ACT_EXITM) {
            if (mtop < 0) {
                uint32_t col = 1;
                for (size_t k = 0; k < a->ntoks && col == 1; k++)
                    if (a->toks[k].type == T_DIRECTIVE)
                        col = a->toks[k].col;
                asm_error(a, col, "'.exitm' outside a macro");
            } else {
                pop_call(a, st, &depth, &mtop, &off, &lineno);
                continue;
            }
        }
        off = next;
        lineno++;
    }
    while (mtop >= 0) {
        free(st[mtop].blob);
        mtop = st[mtop].outer;
    }
    a->nmcalls = 0;
    free(st);
    asm_data_close(a);
}

/* Constants that the command line gives: the machine's (--config) and -D's. */
static void define_cmdline(asm_ctx *a)
{
    const tpu_asm_options *o = a->opt;
    if (o->config) {
        const tpu_config *c = o->config;
        const struct { const char *name; uint64_t v; } pre[] = {
            { "MXU_N", c->mxu_n }, { "NUM_MXU", c->num_mxu }, { "VPU_SUBLANES", c->vpu_sublanes },
            { "VPU_LANES", c->vpu_lanes }, { "VMEM_BYTES", c->vmem_bytes },
            { "HBM_BYTES", c->hbm_bytes }, { "IMEM_WORDS", c->imem_words },
        };
        for (size_t k = 0; k < sizeof pre / sizeof pre[0]; k++) {
            asm_sym *s = asm_sym_add(a, pre[k].name, strlen(pre[k].name));
            if (!s)
                return;
            s->kind = SYM_CMDLINE;
            s->value = (int64_t)pre[k].v;
            s->defined = 1;
        }
    }
    for (size_t k = 0; k < o->ndefines; k++) {
        const tpu_asm_define *d = &o->defines[k];
        int ok = d->name_len > 0 && d->name_len <= TPU_OBJ_MAX_NAME &&
                 !asm_is_reserved(d->name, d->name_len);
        for (size_t j = 0; ok && j < d->name_len; j++) {
            char c = d->name[j];
            ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_' ||
                 (j > 0 && ((c >= '0' && c <= '9') || c == '.'));
        }
        if (!ok) {
            char b[ASM_CLIP_BUF];
            asm_error_at(a, 1, 1, "-D '%s' is not a valid constant name",
                         asm_clip(b, sizeof b, d->name, d->name_len));
            continue;
        }
        asm_sym *s = asm_sym_find(a, d->name, d->name_len);
        if (!s && !(s = asm_sym_add(a, d->name, d->name_len)))
            return;
        s->kind = SYM_CMDLINE;
        s->value = d->value;
        s->defined = 1;
    }
}

/* Labels go into the object as symbols (constants do not). */
static void add_symbols(asm_ctx *a)
{
    char name[TPU_OBJ_MAX_NAME + 1];
    for (size_t k = 0; k < a->nsyms && !a->fatal; k++) {
        const asm_sym *s = &a->syms[k];
        if (s->kind != SYM_LABEL || !s->defined || s->len > TPU_OBJ_MAX_NAME)
            continue;
        memcpy(name, s->name, s->len);
        name[s->len] = '\0';
        if (tpu_obj_add_symbol(a->obj, s->space, (uint64_t)s->value, name))
            asm_oom(a);
    }
    tpu_obj_sort_symbols(a->obj);
}

/* The size tpu_obj_serialize will give (docs/object-format.md), so that
 * the assembler never writes a file the loader refuses. */
static uint64_t object_size(const tpu_object *o)
{
    uint64_t n = TPU_OBJ_HEADER_SIZE + 8 + 16;             /* header, CONFIG */
    n += 8 + 8 * (uint64_t)o->ntext;
    for (size_t k = 0; k < o->nchunks; k++)
        n += o->chunks[k].rec == TPU_REC_DATA ? 8 + ((16 + o->chunks[k].size + 7) & ~7ull) : 48;
    for (size_t k = 0; k < o->nsyms; k++)
        n += 8 + ((16 + strlen(o->syms[k].name) + 7) & ~(size_t)7);
    for (size_t k = 0; k < o->nexpects; k++)
        n += 8 + 16 + 16 * (uint64_t)o->expects[k].nops;
    for (size_t k = 0; k < o->narrays; k++)
        n += 8 + ((16 + 8 * (uint64_t)o->arrays[k].ndim + strlen(o->arrays[k].name) + 7) & ~7ull);
    return n;
}

int tpu_asm_assemble(const char *src, size_t len, const char *filename,
                     const tpu_asm_options *opt, tpu_object *obj, tpu_asm_result *res)
{
    static const tpu_asm_options no_options;
    memset(res, 0, sizeof *res);
    tpu_obj_init(obj);
    asm_ctx *a = calloc(1, sizeof *a);
    if (!a) {
        res->messages = NULL;
        res->nerrors = 1;
        return -1;
    }
    a->file = filename ? filename : "<input>";
    a->src = src;
    a->srclen = len;
    a->opt = opt ? opt : &no_options;
    a->obj = obj;
    a->lineno = 1;
    if (a->opt->config) {
        const tpu_config *c = a->opt->config;
        a->hbm_size = c->hbm_bytes;
        a->vmem_size = c->vmem_bytes;
        a->text_max = c->imem_words;
        obj->config.mxu_n = (uint32_t)c->mxu_n;
        obj->config.num_mxu = (uint32_t)c->num_mxu;
        obj->config.vpu_sublanes = (uint32_t)c->vpu_sublanes;
        obj->config.vpu_lanes = (uint32_t)c->vpu_lanes;
    } else {
        a->hbm_size = TPU_ASM_DEFAULT_HBM;
        a->vmem_size = TPU_ASM_DEFAULT_VMEM;
        a->text_max = TPU_ASM_MAX_TEXT;
    }

    if (len > TPU_ASM_MAX_SOURCE) {
        asm_error_at(a, 1, 1, "file too large (%zu bytes, at most %u MiB)", len,
                     TPU_ASM_MAX_SOURCE >> 20);
    } else {
        define_cmdline(a);
        asm_expand_includes(a);
        if (!a->fatal)
            prepass(a);
        if (!a->fatal && !a->stopped)
            run_pass(a, 1);
        if (!a->fatal && !a->stopped) {
            asm_sym_new_pass(a);
            run_pass(a, 2);
            a->quiet = 0;
            asm_data_check_overlaps(a);
            if (a->halted && !a->fatal)     /* pass 2 must stop where pass 1 did */
                asm_fatal_at(a, a->lineno, 1, "internal error: an .error or .assert stopped "
                             "pass 1 only");
        }
        if (a->ndiags == 0 && a->ntext == 0)
            asm_error_at(a, 1, 1, "empty program (no instructions)");
        if (a->ndiags == 0)
            add_symbols(a);
        if (a->ndiags == 0 && !a->oom && object_size(obj) > TPU_OBJ_MAX_SIZE)
            asm_error_at(a, 1, 1, "object too large (%llu bytes, at most %u MiB)",
                         (unsigned long long)object_size(obj), TPU_OBJ_MAX_SIZE >> 20);
    }

    int failed = a->ndiags > 0 || a->oom;
    if (asm_finish_diags(a, res) < 0)
        failed = 1;
    if (!failed && a->opt->listing) {
        res->listing = a->list;
        res->listing_len = a->list_len;
        a->list = NULL;
    }
    if (failed) {
        tpu_obj_free(obj);
        tpu_obj_init(obj);
    }
    asm_free_diags(a);
    asm_sym_free(a);
    asm_data_free(a);
    asm_include_free(a);
    free(a->toks);
    free(a->opst);
    free(a->opend);
    free(a->repts);
    asm_macro_free(a);
    free(a->list);
    free(a);
    return failed ? -1 : 0;
}

void tpu_asm_result_free(tpu_asm_result *res)
{
    free(res->messages);
    free(res->listing);
    memset(res, 0, sizeof *res);
}

int tpu_asm_parse_define(const char *arg, tpu_asm_define *d, char *err, size_t errlen)
{
    const char *eq = strchr(arg, '=');
    size_t nlen = eq ? (size_t)(eq - arg) : strlen(arg);
    int ok = nlen > 0 && nlen <= TPU_OBJ_MAX_NAME && !asm_is_reserved(arg, nlen);
    for (size_t j = 0; ok && j < nlen; j++) {
        char c = arg[j];
        ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_' ||
             (j > 0 && ((c >= '0' && c <= '9') || c == '.'));
    }
    if (!ok) {
        snprintf(err, errlen, "-D %s: '%.*s' is not a valid constant name", arg, (int)nlen, arg);
        return -1;
    }
    d->name = arg;
    d->name_len = nlen;
    d->value = 1;
    if (!eq)
        return 0;
    /* Evaluate VALUE with the expression code, in a context of its own. */
    asm_ctx *a = calloc(1, sizeof *a);
    if (!a) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    static const tpu_asm_options no_options;
    const char *val = eq + 1;
    size_t vlen = strlen(val);
    asm_val v = { 0, 0 };
    uint32_t col;
    int r = -1;
    a->file = "-D";
    a->opt = &no_options;
    a->lineno = 1;
    a->pass = 2;
    if (vlen == 0 || vlen > TPU_ASM_MAX_LINE || asm_check_line_bytes(val, (uint32_t)vlen, &col) >= 0)
        snprintf(err, errlen, "-D %s: expected NAME=VALUE with an integer VALUE", arg);
    else if (asm_lex_line(a, val, (uint32_t)vlen) == 0 && a->toks[0].type != T_EOL &&
             asm_expr_operand(a, 0, a->ntoks - 1, 0, &v) == 0)
        r = 0;
    else if (a->ndiags > 0)
        snprintf(err, errlen, "-D %s: %s", arg, strstr(a->diags[0].text, "error: ") + 7);
    else
        snprintf(err, errlen, "-D %s: expected NAME=VALUE with an integer VALUE", arg);
    d->value = v.v;
    asm_free_diags(a);
    free(a->toks);
    free(a);
    return r;
}

int tpu_asm_source_target(const char *src, size_t len, tpu_obj_config *shape)
{
    static const tpu_asm_options no_options;
    static const uint32_t hi[4] = { 256, 4, 64, 1024 };     /* as .target checks */
    asm_ctx *a = calloc(1, sizeof *a);
    int found = 0;
    if (!a)
        return 0;
    a->file = "<scan>";
    a->src = src;
    a->srclen = len > TPU_ASM_MAX_SOURCE ? 0 : len;
    a->opt = &no_options;
    a->pass = 2;
    a->quiet = 1;                           /* the assembly reports what is wrong */
    size_t next;
    for (size_t off = 0; off < a->srclen && !a->fatal; off = next) {
        uint32_t n = line_at(a, off, &next);
        const asm_tok *t;
        if (!line_ok(a, src + off, n) || asm_lex_line(a, src + off, n) ||
            !(t = first_directive(a, ".target")))
            continue;
        size_t st[5], en[5];
        uint32_t v[4];
        int ok = asm_split_operands(a, (size_t)(t - a->toks) + 1, st, en, 5) == 4;
        for (int k = 0; ok && k < 4; k++) {
            asm_val x;
            ok = asm_expr_operand(a, st[k], en[k], 0, &x) == 0 && x.v >= 0 &&
                 x.v <= (int64_t)hi[k] && (x.v != 1 || k != 0);
            v[k] = ok ? (uint32_t)x.v : 0;
        }
        if (ok) {
            *shape = (tpu_obj_config){ v[0], v[1], v[2], v[3] };
            found = 1;
        }
        break;                              /* the first .target decides */
    }
    asm_free_diags(a);
    free(a->toks);
    free(a);
    return found;
}
