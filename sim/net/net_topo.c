/*
 * net_topo.c - read a network in SCALE-Sim's topology formats (net.h).
 *
 * conv:  Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter Width,
 *        Channels, Num Filter, Strides,
 * GEMM:  Layer, M, N, K
 *
 * As SCALE-Sim reads them (scalesim/topology_utils.py): the first line is
 * the header (it is never a layer), each row ends with an optional comma,
 * the IFMAP is the padded input (OFMAP = (IFMAP - Filter) / Stride + 1, no
 * padding added).  Ours besides: empty lines, lines of commas only and
 * lines starting with '#' are skipped; a conv file may have a 9th and 10th
 * column named in its header, `Groups` (grouped and depthwise convolution:
 * Channels and Num Filter are the layer's totals, each group convolves
 * Channels / Groups of them into Num Filter / Groups) and `Stride width`
 * (SCALE-Sim's own 9th column: Strides is then the height's).  Every
 * error names FILE:LINE:COL and the column.
 */
#include "net.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FIELDS 16
#define MAX_FILE (16u << 20)

typedef struct field {
    const char *s;               /* trimmed, NUL-terminated (in the line's copy) */
    unsigned col;                /* 1-based character column of its first byte */
} field;

/* Split a line (modified in place) at commas; trim each field.  Trailing
 * empty fields (SCALE-Sim's final comma, a spreadsheet's empty cells) are
 * dropped.  Returns the number of fields, or MAX_FIELDS + 1 when there are
 * too many. */
static unsigned split(char *line, field *f)
{
    unsigned n = 0;
    char *p = line;
    for (;;) {
        char *start = p;
        while (*p && *p != ',')
            p++;
        char end = *p;
        *p = 0;
        char *s = start;
        while (*s == ' ' || *s == '\t')
            s++;
        char *e = s + strlen(s);
        while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
            *--e = 0;
        if (n == MAX_FIELDS)
            return MAX_FIELDS + 1;
        f[n].s = s;
        f[n].col = (unsigned)(s - line) + 1;
        n++;
        if (!end)
            break;
        p++;
    }
    while (n > 0 && !f[n - 1].s[0])
        n--;
    return n;
}

/* The column names of each format, as SCALE-Sim writes them. */
static const char *const conv_cols[] = { "Layer name", "IFMAP Height", "IFMAP Width",
                                         "Filter Height", "Filter Width", "Channels",
                                         "Num Filter", "Strides" };
static const char *const gemm_cols[] = { "Layer", "M", "N", "K" };

enum { OPT_NONE, OPT_GROUPS, OPT_STRIDE_W };

typedef struct reader {
    const char *path;
    char *err;
    size_t errlen;
    unsigned line;
} reader;

static int fail(reader *r, unsigned col, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(reader *r, unsigned col, const char *fmt, ...)
{
    int n = col ? snprintf(r->err, r->errlen, "%s:%u:%u: error: ", r->path, r->line, col)
                : snprintf(r->err, r->errlen, "%s:%u: error: ", r->path, r->line);
    if (n < 0 || (size_t)n >= r->errlen)
        return -1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->err + n, r->errlen - (size_t)n, fmt, ap);
    va_end(ap);
    return -1;
}

/* A size: 1 .. NET_MAX_SIZE, decimal digits only. */
static int size_of(reader *r, const field *f, unsigned idx, const char *colname, uint64_t *out)
{
    const char *s = f->s;
    if (!s[0])
        return fail(r, f->col, "column %u (%s) is empty: expected a positive whole number", idx,
                    colname);
    if (s[0] == '-' && s[1] && isdigit((unsigned char)s[1]))
        return fail(r, f->col, "column %u (%s) must be positive, got '%s'", idx, colname, s);
    for (const char *c = s; *c; c++)
        if (!isdigit((unsigned char)*c))
            return fail(r, f->col, "column %u (%s): expected a positive whole number, got '%s'",
                        idx, colname, s);
    errno = 0;
    unsigned long long v = strtoull(s, NULL, 10);
    if (errno || v > NET_MAX_SIZE)
        return fail(r, f->col, "column %u (%s) is too large: '%s' (at most %llu)", idx, colname,
                    s, (unsigned long long)NET_MAX_SIZE);
    if (v == 0)
        return fail(r, f->col, "column %u (%s) must be positive, got '%s'", idx, colname, s);
    *out = v;
    return 0;
}

/* s contains w, ignoring case (w lower case) */
static int contains(const char *s, const char *w)
{
    size_t n = strlen(w);
    for (; *s; s++) {
        size_t i = 0;
        while (i < n && s[i] && tolower((unsigned char)s[i]) == w[i])
            i++;
        if (i == n)
            return 1;
    }
    return 0;
}

static int looks_numeric(const char *s)
{
    if (*s == '-' || *s == '+')
        s++;
    if (!*s)
        return 0;
    for (; *s; s++)
        if (!isdigit((unsigned char)*s) && *s != '.')
            return 0;
    return 1;
}

