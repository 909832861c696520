/*
 * hostmem.c - large buffers on huge pages (see hostmem.h).
 */
#if defined(__linux__)
#define _DEFAULT_SOURCE     /* MADV_HUGEPAGE */
#endif
#include "hostmem.h"

#include <stdint.h>

#if defined(__SANITIZE_ADDRESS__)
#define HOSTMEM_HUGE 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HOSTMEM_HUGE 0
#endif
#endif
#if !defined(HOSTMEM_HUGE) && defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#if defined(MADV_HUGEPAGE)
#define HOSTMEM_HUGE 1
#endif
#endif
#ifndef HOSTMEM_HUGE
#define HOSTMEM_HUGE 0
#endif

#define HUGE_PAGE (2u << 20)    /* x86-64 and most arm64 hosts */

void tpu_hostmem_huge(void *p, size_t n)
{
#if HOSTMEM_HUGE
    if (!p || n < HUGE_PAGE)
        return;
    /* Whole host pages around the buffer: a large block from malloc is a
     * mapping of its own, which the first page's rounding stays in. */
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    if (page == 0 || (page & (page - 1)))
        return;
    uintptr_t lo = (uintptr_t)p & ~(page - 1);
    uintptr_t hi = ((uintptr_t)p + n + page - 1) & ~(page - 1);
    (void)madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
#else
    (void)p;
    (void)n;
#endif
}
