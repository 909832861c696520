/*
 * fuzz_obj.c - libFuzzer target for the object-file loader.
 *
 * Any byte string must either load or be rejected with a message; a loaded
 * object must be safe to walk (every chunk readable, every instruction
 * decodable or reported illegal) and must serialise back to a file that
 * loads again.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "isa.h"
#include "objfile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    tpu_object o;
    char err[256];
    uint8_t *copy = malloc(size ? size : 1);
    if (!copy)
        return 0;
    memcpy(copy, data, size);
    if (size >= TPU_OBJ_HEADER_SIZE) {
        uint32_t crc = tpu_crc32(copy + TPU_OBJ_HEADER_SIZE, size - TPU_OBJ_HEADER_SIZE);
        for (int i = 0; i < 4; i++) {
            copy[16 + i] = (uint8_t)(size >> (8 * i));
            copy[20 + i] = (uint8_t)(crc >> (8 * i));
        }
    }
    tpu_obj_init(&o);
    int rc = tpu_obj_parse(copy, size, &o, err, sizeof err);
    free(copy);                      /* the object must not point into the input */
    if (rc != 0) {
        if (err[0] == 0)
            abort();                 /* a rejection must say why */
        tpu_obj_free(&o);
        return 0;
    }
    for (size_t i = 0; i < o.ntext; i++) {
        tpu_insn in;
        char buf[160];
        if (tpu_decode(o.text[i], &in, NULL) == 0)
            tpu_format_insn(&in, buf, sizeof buf, NULL, NULL);
    }
    for (size_t i = 0; i < o.nchunks; i++) {
        uint8_t buf[64];
        const tpu_obj_chunk *c = &o.chunks[i];
        size_t n = c->size < sizeof buf ? (size_t)c->size : sizeof buf;
        tpu_obj_chunk_read(c, 0, buf, n);
        if (c->size > sizeof buf)
            tpu_obj_chunk_read(c, c->size - sizeof buf, buf, sizeof buf);
    }
    uint8_t *out;
    size_t outlen;
    if (tpu_obj_serialize(&o, &out, &outlen) == 0) {
        tpu_object again;
        tpu_obj_init(&again);
        if (tpu_obj_parse(out, outlen, &again, err, sizeof err) != 0)
            abort();                 /* what we write, we must read */
        tpu_obj_free(&again);
        free(out);
    }
    tpu_obj_free(&o);
    return 0;
}
