/*
 * tpu_lab.c - tpu-lab, the labs' grader (docs/labs/README.md).
 *
 *   tpu-lab list
 *   tpu-lab grade N FILE [--student NAME]
 *   tpu-lab grade-class N DIR [--csv FILE]      (sim/lab/lab_class.c)
 *   tpu-lab variant N NAME
 *   options: --programs DIR, --quiet, -h/--help
 *
 * The labs and their checks are sim/lab/ (lab.h); this file is the
 * command line.  Exit status: grade: 0 full marks, 1 graded below 10/10;
 * grade-class: 0 the CSV was written; both: 2 bad command line (an unknown
 * lab, a file or folder that cannot be read), 3 the lab's own files failed
 * (programs folder not found), 130 Ctrl-C.  list: 0.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <math.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "interrupt.h"
#include "lab.h"


static void usage(FILE *f)
{
    fputs("usage: tpu-lab list\n"
          "       tpu-lab grade N FILE [--student NAME]\n"
          "       tpu-lab grade-class N DIR [--csv FILE]\n"
          "       tpu-lab variant N NAME\n"
          "\n"
          "The labs of docs/labs/ and their grader.  'grade' assembles and runs a\n"
          "submission for lab N on the lab's machines, checks its result bit for bit and\n"
          "the lab's targets, and prints one line per check (with what to look at when it\n"
          "fails) and a score out of 10.  A submission may include only files of its own\n"
          "folder.  'grade-class' grades every student of DIR into a CSV, one row each,\n"
          "and prints a summary of the class (written beside the CSV too): a file with\n"
          "the lab's ending (.s, .txt or .cfg) is a student named after it; a subfolder\n"
          "is a student named after it, graded on its file with the lab's own name\n"
          "(e.g. 03-tiling.s or lab3.s), else the one named after the folder, else the\n"
          "only or the newest one (the row says which, and warns about the others).\n"
          "'variant' prints a student's own numbers for an answer lab (1, 5, 6, 8);\n"
          "grade-class grades each student in their variant.\n"
          "\n"
          "options:\n"
          "  --programs DIR   the repository's programs folder, where the starters are\n"
          "                   (default: ../../programs from the executable, else ./programs)\n"
          "  --csv FILE       grade-class: write the CSV to FILE (default: standard output)\n"
          "                   and the summary to FILE-summary.txt (FILE without .csv)\n"
          "  --student NAME   grade: grade an answer lab in NAME's variant\n"
          "  --quiet          grade: print only the score line\n"
          "  -h, --help       print this help and exit\n"
          "\n"
          "Repeated grading of one student's answers to one lab waits longer each time\n"
          "after the third in ten minutes (docs/labs/README.md).\n"
          "\n"
          "exit status: grade: 0 full marks, 1 graded below 10/10; grade-class: 0 the CSV\n"
          "was written; 2 bad command line (an unknown lab, a file or folder that cannot be\n"
          "read, a submission that is a link out of its folder), 3 the lab's own files\n"
          "failed (the programs folder was not found), 130 interrupted (Ctrl-C)\n",
          f);
}

static int bad_usage(const char *fmt, const char *arg)
{
    fprintf(stderr, "tpu-lab: error: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\nTry 'tpu-lab --help'.\n");
    return LAB_EXIT_USAGE;
}

static const char *kind_name(enum lab_kind k)
{
    return k == LAB_ASM ? "assembly (.s)" : k == LAB_ANSWERS ? "answers (.txt)" : "config (.cfg)";
}

static int is_dir(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Is `dir`/labs a folder?  Then `dir` is the programs folder. */
static int has_labs(const char *dir)
{
    char labs[1100];
    return (size_t)snprintf(labs, sizeof labs, "%s/labs", dir) < sizeof labs && is_dir(labs);
}

/* The programs folder: --programs, else ../../programs from where the
 * executable really is (build/bin/tpu-lab, found through /proc/self/exe, so
 * a tpu-lab run through PATH or a symbolic link finds it too), else from
 * argv[0], else ./programs.  The executable's own folder comes before the
 * working directory, so a submission's folder cannot supply the lab's
 * files. */
