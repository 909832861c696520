/*
 * array_io.c - tpu-sim --load and --dump: a program's arrays (its `.array`
 * labels) in and out of .npy files (array_io.h, docs/tpu-sim.md).
 */
#include "array_io.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expect.h"
#include "fp.h"
#include "npy.h"
#include "strdist.h"

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -1;
}

static const char *space_name(unsigned s)
{
    return s == TPU_SPACE_HBM ? "hbm" : s == TPU_SPACE_VMEM ? "vmem" : "imem";
}

const char *tpu_array_npy_types(unsigned type)
{
    switch (type) {
    case TPU_ARRAY_BF16: return "float32 ('<f4', rounded to bf16) or uint16 ('<u2', bf16 bit "
                                "patterns)";
    case TPU_ARRAY_F32:  return "float32 ('<f4')";
    case TPU_ARRAY_I8:   return "int8 ('|i1')";
    case TPU_ARRAY_I32:  return "int32 ('<i4')";
    }
    return "?";
}

/* "(300, 700) bf16" */
static void array_text(const tpu_obj_array *a, char *buf, size_t len)
{
    char s[256];
    npy_shape_text(a->dims, a->ndim, s, sizeof s);
    snprintf(buf, len, "%s %s", s, tpu_array_type_name(a->type));
}

int tpu_array_find(const tpu_object *obj, const char *label, const char *opt, const char *arg,
                   const char *prog, const tpu_obj_symbol **sym, const tpu_obj_array **arr,
                   char *err, size_t errlen)
{
    *sym = NULL;
    *arr = NULL;
    for (size_t i = 0; i < obj->nsyms; i++)
        if (strcmp(obj->syms[i].name, label) == 0)
            *sym = &obj->syms[i];
    if (*sym && (*sym)->space != TPU_SPACE_HBM && (*sym)->space != TPU_SPACE_VMEM)
        return fail(err, errlen, "error: %s %s: '%s' is a code label of %s, not a data label",
                    opt, arg, label, prog);
    if (*sym && !(*arr = tpu_obj_find_array(obj, label)))
        return fail(err, errlen, "error: %s %s: label '%s' of %s has no element type and shape: "
                    "give it an '.array %s, TYPE, D0, D1, ...' line (docs/assembler.md)", opt,
                    arg, label, prog, label);
    if (*sym)
        return 0;
    /* Unknown: the arrays there are, the closest first. */
    char list[400] = "";
    size_t used = 0, best = SIZE_MAX;
    const char *near = NULL;
    for (size_t i = 0; i < obj->narrays; i++) {
        const char *n = obj->arrays[i].name;
        size_t dist = tpu_edit_distance(label, strlen(label), n, strlen(n), 0);
        if (dist < best)
            best = dist, near = n;
        if (used + strlen(n) + 8 < sizeof list)
            used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : "", n);
    }
    if (!obj->narrays)
        return fail(err, errlen, "error: %s %s: %s has no label '%s' (and no '.array' labels to "
                    "load or dump)", opt, arg, prog, label);
    if (near && best <= 2)
        return fail(err, errlen, "error: %s %s: %s has no label '%s'; did you mean '%s'? (its "
                    "arrays: %s)", opt, arg, prog, label, near, list);
    return fail(err, errlen, "error: %s %s: %s has no label '%s' (its arrays: %s)", opt, arg,
                prog, label, list);
}

/* The chunks of `space` that overlap [lo, hi), and the union of them with it. */
static void cover(const tpu_object *obj, uint8_t space, uint64_t *lo, uint64_t *hi)
{
    for (size_t i = 0; i < obj->nchunks; i++) {
        const tpu_obj_chunk *c = &obj->chunks[i];
        uint64_t end = c->addr + c->size;
        if (c->space != space || c->addr >= *hi || end <= *lo)
            continue;
        if (c->addr < *lo)
            *lo = c->addr;
        if (end > *hi)
            *hi = end;
    }
}

