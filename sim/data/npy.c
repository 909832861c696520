/*
 * npy.c - NumPy's .npy format: a magic, a version, a header that is a
 * Python dict literal, then the raw elements.  The format is
 * numpy/lib/format.py's ("NEP 1"):
 *
 *   "\x93NUMPY" major minor     6 + 2 bytes; versions 1.0, 2.0, 3.0
 *   header length              u16 (1.0) or u32 (2.0, 3.0), little-endian
 *   header                     {'descr': '<f4', 'fortran_order': False,
 *                               'shape': (3, 4), } padded with spaces and
 *                               a '\n' so that the data starts at a
 *                               multiple of 64 (16 in old files)
 *   data                       the elements in C order
 *
 * Version 3.0 differs from 2.0 only in allowing UTF-8 in the header; we
 * accept it, and any byte >= 0x80 only inside a string (where no dtype we
 * read has one anyway).
 *
 * The header is parsed by a small recursive-descent reader of exactly the
 * literal numpy writes: strings in single or double quotes without
 * escapes, True and False, and tuples of whole numbers.  Anything else is
 * an error that says what was expected where.
 */
#include "npy.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char MAGIC[6] = { '\x93', 'N', 'U', 'M', 'P', 'Y' };

const char *npy_descr(npy_dtype t)
{
    switch (t) {
    case NPY_F32: return "<f4";
    case NPY_I32: return "<i4";
    case NPY_I8:  return "|i1";
    case NPY_U16: return "<u2";
    }
    return "?";
}

const char *npy_dtype_name(npy_dtype t)
{
    switch (t) {
    case NPY_F32: return "float32";
    case NPY_I32: return "int32";
    case NPY_I8:  return "int8";
    case NPY_U16: return "uint16";
    }
    return "?";
}

unsigned npy_esize(npy_dtype t)
{
    return t == NPY_I8 ? 1 : t == NPY_U16 ? 2 : 4;
}

void npy_shape_text(const uint64_t *shape, unsigned ndim, char *buf, size_t len)
{
    size_t used = 0;
    if (len == 0)
        return;
    buf[0] = 0;
    used += (size_t)snprintf(buf, len, "(");
    for (unsigned i = 0; i < ndim && used < len; i++)
        used += (size_t)snprintf(buf + used, len - used, "%s%llu", i ? ", " : "",
                                 (unsigned long long)shape[i]);
    if (used < len)
        snprintf(buf + used, len - used, "%s)", ndim == 1 ? "," : "");
}

void npy_free(npy_array *a)
{
    free(a->data);
    memset(a, 0, sizeof *a);
}

/* ---- reading -------------------------------------------------------------------- */

typedef struct reader {
    const uint8_t *h;       /* the header text */
    size_t n, i;            /* its length, the cursor */
    size_t base;            /* the header's offset in the file, for messages */
    char *err;
    size_t errlen;
} reader;

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -1;
}

/* "header offset 23 ('x')" style errors: where, and what was expected. */
static int hfail(reader *r, const char *expected)
{
    char got[32];
    if (r->i >= r->n)
        snprintf(got, sizeof got, "the end of the header");
    else if (r->h[r->i] >= 0x20 && r->h[r->i] < 0x7f)
        snprintf(got, sizeof got, "'%c'", r->h[r->i]);
    else
        snprintf(got, sizeof got, "byte 0x%02x", r->h[r->i]);
    return fail(r->err, r->errlen, "malformed header: expected %s at offset %zu, got %s",
                expected, r->base + r->i, got);
}

static void skip_ws(reader *r)
{
    while (r->i < r->n && (r->h[r->i] == ' ' || r->h[r->i] == '\t' || r->h[r->i] == '\n'
                           || r->h[r->i] == '\r'))
        r->i++;
}

/* A quoted string without escapes: its text is h[*s, *s + *len). */
static int read_string(reader *r, size_t *s, size_t *len)
{
    uint8_t q = r->i < r->n ? r->h[r->i] : 0;
    if (q != '\'' && q != '"')
        return hfail(r, "a quoted string");
    size_t start = ++r->i;
    while (r->i < r->n && r->h[r->i] != q) {
        if (r->h[r->i] == '\\')
            return hfail(r, "a string without escapes");
        if (r->h[r->i] == '\n')
            return hfail(r, "the closing quote of the string");
        r->i++;
    }
    if (r->i >= r->n)
        return hfail(r, "the closing quote of the string");
    *s = start;
    *len = r->i - start;
    r->i++;
    return 0;
}

