/*
 * expect.h - check an object's `.expect` records after a run.
 *
 * Each record names an output region and a reference operation
 * (objfile.h: enum tpu_expect_op).  The inputs of the operation are read
 * from the object's initial data (its DATA and FILL chunks, as loaded),
 * never from memory after the run, because a program may overwrite its
 * inputs.  The outputs are read through a callback, so the checker works
 * on the C model (tpu_mem_read), on an RTL dump, or on a fake in a test.
 * The reference results come from ref.c, in the order docs/numerics.md
 * fixes, and must match bit for bit.
 */
#ifndef TPU_EXPECT_H
#define TPU_EXPECT_H

#include <stddef.h>
#include <stdint.h>

#include "objfile.h"

/* Read n bytes at addr of `space` from core `core`'s memory after the run.
 * Returns 0, or -1 when the range is outside the memory. */
typedef int (*tpu_expect_read_fn)(void *ctx, unsigned core, enum tpu_space space,
                                  uint64_t addr, void *dst, size_t n);

/* The machine the program ran on. */
typedef struct tpu_expect_target {
    unsigned ncores;              /* a record with core -1 is checked on each */
    unsigned tile;                /* mxu_n: the K-tile of matmul (numerics.md section 5) */
    uint64_t hbm_bytes, vmem_bytes; /* sizes: regions outside are refused before any work */
    tpu_expect_read_fn read;
    void *ctx;
    size_t block_bytes;           /* work block (output bytes); 0: 4 MiB.  Tests make it small. */
} tpu_expect_target;

/* Largest region one operand may cover, and the largest matmul (B*D*F
 * multiply-adds) the checker computes: a bad object gets a clear error
 * instead of a huge allocation or an hour of work. */
#define TPU_EXPECT_MAX_REGION  (2ull << 30)
#define TPU_EXPECT_MAX_MACS    (1ull << 38)
#define TPU_EXPECT_MAX_TERMS   65536u       /* K of `sum` */

enum tpu_expect_status {
    TPU_EXPECT_NONE,        /* the object has no .expect records */
    TPU_EXPECT_PASS,        /* every check is bit-exact */
    TPU_EXPECT_MISMATCH,    /* a result differs: message names the first element */
    TPU_EXPECT_ERROR,       /* a check could not be done: message says why */
};

typedef struct tpu_expect_result {
    enum tpu_expect_status status;
    unsigned checked;       /* (record, core) checks that passed */
    char message[512];      /* "bit-exact", "MISMATCH in matmul Y (hbm 0x3000) at
                             * [3][5]: expected 0x3f800000 (1), got 0x3f800001
                             * (1.00000012)", "no .expect records", or the error */
} tpu_expect_result;

/* Check every record of obj, in order, stopping at the first mismatch or
 * error.  Never crashes on any object. */
void tpu_expect_check(const tpu_object *obj, const tpu_expect_target *t, tpu_expect_result *res);

/* The bytes the object puts at [addr, addr+n) of `space` when it is
 * loaded: zero where no chunk covers them, later chunks over earlier ones. */
void tpu_expect_initial_read(const tpu_object *obj, enum tpu_space space, uint64_t addr,
                             uint8_t *dst, size_t n);

#endif /* TPU_EXPECT_H */
