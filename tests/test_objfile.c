/*
 * test_objfile.c - the object file: build, serialise, parse, read, and a
 * catalogue of corrupt files that must each be rejected with the right
 * message.  Random-fill values are pinned against numbers computed by an
 * independent implementation of the generator in docs/object-format.md.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "objfile.h"

/* ---- helpers ----------------------------------------------------------- */

static void put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}
static void put64(uint8_t *p, uint64_t v)
{
    put32(p, (uint32_t)v);
    put32(p + 4, (uint32_t)(v >> 32));
}
static uint32_t get32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Recompute the header's size, count and CRC fields after a hand edit. */
static void reseal(uint8_t *buf, size_t len, uint32_t nrec)
{
    put32(buf + 12, nrec);
    put32(buf + 16, (uint32_t)len);
    put32(buf + 20, tpu_crc32(buf + 32, len - 32));
}

/* A hand-written file: header then records appended with raw_rec(). */
typedef struct raw {
    uint8_t buf[4096];
    size_t len;
    uint32_t nrec;
} raw;

static void raw_init(raw *r)
{
    memset(r, 0, sizeof *r);
    memcpy(r->buf, "TPUOBJ\0\0", 8);
    r->buf[8] = 1;
    r->buf[10] = 32;
    r->len = 32;
}

/* Append a record; returns the offset of its payload. */
static size_t raw_rec(raw *r, uint32_t type, const void *payload, uint32_t len)
{
    size_t at = r->len;
    put32(r->buf + at, type);
    put32(r->buf + at + 4, len);
    if (len)
        memcpy(r->buf + at + 8, payload, len);
    r->len = at + 8 + ((len + 7u) & ~7u);
    r->nrec++;
    return at + 8;
}

static void raw_seal(raw *r) { reseal(r->buf, r->len, r->nrec); }

static size_t raw_symbol(raw *r, uint8_t space, uint64_t value, const char *name)
{
    uint8_t p[16 + 300] = { 0 };
    size_t n = strlen(name);
    p[0] = space;
    put32(p + 4, (uint32_t)n);
    put64(p + 8, value);
    memcpy(p + 16, name, n);
    return raw_rec(r, TPU_REC_SYMBOL, p, (uint32_t)(16 + n));
}

static size_t raw_fill(raw *r, uint8_t space, uint8_t kind, uint64_t addr, uint64_t size,
                       uint64_t seed, uint32_t lo, uint32_t hi)
{
    uint8_t p[40] = { 0 };
    p[0] = space;
    p[1] = kind;
    put64(p + 8, addr);
    put64(p + 16, size);
    put64(p + 24, seed);
    put32(p + 32, lo);
    put32(p + 36, hi);
    return raw_rec(r, TPU_REC_FILL, p, 40);
}

static size_t raw_data(raw *r, uint8_t space, uint64_t addr, const char *bytes, uint32_t n)
{
    uint8_t p[16 + 64] = { 0 };
    p[0] = space;
    put64(p + 8, addr);
    memcpy(p + 16, bytes, n);
    return raw_rec(r, TPU_REC_DATA, p, 16 + n);
}

/* Parse must fail and the message must contain `want`. */
static void expect_reject(const uint8_t *buf, size_t len, const char *want)
{
    tpu_object o;
    char err[512];
    int rc = tpu_obj_parse(buf, len, &o, err, sizeof err);
    if (rc == 0 || strstr(err, want) == NULL) {
        print_error("parse rc=%d err=\"%s\", wanted \"%s\"\n", rc, rc ? err : "", want);
        fail();
    }
    assert_int_equal(o.nchunks + o.nsyms + o.ntext + o.nexpects, 0);  /* left empty */
    tpu_obj_free(&o);
}

static void expect_raw_reject(raw *r, const char *want)
{
    raw_seal(r);
    expect_reject(r->buf, r->len, want);
}

static void expect_raw_ok(raw *r)
{
    tpu_object o;
    char err[512];
    raw_seal(r);
    if (tpu_obj_parse(r->buf, r->len, &o, err, sizeof err) != 0) {
        print_error("unexpected rejection: %s\n", err);
        fail();
    }
    tpu_obj_free(&o);
}

/* An object that uses every record kind and field. */
static void build_full(tpu_object *o)
{
    static const uint8_t bytes[11] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11 };
    tpu_obj_init(o);
    o->config = (tpu_obj_config){ 8, 2, 8, 16 };
    assert_int_equal(tpu_obj_add_text(o, 0x0000000000000001ull), 0);
    assert_int_equal(tpu_obj_add_text(o, 0xffffffff00000000ull | 0x2010), 0);
    assert_int_equal(tpu_obj_add_text(o, 0x0000000000000002ull), 0);
    assert_int_equal(tpu_obj_add_data(o, TPU_SPACE_HBM, 0x1000, bytes, sizeof bytes), 0);
    assert_int_equal(tpu_obj_add_fill(o, TPU_SPACE_VMEM, 0x0, TPU_FILL_ZERO, 4096, 0, 0, 0), 0);
    assert_int_equal(tpu_obj_add_fill(o, TPU_SPACE_HBM, 0x2000, TPU_FILL_RANDOM_BF16, 64, 7,
                                      0xbf800000u, 0x3f800000u), 0);
    assert_int_equal(tpu_obj_add_fill(o, TPU_SPACE_VMEM, 1ull << 40, TPU_FILL_RANDOM_F32,
                                      1ull << 32, 99, 0x80000000u, 0x41200000u), 0);
    assert_int_equal(tpu_obj_add_symbol(o, TPU_SPACE_VMEM, 0, "buf"), 0);
    assert_int_equal(tpu_obj_add_symbol(o, TPU_SPACE_IMEM, 3, "end"), 0);
    assert_int_equal(tpu_obj_add_symbol(o, TPU_SPACE_HBM, 0x1000, "x.data"), 0);
    assert_int_equal(tpu_obj_add_symbol(o, TPU_SPACE_IMEM, 0, "start"), 0);
    assert_int_equal(tpu_obj_add_symbol(o, TPU_SPACE_IMEM, 0, "_alias"), 0);
    tpu_obj_expect e = { .op = TPU_EXPECT_MATMUL, .core = -1, .nops = 6 };
    e.ops[0] = (tpu_obj_expect_operand){ TPU_SPACE_VMEM, 0x100 };
    e.ops[1] = (tpu_obj_expect_operand){ TPU_SPACE_HBM, 0x2000 };
    e.ops[2] = (tpu_obj_expect_operand){ TPU_SPACE_HBM, 0x1000 };
    e.ops[3] = (tpu_obj_expect_operand){ 0, 8 };
    e.ops[4] = (tpu_obj_expect_operand){ 0, 8 };
    e.ops[5] = (tpu_obj_expect_operand){ 0, 16 };
    assert_int_equal(tpu_obj_add_expect(o, &e), 0);
    tpu_obj_expect f = { .op = TPU_EXPECT_F32, .core = 3, .nops = 4 };
    f.ops[0] = (tpu_obj_expect_operand){ TPU_SPACE_VMEM, 0x40 };
    f.ops[1] = (tpu_obj_expect_operand){ 0, 0x3f800000 };
    f.ops[2] = (tpu_obj_expect_operand){ 0, 0x80000000 };
    f.ops[3] = (tpu_obj_expect_operand){ 0, 0x7fc00000 };
    assert_int_equal(tpu_obj_add_expect(o, &f), 0);
    tpu_obj_expect g = { .op = TPU_EXPECT_COPY, .core = 0, .nops = 3 };
    g.ops[0] = (tpu_obj_expect_operand){ TPU_SPACE_HBM, 0x8000 };
    g.ops[1] = (tpu_obj_expect_operand){ TPU_SPACE_VMEM, 0 };
    g.ops[2] = (tpu_obj_expect_operand){ 0, 4096 };
    assert_int_equal(tpu_obj_add_expect(o, &g), 0);
}

