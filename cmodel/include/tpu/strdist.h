/*
 * strdist.h - edit distance, for "did you mean ...?" in error messages
 * (unknown config keys, unknown mnemonics).
 */
#ifndef TPU_STRDIST_H
#define TPU_STRDIST_H

#include <stddef.h>

/* Levenshtein distance between a[0..na) and b[0..nb), optionally ignoring
 * ASCII case.  Strings of 63 bytes or more are not compared: the result is
 * then (size_t)-1, "too far". */
size_t tpu_edit_distance(const char *a, size_t na, const char *b, size_t nb, int ignore_case);

#endif /* TPU_STRDIST_H */