/* The header: the format and the optional columns. */
static int read_header(reader *r, field *f, unsigned n, net_topo *t, int opt[2], unsigned *ncols)
{
    if (n >= 2 && looks_numeric(f[1].s))
        return fail(r, f[1].col, "the first line must be the header (SCALE-Sim never reads it "
                    "as a layer), but column 2 is the number '%s': add a header line, e.g. "
                    "'Layer, M, N, K,' or 'Layer name, IFMAP Height, IFMAP Width, Filter "
                    "Height, Filter Width, Channels, Num Filter, Strides,'", f[1].s);
    opt[0] = opt[1] = OPT_NONE;
    if (n == 4) {
        t->format = NET_GEMM;
    } else if (n >= 8 && n <= 10) {
        t->format = NET_CONV;
        for (unsigned i = 8; i < n; i++) {
            if (contains(f[i].s, "group"))
                opt[i - 8] = OPT_GROUPS;
            else if (contains(f[i].s, "stride"))
                opt[i - 8] = OPT_STRIDE_W;
            else
                return fail(r, f[i].col, "column %u of the header is '%s': expected 'Groups' "
                            "or 'Stride width' (the optional columns after Strides)", i + 1,
                            f[i].s);
            if (i == 9 && opt[1] == opt[0])
                return fail(r, f[i].col, "column 10 of the header repeats column 9 ('%s')",
                            f[i].s);
        }
        t->has_groups = opt[0] == OPT_GROUPS || opt[1] == OPT_GROUPS;
        t->has_stride_w = opt[0] == OPT_STRIDE_W || opt[1] == OPT_STRIDE_W;
    } else {
        return fail(r, 0, "the header has %u column%s: expected 4 (GEMM: Layer, M, N, K) or 8 "
                    "(conv: Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter Width, "
                    "Channels, Num Filter, Strides), with at most 'Groups' and 'Stride width' "
                    "after them", n, n == 1 ? "" : "s");
    }
    *ncols = n;
    return 0;
}

static const char *col_name(const net_topo *t, const int opt[2], unsigned i)
{
    if (t->format == NET_GEMM)
        return gemm_cols[i];
    if (i < 8)
        return conv_cols[i];
    return opt[i - 8] == OPT_GROUPS ? "Groups" : "Stride width";
}

static int read_row(reader *r, field *f, unsigned n, net_topo *t, const int opt[2],
                    unsigned ncols, net_layer *l)
{
    memset(l, 0, sizeof *l);
    l->line = r->line;
    if (n < ncols)
        return fail(r, 0, "missing column %u (%s): the header (line 1) has %u columns, this "
                    "row has %u", n + 1, col_name(t, opt, n), ncols, n);
    if (n > ncols)
        return fail(r, n <= MAX_FIELDS ? f[ncols].col : 0, "extra column %u ('%s'): the header "
                    "(line 1) has %u columns: %s", ncols + 1,
                    n <= MAX_FIELDS ? f[ncols].s : "...", ncols,
                    t->format == NET_GEMM ? "Layer, M, N, K" : "Layer name, IFMAP Height, IFMAP "
                    "Width, Filter Height, Filter Width, Channels, Num Filter, Strides");
    if (!f[0].s[0])
        return fail(r, f[0].col, "column 1 (%s) is empty: every layer needs a name",
                    col_name(t, opt, 0));
    snprintf(l->name, sizeof l->name, "%s", f[0].s);
    uint64_t v[10];
    for (unsigned i = 1; i < ncols; i++)
        if (size_of(r, &f[i], i + 1, col_name(t, opt, i), &v[i]))
            return -1;
    if (t->format == NET_GEMM) {
        l->m = v[1];
        l->n = v[2];
        l->k = v[3];
        l->g = 1;
        return 0;
    }
    l->conv = 1;
    l->ih = v[1];
    l->iw = v[2];
    l->fh = v[3];
    l->fw = v[4];
    l->c = v[5];
    l->f = v[6];
    l->sh = l->sw = v[7];
    l->groups = 1;
    for (unsigned i = 8; i < ncols; i++) {
        if (opt[i - 8] == OPT_GROUPS)
            l->groups = v[i];
        else
            l->sw = v[i];
    }
    if (l->fh > l->ih)
        return fail(r, f[3].col, "column 4 (Filter Height) %llu is larger than column 2 (IFMAP "
                    "Height) %llu: the IFMAP is the padded input (SCALE-Sim adds no padding)",
                    (unsigned long long)l->fh, (unsigned long long)l->ih);
    if (l->fw > l->iw)
        return fail(r, f[4].col, "column 5 (Filter Width) %llu is larger than column 3 (IFMAP "
                    "Width) %llu: the IFMAP is the padded input (SCALE-Sim adds no padding)",
                    (unsigned long long)l->fw, (unsigned long long)l->iw);
    if (l->groups > 1) {
        unsigned gc = opt[0] == OPT_GROUPS ? 8 : 9;
        if (l->c % l->groups || l->f % l->groups)
            return fail(r, f[gc].col, "column %u (Groups) %llu must divide Channels (%llu) and "
                        "Num Filter (%llu): each group convolves Channels / Groups channels into "
                        "Num Filter / Groups", gc + 1, (unsigned long long)l->groups,
                        (unsigned long long)l->c, (unsigned long long)l->f);
    }
    l->oh = (l->ih - l->fh) / l->sh + 1;
    l->ow = (l->iw - l->fw) / l->sw + 1;
    return 0;
}

