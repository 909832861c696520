/*
 * asm_impl.h - the assembler's internals, shared by the sim/asm/asm_*.c files.
 *
 * How it works (docs/assembler.md has the language):
 *   1. A pre-pass (asm_run.c) checks every line for bad bytes and length and
 *      pairs each .rept with its .endr and each .macro with its .endm
 *      (asm_macro.c keeps the macros).
 *   2. Pass 1 executes the program (with .rept unrolling, macro calls and
 *      .set) only to
 *      learn every label's address; it reports nothing except fatal limits.
 *   3. Pass 2 executes it again with every label known, evaluates operands,
 *      reports errors and builds the object.
 * Both passes make exactly the same layout decisions, because nothing that
 * decides an address may refer to a label defined further down.
 */
#ifndef TPU_ASM_IMPL_H
#define TPU_ASM_IMPL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "asm.h"
#include "isa.h"
#include "objfile.h"

/* ---- tokens (asm_lex.c) ------------------------------------------------ */
enum tok_type {
    T_EOL, T_IDENT, T_DIRECTIVE, T_INT, T_FLOAT,
    T_COMMA, T_COLON, T_LPAREN, T_RPAREN, T_PLUS, T_MINUS, T_STAR, T_SLASH, T_PERCENT,
    T_TILDE, T_AMP, T_CARET, T_PIPE, T_AT, T_SHL, T_SHR,
    T_LT, T_LE, T_GT, T_GE, T_EQ, T_NE, T_ANDAND, T_OROR, T_NOT, T_QUESTION,
    T_STRING,               /* "text": s/len span the quotes; \" and \\ inside */
};

typedef struct asm_tok {
    uint8_t type;
    uint32_t col;           /* 1-based byte column */
    const char *s;          /* spelling, len bytes (points into the source) */
    uint32_t len;
    uint64_t ival;          /* T_INT */
} asm_tok;

/* ---- symbols (asm_sym.c) ----------------------------------------------- */
enum sym_kind { SYM_LABEL = 1, SYM_EQU, SYM_SET, SYM_CMDLINE };

typedef struct asm_sym {
    const char *name;
    uint32_t len, hash;
    uint8_t kind;           /* enum sym_kind */
    uint8_t space;          /* enum tpu_space (NONE for plain numbers) */
    uint8_t defined;        /* defined in the current pass (so far) */
    uint8_t known;          /* label: address known from pass 1 */
    int64_t value;
    uint32_t line, col;     /* where it was defined */
} asm_sym;

/* ---- values (asm_expr.c) ----------------------------------------------- */
typedef struct asm_val {
    int64_t v;
    uint8_t space;          /* an address in this space, or TPU_SPACE_NONE */
} asm_val;

#define EXPR_FORWARD 1      /* labels defined further down are allowed */

/* ---- diagnostics (asm_diag.c) ------------------------------------------ */
typedef struct asm_diag {
    uint32_t line, col, seq;
    char *text;             /* "FILE:LINE:COL: error: MSG" */
} asm_diag;

/* ---- placed data, for the overlap check (asm_data.c) -------------------- */
typedef struct asm_range {
    uint64_t lo, hi;        /* [lo, hi) */
    size_t seq;             /* placement order */
    uint32_t line, col;
    uint8_t space;
} asm_range;

/* A .rept and its .endr, found by the pre-pass. */
typedef struct asm_rept {
    uint32_t rept_off;      /* byte offset of the .rept line */
    uint32_t rept_line, rept_col;
    uint32_t endr_off;      /* byte offset of the .endr line */
    uint32_t endr_line;
    uint8_t ok;             /* 0: too deeply nested, ignored */
} asm_rept;

/* A parameter of a .macro: NAME, NAME=DEFAULT or NAME:req (text in the source). */
typedef struct asm_mparam {
    const char *name, *def;
    uint32_t len, deflen;
    uint8_t req;
} asm_mparam;

/* A .macro and its .endm, found by the pre-pass (asm_macro.c). */
typedef struct asm_macro {
    const char *name;
    uint32_t len;
    uint32_t def_off, def_line, def_col;    /* the .macro line */
    uint32_t endm_off, endm_line;           /* its .endm (srclen: none) */
    size_t param0;                          /* params: mparams[param0 ..] */
    uint32_t nparams;
    uint8_t ok;             /* 0: a bad definition: calls are skipped */
    uint8_t dup;            /* the name was defined before: not callable */
    uint8_t defined;        /* its line has been passed in this pass */
} asm_macro;

/* An active macro call, for the notes under a message. */
typedef struct asm_mcall {
    uint32_t line;          /* the line of the call */
    uint32_t macro;         /* index into macros[] */
} asm_mcall;

enum section { SEC_TEXT, SEC_HBM, SEC_VMEM };

/* Where a line of the expanded source came from (asm_include.c). */
typedef struct asm_linemap {
    uint32_t file;          /* index into asm_ctx.files */
    uint32_t line;          /* 1-based line in that file */
} asm_linemap;

