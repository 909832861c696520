/*
 * tpu_mutate.c - tpu-mutate: the RTL mutants of sim/cosim/mutants.def as
 * one "meta-mutant" copy of rtl/ (docs/cosim.md, "Mutants").
 *
 *   tpu-mutate --list               the catalogue, one line per mutant
 *   tpu-mutate --check [--rtl DIR]  every mutant applies (exit 1 if not)
 *   tpu-mutate -o OUT [--rtl DIR]   write the meta-mutant sources into OUT
 *
 * Every mutant is a small change of one expression on one line of one file
 * of rtl/ (an operator flipped, a constant off by one, a condition inverted,
 * an enable stuck, ...).  Rather than one Verilated build per mutant, all of
 * them are compiled into one copy of the RTL as "mutant schemata": the
 * expression FROM becomes
 *
 *     ((tpu_mutant == ID) ? (TO) : (FROM))
 *
 * and each module that has a mutant, or includes a header (.vh) that has
 * one, gets `tpu_mutant`, set once from the simulation's plusarg
 * +mutant=ID (0, the default: no mutant, the RTL as it is).  One build
 * then runs any mutant: `rtl-bench +mutant=7 prog.bin`.  A header that
 * declares a package (mxu_mac_pkg.vh) and includes a mutated header gets
 * its own `tpu_mutant` inside the package, for the package's functions;
 * and since Verilator does not let a function that is not inlined read a
 * variable outside it, its `verilator no_inline_task` directives are
 * dropped (the mutant build inlines them, as the RTL did before the
 * package: the same logic).
 *
 * A mutant names its line by a piece of text (LINE, or FROM itself when
 * LINE is empty) that must occur on exactly one line of the file, and FROM
 * must occur exactly once on that line; a file may have one mutant per
 * line.  Anything else is an error naming the mutant: the catalogue cannot
 * silently drift from the RTL.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>

typedef struct mutant {
    unsigned id;
    const char *unit, *file, *line, *from, *to, *what;
} mutant;

static const mutant mutants[] = {
#define MUTANT(id, unit, file, line, from, to, what) { id, unit, file, line, from, to, what },
#include "mutants.def"
#undef MUTANT
};
#define NMUT (sizeof mutants / sizeof mutants[0])

/* ---- files in memory, as lines ------------------------------------------------ */

typedef struct text {
    char **line;            /* each with its '\n' (the last maybe without) */
    size_t n, cap;
} text;

static void text_free(text *t)
{
    for (size_t i = 0; i < t->n; i++)
        free(t->line[i]);
    free(t->line);
    memset(t, 0, sizeof *t);
}

static int text_push(text *t, char *s)
{
    if (t->n == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 256;
        char **p = realloc(t->line, cap * sizeof *p);
        if (!p)
            return -1;
        t->line = p;
        t->cap = cap;
    }
    t->line[t->n++] = s;
    return 0;
}

static int text_read(const char *path, text *t)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    char *buf = NULL;
    size_t cap = 0;
    ssize_t len;
    memset(t, 0, sizeof *t);
    while ((len = getline(&buf, &cap, f)) >= 0) {
        char *s = strdup(buf);
        if (!s || text_push(t, s) < 0) {
            free(s);
            free(buf);
            fclose(f);
            text_free(t);
            errno = ENOMEM;
            return -1;
        }
    }
    free(buf);
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        text_free(t);
        errno = EIO;
        return -1;
    }
    return 0;
}

/* How often `needle` occurs in `s` (overlapping occurrences counted). */
static unsigned count_in(const char *s, const char *needle)
{
    unsigned n = 0;
    size_t k = strlen(needle);
    if (!k)
        return 0;
    for (const char *p = strstr(s, needle); p; p = strstr(p + 1, needle))
        n++;
    return n;
}

/* ---- applying the catalogue ------------------------------------------------------ */

