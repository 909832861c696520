/*
 * asm_lex.c - splitting one source line into tokens.
 *
 * Tokens point into the source (nothing is copied).  Integers are converted
 * here, so "number too large" and "bad number" come with the number's
 * column; floats are kept as text and converted where their format (f32 or
 * bf16) is known (asm_float.c).
 */
#include <stdlib.h>
#include <string.h>

#include "asm_impl.h"

static int is_ident_start(int c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; }
static int is_ident_char(int c) { return is_ident_start(c) || (c >= '0' && c <= '9') || c == '.'; }
static int is_digit(int c) { return c >= '0' && c <= '9'; }

/* Find the first byte the language never allows: a control byte anywhere
 * (tab and carriage return are blanks), or a non-ASCII byte outside a
 * comment ('#' or ';' inside a "string" does not start one).  Returns the
 * byte (and its column), or -1 when the line is clean. */
int asm_check_line_bytes(const char *s, uint32_t len, uint32_t *badcol)
{
    int in_comment = 0, in_string = 0;
    for (uint32_t k = 0; k < len; k++) {
        unsigned char c = (unsigned char)s[k];
        if (in_string && c == '\\' && k + 1 < len && (s[k + 1] == '"' || s[k + 1] == '\\'))
            k++;                            /* \" and \\ stay inside the string */
        else if (c == '"' && !in_comment)
            in_string = !in_string;
        else if ((c == '#' || c == ';') && !in_string)
            in_comment = 1;
        if ((c < 0x20 && c != '\t' && c != '\r') || c == 0x7f || (c >= 0x80 && !in_comment)) {
            *badcol = k + 1;
            return c;
        }
    }
    return -1;
}

/* Parse the digits of an integer literal; -1 on a bad digit, -2 when it
 * does not fit in 64 bits. */