static void serialize_ok(const tpu_object *o, uint8_t **buf, size_t *len)
{
    assert_int_equal(tpu_obj_serialize(o, buf, len), 0);
    assert_non_null(*buf);
}

/* ---- round trips ------------------------------------------------------- */

static void test_roundtrip_every_record(void **state)
{
    (void)state;
    tpu_object o, p;
    uint8_t *buf, *again;
    size_t len, len2;
    char err[512];
    build_full(&o);
    serialize_ok(&o, &buf, &len);
    assert_int_equal(len % 8, 0);
    assert_int_equal(get32(buf + 16), len);
    assert_int_equal(get32(buf + 12), 1 + 1 + 4 + 5 + 3);
    if (tpu_obj_parse(buf, len, &p, err, sizeof err) != 0) {
        print_error("%s\n", err);
        fail();
    }
    assert_memory_equal(&p.config, &o.config, sizeof o.config);
    assert_int_equal(p.ntext, 3);
    assert_memory_equal(p.text, o.text, 3 * sizeof *o.text);
    assert_int_equal(p.nchunks, 4);
    for (size_t i = 0; i < 4; i++) {
        assert_int_equal(p.chunks[i].rec, o.chunks[i].rec);
        assert_int_equal(p.chunks[i].space, o.chunks[i].space);
        assert_int_equal(p.chunks[i].fill, o.chunks[i].fill);
        assert_int_equal(p.chunks[i].addr, o.chunks[i].addr);
        assert_int_equal(p.chunks[i].size, o.chunks[i].size);
        assert_int_equal(p.chunks[i].seed, o.chunks[i].seed);
        assert_int_equal(p.chunks[i].lo_bits, o.chunks[i].lo_bits);
        assert_int_equal(p.chunks[i].hi_bits, o.chunks[i].hi_bits);
    }
    assert_memory_equal(p.chunks[0].data, o.chunks[0].data, 11);
    /* symbols come back in canonical order */
    static const char *names[] = { "_alias", "start", "end", "x.data", "buf" };
    assert_int_equal(p.nsyms, 5);
    for (size_t i = 0; i < 5; i++)
        assert_string_equal(p.syms[i].name, names[i]);
    assert_int_equal(p.syms[2].value, 3);
    assert_int_equal(p.syms[3].space, TPU_SPACE_HBM);
    assert_int_equal(p.nexpects, 3);
    for (size_t i = 0; i < 3; i++) {
        assert_int_equal(p.expects[i].op, o.expects[i].op);
        assert_int_equal(p.expects[i].core, o.expects[i].core);
        assert_int_equal(p.expects[i].nops, o.expects[i].nops);
        for (size_t k = 0; k < o.expects[i].nops; k++) {
            assert_int_equal(p.expects[i].ops[k].space, o.expects[i].ops[k].space);
            assert_int_equal(p.expects[i].ops[k].value, o.expects[i].ops[k].value);
        }
    }
    /* the parsed object serialises to the same bytes */
    serialize_ok(&p, &again, &len2);
    assert_int_equal(len2, len);
    assert_memory_equal(again, buf, len);
    /* a parsed object can still be added to */
    for (int i = 0; i < 40; i++)
        assert_int_equal(tpu_obj_add_text(&p, (uint64_t)i), 0);
    assert_int_equal(tpu_obj_add_symbol(&p, TPU_SPACE_HBM, 5, "later"), 0);
    assert_int_equal(p.ntext, 43);
    assert_int_equal(p.text[42], 39);
    free(buf);
    free(again);
    tpu_obj_free(&o);
    tpu_obj_free(&p);
}

static void test_empty_object(void **state)
{
    (void)state;
    tpu_object o, p;
    uint8_t *buf;
    size_t len;
    char err[256];
    tpu_obj_init(&o);
    serialize_ok(&o, &buf, &len);
    assert_int_equal(len, 32);
    assert_memory_equal(buf, "TPUOBJ\0\0\1\0\x20\0\0\0\0\0\x20\0\0\0", 20);
    assert_int_equal(get32(buf + 20), 0);               /* CRC of nothing */
    assert_int_equal(tpu_obj_parse(buf, len, &p, err, sizeof err), 0);
    assert_int_equal(p.ntext + p.nchunks + p.nsyms + p.nexpects, 0);
    free(buf);
    tpu_obj_free(&p);
}

/* Empty chunks are not recorded; the sort helper orders symbols. */
static void test_builders(void **state)
{
    (void)state;
    tpu_object o;
    tpu_obj_init(&o);
    assert_int_equal(tpu_obj_add_data(&o, TPU_SPACE_HBM, 0, NULL, 0), 0);
    assert_int_equal(tpu_obj_add_fill(&o, TPU_SPACE_HBM, 0, TPU_FILL_ZERO, 0, 0, 0, 0), 0);
    assert_int_equal(o.nchunks, 0);
    assert_int_equal(tpu_obj_add_symbol(&o, TPU_SPACE_VMEM, 1, "b"), 0);
    assert_int_equal(tpu_obj_add_symbol(&o, TPU_SPACE_VMEM, 1, "a"), 0);
    assert_int_equal(tpu_obj_add_symbol(&o, TPU_SPACE_HBM, 9, "z"), 0);
    assert_int_equal(tpu_obj_add_symbol(&o, TPU_SPACE_VMEM, 0, "y"), 0);
    tpu_obj_sort_symbols(&o);
    assert_string_equal(o.syms[0].name, "z");
    assert_string_equal(o.syms[1].name, "y");
    assert_string_equal(o.syms[2].name, "a");
    assert_string_equal(o.syms[3].name, "b");
    for (int i = 0; i < 1000; i++)
        assert_int_equal(tpu_obj_add_text(&o, (uint64_t)i * 3), 0);
    for (int i = 0; i < 1000; i++)
        assert_int_equal(o.text[i], (uint64_t)i * 3);
    assert_string_equal(tpu_expect_op_name(TPU_EXPECT_MATMUL), "matmul");
    assert_string_equal(tpu_expect_op_name(TPU_EXPECT_F32), "f32");
    assert_null(tpu_expect_op_name(0));
    assert_null(tpu_expect_op_name(TPU_EXPECT_OP_COUNT));
    tpu_obj_free(&o);
}

static void test_crc32(void **state)
{
    (void)state;
    assert_int_equal(tpu_crc32((const uint8_t *)"123456789", 9), 0xCBF43926u);  /* check value */
    assert_int_equal(tpu_crc32((const uint8_t *)"", 0), 0);
    assert_int_equal(tpu_crc32((const uint8_t *)"a", 1), 0xE8B7BE43u);
}

/* ---- corruption catalogue --------------------------------------------- */

/* Every proper prefix of a valid file is rejected as truncated. */
static void test_every_truncation(void **state)
{
    (void)state;
    tpu_object o;
    uint8_t *buf;
    size_t len;
    build_full(&o);
    serialize_ok(&o, &buf, &len);
    for (size_t n = 0; n < len; n++) {
        uint8_t *copy = malloc(n ? n : 1);   /* exact size, so ASan sees over-reads */
        memcpy(copy, buf, n);
        expect_reject(copy, n, n < 32 ? "truncated: file has" : "truncated: header says");
        free(copy);
    }
    free(buf);
    tpu_obj_free(&o);
}

/* Any one changed byte is caught, by the CRC or by a header check. */
static void test_every_byte_flip(void **state)
{
    (void)state;
    tpu_object o, p;
    uint8_t *buf;
    size_t len;
    char err[512];
    static const uint8_t masks[] = { 0x01, 0x10, 0x80, 0xff };
    build_full(&o);
    serialize_ok(&o, &buf, &len);
    for (size_t i = 0; i < len; i++)
        for (size_t m = 0; m < sizeof masks; m++) {
            buf[i] ^= masks[m];
            int rc = tpu_obj_parse(buf, len, &p, err, sizeof err);
            if (rc == 0) {
                print_error("flip of byte %zu by 0x%02x was not caught\n", i, masks[m]);
                fail();
            }
            assert_true(err[0] != 0);
            if (i >= 32)
                assert_non_null(strstr(err, "checksum mismatch (file corrupt)"));
            buf[i] ^= masks[m];
        }
    assert_int_equal(tpu_obj_parse(buf, len, &p, err, sizeof err), 0);
    tpu_obj_free(&p);
    free(buf);
    tpu_obj_free(&o);
}