typedef struct asm_ctx {
    /* input */
    const char *file;
    const char *src;
    size_t srclen;
    const tpu_asm_options *opt;
    tpu_object *obj;
    int pass;               /* 0: pre-pass, 1, 2 */

    /* .include (asm_include.c): with any, src is the expanded text and
     * lmap[i] says where its line i + 1 came from */
    char *expanded;
    char **files;
    size_t nfiles, filecap;
    asm_linemap *lmap;
    size_t nlmap, lmapcap;

    /* diagnostics */
    asm_diag diags[TPU_ASM_MAX_ERRORS + 1];
    unsigned ndiags, seq;
    int stopped;            /* too many errors: stop executing */
    int fatal;              /* a limit was hit: stop executing */
    int halted;             /* pass 1 stopped at a failed .error/.assert */
    int quiet;              /* drop non-fatal messages (pass 1, pre-pass) */
    int oom;

    /* the line being executed */
    uint32_t lineno;
    const char *line;
    uint32_t linelen;
    asm_tok *toks;
    size_t ntoks, tokcap;
    size_t *opst, *opend;   /* operand spans of a directive */
    size_t opcap;

    /* symbols: open-addressing hash of indexes+1 into syms[] */
    asm_sym *syms;
    size_t nsyms, symcap;
    uint32_t *symhash;
    size_t hashcap;
    char **owned;           /* names copied from substituted lines */
    size_t nowned, ownedcap;

    /* .rept pairs sorted by rept_off */
    asm_rept *repts;
    size_t nrepts, reptcap;

    /* macros (asm_macro.c): in the order of their .macro lines; byname
     * holds the callable ones' indexes sorted by name */
    asm_macro *macros;
    size_t nmacros, macrocap;
    asm_mparam *mparams;
    size_t nmparams, mparamcap;
    uint32_t *byname;
    size_t nbyname;
    asm_mcall mcalls[TPU_ASM_MAX_MACRO_DEPTH];
    unsigned nmcalls;       /* the calls being expanded, outermost first */
    char *subst;            /* the line after substitution */
    size_t substcap;

    /* layout */
    int section;            /* enum section */
    uint64_t pos;           /* next data byte address in the current section */
    int have_origin;        /* a .hbm/.vmem origin has been given */
    uint64_t ntext;         /* instructions so far */
    uint64_t text_max, hbm_size, vmem_size;
    uint64_t data_total;    /* bytes in DATA records */

    /* the DATA record being built (pass 2) */
    int rec_open;
    uint8_t rec_space;
    uint64_t rec_addr;
    uint8_t *rec;
    size_t rec_len, rec_cap;

    /* placed ranges (pass 2) */
    asm_range *ranges;
    size_t nranges, rangecap;

    /* CONFIG from --config or .target */
    int have_target;
    uint32_t target_line, target_col;

    /* listing (pass 2, with opt->listing) */
    char *list;
    size_t list_len, list_cap;
} asm_ctx;

/* asm_include.c: replace each `.include` line by the file's lines (before
 * the pre-pass).  -1 after a fatal error. */
int asm_expand_includes(asm_ctx *a);
/* The file and line (in *orig_line) that line `line` of the source came from. */
const char *asm_where(const asm_ctx *a, uint32_t line, uint32_t *orig_line);
void asm_include_free(asm_ctx *a);
/* "FILE:LINE:COL" of a place in the source, for messages that name another place. */
const char *asm_place(const asm_ctx *a, uint32_t line, uint32_t col, char *buf, size_t bufsz);
#define ASM_PLACE_BUF 300

