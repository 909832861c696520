/*
 * fuzz_asm.c - libFuzzer target for the assembler.
 *
 * Any byte string must either assemble or give at least one message of the
 * form "FILE:LINE:COL: error: ..."; an object it produces must serialise
 * and load again.  The first byte picks whether to assemble with the tiny
 * preset (predefined constants, small memories) or with no config.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "asm.h"
#include "config.h"
#include "objfile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    tpu_config cfg;
    tpu_asm_options opt;
    char err[256];
    memset(&opt, 0, sizeof opt);
    if (size > 0 && (data[0] & 1)) {
        tpu_config_defaults(&cfg);
        if (tpu_config_load(&cfg, "tiny", err, sizeof err) != 0)
            abort();
        opt.config = &cfg;
    }
    opt.listing = size > 0 && (data[0] & 2);

    tpu_object o;
    tpu_asm_result res;
    int rc = tpu_asm_assemble((const char *)data, size, "f.s", &opt, &o, &res);
    if (rc != 0) {
        /* a failure must explain itself in the documented form */
        if (res.nerrors == 0 || strncmp(res.messages, "f.s:", 4) != 0 ||
            !strstr(res.messages, ": error: "))
            abort();
    } else {
        uint8_t *buf;
        size_t len;
        if (tpu_obj_serialize(&o, &buf, &len) == 0) {
            tpu_object back;
            tpu_obj_init(&back);
            if (tpu_obj_parse(buf, len, &back, err, sizeof err) != 0)
                abort();        /* the assembler wrote something the loader rejects */
            tpu_obj_free(&back);
            free(buf);
        }
    }
    tpu_obj_free(&o);
    tpu_asm_result_free(&res);
    return 0;
}
