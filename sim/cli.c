/*
 * cli.c - command-line pieces the tools share (cli.h).
 */
#include "cli.h"

#include "asm.h"

#include <stdio.h>
#include <stdlib.h>
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

char *tpu_cli_read_source(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap)
            break;
        if (cap >= TPU_ASM_MAX_SOURCE) {
            free(buf);
            buf = NULL;
            break;
        }
        char *nb = realloc(buf, cap * 2);
        if (!nb) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = nb;
        cap *= 2;
    }
    if (buf && ferror(f)) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    *len = n;
    return buf;
}

char *tpu_cli_read_program(const char *tool, const char *dir, const char *argv0,
                           const char *name, char *path, size_t pathlen, size_t *len)
{
    char exe_dir[1024];
    const char *dirs[2] = { dir ? dir : "programs", NULL };
    int nd = 1;
    const char *slash = strrchr(argv0, '/');
    if (!dir && slash && (size_t)(slash - argv0) < sizeof exe_dir - 20) {
        snprintf(exe_dir, sizeof exe_dir, "%.*s/../../programs", (int)(slash - argv0), argv0);
        dirs[nd++] = exe_dir;
    }
    for (int i = 0; i < nd; i++) {
        snprintf(path, pathlen, "%s/%s", dirs[i], name);
        char *src = tpu_cli_read_source(path, len);
        if (src)
            return src;
    }
    fprintf(stderr, "%s: error: cannot read %s/%s (run from the repository root or give "
            "--programs DIR)\n", tool, dirs[0], name);
    return NULL;
}
