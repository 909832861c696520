/*
 * kgen_args.c - the command line that tpu-gen's transformer commands share
 * (kgen_args.h): the common options, a command's table of its own, the
 * numbers, words and meshes with their option named in every error.
 */
#include "kgen_args.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "fp.h"
#include "kgen.h"

#define TOOL "tpu-gen"

int kgen_bad(const char *fmt, const char *a)
{
    fprintf(stderr, TOOL ": error: ");
    fprintf(stderr, fmt, a);
    fputc('\n', stderr);
    return 2;
}

/* "tpu-gen: error: " and a message of several parts */
static int badf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int badf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, TOOL ": error: ");
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return 2;
}

int kgen_parse_num(const char *opt, const char *s, uint64_t max, int zero_ok, uint64_t *out)
{
    if (!s || !*s)
        return badf("%s needs a value", opt);
    if (strspn(s, "0123456789") != strlen(s))
        return badf("%s must be a %s whole number, got '%s'", opt, zero_ok ? "non-negative" : "positive", s);
    errno = 0;
    unsigned long long v = strtoull(s, NULL, 10);
    if (errno || v > max) {
        if (max && (max & (max - 1)) == 0)
            return badf("%s is too large: '%s' (at most 2^%d)", opt, s, 63 - __builtin_clzll(max));
        return badf("%s is too large: '%s' (at most %llu)", opt, s, (unsigned long long)max);
    }
    if (v == 0 && !zero_ok)
        return badf("%s must be positive, got '%s'", opt, s);
    *out = v;
    return 0;
}

int kgen_parse_count(const char *opt, const char *s, uint64_t *out, int zero_ok)
{
    return kgen_parse_num(opt, s, 1ull << 40, zero_ok, out);
}

/* A finite fp32 value, > 0 or (zero_ok) >= 0, normal or zero, rounded to fp32. */
static int parse_f32(const char *opt, const char *s, int zero_ok, uint32_t *bits)
{
    char *end;
    errno = 0;
    double d = s && *s ? strtod(s, &end) : 0;
    float fv = (float)d;
    if (!s || !*s || *end || errno || !isfinite(fv) || d < 0 || (!zero_ok && fv == 0.0f)
        || (d != 0 && fv == 0.0f) || (fv != 0.0f && fabsf(fv) < 1.17549435e-38f))
        return badf("%s must be a %s normal fp32 number, got '%s'", opt, zero_ok ? "non-negative" : "positive",
                    s ? s : "");
    *bits = tpu_f32_from_float(fv);
    return 0;
}

int kgen_parse_mesh(const char *v, kgen_mesh *m)
{
    unsigned long a = 0, b = 0;
    const char *x = strchr(v, 'x');
    char *end;
    if (!*v || strspn(v, "0123456789x") != strlen(v))
        return kgen_bad("--mesh must be N (a ring) or RxC (a 2-D torus), got '%s'", v);
    a = strtoul(v, &end, 10);
    if (x) {
        if (end != x || !x[1])
            return kgen_bad("--mesh must be N (a ring) or RxC (a 2-D torus), got '%s'", v);
        b = strtoul(x + 1, &end, 10);
        if (*end)
            return kgen_bad("--mesh must be N (a ring) or RxC (a 2-D torus), got '%s'", v);
        m->rows = a > 64 ? 65 : (unsigned)a, m->cols = b > 64 ? 65 : (unsigned)b, m->torus = 1;
    } else {
        m->rows = 1, m->cols = a > 64 ? 65 : (unsigned)a, m->torus = 0;
    }
    if (m->rows * m->cols < 2 || m->rows * m->cols > 64 || !m->rows || !m->cols)
        return kgen_bad("--mesh '%s': 2 to 64 cores", v);
    return 0;
}

/* WORD: the index of v in words ("a|b|c"), or -1 */
static int word_index(const char *words, const char *v)
{
    int k = 0;
    size_t n = strlen(v);
    for (const char *w = words;; k++) {
        size_t l = strcspn(w, "|");
        if (l == n && strncmp(w, v, n) == 0)
            return k;
        if (!w[l])
            return -1;
        w += l + 1;
    }
}

