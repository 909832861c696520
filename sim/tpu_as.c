/*
 * tpu_as.c - tpu-as, the assembler command.
 *
 *   tpu-as [--config NAME|FILE] [-D NAME=VALUE]... [-I DIR]... [-o OUT] [--list] FILE.s
 *
 * Reads FILE.s (or standard input for "-"), assembles it with the library
 * in sim/asm/asm_*.c and writes the object (docs/object-format.md).  Without
 * --config it assembles for the machine tpu-sim would run the object on:
 * the preset with the shape of the source's .target, else tiny.  Exit
 * status: 0 done, 1 assembly or I/O error, 2 bad command line.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "asm.h"
#include "config.h"
#include "objfile.h"

static void usage(FILE *f)
{
    fputs("usage: tpu-as [--config NAME|FILE] [-D NAME=VALUE]... [-I DIR]... [-o OUT] [--list]\n"
          "              FILE.s\n"
          "\n"
          "Assemble FILE.s (docs/assembler.md) into an object file (docs/object-format.md).\n"
          "FILE '-' reads standard input.\n"
          "\n"
          "options:\n"
          "  --config NAME|FILE  assemble for this machine: a preset (tiny, mid, v5e,\n"
          "                      tpuv1, v4p, v5p, v6e) or a .cfg file; defines MXU_N,\n"
          "                      NUM_MXU, VPU_SUBLANES, VPU_LANES, VMEM_BYTES, HBM_BYTES,\n"
          "                      IMEM_WORDS, checks the memory sizes and records the\n"
          "                      machine shape in the object.  Default, as tpu-sim's:\n"
          "                      the first preset (in that order) with the shape the .target\n"
          "                      gives, else tiny; the first line of --list says which\n"
          "  -D NAME=VALUE       define a constant (wins over .equ NAME); VALUE is an\n"
          "                      integer expression such as 64 or 0x40 or 1<<10; -D NAME is 1\n"
          "  -I DIR              look for .include files in DIR too (after the including\n"
          "                      file's own directory); may be repeated\n"
          "  -o OUT              write the object to OUT (default: FILE with .s replaced\n"
          "                      by .bin, or a.bin for standard input)\n"
          "  --list              print a listing to stdout: the machine, then address,\n"
          "                      contents and source line of each instruction and data\n"
          "  -h, --help          print this help and exit\n"
          "\n"
          "exit status: 0 success, 1 assembly or file error, 2 bad command line\n", f);
}

static int bad_usage(const char *fmt, const char *arg)
{
    fprintf(stderr, "tpu-as: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\nTry 'tpu-as --help'.\n");
    return 2;
}

/* Read the whole input, but stop after max+1 bytes: a larger file is
 * refused without reading all of it.  NULL and errno on failure. */
static char *read_source(const char *path, size_t max, size_t *len)
{
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    int saved = ENOMEM;
    while (buf && n <= max) {
        if (n == cap) {
            char *p = realloc(buf, cap * 2);
            if (!p) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = p, cap *= 2;
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0) {
            if (ferror(f)) {
                free(buf);
                buf = NULL;
                saved = errno ? errno : EIO;
            }
            break;
        }
    }
    if (f != stdin)
        fclose(f);
    errno = saved;
    *len = n;
    return buf;
}

/* x.s -> x.bin; anything else -> anything.bin. */
static char *default_output(const char *in)
{
    size_t n = strlen(in);
    if (strcmp(in, "-") == 0)
        n = 0, in = "a";
    else if (n > 2 && strcmp(in + n - 2, ".s") == 0)
        n -= 2;
    char *out = malloc(n + 5);
    if (out) {
        memcpy(out, in, n);
        strcpy(out + n, ".bin");
    }
    return out;
}

/* 256Ki, 16Mi, 16Gi when exact, else the number. */
static const char *size_text(char *buf, size_t n, uint64_t v)
{
    static const char *const suffix[] = { "Gi", "Mi", "Ki" };
    for (int k = 0; k < 3; k++) {
        uint64_t unit = 1ull << (30 - 10 * k);
        if (v >= unit && v % unit == 0) {
            snprintf(buf, n, "%llu%s", (unsigned long long)(v / unit), suffix[k]);
            return buf;
        }
    }
    snprintf(buf, n, "%llu", (unsigned long long)v);
    return buf;
}

/* The machine to assemble for: --config's (already in *cfg), else, as
 * tpu-sim picks one for an object, the preset with the shape the source's
 * .target gives, else tiny.  A .target that is no preset's shape (or has a
 * 0, "any") leaves no machine: the shape from .target, no predefined
 * constants, the largest memories.  Returns 1 with *cfg set, 0 for no
 * machine; `what` gets the first line of the listing. */
