/*
 * obj_write.c - serialise an object (docs/object-format.md) and write it to a
 * file (objfile.h).
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

/* ---- CRC-32 (zlib/IEEE 802.3, reflected polynomial 0xEDB88320) -------- */

uint32_t tpu_crc32(const uint8_t *p, size_t n)
{
    uint32_t table[256];
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++)
            c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
        table[i] = c;
    }
    uint32_t crc = 0xFFFFFFFFu;
    for (size_t i = 0; i < n; i++)
        crc = table[(crc ^ p[i]) & 0xff] ^ (crc >> 8);
    return crc ^ 0xFFFFFFFFu;
}

/* ---- serialising --------------------------------------------------------- */

int tpu_obj_config_present(const tpu_obj_config *c)
{
    return c->mxu_n || c->num_mxu || c->vpu_sublanes || c->vpu_lanes;
}

/* Start a record at p: header plus payload space; returns the payload. */
static uint8_t *put_record(uint8_t **p, uint32_t type, uint64_t payload)
{
    uint8_t *r = *p;
    wr32(r, type);
    wr32(r + 4, (uint32_t)payload);
    *p = r + REC_HDR + pad8(payload);
    return r + REC_HDR;
}

/* Writes the canonical record order: CONFIG, TEXT, chunks as added,
 * symbols sorted (without touching the object), expects as added, arrays
 * as added. */