/* The line (0-based) of mutant m in t, or -1 with a message. */
static long find_line(const mutant *m, const text *t, const char *path)
{
    const char *key = m->line[0] ? m->line : m->from;
    long at = -1;
    unsigned hits = 0;
    for (size_t i = 0; i < t->n; i++)
        if (strstr(t->line[i], key)) {
            hits++;
            at = (long)i;
        }
    if (hits != 1) {
        fprintf(stderr, "tpu-mutate: %s: error: mutant %u: '%s' is on %u lines, not 1\n", path,
                m->id, key, hits);
        return -1;
    }
    unsigned k = count_in(t->line[at], m->from);
    if (k != 1) {
        fprintf(stderr, "tpu-mutate: %s:%ld: error: mutant %u: '%s' occurs %u times on the "
                "line, not once\n", path, at + 1, m->id, m->from, k);
        return -1;
    }
    return at;
}

/* The declaration of tpu_mutant, after the line that closes the module's
 * port list (the first ");" line after "module"). */
static const char select_decl[] =
    "  // tpu-mutate: the mutant this run selects (+mutant=ID; 0: none)\n"
    "  int unsigned tpu_mutant;\n"
    "  initial begin\n"
    "    if (!$value$plusargs(\"mutant=%d\", tpu_mutant)) begin\n"
    "      tpu_mutant = 0;\n"
    "    end\n"
    "  end\n";

/* The same for a package's functions: after the "package NAME;" line, set
 * at elaboration (a package has no initial blocks). */
static const char package_decl[] =
    "  // tpu-mutate: the mutant this run selects (+mutant=ID; 0: none)\n"
    "  function automatic int unsigned tpu_mutant_arg();\n"
    "    int unsigned m;\n"
    "    if (!$value$plusargs(\"mutant=%d\", m)) begin\n"
    "      m = 0;\n"
    "    end\n"
    "    return m;\n"
    "  endfunction\n"
    "  int unsigned tpu_mutant = tpu_mutant_arg();\n";

static const char no_inline_pragma[] = "/*verilator no_inline_task*/";
static const char no_inline_blank[]  = "/* tpu-mutate: inlined    */";
_Static_assert(sizeof no_inline_pragma == sizeof no_inline_blank, "same length, in place");

/* The line "package NAME;" of t, or -1. */
static long package_line(const text *t)
{
    for (size_t i = 0; i < t->n; i++) {
        const char *s = t->line[i];
        while (*s == ' ')
            s++;
        if (strncmp(s, "package ", 8) == 0)
            return (long)i;
    }
    return -1;
}

static long port_list_end(const text *t)
{
    int in_module = 0;
    for (size_t i = 0; i < t->n; i++) {
        const char *s = t->line[i];
        while (*s == ' ')
            s++;
        if (strncmp(s, "module ", 7) == 0)
            in_module = 1;
        else if (in_module && strncmp(s, ");", 2) == 0)
            return (long)i;
    }
    return -1;
}

static int is_header(const char *name)
{
    size_t k = strlen(name);
    return k > 3 && strcmp(name + k - 3, ".vh") == 0;
}

/* Whether dir/name declares a package (a line "package NAME;"). */
static int is_package_header(const char *dir, const char *name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    text t;
    if (!is_header(name) || text_read(path, &t) < 0)
        return 0;
    long at = package_line(&t);
    text_free(&t);
    return at >= 0;
}

/* Whether dir/name includes (itself, or through the headers it includes) a
 * header that has mutants.  A header's functions read the tpu_mutant of
 * the module they are included in, so that module declares it; a package
 * header declares its own, so what it includes does not count for the
 * files that include it. */
static int includes_mutated(const char *dir, const char *name, int depth)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = depth < 8 ? fopen(path, "r") : NULL;
    if (!f)
        return 0;
    char buf[4096];
    int found = 0;
    while (!found && fgets(buf, sizeof buf, f)) {
        const char *p = strstr(buf, "`include \""), *q;
        if (!p || !(q = strchr(p + 10, '"')))
            continue;
        char inc[256];
        snprintf(inc, sizeof inc, "%.*s", (int)(q - (p + 10)), p + 10);
        if (is_package_header(dir, inc))
            continue;
        for (size_t k = 0; k < NMUT && !found; k++)
            found = strcmp(mutants[k].file, inc) == 0;
        if (!found)
            found = includes_mutated(dir, inc, depth + 1);
    }
    fclose(f);
    return found;
}

