/*
 * lab_grade.c - the checks of a grade, the report, the CSV, the answers
 * and the machines of the labs (lab.h).
 */
#define _XOPEN_SOURCE 700    /* realpath */
#include "lab.h"

#include <ctype.h>
#include <strings.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "interrupt.h"

const lab_def *lab_find(unsigned num)
{
    for (unsigned i = 0; i < lab_ndefs; i++)
        if (lab_defs[i].num == num)
            return &lab_defs[i];
    return NULL;
}

unsigned lab_nchecks(const lab_def *lab)
{
    unsigned n = 0;
    while (lab->checks[n].id)
        n++;
    return n;
}

static int check_index(const lab_grade *g, const char *id)
{
    for (unsigned i = 0; i < lab_nchecks(g->lab); i++)
        if (!strcmp(g->lab->checks[i].id, id))
            return (int)i;
    return -1;
}

static void set_verdict(lab_grade *g, const char *id, int ok, const char *fmt, va_list ap)
{
    int i = check_index(g, id);
    if (i < 0) {
        lab_internal(g, "lab %u has no check named '%s'", g->lab->num, id);
        return;
    }
    if (g->done[i])
        return;
    g->done[i] = 1;
    g->pass[i] = ok;
    vsnprintf(g->detail[i], sizeof g->detail[i], fmt, ap);
}

void lab_pass(lab_grade *g, const char *id, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    set_verdict(g, id, 1, fmt, ap);
    va_end(ap);
}

void lab_fail(lab_grade *g, const char *id, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    set_verdict(g, id, 0, fmt, ap);
    va_end(ap);
}

int lab_verdict(lab_grade *g, const char *id, int ok, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    set_verdict(g, id, ok, fmt, ap);
    va_end(ap);
    return ok;
}

void lab_fail_run(lab_grade *g, const char *id, const lab_run *r, const char *mname)
{
    char why[600];
    lab_fail(g, id, "on %s: %s", mname, lab_run_why(r, why, sizeof why));
    int i = check_index(g, id);
    if (i >= 0 && !g->look[i][0])
        lab_run_look(r, g->look[i], sizeof g->look[i]);
}

void lab_measure(lab_grade *g, const char *id, uint64_t cycles, double bound)
{
    int i = check_index(g, id);
    if (i < 0)
        return;
    g->cycles[i] = cycles;
    g->bound[i] = bound;
}

int lab_check_speed(lab_grade *g, const char *id, uint64_t cycles, double bound,
                    double max_ratio)
{
    char buf[200];
    snprintf(buf, sizeof buf, "%llu cycles, %.1f%% of the bound %.0f", (unsigned long long)cycles,
             bound > 0 ? 100.0 * (double)cycles / bound : 0.0, bound);
    lab_measure(g, id, cycles, bound);
    return lab_verdict(g, id, (double)cycles <= max_ratio * bound, "%s", buf);
}

void lab_fail_after(lab_grade *g, const char *id, const char *before, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    set_verdict(g, id, 0, fmt, ap);
    va_end(ap);
    int i = check_index(g, id);
    if (i >= 0 && !g->look[i][0])
        snprintf(g->look[i], sizeof g->look[i], "%s first: this check needs it", before);
}

void lab_stop(lab_grade *g, const char *fmt, ...)
{
    if (g->stop[0])
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(g->stop, sizeof g->stop, fmt, ap);
    va_end(ap);
}

void lab_internal(lab_grade *g, const char *fmt, ...)
{
    if (g->internal[0])
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(g->internal, sizeof g->internal, fmt, ap);
    va_end(ap);
}

uint64_t lab_variant_of(const char *student)
{
    /* FNV-1a over the name, lower case, without surrounding blanks */
    const char *s = student, *e = student + strlen(student);
    while (s < e && isspace((unsigned char)*s))
        s++;
    while (e > s && isspace((unsigned char)e[-1]))
        e--;
    uint64_t h = 0xcbf29ce484222325ull;
    for (; s < e; s++) {
        h ^= (uint64_t)(unsigned char)tolower((unsigned char)*s);
        h *= 0x100000001b3ull;
    }
    return h ? h : 1;
}

