/*
 * mxu_view.c - the MXU drawing of `show mxu` and --animate (see mxu_view.h).
 */
#include "mxu_view.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define GREEN  "\033[1;32m"
#define YELLOW "\033[33m"
#define RESET  "\033[0m"

void tpu_mxu_window_fit(tpu_mxu_window *w, unsigned n)
{
    if (n == 0)
        n = 1;
    if (w->rows == 0)
        w->rows = 1;
    if (w->cols == 0)
        w->cols = 1;
    if (w->rows > n)
        w->rows = n;
    if (w->cols > n)
        w->cols = n;
    if (w->row > n - w->rows)
        w->row = n - w->rows;
    if (w->col > n - w->cols)
        w->col = n - w->cols;
}

static void fmt_float(float f, char *buf, size_t len)
{
    if (isnan(f))
        snprintf(buf, len, "nan");
    else if (isinf(f))
        snprintf(buf, len, f < 0 ? "-inf" : "inf");
    else if (f == 0)
        snprintf(buf, len, signbit(f) ? "-0" : "0");
    else
        snprintf(buf, len, "%.5g", (double)f);
}

void tpu_fmt_f32(uint32_t bits, char *buf, size_t len)
{
    float f;
    memcpy(&f, &bits, sizeof f);
    fmt_float(f, buf, len);
}

void tpu_fmt_bf16(uint16_t bits, char *buf, size_t len)
{
    tpu_fmt_f32((uint32_t)bits << 16, buf, len);
}

/* The text of one line of a cell: 'w', 's', 'l', 'x' or 'y'. */
static void cell_text(const tpu_cell_view *v, char what, char *buf, size_t len)
{
    char num[32];
    buf[0] = 0;
    switch (what) {
    case 'w': tpu_fmt_bf16(v->weight, num, sizeof num); break;
    case 's': tpu_fmt_bf16(v->shadow, num, sizeof num); break;
    case 'l':
        if (!v->loading)
            return;
        tpu_fmt_bf16(v->chain, num, sizeof num);
        break;
    case 'x':
        if (!v->active)
            return;
        tpu_fmt_bf16(v->x, num, sizeof num);
        break;
    default:
        if (!v->active)
            return;
        tpu_fmt_f32(v->psum, num, sizeof num);
        break;
    }
    snprintf(buf, len, "%c %s", what, num);
}

/* Print a line built in `line`, without trailing blanks. */
static void put_trimmed(FILE *out, char *line)
{
    size_t n = strlen(line);
    while (n && line[n - 1] == ' ')
        n--;
    line[n] = 0;
    fprintf(out, "%s\n", line);
}

static unsigned digits(uint64_t v)
{
    unsigned d = 1;
    while (v >= 10) {
        v /= 10;
        d++;
    }
    return d;
}