int net_topo_read(const char *path, net_topo *t, char *err, size_t errlen)
{
    memset(t, 0, sizeof *t);
    t->path = path;
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    snprintf(t->name, sizeof t->name, "%s", base);
    char *dot = strrchr(t->name, '.');
    if (dot && dot != t->name)
        *dot = 0;

    reader rd = { path, err, errlen, 0 }, *r = &rd;
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        snprintf(err, errlen, "%s: error: cannot read the topology: %s", path, strerror(errno));
        return -1;
    }
    char *text = malloc(MAX_FILE + 1);
    size_t len = text ? fread(text, 1, MAX_FILE + 1, fp) : 0;
    int rerr = ferror(fp);
    fclose(fp);
    if (!text || rerr) {
        free(text);
        snprintf(err, errlen, "%s: error: cannot read the topology", path);
        return -1;
    }
    if (len > MAX_FILE) {
        free(text);
        snprintf(err, errlen, "%s: error: the topology is larger than %u bytes", path, MAX_FILE);
        return -1;
    }
    text[len] = 0;
    if (memchr(text, 0, len)) {
        free(text);
        snprintf(err, errlen, "%s: error: the topology is not a text file (a NUL byte)", path);
        return -1;
    }

    int have_header = 0, opt[2] = { OPT_NONE, OPT_NONE }, rc = 0;
    unsigned ncols = 0;
    size_t cap = 0;
    char *p = text;
    while (*p && !rc) {
        char *eol = strchr(p, '\n');
        char *next = eol ? eol + 1 : p + strlen(p);
        if (eol)
            *eol = 0;
        size_t ll = strlen(p);
        if (ll && p[ll - 1] == '\r')
            p[--ll] = 0;
        r->line++;
        /* a UTF-8 byte order mark on the first line (spreadsheets write one) */
        if (r->line == 1 && (unsigned char)p[0] == 0xef && (unsigned char)p[1] == 0xbb
            && (unsigned char)p[2] == 0xbf)
            p += 3;
        const char *q = p;
        while (*q == ' ' || *q == '\t')
            q++;
        if (*q == '#') {
            p = next;
            continue;
        }
        field f[MAX_FIELDS + 1];
        unsigned n = split(p, f);
        if (n == 0) {
            p = next;
            continue;
        }
        if (n > MAX_FIELDS) {
            rc = fail(r, 0, "more than %u columns", MAX_FIELDS);
            break;
        }
        if (!have_header) {
            rc = read_header(r, f, n, t, opt, &ncols);
            have_header = 1;
        } else {
            if (t->n == cap) {
                size_t nc = cap ? 2 * cap : 64;
                net_layer *nl = realloc(t->layer, nc * sizeof *nl);
                if (!nl) {
                    rc = fail(r, 0, "out of memory");
                    break;
                }
                t->layer = nl;
                cap = nc;
            }
            rc = read_row(r, f, n, t, opt, ncols, &t->layer[t->n]);
            if (!rc)
                t->n++;
        }
        p = next;
    }
    free(text);
    if (!rc && !have_header) {
        snprintf(err, errlen, "%s: error: the topology is empty: expected a header line and "
                 "one line per layer", path);
        rc = -1;
    } else if (!rc && t->n == 0) {
        snprintf(err, errlen, "%s: error: the topology has a header but no layers", path);
        rc = -1;
    }
    if (rc)
        net_topo_free(t);
    return rc;
}

int net_topo_shapes(net_topo *t, uint64_t batch, char *err, size_t errlen)
{
    if (t->format == NET_GEMM && batch != 1) {
        snprintf(err, errlen, "--batch %llu: %s is a GEMM topology (Layer, M, N, K): its M is "
                 "given as it is; write the batch into M", (unsigned long long)batch, t->path);
        return -1;
    }
    for (size_t i = 0; i < t->n; i++) {
        net_layer *l = &t->layer[i];
        l->batch = batch;
        if (!l->conv)
            continue;
        l->g = l->groups;
        l->m = l->oh * l->ow * batch;
        l->k = l->fh * l->fw * (l->c / l->groups);
        l->n = l->f / l->groups;
    }
    return 0;
}

void net_topo_free(net_topo *t)
{
    free(t->layer);
    t->layer = NULL;
    t->n = 0;
}
