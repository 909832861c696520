/*
 * kgen_out.c - what tpu-gen's commands share when they write: the program
 * writer (the output file, the write errors and the IMEM check), so that
 * every kernel (GEMM, convolution, VPU layer, chain, the transformer
 * layers) says the same words for a program that cannot be written or one
 * too long; and --ref's .npy of a C reference's result.  Their options:
 * kgen_args.c.
 */
#include "kgen.h"
#include "npy.h"

#include <errno.h>
#include <string.h>

long kgen_write_program(const char *out, const tpu_config *cfg, kgen_emit_fn emit, const void *ctx)
{
    FILE *fo = stdout;
    if (out && !(fo = fopen(out, "w"))) {
        fprintf(stderr, "tpu-gen: error: cannot write '%s': %s\n", out, strerror(errno));
        return -1;
    }
    long n = emit(fo, ctx);
    if (out && fclose(fo) != 0)
        n = -1;
    if (n < 0) {
        fprintf(stderr, "tpu-gen: error: cannot write '%s'\n", out ? out : "standard output");
        return -1;
    }
    if ((uint64_t)n > cfg->imem_words) {
        fprintf(stderr, "tpu-gen: error: the program has %ld instructions, IMEM holds %llu\n", n,
                (unsigned long long)cfg->imem_words);
        return -2;
    }
    return n;
}

int kgen_write_ref(const char *path, const uint32_t *v, uint64_t rows, uint64_t cols)
{
    npy_array a;
    memset(&a, 0, sizeof a);
    a.dtype = NPY_F32, a.ndim = 2, a.shape[0] = rows, a.shape[1] = cols, a.count = rows * cols, a.esize = 4;
    a.data = (uint8_t *)v;
    char err[300];
    if (npy_write(path, &a, err, sizeof err)) {
        fprintf(stderr, "tpu-gen: error: --ref %s: %s\n", path, err);
        return 1;
    }
    return 0;
}
