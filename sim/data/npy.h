/*
 * npy.h - read and write NumPy's .npy files (format versions 1.0, 2.0 and
 * 3.0), the arrays tpu-sim --load/--dump and tpu-gen --x/--w take.
 *
 * Only what the machine's memories hold: little-endian float32 ('<f4'),
 * int32 ('<i4'), int8 ('|i1') and uint16 ('<u2', used for raw bf16 bit
 * patterns), in C order, any number of dimensions (up to NPY_MAX_DIMS).
 * The reader trusts nothing: a bad magic, an unknown or big-endian dtype,
 * Fortran order, an object or structured array, a header that is too long,
 * holds a NUL or is not a dict of exactly 'descr', 'fortran_order' and
 * 'shape', a shape whose size overflows, and data shorter or longer than
 * the shape says are each refused with one line that says what was
 * expected (it is fuzzed: tests/fuzz/fuzz_npy.c).  docs/tpu-sim.md,
 * "Arrays in and out", is the user's page.
 */
#ifndef TPU_NPY_H
#define TPU_NPY_H

#include <stddef.h>
#include <stdint.h>

#define NPY_MAX_DIMS        8
#define NPY_MAX_HEADER      65536           /* bytes of the header dict we read */
#define NPY_MAX_DATA        (1ull << 40)    /* bytes of data we accept */

typedef enum {
    NPY_F32 = 1,    /* '<f4' */
    NPY_I32 = 2,    /* '<i4' */
    NPY_I8 = 3,     /* '|i1' ('<i1', 'i1' read too) */
    NPY_U16 = 4,    /* '<u2' */
} npy_dtype;

typedef struct npy_array {
    npy_dtype dtype;
    unsigned ndim;                  /* 0 for a scalar (shape ()) */
    uint64_t shape[NPY_MAX_DIMS];
    uint64_t count;                 /* elements: the product of the shape */
    unsigned esize;                 /* bytes per element */
    uint8_t *data;                  /* count * esize bytes, little-endian; malloc'd */
} npy_array;

/* The dtype's name as numpy writes it ('<f4'), and a reader's word ("float32"). */
const char *npy_descr(npy_dtype t);
const char *npy_dtype_name(npy_dtype t);
unsigned npy_esize(npy_dtype t);

/* "(3, 4)", "(5,)", "()" into buf. */
void npy_shape_text(const uint64_t *shape, unsigned ndim, char *buf, size_t len);

/* Parse a whole file held in memory.  With data_too 0 only the header is
 * read (a->data stays NULL; the data's length is still checked against
 * len).  On failure: -1 and a message (without the file name) in err. */
int npy_parse(const uint8_t *buf, size_t len, npy_array *a, int data_too, char *err,
              size_t errlen);

/* Read a file (data_too as for npy_parse: 0 reads only the header, the
 * data's length still checked against the file's size).  The message
 * does not name the file: the caller does ("TOOL: x.npy: error: ..."). */
int npy_read(const char *path, npy_array *a, int data_too, char *err, size_t errlen);

/* Write an array whole or not at all: into a temporary file beside path,
 * renamed over path when complete.  Version 1.0 (2.0 when the header does
 * not fit 1.0's 65535 bytes), the header padded to a multiple of 64 bytes,
 * as numpy writes it. */
int npy_write(const char *path, const npy_array *a, char *err, size_t errlen);

/* The header numpy would write for a (magic and length included) into a
 * malloc'd buffer; its length in *len.  NULL when out of memory. */
uint8_t *npy_header(const npy_array *a, size_t *len);

void npy_free(npy_array *a);

#endif /* TPU_NPY_H */
