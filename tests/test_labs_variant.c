/*
 * test_labs_variant.c - the per-student variants of the answer labs (1, 5,
 * 6 and 8; sim/lab/lab_variant.h, docs/labs/README.md).
 *
 * For each answer lab: the right answers of a student's variant (written
 * by lab_variant_answers, which no tpu-lab command offers) score 10/10 for
 * that student and below for another and for the handout; the handout's
 * variant 0 is still the reference solution's; different students get
 * different answers; the sheet tpu-lab variant prints names the student's
 * parameters and holds no answer; the same name always gets the same
 * numbers.  Run from the top of the repository (the programs folder).
 *
 *   test_labs_variant                  the cmocka tests
 *   test_labs_variant --write DIR NAME...
 *                                      write DIR/NN-NAME.txt, NAME's right
 *                                      answers for each answer lab (for
 *                                      tests/labs.sh), and exit
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lab.h"
#include "lab_variant.h"

static const unsigned answer_labs[] = { 1, 5, 6, 8 };
#define NLABS (sizeof answer_labs / sizeof answer_labs[0])

static const lab_env env = { .programs = "programs" };

/* A grade with the fields print_variant and lab_variant_answers use. */
static lab_grade *new_grade(unsigned lab, const char *student)
{
    lab_grade *g = calloc(1, sizeof *g);
    assert_non_null(g);
    g->lab = lab_find(lab);
    assert_non_null(g->lab);
    g->env = &env;
    g->student = student;
    g->variant = student ? lab_variant_of(student) : 0;
    return g;
}

/* The right answers of `student` (NULL: the handout) as an answers file. */
static char *answers(unsigned lab, const char *student)
{
    lab_grade *g = new_grade(lab, student);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    int rc = lab_variant_answers(g, f);
    fclose(f);
    if (rc)
        fail_msg("lab %u, %s: %s", lab, student ? student : "(handout)", g->internal);
    free(g);
    return buf;
}

/* What print_variant prints. */
static char *sheet(unsigned lab, const char *student)
{
    lab_grade *g = new_grade(lab, student);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    assert_non_null(g->lab->print_variant);
    int rc = g->lab->print_variant(g, f);
    fclose(f);
    assert_int_equal(rc, 0);
    free(g);
    return buf;
}

/* The score of `text` graded for `student`. */
static unsigned score(unsigned lab, const char *student, const char *text)
{
    lab_grade *g = malloc(sizeof *g);
    assert_non_null(g);
    int rc = lab_grade_text(lab_find(lab), &env, "answers.txt", student, text, strlen(text), g);
    if (rc)
        fail_msg("lab %u: %s", lab, g->internal);
    unsigned s = g->score;
    free(g);
    return s;
}

/* The answer lines ("key = value") of an answers file, without comments. */
static void answer_lines(const char *text, char *out, size_t len)
{
    size_t n = 0;
    out[0] = 0;
    for (const char *p = text; *p;) {
        const char *eol = strchr(p, '\n');
        size_t l = eol ? (size_t)(eol - p) : strlen(p);
        if (l && p[0] != '#' && n + l + 2 < len) {
            memcpy(out + n, p, l);
            n += l;
            out[n++] = '\n';
            out[n] = 0;
        }
        p += l + (eol ? 1 : 0);
    }
}

static char *read_all(const char *path)
{
    char err[1200];
    size_t len;
    char *s = lab_read_file(path, &len, err, sizeof err);
    if (!s)
        fail_msg("%s", err);
    return s;
}

/* ---- the tests ------------------------------------------------------------------- */

/* Variant 0 is the handout: its answers are the reference solution's. */
static void test_handout_is_variant_0(void **state)
{
    (void)state;
    for (size_t i = 0; i < NLABS; i++) {
        const lab_def *lab = lab_find(answer_labs[i]);
        char path[256];
        snprintf(path, sizeof path, "programs/%s", lab->solution);
        char *ref = read_all(path);
        char *mine = answers(lab->num, NULL);
        assert_int_equal(score(lab->num, NULL, ref), 10);
        assert_int_equal(score(lab->num, NULL, mine), 10);
        free(mine);
        free(ref);
    }
}

/* A student's right answers score 10 for them, below for anyone else and
 * for the handout; the handout's reference answers score below for them. */
static void test_own_answers_only(void **state)
{
    (void)state;
    for (size_t i = 0; i < NLABS; i++) {
        unsigned lab = answer_labs[i];
        char *alice = answers(lab, "alice");
        assert_int_equal(score(lab, "alice", alice), 10);
        assert_int_equal(score(lab, " Alice ", alice), 10);  /* the same name */
        unsigned sb = score(lab, "bob", alice), s0 = score(lab, NULL, alice);
        if (sb >= 10 || s0 >= 10)
            fail_msg("lab %u: alice's answers score %u for bob, %u for the handout", lab, sb,
                     s0);
        char path[256];
        snprintf(path, sizeof path, "programs/%s", lab_find(lab)->solution);
        char *ref = read_all(path);
        unsigned sr = score(lab, "alice", ref);
        if (sr >= 10)
            fail_msg("lab %u: the handout's reference answers score %u for alice", lab, sr);
        free(ref);
        free(alice);
    }
}

