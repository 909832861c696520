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