/* The same flips with the CRC recomputed: the structure checks must reject
 * the file or accept it, never crash; and what they accept re-serialises. */
static void test_resealed_flips_never_crash(void **state)
{
    (void)state;
    tpu_object o, p;
    uint8_t *buf;
    size_t len;
    char err[512];
    int rejected = 0;
    build_full(&o);
    serialize_ok(&o, &buf, &len);
    for (size_t i = 32; i < len; i++)
        for (unsigned m = 1; m < 256; m <<= 1) {
            uint8_t *copy = malloc(len);
            memcpy(copy, buf, len);
            copy[i] ^= (uint8_t)m;
            put32(copy + 20, tpu_crc32(copy + 32, len - 32));
            if (tpu_obj_parse(copy, len, &p, err, sizeof err) == 0) {
                uint8_t *out;
                size_t outlen;
                assert_int_equal(tpu_obj_serialize(&p, &out, &outlen), 0);
                assert_int_equal(outlen, len);
                free(out);
                tpu_obj_free(&p);
            } else {
                assert_true(err[0] != 0);
                rejected++;
            }
            free(copy);
        }
    assert_true(rejected > 100);
    free(buf);
    tpu_obj_free(&o);
}

static void test_header_errors(void **state)
{
    (void)state;
    raw r;
    raw_init(&r);
    raw_seal(&r);
    uint8_t b[64];

    memcpy(b, r.buf, 32);
    b[0] = 'X';
    expect_reject(b, 32, "bad magic (not a tpu object file)");
    expect_reject((const uint8_t *)"\x7f" "ELF", 4, "bad magic (not a tpu object file)");
    expect_reject((const uint8_t *)"TPU", 3, "truncated: file has 3 bytes");
    expect_reject(NULL, 0, "truncated: file has 0 bytes");

    memcpy(b, r.buf, 32);
    b[8] = 2;
    expect_reject(b, 32, "unsupported version 2");
    memcpy(b, r.buf, 32);
    b[10] = 40;
    expect_reject(b, 32, "bad header size 40");
    memcpy(b, r.buf, 32);
    b[31] = 1;
    expect_reject(b, 32, "reserved header field at offset 0x18 is not zero");
    memcpy(b, r.buf, 32);
    put32(b + 16, 0xffffffffu);
    expect_reject(b, 32, "file too large: header says 4294967295 bytes");
    memcpy(b, r.buf, 32);
    put32(b + 16, 4096);
    expect_reject(b, 32, "truncated: header says 4096 bytes, file has 32");
    memcpy(b, r.buf, 32);
    put32(b + 16, 36);
    expect_reject(b, 32, "bad file size 36");
    memcpy(b, r.buf, 32);
    put32(b + 16, 16);
    expect_reject(b, 32, "bad file size 16");
    memcpy(b, r.buf, 32);
    memset(b + 32, 0, 8);
    expect_reject(b, 40, "trailing garbage: header says 32 bytes, file has 40");
    memcpy(b, r.buf, 32);
    put32(b + 12, 1);
    expect_reject(b, 32, "header says 1 records, the file has 0");
    memcpy(b, r.buf, 32);
    put32(b + 20, 0x12345678);
    expect_reject(b, 32, "checksum mismatch (file corrupt)");
}

static void test_record_framing_errors(void **state)
{
    (void)state;
    raw r;
    uint8_t cfg[16] = { 8 };

    raw_init(&r);
    raw_rec(&r, TPU_REC_CONFIG, cfg, 16);
    raw_rec(&r, 9, cfg, 8);
    expect_raw_reject(&r, "record 1 at offset 0x38: unknown type 9");

    raw_init(&r);
    raw_rec(&r, 0, cfg, 0);
    expect_raw_reject(&r, "record 0 at offset 0x20: unknown type 0");

    /* payload length beyond the end */
    raw_init(&r);
    raw_rec(&r, TPU_REC_CONFIG, cfg, 16);
    put32(r.buf + 36, 4000);
    expect_raw_reject(&r, "record 0 at offset 0x20: payload of 4000 bytes runs past the end");
    raw_init(&r);
    raw_rec(&r, TPU_REC_CONFIG, cfg, 16);
    put32(r.buf + 36, 0xfffffffcu);
    expect_raw_reject(&r, "payload of 4294967292 bytes runs past the end");

    /* non-zero padding after a payload */
    raw_init(&r);
    raw_rec(&r, TPU_REC_CONFIG, cfg, 16);
    raw_symbol(&r, TPU_SPACE_HBM, 0, "abc");
    r.buf[r.len - 1] = 0x5a;
    expect_raw_reject(&r, "padding byte at offset 0x57 is 0x5a, not zero");

    /* order and multiplicity */
    raw_init(&r);
    raw_data(&r, TPU_SPACE_HBM, 0, "abcd", 4);
    raw_rec(&r, TPU_REC_CONFIG, cfg, 16);
    expect_raw_reject(&r, "record 1 at offset 0x40: CONFIG record follows DATA records");
    raw_init(&r);
    raw_rec(&r, TPU_REC_CONFIG, cfg, 16);
    raw_rec(&r, TPU_REC_CONFIG, cfg, 16);
    expect_raw_reject(&r, "a second CONFIG record");
    raw_init(&r);
    raw_rec(&r, TPU_REC_TEXT, cfg, 8);
    raw_rec(&r, TPU_REC_TEXT, cfg, 8);
    expect_raw_reject(&r, "a second TEXT record");
    raw_init(&r);
    raw_symbol(&r, TPU_SPACE_HBM, 0, "a");
    raw_fill(&r, TPU_SPACE_HBM, TPU_FILL_ZERO, 0, 8, 0, 0, 0);
    expect_raw_reject(&r, "FILL record follows SYMBOL records");
    raw_init(&r);
    uint8_t ex[48] = { TPU_EXPECT_COPY };
    ex[8] = 2;
    raw_rec(&r, TPU_REC_EXPECT, ex, 48);
    raw_symbol(&r, TPU_SPACE_HBM, 0, "a");
    expect_raw_reject(&r, "SYMBOL record follows EXPECT records");
    /* DATA and FILL may interleave */
    raw_init(&r);
    raw_fill(&r, TPU_SPACE_HBM, TPU_FILL_ZERO, 0, 8, 0, 0, 0);
    raw_data(&r, TPU_SPACE_HBM, 8, "abcd", 4);
    raw_fill(&r, TPU_SPACE_HBM, TPU_FILL_ZERO, 12, 8, 0, 0, 0);
    expect_raw_ok(&r);
}

static void test_config_text_errors(void **state)
{
    (void)state;
    raw r;
    uint8_t cfg[16] = { 0 };
    raw_init(&r);
    raw_rec(&r, TPU_REC_CONFIG, cfg, 16);
    expect_raw_reject(&r, "CONFIG record has every field zero");
    raw_init(&r);
    raw_rec(&r, TPU_REC_CONFIG, cfg, 12);
    expect_raw_reject(&r, "CONFIG payload is 12 bytes, expected 16");
    cfg[4] = 5;
    raw_init(&r);
    raw_rec(&r, TPU_REC_CONFIG, cfg, 16);
    expect_raw_reject(&r, "CONFIG num_mxu is 5");
    cfg[4] = 4;
    raw_init(&r);
    raw_rec(&r, TPU_REC_CONFIG, cfg, 16);
    expect_raw_ok(&r);

    raw_init(&r);
    raw_rec(&r, TPU_REC_TEXT, cfg, 12);
    expect_raw_reject(&r, "TEXT payload of 12 bytes is not");
    raw_init(&r);
    raw_rec(&r, TPU_REC_TEXT, cfg, 0);
    expect_raw_reject(&r, "TEXT payload of 0 bytes");
}