/* Students get different answers: of 24 names at least 20 distinct answer
 * sets (lab 8, 512 programs: 16) and the same name the same answers. */
static void test_students_differ(void **state)
{
    (void)state;
    enum { NAMES = 24 };
    static char lines[NAMES][1024];
    for (size_t i = 0; i < NLABS; i++) {
        unsigned lab = answer_labs[i], distinct = 0;
        for (unsigned k = 0; k < NAMES; k++) {
            char name[32];
            snprintf(name, sizeof name, "student%02u", k);
            char *a = answers(lab, name);
            answer_lines(a, lines[k], sizeof lines[k]);
            free(a);
            int seen = 0;
            for (unsigned j = 0; j < k && !seen; j++)
                seen = !strcmp(lines[j], lines[k]);
            distinct += !seen;
        }
        unsigned want = lab == 8 ? 16 : 20;
        if (distinct < want)
            fail_msg("lab %u: %u distinct answer sets of %d students", lab, distinct, NAMES);
        char *again = answers(lab, "student00"), buf[1024];
        answer_lines(again, buf, sizeof buf);
        assert_string_equal(buf, lines[0]);
        free(again);
    }
}

/* The variants run as their lab expects (lab 5's machine, D and F turn
 * compute-bound below B = 128, lab 6's program fits mid's instruction
 * memory, ...: a lab_internal fails answers()): 100 names for labs 1 and
 * 8, 12 for the slower 5 and 6; tried: every one of lab 5's 567 and lab 6's
 * 192 parameter sets). */
static void test_many_variants_run(void **state)
{
    (void)state;
    for (size_t i = 0; i < NLABS; i++) {
        unsigned lab = answer_labs[i], n = lab == 5 || lab == 6 ? 12 : 100;
        for (unsigned k = 0; k < n; k++) {
            char name[32];
            snprintf(name, sizeof name, "s%u", k);
            free(answers(lab, name));
        }
    }
}

/* The sheet names the student's parameters and holds no answer. */
static void test_sheet(void **state)
{
    (void)state;
    static const char *const want[] = { "-D DELAY=", "-D D=", "-D WL=", "-D POFF=" };
    for (size_t i = 0; i < NLABS; i++) {
        unsigned lab = answer_labs[i];
        char *s = sheet(lab, "alice"), *b = sheet(lab, "bob");
        assert_non_null(strstr(s, "alice"));
        assert_non_null(strstr(s, "--student alice"));
        assert_non_null(strstr(s, want[i]));
        assert_string_not_equal(s, b);
        /* an answers file with every answer empty: 0/10 */
        assert_int_equal(score(lab, "alice", s), 0);
        char keys[1024];
        answer_lines(s, keys, sizeof keys);
        for (const char *p = keys; *p; p = strchr(p, '\n') + 1) {
            const char *eq = strchr(p, '=');
            assert_non_null(eq);
            assert_true(eq[1] == '\n');
        }
        /* and the keys are those of the right answers */
        char *a = answers(lab, "alice");
        char akeys[1024];
        answer_lines(a, akeys, sizeof akeys);
        for (char *p = akeys; *p; p = strchr(p, '\n') + 1) {
            char *eq = strchr(p, '=');
            char *nl = strchr(p, '\n');
            memmove(eq + 1, nl, strlen(nl) + 1);
        }
        assert_string_equal(keys, akeys);
        free(a);
        free(s);
        free(b);
    }
    /* a name the shell would split is quoted in the command lines */
    char *s = sheet(1, "Ann O'Neil");
    assert_non_null(strstr(s, "--student 'Ann O'\\''Neil'"));
    free(s);
}

static int write_answers(const char *dir, int n, char **names)
{
    for (int k = 0; k < n; k++)
        for (size_t i = 0; i < NLABS; i++) {
            lab_grade g = { .lab = lab_find(answer_labs[i]), .env = &env, .student = names[k],
                            .variant = lab_variant_of(names[k]) };
            char path[4096];
            snprintf(path, sizeof path, "%s/%02u-%s.txt", dir, answer_labs[i], names[k]);
            FILE *f = fopen(path, "w");
            if (!f) {
                perror(path);
                return 1;
            }
            int rc = lab_variant_answers(&g, f);
            if (fclose(f) || rc) {
                fprintf(stderr, "test_labs_variant: %s: %s\n", path,
                        rc ? g.internal : "write error");
                return 1;
            }
        }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 3 && !strcmp(argv[1], "--write"))
        return write_answers(argv[2], argc - 3, argv + 3);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_handout_is_variant_0),
        cmocka_unit_test(test_own_answers_only),
        cmocka_unit_test(test_students_differ),
        cmocka_unit_test(test_many_variants_run),
        cmocka_unit_test(test_sheet),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
