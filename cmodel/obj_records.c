/*
 * obj_records.c - parse the payload of each record kind of an object file
 * (obj_parse.c calls them; obj_impl.h).
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

int tpu_objp_config(parser *ps, const uint8_t *p, uint32_t len, tpu_object *o)
{
    if (len != CONFIG_SIZE)
        return tpu_objp_rec_fail(ps, "CONFIG payload is %u bytes, expected %u", len, CONFIG_SIZE);
    o->config = (tpu_obj_config){ rd32(p), rd32(p + 4), rd32(p + 8), rd32(p + 12) };
    if (!tpu_obj_config_present(&o->config))
        return tpu_objp_rec_fail(ps,
                                 "CONFIG record has every field zero (such a record is left out)");
    if (o->config.num_mxu > TPU_MAX_MXUS)
        return tpu_objp_rec_fail(ps, "CONFIG num_mxu is %u, the ISA has at most %u MXUs",
                                 o->config.num_mxu, TPU_MAX_MXUS);
    return 0;
}

int tpu_objp_text(parser *ps, const uint8_t *p, uint32_t len, tpu_object *o)
{
    if (len == 0 || len % 8 != 0)
        return tpu_objp_rec_fail(
            ps, "TEXT payload of %u bytes is not a non-zero number of 8-byte words", len);
    o->ntext = len / 8;
    o->text = malloc(tpu_obj_cap_for(o->ntext) * sizeof *o->text);
    if (!o->text)
        return tpu_objp_rec_fail(ps, "out of memory");
    for (size_t i = 0; i < o->ntext; i++)
        o->text[i] = rd64(p + 8 * i);
    return 0;
}

/* Address range [addr, addr+size) must not wrap past 2^64. */
static int check_range(parser *ps, const char *what, uint64_t addr, uint64_t size)
{
    if (size > UINT64_MAX - addr)
        return tpu_objp_rec_fail(
            ps, "%s at 0x%llx of %llu bytes runs past the end of the 64-bit address space", what,
            (unsigned long long)addr, (unsigned long long)size);
    return 0;
}

int tpu_objp_data(parser *ps, const uint8_t *p, uint32_t len, tpu_object *o, uint8_t **store)
{
    size_t off = (size_t)(p - ps->buf);
    if (len < DATA_HDR)
        return tpu_objp_rec_fail(ps, "DATA payload of %u bytes is shorter than its %u-byte header",
                                 len, DATA_HDR);
    if (tpu_objp_check_space(ps, off, 0) || tpu_objp_check_zero(ps, off + 1, 7, "DATA pad"))
        return -1;
    uint64_t addr = rd64(p + 8), size = len - DATA_HDR;
    if (size == 0)
        return tpu_objp_rec_fail(ps, "DATA record holds no bytes");
    if (check_range(ps, "DATA", addr, size))
        return -1;
    memcpy(*store, p + DATA_HDR, (size_t)size);
    o->chunks[o->nchunks++] = (tpu_obj_chunk){ .rec = TPU_REC_DATA, .space = p[0], .addr = addr,
                                               .size = size, .data = *store };
    *store += size;
    return 0;
}

int tpu_objp_fill(parser *ps, const uint8_t *p, uint32_t len, tpu_object *o)
{
    size_t off = (size_t)(p - ps->buf);
    if (len != FILL_SIZE)
        return tpu_objp_rec_fail(ps, "FILL payload is %u bytes, expected %u", len, FILL_SIZE);
    if (tpu_objp_check_space(ps, off, 0) || tpu_objp_check_zero(ps, off + 2, 6, "FILL pad"))
        return -1;
    tpu_obj_chunk c = { .rec = TPU_REC_FILL, .space = p[0], .fill = p[1], .addr = rd64(p + 8),
                        .size = rd64(p + 16), .seed = rd64(p + 24), .lo_bits = rd32(p + 32),
                        .hi_bits = rd32(p + 36) };
    if (c.fill > TPU_FILL_RANDOM_I8)
        return tpu_objp_rec_fail(
            ps,
            "bad fill kind %u at offset 0x%zx (0 zero, 1 random bf16, 2 random f32, "
            "3 random int8)",
            c.fill, off + 1);
    if (c.size == 0)
        return tpu_objp_rec_fail(ps, "FILL of 0 bytes");
    if (check_range(ps, "FILL", c.addr, c.size))
        return -1;
    if (c.fill == TPU_FILL_ZERO) {
        if (c.seed || c.lo_bits || c.hi_bits)
            return tpu_objp_rec_fail(ps, "zero FILL has a non-zero seed or range");
    } else if (c.fill == TPU_FILL_RANDOM_I8) {
        if (!is_finite_f32(c.lo_bits) || !is_finite_f32(c.hi_bits)
            || f32_of_bits(c.lo_bits) != (double)(int)f32_of_bits(c.lo_bits)
            || f32_of_bits(c.hi_bits) != (double)(int)f32_of_bits(c.hi_bits)
            || f32_of_bits(c.lo_bits) < -128 || f32_of_bits(c.hi_bits) > 128
            || f32_of_bits(c.lo_bits) >= f32_of_bits(c.hi_bits))
            return tpu_objp_rec_fail(ps,
                                     "random int8 FILL range [0x%08x, 0x%08x) is not integers "
                                     "-128 <= lo < hi <= 128",
                                     c.lo_bits, c.hi_bits);
    } else {
        unsigned esize = c.fill == TPU_FILL_RANDOM_BF16 ? 2 : 4;
        if (c.size % esize)
            return tpu_objp_rec_fail(
                ps, "random %s FILL of %llu bytes is not a whole number of %u-byte elements",
                esize == 2 ? "bf16" : "f32", (unsigned long long)c.size, esize);
        if (!is_finite_f32(c.lo_bits) || !is_finite_f32(c.hi_bits))
            return tpu_objp_rec_fail(ps, "random FILL range [0x%08x, 0x%08x) is not finite",
                                     c.lo_bits, c.hi_bits);
    }
    o->chunks[o->nchunks++] = c;
    return 0;
}

