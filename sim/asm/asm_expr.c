/*
 * asm_expr.c - integer expressions and float operands.
 *
 * 64-bit two's complement with C precedence (docs/assembler.md); the
 * comparisons and the logical operators (&&, ||, !) give 1 or 0, so
 * `.rept k == 0` is a conditional block, and `c ? a : b` picks a value.
 * Both sides of &&, || and ?: are evaluated (an error in either counts).  Values
 * carry an address space so that `.expect` knows that `buf + 64` is an HBM
 * address: a label has its space, adding a plain number keeps it,
 * subtracting two addresses of one space gives a plain number, and any
 * other operation gives a plain number.
 */
#include <string.h>

#include "asm_impl.h"

#define MAX_DEPTH 200   /* nested parentheses / unary operators */

typedef struct parser {
    asm_ctx *a;
    size_t i;
    int flags;
    int depth;
} parser;

static int parse_bin(parser *p, int minprec, asm_val *out);
static int parse_ternary(parser *p, asm_val *out);

const char *asm_space_name(unsigned space)
{
    switch (space) {
    case TPU_SPACE_IMEM: return "text";
    case TPU_SPACE_HBM: return "hbm";
    case TPU_SPACE_VMEM: return "vmem";
    default: return "none";
    }
}

static int prec(uint8_t type)
{
    switch (type) {
    case T_OROR: return 1;
    case T_ANDAND: return 2;
    case T_PIPE: return 3;
    case T_CARET: return 4;
    case T_AMP: return 5;
    case T_EQ: case T_NE: return 6;
    case T_LT: case T_LE: case T_GT: case T_GE: return 7;
    case T_SHL: case T_SHR: return 8;
    case T_PLUS: case T_MINUS: return 9;
    case T_STAR: case T_SLASH: case T_PERCENT: return 10;
    default: return 0;
    }
}

/* A name in an expression: a symbol's value, or an error that says why not. */
static int symbol_value(parser *p, const asm_tok *t, asm_val *out)
{
    asm_ctx *a = p->a;
    char b[ASM_CLIP_BUF];
    if (asm_is_reserved(t->s, t->len)) {
        if (asm_tok_is(t, "bits"))
            asm_error(a, t->col, "'bits(...)' is only allowed as a float value");
        else
            asm_error(a, t->col, "register '%s' cannot be used in an expression",
                      asm_tok_text(t, b, sizeof b));
        return -1;
    }
    asm_sym *s = asm_sym_find(a, t->s, t->len);
    if (s && (s->defined || (s->kind == SYM_LABEL && s->known && (p->flags & EXPR_FORWARD)))) {
        out->v = s->value;
        out->space = s->space;
        return 0;
    }
    if (s && (s->known || s->kind != SYM_LABEL))
        asm_error(a, t->col, "symbol '%s' is not defined yet", asm_tok_text(t, b, sizeof b));
    else if (a->halted)     /* pass 1 stopped at an .error: labels below it are not known */
        return -1;
    else
        asm_error(a, t->col, "undefined symbol '%s'", asm_tok_text(t, b, sizeof b));
    return -1;
}

static int parse_primary(parser *p, asm_val *out)
{
    asm_ctx *a = p->a;
    const asm_tok *t = &a->toks[p->i];
    char b[ASM_CLIP_BUF];
    out->space = TPU_SPACE_NONE;
    switch (t->type) {
    case T_INT:
        out->v = (int64_t)t->ival;
        p->i++;
        return 0;
    case T_LPAREN:
    case T_IDENT: {
        uint8_t space = TPU_SPACE_NONE;
        if (t->type == T_IDENT) {
            if (asm_tok_is(t, "hbm"))
                space = TPU_SPACE_HBM;
            else if (asm_tok_is(t, "vmem"))
                space = TPU_SPACE_VMEM;
            else {
                p->i++;
                return symbol_value(p, t, out);
            }
            p->i++;
            if (a->toks[p->i].type != T_LPAREN) {
                asm_error(a, t->col, "expected '(' after '%s'", space == TPU_SPACE_HBM ? "hbm" : "vmem");
                return -1;
            }
        }
        const asm_tok *open = &a->toks[p->i];
        if (++p->depth > MAX_DEPTH) {
            asm_error(a, open->col, "expression nested too deeply (at most %d levels)", MAX_DEPTH);
            return -1;
        }
        p->i++;
        if (parse_ternary(p, out))
            return -1;
        p->depth--;
        if (a->toks[p->i].type != T_RPAREN) {
            asm_error(a, a->toks[p->i].col, "expected ')' to close the '(' at column %u, got '%s'",
                      open->col, asm_tok_text(&a->toks[p->i], b, sizeof b));
            return -1;
        }
        p->i++;
        if (space != TPU_SPACE_NONE)
            out->space = space;
        return 0;
    }
    case T_FLOAT:
        asm_error(a, t->col, "expected an integer, got float '%s'", asm_tok_text(t, b, sizeof b));
        return -1;
    default:
        asm_error(a, t->col, "expected an expression, got '%s'", asm_tok_text(t, b, sizeof b));
        return -1;
    }
}