int lab_grade_text(const lab_def *lab, const lab_env *env, const char *path, const char *student,
                   const char *text, size_t len, lab_grade *g)
{
    memset(g, 0, sizeof *g);
    g->lab = lab;
    g->student = student;
    g->variant = student ? lab_variant_of(student) : 0;
    /* the folder the submission may include from (asm.h include_sandbox) */
    const char *slash = strrchr(path, '/');
    if (!slash)
        snprintf(g->root, sizeof g->root, ".");
    else if (slash == path)
        snprintf(g->root, sizeof g->root, "/");
    else if ((size_t)(slash - path) < sizeof g->root)
        snprintf(g->root, sizeof g->root, "%.*s", (int)(slash - path), path);
    g->env = env;
    g->path = path;
    g->text = text;
    g->len = len;
    if (memchr(text, 0, len))
        lab_stop(g, "%s is not a text file (it holds a NUL byte)", path);
    else
        lab->grade(g);
    for (unsigned i = 0; i < lab_nchecks(lab); i++) {
        if (!g->done[i]) {
            g->done[i] = 1;
            g->pass[i] = 0;
            snprintf(g->detail[i], sizeof g->detail[i], "not checked: %.380s",
                     g->stop[0] ? g->stop : g->internal[0] ? g->internal : "an earlier check failed");
            /* look where the first failed check looks */
            for (unsigned k = 0; k < i && !g->look[i][0]; k++)
                if (g->done[k] && !g->pass[k])
                    snprintf(g->look[i], sizeof g->look[i], "%.390s",
                             g->look[k][0] ? g->look[k] : lab->checks[k].look);
        }
        if (g->pass[i])
            g->score += (unsigned)lab->checks[i].points;
    }
    return g->internal[0] || g->interrupted ? -1 : 0;
}

void lab_print(FILE *f, const lab_grade *g)
{
    const lab_def *lab = g->lab;
    fprintf(f, "lab %u (%s): %s\n", lab->num, lab->title, g->path);
    if (lab->print_variant && g->student)
        fprintf(f, "  variant: %s's own numbers (%016llx)\n", g->student,
                (unsigned long long)g->variant);
    else if (lab->print_variant)
        fprintf(f, "  variant: the handout's numbers (--student NAME grades a student's own)\n");
    if (g->stop[0])
        fprintf(f, "  note: %s\n", g->stop);
    for (unsigned i = 0; i < lab_nchecks(lab); i++) {
        const lab_check *c = &lab->checks[i];
        fprintf(f, "  %-4s %2d/%-2d %-16s %s\n", g->pass[i] ? "ok" : "FAIL",
                g->pass[i] ? c->points : 0, c->points, c->id, g->detail[i]);
        if (!g->pass[i])
            fprintf(f, "       %5s %-16s look at: %s\n", "", "", g->look[i][0] ? g->look[i] : c->look);
    }
    fprintf(f, "score: %u/%d\n", g->score, LAB_MAX_POINTS);
}

/* A CSV field: quoted when it holds a comma, a quote or a line end; a
 * field a spreadsheet would take for a formula (it starts with = + - @, or
 * a tab or carriage return before one) gets a ' in front, as OWASP's
 * advice on CSV injection has it. */
static void csv_field(FILE *f, const char *s)
{
    int formula = strchr("=+-@\t\r", s[0]) && s[0];
    if (!strpbrk(s, ",\"\r\n")) {
        if (formula)
            fputc('\'', f);
        fputs(s, f);
        return;
    }
    fputc('"', f);
    if (formula)
        fputc('\'', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s == '\n' || *s == '\r' ? ' ' : *s, f);
    }
    fputc('"', f);
}

/* Labs that run programs have measured columns: ID_cycles, ID_pct. */
static int has_measures(const lab_def *lab)
{
    return lab->kind != LAB_ANSWERS;
}

void lab_csv_header(FILE *f, const lab_def *lab)
{
    fputs("student,file,lab,score,max", f);
    for (unsigned i = 0; i < lab_nchecks(lab); i++)
        fprintf(f, ",%s", lab->checks[i].id);
    for (unsigned i = 0; has_measures(lab) && i < lab_nchecks(lab); i++)
        fprintf(f, ",%s_cycles,%s_pct_of_bound", lab->checks[i].id, lab->checks[i].id);
    fputs(",first_failure,warning\n", f);
}

