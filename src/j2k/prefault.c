/* Prefaulting fresh output planes. The first write to each 4 KB page of a fresh allocation
 * traps into the kernel; for a 4K RGB decode that is 26k faults, about a fifth of the program's
 * time on the dev container. madvise(MADV_POPULATE_WRITE) (Linux 5.14) maps a whole range in
 * one call at about half the cost (bench/notes/j2k.md, section 7), and calls from several
 * threads on disjoint pieces run side by side (section 20). */
#define _DEFAULT_SOURCE
#include "j2k/decode_stages.h"

#include <stdint.h>
#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

void tsr__j2k_prefault(void *p, size_t n, int threads)
{
#if defined(__linux__) && defined(MADV_POPULATE_WRITE)
    long page = sysconf(_SC_PAGESIZE);
    if (page <= 0 || !p)
        return;
    /* The whole pages inside [p, p + n): madvise wants a page-aligned start. */
    const uintptr_t ps = (uintptr_t)page;
    const uintptr_t a = ((uintptr_t)p + ps - 1) & ~(ps - 1);
    const uintptr_t e = ((uintptr_t)p + n) & ~(ps - 1);
    if (e <= a)
        return;
    const size_t pages = (e - a) / ps;
    const int parts = threads < 1 ? 1 : (size_t)threads > pages ? (int)pages : threads;
    const size_t q = pages / (size_t)parts, r = pages % (size_t)parts;
#pragma omp parallel for schedule(static) num_threads(parts) if (parts > 1)
    for (int i = 0; i < parts; i++) {
        /* piece i: q pages, one more for the first r pieces */
        const size_t first = q * (size_t)i + ((size_t)i < r ? (size_t)i : r);
        const size_t count = q + ((size_t)i < r);
        (void)madvise((void *)(a + first * ps), count * ps,
                      MADV_POPULATE_WRITE); /* failure: pages fault later */
    }
#else
    (void)p;
    (void)n;
    (void)threads;
#endif
}
