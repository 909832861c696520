/*
 * fuzz_npy.c - libFuzzer target for the .npy reader (sim/data/npy.c).
 *
 * Any byte string must either parse or be rejected with a message; a
 * parsed array must hold exactly the bytes its shape says, and writing its
 * header back (as npy_write does) and parsing that with the data must give
 * the same dtype, shape and bytes.  The header-only parse must agree with
 * the full one.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "npy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    npy_array a, h;
    char err[512];
    uint8_t *copy = malloc(size ? size : 1);
    if (!copy)
        return 0;
    memcpy(copy, data, size);
    int rc = npy_parse(copy, size, &a, 1, err, sizeof err);
    int rh = npy_parse(copy, size, &h, 0, err, sizeof err);
    free(copy);                      /* the array must not point into the input */
    if ((rc == 0) != (rh == 0))
        abort();                     /* the header-only parse disagrees */
    if (rc != 0) {
        if (err[0] == 0)
            abort();                 /* a rejection must say why */
        return 0;
    }
    if (h.data || h.count != a.count || h.dtype != a.dtype || h.ndim != a.ndim)
        abort();
    uint64_t n = 1;
    for (unsigned d = 0; d < a.ndim; d++)
        n *= a.shape[d];
    if (n != a.count || a.esize != npy_esize(a.dtype) || a.ndim > NPY_MAX_DIMS)
        abort();
    size_t bytes = (size_t)(a.count * a.esize);
    volatile uint8_t sum = 0;        /* every byte of the data is readable */
    for (size_t i = 0; i < bytes; i++)
        sum ^= a.data[i];
    size_t hlen;
    uint8_t *hdr = npy_header(&a, &hlen);
    if (hdr) {
        uint8_t *file = malloc(hlen + bytes + 1);
        if (file) {
            npy_array b;
            memcpy(file, hdr, hlen);
            memcpy(file + hlen, a.data, bytes);
            if (hlen % 64 || npy_parse(file, hlen + bytes, &b, 1, err, sizeof err) != 0)
                abort();             /* what we write, we must read */
            if (b.dtype != a.dtype || b.ndim != a.ndim || b.count != a.count
                || memcmp(b.shape, a.shape, sizeof a.shape) != 0
                || memcmp(b.data, a.data, bytes) != 0)
                abort();
            npy_free(&b);
            free(file);
        }
        free(hdr);
    }
    npy_free(&a);
    return 0;
}
