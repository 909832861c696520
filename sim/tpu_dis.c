/*
 * tpu_dis.c - tpu-dis: print an object file as assembly source.
 *
 *   tpu-dis [-o OUT.s] [--no-addresses] PROG.bin
 *
 * The output assembles (tpu-as) back to the same bytes; see sim/asm/disasm.h.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "disasm.h"
#include "objfile.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: tpu-dis [-o OUT.s] [--no-addresses] PROG.bin\n"
            "\n"
            "Print the object file PROG.bin (written by tpu-as) as assembly source in the\n"
            "syntax of docs/assembler.md.  tpu-as assembles that text back to a file that is\n"
            "byte for byte the same as PROG.bin.\n"
            "\n"
            "options:\n"
            "  -o FILE          write the source to FILE instead of standard output\n"
            "  --no-addresses   leave out the '# 0x0004' instruction address comments\n"
            "  -h, --help       show this help\n"
            "\n"
            "exit status: 0 on success, 1 if the file cannot be read or is not a valid\n"
            "object, 2 on a bad command line.\n");
}

int main(int argc, char **argv)
{
    const char *in = NULL, *outpath = NULL;
    tpu_dis_options opt = { 0, NULL };
    int only_files = 0;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!only_files && (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0)) {
            usage(stdout);
            return 0;
        } else if (!only_files && strcmp(a, "--no-addresses") == 0) {
            opt.no_addresses = 1;
        } else if (!only_files && strcmp(a, "-o") == 0) {
            if (i + 1 >= argc) {
                fprintf(stderr, "tpu-dis: option '-o' needs a file name (try --help)\n");
                return 2;
            }
            outpath = argv[++i];
        } else if (!only_files && strncmp(a, "-o", 2) == 0) {
            outpath = a + 2;
        } else if (!only_files && strcmp(a, "--") == 0) {
            only_files = 1;
        } else if (!only_files && a[0] == '-' && a[1] != 0) {
            fprintf(stderr, "tpu-dis: unknown option '%s' (try --help)\n", a);
            return 2;
        } else if (in) {
            fprintf(stderr, "tpu-dis: more than one input file ('%s' and '%s')\n", in, a);
            return 2;
        } else {
            in = a;
        }
    }
    if (!in) {
        fprintf(stderr, "tpu-dis: no input file (try --help)\n");
        return 2;
    }

    tpu_object o;
    char err[600];
    if (tpu_obj_read(in, &o, err, sizeof err) != 0) {
        fprintf(stderr, "tpu-dis: %s\n", err);
        return 1;
    }
    opt.source = in;
    FILE *out = stdout;
    if (outpath) {
        out = fopen(outpath, "w");
        if (!out) {
            fprintf(stderr, "tpu-dis: %s: %s\n", outpath, strerror(errno));
            tpu_obj_free(&o);
            return 1;
        }
    }
    int rc = tpu_disasm(&o, &opt, out);
    tpu_obj_free(&o);
    if (fflush(out) != 0)
        rc = -1;
    int saved = errno;
    if (outpath && fclose(out) != 0)
        rc = -1, saved = errno;
    if (rc != 0) {
        fprintf(stderr, "tpu-dis: %s: %s\n", outpath ? outpath : "standard output",
                strerror(saved));
        if (outpath)
            remove(outpath);
        return 1;
    }
    return 0;
}