void lab_csv_row(FILE *f, const lab_grade *g, const char *student, const char *warning)
{
    csv_field(f, student);
    fputc(',', f);
    csv_field(f, g->path);
    fprintf(f, ",%u,%u,%d", g->lab->num, g->score, LAB_MAX_POINTS);
    const char *first = "";
    char buf[480];
    for (unsigned i = 0; i < lab_nchecks(g->lab); i++) {
        fprintf(f, ",%d", g->pass[i] ? g->lab->checks[i].points : 0);
        if (!g->pass[i] && !first[0]) {
            snprintf(buf, sizeof buf, "%.40s: %.400s", g->lab->checks[i].id, g->detail[i]);
            first = buf;
        }
    }
    for (unsigned i = 0; has_measures(g->lab) && i < lab_nchecks(g->lab); i++) {
        if (g->cycles[i])
            fprintf(f, ",%llu", (unsigned long long)g->cycles[i]);
        else
            fputc(',', f);
        if (g->cycles[i] && g->bound[i] > 0)
            fprintf(f, ",%.1f", 100.0 * (double)g->cycles[i] / g->bound[i]);
        else
            fputc(',', f);
    }
    fputc(',', f);
    csv_field(f, first);
    fputc(',', f);
    csv_field(f, warning ? warning : "");
    fputc('\n', f);
}

void lab_csv_unreadable(FILE *f, const lab_def *lab, const char *student, const char *why)
{
    csv_field(f, student);
    fprintf(f, ",,%u,0,%d", lab->num, LAB_MAX_POINTS);
    for (unsigned i = 0; i < lab_nchecks(lab); i++)
        fputs(",0", f);
    for (unsigned i = 0; has_measures(lab) && i < lab_nchecks(lab); i++)
        fputs(",,", f);
    fputc(',', f);
    csv_field(f, why);
    fputs(",\n", f);
}

/* ---- files ------------------------------------------------------------------ */
#define LAB_MAX_FILE (8u << 20)

char *lab_read_file(const char *path, size_t *len, char *err, size_t errlen)
{
    /* not blocking: a FIFO handed in as a submission must not hang the grader */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY);
    struct stat st;
    if (fd < 0) {
        snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
        return NULL;
    }
    if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "%s is not a regular file", path);
        close(fd);
        return NULL;
    }
    FILE *f = fdopen(fd, "rb");
    if (!f) {
        snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
        close(fd);
        return NULL;
    }
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap + 1);
    while (buf) {
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (n > LAB_MAX_FILE) {
            snprintf(err, errlen, "%s is larger than %u MiB", path, LAB_MAX_FILE >> 20);
            free(buf);
            fclose(f);
            return NULL;
        }
        if (got == 0)
            break;
        if (n == cap) {
            cap *= 2;
            char *nb = realloc(buf, cap + 1);
            if (!nb) {
                free(buf);
                buf = NULL;
            }
            buf = nb;
        }
    }
    int bad = ferror(f);
    fclose(f);
    if (!buf || bad) {
        snprintf(err, errlen, "cannot read %s: %s", path, buf ? "read error" : "out of memory");
        free(buf);
        return NULL;
    }
    buf[n] = 0;
    *len = n;
    return buf;
}

char *lab_read_submission(const char *path, size_t *len, char *err, size_t errlen)
{
    struct stat st;
    if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) {
        /* a link may only point inside its own folder */
        char dir[PATH_MAX], *rdir = NULL, *rfile = realpath(path, NULL);
        const char *slash = strrchr(path, '/');
        snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - path) + (slash == path) : 1,
                 slash ? path : ".");
        rdir = realpath(dir, NULL);
        size_t dl = rdir ? strlen(rdir) : 0;
        int inside = rfile && rdir && !strncmp(rfile, rdir, dl)
                     && (rfile[dl] == '/' || (dl == 1 && rdir[0] == '/'));
        free(rfile);
        free(rdir);
        if (!inside) {
            snprintf(err, errlen, "%s is a symbolic link that leaves its folder: not graded "
                                  "(hand in the file itself)", path);
            return NULL;
        }
    }
    return lab_read_file(path, len, err, errlen);
}

char *lab_read_program(lab_grade *g, const char *name, size_t *len)
{
    char path[1024], err[1200];
    snprintf(path, sizeof path, "%s/%s", g->env->programs, name);
    char *s = lab_read_file(path, len, err, sizeof err);
    if (!s)
        lab_internal(g, "%s (give tpu-lab --programs DIR, the repository's programs folder)", err);
    return s;
}

/* ---- machines ---------------------------------------------------------------- */
int lab_machine(lab_grade *g, const char *base, const char *const *sets, unsigned nsets,
                tpu_config *cfg)
{
    char err[512], path[1024];
    tpu_config_defaults(cfg);
    const char *name = base;
    size_t bl = strlen(base);
    if (bl > 4 && !strcmp(base + bl - 4, ".cfg")) {
        snprintf(path, sizeof path, "%s/%s", g->env->programs, base);
        name = path;
    }
    if (tpu_config_load(cfg, name, err, sizeof err)) {
        lab_internal(g, "the lab's machine: %s", err);
        return -1;
    }
    for (unsigned i = 0; i < nsets; i++)
        if (tpu_config_set(cfg, sets[i], err, sizeof err)) {
            lab_internal(g, "the lab's machine: %s", err);
            return -1;
        }
    if (tpu_config_validate(cfg, err, sizeof err)) {
        lab_internal(g, "the lab's machine: %s", err);
        return -1;
    }
    return 0;
}