int tpu_array_load(tpu_object *obj, const char *label, const char *path, const char *prog,
                   uint64_t hbm_bytes, uint64_t vmem_bytes, char *err, size_t errlen)
{
    const tpu_obj_symbol *sym;
    const tpu_obj_array *arr;
    char arg[600], msg[512], want[300];
    snprintf(arg, sizeof arg, "%s=%s", label, path);
    if (tpu_array_find(obj, label, "--load", arg, prog, &sym, &arr, err, errlen))
        return -1;
    array_text(arr, want, sizeof want);
    char shape[256];
    npy_shape_text(arr->dims, arr->ndim, shape, sizeof shape);

    /* the array inside the machine's memory */
    uint64_t ext = tpu_array_extent(arr), size = sym->space == TPU_SPACE_HBM ? hbm_bytes
                                                                               : vmem_bytes;
    if (sym->value > size || ext > size - sym->value)
        return fail(err, errlen, "error: --load %s: array %s (%s 0x%llx, %llu bytes) is outside "
                    "%s (0x%llx bytes)", arg, label, space_name(sym->space),
                    (unsigned long long)sym->value, (unsigned long long)ext,
                    sym->space == TPU_SPACE_HBM ? "HBM" : "VMEM", (unsigned long long)size);

    npy_array a;
    if (npy_read(path, &a, 1, msg, sizeof msg))
        return fail(err, errlen, "%s: error: %s (--load %s wants shape %s of %s)", path, msg,
                    label, shape, tpu_array_npy_types(arr->type));
    int type_ok = (arr->type == TPU_ARRAY_BF16 && (a.dtype == NPY_F32 || a.dtype == NPY_U16))
                  || (arr->type == TPU_ARRAY_F32 && a.dtype == NPY_F32)
                  || (arr->type == TPU_ARRAY_I8 && a.dtype == NPY_I8)
                  || (arr->type == TPU_ARRAY_I32 && a.dtype == NPY_I32);
    int shape_ok = a.ndim == arr->ndim;
    for (unsigned d = 0; shape_ok && d < a.ndim; d++)
        shape_ok = a.shape[d] == arr->dims[d];
    if (!type_ok || !shape_ok) {
        char s[256];
        npy_shape_text(a.shape, a.ndim, s, sizeof s);
        fail(err, errlen, "%s: error: %s of %s does not fit label %s (%s): expected shape %s of "
             "%s", path, s, npy_dtype_name(a.dtype), label, want, shape,
             tpu_array_npy_types(arr->type));
        npy_free(&a);
        return -1;
    }

    /* The bytes the chunks put around the array, then the array over them. */
    uint64_t lo = sym->value, hi = sym->value + ext;
    cover(obj, sym->space, &lo, &hi);
    if (hi - lo > SIZE_MAX) {
        npy_free(&a);
        return fail(err, errlen, "error: --load %s: the data around %s is too large", arg, label);
    }
    uint8_t *buf = malloc((size_t)(hi - lo));
    if (!buf) {
        npy_free(&a);
        return fail(err, errlen, "error: --load %s: out of memory (%llu bytes)", arg,
                    (unsigned long long)(hi - lo));
    }
    tpu_expect_initial_read(obj, (enum tpu_space)sym->space, lo, buf, (size_t)(hi - lo));
    uint8_t *base = buf + (sym->value - lo);
    unsigned es = tpu_array_esize(arr->type);
    for (uint64_t i = 0; i < a.count; i++) {
        uint8_t *dst = base + tpu_array_offset(arr, i);
        if (arr->type == TPU_ARRAY_BF16 && a.dtype == NPY_F32) {
            const uint8_t *p = a.data + 4 * i;
            uint32_t f = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16
                         | (uint32_t)p[3] << 24;
            uint16_t b = tpu_bf16_from_f32(f);
            dst[0] = (uint8_t)b;
            dst[1] = (uint8_t)(b >> 8);
        } else {
            memcpy(dst, a.data + (size_t)i * es, es);
        }
    }
    npy_free(&a);

    /* Replace the covered chunks by one DATA chunk (they do not overlap:
     * docs/object-format.md; the order of the rest is kept). */
    size_t k = 0;
    for (size_t i = 0; i < obj->nchunks; i++) {
        const tpu_obj_chunk *c = &obj->chunks[i];
        if (c->space == sym->space && c->addr >= lo && c->addr + c->size <= hi)
            continue;
        obj->chunks[k++] = *c;
    }
    obj->nchunks = k;
    int rc = tpu_obj_add_data(obj, sym->space, lo, buf, hi - lo);
    free(buf);
    if (rc)
        return fail(err, errlen, "error: --load %s: out of memory", arg);
    return 0;
}

int tpu_array_dump(tpu_core *core, const tpu_object *obj, const char *label, const char *path,
                   const char *prog, char *err, size_t errlen)
{
    const tpu_obj_symbol *sym;
    const tpu_obj_array *arr;
    char arg[600], msg[512];
    snprintf(arg, sizeof arg, "%s=%s", label, path);
    if (tpu_array_find(obj, label, "--dump", arg, prog, &sym, &arr, err, errlen))
        return -1;
    uint64_t ext = tpu_array_extent(arr), count = tpu_array_count(arr);
    unsigned es = tpu_array_esize(arr->type), out_es = arr->type == TPU_ARRAY_BF16 ? 4 : es;
    if (ext > SIZE_MAX || count > SIZE_MAX / out_es)
        return fail(err, errlen, "error: --dump %s: array %s is too large", arg, label);
    uint8_t *mem = malloc(ext ? (size_t)ext : 1);
    npy_array a = { .ndim = arr->ndim, .count = count, .esize = out_es };
    a.dtype = arr->type == TPU_ARRAY_I8 ? NPY_I8 : arr->type == TPU_ARRAY_I32 ? NPY_I32 : NPY_F32;
    memcpy(a.shape, arr->dims, sizeof a.shape);
    a.data = mem ? malloc(count ? (size_t)(count * out_es) : 1) : NULL;
    if (!mem || !a.data) {
        free(mem);
        free(a.data);
        return fail(err, errlen, "error: --dump %s: out of memory", arg);
    }
    if (tpu_mem_read(core, (enum tpu_space)sym->space, sym->value, mem, (size_t)ext) < 0) {
        free(mem);
        free(a.data);
        return fail(err, errlen, "error: --dump %s: array %s (%s 0x%llx, %llu bytes) is outside "
                    "the memory", arg, label, space_name(sym->space),
                    (unsigned long long)sym->value, (unsigned long long)ext);
    }
    for (uint64_t i = 0; i < count; i++) {
        const uint8_t *src = mem + tpu_array_offset(arr, i);
        uint8_t *dst = a.data + (size_t)i * out_es;
        if (arr->type == TPU_ARRAY_BF16) {   /* bf16 -> float32: the low 16 bits zero */
            dst[0] = dst[1] = 0;
            dst[2] = src[0];
            dst[3] = src[1];
        } else {
            memcpy(dst, src, es);
        }
    }
    free(mem);
    int rc = npy_write(path, &a, msg, sizeof msg);
    npy_free(&a);
    if (rc)
        return fail(err, errlen, "%s: error: %s (--dump %s)", path, msg, label);
    return 0;
}
