/*
 * asm.h - the assembler library behind tpu-as.
 *
 * tpu_asm_assemble() turns one source buffer (the syntax is docs/assembler.md)
 * into a tpu_object (cmodel/include/tpu/objfile.h).  It keeps no global state, never
 * exits, and never trusts its input: any byte string gets either an object
 * or a list of gcc-style messages "FILE:LINE:COL: error: MESSAGE", and the
 * work and memory it takes are bounded (see the limits below).  The fuzzer
 * (tests/fuzz) calls it directly.
 */
#ifndef TPU_ASM_H
#define TPU_ASM_H

#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "objfile.h"

/* Limits (docs/assembler.md, "Limits"). */
#define TPU_ASM_MAX_SOURCE      (64u << 20)   /* bytes of source */
#define TPU_ASM_MAX_LINE        65535u        /* bytes in one line */
#define TPU_ASM_MAX_ERRORS      50            /* then "too many errors, stopping" */
#define TPU_ASM_MAX_REPT_DEPTH  16            /* .rept nesting */
#define TPU_ASM_MAX_INCLUDE_DEPTH 16          /* .include nesting */
#define TPU_ASM_MAX_MACRO_DEPTH 32            /* macro calls inside macro bodies */
#define TPU_ASM_MAX_MACRO_PARAMS 64           /* parameters of one .macro */
#define TPU_ASM_MAX_EXPANSION   4000000u      /* lines executed inside .rept and macro bodies */
#define TPU_ASM_MAX_EXPANSION_BYTES (64u << 20) /* bytes of those lines */
#define TPU_ASM_MAX_TEXT        1048576u      /* instructions without --config */
#define TPU_ASM_MAX_DATA        (256u << 20)  /* bytes in DATA records (objfile limit) */
#define TPU_ASM_MAX_EXPECTS     TPU_OBJ_MAX_EXPECTS /* EXPECT records (objfile limit) */
#define TPU_ASM_DEFAULT_HBM     (16ull << 30) /* memory sizes without --config (v5e) */
#define TPU_ASM_DEFAULT_VMEM    (128ull << 20)

/* A constant given on the command line (-D NAME=VALUE).  It wins over a
 * `.equ` of the same name. */
typedef struct tpu_asm_define {
    const char *name;       /* need not be NUL-terminated: name_len bytes */
    size_t name_len;
    int64_t value;
} tpu_asm_define;

typedef struct tpu_asm_options {
    /* The machine (--config): predefined constants MXU_N, NUM_MXU, ...,
     * the memory sizes checked against, and the CONFIG record.  NULL: no
     * predefined constants, the largest memories, CONFIG from `.target`. */
    const tpu_config *config;
    const tpu_asm_define *defines;  /* -D constants, ndefines of them */
    size_t ndefines;
    int listing;                    /* fill tpu_asm_result.listing */
    /* `.include "FILE"` reads files only when allow_include is set (tpu-as
     * sets it; the fuzzer does not).  A relative FILE is looked for next to
     * the including file (the top one is `filename`), then in each of the
     * include_dirs (-I) in order. */
    int allow_include;
    const char *const *include_dirs;
    size_t ninclude_dirs;
    /* Sources nobody vouches for (tpu-lab's submissions): with
     * include_sandbox set, `.include` reads only regular files inside the
     * folder include_root, named relative to the including file, with no
     * '..' and no absolute path, and no symbolic link anywhere on the way
     * (include_dirs are not searched).  `filename` must then be a file
     * directly in include_root.  With include_root NULL nothing may be
     * included.  A refused name is an error that says why, and nothing
     * outside the folder is opened or even looked at, so the messages
     * cannot tell whether such a file exists. */
    int include_sandbox;
    const char *include_root;
} tpu_asm_options;

typedef struct tpu_asm_result {
    unsigned nerrors;       /* messages in `messages` */
    char *messages;         /* "FILE:LINE:COL: error: MSG\n"..., NUL-terminated; "" if none */
    size_t messages_len;
    char *listing;          /* with options.listing: "ADDRESS  WORD  SOURCE\n" lines */
    size_t listing_len;
} tpu_asm_result;

/* Assemble len bytes of src (need not be NUL-terminated; any bytes at all).
 * `filename` names the source in messages.  opt may be NULL (defaults).
 * *obj is initialised here; on success it holds the object (free it with
 * tpu_obj_free), on failure it is left empty.  *res always gets the
 * messages; free it with tpu_asm_result_free.  Returns 0 on success, -1 if
 * there was any error. */
int tpu_asm_assemble(const char *src, size_t len, const char *filename,
                     const tpu_asm_options *opt, tpu_object *obj, tpu_asm_result *res);

void tpu_asm_result_free(tpu_asm_result *res);

/* The machine shape the source names with `.target`: the operands of its
 * first `.target` line, when they are integer expressions of literals in
 * range (as tpu-dis writes them).  Returns 1 and fills *shape, else 0.
 * tpu-as picks its machine with it when there is no --config. */
int tpu_asm_source_target(const char *src, size_t len, tpu_obj_config *shape);

/* Parse a -D argument "NAME=VALUE" (VALUE an integer expression of
 * literals, e.g. 64 or 0x40 or 1<<10).  d->name points into arg.  Returns 0,
 * or -1 with a message in err. */
int tpu_asm_parse_define(const char *arg, tpu_asm_define *d, char *err, size_t errlen);

#endif /* TPU_ASM_H */
