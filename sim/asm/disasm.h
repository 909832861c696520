/*
 * disasm.h - turn an object back into assembly source.
 *
 * The text is in the syntax of docs/assembler.md, and `tpu-as` assembles it
 * back to a byte-identical object: every record is printed so that the
 * assembler's record rules (an origin starts a record; .zero and .random
 * make FILL records) rebuild exactly that record.
 */
#ifndef TPU_DISASM_H
#define TPU_DISASM_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "objfile.h"

typedef struct tpu_dis_options {
    int no_addresses;       /* leave out the "# 0x0004" address comments */
    const char *source;     /* object file name for the header comment, or NULL */
} tpu_dis_options;

/* Write the whole object as assembly text.  opt may be NULL.  Returns 0,
 * or -1 when writing to `out` failed. */
int tpu_disasm(const tpu_object *o, const tpu_dis_options *opt, FILE *out);

/* An fp32 bit pattern as the assembler reads it back exactly: "%.9g"
 * ("1.5", "-inf"), or "bits(0x80000000)" for -0, NaNs and anything else
 * whose decimal would not come back as the same bits. */
void tpu_dis_f32(uint32_t bits, char *buf, size_t len);

#endif /* TPU_DISASM_H */
