/*
 * config.c - machine configuration: defaults, parsing, presets, checks.
 *
 * Everything is driven by the key table built from config.def, so a new
 * key needs one line there and nothing here.  The text format is lines of
 * `key = value`, `#` comments and blank lines; docs/config.md is the
 * user's reference.  Errors are gcc-style, "where:line: error: ...".
 */
#include "config.h"
#include "strdist.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CONFIG_FILE_MAX   (1u << 20)     /* refuse config files above 1 MiB */
#define QUOTE_MAX         48             /* longest piece of input quoted in a message */
#define APPROX_MAX_DEN    1000000u       /* bytes_per_cycle: den bound when inexact */

typedef enum key_type { KT_U64, KT_F64, KT_STR } key_type;

/* One configuration key, from config.def. */
typedef struct key_info {
    const char *name;
    key_type    type;
    size_t      offset;                  /* of the field in tpu_config */
    uint64_t    def_u, lo_u, hi_u;       /* KT_U64 */
    double      def_f, lo_f, hi_f;       /* KT_F64 */
    const char *def_s;                   /* KT_STR */
    const char *doc;
} key_info;

#define KI_U64(n, def, lo, hi) KT_U64, offsetof(tpu_config, n), \
    (uint64_t)(def), (uint64_t)(lo), (uint64_t)(hi), 0, 0, 0, NULL
#define KI_F64(n, def, lo, hi) KT_F64, offsetof(tpu_config, n), \
    0, 0, 0, (double)(def), (double)(lo), (double)(hi), NULL
#define KI_STR(n, def, lo, hi) KT_STR, offsetof(tpu_config, n), \
    0, 0, 0, 0, 0, 0, (def)

static const key_info keys[] = {
#define KEY(n, type, def, lo, hi, doc) { #n, KI_##type(n, def, lo, hi), doc },
#include "config.def"
#undef KEY
};
#define NKEYS (sizeof keys / sizeof keys[0])

static uint64_t *field_u64(tpu_config *c, const key_info *k) { return (uint64_t *)((char *)c + k->offset); }
static double   *field_f64(tpu_config *c, const key_info *k) { return (double *)((char *)c + k->offset); }
static char     *field_str(tpu_config *c, const key_info *k) { return (char *)c + k->offset; }
static uint64_t get_u64(const tpu_config *c, const key_info *k) { return *(const uint64_t *)((const char *)c + k->offset); }
static double   get_f64(const tpu_config *c, const key_info *k) { return *(const double *)((const char *)c + k->offset); }
static const char *get_str(const tpu_config *c, const key_info *k) { return (const char *)c + k->offset; }

/* ---- messages ------------------------------------------------------------- */

/* Write "prefix: error: <fmt>" into err (if any) and return -1. */
static int fail(char *err, size_t errlen, const char *prefix, const char *fmt, ...)
{
    if (err && errlen) {
        int n = snprintf(err, errlen, "%s: error: ", prefix);
        if (n >= 0 && (size_t)n < errlen) {
            va_list ap;
            va_start(ap, fmt);
            vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
            va_end(ap);
        }
    }
    return -1;
}

/* Copy s[0..n) for quoting in a message: at most QUOTE_MAX characters
 * (then "..."), unprintable bytes shown as '?'. */
static void quote(char *dst, size_t dstlen, const char *s, size_t n)
{
    size_t i, o = 0;
    for (i = 0; i < n && i < QUOTE_MAX && o + 1 < dstlen; i++) {
        unsigned char ch = (unsigned char)s[i];
        dst[o++] = (ch >= 0x20 && ch < 0x7f) ? (char)ch : '?';
    }
    if (i < n && o + 4 < dstlen) {
        memcpy(dst + o, "...", 3);
        o += 3;
    }
    dst[o] = 0;
}

/* The shortest %g text that reads back as exactly v, with a tidy
 * exponent ("1e+06" -> "1e6"). */
static void format_f64(char *buf, size_t len, double v)
{
    char tmp[40];
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(tmp, sizeof tmp, "%.*g", prec, v);
        if (strtod(tmp, NULL) == v)
            break;
    }
    size_t o = 0;
    for (const char *p = tmp; *p && o + 1 < len; p++) {
        if (*p == 'e') {
            buf[o++] = 'e';
            p++;
            if (*p == '-' && o + 1 < len)
                buf[o++] = '-';
            if (*p == '+' || *p == '-')
                p++;
            while (*p == '0' && p[1])
                p++;
            p--;
            continue;
        }
        buf[o++] = *p;
    }
    if (len)
        buf[o < len ? o : len - 1] = 0;
}

