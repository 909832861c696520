/*
 * obj_parse.c - parse and read an object file (objfile.h): the header, the
 * record framing and order (pass 1), each record (obj_records.c, pass 2)
 * and the checks across records.  It trusts nothing: every length, offset,
 * pad byte and enum is checked before it is used, and every allocation is
 * bounded by a small multiple of the input size (it is fuzzed).
 */
#include "obj_impl.h"

#include "config.h"
#include "fp.h"
#include "isa.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- parsing --------------------------------------------------------------- */

static const char *rec_name(uint32_t type)
{
    static const char *names[] = { "?", "CONFIG", "TEXT", "DATA", "FILL", "SYMBOL", "EXPECT",
                                   "ARRAY" };
    return type < sizeof names / sizeof names[0] ? names[type] : "?";
}

/* Record kinds must appear in this order; DATA and FILL share a rank. */
static int rec_rank(uint32_t type)
{
    switch (type) {
    case TPU_REC_CONFIG: return 0;
    case TPU_REC_TEXT:   return 1;
    case TPU_REC_DATA:
    case TPU_REC_FILL:   return 2;
    case TPU_REC_SYMBOL: return 3;
    case TPU_REC_EXPECT: return 4;
    case TPU_REC_ARRAY:  return 5;
    default:             return -1;
    }
}

int tpu_objp_fail(parser *ps, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ps->err, ps->errlen, fmt, ap);
    va_end(ap);
    return -1;
}

/* An error about the current record: "record 3 at offset 0x58: ...". */
int tpu_objp_rec_fail(parser *ps, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return tpu_objp_fail(ps, "record %u at offset 0x%zx: %s", ps->rec, ps->rec_off, msg);
}

/* Every byte of [off, off+n) must be zero (pad fields). */
int tpu_objp_check_zero(parser *ps, size_t off, size_t n, const char *what)
{
    for (size_t i = 0; i < n; i++)
        if (ps->buf[off + i] != 0)
            return tpu_objp_rec_fail(ps, "%s byte at offset 0x%zx is 0x%02x, not zero", what,
                                     off + i, ps->buf[off + i]);
    return 0;
}

int tpu_objp_check_space(parser *ps, size_t off, int allow_imem)
{
    uint8_t s = ps->buf[off];
    if (s == TPU_SPACE_HBM || s == TPU_SPACE_VMEM || (allow_imem && s == TPU_SPACE_IMEM))
        return 0;
    return tpu_objp_rec_fail(ps, "bad address space %u at offset 0x%zx (%s)", s, off,
                             allow_imem ? "1 imem, 2 hbm or 3 vmem" : "2 hbm or 3 vmem");
}

const char *tpu_objp_space_name(uint8_t s)
{
    return s == TPU_SPACE_HBM ? "hbm" : s == TPU_SPACE_VMEM ? "vmem" : s == TPU_SPACE_IMEM ? "imem" : "none";
}