static int parse_unary(parser *p, asm_val *out)
{
    const asm_tok *t = &p->a->toks[p->i];
    if (t->type != T_MINUS && t->type != T_PLUS && t->type != T_TILDE && t->type != T_NOT)
        return parse_primary(p, out);
    if (++p->depth > MAX_DEPTH) {
        asm_error(p->a, t->col, "expression nested too deeply (at most %d levels)", MAX_DEPTH);
        return -1;
    }
    p->i++;
    if (parse_unary(p, out))
        return -1;
    p->depth--;
    if (t->type == T_MINUS) {
        out->v = (int64_t)((uint64_t)0 - (uint64_t)out->v);
        out->space = TPU_SPACE_NONE;
    } else if (t->type == T_TILDE) {
        out->v = ~out->v;
        out->space = TPU_SPACE_NONE;
    } else if (t->type == T_NOT) {
        out->v = out->v == 0;
        out->space = TPU_SPACE_NONE;
    }
    return 0;
}

static int apply(parser *p, const asm_tok *op, asm_val *l, const asm_val *r)
{
    uint64_t x = (uint64_t)l->v, y = (uint64_t)r->v;
    uint8_t space = TPU_SPACE_NONE;
    switch (op->type) {
    case T_PLUS:
        x += y;
        space = (l->space && !r->space) ? l->space : (!l->space && r->space) ? r->space : 0;
        break;
    case T_MINUS:
        x -= y;
        space = r->space ? TPU_SPACE_NONE : l->space;
        break;
    case T_STAR: x *= y; break;
    case T_SLASH:
    case T_PERCENT:
        if (r->v == 0) {
            asm_error(p->a, op->col, "%s by zero", op->type == T_SLASH ? "division" : "remainder");
            return -1;
        }
        if (l->v == INT64_MIN && r->v == -1)
            x = op->type == T_SLASH ? (uint64_t)INT64_MIN : 0;
        else
            x = (uint64_t)(op->type == T_SLASH ? l->v / r->v : l->v % r->v);
        break;
    case T_AMP: x &= y; break;
    case T_EQ: x = l->v == r->v; break;
    case T_NE: x = l->v != r->v; break;
    case T_LT: x = l->v < r->v; break;
    case T_LE: x = l->v <= r->v; break;
    case T_GT: x = l->v > r->v; break;
    case T_GE: x = l->v >= r->v; break;
    case T_PIPE: x |= y; break;
    case T_ANDAND: x = l->v != 0 && r->v != 0; break;
    case T_OROR: x = l->v != 0 || r->v != 0; break;
    case T_CARET: x ^= y; break;
    case T_SHL:
    case T_SHR:
        if (r->v < 0 || r->v > 63) {
            asm_error(p->a, op->col, "shift count %lld out of range: 0..63", (long long)r->v);
            return -1;
        }
        if (op->type == T_SHL)
            x <<= r->v;
        else                                    /* arithmetic shift */
            x = l->v < 0 ? ~(~x >> r->v) : x >> r->v;
        break;
    default:
        return -1;
    }
    l->v = (int64_t)x;
    l->space = space;
    return 0;
}