int tpu_objp_symbol(parser *ps, const uint8_t *p, uint32_t len, tpu_object *o, char **store)
{
    size_t off = (size_t)(p - ps->buf);
    if (len < SYMBOL_HDR)
        return tpu_objp_rec_fail(
            ps, "SYMBOL payload of %u bytes is shorter than its %u-byte header", len, SYMBOL_HDR);
    if (tpu_objp_check_space(ps, off, 1) || tpu_objp_check_zero(ps, off + 1, 3, "SYMBOL pad"))
        return -1;
    uint32_t n = rd32(p + 4);
    if (n != len - SYMBOL_HDR)
        return tpu_objp_rec_fail(ps, "SYMBOL name length %u does not match its payload of %u bytes",
                                 n, len);
    if (tpu_objp_check_name(ps, off + SYMBOL_HDR, n))
        return -1;
    tpu_obj_symbol s = { .space = p[0], .value = rd64(p + 8), .name = *store };
    memcpy(*store, p + SYMBOL_HDR, n);
    (*store)[n] = 0;
    *store += n + 1;
    if (s.space == TPU_SPACE_IMEM && s.value > o->ntext)
        return tpu_objp_rec_fail(
            ps, "text label '%s' = %llu is past the end of the text (%zu instructions)", s.name,
            (unsigned long long)s.value, o->ntext);
    if (o->nsyms > 0 && tpu_obj_sym_cmp(&o->syms[o->nsyms - 1], &s) >= 0)
        return tpu_objp_rec_fail(
            ps, "symbol '%s' is out of order (symbols are sorted by space, value, name)", s.name);
    o->syms[o->nsyms++] = s;
    return 0;
}

int tpu_objp_expect(parser *ps, const uint8_t *p, uint32_t len, tpu_object *o)
{
    size_t off = (size_t)(p - ps->buf);
    if (len < EXPECT_HDR)
        return tpu_objp_rec_fail(
            ps, "EXPECT payload of %u bytes is shorter than its %u-byte header", len, EXPECT_HDR);
    tpu_obj_expect *e = &o->expects[o->nexpects];
    memset(e, 0, sizeof *e);
    e->op = rd32(p);
    e->core = (int32_t)rd32(p + 4);
    e->nops = rd32(p + 8);
    unsigned min_ops, max_ops, naddr;
    tpu_obj_expect_shape(e->op, &min_ops, &max_ops, &naddr);
    if (min_ops == 0)
        return tpu_objp_rec_fail(ps, "unknown expect op %u", e->op);
    if (e->core < -1)
        return tpu_objp_rec_fail(ps, "expect core %d is negative (-1 means every core)", e->core);
    if (tpu_objp_check_zero(ps, off + 12, 4, "EXPECT pad"))
        return -1;
    if (e->nops < min_ops || e->nops > max_ops) {
        if (min_ops == max_ops)
            return tpu_objp_rec_fail(ps, "expect %s has %u operands, it takes %u",
                                     tpu_expect_op_name(e->op), e->nops, min_ops);
        return tpu_objp_rec_fail(ps, "expect %s has %u operands, it takes %u to %u",
                                 tpu_expect_op_name(e->op), e->nops, min_ops, max_ops);
    }
    if (len != EXPECT_HDR + EXPECT_OP_SIZE * e->nops)
        return tpu_objp_rec_fail(ps, "EXPECT payload is %u bytes, %u operands need %u", len,
                                 e->nops, EXPECT_HDR + EXPECT_OP_SIZE * e->nops);
    for (uint32_t k = 0; k < e->nops; k++) {
        const uint8_t *q = p + EXPECT_HDR + EXPECT_OP_SIZE * k;
        size_t qoff = off + EXPECT_HDR + EXPECT_OP_SIZE * k;
        if (tpu_objp_check_zero(ps, qoff + 1, 7, "EXPECT operand pad"))
            return -1;
        e->ops[k].space = q[0];
        e->ops[k].value = rd64(q + 8);
        if (k < naddr && q[0] != TPU_SPACE_HBM && q[0] != TPU_SPACE_VMEM)
            return tpu_objp_rec_fail(
                ps,
                "expect %s operand %u must be an hbm or vmem address (space %u at "
                "offset 0x%zx)",
                tpu_expect_op_name(e->op), k + 1, q[0], qoff);
        if (k >= naddr && q[0] != TPU_SPACE_NONE)
            return tpu_objp_rec_fail(
                ps, "expect %s operand %u is a number, but has space %u at offset 0x%zx",
                tpu_expect_op_name(e->op), k + 1, q[0], qoff);
        if (k >= naddr && e->op == TPU_EXPECT_F32 && e->ops[k].value > UINT32_MAX)
            return tpu_objp_rec_fail(ps, "expect f32 value %u is 0x%llx, not a 32-bit pattern", k,
                                     (unsigned long long)e->ops[k].value);
    }
    o->nexpects++;
    return 0;
}