static int find_programs(const char *given, const char *argv0, char *out, size_t len)
{
    if (given) {
        if (!is_dir(given)) {
            fprintf(stderr, "tpu-lab: error: --programs %s: not a folder\n", given);
            return -1;
        }
        snprintf(out, len, "%s", given);
        return 0;
    }
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    const char *from[2] = { NULL, argv0 };
    if (n > 0) {
        exe[n] = 0;
        from[0] = exe;
    }
    for (int i = 0; i < 2; i++) {
        const char *slash = from[i] ? strrchr(from[i], '/') : NULL;
        if (slash && (size_t)(slash - from[i]) < len - 20) {
            snprintf(out, len, "%.*s/../../programs", (int)(slash - from[i]), from[i]);
            if (has_labs(out))
                return 0;
        }
    }
    if (has_labs("programs")) {
        snprintf(out, len, "programs");
        return 0;
    }
    fprintf(stderr, "tpu-lab: error: cannot find the programs folder with the labs' starters "
                    "(tpu-lab looks in ../../programs from its own folder; give --programs "
                    "DIR)\n");
    return -1;
}

static int parse_lab(const char *s, const lab_def **lab)
{
    char *end;
    errno = 0;
    long n = strtol(s, &end, 10);
    if (!*s || *end || errno || n < 0 || n > 1000 || !(*lab = lab_find((unsigned)n))) {
        char msg[160];
        snprintf(msg, sizeof msg, "no lab '%%s' (the labs are 1 to %u: tpu-lab list)", lab_ndefs);
        return bad_usage(msg, s);
    }
    return 0;
}

static int cmd_list(void)
{
    /* columns as wide as their longest entry */
    int wn = 4, wt = 5;
    char name[64];
    for (unsigned i = 0; i < lab_ndefs; i++) {
        int n = snprintf(name, sizeof name, "%02u-%s", lab_defs[i].num, lab_defs[i].slug);
        int t = (int)strlen(lab_defs[i].title);
        wn = n > wn ? n : wn;
        wt = t > wt ? t : wt;
    }
    printf("%-3s %-*s %-*s %-15s %s\n", "lab", wn, "name", wt, "title", "hand in", "minutes");
    for (unsigned i = 0; i < lab_ndefs; i++) {
        const lab_def *l = &lab_defs[i];
        snprintf(name, sizeof name, "%02u-%s", l->num, l->slug);
        printf("%-3u %-*s %-*s %-15s %u\n", l->num, wn, name, wt, l->title, kind_name(l->kind),
               l->minutes);
    }
    printf("handouts: docs/labs/NN-NAME.md; starters: programs/labs/; "
           "the teacher's page: docs/labs/README.md\n");
    return LAB_EXIT_FULL;
}

/* tpu-lab variant N NAME: the student's own numbers for an answer lab. */
static int cmd_variant(const lab_def *lab, const lab_env *env, const char *student)
{
    if (!lab->print_variant) {
        fprintf(stderr, "tpu-lab: error: lab %u is the same for every student: it has no "
                        "variants (the answer labs have)\n", lab->num);
        return LAB_EXIT_USAGE;
    }
    lab_grade *g = calloc(1, sizeof *g);
    if (!g) {
        fprintf(stderr, "tpu-lab: error: out of memory\n");
        return LAB_EXIT_LAB;
    }
    g->lab = lab;
    g->env = env;
    g->student = student;
    g->variant = lab_variant_of(student);
    int rc = lab->print_variant(g, stdout) ? LAB_EXIT_LAB : LAB_EXIT_FULL;
    if (rc)
        fprintf(stderr, "tpu-lab: error: %s\n", g->internal);
    free(g);
    return rc;
}

static int cmd_grade(const lab_def *lab, const lab_env *env, const char *file,
                     const char *student, int quiet)
{
    char err[1200];
    size_t len;
    char *text = lab_read_submission(file, &len, err, sizeof err);
    if (!text) {
        fprintf(stderr, "tpu-lab: error: %s\n", err);
        return LAB_EXIT_USAGE;
    }
    if (lab_answer_delay(lab, student)) {
        free(text);
        fprintf(stderr, "tpu-lab: interrupted\n");
        return TPU_EXIT_INTERRUPTED;
    }
    lab_grade *g = malloc(sizeof *g);
    if (!g) {
        free(text);
        fprintf(stderr, "tpu-lab: error: out of memory\n");
        return LAB_EXIT_LAB;
    }
    int rc = lab_grade_text(lab, env, file, student, text, len, g);
    if (g->interrupted) {
        fprintf(stderr, "tpu-lab: interrupted\n");
        rc = TPU_EXIT_INTERRUPTED;
    } else if (rc) {
        fprintf(stderr, "tpu-lab: error: %s\n", g->internal);
        rc = LAB_EXIT_LAB;
    } else {
        if (quiet)
            printf("score: %u/%d\n", g->score, LAB_MAX_POINTS);
        else
            lab_print(stdout, g);
        rc = g->score == LAB_MAX_POINTS ? LAB_EXIT_FULL : LAB_EXIT_BELOW;
    }
    free(g);
    free(text);
    return rc;
}