/* A package header that reads tpu_mutant: its no_inline_task directives
 * are blanked in place (Verilator's IMPURE: a function that is not inlined
 * cannot read a variable outside it). */
static void drop_no_inline(text *t)
{
    for (size_t i = 0; i < t->n; i++) {
        char *p = strstr(t->line[i], no_inline_pragma);
        if (p)
            memcpy(p, no_inline_blank, sizeof no_inline_blank - 1);
    }
}

/* Mutate one file: every mutant of `name` applied to dir/name, written to
 * out/name.  A module file gets the declaration of tpu_mutant when it has
 * mutants or includes a header that has; a header gets none.  Returns the
 * number of mutants applied, or -1. */
static int mutate_file(const char *dir, const char *name, const char *out)
{
    char path[4096], opath[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    snprintf(opath, sizeof opath, "%s/%s", out, name);
    text t;
    if (text_read(path, &t) < 0) {
        fprintf(stderr, "tpu-mutate: %s: %s\n", path, strerror(errno));
        return -1;
    }
    int applied = 0, bad = 0;
    unsigned char *used = calloc(t.n ? t.n : 1, 1);
    if (!used) {
        text_free(&t);
        return -1;
    }
    for (size_t k = 0; k < NMUT; k++) {
        const mutant *m = &mutants[k];
        if (strcmp(m->file, name) != 0)
            continue;
        long at = find_line(m, &t, path);
        if (at < 0) {
            bad = 1;
            continue;
        }
        if (used[at]) {
            fprintf(stderr, "tpu-mutate: %s:%ld: error: mutant %u: the line already has a "
                    "mutant (one per line)\n", path, at + 1, m->id);
            bad = 1;
            continue;
        }
        used[at] = 1;
        const char *s = t.line[at], *p = strstr(s, m->from);
        size_t pre = (size_t)(p - s), flen = strlen(m->from);
        size_t n = strlen(s) + 2 * flen + strlen(m->to) + 64;
        char *r = malloc(n);
        if (!r) {
            bad = 1;
            break;
        }
        snprintf(r, n, "%.*s((tpu_mutant == %u) ? (%s) : (%s))%s", (int)pre, s, m->id, m->to,
                 m->from, p + flen);
        free(t.line[at]);
        t.line[at] = r;
        applied++;
    }
    free(used);
    long pkg = is_header(name) ? package_line(&t) : -1;
    int declare = (!is_header(name) || pkg >= 0) && (applied || includes_mutated(dir, name, 0));
    long decl = declare && !bad ? (pkg >= 0 ? pkg : port_list_end(&t)) : 0;
    if (declare && !bad && decl < 0) {
        fprintf(stderr, "tpu-mutate: %s: error: no line ');' closing the module's ports (the "
                "declaration of tpu_mutant goes after it)\n", path);
        bad = 1;
    }
    if (declare && pkg >= 0)
        drop_no_inline(&t);
    if (!bad && out) {
        FILE *f = fopen(opath, "w");
        if (!f) {
            fprintf(stderr, "tpu-mutate: %s: %s\n", opath, strerror(errno));
            bad = 1;
        } else {
            for (size_t i = 0; i < t.n; i++) {
                fputs(t.line[i], f);
                if (declare && (long)i == decl)
                    fputs(pkg >= 0 ? package_decl : select_decl, f);
            }
            if (fclose(f) != 0) {
                fprintf(stderr, "tpu-mutate: %s: %s\n", opath, strerror(errno));
                bad = 1;
            }
        }
    }
    text_free(&t);
    return bad ? -1 : applied;
}

/* Every file a mutant names, and (with out) every other rtl/ file copied. */
static int run(const char *dir, const char *out)
{
    if (out && mkdir(out, 0777) < 0 && errno != EEXIST) {
        fprintf(stderr, "tpu-mutate: %s: %s\n", out, strerror(errno));
        return 1;
    }
    int bad = 0;
    /* the catalogue itself: ids unique and positive */
    for (size_t i = 0; i < NMUT; i++) {
        if (mutants[i].id == 0)
            fprintf(stderr, "tpu-mutate: mutants.def: error: mutant 0 (0 means none)\n"), bad = 1;
        for (size_t j = 0; j < i; j++)
            if (mutants[i].id == mutants[j].id) {
                fprintf(stderr, "tpu-mutate: mutants.def: error: mutant %u twice\n",
                        mutants[i].id);
                bad = 1;
            }
    }
    /* the files: those with mutants mutated, the rest copied */
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "tpu-mutate: %s: %s\n", dir, strerror(errno));
        return 1;
    }
    struct dirent *e;
    unsigned total = 0;
    while ((e = readdir(d)) != NULL) {
        const char *name = e->d_name;
        size_t k = strlen(name);
        int src = (k > 2 && strcmp(name + k - 2, ".v") == 0) ||
                  (k > 3 && strcmp(name + k - 3, ".vh") == 0) ||
                  (k > 4 && strcmp(name + k - 4, ".vlt") == 0);
        if (!src)
            continue;
        int n = mutate_file(dir, name, out);
        if (n < 0)
            bad = 1;
        else
            total += (unsigned)n;
    }
    closedir(d);
    /* a mutant whose file is not there */
    for (size_t i = 0; i < NMUT; i++) {
        char path[4096];
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", dir, mutants[i].file);
        if (stat(path, &st) < 0) {
            fprintf(stderr, "tpu-mutate: error: mutant %u: no file %s\n", mutants[i].id, path);
            bad = 1;
        }
    }
    if (bad)
        return 1;
    if (!out)
        printf("tpu-mutate: %u mutants apply to %s\n", total, dir);
    return 0;
}