/* ---- key lookup ------------------------------------------------------------- */

static const key_info *find_key(const char *name, size_t n)
{
    for (size_t i = 0; i < NKEYS; i++)
        if (strlen(keys[i].name) == n && memcmp(keys[i].name, name, n) == 0)
            return &keys[i];
    return NULL;
}

/* The known key closest to name[0..n), if close enough to be a typo. */
static const char *suggest_key(const char *name, size_t n)
{
    const char *best = NULL;
    size_t best_d = (size_t)-1;
    for (size_t i = 0; i < NKEYS; i++) {
        size_t d = tpu_edit_distance(name, n, keys[i].name, strlen(keys[i].name), 1);
        if (d < best_d) {
            best_d = d;
            best = keys[i].name;
        }
    }
    size_t limit = n / 2 > 1 ? n / 2 : 1;
    return best_d <= limit ? best : NULL;
}

/* ---- values --------------------------------------------------------------- */

typedef enum num_status { NUM_OK, NUM_SYNTAX, NUM_FRACTION, NUM_TOO_LARGE } num_status;

static int is_digit(char ch) { return ch >= '0' && ch <= '9'; }

static int hex_value(char ch)
{
    if (ch >= '0' && ch <= '9') return ch - '0';
    if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F') return ch - 'A' + 10;
    return -1;
}

/* v * mul without overflow. */
static num_status scale_u64(uint64_t *v, uint64_t mul)
{
    if (*v && mul > UINT64_MAX / *v)
        return NUM_TOO_LARGE;
    *v *= mul;
    return NUM_OK;
}

/* An integer in one of the forms 8192, 0x2000, 8Ki (Ki Mi Gi Ti: powers of
 * 1024, after a decimal or hex integer), 1e9 or 2.5e3 (decimal with
 * fraction/exponent, accepted when the value is a whole number). */
static num_status parse_u64(const char *s, size_t n, uint64_t *out)
{
    const char *p = s, *end = s + n;
    uint64_t v = 0;
    int plain_integer = 1;           /* suffixes only after a plain integer */

    if (n > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
        p += 2;
        if (p == end || hex_value(*p) < 0)
            return NUM_SYNTAX;
        for (; p < end && hex_value(*p) >= 0; p++) {
            if (v > (UINT64_MAX >> 4))
                return NUM_TOO_LARGE;
            v = (v << 4) | (uint64_t)hex_value(*p);
        }
    } else {
        long exp10 = 0;
        int digits = 0;
        for (; p < end && is_digit(*p); p++, digits++) {
            uint64_t d = (uint64_t)(*p - '0');
            if (v > (UINT64_MAX - d) / 10) {
                if (d)
                    return NUM_TOO_LARGE;
                exp10++;                 /* a trailing zero we cannot hold yet */
                continue;
            }
            v = v * 10 + d;
        }
        if (p < end && *p == '.') {
            plain_integer = 0;
            for (p++; p < end && is_digit(*p); p++, digits++) {
                uint64_t d = (uint64_t)(*p - '0');
                if (v > (UINT64_MAX - d) / 10) {
                    if (d)
                        return NUM_SYNTAX;   /* more than 19 significant digits */
                    continue;                /* trailing fraction zero: no change */
                }
                v = v * 10 + d;
                exp10--;
            }
        }
        if (!digits)
            return NUM_SYNTAX;
        if (p < end && (*p == 'e' || *p == 'E')) {
            plain_integer = 0;
            int neg = 0;
            long e = 0;
            p++;
            if (p < end && (*p == '+' || *p == '-'))
                neg = *p++ == '-';
            if (p == end || !is_digit(*p))
                return NUM_SYNTAX;
            for (; p < end && is_digit(*p); p++)
                if (e < 100000)
                    e = e * 10 + (*p - '0');
            exp10 += neg ? -e : e;
        }
        for (; exp10 < 0 && v; exp10++) {
            if (v % 10)
                return NUM_FRACTION;
            v /= 10;
        }
        for (; exp10 > 0 && v; exp10--)
            if (scale_u64(&v, 10) != NUM_OK)
                return NUM_TOO_LARGE;
    }

    if (p < end && plain_integer && end - p == 2 && p[1] == 'i') {
        const char *units = "KMGT";
        const char *u = memchr(units, p[0], 4);
        if (!u)
            return NUM_SYNTAX;
        if (scale_u64(&v, UINT64_C(1) << (10 * (u - units + 1))) != NUM_OK)
            return NUM_TOO_LARGE;
        p = end;
    }
    if (p != end)
        return NUM_SYNTAX;
    *out = v;
    return NUM_OK;
}