static void test_chunk_errors(void **state)
{
    (void)state;
    raw r;
    size_t at;

    raw_init(&r);
    raw_data(&r, 1, 0, "abcd", 4);
    expect_raw_reject(&r, "bad address space 1 at offset 0x28");
    raw_init(&r);
    raw_data(&r, 4, 0, "abcd", 4);
    expect_raw_reject(&r, "bad address space 4");
    raw_init(&r);
    at = raw_data(&r, TPU_SPACE_VMEM, 0, "abcd", 4);
    r.buf[at + 3] = 1;
    expect_raw_reject(&r, "DATA pad byte at offset 0x2b is 0x01, not zero");
    raw_init(&r);
    raw_data(&r, TPU_SPACE_VMEM, 0, "", 0);
    expect_raw_reject(&r, "DATA record holds no bytes");
    raw_init(&r);
    raw_rec(&r, TPU_REC_DATA, "\2\0\0\0\0\0\0\0", 8);
    expect_raw_reject(&r, "DATA payload of 8 bytes is shorter than its 16-byte header");
    raw_init(&r);
    raw_data(&r, TPU_SPACE_VMEM, UINT64_MAX - 2, "abcd", 4);
    expect_raw_reject(&r, "runs past the end of the 64-bit address space");
    raw_init(&r);
    raw_data(&r, TPU_SPACE_VMEM, UINT64_MAX - 3, "abcd", 4);   /* would end at 2^64 */
    expect_raw_reject(&r, "runs past the end of the 64-bit address space");
    raw_init(&r);
    raw_data(&r, TPU_SPACE_VMEM, UINT64_MAX - 4, "abcd", 4);
    expect_raw_ok(&r);

    raw_init(&r);
    raw_fill(&r, TPU_SPACE_HBM, 4, 0, 8, 0, 0, 0);
    expect_raw_reject(&r, "bad fill kind 4 at offset 0x29");
    raw_init(&r);                                   /* int8: integers -128 <= lo < hi <= 128 */
    raw_fill(&r, TPU_SPACE_HBM, 3, 0, 8, 0, 0, 0);
    expect_raw_reject(&r, "random int8 FILL range [0x00000000, 0x00000000) is not integers");
    raw_init(&r);
    raw_fill(&r, TPU_SPACE_HBM, 3, 0, 8, 1, 0xc3000000u, 0x43010000u);    /* -128, 129 */
    expect_raw_reject(&r, "random int8 FILL range [0xc3000000, 0x43010000)");
    raw_init(&r);
    raw_fill(&r, TPU_SPACE_HBM, 3, 0, 8, 1, 0xbfc00000u, 0x40000000u);    /* -1.5, 2 */
    expect_raw_reject(&r, "is not integers");
    raw_init(&r);
    raw_fill(&r, TPU_SPACE_HBM, 3, 0, 7, 1, 0xc3000000u, 0x43000000u);    /* 7 bytes: fine */
    expect_raw_ok(&r);
    raw_init(&r);
    at = raw_fill(&r, TPU_SPACE_HBM, TPU_FILL_ZERO, 0, 8, 0, 0, 0);
    r.buf[at + 7] = 0x80;
    expect_raw_reject(&r, "FILL pad byte at offset 0x2f is 0x80");
    raw_init(&r);
    raw_fill(&r, TPU_SPACE_HBM, TPU_FILL_ZERO, 0, 0, 0, 0, 0);
    expect_raw_reject(&r, "FILL of 0 bytes");
    raw_init(&r);
    raw_fill(&r, TPU_SPACE_HBM, TPU_FILL_RANDOM_BF16, 0, 7, 0, 0, 0x3f800000);
    expect_raw_reject(&r, "random bf16 FILL of 7 bytes is not a whole number of 2-byte elements");
    raw_init(&r);
    raw_fill(&r, TPU_SPACE_HBM, TPU_FILL_RANDOM_F32, 0, 6, 0, 0, 0x3f800000);
    expect_raw_reject(&r, "random f32 FILL of 6 bytes is not a whole number of 4-byte elements");
    raw_init(&r);
    raw_fill(&r, TPU_SPACE_HBM, TPU_FILL_ZERO, 0, 8, 1, 0, 0);
    expect_raw_reject(&r, "zero FILL has a non-zero seed or range");
    raw_init(&r);
    raw_fill(&r, TPU_SPACE_HBM, TPU_FILL_RANDOM_F32, 0, 8, 1, 0xff800000u, 0);
    expect_raw_reject(&r, "is not finite");
    raw_init(&r);
    raw_fill(&r, TPU_SPACE_HBM, TPU_FILL_RANDOM_F32, 0, 8, 1, 0, 0x7fc00000u);
    expect_raw_reject(&r, "is not finite");
    raw_init(&r);
    raw_fill(&r, TPU_SPACE_HBM, TPU_FILL_ZERO, UINT64_MAX, 2, 0, 0, 0);
    expect_raw_reject(&r, "FILL at 0xffffffffffffffff of 2 bytes runs past the end");
    raw_init(&r);
    raw_fill(&r, TPU_SPACE_HBM, TPU_FILL_ZERO, 0, UINT64_MAX, 0, 0, 0);
    expect_raw_ok(&r);
    raw_init(&r);
    raw_rec(&r, TPU_REC_FILL, "", 0);
    expect_raw_reject(&r, "FILL payload is 0 bytes, expected 40");

    /* overlaps within one space; the other space may reuse addresses */
    raw_init(&r);
    raw_data(&r, TPU_SPACE_HBM, 0x100, "abcdefgh", 8);
    raw_fill(&r, TPU_SPACE_VMEM, TPU_FILL_ZERO, 0x100, 8, 0, 0, 0);
    raw_fill(&r, TPU_SPACE_HBM, TPU_FILL_ZERO, 0x108, 8, 0, 0, 0);
    raw_data(&r, TPU_SPACE_HBM, 0xf8, "abcdefgh", 8);
    expect_raw_ok(&r);
    raw_init(&r);
    raw_data(&r, TPU_SPACE_HBM, 0x100, "abcdefgh", 8);
    raw_fill(&r, TPU_SPACE_HBM, TPU_FILL_ZERO, 0x0, 0x101, 0, 0, 0);
    expect_raw_reject(&r, "record 1 at offset 0x40: hbm bytes 0x0..0x100 overlap those of "
                          "record 0 (0x100..0x107)");
    raw_init(&r);
    raw_fill(&r, TPU_SPACE_VMEM, TPU_FILL_ZERO, 0x0, 0x1000, 0, 0, 0);
    raw_data(&r, TPU_SPACE_VMEM, 0x800, "ab", 2);
    expect_raw_reject(&r, "record 1 at offset 0x50: vmem bytes 0x800..0x801 overlap");
}

