/*
 * obj_impl.h - what the files of the object format share (objfile.h is
 * the interface): the record sizes of docs/object-format.md, the
 * little-endian helpers and the parser's state.
 *
 *   objfile.c      build an object in memory: text, chunks, symbols,
 *                  expects, arrays; the machine shape
 *   obj_fill.c     the bytes of a chunk: random fills (SplitMix64)
 *   obj_write.c    serialise and write a file, with its CRC-32
 *   obj_parse.c    parse and read a file: framing, order, cross-record
 *                  checks (it trusts nothing; fuzzed)
 *   obj_records.c  parse each record kind's payload
 */
#ifndef TPU_OBJ_IMPL_H
#define TPU_OBJ_IMPL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "objfile.h"

#define REC_HDR        8    /* u32 type, u32 payload length */
#define CONFIG_SIZE    16
#define DATA_HDR       16   /* u8 space, u8 pad[7], u64 addr */
#define FILL_SIZE      40
#define SYMBOL_HDR     16   /* u8 space, u8 pad[3], u32 name length, u64 value */
#define EXPECT_HDR     16   /* u32 op, i32 core, u32 nops, u32 pad */
#define EXPECT_OP_SIZE 16   /* u8 space, u8 pad[7], u64 value */
#define ARRAY_HDR      16   /* u8 type, u8 layout, u8 ndim, u8 pad, u32 name length, u64 pitch */

/* ---- little-endian helpers ------------------------------------------- */

static inline uint16_t rd16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static inline uint32_t rd32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline uint64_t rd64(const uint8_t *p) { return rd32(p) | (uint64_t)rd32(p + 4) << 32; }
static inline void wr16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }
static inline void wr32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}
static inline void wr64(uint8_t *p, uint64_t v)
{
    wr32(p, (uint32_t)v);
    wr32(p + 4, (uint32_t)(v >> 32));
}
static inline uint64_t pad8(uint64_t n) { return (n + 7) & ~(uint64_t)7; }

static inline float f32_of_bits(uint32_t b)
{
    float f;
    memcpy(&f, &b, sizeof f);
    return f;
}
static inline uint32_t bits_of_f32(float f)
{
    uint32_t b;
    memcpy(&b, &f, sizeof b);
    return b;
}

static inline int is_finite_f32(uint32_t bits) { return (bits & 0x7f800000u) != 0x7f800000u; }

/* Building (objfile.c): the capacity an array of n elements has, room for
 * one more, a block of n bytes the object owns (NULL: out of memory); the
 * symbols' order (space, value, name). */
size_t tpu_obj_cap_for(size_t n);
int tpu_obj_make_room(void **arr, size_t n, size_t elem);
uint8_t *tpu_obj_own_block(tpu_object *o, size_t n);
int tpu_obj_sym_cmp(const tpu_obj_symbol *a, const tpu_obj_symbol *b);
int tpu_obj_sym_ptr_cmp(const void *a, const void *b);

/* Does the CONFIG record say anything (obj_write.c)? */
int tpu_obj_config_present(const tpu_obj_config *c);

/* Operand count of an expect op (F32: the minimum; up to the maximum) and
 * how many leading operands are addresses (they carry a memory space). */
void tpu_obj_expect_shape(unsigned op, unsigned *min_ops, unsigned *max_ops, unsigned *naddr);

/* ---- the parser (obj_parse.c, obj_records.c) ------------------------------ */

typedef struct parser {
    const uint8_t *buf;
    size_t size;            /* file size from the header (== buffer length) */
    char *err;
    size_t errlen;
    unsigned rec;           /* index of the record being checked */
    size_t rec_off;         /* its offset */
} parser;

/* An error (-1) for the whole file, or about the current record: "record
 * 3 at offset 0x58: ...". */
int tpu_objp_fail(parser *ps, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int tpu_objp_rec_fail(parser *ps, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Every byte of [off, off+n) must be zero (pad fields). */
int tpu_objp_check_zero(parser *ps, size_t off, size_t n, const char *what);
int tpu_objp_check_space(parser *ps, size_t off, int allow_imem);
/* A symbol name must be an assembler identifier that is not reserved. */
int tpu_objp_check_name(parser *ps, size_t off, uint32_t n);
const char *tpu_objp_space_name(uint8_t s);

/* The payload of one record into o (obj_records.c); *store: where the
 * bytes or names go, advanced. */
int tpu_objp_config(parser *ps, const uint8_t *p, uint32_t len, tpu_object *o);
int tpu_objp_text(parser *ps, const uint8_t *p, uint32_t len, tpu_object *o);
int tpu_objp_data(parser *ps, const uint8_t *p, uint32_t len, tpu_object *o, uint8_t **store);
int tpu_objp_fill(parser *ps, const uint8_t *p, uint32_t len, tpu_object *o);
int tpu_objp_symbol(parser *ps, const uint8_t *p, uint32_t len, tpu_object *o, char **store);
int tpu_objp_expect(parser *ps, const uint8_t *p, uint32_t len, tpu_object *o);
int tpu_objp_array(parser *ps, const uint8_t *p, uint32_t len, tpu_object *o, char **store);

#endif /* TPU_OBJ_IMPL_H */
