/* The calling thread's number in the enclosing OpenMP parallel region: 0 outside one, and in a
 * build without OpenMP (where every region runs on one thread). */
#ifndef TSR_CORE_THREAD_NUM_H
#define TSR_CORE_THREAD_NUM_H

#ifdef _OPENMP
#include <omp.h>
#endif

static inline int tsr__thread_num(void)
{
#ifdef _OPENMP
    return omp_get_thread_num();
#else
    return 0;
#endif
}

#endif