static int is_word(reader *r, const char *w)
{
    size_t n = strlen(w);
    if (r->n - r->i < n || memcmp(r->h + r->i, w, n) != 0)
        return 0;
    uint8_t after = r->i + n < r->n ? r->h[r->i + n] : 0;
    return !((after >= 'A' && after <= 'Z') || (after >= 'a' && after <= 'z')
             || (after >= '0' && after <= '9') || after == '_');
}

/* A whole number (an optional 'L' of Python 2 after it). */
static int read_uint(reader *r, uint64_t *v)
{
    if (r->i >= r->n || r->h[r->i] < '0' || r->h[r->i] > '9')
        return hfail(r, "a whole number");
    uint64_t x = 0;
    while (r->i < r->n && r->h[r->i] >= '0' && r->h[r->i] <= '9') {
        unsigned d = (unsigned)(r->h[r->i] - '0');
        if (x > (UINT64_MAX - d) / 10)
            return fail(r->err, r->errlen, "malformed header: the number at offset %zu is too "
                        "large", r->base + r->i);
        x = x * 10 + d;
        r->i++;
    }
    if (r->i < r->n && r->h[r->i] == 'L')
        r->i++;
    *v = x;
    return 0;
}

/* (d0, d1, ...): "()" a scalar, "(5,)" one dimension. */
static int read_shape(reader *r, npy_array *a)
{
    if (r->i >= r->n || r->h[r->i] != '(') {
        if (r->i < r->n && r->h[r->i] == '[')
            return hfail(r, "a tuple '(' for 'shape' (numpy writes a tuple, not a list)");
        return hfail(r, "a tuple '(' for 'shape'");
    }
    r->i++;
    skip_ws(r);
    unsigned nd = 0;
    int comma = 0;
    while (r->i < r->n && r->h[r->i] != ')') {
        uint64_t v = 0;
        if (nd == NPY_MAX_DIMS)
            return fail(r->err, r->errlen, "the shape has more than %d dimensions (the limit)",
                        NPY_MAX_DIMS);
        if (read_uint(r, &v))
            return -1;
        a->shape[nd++] = v;
        skip_ws(r);
        comma = 0;
        if (r->i < r->n && r->h[r->i] == ',') {
            r->i++;
            comma = 1;
            skip_ws(r);
        } else if (r->i < r->n && r->h[r->i] != ')') {
            return hfail(r, "',' or ')' in 'shape'");
        }
    }
    if (r->i >= r->n)
        return hfail(r, "')' to close 'shape'");
    if (nd == 1 && !comma)
        return fail(r->err, r->errlen, "malformed header: 'shape' (%llu) is a number, not a "
                    "tuple: a 1-D shape is written (%llu,)", (unsigned long long)a->shape[0],
                    (unsigned long long)a->shape[0]);
    r->i++;
    a->ndim = nd;
    return 0;
}

/* The dtype from 'descr'. */
static int parse_descr(reader *r, size_t s, size_t len, npy_array *a)
{
    static const struct { const char *d; npy_dtype t; } known[] = {
        { "<f4", NPY_F32 }, { "<i4", NPY_I32 }, { "|i1", NPY_I8 }, { "<i1", NPY_I8 },
        { "i1", NPY_I8 }, { "<u2", NPY_U16 },
    };
    const char *d = (const char *)r->h + s;
    for (size_t k = 0; k < sizeof known / sizeof known[0]; k++)
        if (strlen(known[k].d) == len && memcmp(known[k].d, d, len) == 0) {
            a->dtype = known[k].t;
            a->esize = npy_esize(a->dtype);
            return 0;
        }
    int shown = len > 40 ? 40 : (int)len;
    if (len >= 1 && (d[len - 1] == 'O' || (len >= 2 && d[len - 2] == 'O')))
        return fail(r->err, r->errlen, "object arrays (dtype '%.*s') are not supported: expected "
                    "'<f4' float32, '<i4' int32, '|i1' int8 or '<u2' bf16 bits", shown, d);
    if (len >= 1 && d[0] == '>')
        return fail(r->err, r->errlen, "big-endian dtype '%.*s' is not supported: expected "
                    "little-endian ('<%.*s'; save with arr.astype('<%.*s'))", shown, d,
                    shown - 1, d + 1, shown - 1, d + 1);
    return fail(r->err, r->errlen, "unsupported dtype '%.*s': expected '<f4' float32, '<i4' "
                "int32, '|i1' int8 or '<u2' bf16 bits", shown, d);
}