/* A symbol name must be an assembler identifier that is not reserved. */
int tpu_objp_check_name(parser *ps, size_t off, uint32_t n)
{
    const uint8_t *s = ps->buf + off;
    static const char *reserved[] = { "hbm", "vmem", "bits" };
    if (n == 0)
        return tpu_objp_rec_fail(ps, "symbol name is empty");
    if (n > TPU_OBJ_MAX_NAME)
        return tpu_objp_rec_fail(ps, "symbol name of %u bytes is longer than %u", n,
                                 TPU_OBJ_MAX_NAME);
    for (uint32_t i = 0; i < n; i++) {
        uint8_t ch = s[i];
        int ok = (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') || ch == '_' ||
                 (i > 0 && ((ch >= '0' && ch <= '9') || ch == '.'));
        if (!ok)
            return tpu_objp_rec_fail(ps,
                                     "symbol name has a bad character 0x%02x at offset 0x%zx "
                                     "(names are [A-Za-z_][A-Za-z0-9_.]*)",
                                     ch, off + i);
    }
    int is_reserved = tpu_reg_parse(TPU_K_SREG, (const char *)s, n) >= 0 ||
                      tpu_reg_parse(TPU_K_VREG, (const char *)s, n) >= 0;
    for (size_t k = 0; k < sizeof reserved / sizeof reserved[0]; k++)
        if (strlen(reserved[k]) == n && memcmp(reserved[k], s, n) == 0)
            is_reserved = 1;
    if (is_reserved)
        return tpu_objp_rec_fail(ps, "symbol name '%.*s' is a reserved word", (int)n,
                                 (const char *)s);
    return 0;
}

/* Pass 1: walk the record framing (bounds, known types, order, padding)
 * and count each kind, so that pass 2 can allocate exactly. */
static int scan_records(parser *ps, uint32_t count_in_header, size_t counts[8], size_t *name_bytes,
                        size_t *data_bytes)
{
    size_t off = TPU_OBJ_HEADER_SIZE;
    int last_rank = 0;
    uint32_t last_type = 0;
    unsigned n = 0;
    for (; off < ps->size; n++) {
        ps->rec = n;
        ps->rec_off = off;
        size_t left = ps->size - off;
        if (left < REC_HDR)
            return tpu_objp_rec_fail(ps, "truncated: a record header needs 8 bytes, %zu left",
                                     left);
        uint32_t type = rd32(ps->buf + off), len = rd32(ps->buf + off + 4);
        if (pad8(len) > left - REC_HDR)
            return tpu_objp_rec_fail(
                ps, "payload of %u bytes runs past the end of the file (%zu bytes left)", len,
                left - REC_HDR);
        int rank = rec_rank(type);
        if (rank < 0)
            return tpu_objp_rec_fail(ps, "unknown type %u", type);
        if (rank < last_rank)
            return tpu_objp_rec_fail(ps,
                                     "%s record follows %s records (the order is CONFIG, TEXT, "
                                     "DATA/FILL, SYMBOL, EXPECT, ARRAY)",
                                     rec_name(type), rec_name(last_type));
        if ((type == TPU_REC_CONFIG || type == TPU_REC_TEXT) && counts[type] > 0)
            return tpu_objp_rec_fail(ps, "a second %s record (at most one is allowed)",
                                     rec_name(type));
        if (tpu_objp_check_zero(ps, off + REC_HDR + len, (size_t)(pad8(len) - len), "padding") != 0)
            return -1;
        counts[type]++;
        if (type == TPU_REC_SYMBOL || type == TPU_REC_ARRAY)
            *name_bytes += len;
        if (type == TPU_REC_DATA)
            *data_bytes += len;
        if (type == TPU_REC_EXPECT && counts[type] > TPU_OBJ_MAX_EXPECTS)
            return tpu_objp_rec_fail(ps, "too many EXPECT records (the limit is %u)",
                                     TPU_OBJ_MAX_EXPECTS);
        last_rank = rank;
        last_type = type;
        off += REC_HDR + (size_t)pad8(len);
    }
    if (n != count_in_header)
        return tpu_objp_fail(ps, "record count mismatch: header says %u records, the file has %u",
                             count_in_header, n);
    return 0;
}

typedef struct chunk_ref { const tpu_obj_chunk *c; unsigned rec; size_t off; } chunk_ref;

static int chunk_ref_cmp(const void *a, const void *b)
{
    const tpu_obj_chunk *x = ((const chunk_ref *)a)->c, *y = ((const chunk_ref *)b)->c;
    if (x->space != y->space)
        return x->space < y->space ? -1 : 1;
    if (x->addr != y->addr)
        return x->addr < y->addr ? -1 : 1;
    unsigned rx = ((const chunk_ref *)a)->rec, ry = ((const chunk_ref *)b)->rec;
    return rx < ry ? -1 : rx > ry;
}

static int check_overlaps(parser *ps, chunk_ref *refs, size_t n)
{
    if (n < 2)
        return 0;
    qsort(refs, n, sizeof *refs, chunk_ref_cmp);
    for (size_t i = 1; i < n; i++) {
        const tpu_obj_chunk *a = refs[i - 1].c, *b = refs[i].c;
        if (a->space == b->space && b->addr - a->addr < a->size) {
            const chunk_ref *later = refs[i].rec > refs[i - 1].rec ? &refs[i] : &refs[i - 1];
            const chunk_ref *other = later == &refs[i] ? &refs[i - 1] : &refs[i];
            ps->rec = later->rec;
            ps->rec_off = later->off;
            return tpu_objp_rec_fail(
                ps, "%s bytes 0x%llx..0x%llx overlap those of record %u (0x%llx..0x%llx)",
                tpu_objp_space_name(later->c->space), (unsigned long long)later->c->addr,
                (unsigned long long)(later->c->addr + later->c->size - 1), other->rec,
                (unsigned long long)other->c->addr,
                (unsigned long long)(other->c->addr + other->c->size - 1));
        }
    }
    return 0;
}

typedef struct name_ref { const char *name; unsigned rec; size_t off; const tpu_obj_symbol *sym; } name_ref;

static int name_ref_cmp(const void *a, const void *b)
{
    const name_ref *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    return c ? c : (x->rec < y->rec ? -1 : x->rec > y->rec);
}

static int check_duplicates(parser *ps, name_ref *refs, size_t n)
{
    if (n < 2)
        return 0;
    qsort(refs, n, sizeof *refs, name_ref_cmp);
    for (size_t i = 1; i < n; i++)
        if (strcmp(refs[i - 1].name, refs[i].name) == 0) {
            ps->rec = refs[i].rec;
            ps->rec_off = refs[i].off;
            return tpu_objp_rec_fail(ps, "duplicate symbol '%s' (also record %u)", refs[i].name,
                                     refs[i - 1].rec);
        }
    return 0;
}

/* Each array names a data label (syms: the symbols sorted by name), once,
 * and ends inside the 64-bit address space from it. */
static int check_arrays(parser *ps, const tpu_object *o, name_ref *arefs, const name_ref *syms,
                        size_t nsyms)
{
    for (size_t i = 0; i < o->narrays; i++) {
        const tpu_obj_array *a = &o->arrays[i];
        size_t lo = 0, hi = nsyms;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (strcmp(syms[mid].name, a->name) < 0)
                lo = mid + 1;
            else
                hi = mid;
        }
        ps->rec = arefs[i].rec;
        ps->rec_off = arefs[i].off;
        if (lo == nsyms || strcmp(syms[lo].name, a->name) != 0)
            return tpu_objp_rec_fail(ps, "array '%s' names no symbol of the object", a->name);
        const tpu_obj_symbol *s = syms[lo].sym;
        if (s->space != TPU_SPACE_HBM && s->space != TPU_SPACE_VMEM)
            return tpu_objp_rec_fail(ps,
                                     "array '%s' names a text label (an array is at an hbm or vmem "
                                     "label)",
                                     a->name);
        if (tpu_array_extent(a) > UINT64_MAX - s->value)
            return tpu_objp_rec_fail(ps,
                                     "array '%s' at %s 0x%llx runs past the end of the 64-bit "
                                     "address space",
                                     a->name, tpu_objp_space_name(s->space),
                                     (unsigned long long)s->value);
    }
    if (o->narrays < 2)
        return 0;
    qsort(arefs, o->narrays, sizeof *arefs, name_ref_cmp);
    for (size_t i = 1; i < o->narrays; i++)
        if (strcmp(arefs[i - 1].name, arefs[i].name) == 0) {
            ps->rec = arefs[i].rec;
            ps->rec_off = arefs[i].off;
            return tpu_objp_rec_fail(ps, "a second array '%s' (also record %u)", arefs[i].name,
                                     arefs[i - 1].rec);
        }
    return 0;
}

