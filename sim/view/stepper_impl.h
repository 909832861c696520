/*
 * stepper_impl.h - the stepper's inside, shared by its files (stepper.h is
 * the public side):
 *   stepper.c        life cycle, the event handler, one cycle, breakpoints firing
 *   stepper_print.c  the state: status line, units, MXU
 *   stepper_cmd.c    arguments, running and breakpoint commands, the command
 *                    table, the loop
 *   stepper_look.c   the commands that look: info, x, list, show, view, trace
 */
#ifndef TPU_STEPPER_IMPL_H
#define TPU_STEPPER_IMPL_H

#include "stepper.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "expect.h"
#include "interrupt.h"
#include "isa.h"
#include "mxu_view.h"
#include "races.h"
#include "report.h"

#define MAX_ARGS   16
#define MAX_LINE   4096
#define HITS_MAX   4096       /* bytes of breakpoint messages in one cycle */
#define TRACE_MAX  16         /* cells traced at once */
#define ANY_MXU    UINT64_MAX

#define GREEN  "\033[32m"
#define RED    "\033[31m"
#define DIM    "\033[2m"
#define RESET  "\033[0m"

enum bp_kind { BP_PC, BP_CYCLE, BP_MXU_START, BP_MXU_END, BP_DMA_DONE, BP_SEM, BP_WATCH };

typedef struct breakpoint {
    unsigned id;
    enum bp_kind kind;
    uint64_t value;         /* pc, cycle, MXU (ANY_MXU), semaphore, watched address */
    uint64_t len;           /* watch: bytes */
    uint8_t space;          /* watch: TPU_SPACE_HBM or TPU_SPACE_VMEM */
    uint64_t hits;
} breakpoint;

/* An instruction handed to a unit and not yet finished (in its queue or
 * executing). */
typedef struct pending {
    uint64_t pc, word, issued;
} pending;

/* A cell traced with `trace cell`: one line per cycle.  The partial sum
 * that enters cell (k, c) for a row is the one cell (k-1, c) produced for
 * it a cycle earlier (T23), so the cell above is looked at before each
 * cycle. */
typedef struct cell_trace {
    unsigned core, mxu, row, col;
    tpu_cell_view above;    /* cell (row-1, col) in the cycle before */
} cell_trace;

typedef struct pending_list {
    pending *e;
    size_t n, cap;
} pending_list;

/* What the stepper knows about one core beyond the model's views. */
typedef struct core_track {
    pending_list unit[TPU_U_COUNT];
    uint64_t issue_cycle;   /* cycle of the last issue; UINT64_MAX: none yet */
    uint64_t issue_pc, issue_word;
    struct { int on; uint64_t pc, word, rows, start; } stream[TPU_MAX_MXUS];
} core_track;

struct tpu_stepper {
    tpu_stepper_opts o;
    tpu_system *sys;
    unsigned ncores, core;          /* the core the views show */
    core_track *track;
    const tpu_obj_symbol **code;    /* code labels by value, then name */
    size_t ncode;

    breakpoint *bp;
    size_t nbp, capbp;
    unsigned next_id;
    int mem_subscribed;

    char hits[HITS_MAX];            /* messages of the breakpoints of this cycle */
    size_t hits_len;
    int nhits;

    tpu_stats prev, cur;            /* the selected core before/after the last cycle */
    int stats_valid;                /* prev/cur describe the last cycle of this core */

    enum tpu_stop state;            /* TPU_RUNNING until halt, error or the cycle limit */
    int ended_reported;
    int status;                     /* exit status once the run ended */

    unsigned mxu;                   /* `show mxu` defaults */
    tpu_mxu_window win;
    int compact;                    /* `show mxu` draws the compact view (`view`) */

    cell_trace trace[TRACE_MAX];    /* `trace cell` */
    unsigned ntrace;

    tpu_races *races;               /* `races on` once; NULL before (sim/view/races.h) */
    int races_on;                   /* report each new race as a breakpoint does */
};

/* ---- shared between the files (stp_ prefix: they are extern) ---- */
void stp_out(tpu_stepper *st, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int stp_fail(tpu_stepper *st, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* stepper.c */ const char *stp_plural(uint64_t n);
/* stepper.c */ uint64_t stp_current_cycle(const tpu_stepper *st);
/* stepper.c */ const char *stp_core_prefix(const tpu_stepper *st, unsigned core, char *buf, size_t len);
/* stepper.c */ void stp_insn_text(const tpu_stepper *st, uint64_t word, char *buf, size_t len);
/* stepper.c */ void stp_pc_text(const tpu_stepper *st, uint64_t pc, char *buf, size_t len);
/* stepper.c */ int stp_is_mxu(enum tpu_unit_id u);
/* stepper.c */ void stp_on_event(void *ctx, const tpu_event *ev);
/* stepper.c */ void stp_fill_report(tpu_stepper *st, tpu_report *rep, tpu_stats *stats, char *error, size_t errlen);
/* stepper.c */ void stp_report_end(tpu_stepper *st);
/* stepper.c */ void stp_cell_name(const tpu_stepper *st, const cell_trace *tr, char *buf, size_t len);
/* stepper.c */ int stp_one_cycle(tpu_stepper *st);
/* stepper.c */ int stp_races_start(tpu_stepper *st);
/* stepper_print.c */ void stp_pending_text(const tpu_stepper *st, const pending *p, char *buf, size_t len);
/* stepper_print.c */ void stp_print_mxu(tpu_stepper *st, unsigned m);
/* stepper_cmd.c */ int stp_parse_num(const char *s, uint64_t *v);
/* stepper_cmd.c */ const char *stp_space_name(uint8_t space);
/* stepper_cmd.c */ void stp_bp_text(const tpu_stepper *st, const breakpoint *b, char *buf, size_t len);
/* stepper_cmd.c */ int stp_parse_place(tpu_stepper *st, int argc, char **argv, int *i, uint8_t *space, uint64_t *addr);
/* stepper_look.c */ int stp_cmd_info(tpu_stepper *st, int argc, char **argv);
/* stepper_look.c */ int stp_cmd_x(tpu_stepper *st, int argc, char **argv);
/* stepper_look.c */ int stp_cmd_list(tpu_stepper *st, int argc, char **argv);
/* stepper_look.c */ int stp_cmd_show(tpu_stepper *st, int argc, char **argv);
/* stepper_look.c */ int stp_cmd_view(tpu_stepper *st, int argc, char **argv);
/* stepper_look.c */ int stp_cmd_trace(tpu_stepper *st, int argc, char **argv);
/* stepper_look.c */ int stp_cmd_untrace(tpu_stepper *st, int argc, char **argv);
/* stepper_look.c */ int stp_cmd_core(tpu_stepper *st, int argc, char **argv);
/* stepper_look.c */ int stp_cmd_report(tpu_stepper *st, int argc, char **argv);

#endif /* TPU_STEPPER_IMPL_H */