static int parse_int(const char *s, uint32_t len, uint64_t *out)
{
    unsigned base = 10;
    uint32_t k = 0;
    if (len >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
        base = 16, k = 2;
    else if (len >= 2 && s[0] == '0' && (s[1] == 'b' || s[1] == 'B'))
        base = 2, k = 2;
    if (k == len)
        return -1;
    uint64_t v = 0;
    int overflow = 0;
    for (; k < len; k++) {
        int c = s[k], d;
        if (c >= '0' && c <= '9') d = c - '0';
        else if (c >= 'a' && c <= 'f') d = c - 'a' + 10;
        else if (c >= 'A' && c <= 'F') d = c - 'A' + 10;
        else return -1;
        if ((unsigned)d >= base)
            return -1;
        if (v > (UINT64_MAX - (uint64_t)d) / base)
            overflow = 1;
        v = v * base + (uint64_t)d;
    }
    if (overflow)
        return -2;
    *out = v;
    return 0;
}

/* Is s a decimal float literal: digits [. digits] [e [+-] digits], with a
 * '.' or an exponent, and at least one mantissa digit? */
static int is_float_literal(const char *s, uint32_t len)
{
    uint32_t k = 0, mant = 0;
    int dot = 0, exp = 0;
    while (k < len && is_digit(s[k])) k++, mant++;
    if (k < len && s[k] == '.') {
        dot = 1, k++;
        while (k < len && is_digit(s[k])) k++, mant++;
    }
    if (mant == 0)
        return 0;
    if (k < len && (s[k] == 'e' || s[k] == 'E')) {
        uint32_t d = 0;
        exp = 1, k++;
        if (k < len && (s[k] == '+' || s[k] == '-'))
            k++;
        while (k < len && is_digit(s[k])) k++, d++;
        if (d == 0)
            return 0;
    }
    return k == len && (dot || exp);
}

static int push(asm_ctx *a, uint8_t type, const char *s, uint32_t len, uint32_t col)
{
    if (a->ntoks == a->tokcap) {
        size_t cap = a->tokcap ? a->tokcap * 2 : 64;
        asm_tok *t = realloc(a->toks, cap * sizeof *t);
        if (!t) {
            asm_oom(a);
            return -1;
        }
        a->toks = t, a->tokcap = cap;
    }
    asm_tok *t = &a->toks[a->ntoks++];
    t->type = type, t->s = s, t->len = len, t->col = col, t->ival = 0;
    return 0;
}

/* Scan a number starting at s[k]: letters, digits, '_' and '.', and a sign
 * right after the exponent letter of a decimal float. */
static uint32_t number_end(const char *s, uint32_t len, uint32_t k)
{
    int hexbin = (k + 1 < len && s[k] == '0' && strchr("xXbB", s[k + 1]) && s[k + 1]);
    uint32_t j = k;
    while (j < len) {
        char c = s[j];
        if (is_ident_char((unsigned char)c)) {
            j++;
        } else if ((c == '+' || c == '-') && !hexbin && j > k &&
                   (s[j - 1] == 'e' || s[j - 1] == 'E')) {
            j++;
        } else {
            break;
        }
    }
    return j;
}

/* Tokenize s[0..len) (one line, no newline) into a->toks, ending with T_EOL.
 * A comment (# or ;) ends the line.  Returns 0, or -1 after an error. */
int asm_lex_line(asm_ctx *a, const char *s, uint32_t len)
{
    char b[ASM_CLIP_BUF];
    a->ntoks = 0;
    uint32_t k = 0;
    while (k < len) {
        unsigned char c = (unsigned char)s[k];
        uint32_t col = k + 1;
        if (c == ' ' || c == '\t' || c == '\r') {
            k++;
            continue;
        }
        if (c == '#' || c == ';')
            break;
        if (is_ident_start(c) || (c == '.' && k + 1 < len && is_ident_start((unsigned char)s[k + 1]))) {
            uint32_t j = k + 1;
            while (j < len && is_ident_char((unsigned char)s[j]))
                j++;
            if (push(a, c == '.' ? T_DIRECTIVE : T_IDENT, s + k, j - k, col))
                return -1;
            k = j;
            continue;
        }
        if (is_digit(c) || (c == '.' && k + 1 < len && is_digit((unsigned char)s[k + 1]))) {
            uint32_t j = number_end(s, len, k);
            uint64_t v = 0;
            int r = parse_int(s + k, j - k, &v);
            if (r == 0) {
                if (push(a, T_INT, s + k, j - k, col))
                    return -1;
                a->toks[a->ntoks - 1].ival = v;
            } else if (r == -2) {
                asm_error(a, col, "number too large: '%s' (at most 64 bits)",
                          asm_clip(b, sizeof b, s + k, j - k));
                return -1;
            } else if (is_float_literal(s + k, j - k)) {
                if (push(a, T_FLOAT, s + k, j - k, col))
                    return -1;
            } else {
                asm_error(a, col, "bad number '%s'", asm_clip(b, sizeof b, s + k, j - k));
                return -1;
            }
            k = j;
            continue;
        }
        if (c == '"') {                     /* a string: "...", with \" and \\ */
            uint32_t j = k + 1;
            while (j < len && s[j] != '"') {
                if (s[j] == '\\') {
                    if (j + 1 < len && (s[j + 1] == '"' || s[j + 1] == '\\')) {
                        j += 2;
                        continue;
                    }
                    asm_error(a, j + 1, "unknown escape in a string (only \\\" and \\\\ are "
                              "allowed)");
                    return -1;
                }
                j++;
            }
            if (j == len) {
                asm_error(a, col, "unterminated string (no closing '\"')");
                return -1;
            }
            if (push(a, T_STRING, s + k, j + 1 - k, col))
                return -1;
            k = j + 1;
            continue;
        }
        uint8_t type;
        uint32_t n = 1;
        switch (c) {
        case ',': type = T_COMMA; break;
        case ':': type = T_COLON; break;
        case '(': type = T_LPAREN; break;
        case ')': type = T_RPAREN; break;
        case '+': type = T_PLUS; break;
        case '-': type = T_MINUS; break;
        case '*': type = T_STAR; break;
        case '/': type = T_SLASH; break;
        case '%': type = T_PERCENT; break;
        case '~': type = T_TILDE; break;
        case '&':
        case '|':
            if (k + 1 < len && s[k + 1] == (char)c) {
                type = c == '&' ? T_ANDAND : T_OROR;
                n = 2;
            } else {
                type = c == '&' ? T_AMP : T_PIPE;
            }
            break;
        case '^': type = T_CARET; break;
        case '?': type = T_QUESTION; break;
        case '@': type = T_AT; break;
        case '<':
        case '>':
            if (k + 1 < len && s[k + 1] == (char)c) {
                type = c == '<' ? T_SHL : T_SHR;
                n = 2;
            } else if (k + 1 < len && s[k + 1] == '=') {
                type = c == '<' ? T_LE : T_GE;
                n = 2;
            } else {
                type = c == '<' ? T_LT : T_GT;
            }
            break;
        case '=':
        case '!':
            if (k + 1 < len && s[k + 1] == '=') {
                type = c == '=' ? T_EQ : T_NE;
                n = 2;
                break;
            }
            if (c == '!') {
                type = T_NOT;
                break;
            }
            /* fall through */
        default:
            if (c >= 0x20 && c < 0x7f)
                asm_error(a, col, "unexpected character '%c'", c);
            else
                asm_error(a, col, "invalid character 0x%02x", c);
            return -1;
        }
        if (push(a, type, s + k, n, col))
            return -1;
        k += n;
    }
    return push(a, T_EOL, s + len, 0, len + 1);
}

/* A token as text for messages ("end of line" for T_EOL). */
const char *asm_tok_text(const asm_tok *t, char *buf, size_t bufsz)
{
    if (t->type == T_EOL)
        return "end of line";
    return asm_clip(buf, bufsz, t->s, t->len);
}

const char *asm_string_text(const asm_tok *t, char *buf, size_t bufsz)
{
    size_t n = 0;
    for (uint32_t k = 1; k + 1 < t->len && n + 1 < bufsz; k++) {
        if (t->s[k] == '\\')
            k++;
        buf[n++] = t->s[k];
    }
    buf[n] = '\0';
    return buf;
}

int asm_tok_is(const asm_tok *t, const char *word)
{
    size_t n = strlen(word);
    return t->len == n && memcmp(t->s, word, n) == 0;
}

/* Names that can never be labels or constants: registers, hbm, vmem, bits. */
int asm_is_reserved(const char *s, size_t len)
{
    if (tpu_reg_parse(TPU_K_SREG, s, len) >= 0 || tpu_reg_parse(TPU_K_VREG, s, len) >= 0)
        return 1;
    return (len == 3 && memcmp(s, "hbm", 3) == 0) || (len == 4 && memcmp(s, "vmem", 4) == 0) ||
           (len == 4 && memcmp(s, "bits", 4) == 0);
}