static void test_symbol_errors(void **state)
{
    (void)state;
    raw r;
    uint8_t text[16] = { 1 };
    char longname[300];
    size_t at;

    raw_init(&r);
    raw_symbol(&r, TPU_SPACE_HBM, 0, "");
    expect_raw_reject(&r, "symbol name is empty");
    memset(longname, 'a', 256);
    longname[256] = 0;
    raw_init(&r);
    raw_symbol(&r, TPU_SPACE_HBM, 0, longname);
    expect_raw_reject(&r, "symbol name of 256 bytes is longer than 255");
    longname[255] = 0;
    raw_init(&r);
    raw_symbol(&r, TPU_SPACE_HBM, 0, longname);
    expect_raw_ok(&r);
    raw_init(&r);
    raw_symbol(&r, TPU_SPACE_HBM, 0, "9lives");
    expect_raw_reject(&r, "symbol name has a bad character 0x39 at offset 0x38");
    raw_init(&r);
    raw_symbol(&r, TPU_SPACE_HBM, 0, "a-b");
    expect_raw_reject(&r, "bad character 0x2d at offset 0x39");
    raw_init(&r);
    raw_symbol(&r, TPU_SPACE_HBM, 0, ".x");
    expect_raw_reject(&r, "bad character 0x2e");
    static const char *reserved[] = { "s0", "s31", "zero", "cid", "v7", "hbm", "vmem", "bits" };
    for (size_t i = 0; i < sizeof reserved / sizeof reserved[0]; i++) {
        raw_init(&r);
        raw_symbol(&r, TPU_SPACE_HBM, 0, reserved[i]);
        expect_raw_reject(&r, "is a reserved word");
    }
    raw_init(&r);
    raw_symbol(&r, TPU_SPACE_HBM, 0, "s32");   /* not a register: allowed */
    raw_symbol(&r, TPU_SPACE_HBM, 1, "_x.y9");
    expect_raw_ok(&r);

    raw_init(&r);
    raw_symbol(&r, 0, 0, "a");
    expect_raw_reject(&r, "bad address space 0 at offset 0x28");
    raw_init(&r);
    at = raw_symbol(&r, TPU_SPACE_HBM, 0, "a");
    r.buf[at + 2] = 9;
    expect_raw_reject(&r, "SYMBOL pad byte at offset 0x2a is 0x09");
    raw_init(&r);
    at = raw_symbol(&r, TPU_SPACE_HBM, 0, "abc");
    put32(r.buf + at + 4, 2);
    expect_raw_reject(&r, "SYMBOL name length 2 does not match its payload of 19 bytes");
    raw_init(&r);
    raw_rec(&r, TPU_REC_SYMBOL, "\2\0\0\0", 4);
    expect_raw_reject(&r, "SYMBOL payload of 4 bytes is shorter");

    /* canonical order: space, value, name; names unique */
    raw_init(&r);
    raw_symbol(&r, TPU_SPACE_HBM, 8, "a");
    raw_symbol(&r, TPU_SPACE_HBM, 4, "b");
    expect_raw_reject(&r, "record 1 at offset 0x40: symbol 'b' is out of order");
    raw_init(&r);
    raw_symbol(&r, TPU_SPACE_VMEM, 0, "a");
    raw_symbol(&r, TPU_SPACE_HBM, 4, "b");
    expect_raw_reject(&r, "symbol 'b' is out of order");
    raw_init(&r);
    raw_symbol(&r, TPU_SPACE_HBM, 4, "b");
    raw_symbol(&r, TPU_SPACE_HBM, 4, "a");
    expect_raw_reject(&r, "symbol 'a' is out of order");
    raw_init(&r);
    raw_symbol(&r, TPU_SPACE_HBM, 4, "a");
    raw_symbol(&r, TPU_SPACE_HBM, 4, "a");
    expect_raw_reject(&r, "symbol 'a' is out of order");
    raw_init(&r);
    raw_symbol(&r, TPU_SPACE_HBM, 4, "dup");
    raw_symbol(&r, TPU_SPACE_HBM, 6, "other");
    raw_symbol(&r, TPU_SPACE_VMEM, 0, "dup");
    expect_raw_reject(&r, "record 2 at offset 0x60: duplicate symbol 'dup' (also record 0)");

    /* text labels: at most one past the last instruction */
    raw_init(&r);
    raw_rec(&r, TPU_REC_TEXT, text, 16);
    raw_symbol(&r, TPU_SPACE_IMEM, 2, "end");
    expect_raw_ok(&r);
    raw_init(&r);
    raw_rec(&r, TPU_REC_TEXT, text, 16);
    raw_symbol(&r, TPU_SPACE_IMEM, 3, "end");
    expect_raw_reject(&r, "text label 'end' = 3 is past the end of the text (2 instructions)");
    raw_init(&r);
    raw_symbol(&r, TPU_SPACE_IMEM, 0, "start");   /* no text at all: index 0 is the end */
    expect_raw_ok(&r);
}

/* An EXPECT payload: op, core, then (space, value) operands. */
static size_t raw_expect(raw *r, uint32_t op, int32_t core, uint32_t nops, const uint8_t *spaces,
                         const uint64_t *values)
{
    uint8_t p[16 + 16 * 80] = { 0 };
    put32(p, op);
    put32(p + 4, (uint32_t)core);
    put32(p + 8, nops);
    for (uint32_t k = 0; k < nops; k++) {
        p[16 + 16 * k] = spaces[k];
        put64(p + 16 + 16 * k + 8, values[k]);
    }
    return raw_rec(r, TPU_REC_EXPECT, p, 16 + 16 * nops);
}

static void test_expect_errors(void **state)
{
    (void)state;
    raw r;
    size_t at;
    uint8_t sp[80];
    uint64_t v[80] = { 0 };
    const uint8_t H = TPU_SPACE_HBM, V = TPU_SPACE_VMEM;

    uint8_t a2[80] = { H, V }, a1[80] = { V };
    memset(sp, 0, sizeof sp);
    sp[0] = H; sp[1] = V; sp[2] = H;
    raw_init(&r);
    raw_expect(&r, TPU_EXPECT_MATMUL, -1, 6, sp, v);
    raw_expect(&r, TPU_EXPECT_ADD, 0, 4, sp, v);
    raw_expect(&r, TPU_EXPECT_MIN, 7, 4, sp, v);
    raw_expect(&r, TPU_EXPECT_RELU, -1, 3, a2, v);
    raw_expect(&r, TPU_EXPECT_COPY, -1, 3, a2, v);
    raw_expect(&r, TPU_EXPECT_F32, -1, 2, a1, v);
    raw_expect(&r, TPU_EXPECT_F32, -1, TPU_OBJ_MAX_EXPECT_OPS, a1, v);
    expect_raw_ok(&r);

    static const struct { uint32_t op, nops; const char *msg; } counts[] = {
        { TPU_EXPECT_MATMUL, 5, "expect matmul has 5 operands, it takes 6" },
        { TPU_EXPECT_MATMUL, 7, "expect matmul has 7 operands, it takes 6" },
        { TPU_EXPECT_SUB, 3, "expect sub has 3 operands, it takes 4" },
        { TPU_EXPECT_MUL, 5, "expect mul has 5 operands, it takes 4" },
        { TPU_EXPECT_MAX, 0, "expect max has 0 operands, it takes 4" },
        { TPU_EXPECT_RELU, 4, "expect relu has 4 operands, it takes 3" },
        { TPU_EXPECT_COPY, 2, "expect copy has 2 operands, it takes 3" },
        { TPU_EXPECT_F32, 1, "expect f32 has 1 operands, it takes 2 to 72" },
        { TPU_EXPECT_F32, 73, "expect f32 has 73 operands, it takes 2 to 72" },
    };
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
        raw_init(&r);
        raw_expect(&r, counts[i].op, -1, counts[i].nops, sp, v);
        expect_raw_reject(&r, counts[i].msg);
    }
    raw_init(&r);
    raw_expect(&r, 0, -1, 3, sp, v);
    expect_raw_reject(&r, "unknown expect op 0");
    raw_init(&r);
    raw_expect(&r, TPU_EXPECT_OP_COUNT, -1, 3, sp, v);
    char unknown[64];           /* the first number past the table, whatever it grows to */
    snprintf(unknown, sizeof unknown, "unknown expect op %d", (int)TPU_EXPECT_OP_COUNT);
    expect_raw_reject(&r, unknown);
    raw_init(&r);
    raw_expect(&r, TPU_EXPECT_COPY, -2, 3, sp, v);
    expect_raw_reject(&r, "expect core -2 is negative");
    raw_init(&r);
    at = raw_expect(&r, TPU_EXPECT_COPY, -1, 3, sp, v);
    r.buf[at + 13] = 1;
    expect_raw_reject(&r, "EXPECT pad byte at offset 0x35");
    raw_init(&r);
    at = raw_expect(&r, TPU_EXPECT_COPY, -1, 3, sp, v);
    r.buf[at + 16 + 16 + 4] = 1;
    expect_raw_reject(&r, "EXPECT operand pad byte at offset 0x4c");
    raw_init(&r);
    uint8_t f32ok[3] = { V, 0, 0 };
    at = raw_expect(&r, TPU_EXPECT_F32, -1, 3, f32ok, v);
    put32(r.buf + at + 8, 2);
    expect_raw_reject(&r, "EXPECT payload is 64 bytes, 2 operands need 48");
    raw_init(&r);
    raw_rec(&r, TPU_REC_EXPECT, "\1\0\0\0", 4);
    expect_raw_reject(&r, "EXPECT payload of 4 bytes is shorter");

    /* address operands carry a space, numbers do not */
    uint8_t bad[6] = { H, 0, H, 0, 0, 0 };
    raw_init(&r);
    raw_expect(&r, TPU_EXPECT_MATMUL, -1, 6, bad, v);
    expect_raw_reject(&r, "expect matmul operand 2 must be an hbm or vmem address (space 0 at "
                          "offset 0x48)");
    uint8_t imem[3] = { TPU_SPACE_IMEM, H, 0 };
    raw_init(&r);
    raw_expect(&r, TPU_EXPECT_COPY, -1, 3, imem, v);
    expect_raw_reject(&r, "expect copy operand 1 must be an hbm or vmem address");
    uint8_t spaced[4] = { H, H, V, V };
    raw_init(&r);
    raw_expect(&r, TPU_EXPECT_ADD, -1, 4, spaced, v);
    expect_raw_reject(&r, "expect add operand 4 is a number, but has space 3");
    uint64_t big[3] = { 0, 0x3f800000, 0x100000000ull };
    uint8_t f32sp[3] = { V, 0, 0 };
    raw_init(&r);
    raw_expect(&r, TPU_EXPECT_F32, -1, 3, f32sp, big);
    expect_raw_reject(&r, "expect f32 value 2 is 0x100000000, not a 32-bit pattern");
}

