/*
 * strdist.c - edit distance (see strdist.h): one row of the classic
 * dynamic-programming table, on the stack.
 */
#include "strdist.h"

#include <ctype.h>

#define MAX_LEN 63

size_t tpu_edit_distance(const char *a, size_t na, const char *b, size_t nb, int ignore_case)
{
    size_t row[MAX_LEN + 1];
    if (na >= MAX_LEN || nb >= MAX_LEN)
        return (size_t)-1;
    for (size_t j = 0; j <= nb; j++)
        row[j] = j;
    for (size_t i = 1; i <= na; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= nb; j++) {
            size_t up = row[j];
            int ca = (unsigned char)a[i - 1], cb = (unsigned char)b[j - 1];
            if (ignore_case) {
                ca = tolower(ca);
                cb = tolower(cb);
            }
            size_t best = diag + (ca != cb);
            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[nb];
}
