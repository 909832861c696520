/*
 * kgen_out.c - what tpu-gen's commands share: a whole-number option and
 * the program writer (the output file, the write errors and the IMEM
 * check), so that every kernel (GEMM, convolution, VPU layer, chain, the
 * transformer layers) says the same words for a bad number, a program
 * that cannot be written or one too long.
 */
#include "kgen.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int kgen_parse_count(const char *opt, const char *s, uint64_t *out, int zero_ok)
{
    if (!s || !*s) {
        fprintf(stderr, "tpu-gen: error: %s needs a value\n", opt);
        return 2;
    }
    for (const char *c = s; *c; c++)
        if (*c < '0' || *c > '9') {
            fprintf(stderr, "tpu-gen: error: %s must be a %s whole number, got '%s'\n", opt,
                    zero_ok ? "non-negative" : "positive", s);
            return 2;
        }
    errno = 0;
    unsigned long long v = strtoull(s, NULL, 10);
    if (errno || v > (1ull << 40)) {
        fprintf(stderr, "tpu-gen: error: %s is too large: '%s'\n", opt, s);
        return 2;
    }
    if (v == 0 && !zero_ok) {
        fprintf(stderr, "tpu-gen: error: %s must be positive, got '%s'\n", opt, s);
        return 2;
    }
    *out = v;
    return 0;
}

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