/* The header dict: exactly the keys 'descr', 'fortran_order', 'shape'. */
static int parse_dict(reader *r, npy_array *a)
{
    int have[3] = { 0, 0, 0 };
    skip_ws(r);
    if (r->i >= r->n || r->h[r->i] != '{')
        return hfail(r, "'{' (the header is a Python dict)");
    r->i++;
    skip_ws(r);
    while (r->i < r->n && r->h[r->i] != '}') {
        size_t ks, kl;
        if (read_string(r, &ks, &kl))
            return -1;
        const char *key = (const char *)r->h + ks;
        int which = kl == 5 && !memcmp(key, "descr", 5) ? 0
                  : kl == 13 && !memcmp(key, "fortran_order", 13) ? 1
                  : kl == 5 && !memcmp(key, "shape", 5) ? 2 : -1;
        if (which < 0)
            return fail(r->err, r->errlen, "malformed header: unknown key '%.*s' (expected "
                        "'descr', 'fortran_order' and 'shape')", kl > 40 ? 40 : (int)kl, key);
        if (have[which])
            return fail(r->err, r->errlen, "malformed header: key '%.*s' appears twice",
                        (int)kl, key);
        have[which] = 1;
        skip_ws(r);
        if (r->i >= r->n || r->h[r->i] != ':')
            return hfail(r, "':' after the key");
        r->i++;
        skip_ws(r);
        if (which == 0) {
            size_t vs, vl;
            if (r->i < r->n && r->h[r->i] == '[')
                return fail(r->err, r->errlen, "structured arrays (a list as 'descr') are not "
                            "supported: expected '<f4' float32, '<i4' int32, '|i1' int8 or "
                            "'<u2' bf16 bits");
            if (read_string(r, &vs, &vl) || parse_descr(r, vs, vl, a))
                return -1;
        } else if (which == 1) {
            if (is_word(r, "True"))
                return fail(r->err, r->errlen, "Fortran-order arrays are not supported: save "
                            "the array in C order (np.ascontiguousarray)");
            if (!is_word(r, "False"))
                return hfail(r, "True or False for 'fortran_order'");
            r->i += 5;
        } else if (read_shape(r, a)) {
            return -1;
        }
        skip_ws(r);
        if (r->i < r->n && r->h[r->i] == ',') {
            r->i++;
            skip_ws(r);
        } else if (r->i < r->n && r->h[r->i] != '}') {
            return hfail(r, "',' or '}'");
        }
    }
    if (r->i >= r->n)
        return hfail(r, "'}' to close the dict");
    r->i++;
    skip_ws(r);
    if (r->i < r->n)
        return hfail(r, "only spaces and a newline after the dict");
    static const char *const names[3] = { "descr", "fortran_order", "shape" };
    for (int k = 0; k < 3; k++)
        if (!have[k])
            return fail(r->err, r->errlen, "malformed header: no '%s' key (expected 'descr', "
                        "'fortran_order' and 'shape')", names[k]);
    return 0;
}

/* The header from buf[0, len) (at least the header's bytes), the data's
 * length checked against a file of file_len bytes; the data copied when
 * data_too (then buf holds the whole file). */
