/*
 * lab_util.c - what the labs' grade functions share (labs.h).
 */
#include "labs.h"

#include <stdlib.h>
#include <string.h>

int lab_result(lab_grade *g, const char *id, lab_run *r, const char *mname)
{
    if (r->status == LAB_RUN_OK) {
        lab_pass(g, id, "bit-exact on %s (%llu cycles)", mname, (unsigned long long)r->cycles);
        lab_measure(g, id, r->cycles, 0);
        return 1;
    }
    if (r->status == LAB_RUN_INTERRUPTED) {
        g->interrupted = 1;
        lab_stop(g, "interrupted");
    }
    lab_fail_run(g, id, r, mname);
    if (r->status == LAB_RUN_ASM)
        lab_stop(g, "%s does not assemble for %s", g->path, mname);
    return 0;
}

int lab_run_own(lab_grade *g, lab_run *r, const char *file)
{
    size_t len;
    char *src = lab_read_program(g, file, &len);
    if (!src)
        return -1;
    r->src = src;
    r->src_len = len;
    r->name = file;
    lab_run_program(g, r);
    free(src);
    r->src = NULL;
    r->name = NULL;
    if (r->status == LAB_RUN_INTERRUPTED) {
        g->interrupted = 1;
        lab_stop(g, "interrupted");
        return -1;
    }
    if (r->status != LAB_RUN_OK) {
        char why[600];
        lab_internal(g, "the lab's own %s: %s", file, lab_run_why(r, why, sizeof why));
        return -1;
    }
    return 0;
}

const char *lab_pct(char *buf, size_t len, uint64_t cycles, double bound)
{
    snprintf(buf, len, "%llu cycles, %.1f%% of the bound %.0f", (unsigned long long)cycles,
             bound > 0 ? 100.0 * (double)cycles / bound : 0.0, bound);
    return buf;
}

int lab_parse_cfg(const char *text, const char *where, tpu_config *c, char *err, size_t len)
{
    tpu_config_defaults(c);
    if (tpu_config_parse(c, text, where, err, len))
        return -1;
    return tpu_config_validate(c, err, len);
}

const char *lab_changed_key(const tpu_config *a, const tpu_config *b, char *buf, size_t len)
{
    static const char *const free_keys[] = { "name", "mxu_n", "num_mxu", "hbm_bw", "vmem_bw" };
    char pa[8192], pb[8192];
    tpu_config_print(a, pa, sizeof pa);
    tpu_config_print(b, pb, sizeof pb);
    const char *x = pa, *y = pb;
    while (*x && *y) {
        size_t nx = strcspn(x, "\n"), ny = strcspn(y, "\n");
        size_t kl = strcspn(x, " =");
        int is_free = 0;
        for (unsigned i = 0; i < LAB_N(free_keys); i++)
            if (strlen(free_keys[i]) == kl && !strncmp(x, free_keys[i], kl))
                is_free = 1;
        if (!is_free && (nx != ny || strncmp(x, y, nx))) {
            snprintf(buf, len, "%.*s", (int)kl, x);
            return buf;
        }
        x += nx + (x[nx] == '\n');
        y += ny + (y[ny] == '\n');
    }
    return NULL;
}