int main(int argc, char **argv)
{
    const char *programs = NULL, *csv = NULL, *student = NULL;
    const char *pos[4];
    int npos = 0, quiet = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
        int missing = 0;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return LAB_EXIT_FULL;
        } else if (!strcmp(a, "--quiet")) {
            quiet = 1;
        } else if ((v = tpu_cli_opt_value(argc, argv, &i, "--programs", &missing))) {
            programs = v;
        } else if ((v = tpu_cli_opt_value(argc, argv, &i, "--csv", &missing))) {
            csv = v;
        } else if ((v = tpu_cli_opt_value(argc, argv, &i, "--student", &missing))) {
            student = v;
        } else if (missing) {
            return bad_usage("option '%s' needs a value", a);
        } else if (a[0] == '-' && a[1]) {
            return bad_usage("unknown option '%s'", a);
        } else if (npos == 4) {
            return bad_usage("too many arguments ('%s')", a);
        } else {
            pos[npos++] = a;
        }
    }
    if (!npos)
        return bad_usage("%s", "no command given (list, grade or grade-class)");
    const char *cmd = pos[0];
    if (!strcmp(cmd, "list")) {
        if (npos != 1)
            return bad_usage("'list' takes no arguments (got '%s')", pos[1]);
        return cmd_list();
    }
    int grade = !strcmp(cmd, "grade"), klass = !strcmp(cmd, "grade-class");
    int variant = !strcmp(cmd, "variant");
    if (!grade && !klass && !variant)
        return bad_usage("unknown command '%s' (list, grade, grade-class or variant)", cmd);
    if (variant) {
        if (npos != 3)
            return bad_usage("'%s' wants a lab number and a name: tpu-lab variant N NAME", cmd);
        const lab_def *vlab;
        int vrc = parse_lab(pos[1], &vlab);
        if (vrc)
            return vrc;
        if (!pos[2][0])
            return bad_usage("%s", "the student's name is empty");
        char vdir[1024];
        if (find_programs(programs, argv[0], vdir, sizeof vdir))
            return programs ? LAB_EXIT_USAGE : LAB_EXIT_LAB;
        lab_env venv = { .programs = vdir };
        return cmd_variant(vlab, &venv, pos[2]);
    }
    if (student && !grade)
        return bad_usage("%s", "--student goes with grade (grade-class names each student "
                               "after the file or folder)");
    if (npos != 3)
        return bad_usage(grade ? "'%s' wants a lab number and a file: tpu-lab grade N FILE"
                               : "'%s' wants a lab number and a folder: tpu-lab grade-class N DIR",
                         cmd);
    if (grade && csv)
        return bad_usage("%s", "--csv goes with grade-class");
    if (klass && quiet)
        return bad_usage("%s", "--quiet goes with grade");
    const lab_def *lab;
    int rc = parse_lab(pos[1], &lab);
    if (rc)
        return rc;
    if (grade && is_dir(pos[2]))
        return bad_usage("%s is a folder: grade-class grades a folder", pos[2]);
    if (klass && !is_dir(pos[2])) {
        fprintf(stderr, "tpu-lab: error: %s is not a folder\n", pos[2]);
        return LAB_EXIT_USAGE;
    }
    char pdir[1024];
    if (find_programs(programs, argv[0], pdir, sizeof pdir))
        return programs ? LAB_EXIT_USAGE : LAB_EXIT_LAB;
    lab_env env = { .programs = pdir };
    tpu_interrupt_install();
    return grade ? cmd_grade(lab, &env, pos[2], student, quiet)
                 : lab_grade_class(lab, &env, pos[2], csv);
}
