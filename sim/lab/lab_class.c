/*
 * lab_class.c - `tpu-lab grade-class N DIR`: every student's submission in
 * a folder, one CSV row each, and a summary of the class (lab.h).
 *
 * Who is a student, and which file is theirs (docs/labs/README.md, "Grading
 * a class", says the same):
 *   - a file directly in DIR with the lab's ending (.s, .txt or .cfg) is a
 *     student named after it (alice.s is alice); it is one file among other
 *     students' files, so it may include nothing;
 *   - a folder in DIR is a student named after the folder; of its regular
 *     files with the lab's ending, the grader takes the first that exists of
 *       1. the lab's own file name (03-tiling.s: the reference solution's
 *          name), then labN.EXT and labNN.EXT (lab3.s, lab03.s);
 *       2. the folder's name (alice/alice.s);
 *       3. the only one there is;
 *       4. the newest (latest modification time; on a tie the first by name)
 *     and the row says which file it graded and, when there were others,
 *     names them in its `warning` column.  A file of the folder may include
 *     other files of the same folder, nothing outside it.
 * Symbolic links are never graded (a link could point at the reference
 * solution or at any file of the grading machine): a link is skipped with a
 * warning, and a student with nothing else gets a row that says so.
 */
#include "lab.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "interrupt.h"

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int has_ext(const char *name, const char *ext)
{
    size_t n = strlen(name), e = strlen(ext);
    return n > e && !strcmp(name + n - e, ext);
}

const char *lab_kind_ext(enum lab_kind k)
{
    return k == LAB_ASM ? ".s" : k == LAB_ANSWERS ? ".txt" : ".cfg";
}