static int parse_file(const uint8_t *buf, size_t len, uint64_t file_len, npy_array *a,
                      int data_too, char *err, size_t errlen)
{
    memset(a, 0, sizeof *a);
    if (errlen)
        err[0] = 0;
    if (len < 8 || memcmp(buf, MAGIC, 6) != 0)
        return fail(err, errlen, "not a .npy file: it does not start with \\x93NUMPY");
    unsigned major = buf[6], minor = buf[7];
    if (major < 1 || major > 3 || minor != 0)
        return fail(err, errlen, "unsupported .npy format version %u.%u (expected 1.0, 2.0 or "
                    "3.0)", major, minor);
    size_t start = major == 1 ? 10 : 12;
    if (len < start)
        return fail(err, errlen, "truncated: the file ends inside the header length (%zu bytes)",
                    len);
    uint64_t hlen = major == 1 ? (uint64_t)(buf[8] | buf[9] << 8)
                               : (uint64_t)buf[8] | (uint64_t)buf[9] << 8
                                 | (uint64_t)buf[10] << 16 | (uint64_t)buf[11] << 24;
    if (hlen > NPY_MAX_HEADER)
        return fail(err, errlen, "the header of %llu bytes is longer than the limit of %d",
                    (unsigned long long)hlen, NPY_MAX_HEADER);
    if (hlen > len - start)
        return fail(err, errlen, "truncated: the header says it is %llu bytes, the file ends "
                    "after %zu", (unsigned long long)hlen, len - start);
    const uint8_t *h = buf + start;
    int in_str = 0;
    uint8_t quote = 0;
    for (size_t i = 0; i < hlen; i++) {
        uint8_t c = h[i];
        if (c == 0)
            return fail(err, errlen, "a NUL byte in the header at offset %zu", start + i);
        if (in_str && c == quote)
            in_str = 0;
        else if (!in_str && (c == '\'' || c == '"'))
            in_str = 1, quote = c;
        if (c >= 0x80 && (major < 3 || !in_str))
            return fail(err, errlen, "byte 0x%02x in the header at offset %zu: expected ASCII%s",
                        c, start + i, major < 3 ? " (format 1.0 and 2.0 headers are ASCII)" : "");
        if (c < 0x20 && c != '\n' && c != '\t' && c != '\r')
            return fail(err, errlen, "control byte 0x%02x in the header at offset %zu", c,
                        start + i);
    }
    reader r = { h, (size_t)hlen, 0, start, err, errlen };
    if (parse_dict(&r, a))
        return -1;

    uint64_t count = 1;
    for (unsigned d = 0; d < a->ndim; d++) {
        if (a->shape[d] && count > NPY_MAX_DATA / a->esize / a->shape[d]) {
            char s[256];
            npy_shape_text(a->shape, a->ndim, s, sizeof s);
            return fail(err, errlen, "shape %s of %s is too large (more than %llu bytes)", s,
                        npy_dtype_name(a->dtype), (unsigned long long)NPY_MAX_DATA);
        }
        count *= a->shape[d];
    }
    a->count = count;
    uint64_t need = count * a->esize, have = file_len - start - hlen;
    if (have != need) {
        char s[256];
        npy_shape_text(a->shape, a->ndim, s, sizeof s);
        if (have < need)
            return fail(err, errlen, "truncated: shape %s of %s needs %llu bytes of data, the "
                        "file has %llu", s, npy_dtype_name(a->dtype), (unsigned long long)need,
                        (unsigned long long)have);
        return fail(err, errlen, "%llu byte%s after the data: shape %s of %s is %llu bytes",
                    (unsigned long long)(have - need), have - need == 1 ? "" : "s", s,
                    npy_dtype_name(a->dtype), (unsigned long long)need);
    }
    if (data_too) {
        a->data = malloc(need ? (size_t)need : 1);
        if (!a->data)
            return fail(err, errlen, "out of memory (%llu bytes)", (unsigned long long)need);
        memcpy(a->data, buf + start + hlen, (size_t)need);
    }
    return 0;
}

int npy_parse(const uint8_t *buf, size_t len, npy_array *a, int data_too, char *err,
              size_t errlen)
{
    return parse_file(buf, len, len, a, data_too, err, errlen);
}

