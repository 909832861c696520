/*
 * array_io.h - a program's arrays in and out of .npy files: what tpu-sim
 * --load LABEL=FILE.npy and --dump LABEL=FILE.npy do (docs/tpu-sim.md).
 *
 * A label's element type and shape come from the program's `.array`
 * directive (an ARRAY record of the object, objfile.h): the data at the
 * label is an array of that type and (logical) shape, its rows `pitch`
 * bytes apart, so a padded layout (tpu-gen's X, W and Y) moves in and out
 * as the unpadded array.
 *
 * --load patches the object before it is loaded: the array's bytes
 * become a DATA chunk in place of the chunks they cover (padding and
 * neighbouring bytes of those chunks kept as they were), so the machine
 * starts from the user's data and the program's `.expect` checks, which
 * read the object's initial data, check against it too.
 */
#ifndef TPU_ARRAY_IO_H
#define TPU_ARRAY_IO_H

#include <stddef.h>
#include <stdint.h>

#include "objfile.h"
#include "tpu.h"

/* The data label and ARRAY record of `label`.  On failure -1 and a whole
 * message after "TOOL: " in err ("error: --load Q=q.npy: prog.bin has no
 * label 'Q' (its arrays: X, W, Y)"); opt is "--load" or "--dump", arg the
 * option's value, prog the object's file name, for the message. */
int tpu_array_find(const tpu_object *obj, const char *label, const char *opt, const char *arg,
                   const char *prog, const tpu_obj_symbol **sym, const tpu_obj_array **arr,
                   char *err, size_t errlen);

/* --load: read path and put it into the object at label, converting
 * float32 to bf16 (round to nearest even, cmodel/fp.c) for a bf16 array.
 * hbm_bytes, vmem_bytes: the machine's memories (the array must fit).
 * On failure -1 and a whole message after "TOOL: " in err. */
int tpu_array_load(tpu_object *obj, const char *label, const char *path, const char *prog,
                   uint64_t hbm_bytes, uint64_t vmem_bytes, char *err, size_t errlen);

/* --dump: write the array at label as it is in core's memory to path
 * (bf16 as float32, exactly), whole or not at all.  -1 and a message as
 * above on failure. */
int tpu_array_dump(tpu_core *core, const tpu_object *obj, const char *label, const char *path,
                   const char *prog, char *err, size_t errlen);

/* The .npy dtype(s) an array type takes, for messages: "float32 (rounded
 * to bf16) or uint16 (bf16 bit patterns)". */
const char *tpu_array_npy_types(unsigned type);

#endif /* TPU_ARRAY_IO_H */