int tpu_objp_array(parser *ps, const uint8_t *p, uint32_t len, tpu_object *o, char **store)
{
    size_t off = (size_t)(p - ps->buf);
    if (len < ARRAY_HDR)
        return tpu_objp_rec_fail(ps, "ARRAY payload of %u bytes is shorter than its %u-byte header",
                                 len, ARRAY_HDR);
    tpu_obj_array a = { .type = p[0], .layout = p[1], .ndim = p[2], .pitch = rd64(p + 8) };
    uint32_t n = rd32(p + 4);
    if (!tpu_array_type_name(a.type))
        return tpu_objp_rec_fail(
            ps, "bad array type %u at offset 0x%zx (1 bf16, 2 f32, 3 i8, 4 i32)", a.type, off);
    if (a.layout > TPU_ARRAY_KPAIRS)
        return tpu_objp_rec_fail(ps, "bad array layout %u at offset 0x%zx (0 rows, 1 K-pairs)",
                                 a.layout, off + 1);
    if (a.ndim < 1 || a.ndim > TPU_OBJ_MAX_ARRAY_DIMS)
        return tpu_objp_rec_fail(ps, "array of %u dimensions at offset 0x%zx (1 to %u)", a.ndim,
                                 off + 2, TPU_OBJ_MAX_ARRAY_DIMS);
    if (tpu_objp_check_zero(ps, off + 3, 1, "ARRAY pad"))
        return -1;
    if ((uint64_t)n + ARRAY_HDR + 8u * a.ndim != len)
        return tpu_objp_rec_fail(ps,
                                 "ARRAY name length %u does not match its payload of %u bytes with "
                                 "%u dimensions",
                                 n, len, a.ndim);
    if (tpu_objp_check_name(ps, off + ARRAY_HDR + 8u * a.ndim, n))
        return -1;
    for (unsigned d = 0; d < a.ndim; d++) {
        a.dims[d] = rd64(p + ARRAY_HDR + 8 * d);
        if (a.dims[d] == 0)
            return tpu_objp_rec_fail(ps, "array dimension %u is 0 (each is at least 1)", d);
    }
    a.name = *store;
    memcpy(*store, p + ARRAY_HDR + 8u * a.ndim, n);
    (*store)[n] = 0;
    *store += n + 1;
    if (a.layout == TPU_ARRAY_KPAIRS && (a.type != TPU_ARRAY_I8 || a.ndim != 2))
        return tpu_objp_rec_fail(ps, "array '%s': the K-pair layout is for 2-D i8 arrays only",
                                 a.name);
    uint64_t count = tpu_array_count(&a);
    if (!count || count > UINT64_MAX / tpu_array_esize(a.type))
        return tpu_objp_rec_fail(ps, "array '%s' has more elements than 64-bit sizes can count",
                                 a.name);
    if (a.pitch < tpu_array_row_bytes(&a))
        return tpu_objp_rec_fail(ps, "array '%s': pitch %llu is less than a row's %llu bytes",
                                 a.name, (unsigned long long)a.pitch,
                                 (unsigned long long)tpu_array_row_bytes(&a));
    if (!tpu_array_extent(&a))
        return tpu_objp_rec_fail(ps, "array '%s' runs past the end of the 64-bit address space",
                                 a.name);
    o->arrays[o->narrays++] = a;
    return 0;
}

/* Chunks of one space must not overlap: sort by (space, addr) and compare
 * neighbours.  `recno` maps chunk index -> record index for the message. */
