/*
 * hostmem.h - a hint for the host's memory: large buffers on huge pages.
 *
 * The reference check's matrices and the matmul kernel's widened rows are
 * megabytes, filled whole and walked a row at a time at strides of
 * kilobytes.  On 4 KiB host pages nearly every such row is a TLB miss of
 * its own (costly on a virtual machine, where a miss walks two page
 * tables) and every first touch a page fault.  Linux backs a buffer that
 * asks for it (MADV_HUGEPAGE) with 2 MiB pages when it can: both become
 * rare.  It changes no byte of the buffer, only how fast it is reached.
 * Only for buffers used whole: a huge page costs 2 MiB of host memory
 * once any byte of it is touched (so VMEM and HBM, which a program may
 * touch sparsely on hundreds of cores, stay on small pages).
 */
#ifndef TPU_HOSTMEM_H
#define TPU_HOSTMEM_H

#include <stddef.h>

/* Ask for huge pages under the n bytes at p (from malloc or calloc), when
 * they span at least one huge page.  A hint: nothing happens on other
 * hosts, under AddressSanitizer (its allocator owns the pages), or when
 * the host says no. */
void tpu_hostmem_huge(void *p, size_t n);

#endif /* TPU_HOSTMEM_H */