/* The parser bounds EXPECT records (each costs ~1 KiB in memory). */
static void test_expect_limit(void **state)
{
    (void)state;
    const size_t n = 16385, reclen = 8 + 16 + 32;
    size_t len = 32 + n * reclen;
    uint8_t *buf = calloc(1, len);
    memcpy(buf, "TPUOBJ\0\0\1\0\x20\0", 12);
    for (size_t i = 0; i < n; i++) {
        uint8_t *p = buf + 32 + i * reclen;
        put32(p, TPU_REC_EXPECT);
        put32(p + 4, 48);
        put32(p + 8, TPU_EXPECT_F32);
        put32(p + 12, 0xffffffffu);
        put32(p + 16, 2);
        p[24] = TPU_SPACE_HBM;
    }
    reseal(buf, len, (uint32_t)n);
    expect_reject(buf, len, "record 16384 at offset 0xe0020: too many EXPECT records");
    reseal(buf, len - reclen, (uint32_t)n - 1);
    tpu_object o;
    char err[256];
    assert_int_equal(tpu_obj_parse(buf, len - reclen, &o, err, sizeof err), 0);
    assert_int_equal(o.nexpects, 16384);
    tpu_obj_expect e = o.expects[0];
    assert_int_equal(tpu_obj_add_expect(&o, &e), -1);   /* the builder keeps the same bound */
    tpu_obj_free(&o);
    free(buf);
}

/* ---- arrays (ARRAY records, `.array`) ----------------------------------- */

static size_t raw_array(raw *r, uint8_t type, uint8_t layout, uint8_t ndim, uint64_t pitch,
                        const uint64_t *dims, const char *name)
{
    uint8_t p[16 + 8 * 8 + 300] = { 0 };
    size_t n = strlen(name);
    p[0] = type;
    p[1] = layout;
    p[2] = ndim;
    put32(p + 4, (uint32_t)n);
    put64(p + 8, pitch);
    for (unsigned d = 0; d < ndim && d < 8; d++)
        put64(p + 16 + 8 * d, dims[d]);
    memcpy(p + 16 + 8 * (ndim < 8 ? ndim : 8), name, n);
    return raw_rec(r, TPU_REC_ARRAY, p, (uint32_t)(16 + 8 * (ndim < 8 ? ndim : 8) + n));
}

/* A file with the data label X (hbm 0x40) and the code label L, then one
 * ARRAY record. */
static size_t array_file(raw *r, uint8_t type, uint8_t layout, uint8_t ndim, uint64_t pitch,
                         const uint64_t *dims, const char *name)
{
    raw_init(r);
    raw_rec(r, TPU_REC_TEXT, "\0\0\0\0\0\0\0\0", 8);
    raw_symbol(r, TPU_SPACE_IMEM, 0, "L");
    raw_symbol(r, TPU_SPACE_HBM, 0x40, "X");
    return raw_array(r, type, layout, ndim, pitch, dims, name);
}