static int parse_bin(parser *p, int minprec, asm_val *out)
{
    if (parse_unary(p, out))
        return -1;
    for (;;) {
        const asm_tok *op = &p->a->toks[p->i];
        int pr = prec(op->type);
        if (!pr || pr < minprec)
            return 0;
        p->i++;
        asm_val r;
        if (parse_bin(p, pr + 1, &r) || apply(p, op, out, &r))
            return -1;
    }
}

/* cond ? a : b, right-associative, below every binary operator. */
static int parse_ternary(parser *p, asm_val *out)
{
    if (parse_bin(p, 1, out))
        return -1;
    const asm_tok *q = &p->a->toks[p->i];
    if (q->type != T_QUESTION)
        return 0;
    if (++p->depth > MAX_DEPTH) {
        asm_error(p->a, q->col, "expression nested too deeply (at most %d levels)", MAX_DEPTH);
        return -1;
    }
    p->i++;
    asm_val yes, no;
    if (parse_ternary(p, &yes))
        return -1;
    const asm_tok *c = &p->a->toks[p->i];
    if (c->type != T_COLON) {
        char b[ASM_CLIP_BUF];
        asm_error(p->a, c->col, "expected ':' of '?:', got '%s'", asm_tok_text(c, b, sizeof b));
        return -1;
    }
    p->i++;
    if (parse_ternary(p, &no))
        return -1;
    p->depth--;
    *out = out->v != 0 ? yes : no;
    return 0;
}

int asm_expr(asm_ctx *a, size_t *i, int flags, asm_val *out)
{
    parser p = { a, *i, flags, 0 };
    int r = parse_ternary(&p, out);
    *i = p.i;
    return r;
}

int asm_expr_operand(asm_ctx *a, size_t i, size_t end, int flags, asm_val *out)
{
    char b[ASM_CLIP_BUF];
    if (asm_expr(a, &i, flags, out))
        return -1;
    if (i != end) {
        asm_error(a, a->toks[i].col, "unexpected '%s' in expression",
                  asm_tok_text(&a->toks[i], b, sizeof b));
        return -1;
    }
    return 0;
}

/* One float operand of .f32/.bf16/.random/.expect f32: `bits(EXPR)`, a
 * literal with an optional sign (1.5, -2e-3, inf, nan), or an integer
 * expression (7, N*2), rounded to the format. */
int asm_float_operand(asm_ctx *a, size_t i, size_t end, enum fmt f, uint32_t *bits)
{
    const asm_tok *t = &a->toks[i];
    const char *fname = f == FMT_F32 ? "f32" : "bf16";
    char b[ASM_CLIP_BUF];
    asm_val v;
    if (t->type == T_IDENT && asm_tok_is(t, "bits") && a->toks[i + 1].type == T_LPAREN) {
        if (asm_expr_operand(a, i + 1, end, 0, &v))
            return -1;
        int64_t lo = f == FMT_F32 ? INT32_MIN : INT16_MIN;
        int64_t hi = f == FMT_F32 ? (int64_t)UINT32_MAX : (int64_t)UINT16_MAX;
        if (v.v < lo || v.v > hi) {
            asm_error(a, t->col, "bit pattern %lld out of range for %s: %lld..%lld",
                      (long long)v.v, fname, (long long)lo, (long long)hi);
            return -1;
        }
        *bits = (uint32_t)v.v & (uint32_t)hi;
        return 0;
    }
    size_t k = i;
    int neg = 0;
    if (t->type == T_MINUS || t->type == T_PLUS)
        neg = t->type == T_MINUS, k++;
    const asm_tok *lit = &a->toks[k];
    if (k + 1 == end && (lit->type == T_FLOAT ||
                         (lit->type == T_IDENT && (asm_tok_is(lit, "inf") || asm_tok_is(lit, "nan"))))) {
        if (asm_float_from_decimal(lit->s, lit->len, neg, f, bits)) {
            asm_error(a, lit->col, "float '%s' is too large for %s", asm_tok_text(lit, b, sizeof b),
                      fname);
            return -1;
        }
        return 0;
    }
    if (asm_expr_operand(a, i, end, 0, &v))
        return -1;
    *bits = asm_float_from_int(v.v, f);
    return 0;
}
