/* Prefaulting fresh output planes. The first write to each 4 KB page of a fresh allocation
 * traps into the kernel; for a 4K RGB decode that is 26k faults, about a fifth of the program's
 * time on the dev container. One madvise(MADV_POPULATE_WRITE) (Linux 5.14) maps the whole range
 * in a single call at about half the cost (bench/notes/j2k.md, section 7). */
#define _DEFAULT_SOURCE
#include "j2k/j2k_int.h"

#include <stdint.h>
#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

void tsr__j2k_prefault(void *p, size_t n)
{
#if defined(__linux__) && defined(MADV_POPULATE_WRITE)
    long page = sysconf(_SC_PAGESIZE);
    if (page <= 0 || !p)
        return;
    /* The whole pages inside [p, p + n): madvise wants a page-aligned start. */
    uintptr_t a = ((uintptr_t)p + (uintptr_t)page - 1) & ~((uintptr_t)page - 1);
    uintptr_t e = ((uintptr_t)p + n) & ~((uintptr_t)page - 1);
    if (e > a)
        (void)madvise((void *)a, e - a, MADV_POPULATE_WRITE); /* failure: pages fault later */
#else
    (void)p;
    (void)n;
#endif
}
