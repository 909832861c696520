/*
 * kgen_out.c - the one program writer of tpu-gen's commands: the output
 * file, the write errors and the IMEM check, so that every kernel (GEMM,
 * convolution, VPU layer, chain, the transformer layers, the sharded MLP)
 * says the same words when its program cannot be written or is too long.
 */
#include "kgen.h"

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