/* Header checks, then the two passes.  On failure *o is left empty. */
static int parse_all(parser *ps, const uint8_t *buf, size_t len, tpu_object *o)
{
    static const uint8_t magic[8] = TPU_OBJ_MAGIC;
    size_t m = len < 8 ? len : 8;
    if (memcmp(buf, magic, m) != 0)
        return tpu_objp_fail(ps, "bad magic (not a tpu object file)");
    if (len < TPU_OBJ_HEADER_SIZE)
        return tpu_objp_fail(ps, "truncated: file has %zu bytes, the header alone needs %u", len,
                             TPU_OBJ_HEADER_SIZE);
    uint16_t version = rd16(buf + 8), hsize = rd16(buf + 10);
    uint32_t count = rd32(buf + 12), fsize = rd32(buf + 16), crc = rd32(buf + 20);
    if (version != TPU_OBJ_VERSION)
        return tpu_objp_fail(ps,
                             "unsupported version %u at offset 0x8 (this loader reads version %u)",
                             version, TPU_OBJ_VERSION);
    if (hsize != TPU_OBJ_HEADER_SIZE)
        return tpu_objp_fail(ps, "bad header size %u at offset 0xa (expected %u)", hsize,
                             TPU_OBJ_HEADER_SIZE);
    if (rd64(buf + 24) != 0)
        return tpu_objp_fail(ps, "reserved header field at offset 0x18 is not zero");
    if (fsize > TPU_OBJ_MAX_SIZE)
        return tpu_objp_fail(ps, "file too large: header says %u bytes, the limit is %u", fsize,
                             (unsigned)TPU_OBJ_MAX_SIZE);
    if (fsize < TPU_OBJ_HEADER_SIZE || fsize % 8 != 0)
        return tpu_objp_fail(ps, "bad file size %u at offset 0x10 (a multiple of 8, at least %u)",
                             fsize, TPU_OBJ_HEADER_SIZE);
    if (fsize > len)
        return tpu_objp_fail(ps, "truncated: header says %u bytes, file has %zu", fsize, len);
    if (fsize < len)
        return tpu_objp_fail(ps, "trailing garbage: header says %u bytes, file has %zu", fsize,
                             len);
    uint32_t actual = tpu_crc32(buf + TPU_OBJ_HEADER_SIZE, fsize - TPU_OBJ_HEADER_SIZE);
    if (actual != crc)
        return tpu_objp_fail(
            ps, "checksum mismatch (file corrupt): header says 0x%08x, contents give 0x%08x", crc,
            actual);

    ps->size = fsize;
    size_t counts[8] = { 0 }, name_bytes = 0, data_bytes = 0;
    if (scan_records(ps, count, counts, &name_bytes, &data_bytes) != 0)
        return -1;

    size_t nchunks = counts[TPU_REC_DATA] + counts[TPU_REC_FILL], nsyms = counts[TPU_REC_SYMBOL];
    size_t nexp = counts[TPU_REC_EXPECT], narr = counts[TPU_REC_ARRAY];
    uint8_t *data_store = data_bytes ? tpu_obj_own_block(o, data_bytes) : NULL;
    char *name_store = nsyms || narr ? (char *)tpu_obj_own_block(o, name_bytes) : NULL;
    chunk_ref *crefs = nchunks ? malloc(nchunks * sizeof *crefs) : NULL;
    name_ref *nrefs = nsyms ? malloc(nsyms * sizeof *nrefs) : NULL;
    name_ref *arefs = narr ? malloc(narr * sizeof *arefs) : NULL;
    if (nchunks)
        o->chunks = malloc(tpu_obj_cap_for(nchunks) * sizeof *o->chunks);
    if (nsyms)
        o->syms = malloc(tpu_obj_cap_for(nsyms) * sizeof *o->syms);
    if (nexp)
        o->expects = malloc(tpu_obj_cap_for(nexp) * sizeof *o->expects);
    if (narr)
        o->arrays = malloc(tpu_obj_cap_for(narr) * sizeof *o->arrays);
    int rc = -1;
    if ((data_bytes && !data_store) || (nsyms && (!name_store || !nrefs || !o->syms)) ||
        (nchunks && (!crefs || !o->chunks)) || (nexp && !o->expects) ||
        (narr && (!name_store || !arefs || !o->arrays))) {
        tpu_objp_fail(ps, "out of memory");
        goto out;
    }

    size_t off = TPU_OBJ_HEADER_SIZE;
    for (unsigned n = 0; off < ps->size; n++) {
        uint32_t type = rd32(buf + off), plen = rd32(buf + off + 4);
        const uint8_t *p = buf + off + REC_HDR;
        ps->rec = n;
        ps->rec_off = off;
        int r = 0;
        switch (type) {
        case TPU_REC_CONFIG: r = tpu_objp_config(ps, p, plen, o); break;
        case TPU_REC_TEXT:   r = tpu_objp_text(ps, p, plen, o); break;
        case TPU_REC_DATA:
        case TPU_REC_FILL:
            crefs[o->nchunks] = (chunk_ref){ &o->chunks[o->nchunks], n, off };
            r = type == TPU_REC_DATA ? tpu_objp_data(ps, p, plen, o, &data_store)
                                     : tpu_objp_fill(ps, p, plen, o);
            break;
        case TPU_REC_SYMBOL:
            r = tpu_objp_symbol(ps, p, plen, o, &name_store);
            if (r == 0)
                nrefs[o->nsyms - 1] = (name_ref){ o->syms[o->nsyms - 1].name, n, off, NULL };
            break;
        case TPU_REC_EXPECT: r = tpu_objp_expect(ps, p, plen, o); break;
        case TPU_REC_ARRAY:
            r = tpu_objp_array(ps, p, plen, o, &name_store);
            if (r == 0)
                arefs[o->narrays - 1] = (name_ref){ o->arrays[o->narrays - 1].name, n, off, NULL };
            break;
        }
        if (r != 0)
            goto out;
        off += REC_HDR + (size_t)pad8(plen);
    }
    for (size_t i = 0; i < o->nsyms; i++)
        nrefs[i].sym = &o->syms[i];
    if (check_overlaps(ps, crefs, o->nchunks) != 0 || check_duplicates(ps, nrefs, o->nsyms) != 0
        || check_arrays(ps, o, arefs, nrefs, o->nsyms) != 0)
        goto out;
    rc = 0;
out:
    free(crefs);
    free(nrefs);
    free(arefs);
    return rc;
}