int tpu_obj_serialize(const tpu_object *o, uint8_t **buf, size_t *len)
{
    uint64_t total = TPU_OBJ_HEADER_SIZE, nrec = 0;
    const uint64_t limit = TPU_OBJ_MAX_SIZE;

    *buf = NULL;
    *len = 0;
    if (tpu_obj_config_present(&o->config))
        total += REC_HDR + CONFIG_SIZE, nrec++;
    if (o->ntext > 0) {
        if (o->ntext > limit / 8)
            return -1;
        total += REC_HDR + 8 * (uint64_t)o->ntext, nrec++;
    }
    for (size_t i = 0; i < o->nchunks && total <= limit; i++) {
        const tpu_obj_chunk *c = &o->chunks[i];
        if (c->rec == TPU_REC_DATA && c->size > limit)
            return -1;
        total += REC_HDR + (c->rec == TPU_REC_DATA ? pad8(DATA_HDR + c->size) : FILL_SIZE), nrec++;
    }
    for (size_t i = 0; i < o->nsyms && total <= limit; i++)
        total += REC_HDR + pad8(SYMBOL_HDR + strlen(o->syms[i].name)), nrec++;
    for (size_t i = 0; i < o->nexpects && total <= limit; i++) {
        if (o->expects[i].nops > TPU_OBJ_MAX_EXPECT_OPS)
            return -1;
        total += REC_HDR + EXPECT_HDR + EXPECT_OP_SIZE * (uint64_t)o->expects[i].nops, nrec++;
    }
    for (size_t i = 0; i < o->narrays && total <= limit; i++) {
        if (o->arrays[i].ndim > TPU_OBJ_MAX_ARRAY_DIMS)
            return -1;
        total += REC_HDR + pad8(ARRAY_HDR + 8 * (uint64_t)o->arrays[i].ndim
                                + strlen(o->arrays[i].name)), nrec++;
    }
    if (total > limit)
        return -1;

    const tpu_obj_symbol **sorted = NULL;
    if (o->nsyms > 0) {
        sorted = malloc(o->nsyms * sizeof *sorted);
        if (!sorted)
            return -1;
        for (size_t i = 0; i < o->nsyms; i++)
            sorted[i] = &o->syms[i];
        qsort(sorted, o->nsyms, sizeof *sorted, tpu_obj_sym_ptr_cmp);
    }
    uint8_t *out = calloc(1, (size_t)total);
    if (!out) {
        free(sorted);
        return -1;
    }

    uint8_t *p = out + TPU_OBJ_HEADER_SIZE, *q;
    if (tpu_obj_config_present(&o->config)) {
        q = put_record(&p, TPU_REC_CONFIG, CONFIG_SIZE);
        wr32(q, o->config.mxu_n);
        wr32(q + 4, o->config.num_mxu);
        wr32(q + 8, o->config.vpu_sublanes);
        wr32(q + 12, o->config.vpu_lanes);
    }
    if (o->ntext > 0) {
        q = put_record(&p, TPU_REC_TEXT, 8 * (uint64_t)o->ntext);
        for (size_t i = 0; i < o->ntext; i++)
            wr64(q + 8 * i, o->text[i]);
    }
    for (size_t i = 0; i < o->nchunks; i++) {
        const tpu_obj_chunk *c = &o->chunks[i];
        if (c->rec == TPU_REC_DATA) {
            q = put_record(&p, TPU_REC_DATA, DATA_HDR + c->size);
            q[0] = c->space;
            wr64(q + 8, c->addr);
            if (c->size)
                memcpy(q + DATA_HDR, c->data, (size_t)c->size);
        } else {
            q = put_record(&p, TPU_REC_FILL, FILL_SIZE);
            q[0] = c->space;
            q[1] = c->fill;
            wr64(q + 8, c->addr);
            wr64(q + 16, c->size);
            wr64(q + 24, c->seed);
            wr32(q + 32, c->lo_bits);
            wr32(q + 36, c->hi_bits);
        }
    }
    for (size_t i = 0; i < o->nsyms; i++) {
        const tpu_obj_symbol *s = sorted[i];
        size_t n = strlen(s->name);
        q = put_record(&p, TPU_REC_SYMBOL, SYMBOL_HDR + n);
        q[0] = s->space;
        wr32(q + 4, (uint32_t)n);
        wr64(q + 8, s->value);
        memcpy(q + SYMBOL_HDR, s->name, n);
    }
    for (size_t i = 0; i < o->nexpects; i++) {
        const tpu_obj_expect *e = &o->expects[i];
        q = put_record(&p, TPU_REC_EXPECT, EXPECT_HDR + EXPECT_OP_SIZE * (uint64_t)e->nops);
        wr32(q, e->op);
        wr32(q + 4, (uint32_t)e->core);
        wr32(q + 8, e->nops);
        for (uint32_t k = 0; k < e->nops; k++) {
            q[EXPECT_HDR + EXPECT_OP_SIZE * k] = e->ops[k].space;
            wr64(q + EXPECT_HDR + EXPECT_OP_SIZE * k + 8, e->ops[k].value);
        }
    }
    for (size_t i = 0; i < o->narrays; i++) {
        const tpu_obj_array *a = &o->arrays[i];
        size_t n = strlen(a->name);
        q = put_record(&p, TPU_REC_ARRAY, ARRAY_HDR + 8 * (uint64_t)a->ndim + n);
        q[0] = a->type;
        q[1] = a->layout;
        q[2] = a->ndim;
        wr32(q + 4, (uint32_t)n);
        wr64(q + 8, a->pitch);
        for (unsigned d = 0; d < a->ndim; d++)
            wr64(q + ARRAY_HDR + 8 * d, a->dims[d]);
        memcpy(q + ARRAY_HDR + 8 * a->ndim, a->name, n);
    }
    free(sorted);

    memcpy(out, TPU_OBJ_MAGIC, 8);
    wr16(out + 8, TPU_OBJ_VERSION);
    wr16(out + 10, TPU_OBJ_HEADER_SIZE);
    wr32(out + 12, (uint32_t)nrec);
    wr32(out + 16, (uint32_t)total);
    wr32(out + 20, tpu_crc32(out + TPU_OBJ_HEADER_SIZE, (size_t)total - TPU_OBJ_HEADER_SIZE));
    *buf = out;
    *len = (size_t)total;
    return 0;
}

int tpu_obj_write(const tpu_object *o, const char *path, char *err, size_t errlen)
{
    uint8_t *buf;
    size_t len;
    if (tpu_obj_serialize(o, &buf, &len) != 0) {
        snprintf(err, errlen, "%s: cannot build the object (out of memory, or larger than %u bytes)",
                 path, (unsigned)TPU_OBJ_MAX_SIZE);
        return -1;
    }
    FILE *f = fopen(path, "wb");
    if (!f) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        free(buf);
        return -1;
    }
    size_t put = fwrite(buf, 1, len, f);
    int write_errno = errno;
    free(buf);
    if (put != len) {
        snprintf(err, errlen, "%s: %s", path, strerror(write_errno));
        fclose(f);
        return -1;
    }
    if (fclose(f) != 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}