static void free_list(char **v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

/* The names in dir (no dot files), sorted; NULL on error. */
static char **list_dir(const char *dir, size_t *n)
{
    DIR *d = opendir(dir);
    if (!d)
        return NULL;
    size_t cap = 64;
    char **v = malloc(cap * sizeof *v);
    *n = 0;
    struct dirent *e;
    while (v && (e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        if (*n == cap) {
            char **nv = realloc(v, (cap *= 2) * sizeof *v);
            if (!nv) {
                free_list(v, *n);
                v = NULL;
                break;
            }
            v = nv;
        }
        if (!(v[*n] = strdup(e->d_name))) {
            free_list(v, *n);
            v = NULL;
            break;
        }
        (*n)++;
    }
    closedir(d);
    if (v)
        qsort(v, *n, sizeof *v, cmp_str);
    return v;
}

/* Which of a folder's candidates to grade (the rule above): the index into
 * names, or -1 when there is none; *why names the rule that chose it. */
static int pick(const lab_def *lab, const char *student, char **names, const int *cand,
                const struct stat *st, size_t n, const char **why)
{
    const char *ext = lab_kind_ext(lab->kind);
    const char *sol = strrchr(lab->solution, '/');
    sol = sol ? sol + 1 : lab->solution;
    char want[4][300];
    snprintf(want[0], sizeof want[0], "%s", sol);
    snprintf(want[1], sizeof want[1], "lab%u%s", lab->num, ext);
    snprintf(want[2], sizeof want[2], "lab%02u%s", lab->num, ext);
    snprintf(want[3], sizeof want[3], "%.280s%s", student, ext);
    for (int w = 0; w < 4; w++)
        for (size_t i = 0; i < n; i++)
            if (cand[i] && !strcmp(names[i], want[w])) {
                *why = w < 3 ? "the lab's file name" : "the folder's name";
                return (int)i;
            }
    int best = -1, count = 0;
    for (size_t i = 0; i < n; i++) {
        if (!cand[i])
            continue;
        count++;
        if (best < 0 || st[i].st_mtim.tv_sec > st[best].st_mtim.tv_sec
            || (st[i].st_mtim.tv_sec == st[best].st_mtim.tv_sec
                && st[i].st_mtim.tv_nsec > st[best].st_mtim.tv_nsec))
            best = (int)i;
    }
    *why = count == 1 ? "the only one" : "the newest";
    return best;
}

/* Append ", NAME" to a warning buffer (within its size). */
static void warn_add(char *w, size_t len, const char *what, const char *name)
{
    size_t l = strlen(w);
    if (l < len)
        snprintf(w + l, len - l, "%s%.60s%.400s", l ? "; " : "", what, name);
}

/* The class's scores, for the summary. */
typedef struct scores {
    unsigned *v;
    size_t n, cap;
    unsigned unreadable;
} scores;

static void add_score(scores *s, unsigned v)
{
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 64;
        unsigned *nv = realloc(s->v, cap * sizeof *nv);
        if (!nv)
            return;             /* the summary misses one; the CSV has it */
        s->v = nv;
        s->cap = cap;
    }
    s->v[s->n++] = v;
}

static int cmp_uint(const void *a, const void *b)
{
    unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
    return x < y ? -1 : x > y;
}

/* "count, mean, median, a histogram of the scores" */
static void print_summary(FILE *f, const lab_def *lab, const char *dir, scores *s)
{
    fprintf(f, "class summary: lab %u, %s: %zu graded", lab->num, dir, s->n);
    if (s->unreadable)
        fprintf(f, ", %u without a gradable file (score 0, not counted below)", s->unreadable);
    fputc('\n', f);
    if (!s->n)
        return;
    qsort(s->v, s->n, sizeof *s->v, cmp_uint);
    double sum = 0;
    unsigned hist[LAB_MAX_POINTS + 1] = { 0 };
    for (size_t i = 0; i < s->n; i++) {
        sum += s->v[i];
        hist[s->v[i] <= LAB_MAX_POINTS ? s->v[i] : LAB_MAX_POINTS]++;
    }
    double median = s->n % 2 ? s->v[s->n / 2] : (s->v[s->n / 2 - 1] + s->v[s->n / 2]) / 2.0;
    fprintf(f, "mean %.2f, median %g, out of %d\n", sum / (double)s->n, median, LAB_MAX_POINTS);
    unsigned most = 1;
    for (int i = 0; i <= LAB_MAX_POINTS; i++)
        most = hist[i] > most ? hist[i] : most;
    for (int i = LAB_MAX_POINTS; i >= 0; i--) {
        unsigned bar = (hist[i] * 40 + most - 1) / most;
        fprintf(f, "%5d/%d %4u ", i, LAB_MAX_POINTS, hist[i]);
        for (unsigned k = 0; k < bar; k++)
            fputc('#', f);
        fputc('\n', f);
    }
}

/* Grade one file into the CSV; -1 when grading must stop (Ctrl-C, the
 * lab's own files). */
static int grade_one(FILE *csv, const lab_def *lab, const lab_env *env, const char *student,
                     const char *path, const char *warning, lab_grade *g, scores *sc)
{
    char err[1200];
    size_t len;
    char *text = lab_read_submission(path, &len, err, sizeof err);
    if (!text) {
        lab_csv_unreadable(csv, lab, student, err);
        fprintf(stderr, "tpu-lab: %s: %s\n", student, err);
        sc->unreadable++;
        return 0;
    }
    int rc = lab_grade_text(lab, env, path, student, text, len, g);
    free(text);
    if (g->interrupted)
        return -1;
    if (rc) {
        fprintf(stderr, "tpu-lab: error: %s\n", g->internal);
        return -1;
    }
    lab_csv_row(csv, g, student, warning);
    add_score(sc, g->score);
    fprintf(stderr, "tpu-lab: %s: %u/%d%s%s\n", student, g->score, LAB_MAX_POINTS,
            warning[0] ? ": " : "", warning);
    return 0;
}

/* A student's folder: pick the file, grade it. */
static int grade_folder(FILE *csv, const lab_def *lab, const lab_env *env, const char *student,
                        const char *folder, lab_grade *g, scores *sc)
{
    const char *ext = lab_kind_ext(lab->kind);
    size_t m;
    char **sub = list_dir(folder, &m);
    char warning[600] = "";
    if (!sub) {
        char why[300];
        snprintf(why, sizeof why, "cannot read the folder: %s", strerror(errno));
        lab_csv_unreadable(csv, lab, student, why);
        sc->unreadable++;
        return 0;
    }
    int *cand = calloc(m ? m : 1, sizeof *cand);
    struct stat *st = calloc(m ? m : 1, sizeof *st);
    int rc = 0;
    if (!cand || !st) {
        rc = -1;
        goto out;
    }
    for (size_t i = 0; i < m; i++) {
        char p[8200];
        if (!has_ext(sub[i], ext))
            continue;
        snprintf(p, sizeof p, "%s/%s", folder, sub[i]);
        if (lstat(p, &st[i]))
            continue;
        if (S_ISLNK(st[i].st_mode))
            warn_add(warning, sizeof warning, "not graded (a symbolic link): ", sub[i]);
        else if (S_ISREG(st[i].st_mode))
            cand[i] = 1;
    }
    const char *rule = "";
    int k = pick(lab, student, sub, cand, st, m, &rule);
    if (k < 0) {
        char why[800];
        snprintf(why, sizeof why, "no regular %s file in the folder%s%s", ext,
                 warning[0] ? ": " : "", warning);
        lab_csv_unreadable(csv, lab, student, why);
        fprintf(stderr, "tpu-lab: %s: %s\n", student, why);
        sc->unreadable++;
        goto out;
    }
    char others[400] = "";
    unsigned nothers = 0;
    for (size_t i = 0; i < m; i++)
        if (cand[i] && (int)i != k) {
            size_t l = strlen(others);
            if (l < sizeof others)
                snprintf(others + l, sizeof others - l, "%s%s", nothers ? ", " : "", sub[i]);
            nothers++;
        }
    if (nothers) {
        char w[500];
        snprintf(w, sizeof w, "graded %.100s (%s) of %u %s files; not graded: %.300s", sub[k],
                 rule, nothers + 1, ext, others);
        warn_add(warning, sizeof warning, "", w);
    }
    char path[8200];
    snprintf(path, sizeof path, "%s/%s", folder, sub[k]);
    lab_env fenv = *env;
    fenv.one_file = 0;
    rc = grade_one(csv, lab, &fenv, student, path, warning, g, sc);
out:
    free(cand);
    free(st);
    free_list(sub, m);
    return rc;
}

/* The summary's file: FILE.csv -> FILE-summary.txt, else FILE-summary.txt. */
static void summary_path(const char *csv_path, char *out, size_t len)
{
    size_t n = strlen(csv_path);
    if (n > 4 && !strcasecmp(csv_path + n - 4, ".csv"))
        n -= 4;
    snprintf(out, len, "%.*s-summary.txt", (int)n, csv_path);
}

int lab_grade_class(const lab_def *lab, const lab_env *env, const char *dir, const char *csv_path)
{
    size_t n;
    char **names = list_dir(dir, &n);
    if (!names) {
        fprintf(stderr, "tpu-lab: error: cannot read the folder %s: %s\n", dir, strerror(errno));
        return LAB_EXIT_USAGE;
    }
    FILE *csv = stdout;
    if (csv_path && !(csv = fopen(csv_path, "w"))) {
        fprintf(stderr, "tpu-lab: error: cannot write %s: %s\n", csv_path, strerror(errno));
        free_list(names, n);
        return LAB_EXIT_USAGE;
    }
    lab_grade *g = malloc(sizeof *g);
    int rc = g ? LAB_EXIT_FULL : LAB_EXIT_LAB;
    scores sc = { 0 };
    const char *ext = lab_kind_ext(lab->kind);
    if (g)
        lab_csv_header(csv, lab);
    for (size_t i = 0; g && i < n && rc == LAB_EXIT_FULL; i++) {
        char path[4096];
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        if (lstat(path, &st))
            continue;
        int stop = 0;
        if (S_ISDIR(st.st_mode)) {
            stop = grade_folder(csv, lab, env, names[i], path, g, &sc);
        } else if (has_ext(names[i], ext)) {
            char student[256];
            snprintf(student, sizeof student, "%.*s", (int)(strlen(names[i]) - strlen(ext)),
                     names[i]);
            if (!S_ISREG(st.st_mode)) {
                const char *why = S_ISLNK(st.st_mode)
                                      ? "not graded: a symbolic link (hand in the file itself)"
                                      : "not graded: not a regular file";
                lab_csv_unreadable(csv, lab, student, why);
                fprintf(stderr, "tpu-lab: %s: %s\n", student, why);
                sc.unreadable++;
            } else {
                lab_env fenv = *env;
                fenv.one_file = 1;
                stop = grade_one(csv, lab, &fenv, student, path, "", g, &sc);
            }
        }
        if (stop)
            rc = g->interrupted ? TPU_EXIT_INTERRUPTED : LAB_EXIT_LAB;
    }
    if (csv != stdout && fclose(csv) && rc == LAB_EXIT_FULL) {
        fprintf(stderr, "tpu-lab: error: cannot write %s\n", csv_path);
        rc = LAB_EXIT_USAGE;
    }
    fflush(stdout);
    if (rc == LAB_EXIT_FULL || rc == TPU_EXIT_INTERRUPTED) {
        /* on a terminal or beside the CSV; to stderr when the CSV is stdout */
        print_summary(csv_path ? stdout : stderr, lab, dir, &sc);
        if (csv_path) {
            char sp[4200];
            summary_path(csv_path, sp, sizeof sp);
            FILE *f = fopen(sp, "w");
            if (f) {
                print_summary(f, lab, dir, &sc);
                if (fclose(f))
                    f = NULL;
            }
            if (!f) {
                fprintf(stderr, "tpu-lab: error: cannot write %s\n", sp);
                if (rc == LAB_EXIT_FULL)
                    rc = LAB_EXIT_USAGE;
            }
        }
    }
    if (rc == TPU_EXIT_INTERRUPTED)
        fprintf(stderr, "tpu-lab: interrupted: the CSV has the submissions graded so far\n");
    else if (rc == LAB_EXIT_FULL)
        fprintf(stderr, "tpu-lab: graded %zu submission%s of lab %u in %s\n",
                sc.n + sc.unreadable, sc.n + sc.unreadable == 1 ? "" : "s", lab->num, dir);
    free(sc.v);
    free(g);
    free_list(names, n);
    return rc;
}
