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

/* An int8 pair (numerics.md section 9): "lo,hi". */
static void fmt_i8_pair(uint16_t bits, char *buf, size_t len)
{
    snprintf(buf, len, "%d,%d", (int)(int8_t)(uint8_t)(bits & 0xff),
             (int)(int8_t)(uint8_t)(bits >> 8));
}

/* The text of one line of a cell: 'w', 's', 'l', 'x' or 'y'.  A cell that
 * an int8 row passes shows its weight and activation as int8 pairs and its
 * partial sum as an int32 (the shadow and the weight in transit as bf16:
 * their mode is the next stream's). */
static void cell_text(const tpu_cell_view *v, char what, char *buf, size_t len)
{
    char num[32];
    buf[0] = 0;
    if (v->active && v->i8 && (what == 'w' || what == 'x' || what == 'y')) {
        if (what == 'y')
            snprintf(num, sizeof num, "%d", (int)(int32_t)v->psum);
        else
            fmt_i8_pair(what == 'w' ? v->weight : v->x, num, sizeof num);
        snprintf(buf, len, "%c %s", what, num);
        return;
    }
    switch (what) {
    case 'w': tpu_fmt_bf16(v->weight, num, sizeof num); break;
    case 's':                   /* only where a new weight waits in the shadow */
        if (v->shadow == v->weight)
            return;
        tpu_fmt_bf16(v->shadow, num, sizeof num);
        break;
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

/* The map of the LHS row in each cell of the window; a single line when
 * no cell of the window works in this cycle. */
static void print_map(FILE *out, const tpu_cell_view *cell, const tpu_mxu_window *w, int klab,
                      int mapw, char *line, size_t linemax, int color)
{
    int any = 0;
    for (size_t i = 0; i < (size_t)w->rows * w->cols; i++)
        any |= cell[i].active;
    if (!any) {
        fprintf(out, "LHS row in each cell: none (no multiply-add in this cycle)\n");
        return;
    }
    fprintf(out, "LHS row in each cell (. = no multiply-add in this cycle):\n");
    int n0 = snprintf(line, linemax, "  %*s", klab, "");
    for (unsigned j = 0; j < w->cols; j++)
        n0 += snprintf(line + n0, linemax - (size_t)n0, "%*s%u", mapw - (int)digits(w->col + j),
                       "c", w->col + j);
    put_trimmed(out, line);
    for (unsigned k = 0; k < w->rows; k++) {
        snprintf(line, linemax, "  k%-*u", klab - 1, w->row + k);
        fputs(line, out);
        for (unsigned j = 0; j < w->cols; j++) {
            const tpu_cell_view *v = &cell[k * w->cols + j];
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
    print_map(out, cell, &w, klab, mapw, line, linemax, color);

    /* The cells. */
    fprintf(out, "cells: w weight, %s%sx activation passing through, y partial sum out:\n",
            shadows ? "s shadow weight where it differs, " : "",
            loading ? "l weight being loaded, " : "");
    char lines[8], *lp = lines;     /* the lines of each cell: w [s] [l] x y */
    *lp++ = 'w';
    if (shadows)
        *lp++ = 's';
    if (loading)
        *lp++ = 'l';
    *lp++ = 'x';
    *lp++ = 'y';
    *lp = 0;
    int n0 = snprintf(line, linemax, "  %*s", klab, "");
    for (unsigned j = 0; j < w.cols; j++) {
        char t[16];
        snprintf(t, sizeof t, "c%u", w.col + j);
        n0 += snprintf(line + n0, linemax - (size_t)n0, "   %-*s", cellw - 3, t);
    }
    put_trimmed(out, line);
    for (unsigned k = 0; k < w.rows; k++) {
        /* x and y lines only for a row with work, l only for a row being
         * loaded, s only for a row with a new weight in a shadow. */
        int busy = 0, loads = 0, waits = 0;
        for (unsigned j = 0; j < w.cols; j++) {
            const tpu_cell_view *v = &cell[k * w.cols + j];
            busy |= v->active;
            loads |= v->loading;
            waits |= v->shadow != v->weight;
        }
        for (const char *p = lines; *p; p++) {
            if ((!busy && (*p == 'x' || *p == 'y')) || (!loads && *p == 'l') ||
                (!waits && *p == 's'))
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

/* ---- the compact view ------------------------------------------------------------ */

unsigned tpu_mxu_compact_block(unsigned n)
{
    return n > TPU_MXU_COMPACT_MAX ? (n + TPU_MXU_COMPACT_MAX - 1) / TPU_MXU_COMPACT_MAX : 1;
}

/* What the cells under one character of the compact maps did. */
typedef struct spot {
    unsigned cells, active, loading, waiting;
    int64_t row;            /* the LHS row, when one cell per character */
} spot;

/* The two characters of a spot: its LHS row map and its weights map. */
static char row_char(const spot *p, unsigned b)
{
    if (!p->active)
        return '.';
    if (b == 1)
        return (char)('0' + p->row % 10);
    return p->active == p->cells ? '#' : '+';
}

static char weight_char(const spot *p)
{
    return p->loading ? 'l' : p->waiting ? 's' : '.';
}

/* A ruler of width w for a map of m characters of b cells each: "c0",
 * "c8", ... at every 8th character. */
static void ruler(char *buf, int w, unsigned m, unsigned b)
{
    memset(buf, ' ', (size_t)w);
    buf[w] = 0;
    for (unsigned p = 0; p < m; p += 8) {
        char t[16];
        int len = snprintf(t, sizeof t, "c%u", p * b);
        if ((int)p + len <= w)
            memcpy(buf + p, t, (size_t)len);
    }
}

int tpu_mxu_view_print_compact(FILE *out, const tpu_core *c, unsigned mxu, unsigned n, int color)
{
    unsigned b = tpu_mxu_compact_block(n), m = (n + b - 1) / b;   /* m x m characters */
    spot *map = calloc((size_t)m * m, sizeof *map);
    if (!map)
        return -1;
    uint64_t active = 0, loading = 0, waiting = 0;
    int64_t rlo = INT64_MAX, rhi = -1;
    for (unsigned k = 0; k < n; k++)
        for (unsigned j = 0; j < n; j++) {
            tpu_cell_view v;
            if (tpu_core_mxu_cell(c, mxu, k, j, &v)) {
                free(map);
                return -1;
            }
            spot *p = &map[(size_t)(k / b) * m + j / b];
            p->cells++;
            if (v.active) {
                p->active++;
                p->row = v.row;
                active++;
                rlo = v.row < rlo ? v.row : rlo;
                rhi = v.row > rhi ? v.row : rhi;
            }
            p->loading += (unsigned)v.loading;
            loading += (unsigned)v.loading;
            p->waiting += v.shadow != v.weight;
            waiting += v.shadow != v.weight;
        }

    /* Two maps side by side, each at least as wide as its title. */
    int klab = 1 + (int)digits(n - 1), w = m < 8 ? 8 : (int)m;
    char rul[TPU_MXU_COMPACT_MAX + 16];
    ruler(rul, w, m, b);
    fprintf(out, "  %*s   %-*s   weights\n", klab, "", w, "LHS row");
    char line[2 * sizeof rul + 32];
    snprintf(line, sizeof line, "  %*s   %s   %s", klab, "", rul, rul);
    put_trimmed(out, line);
    for (unsigned r = 0; r < m; r++) {
        fprintf(out, "  k%-*u   ", klab - 1, r * b);
        for (int half = 0; half < 2; half++) {
            for (unsigned j = 0; j < m; j++) {
                const spot *p = &map[(size_t)r * m + j];
                char ch = half ? weight_char(p) : row_char(p, b);
                if (color && ch != '.')
                    fprintf(out, "%s%c" RESET, half ? YELLOW : GREEN, ch);
                else
                    fputc(ch, out);
            }
            if (!half)
                fprintf(out, "%*s", w - (int)m + 3, "");
        }
        fputc('\n', out);
    }

    /* The legend, with the counts of the cycle. */
    char rows[64] = "";
    if (active && rlo == rhi)
        snprintf(rows, sizeof rows, ", row %" PRId64, rlo);
    else if (active)
        snprintf(rows, sizeof rows, ", rows %" PRId64 "-%" PRId64, rlo, rhi);
    if (b == 1)
        fprintf(out, "LHS row: its last digit where a cell multiplies");
    else
        fprintf(out, "LHS row: # every cell multiplies, + some");
    fprintf(out, " (%" PRIu64 " of %" PRIu64 " cells%s)\n", active, (uint64_t)n * n, rows);
    fprintf(out, "weights: l one arrives (mxu.lw; %" PRIu64 " cell%s), s %s holds a new one (%"
            PRIu64 ")\n", loading, loading == 1 ? "" : "s", b == 1 ? "the shadow" : "a shadow",
            waiting);
    free(map);
    return 0;
}