int npy_read(const char *path, npy_array *a, int data_too, char *err, size_t errlen)
{
    memset(a, 0, sizeof *a);
    FILE *f = fopen(path, "rb");
    if (!f)
        return fail(err, errlen, "cannot open: %s", strerror(errno));
    struct stat st;
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
        fclose(f);
        return fail(err, errlen, "not a regular file");
    }
    if ((uint64_t)st.st_size > NPY_MAX_DATA + NPY_MAX_HEADER + 12) {
        fclose(f);
        return fail(err, errlen, "file too large (%lld bytes)", (long long)st.st_size);
    }
    /* the header alone when the data is not wanted: at most its limit (the
     * data's length is still checked against the file's) */
    size_t len = (size_t)st.st_size;
    size_t want = data_too || len < NPY_MAX_HEADER + 12 ? len : NPY_MAX_HEADER + 12;
    uint8_t *buf = malloc(want ? want : 1);
    if (!buf) {
        fclose(f);
        return fail(err, errlen, "out of memory (%zu bytes)", want);
    }
    size_t got = fread(buf, 1, want, f);
    int rerr = ferror(f);
    fclose(f);
    if (rerr || got != want) {
        free(buf);
        return fail(err, errlen, "read error%s%s", rerr ? ": " : " (the file changed size)",
                    rerr ? strerror(errno) : "");
    }
    int rc = parse_file(buf, want, len, a, data_too, err, errlen);
    free(buf);
    if (rc)
        npy_free(a);
    return rc;
}

/* ---- writing -------------------------------------------------------------------- */

uint8_t *npy_header(const npy_array *a, size_t *len)
{
    char dict[64 + NPY_MAX_DIMS * 24], shape[NPY_MAX_DIMS * 24 + 8];
    npy_shape_text(a->shape, a->ndim, shape, sizeof shape);
    int n = snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': %s, }",
                     npy_descr(a->dtype), shape);
    if (n < 0 || (size_t)n >= sizeof dict)
        return NULL;
    /* pad with spaces and a '\n' so that the data starts at a multiple of 64 */
    size_t pre = 10, body = (size_t)n + 1;
    size_t total = (pre + body + 63) / 64 * 64;
    if (total - pre > 65535) {
        pre = 12;
        total = (pre + body + 63) / 64 * 64;
    }
    uint8_t *h = malloc(total);
    if (!h)
        return NULL;
    memcpy(h, MAGIC, 6);
    size_t hl = total - pre;
    h[6] = pre == 10 ? 1 : 2;
    h[7] = 0;
    h[8] = (uint8_t)hl;
    h[9] = (uint8_t)(hl >> 8);
    if (pre == 12) {
        h[10] = (uint8_t)(hl >> 16);
        h[11] = (uint8_t)(hl >> 24);
    }
    memcpy(h + pre, dict, (size_t)n);
    memset(h + pre + n, ' ', total - pre - (size_t)n - 1);
    h[total - 1] = '\n';
    *len = total;
    return h;
}

int npy_write(const char *path, const npy_array *a, char *err, size_t errlen)
{
    size_t hlen;
    uint8_t *h = npy_header(a, &hlen);
    if (!h)
        return fail(err, errlen, "out of memory");
    size_t plen = strlen(path);
    char *tmp = malloc(plen + 32);
    if (!tmp) {
        free(h);
        return fail(err, errlen, "out of memory");
    }
    snprintf(tmp, plen + 32, "%s.tmp%ld", path, (long)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0666);
    if (fd < 0) {
        fail(err, errlen, "cannot write: %s", strerror(errno));
        free(h);
        free(tmp);
        return -1;
    }
    FILE *f = fdopen(fd, "wb");
    int ok = f != NULL;
    if (!f)
        close(fd);
    uint64_t bytes = a->count * a->esize;
    if (ok)
        ok = fwrite(h, 1, hlen, f) == hlen
             && (bytes == 0 || fwrite(a->data, 1, (size_t)bytes, f) == bytes);
    int werr = errno;
    if (f && fclose(f) != 0 && ok) {
        ok = 0;
        werr = errno;
    }
    if (ok && rename(tmp, path) != 0) {
        ok = 0;
        werr = errno;
    }
    if (!ok) {
        unlink(tmp);
        fail(err, errlen, "cannot write: %s", strerror(werr));
    }
    free(h);
    free(tmp);
    return ok ? 0 : -1;
}