int tpu_mxu_view_print(FILE *out, const tpu_core *c, unsigned mxu, unsigned n,
                       const tpu_mxu_window *win, int color)
{
    tpu_mxu_window w = *win;
    tpu_mxu_window_fit(&w, n);
    size_t ncell = (size_t)w.rows * w.cols;
    tpu_cell_view *cell = malloc(ncell * sizeof *cell);
    if (!cell)
        return -1;
    for (unsigned k = 0; k < w.rows; k++)
        for (unsigned j = 0; j < w.cols; j++)
            if (tpu_core_mxu_cell(c, mxu, w.row + k, w.col + j, &cell[k * w.cols + j])) {
                free(cell);
                return -1;
            }

    /* Widths: row labels "k12", the map's columns, the cells' columns. */
    unsigned lastk = w.row + w.rows - 1, lastc = w.col + w.cols - 1;
    int klab = 1 + (int)digits(lastk);
    int mapw = 1 + (int)digits(lastc);
    int cellw = 1 + (int)digits(lastc);
    int shadows = 0, loading = 0;
    for (size_t i = 0; i < ncell; i++) {
        char t[48];
        if (cell[i].active && (int)digits((uint64_t)cell[i].row) > mapw)
            mapw = (int)digits((uint64_t)cell[i].row);
        if (cell[i].shadow != cell[i].weight)
            shadows = 1;
        loading |= cell[i].loading;
        for (const char *p = "wslxy"; *p; p++) {
            cell_text(&cell[i], *p, t, sizeof t);
            if ((int)strlen(t) > cellw)
                cellw = (int)strlen(t);
        }
    }
    mapw += 2;
    cellw += 3;

    size_t linemax = (size_t)(klab + 4) + (size_t)w.cols * (size_t)(cellw + 24) + 1;
    char *line = malloc(linemax);
    if (!line) {
        free(cell);
        return -1;
    }

    /* The wavefront: which LHS row each cell works on. */
    fprintf(out, "LHS row in each cell (. = no multiply-add in this cycle):\n");
    int n0 = snprintf(line, linemax, "  %*s", klab, "");
    for (unsigned j = 0; j < w.cols; j++)
        n0 += snprintf(line + n0, linemax - (size_t)n0, "%*s%u", mapw - (int)digits(w.col + j),
                       "c", w.col + j);
    put_trimmed(out, line);
    for (unsigned k = 0; k < w.rows; k++) {
        snprintf(line, linemax, "  k%-*u", klab - 1, w.row + k);
        fputs(line, out);
        for (unsigned j = 0; j < w.cols; j++) {
            const tpu_cell_view *v = &cell[k * w.cols + j];
            char t[32];
            if (v->active)
                snprintf(t, sizeof t, "%" PRId64, v->row);
            else
                snprintf(t, sizeof t, ".");
            if (color && v->active)
                fprintf(out, "%*s" GREEN "%s" RESET, mapw - (int)strlen(t), "", t);
            else
                fprintf(out, "%*s", mapw, t);
        }
        fputc('\n', out);
    }

    /* The cells. */
    fprintf(out, "cells: w weight, %s%sx activation passing through, y partial sum out:\n",
            shadows ? "s shadow weight, " : "", loading ? "l weight being loaded, " : "");
    char lines[8], *lp = lines;     /* the lines of each cell: w [s] [l] x y */
    *lp++ = 'w';
    if (shadows)
        *lp++ = 's';
    if (loading)
        *lp++ = 'l';
    *lp++ = 'x';
    *lp++ = 'y';
    *lp = 0;
    n0 = snprintf(line, linemax, "  %*s", klab, "");
    for (unsigned j = 0; j < w.cols; j++) {
        char t[16];
        snprintf(t, sizeof t, "c%u", w.col + j);
        n0 += snprintf(line + n0, linemax - (size_t)n0, "   %-*s", cellw - 3, t);
    }
    put_trimmed(out, line);
    for (unsigned k = 0; k < w.rows; k++) {
        int busy = 0, loads = 0;    /* x and y lines only for a row with work, */
        for (unsigned j = 0; j < w.cols; j++) {   /* l only for a row being loaded */
            busy |= cell[k * w.cols + j].active;
            loads |= cell[k * w.cols + j].loading;
        }
        for (const char *p = lines; *p; p++) {
            if ((!busy && (*p == 'x' || *p == 'y')) || (!loads && *p == 'l'))
                continue;
            int m = *p == 'w' ? snprintf(line, linemax, "  k%-*u", klab - 1, w.row + k)
                              : snprintf(line, linemax, "  %*s", klab, "");
            if (color)
                fputs(line, out);
            for (unsigned j = 0; j < w.cols; j++) {
                const tpu_cell_view *v = &cell[k * w.cols + j];
                char t[48];
                cell_text(v, *p, t, sizeof t);
                if (!color) {
                    m += snprintf(line + m, linemax - (size_t)m, "   %-*s", cellw - 3, t);
                } else {
                    const char *on = v->active ? GREEN
                                   : (*p == 's' && v->shadow != v->weight) ? YELLOW
                                   : (*p == 'l' && v->loading) ? YELLOW : NULL;
                    if (on)
                        fprintf(out, "   %s%-*s" RESET, on, cellw - 3, t);
                    else
                        fprintf(out, "   %-*s", cellw - 3, t);
                }
            }
            if (color)
                fputc('\n', out);
            else
                put_trimmed(out, line);
        }
    }
    free(line);
    free(cell);
    return 0;
}