/* A real number: what strtod accepts, finite, all of the text. */
static int parse_f64(const char *s, size_t n, double *out)
{
    char buf[64];
    if (n == 0 || n >= sizeof buf)
        return -1;
    memcpy(buf, s, n);
    buf[n] = 0;
    char *endp;
    errno = 0;
    double v = strtod(buf, &endp);
    if (endp != buf + n || !isfinite(v) || errno == ERANGE)
        return -1;
    *out = v;
    return 0;
}

/* Text keys: 1..31 characters from [A-Za-z0-9_.+-], so that they print
 * and parse back unchanged. */
static int valid_str(const char *s, size_t n)
{
    if (n == 0 || n >= sizeof(((tpu_config *)0)->name))
        return 0;
    for (size_t i = 0; i < n; i++) {
        char ch = s[i];
        if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || is_digit(ch)
              || ch == '_' || ch == '.' || ch == '+' || ch == '-'))
            return 0;
    }
    return 1;
}

/* Parse value v[0..n) for key k into c; messages prefixed by `prefix`. */
static int set_value(tpu_config *c, const key_info *k, const char *v, size_t n,
                     const char *prefix, char *err, size_t errlen)
{
    char q[QUOTE_MAX + 8], lo[40], hi[40];
    quote(q, sizeof q, v, n);
    switch (k->type) {
    case KT_U64: {
        uint64_t x = 0;
        int negative = (n > 1 && v[0] == '-');
        num_status st = parse_u64(v + negative, n - (size_t)negative, &x);
        if (st == NUM_TOO_LARGE)
            return fail(err, errlen, prefix, "bad value '%s' for %s: too large", q, k->name);
        if (st != NUM_OK)
            return fail(err, errlen, prefix, "bad value '%s' for %s: expected an integer", q, k->name);
        if (negative ? x != 0 || k->lo_u > 0 : (x < k->lo_u || x > k->hi_u))
            return fail(err, errlen, prefix, "%s = %s is out of range %" PRIu64 "..%" PRIu64,
                        k->name, q, k->lo_u, k->hi_u);
        *field_u64(c, k) = x;
        return 0;
    }
    case KT_F64: {
        double x;
        if (parse_f64(v, n, &x) != 0)
            return fail(err, errlen, prefix, "bad value '%s' for %s: expected a number", q, k->name);
        if (x < k->lo_f || x > k->hi_f) {
            format_f64(lo, sizeof lo, k->lo_f);
            format_f64(hi, sizeof hi, k->hi_f);
            return fail(err, errlen, prefix, "%s = %s is out of range %s..%s", k->name, q, lo, hi);
        }
        *field_f64(c, k) = x;
        return 0;
    }
    case KT_STR:
        if (!valid_str(v, n))
            return fail(err, errlen, prefix,
                        "bad value '%s' for %s: expected 1 to 31 letters, digits, '_', '.', '+' or '-'",
                        q, k->name);
        memset(field_str(c, k), 0, sizeof(((tpu_config *)0)->name));
        memcpy(field_str(c, k), v, n);
        return 0;
    }
    return -1;
}

/* ---- lines ------------------------------------------------------------------ */

