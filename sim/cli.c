/*
 * cli.c - command-line pieces the tools share (cli.h).
 */
#include "cli.h"

#include <stdio.h>
#include <string.h>

const char *tpu_cli_opt_value(int argc, char **argv, int *i, const char *name, int *missing)
{
    size_t n = strlen(name);
    const char *a = argv[*i];
    if (strncmp(a, name, n) != 0)
        return NULL;
    if (a[n] == '=')
        return a + n + 1;
    if (a[n] != 0)
        return NULL;
    if (*i + 1 >= argc) {
        *missing = 1;
        return NULL;
    }
    return argv[++*i];
}

int tpu_cli_load_config(const char *tool, const char *name, tpu_config *cfg)
{
    char err[512];
    tpu_config_defaults(cfg);
    if (tpu_config_load(cfg, name, err, sizeof err)) {
        fprintf(stderr, "%s: --config %s: %s\n", tool, name, err);
        return -1;
    }
    return 0;
}

int tpu_cli_finish_config(const char *tool, tpu_config *cfg, const char *const *sets,
                          unsigned nsets)
{
    char err[512];
    for (unsigned i = 0; i < nsets; i++)
        if (tpu_config_set(cfg, sets[i], err, sizeof err)) {
            fprintf(stderr, "%s: %s\n", tool, err);     /* "--set: error: ..." */
            return -1;
        }
    if (tpu_config_validate(cfg, err, sizeof err)) {
        fprintf(stderr, "%s: config %s: %s\n", tool, cfg->name, err);
        return -1;
    }
    return 0;
}