static void test_array_records(void **state)
{
    (void)state;
    /* built, serialised, parsed back: the same fields, and the helpers */
    tpu_object o, p;
    tpu_obj_init(&o);
    assert_int_equal(tpu_obj_add_symbol(&o, TPU_SPACE_HBM, 0x100, "X"), 0);
    assert_int_equal(tpu_obj_add_symbol(&o, TPU_SPACE_VMEM, 0, "W"), 0);
    tpu_obj_array x = { TPU_ARRAY_BF16, TPU_ARRAY_ROWS, 2, 32, { 3, 11 }, "X" };
    tpu_obj_array w = { TPU_ARRAY_I8, TPU_ARRAY_KPAIRS, 2, 16, { 5, 7 }, "W" };
    assert_int_equal(tpu_obj_add_array(&o, &x), 0);
    assert_int_equal(tpu_obj_add_array(&o, &w), 0);
    uint8_t *buf;
    size_t len;
    char err[512];
    serialize_ok(&o, &buf, &len);
    assert_int_equal(tpu_obj_parse(buf, len, &p, err, sizeof err), 0);
    assert_int_equal(p.narrays, 2);
    assert_string_equal(p.arrays[0].name, "X");
    assert_int_equal(p.arrays[0].type, TPU_ARRAY_BF16);
    assert_int_equal(p.arrays[0].pitch, 32);
    assert_int_equal(p.arrays[0].dims[1], 11);
    assert_int_equal(p.arrays[1].layout, TPU_ARRAY_KPAIRS);
    assert_ptr_equal(tpu_obj_find_array(&p, "W"), &p.arrays[1]);
    assert_null(tpu_obj_find_array(&p, "Q"));
    assert_int_equal(tpu_array_extent(&p.arrays[0]), 2 * 32 + 22);      /* rows 0..2 */
    assert_int_equal(tpu_array_offset(&p.arrays[0], 12), 32 + 2);       /* [1][1] */
    assert_int_equal(tpu_array_rows(&p.arrays[1]), 3);                  /* ceil(5 / 2) */
    assert_int_equal(tpu_array_extent(&p.arrays[1]), 2 * 16 + 14);
    assert_int_equal(tpu_array_offset(&p.arrays[1], 1 * 7 + 3), 0 * 16 + 6 + 1);  /* [1][3] */
    assert_int_equal(tpu_array_offset(&p.arrays[1], 4 * 7 + 6), 2 * 16 + 12);     /* [4][6] */
    uint8_t *again;
    size_t alen;
    serialize_ok(&p, &again, &alen);                 /* canonical: the same bytes */
    assert_int_equal(alen, len);
    assert_memory_equal(again, buf, len);
    free(again);
    free(buf);
    tpu_obj_free(&p);
    tpu_obj_free(&o);

    /* the loader's checks */
    raw r;
    uint64_t d2[2] = { 3, 4 }, d0[2] = { 0, 4 }, big[2] = { 1ull << 40, 1ull << 40 };
    uint64_t d8[8] = { 3, 4 };      /* raw_array writes up to 8 of them */
    array_file(&r, TPU_ARRAY_F32, 0, 2, 16, d2, "X");
    expect_raw_ok(&r);
    array_file(&r, 9, 0, 2, 16, d2, "X");
    expect_raw_reject(&r, "bad array type 9");
    array_file(&r, TPU_ARRAY_F32, 2, 2, 16, d2, "X");
    expect_raw_reject(&r, "bad array layout 2");
    array_file(&r, TPU_ARRAY_F32, 0, 0, 16, d2, "X");
    expect_raw_reject(&r, "array of 0 dimensions");
    array_file(&r, TPU_ARRAY_F32, 0, 9, 16, d8, "X");
    expect_raw_reject(&r, "array of 9 dimensions");
    array_file(&r, TPU_ARRAY_F32, 0, 2, 16, d0, "X");
    expect_raw_reject(&r, "array dimension 0 is 0");
    array_file(&r, TPU_ARRAY_F32, 0, 2, 15, d2, "X");
    expect_raw_reject(&r, "pitch 15 is less than a row's 16 bytes");
    array_file(&r, TPU_ARRAY_F32, 1, 2, 16, d2, "X");
    expect_raw_reject(&r, "the K-pair layout is for 2-D i8 arrays only");
    array_file(&r, TPU_ARRAY_F32, 0, 2, 1ull << 43, big, "X");
    expect_raw_reject(&r, "has more elements than 64-bit sizes can count");
    array_file(&r, TPU_ARRAY_I8, 0, 2, UINT64_MAX / 2, d2, "X");
    expect_raw_reject(&r, "runs past the end of the 64-bit address space");
    array_file(&r, TPU_ARRAY_F32, 0, 2, 16, d2, "Q");
    expect_raw_reject(&r, "array 'Q' names no symbol of the object");
    array_file(&r, TPU_ARRAY_F32, 0, 2, 16, d2, "L");
    expect_raw_reject(&r, "array 'L' names a text label");
    array_file(&r, TPU_ARRAY_F32, 0, 2, 16, d2, "X");
    raw_array(&r, TPU_ARRAY_F32, 0, 1, 12, d2, "X");
    expect_raw_reject(&r, "a second array 'X'");
    size_t at = array_file(&r, TPU_ARRAY_F32, 0, 2, 16, d2, "X");
    r.buf[at + 3] = 1;
    expect_raw_reject(&r, "ARRAY pad byte");
    array_file(&r, TPU_ARRAY_F32, 0, 2, 16, d2, "X");
    put32(r.buf + at + 4, 2);                        /* name length against the payload */
    expect_raw_reject(&r, "ARRAY name length 2 does not match");
    array_file(&r, TPU_ARRAY_F32, 0, 2, 16, d2, "X");
    raw_symbol(&r, TPU_SPACE_HBM, 0x80, "Y");        /* an ARRAY before a SYMBOL */
    expect_raw_reject(&r, "SYMBOL record follows ARRAY records");
}

/* ---- random fills ------------------------------------------------------- */

/* Pinned against an independent implementation (Python, struct 'f' for
 * the fp32 rounding, integer RNE for bf16) of docs/object-format.md. */
static void test_random_fill_pinned(void **state)
{
    (void)state;
    static const struct {
        uint64_t seed, i;
        uint32_t lo, hi;
        int bf16;
        uint32_t want;
    } pins[] = {
        { 0, 0, 0xbf800000u, 0x3f800000u, 0, 0xbf800000u },          /* mix(0) = 0: u = 0 -> lo */
        { 1, 0, 0xbf800000u, 0x3f800000u, 0, 0xbea5b7a8u },
        { 42, 7, 0xbf800000u, 0x3f800000u, 0, 0xbf102d32u },
        { 0xdeadbeefu, 1000000, 0x00000000u, 0x41200000u, 0, 0x4114e568u },
        { 5, 3, 0xc0000000u, 0x40000000u, 1, 0xbf890000u },
        { 5, 4, 0xc0000000u, 0x40000000u, 1, 0xbfcd0000u },
        { 123456789, 0, 0xbf000000u, 0x3e800000u, 0, 0x3e565595u },
        { UINT64_MAX, 1ull << 40, 0xc2c80000u, 0x42c80000u, 1, 0x429b0000u },
        { 7, 1, 0x3dcccccdu, 0x3e4ccccdu, 0, 0x3e0e518du },
    };
    for (size_t k = 0; k < sizeof pins / sizeof pins[0]; k++) {
        uint32_t got = tpu_fill_random_f32(pins[k].seed, pins[k].i, pins[k].lo, pins[k].hi,
                                           pins[k].bf16);
        if (got != pins[k].want) {
            print_error("pin %zu: got 0x%08x, want 0x%08x\n", k, got, pins[k].want);
            fail();
        }
    }
    /* seed 0, element 1 is splitmix64's well-known first output
     * 0xe220a8397b1dcdaf: u = 0xe220a8 / 2^24 */
    uint32_t b = tpu_fill_random_f32(0, 1, 0x00000000u, 0x4b800000u /* 2^24 */, 0);
    assert_int_equal(b, 0x4b6220a8u);                   /* 14819496.0f = 0xe220a8 */
}

/* chunk_read of any window equals the same bytes of a full read. */
static void test_chunk_read_windows(void **state)
{
    (void)state;
    static const uint8_t kinds[] = { TPU_FILL_RANDOM_BF16, TPU_FILL_RANDOM_F32, TPU_FILL_ZERO };
    for (size_t k = 0; k < 3; k++) {
        tpu_obj_chunk c = { .rec = TPU_REC_FILL, .space = TPU_SPACE_HBM, .fill = kinds[k],
                            .size = 200, .seed = 1234 + k,
                            .lo_bits = kinds[k] == TPU_FILL_ZERO ? 0 : 0xc1200000u,
                            .hi_bits = kinds[k] == TPU_FILL_ZERO ? 0 : 0x41200000u };
        uint8_t full[200], win[220];
        tpu_obj_chunk_read(&c, 0, full, sizeof full);
        if (kinds[k] != TPU_FILL_ZERO) {
            unsigned es = kinds[k] == TPU_FILL_RANDOM_BF16 ? 2 : 4;
            for (unsigned i = 0; i < 200 / es; i++) {
                uint32_t bits = tpu_fill_random_f32(c.seed, i, c.lo_bits, c.hi_bits,
                                                    es == 2);
                uint32_t got = es == 2 ? (uint32_t)(full[2 * i] | full[2 * i + 1] << 8) << 16
                                       : get32(full + 4 * i);
                assert_int_equal(got, bits);
            }
        } else {
            for (size_t i = 0; i < 200; i++)
                assert_int_equal(full[i], 0);
        }
        for (uint64_t off = 0; off <= 200; off++)
            for (size_t n = 0; n <= 13; n++) {
                memset(win, 0xaa, sizeof win);
                tpu_obj_chunk_read(&c, off, win, n);
                for (size_t i = 0; i < n; i++)
                    assert_int_equal(win[i], off + i < 200 ? full[off + i] : 0);
                assert_int_equal(win[n], 0xaa);            /* nothing written past n */
            }
    }
    /* a DATA chunk, and windows running past its end read as zero */
    static const uint8_t bytes[5] = { 9, 8, 7, 6, 5 };
    tpu_obj_chunk d = { .rec = TPU_REC_DATA, .space = TPU_SPACE_VMEM, .size = 5, .data = bytes };
    uint8_t out[8];
    memset(out, 0xaa, sizeof out);
    tpu_obj_chunk_read(&d, 3, out, 4);
    assert_memory_equal(out, "\6\5\0\0\xaa", 5);
    tpu_obj_chunk_read(&d, 100, out, 2);
    assert_memory_equal(out, "\0\0", 2);
    /* a window deep inside a huge fill costs only its own size */
    tpu_obj_chunk h = { .rec = TPU_REC_FILL, .fill = TPU_FILL_RANDOM_F32, .size = 1ull << 40,
                        .seed = 3, .lo_bits = 0, .hi_bits = 0x3f800000u };
    uint32_t want = tpu_fill_random_f32(3, (1ull << 38) - 1, 0, 0x3f800000u, 0);
    tpu_obj_chunk_read(&h, (1ull << 40) - 4, out, 4);
    assert_int_equal(get32(out), want);
}