double lab_hbm_bpc(const tpu_config *cfg)
{
    return cfg->hbm_bw / cfg->clock_hz;
}

double lab_peak(const tpu_config *cfg)
{
    return 2.0 * (double)cfg->num_mxu * (double)cfg->mxu_n * (double)cfg->mxu_n;
}

/* ---- answers ------------------------------------------------------------------ */
int lab_answer_text(const lab_grade *g, const char *key, char *buf, size_t len)
{
    size_t kl = strlen(key);
    const char *p = g->text, *end = g->text + g->len;
    int found = 0;
    while (p < end) {
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        if (!eol)
            eol = end;
        const char *s = p;
        while (s < eol && (*s == ' ' || *s == '\t'))
            s++;
        if (g->lab->kind != LAB_ANSWERS) {
            /* "# answer: key = value" */
            if (s < eol && *s == '#') {
                s++;
                while (s < eol && (*s == ' ' || *s == '\t'))
                    s++;
                if ((size_t)(eol - s) >= 7 && !strncmp(s, "answer:", 7))
                    s += 7;
                else
                    s = eol;
            } else {
                s = eol;
            }
            while (s < eol && (*s == ' ' || *s == '\t'))
                s++;
        }
        if ((size_t)(eol - s) > kl && !strncmp(s, key, kl)
            && (s[kl] == ' ' || s[kl] == '\t' || s[kl] == '=')) {
            const char *v = s + kl;
            while (v < eol && (*v == ' ' || *v == '\t'))
                v++;
            if (v < eol && *v == '=') {
                v++;
                const char *ve = v;
                while (ve < eol && *ve != '#')
                    ve++;
                while (v < ve && (*v == ' ' || *v == '\t'))
                    v++;
                while (ve > v && (ve[-1] == ' ' || ve[-1] == '\t' || ve[-1] == '\r'))
                    ve--;
                snprintf(buf, len, "%.*s", (int)(ve - v), v);
                found = 1;          /* the last one wins */
            }
        }
        p = eol + 1;
    }
    return found;
}

int lab_answer_num(const lab_grade *g, const char *key, double *v)
{
    char buf[128];
    if (!lab_answer_text(g, key, buf, sizeof buf) || !buf[0])
        return 0;
    char *end;
    errno = 0;
    double d = strtod(buf, &end);
    if (end == buf || *end || errno || !isfinite(d))
        return -1;
    *v = d;
    return 1;
}

void lab_check_num(lab_grade *g, const char *id, const char *key, double want, double tol_abs,
                   double tol_rel)
{
    double got;
    char buf[128];
    int r = lab_answer_num(g, key, &got);
    if (r == 0) {
        lab_fail(g, id, "no answer: write a line '%s%s = NUMBER'",
                 g->lab->kind == LAB_ANSWERS ? "" : "# answer: ", key);
        return;
    }
    if (r < 0) {
        lab_answer_text(g, key, buf, sizeof buf);
        lab_fail(g, id, "%s = '%s' is not a number", key, buf);
        return;
    }
    double tol = tol_abs + tol_rel * fabs(want);
    if (fabs(got - want) <= tol)
        lab_pass(g, id, "%s = %g", key, got);
    else
        lab_fail(g, id, "%s = %g is not right%s", key, got,
                 tol > 0 ? " (not within the tolerance)" : "");
}

void lab_check_word(lab_grade *g, const char *id, const char *key, const char *want)
{
    char buf[128];
    if (!lab_answer_text(g, key, buf, sizeof buf) || !buf[0]) {
        lab_fail(g, id, "no answer: write a line '%s%s = WORD'",
                 g->lab->kind == LAB_ANSWERS ? "" : "# answer: ", key);
        return;
    }
    const char *w = want;
    while (*w) {
        size_t n = strcspn(w, "|");
        if (strlen(buf) == n && !strncasecmp(buf, w, n)) {
            lab_pass(g, id, "%s = %s", key, buf);
            return;
        }
        w += n;
        if (*w == '|')
            w++;
    }
    lab_fail(g, id, "%s = %s is not right", key, buf);
}