/* asm_diag.c */
void asm_error(asm_ctx *a, uint32_t col, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void asm_error_at(asm_ctx *a, uint32_t line, uint32_t col, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void asm_fatal_at(asm_ctx *a, uint32_t line, uint32_t col, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void asm_oom(asm_ctx *a);
int asm_finish_diags(asm_ctx *a, tpu_asm_result *res);
void asm_free_diags(asm_ctx *a);
/* A printable, clipped copy of source text for a message. */
const char *asm_clip(char *buf, size_t bufsz, const char *s, size_t len);
#define ASM_CLIP_BUF 72

/* asm_lex.c */
int asm_lex_line(asm_ctx *a, const char *s, uint32_t len);
int asm_check_line_bytes(const char *s, uint32_t len, uint32_t *badcol);
const char *asm_tok_text(const asm_tok *t, char *buf, size_t bufsz);
int asm_is_reserved(const char *s, size_t len);
int asm_tok_is(const asm_tok *t, const char *word);
/* The text of a T_STRING token without its quotes and escapes, clipped to
 * bufsz - 1 bytes. */
const char *asm_string_text(const asm_tok *t, char *buf, size_t bufsz);

/* asm_float.c: decimal text / integers to fp32 or bf16 bits, round to nearest even */
enum fmt { FMT_F32, FMT_BF16 };
/* Returns 0, or -1 when the (finite) value overflows the format. */
int asm_float_from_decimal(const char *s, size_t len, int neg, enum fmt f, uint32_t *bits);
uint32_t asm_float_from_int(int64_t v, enum fmt f);

/* asm_sym.c */
asm_sym *asm_sym_find(asm_ctx *a, const char *name, size_t len);
asm_sym *asm_sym_add(asm_ctx *a, const char *name, size_t len);
void asm_sym_new_pass(asm_ctx *a);
void asm_sym_free(asm_ctx *a);

/* asm_expr.c: evaluate the expression starting at toks[*i]; stops at the first
 * token that cannot continue it.  -1 after reporting an error. */
int asm_expr(asm_ctx *a, size_t *i, int flags, asm_val *out);
/* The whole operand toks[i..end) as one expression. */
int asm_expr_operand(asm_ctx *a, size_t i, size_t end, int flags, asm_val *out);
/* A float operand (literal, bits(EXPR), or integer expression). */
int asm_float_operand(asm_ctx *a, size_t i, size_t end, enum fmt f, uint32_t *bits);
const char *asm_space_name(unsigned space);

/* asm_stmt.c: execute the line in a->toks.  Returns ACT_NONE, or ACT_REPT
 * (with the count) / ACT_ENDR for the caller's loop. */
enum { ACT_NONE, ACT_REPT, ACT_ENDR, ACT_ENDM, ACT_EXITM };
int asm_exec_line(asm_ctx *a, int64_t *rept_count);

/* asm_macro.c */
/* The first word of a line after its labels (labels may hold \@ and
 * \NAME): *w, *wlen, and in *lablen the bytes before it.  0 if none. */
int asm_first_word(const char *s, uint32_t len, uint32_t *w, uint32_t *wlen, uint32_t *lablen);
/* A copy of the line with each \NAME, \@ and \() made lexable (same
 * length), for the pre-pass's look at a macro body's lines; NULL if
 * there is no backslash. */
const char *asm_macro_sanitize(asm_ctx *a, const char *s, uint32_t len);
/* The .macro line at off (line lineno, the directive at column col): add
 * the macro.  Its .endm is set later (asm_macro_close). */
int asm_macro_define(asm_ctx *a, const char *s, uint32_t len, uint32_t off, uint32_t lineno,
                     uint32_t col);
/* After the pre-pass: the name index, and the duplicates reported. */
void asm_macro_index(asm_ctx *a);
/* The macro whose .macro line is at off, or NULL. */
asm_macro *asm_macro_at(const asm_ctx *a, size_t off);
/* The macro named s[0..len), or NULL. */
asm_macro *asm_macro_find(const asm_ctx *a, const char *s, uint32_t len);
/* Bind the arguments in s[0..len) (after the name) to m's parameters:
 * a malloc'd block of the texts; (*off)[k], (*len)[k] for parameter k.
 * 0, or -1 after an error (col0 = column of s[0], ncol of the name). */
int asm_macro_bind(asm_ctx *a, const asm_macro *m, const char *s, uint32_t len, uint32_t col0,
                   uint32_t ncol, char **blob, uint32_t **aoff, uint32_t **alen);
/* The body line s[0..len) with m's arguments and \@ = uniq substituted:
 * the text in *out (a->subst), or -1 after an error. */
int asm_macro_subst(asm_ctx *a, const asm_macro *m, const char *blob, const uint32_t *aoff,
                    const uint32_t *alen, uint64_t uniq, const char *s, uint32_t len,
                    const char **out, uint32_t *outlen);
void asm_macro_free(asm_ctx *a);

/* asm_line.c: the line's operands, text and listing. */
/* The executed line without its leading and trailing blanks. */
void asm_line_text(const asm_ctx *a, const char **s, int *len);
/* Split toks[from..] at top-level commas: fills starts[]/ends[] (at most
 * max), returns the count or -1 after an error (empty operand). */
int asm_split_operands(asm_ctx *a, size_t from, size_t *starts, size_t *ends, size_t max);
void asm_listing(asm_ctx *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* asm_insn.c */
void asm_instruction(asm_ctx *a, size_t i);
void asm_insn_raw(asm_ctx *a, size_t i, size_t start, size_t end);

/* asm_directive.c */
void asm_directive(asm_ctx *a, size_t i);

/* asm_data.c */
void asm_data_origin(asm_ctx *a, int section, uint64_t addr);
void asm_data_close(asm_ctx *a);
/* Place n bytes of a DATA record at the current position for a directive
 * at col.  0 and *buf = where to write them (zeroed; NULL in pass 1), or -1
 * after an error (nothing placed). */
int asm_data_reserve(asm_ctx *a, uint64_t n, uint32_t col, uint8_t **buf);
int asm_data_fill(asm_ctx *a, uint8_t kind, uint64_t size, uint64_t seed, uint32_t lo,
                  uint32_t hi, uint32_t col);
void asm_data_check_overlaps(asm_ctx *a);
void asm_data_free(asm_ctx *a);

#endif /* TPU_ASM_IMPL_H */