/* the words as "a, b, c" or (with_or) "a, b or c" */
static void word_list(const char *words, int with_or, char *buf, size_t len)
{
    size_t o = 0;
    for (const char *w = words; *w && o + 1 < len;) {
        size_t l = strcspn(w, "|");
        const char *sep = !w[l] ? "" : with_or && !strchr(w + l + 1, '|') ? " or " : ", ";
        int k = snprintf(buf + o, len - o, "%.*s%s", (int)l, w, sep);
        if (k < 0)
            break;
        o += (size_t)k;
        w += l + (w[l] ? 1 : 0);
    }
}

/* the value v of option o (found at argv[i]; missing: there is none) */
static int take(const kgen_opt *o, const char *v, int missing)
{
    char list[200];
    if (o->kind == KGEN_OPT_WORD)
        word_list(o->words, 0, list, sizeof list);
    if (missing) {
        if (o->kind == KGEN_OPT_WORD)
            return badf("%s needs a value (%s)", o->name, list);
        return badf("%s needs %s", o->name, o->need ? o->need : "a value");
    }
    switch (o->kind) {
    case KGEN_OPT_FLAG:
        *(int *)o->dst = 1;
        break;
    case KGEN_OPT_COUNT:
        if (kgen_parse_num(o->name, v, o->max ? o->max : 1ull << 40, o->zero_ok, o->dst))
            return 2;
        break;
    case KGEN_OPT_FP32:
        if (parse_f32(o->name, v, o->zero_ok, o->dst))
            return 2;
        break;
    case KGEN_OPT_WORD: {
        int k = word_index(o->words, v);
        if (k < 0) {
            word_list(o->words, 1, list, sizeof list);
            return badf("%s must be %s, got '%s'", o->name, list, v);
        }
        *(int *)o->dst = k;
        break;
    }
    case KGEN_OPT_TEXT:
        *(const char **)o->dst = v;
        break;
    case KGEN_OPT_MESH:
        if (kgen_parse_mesh(v, o->dst))
            return 2;
        break;
    }
    if (o->seen)
        *o->seen = 1;
    return 0;
}

int kgen_args_parse(int argc, char **argv, const kgen_opt *opts, size_t n, kgen_args *a)
{
    memset(a, 0, sizeof *a);
    const kgen_opt common[] = {
        { "--quiet", KGEN_OPT_FLAG, .dst = &a->quiet },
        { "--predict", KGEN_OPT_FLAG, .dst = &a->predict },
        { "--timing-only", KGEN_OPT_FLAG, .dst = &a->timing_only },
        { "--config", KGEN_OPT_TEXT, .dst = &a->config },
        { "-o", KGEN_OPT_TEXT, .dst = &a->out, .need = "a file name" },
    };
    const size_t nc = sizeof common / sizeof common[0];
    for (int i = 2; i < argc; i++) {
        const char *arg = argv[i], *v = NULL;
        if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0)
            return -1;
        const kgen_opt *o = NULL;
        int missing = 0;
        for (size_t j = 0; j < nc + n && !o; j++) {
            const kgen_opt *c = j < nc ? &common[j] : &opts[j - nc];
            if (c->kind == KGEN_OPT_FLAG) {
                if (strcmp(arg, c->name) == 0)
                    o = c;
            } else if ((v = tpu_cli_opt_value(argc, argv, &i, c->name, &missing)) || missing) {
                o = c;
            }
        }
        if (!o)
            return kgen_bad("unknown option '%s' (try --help)", arg);
        if (take(o, v, missing))
            return 2;
    }
    if (!a->config)
        return kgen_bad("--config is required: the machine to generate for (tiny, mid, v5e, ...)%s", "");
    return 0;
}

int kgen_args_config(const kgen_args *a, tpu_config *cfg)
{
    if (tpu_cli_load_config(TOOL, a->config, cfg) || tpu_cli_finish_config(TOOL, cfg, NULL, 0))
        return 2;
    return 0;
}

void kgen_usage_exit(FILE *f, const char *what)
{
    fprintf(f, "\nexit status: 0 success, 1 the output cannot be written, 2 a bad command line\n"
               "or %s the machine cannot take.\n", what);
}