/* Big reads of random fills, element by element against the definition
 * (tpu_fill_random_f32, with fp.c's bf16 rounding): ranges that make
 * zeros, subnormals (bf16: signed zeros), huge values and bf16 ties. */
static void test_chunk_read_random_ranges(void **state)
{
    (void)state;
    static const uint32_t ranges[][2] = {
        { 0xc1200000u, 0x41200000u },    /* -10 .. 10 */
        { 0x80ffffffu, 0x00ffffffu },    /* around 2^-126: subnormals and zeros */
        { 0x80000010u, 0x00000010u },    /* subnormals only */
        { 0xff7fffffu, 0x7effffffu },    /* huge */
        { 0x3f800000u, 0x3f800100u },    /* a narrow range near 1 */
    };
    enum { N = 1 << 16 };
    uint8_t *buf = malloc(4 * N + 3);
    assert_non_null(buf);
    for (size_t r = 0; r < sizeof ranges / sizeof ranges[0]; r++)
        for (int bf16 = 0; bf16 < 2; bf16++) {
            unsigned es = bf16 ? 2 : 4;
            tpu_obj_chunk c = { .rec = TPU_REC_FILL, .space = TPU_SPACE_HBM,
                                .fill = bf16 ? TPU_FILL_RANDOM_BF16 : TPU_FILL_RANDOM_F32,
                                .size = (uint64_t)es * N * 8, .seed = 99 + r,
                                .lo_bits = ranges[r][0], .hi_bits = ranges[r][1] };
            uint64_t first = (uint64_t)N * r;
            /* from a whole element, and from the middle of one */
            for (unsigned skew = 0; skew < 2; skew++) {
                tpu_obj_chunk_read(&c, first * es + skew, buf, (size_t)es * N + 1);
                for (unsigned i = 0; i < N; i++) {
                    uint32_t want = tpu_fill_random_f32(c.seed, first + i, c.lo_bits, c.hi_bits,
                                                        bf16);
                    uint32_t want_bytes = bf16 ? want >> 16 : want;
                    const uint8_t *p = buf + (size_t)es * i - skew;
                    for (unsigned b = skew && i == 0 ? 1 : 0; b < es; b++)
                        if (p[b] != (uint8_t)(want_bytes >> (8 * b))) {
                            print_error("range %zu %s skew %u element %u: byte %u is 0x%02x, "
                                        "want 0x%08x\n", r, bf16 ? "bf16" : "f32", skew, i, b,
                                        p[b], want_bytes);
                            fail();
                        }
                }
            }
        }
    /* bf16 ties (low 16 bits of the fp32 value exactly 0x8000, about one
     * element in 65536): enough of them, with odd and even top halves, in
     * 2^22 elements of [1, 2) */
    enum { M = 1 << 22 };
    tpu_obj_chunk t = { .rec = TPU_REC_FILL, .space = TPU_SPACE_HBM,
                        .fill = TPU_FILL_RANDOM_BF16, .size = 2ull * M, .seed = 2024,
                        .lo_bits = 0x3f800000u, .hi_bits = 0x40000000u };
    unsigned ties[2] = { 0, 0 };
    for (uint64_t i0 = 0; i0 < M; i0 += N) {
        tpu_obj_chunk_read(&t, 2 * i0, buf, 2 * N);
        for (unsigned i = 0; i < N; i++) {
            uint32_t f = tpu_fill_random_f32(t.seed, i0 + i, t.lo_bits, t.hi_bits, 0);
            if ((f & 0xffffu) != 0x8000u)
                continue;
            ties[(f >> 16) & 1]++;
            uint32_t want = tpu_fill_random_f32(t.seed, i0 + i, t.lo_bits, t.hi_bits, 1) >> 16;
            assert_int_equal(buf[2 * i] | buf[2 * i + 1] << 8, want);
        }
    }
    print_message("bf16 ties: %u rounded up (odd), %u kept (even)\n", ties[1], ties[0]);
    assert_true(ties[0] >= 10 && ties[1] >= 10);
    free(buf);
}

/* ---- files ----------------------------------------------------------------- */

static void test_write_and_read_files(void **state)
{
    (void)state;
    tpu_object o, p;
    char err[512];
    char path[] = "/tmp/test_objfile_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    build_full(&o);
    assert_int_equal(tpu_obj_write(&o, path, err, sizeof err), 0);
    if (tpu_obj_read(path, &p, err, sizeof err) != 0) {
        print_error("%s\n", err);
        fail();
    }
    assert_int_equal(p.ntext, 3);
    assert_int_equal(p.nsyms, 5);
    tpu_obj_free(&p);

    /* a corrupt file: the message is prefixed with the path */
    FILE *f = fopen(path, "r+b");
    assert_non_null(f);
    fseek(f, 40, SEEK_SET);
    fputc(0x55, f);
    fclose(f);
    assert_int_equal(tpu_obj_read(path, &p, err, sizeof err), -1);
    char want[600];
    snprintf(want, sizeof want, "%s: checksum mismatch (file corrupt)", path);
    assert_non_null(strstr(err, want));
    assert_true(strncmp(err, want, strlen(want)) == 0);

    /* a truncated file */
    assert_int_equal(truncate(path, 100), 0);
    assert_int_equal(tpu_obj_read(path, &p, err, sizeof err), -1);
    assert_non_null(strstr(err, "file has 100"));
    unlink(path);

    /* a huge file is refused before it is read */
    char big[] = "/tmp/test_objfile_big_XXXXXX";
    fd = mkstemp(big);
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(truncate(big, (off_t)TPU_OBJ_MAX_SIZE + 8), 0);   /* sparse */
    assert_int_equal(tpu_obj_read(big, &p, err, sizeof err), -1);
    assert_non_null(strstr(err, "file too large (268435464 bytes, the limit is 268435456)"));
    unlink(big);

    /* a missing file names the path and the system's reason */
    assert_int_equal(tpu_obj_read("/nonexistent/x.bin", &p, err, sizeof err), -1);
    assert_string_equal(err, "/nonexistent/x.bin: No such file or directory");
    assert_int_equal(tpu_obj_write(&o, "/nonexistent/x.bin", err, sizeof err), -1);
    assert_string_equal(err, "/nonexistent/x.bin: No such file or directory");
    /* a directory is not an object */
    assert_int_equal(tpu_obj_read("/tmp", &p, err, sizeof err), -1);
    assert_non_null(strstr(err, "/tmp: "));
    tpu_obj_free(&o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_roundtrip_every_record),
        cmocka_unit_test(test_empty_object),
        cmocka_unit_test(test_builders),
        cmocka_unit_test(test_crc32),
        cmocka_unit_test(test_every_truncation),
        cmocka_unit_test(test_every_byte_flip),
        cmocka_unit_test(test_resealed_flips_never_crash),
        cmocka_unit_test(test_header_errors),
        cmocka_unit_test(test_record_framing_errors),
        cmocka_unit_test(test_config_text_errors),
        cmocka_unit_test(test_chunk_errors),
        cmocka_unit_test(test_symbol_errors),
        cmocka_unit_test(test_expect_errors),
        cmocka_unit_test(test_expect_limit),
        cmocka_unit_test(test_array_records),
        cmocka_unit_test(test_random_fill_pinned),
        cmocka_unit_test(test_chunk_read_windows),
        cmocka_unit_test(test_chunk_read_random_ranges),
        cmocka_unit_test(test_write_and_read_files),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
