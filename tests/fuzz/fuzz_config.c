/*
 * fuzz_config.c - libFuzzer target for the configuration parser: any text
 * is either accepted (and then valid or rejected by validate with a
 * message) or rejected with a message naming the line.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    char err[512], printed[4096];
    tpu_config c;
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = 0;                      /* the parser takes a C string */
    tpu_config_defaults(&c);
    if (tpu_config_parse(&c, text, "f.cfg", err, sizeof err) != 0) {
        if (strncmp(err, "f.cfg:", 6) != 0)
            abort();
    } else if (tpu_config_validate(&c, err, sizeof err) == 0) {
        /* a valid config prints as text that parses back to the same config */
        tpu_config back;
        tpu_config_print(&c, printed, sizeof printed);
        tpu_config_defaults(&back);
        if (tpu_config_parse(&back, printed, "printed", err, sizeof err) != 0)
            abort();
    }
    free(text);
    return 0;
}
