/*
 * mxu_view.h - draw one MXU's cells as they were in the last cycle the
 * model computed: the stepper's `show mxu` and the --animate frames.
 *
 * Everything comes from tpu_core_mxu_cell() (cmodel/include/tpu/tpu.h).  Two parts:
 * a map of the LHS row in each cell (the wavefront: rows enter skewed, so
 * row b sits on the anti-diagonal k + c = t - s - b - 1, docs/timing.md
 * T22), then each cell's weight, shadow weight (only while a shadow
 * differs from its weight somewhere in the window), the weight being
 * loaded into it (only while an mxu.lw's diagonal wavefront crosses the
 * window, T20), the activation that passed through and the partial sum it
 * produced (the shadow only where it differs from the weight in use).  A
 * large array is shown through a window of at most rows x cols cells, or
 * whole in the compact view, a character per cell or block of cells.
 * docs/stepper.md shows the output.
 */
#ifndef TPU_MXU_VIEW_H
#define TPU_MXU_VIEW_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "tpu.h"

#define TPU_MXU_WINDOW_ROWS 8     /* default window: 8 rows of cells ... */
#define TPU_MXU_WINDOW_COLS 5     /* ... by 5 columns (fits 80 characters) */

/* The cells shown: rows row .. row+rows-1, columns col .. col+cols-1. */
typedef struct tpu_mxu_window {
    unsigned row, col, rows, cols;
} tpu_mxu_window;

/* Clamp a window to an n x n array (size at least 1 x 1, inside it). */
void tpu_mxu_window_fit(tpu_mxu_window *w, unsigned n);

/* A bf16 or fp32 bit pattern as a short number: "%.5g" of its value,
 * "inf", "-inf", "nan", "-0". */
void tpu_fmt_bf16(uint16_t bits, char *buf, size_t len);
void tpu_fmt_f32(uint32_t bits, char *buf, size_t len);

/* Print the window of MXU `mxu` (an n x n array) of core c.  color: ANSI
 * colours (active cells green, shadows that differ and weights being
 * loaded yellow).  Returns -1
 * when there is no such MXU. */
int tpu_mxu_view_print(FILE *out, const tpu_core *c, unsigned mxu, unsigned n,
                       const tpu_mxu_window *w, int color);

/* The compact view: two maps of the whole array side by side, one
 * character per cell, or per b x b block of cells when n is larger than
 * TPU_MXU_COMPACT_MAX (b = tpu_mxu_compact_block(n)): the LHS row each
 * cell multiplies (its last digit; a block: '#' all cells, '+' some) and
 * its weights ('l' one arrives from an mxu.lw, 's' the shadow holds a new
 * one), then a legend and the counts of the cycle.  About n / b + 5 lines
 * of at most 80 characters.  Returns -1 when there is no such MXU or out
 * of memory. */
#define TPU_MXU_COMPACT_MAX 32    /* characters per side of a compact map */
unsigned tpu_mxu_compact_block(unsigned n);
int tpu_mxu_view_print_compact(FILE *out, const tpu_core *c, unsigned mxu, unsigned n,
                               int color);

#endif /* TPU_MXU_VIEW_H */
