/*
 * lab_delay.c - a speed bump for guessing answers (lab.h, lab_answer_delay).
 *
 * An answer lab's checks say right or wrong per question, so a script that
 * loops values through `tpu-lab grade` finds a number in a fraction of a
 * second.  Two things stop that: every student has their own numbers
 * (the variants: an answer found is no use to anyone else), and here, the
 * more often one student's answers to one lab were graded in the last
 * LAB_DELAY_WINDOW seconds, the longer the next grading waits: the first
 * LAB_DELAY_FREE are free, then 1, 2, 4, ... seconds, at most
 * LAB_DELAY_MAX.  A loop of 100 guesses then costs about 1.5 hours.
 *
 * The times are kept in a small file per lab and student in
 * $TPU_LAB_STATE_DIR, else $XDG_STATE_HOME/tpu-lab, else
 * ~/.local/state/tpu-lab.  This holds on a machine the students do not
 * control (a grading server); on their own machine they can delete the file
 * or build tpu-lab without it: there the variants are what keeps an answer
 * a student's own (docs/labs/README.md says so).  TPU_LAB_DELAY=0 turns the
 * wait off (the project's own tests).  Ctrl-C during a wait stops at once.
 */
#include "lab.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "interrupt.h"

#define LAB_DELAY_WINDOW 600    /* seconds that a grading is remembered */
#define LAB_DELAY_FREE 3        /* gradings in the window without a wait */
#define LAB_DELAY_MAX 60        /* seconds, the longest wait */
#define LAB_DELAY_KEEP 64       /* times kept per file */

/* mkdir -p for the state folder (only its last two levels may be new). */
static int make_dirs(char *path)
{
    for (char *p = path + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = 0;
        int rc = mkdir(path, 0700);
        *p = '/';
        if (rc && errno != EEXIST)
            return -1;
    }
    return mkdir(path, 0700) && errno != EEXIST ? -1 : 0;
}

static int state_dir(char *out, size_t len)
{
    const char *d = getenv("TPU_LAB_STATE_DIR");
    if (d && d[0])
        snprintf(out, len, "%s", d);
    else if ((d = getenv("XDG_STATE_HOME")) && d[0] == '/')
        snprintf(out, len, "%s/tpu-lab", d);
    else if ((d = getenv("HOME")) && d[0] == '/')
        snprintf(out, len, "%s/.local/state/tpu-lab", d);
    else
        return -1;
    return make_dirs(out);
}

/* Wait `secs` seconds in short steps, stopping at Ctrl-C. */
static int wait_for(unsigned secs)
{
    for (unsigned i = 0; i < 10 * secs; i++) {
        if (tpu_interrupted())
            return -1;
        struct timespec ts = { 0, 100000000L };
        nanosleep(&ts, NULL);
    }
    return tpu_interrupted() ? -1 : 0;
}

int lab_answer_delay(const lab_def *lab, const char *student)
{
    const char *off = getenv("TPU_LAB_DELAY");
    if (lab->kind != LAB_ANSWERS || (off && !strcmp(off, "0")))
        return 0;
    char dir[1024], path[1200];
    if (state_dir(dir, sizeof dir))
        return 0;           /* nowhere to remember: no wait (said in the docs) */
    /* the student's key: their variant, so a name needs no escaping */
    snprintf(path, sizeof path, "%s/lab%02u-%016llx", dir, lab->num,
             (unsigned long long)(student ? lab_variant_of(student) : 0));
    time_t now = time(NULL);
    long long t[LAB_DELAY_KEEP + 1];
    unsigned n = 0, recent = 0;
    FILE *f = fopen(path, "r");
    if (f) {
        while (n < LAB_DELAY_KEEP && fscanf(f, "%lld", &t[n]) == 1)
            n++;
        fclose(f);
    }
    for (unsigned i = 0; i < n; i++)
        if (t[i] > (long long)now - LAB_DELAY_WINDOW && t[i] <= (long long)now)
            recent++;
    /* remember this one (the newest LAB_DELAY_KEEP) */
    if (n == LAB_DELAY_KEEP)
        memmove(t, t + 1, --n * sizeof *t);
    t[n++] = (long long)now;
    if ((f = fopen(path, "w"))) {
        for (unsigned i = 0; i < n; i++)
            fprintf(f, "%lld\n", t[i]);
        fclose(f);
    }
    if (recent < LAB_DELAY_FREE)
        return 0;
    unsigned shift = recent - LAB_DELAY_FREE, secs = shift >= 6 ? LAB_DELAY_MAX : 1u << shift;
    if (secs > LAB_DELAY_MAX)
        secs = LAB_DELAY_MAX;
    fprintf(stderr, "tpu-lab: lab %u graded %u times in the last %d minutes%s%s: waiting %u s "
                    "before grading (answer labs slow down repeated grading)\n",
            lab->num, recent, LAB_DELAY_WINDOW / 60, student ? " for " : "",
            student ? student : "", secs);
    return wait_for(secs);
}