int tpu_obj_parse(const uint8_t *buf, size_t len, tpu_object *o, char *err, size_t errlen)
{
    parser ps = { .buf = buf, .size = len, .err = err, .errlen = errlen };
    static const uint8_t empty[1];
    if (errlen)
        err[0] = 0;
    tpu_obj_init(o);
    if (parse_all(&ps, buf ? buf : empty, buf ? len : 0, o) != 0) {
        tpu_obj_free(o);
        return -1;
    }
    return 0;
}

/* Read the whole file (at most TPU_OBJ_MAX_SIZE bytes) and parse it. */
int tpu_obj_read(const char *path, tpu_object *o, char *err, size_t errlen)
{
    tpu_obj_init(o);
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    size_t cap = 1 << 16, len = 0;
    uint8_t *buf = NULL;
    int rc = -1;
    struct stat st;                      /* refuse a huge regular file before reading it */
    if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) && st.st_size > (off_t)TPU_OBJ_MAX_SIZE) {
        snprintf(err, errlen, "%s: file too large (%lld bytes, the limit is %u)", path,
                 (long long)st.st_size, (unsigned)TPU_OBJ_MAX_SIZE);
        goto out;
    }
    buf = malloc(cap);
    if (!buf) {
        snprintf(err, errlen, "%s: out of memory", path);
        goto out;
    }
    for (;;) {
        if (len == cap) {                /* grow, up to one byte past the limit */
            size_t ncap = cap * 2 > (size_t)TPU_OBJ_MAX_SIZE + 1 ? (size_t)TPU_OBJ_MAX_SIZE + 1
                                                                 : cap * 2;
            if (ncap == cap)
                break;
            uint8_t *nb = realloc(buf, ncap);
            if (!nb) {
                snprintf(err, errlen, "%s: out of memory", path);
                goto out;
            }
            buf = nb;
            cap = ncap;
        }
        size_t got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (got == 0) {
            if (ferror(f)) {
                snprintf(err, errlen, "%s: %s", path, strerror(errno));
                goto out;
            }
            break;
        }
    }
    if (len > TPU_OBJ_MAX_SIZE) {
        snprintf(err, errlen, "%s: file too large (more than the limit of %u bytes)", path,
                 (unsigned)TPU_OBJ_MAX_SIZE);
        goto out;
    }
    char msg[512];
    if (tpu_obj_parse(buf, len, o, msg, sizeof msg) != 0) {
        snprintf(err, errlen, "%s: %s", path, msg);
        goto out;
    }
    rc = 0;
out:
    free(buf);
    fclose(f);
    return rc;
}
