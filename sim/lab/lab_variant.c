/*
 * lab_variant.c - the generator of the answer labs' variants and the
 * tests' access to their answers (lab_variant.h).
 */
#include "lab_variant.h"

#include <string.h>

void lab_rng_seed(lab_rng *r, uint64_t variant, unsigned lab)
{
    r->s = variant ^ (0x9e3779b97f4a7c15ull * (uint64_t)(lab + 1));
}

uint64_t lab_rng_next(lab_rng *r)
{
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

unsigned lab_rng_below(lab_rng *r, unsigned n)
{
    /* the bias of a 64-bit modulo is far below anything a class notices */
    return n ? (unsigned)(lab_rng_next(r) % n) : 0;
}

const char *lab_variant_shell_name(const char *name, char *buf, size_t len)
{
    static const char safe[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-+@,";
    int plain = name[0] && strspn(name, safe) == strlen(name);
    size_t n = 0;
    if (len < 8) {
        if (len)
            buf[0] = 0;
        return buf;
    }
    if (!plain)
        buf[n++] = '\'';
    for (const char *s = name; *s && n + 6 < len; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '\'' && !plain) {
            memcpy(buf + n, "'\\''", 4);
            n += 4;
        } else {
            buf[n++] = c < 0x20 || c == 0x7f ? '?' : (char)c;
        }
    }
    if (!plain)
        buf[n++] = '\'';
    buf[n] = 0;
    return buf;
}

void lab_variant_header(const lab_grade *g, FILE *f)
{
    const lab_def *lab = g->lab;
    char name[300];
    fprintf(f, "# Lab %u (docs/labs/%02u-%s.md): ", lab->num, lab->num, lab->slug);
    if (g->student) {
        lab_variant_shell_name(g->student, name, sizeof name);
        fprintf(f, "the questions of %s, with your own\n"
                   "# numbers (variant %016llx).  Answer in this file, one \"key = value\"\n"
                   "# line each (lines starting with '#' are comments), and hand it in\n"
                   "# under your name (%s.txt, or in a folder %s/): the teacher grades\n"
                   "# it with these numbers.  Check it with\n"
                   "#   tpu-lab grade %u FILE --student %s\n",
                name, (unsigned long long)g->variant, name, name, lab->num, name);
    } else {
        fprintf(f, "the handout's questions (variant %llu).\n"
                   "# Answer in this file, one \"key = value\" line each (lines starting\n"
                   "# with '#' are comments).  Check it with\n"
                   "#   tpu-lab grade %u FILE\n",
                (unsigned long long)g->variant, lab->num);
    }
}

int lab_variant_answers(lab_grade *g, FILE *f)
{
    switch (g->lab->num) {
    case 1: return lab01_answers_file(g, f);
    case 5: return lab05_answers_file(g, f);
    case 6: return lab06_answers_file(g, f);
    case 8: return lab08_answers_file(g, f);
    default:
        lab_internal(g, "lab %u has no variants", g->lab->num);
        return -1;
    }
}