static int is_blank(char ch) { return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\v' || ch == '\f'; }

/* Trim blanks from both ends of [*s, *s + *n). */
static void trim(const char **s, size_t *n)
{
    while (*n && is_blank(**s)) { (*s)++; (*n)--; }
    while (*n && is_blank((*s)[*n - 1])) (*n)--;
}

/* Apply one `key = value` line (comment already removed, not blank).
 * first_line[], if given, records where each key was set, for duplicates. */
static int apply_line(tpu_config *c, const char *line, size_t n, const char *prefix,
                      unsigned *first_line, unsigned lineno, char *err, size_t errlen)
{
    char q[QUOTE_MAX + 8];
    const char *eq = memchr(line, '=', n);
    if (!eq) {
        quote(q, sizeof q, line, n);
        return fail(err, errlen, prefix, "missing '=' in '%s' (expected 'key = value')", q);
    }
    const char *key = line, *val = eq + 1;
    size_t nkey = (size_t)(eq - line), nval = n - nkey - 1;
    trim(&key, &nkey);
    trim(&val, &nval);
    if (nkey == 0)
        return fail(err, errlen, prefix, "missing key before '='");

    const key_info *k = find_key(key, nkey);
    quote(q, sizeof q, key, nkey);
    if (!k) {
        const char *hint = suggest_key(key, nkey);
        if (hint)
            return fail(err, errlen, prefix, "unknown key '%s' (did you mean '%s'?)", q, hint);
        return fail(err, errlen, prefix, "unknown key '%s'", q);
    }
    if (first_line) {
        unsigned *first = &first_line[k - keys];
        if (*first)
            return fail(err, errlen, prefix, "duplicate key '%s' (first set on line %u)", k->name, *first);
        *first = lineno;
    }
    if (nval == 0)
        return fail(err, errlen, prefix, "missing value for '%s'", k->name);
    return set_value(c, k, val, nval, prefix, err, errlen);
}

/* ---- public API --------------------------------------------------------- */

void tpu_config_defaults(tpu_config *c)
{
    memset(c, 0, sizeof *c);
    for (size_t i = 0; i < NKEYS; i++) {
        const key_info *k = &keys[i];
        switch (k->type) {
        case KT_U64: *field_u64(c, k) = k->def_u; break;
        case KT_F64: *field_f64(c, k) = k->def_f; break;
        case KT_STR: snprintf(field_str(c, k), sizeof c->name, "%s", k->def_s); break;
        }
    }
}

/* Parse line by line into a copy; *c changes only if all of it is good. */
int tpu_config_parse(tpu_config *c, const char *text, const char *where, char *err, size_t errlen)
{
    tpu_config work = *c;
    unsigned first_line[NKEYS] = { 0 };
    char prefix[300];
    unsigned lineno = 0;
    if (!where)
        where = "config";
    for (const char *p = text; *p; ) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        const char *line = p;
        p = nl ? nl + 1 : p + n;
        lineno++;
        const char *hash = memchr(line, '#', n);
        if (hash)
            n = (size_t)(hash - line);
        trim(&line, &n);
        if (n == 0)
            continue;
        snprintf(prefix, sizeof prefix, "%s:%u", where, lineno);
        if (apply_line(&work, line, n, prefix, first_line, lineno, err, errlen) != 0)
            return -1;
    }
    *c = work;
    return 0;
}

int tpu_config_set(tpu_config *c, const char *kv, char *err, size_t errlen)
{
    const char *line = kv;
    size_t n = strlen(kv);
    trim(&line, &n);
    if (n == 0)
        return fail(err, errlen, "--set", "missing '=' in '' (expected 'key = value')");
    tpu_config work = *c;
    if (apply_line(&work, line, n, "--set", NULL, 0, err, errlen) != 0)
        return -1;
    *c = work;
    return 0;
}

/* Cross-key rules (and each key's own range, for structs filled in by code).
 * Messages are "prefix: error: ...". */
