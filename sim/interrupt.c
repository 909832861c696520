/*
 * interrupt.c - Ctrl-C for the tools (interrupt.h).
 */
#include "interrupt.h"

#include <signal.h>
#include <string.h>

static volatile sig_atomic_t interrupted;

/* The first signal sets the flag; a second one, while the flag is still
 * set, restores the default action and re-raises: the user insists. */
static void on_signal(int sig)
{
    if (interrupted) {
        signal(sig, SIG_DFL);
        raise(sig);
        return;
    }
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