static int pick_machine(const char *config_name, const char *src, size_t len, tpu_config *cfg,
                        char *what, size_t n)
{
    char why[160], err[256];
    tpu_obj_config t;
    int k;
    if (config_name) {
        snprintf(why, sizeof why, "--config %.140s", config_name);
    } else if (!tpu_asm_source_target(src, len, &t)) {
        tpu_config_defaults(cfg);
        if (tpu_config_load(cfg, "tiny", err, sizeof err))
            tpu_config_defaults(cfg);       /* tiny is config.def's defaults anyway */
        snprintf(why, sizeof why, "the default: no --config and no .target");
    } else if (t.mxu_n && t.num_mxu && t.vpu_sublanes && t.vpu_lanes &&
               (k = tpu_obj_config_preset(&t, 0, cfg)) >= 0) {
        snprintf(why, sizeof why, "no --config: the preset with the shape of .target %u, %u, "
                 "%u, %u", t.mxu_n, t.num_mxu, t.vpu_sublanes, t.vpu_lanes);
    } else {
        snprintf(what, n, "assembled for the shape of .target %u, %u, %u, %u (no --config, and "
                 "no preset has that shape): no predefined constants, memories up to "
                 "hbm_bytes 16Gi, vmem_bytes 128Mi", t.mxu_n, t.num_mxu, t.vpu_sublanes,
                 t.vpu_lanes);
        return 0;
    }
    char h[32], v[32];
    snprintf(what, n, "assembled for %s (%s): mxu_n %llu, num_mxu %llu, vpu %llu x %llu, "
             "imem_words %llu, vmem_bytes %s, hbm_bytes %s", cfg->name, why,
             (unsigned long long)cfg->mxu_n, (unsigned long long)cfg->num_mxu,
             (unsigned long long)cfg->vpu_sublanes, (unsigned long long)cfg->vpu_lanes,
             (unsigned long long)cfg->imem_words, size_text(v, sizeof v, cfg->vmem_bytes),
             size_text(h, sizeof h, cfg->hbm_bytes));
    return 1;
}

int main(int argc, char **argv)
{
    const char *config_name = NULL, *out = NULL, *in = NULL;
    int listing = 0;
    tpu_asm_define *defines = calloc((size_t)argc, sizeof *defines);
    size_t ndefines = 0;
    const char *incdirs[64];
    size_t nincdirs = 0;
    char err[512];
    if (!defines) {
        fprintf(stderr, "tpu-as: out of memory\n");
        return 1;
    }
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            usage(stdout);
            free(defines);
            return 0;
        } else if (strcmp(a, "--config") == 0 || strncmp(a, "--config=", 9) == 0) {
            if (a[8] == '=')
                config_name = a + 9;
            else if (++i < argc)
                config_name = argv[i];
            else
                return free(defines), bad_usage("option '%s' needs a value", a);
        } else if (strcmp(a, "-o") == 0 || (strncmp(a, "-o", 2) == 0 && a[2])) {
            if (a[2])
                out = a + 2;
            else if (++i < argc)
                out = argv[i];
            else
                return free(defines), bad_usage("option '%s' needs a value", a);
        } else if (strncmp(a, "-D", 2) == 0) {
            const char *d = a[2] ? a + 2 : (++i < argc ? argv[i] : NULL);
            if (!d)
                return free(defines), bad_usage("option '%s' needs a value", a);
            if (tpu_asm_parse_define(d, &defines[ndefines], err, sizeof err)) {
                free(defines);
                fprintf(stderr, "tpu-as: %s\nTry 'tpu-as --help'.\n", err);
                return 2;
            }
            ndefines++;
        } else if (strncmp(a, "-I", 2) == 0) {
            const char *d = a[2] ? a + 2 : (++i < argc ? argv[i] : NULL);
            if (!d)
                return free(defines), bad_usage("option '%s' needs a value", a);
            if (nincdirs == sizeof incdirs / sizeof incdirs[0])
                return free(defines), bad_usage("too many -I directories (at most 64): '%s'", d);
            incdirs[nincdirs++] = d;
        } else if (strcmp(a, "--list") == 0) {
            listing = 1;
        } else if (a[0] == '-' && a[1] != '\0') {
            return free(defines), bad_usage("unknown option '%s'", a);
        } else if (in) {
            return free(defines), bad_usage("only one input file is allowed (got '%s' too)", a);
        } else {
            in = a;
        }
    }
    if (!in)
        return free(defines), bad_usage("%s", "no input file");

    tpu_config cfg;
    if (config_name) {
        tpu_config_defaults(&cfg);
        if (tpu_config_load(&cfg, config_name, err, sizeof err) ||
            tpu_config_validate(&cfg, err, sizeof err)) {
            fprintf(stderr, "tpu-as: --config %s: %s\n", config_name, err);
            free(defines);
            return 2;
        }
    }

    size_t len;
    char *src = read_source(in, TPU_ASM_MAX_SOURCE, &len);
    if (!src) {
        fprintf(stderr, "tpu-as: cannot read '%s': %s\n", in, strerror(errno));
        free(defines);
        return 1;
    }
    if (len > TPU_ASM_MAX_SOURCE) {
        fprintf(stderr, "%s:1:1: error: file too large (more than %u MiB)\n", in,
                TPU_ASM_MAX_SOURCE >> 20);
        free(src);
        free(defines);
        return 1;
    }
    char machine[600];
    int have_cfg = pick_machine(config_name, src, len, &cfg, machine, sizeof machine);
    tpu_asm_options opt = { .config = have_cfg ? &cfg : NULL, .defines = defines,
                            .ndefines = ndefines, .listing = listing, .allow_include = 1,
                            .include_dirs = incdirs, .ninclude_dirs = nincdirs };
    tpu_object obj;
    tpu_asm_result res;
    int rc = tpu_asm_assemble(src, len, strcmp(in, "-") == 0 ? "<stdin>" : in, &opt, &obj, &res);
    if (res.messages)
        fputs(res.messages, stderr);
    if (rc == 0 && listing) {
        printf("# tpu-as: %s\n", machine);
        if (res.listing)
            fwrite(res.listing, 1, res.listing_len, stdout);
    }
    int status = rc == 0 ? 0 : 1;
    if (rc == 0) {
        char *path = out ? NULL : default_output(in);
        const char *target = out ? out : path;
        if (!target || tpu_obj_write(&obj, target, err, sizeof err)) {
            fprintf(stderr, "tpu-as: %s\n", target ? err : "out of memory");
            status = 1;
        }
        free(path);
    }
    tpu_asm_result_free(&res);
    tpu_obj_free(&obj);
    free(src);
    free(defines);
    return status;
}