static int validate(const tpu_config *c, const char *prefix, char *err, size_t errlen)
{
    char lo[40], hi[40], v[40];
    for (size_t i = 0; i < NKEYS; i++) {
        const key_info *k = &keys[i];
        if (k->type == KT_U64) {
            uint64_t x = get_u64(c, k);
            if (x < k->lo_u || x > k->hi_u)
                return fail(err, errlen, prefix, "%s = %" PRIu64 " is out of range %" PRIu64 "..%" PRIu64,
                            k->name, x, k->lo_u, k->hi_u);
        } else if (k->type == KT_F64) {
            double x = get_f64(c, k);
            if (!(x >= k->lo_f && x <= k->hi_f)) {
                format_f64(v, sizeof v, x);
                format_f64(lo, sizeof lo, k->lo_f);
                format_f64(hi, sizeof hi, k->hi_f);
                return fail(err, errlen, prefix, "%s = %s is out of range %s..%s", k->name, v, lo, hi);
            }
        } else {
            const char *s = get_str(c, k);
            const char *nul = memchr(s, 0, sizeof c->name);
            if (!nul || !valid_str(s, (size_t)(nul - s)))
                return fail(err, errlen, prefix, "%s is not 1 to 31 letters, digits, '_', '.', '+' or '-'",
                            k->name);
        }
    }
    if (c->vmem_bytes % 64)
        return fail(err, errlen, prefix, "vmem_bytes = %" PRIu64 " is not a multiple of 64", c->vmem_bytes);
    if (c->hbm_bytes % 64)
        return fail(err, errlen, prefix, "hbm_bytes = %" PRIu64 " is not a multiple of 64", c->hbm_bytes);
    uint64_t tile = 2 * c->mxu_n * c->mxu_n;
    if (c->vmem_bytes < tile)
        return fail(err, errlen, prefix,
                    "vmem_bytes = %" PRIu64 " cannot hold one bf16 weight tile of mxu_n x mxu_n = %"
                    PRIu64 " bytes", c->vmem_bytes, tile);
    uint64_t vreg = 4 * c->vpu_sublanes * c->vpu_lanes;
    if (c->vmem_bytes < vreg)
        return fail(err, errlen, prefix,
                    "vmem_bytes = %" PRIu64 " cannot hold one vector register of "
                    "vpu_sublanes x vpu_lanes x 4 = %" PRIu64 " bytes", c->vmem_bytes, vreg);
    /* docs/timing.md T19: each weight load reads one row per cycle, and
     * loads in flight read different rows of the array. */
    if (c->mxu_wloads > c->mxu_n)
        return fail(err, errlen, prefix,
                    "mxu_wloads = %" PRIu64 " is larger than mxu_n = %" PRIu64
                    " (loads in flight read different weight rows)", c->mxu_wloads, c->mxu_n);
    /* docs/timing.md T11: the MXUs and incoming ICI bytes never wait for
     * VMEM, so their worst case must fit in one cycle's bandwidth: per MXU
     * W weight rows of 2N bytes, a 2N-byte LHS row, a 4N-byte accumulator
     * read and a 4N-byte result write. */
    uint64_t inum, iden;
    tpu_config_bytes_per_cycle(c->ici_bw, c->clock_hz, &inum, &iden);
    uint64_t need = c->num_mxu * (2 * c->mxu_n * c->mxu_wloads + 10 * c->mxu_n)
                  + 4 * ((inum + iden - 1) / iden);
    if (c->vmem_bw < need)
        return fail(err, errlen, prefix,
                    "vmem_bw = %" PRIu64 " is too small: the MXUs and ICI links need up to %" PRIu64
                    " bytes per cycle (num_mxu x (2 x mxu_n x mxu_wloads + 10 x mxu_n) + 4 x ICI "
                    "bytes per cycle, mxu_wloads = %" PRIu64 "; docs/timing.md T11)",
                    c->vmem_bw, need, c->mxu_wloads);
    return 0;
}

int tpu_config_validate(const tpu_config *c, char *err, size_t errlen)
{
    return validate(c, "config", err, errlen);
}

/* Read a whole config file (at most CONFIG_FILE_MAX bytes) as a C string. */
static char *read_config_file(const char *path, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fail(err, errlen, path, "cannot open: %s", strerror(errno));
        return NULL;
    }
    char *buf = malloc(CONFIG_FILE_MAX + 2);
    if (!buf) {
        fclose(f);
        fail(err, errlen, path, "out of memory");
        return NULL;
    }
    size_t n = fread(buf, 1, CONFIG_FILE_MAX + 1, f);
    int read_error = ferror(f) ? errno : 0;
    fclose(f);
    if (read_error) {
        fail(err, errlen, path, "cannot read: %s", strerror(read_error));
    } else if (n > CONFIG_FILE_MAX) {
        fail(err, errlen, path, "file is larger than 1 MiB; not a config file?");
    } else if (memchr(buf, 0, n)) {
        fail(err, errlen, path, "contains a NUL byte; not a config file?");
    } else {
        buf[n] = 0;
        return buf;
    }
    free(buf);
    return NULL;
}

/* A name with no '/' and no ".cfg" ending is a preset; anything else a file. */
static int is_path(const char *s)
{
    size_t n = strlen(s);
    return strchr(s, '/') || (n >= 4 && strcmp(s + n - 4, ".cfg") == 0);
}