static void list(void)
{
    printf("%-4s %-9s %-14s %s\n", "id", "unit", "file", "what");
    for (size_t i = 0; i < NMUT; i++)
        printf("%-4u %-9s %-14s %s: '%s' -> '%s'\n", mutants[i].id, mutants[i].unit,
               mutants[i].file, mutants[i].what, mutants[i].from, mutants[i].to);
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: tpu-mutate --list\n"
            "       tpu-mutate --check [--rtl DIR]\n"
            "       tpu-mutate -o OUT [--rtl DIR]\n"
            "\n"
            "The RTL mutants of sim/cosim/mutants.def (docs/cosim.md, \"Mutants\").\n"
            "  --list      the catalogue: id, unit, file, what changes\n"
            "  --tsv       the same, tab-separated, for scripts\n"
            "  --check     check that every mutant applies to the RTL\n"
            "  -o OUT      write DIR's .v/.vh/.vlt files into OUT with every mutant\n"
            "              compiled in; the simulation's plusarg +mutant=ID selects one\n"
            "              (rtl-bench +mutant=ID prog.bin), none by default\n"
            "  --rtl DIR   the RTL to mutate (default rtl)\n"
            "  -h, --help  show this help\n"
            "Exit status: 0 done, 1 a mutant does not apply (the message names it),\n"
            "2 bad usage.\n");
}

int main(int argc, char **argv)
{
    const char *dir = "rtl", *out = NULL;
    int mode = 0;   /* 1 list, 2 check, 3 write, 4 tsv */
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--list")) {
            mode = 1;
        } else if (!strcmp(a, "--tsv")) {
            mode = 4;
        } else if (!strcmp(a, "--check")) {
            mode = 2;
        } else if (!strcmp(a, "-o") || !strcmp(a, "--rtl")) {
            if (i + 1 >= argc) {
                fprintf(stderr, "tpu-mutate: error: %s needs a value\n", a);
                return 2;
            }
            if (!strcmp(a, "-o")) {
                out = argv[++i];
                mode = 3;
            } else {
                dir = argv[++i];
            }
        } else {
            fprintf(stderr, "tpu-mutate: error: unknown option '%s' (try --help)\n", a);
            return 2;
        }
    }
    if (!mode) {
        fprintf(stderr, "tpu-mutate: error: give --list, --tsv, --check or -o OUT (try --help)\n");
        return 2;
    }
    if (mode == 1) {
        list();
        return 0;
    }
    if (mode == 4) {
        for (size_t i = 0; i < NMUT; i++)
            printf("%u\t%s\t%s\t%s\n", mutants[i].id, mutants[i].unit, mutants[i].file,
                   mutants[i].what);
        return 0;
    }
    return run(dir, mode == 3 ? out : NULL);
}
