/*
 * animate.c - `tpu-sim --animate`: draw the machine every cycle.
 *
 * Each frame is the stepper's status line, its `show units` and its
 * `show mxu` for MXU 0 (sim/view/stepper.c, sim/view/mxu_view.c).  On a terminal the
 * frame is drawn in colour over the previous one (cursor home, each line
 * cleared to its end, the rest of the screen cleared), with a pause
 * between frames; otherwise the frames follow each other as plain text,
 * one per cycle, without any escape code, so the output can be read or
 * compared as a file.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "stepper.h"

/* Write one frame drawn into buf: in place on a terminal. */
static void put_frame(FILE *out, const char *buf, size_t len, int color)
{
    if (!color) {
        fwrite(buf, 1, len, out);
        fputc('\n', out);
        return;
    }
    fputs("\033[H", out);
    for (size_t i = 0; i < len; i++) {
        if (buf[i] == '\n')
            fputs("\033[K", out);
        fputc(buf[i], out);
    }
    fputs("\033[J", out);
}

static void pause_ms(unsigned ms)
{
    if (!ms)
        return;
    struct timespec ts = { (time_t)(ms / 1000), (long)(ms % 1000) * 1000000L };
    while (nanosleep(&ts, &ts) != 0)
        ;
}

int tpu_animate(tpu_system *sys, const tpu_object *obj, const tpu_config *cfg, FILE *out,
                int color, unsigned delay_ms, uint64_t max_cycles, char *err, size_t errlen)
{
    tpu_stepper_opts so = { .sys = sys, .obj = obj, .cfg = cfg, .max_cycles = max_cycles,
                            .in = NULL, .out = out, .color = color };
    tpu_stepper *st = tpu_stepper_create(&so, err, errlen);
    if (!st)
        return -1;
    if (color)
        fputs("\033[H\033[2J", out);
    int rc = 0;
    for (;;) {
        uint64_t before = tpu_system_cycle(sys);
        int going = tpu_stepper_cycle(st);
        if (tpu_system_cycle(sys) == before)
            break;                  /* the cycle limit: nothing new to draw */
        char *buf = NULL;
        size_t len = 0;
        FILE *f = rc ? NULL : open_memstream(&buf, &len);
        if (!f) {
            /* Out of memory: stop drawing but finish the run, since the
             * stepper must see every event until the system ends. */
            if (!rc)
                snprintf(err, errlen, "out of memory: --animate stopped drawing");
            rc = -1;
            if (!going)
                break;
            continue;
        }
        tpu_stepper_set_output(st, f);
        tpu_stepper_print_status(st);
        tpu_stepper_print_units(st);
        tpu_stepper_print_mxu(st);
        fclose(f);
        put_frame(out, buf, len, color);
        fflush(out);
        free(buf);
        if (!going)
            break;
        pause_ms(delay_ms);
    }
    tpu_stepper_set_output(st, out);
    tpu_stepper_destroy(st);
    return rc;
}
