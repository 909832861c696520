/*
 * interrupt.c - Ctrl-C for the tools (interrupt.h).
 */
#include "interrupt.h"

#include <signal.h>
#include <string.h>
#include <time.h>

static volatile sig_atomic_t interrupted;
static volatile time_t first_at;     /* when the pending interrupt arrived */

/* The first signal sets the flag; a second one, while the flag is still
 * set and at least a second later, restores the default action and
 * re-raises: the user insists.  Signals within that second count as one,
 * so a Ctrl-C that reaches both a script and the tool it runs (the
 * terminal signals the whole foreground group, and tpu-cosim forwards it
 * too) stops the tool cleanly.  time() is async-signal-safe. */
static void on_signal(int sig)
{
    time_t now = time(NULL);
    if (interrupted) {
        if (now - first_at < 1)
            return;
        signal(sig, SIG_DFL);
        raise(sig);
        return;
    }
    first_at = now;
    interrupted = 1;
}

void tpu_interrupt_install(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0;                      /* no SA_RESTART: reads return EINTR */
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

int tpu_interrupted(void)
{
    return interrupted != 0;
}

void tpu_interrupt_clear(void)
{
    interrupted = 0;
}

void tpu_interrupt_raise(void)
{
    interrupted = 1;
}