int tpu_config_load(tpu_config *c, const char *name_or_path, char *err, size_t errlen)
{
    tpu_config work;
    tpu_config_defaults(&work);
    char where[300];
    int rc;
    if (!name_or_path || !*name_or_path)
        return fail(err, errlen, "config", "empty config name");
    if (!is_path(name_or_path)) {
        const tpu_config_preset *p;
        for (p = tpu_config_presets; p->name; p++)
            if (strcmp(p->name, name_or_path) == 0)
                break;
        if (!p->name) {
            char list[256] = "", q[QUOTE_MAX + 8];
            for (const tpu_config_preset *e = tpu_config_presets; e->name; e++) {
                size_t used = strlen(list);
                snprintf(list + used, sizeof list - used, "%s%s", used ? ", " : "", e->name);
            }
            quote(q, sizeof q, name_or_path, strlen(name_or_path));
            return fail(err, errlen, "config",
                        "unknown preset '%s' (presets: %s); a file name needs a '/' or a .cfg ending",
                        q, list);
        }
        snprintf(where, sizeof where, "%s.cfg", p->name);
        rc = tpu_config_parse(&work, p->text, where, err, errlen);
    } else {
        char *text = read_config_file(name_or_path, err, errlen);
        if (!text)
            return -1;
        snprintf(where, sizeof where, "%s", name_or_path);
        rc = tpu_config_parse(&work, text, where, err, errlen);
        free(text);
    }
    if (rc == 0)
        rc = validate(&work, where, err, errlen);
    if (rc == 0)
        *c = work;
    return rc;
}

void tpu_config_print(const tpu_config *c, char *buf, size_t len)
{
    size_t used = 0;
    char v[40];
    if (!len)
        return;
    buf[0] = 0;
    for (size_t i = 0; i < NKEYS && used < len; i++) {
        const key_info *k = &keys[i];
        int n;
        switch (k->type) {
        case KT_U64:
            n = snprintf(buf + used, len - used, "%s = %" PRIu64 "\n", k->name, get_u64(c, k));
            break;
        case KT_F64:
            format_f64(v, sizeof v, get_f64(c, k));
            n = snprintf(buf + used, len - used, "%s = %s\n", k->name, v);
            break;
        default:
            n = snprintf(buf + used, len - used, "%s = %.31s\n", k->name, get_str(c, k));
            break;
        }
        if (n < 0)
            return;
        used += (size_t)n;
    }
}

static uint64_t gcd_u64(uint64_t a, uint64_t b)
{
    while (b) {
        uint64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* Is x a whole number that fits comfortably in a uint64_t? */
static int is_whole(double x)
{
    return x >= 0 && x < 9.2e18 && (double)(uint64_t)x == x;
}

/* Bytes per cycle as a fraction.  Exact when both rates are whole numbers
 * (8.2e11 / 1.5e9 = 1640/3); otherwise the closest fraction with a
 * denominator of at most 10^6, from the continued fraction of the ratio
 * (the last convergent within the bound, or the semiconvergent after it
 * when that is closer). */
void tpu_config_bytes_per_cycle(double bytes_per_s, double clock_hz, uint64_t *num, uint64_t *den)
{
    *num = 0;
    *den = 1;
    if (!(bytes_per_s > 0) || !(clock_hz > 0) || !isfinite(bytes_per_s) || !isfinite(clock_hz))
        return;
    if (is_whole(bytes_per_s) && is_whole(clock_hz)) {
        uint64_t n = (uint64_t)bytes_per_s, d = (uint64_t)clock_hz, g = gcd_u64(n, d);
        *num = n / g;
        *den = d / g;
        return;
    }
    double x = bytes_per_s / clock_hz;
    if (!(x < 1e12)) {                        /* no fraction worth having: round */
        *num = x < 9.2e18 ? (uint64_t)(x + 0.5) : UINT64_MAX;
        return;
    }
    uint64_t p0 = 0, q0 = 1, p1 = 1, q1 = 0;  /* convergents k-2 and k-1 */
    double y = x;
    for (int iter = 0; iter < 64; iter++) {
        double af = floor(y);
        if (q1 && af > (double)((APPROX_MAX_DEN - q0) / q1))
            break;
        uint64_t a = (uint64_t)af;
        uint64_t p2 = p0 + a * p1, q2 = q0 + a * q1;
        p0 = p1; q0 = q1; p1 = p2; q1 = q2;
        double frac = y - af;
        if (frac <= 0 || frac < 1e-300)
            break;
        y = 1.0 / frac;
    }
    /* The semiconvergent with the largest allowed denominator. */
    uint64_t k = (APPROX_MAX_DEN - q0) / q1;
    uint64_t ps = p0 + k * p1, qs = q0 + k * q1;
    double err_conv = fabs(x - (double)p1 / (double)q1);
    double err_semi = fabs(x - (double)ps / (double)qs);
    if (k > 0 && err_semi < err_conv) {
        p1 = ps;
        q1 = qs;
    }
    uint64_t g = gcd_u64(p1, q1);
    *num = p1 / g;
    *den = q1 / g;
}
