/* The worker threads of the CPU resize (resize_cpu_pool.c). */
#ifndef TSR_RESIZE_CPU_POOL_H
#define TSR_RESIZE_CPU_POOL_H

/* One piece of a parallel call: stripe s of the work, run by the thread that owns scratch slot
 * `slot` (slot < threads; two stripes that run at the same time never share a slot). */
typedef void (*tsr__rcpu_fn)(void *arg, int stripe, int slot);

/* Runs fn(arg, s, slot) once for every s in [0, stripes), on at most `threads` threads at a
 * time (pool workers; the caller sleeps, and joins in only when the workers are slow to start),
 * and returns when all have returned. Stripes are claimed one at a time, so a thread that
 * starts late (a busy machine) takes fewer; the call does not wait for a worker that had not
 * started when the last stripe was claimed. When the pool is taken by another
 * call (another thread, or a nested call) or no worker can be started, the caller runs every
 * stripe itself, in order, with slot 0. */
void tsr__rcpu_parallel(int threads, int stripes, tsr__rcpu_fn fn, void *arg);

#endif
