/* The worker threads of the CPU resize: a process-wide pool run the way OpenCV's parallel_for_
 * runs its own (modules/core/src/parallel_impl.cpp): the caller takes part, stripes are claimed
 * one at a time from a shared counter, and the caller waits only for workers that joined.
 *
 * Why not an OpenMP parallel region: its end waits for every thread of the team, and libgomp's
 * idle threads spin by default. On a machine shared with other work (more runnable threads
 * than cores) a spinning worker has used up its share of the core and is scheduled late, so a
 * 1 ms resize waited 10-20 ms for it (median of 200 calls on a loaded 2-core machine: 16 ms
 * with libgomp's default, 4 ms with OMP_WAIT_POLICY=passive, 2 ms single-threaded). Here a
 * worker that finished a job polls for the next one for about 50 us (back-to-back calls find it
 * awake) and then sleeps on a condition variable, and a late worker finds no stripe left and is
 * not waited for. Workers are started on first use, up to the largest thread count asked for
 * (at most POOL_MAX), and are stopped and joined when the library is unloaded; a child made by
 * fork() starts with none. */
#include "resize/resize_cpu_pool.h"

#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

typedef struct pool_job {
    tsr__rcpu_fn fn;
    void *arg;
    int stripes;
    int max_helpers; /* threads - 1 */
    atomic_int next; /* next stripe to claim */
    int helpers;     /* workers that joined (under mu) */
    int active;      /* joined workers still running stripes (under mu) */
} pool_job;

/* Most workers the pool starts (a call asking for more threads runs on this many + 1). */
enum { POOL_MAX = 255 };

static struct {
    pthread_mutex_t mu;
    pthread_cond_t wake; /* a job was posted */
    pthread_cond_t done; /* a worker left a job */
    pool_job *job;       /* the running call's job; NULL when the pool is free */
    atomic_ulong posted; /* jobs posted so far (written under mu) */
    int workers;         /* threads started */
    int quit;            /* the library is being unloaded: workers return */
    pthread_t thread[POOL_MAX];
} pool = {.mu = PTHREAD_MUTEX_INITIALIZER,
          .wake = PTHREAD_COND_INITIALIZER,
          .done = PTHREAD_COND_INITIALIZER};

/* How long a worker polls for the next job before it sleeps. */
enum { POOL_SPIN_NS = 50000 };

static long long now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000000000LL + t.tv_nsec;
}

static void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

static void run_stripes(pool_job *j, int slot)
{
    for (int s; (s = atomic_fetch_add(&j->next, 1)) < j->stripes;)
        j->fn(j->arg, s, slot);
}

static void *pool_worker(void *unused)
{
    (void)unused;
    unsigned long seen = 0;
    for (;;) {
        const long long until = now_ns() + POOL_SPIN_NS;
        while (atomic_load(&pool.posted) == seen && now_ns() < until)
            cpu_relax();
        pthread_mutex_lock(&pool.mu);
        while (!pool.quit && (!pool.job || atomic_load(&pool.posted) == seen))
            pthread_cond_wait(&pool.wake, &pool.mu);
        if (pool.quit) {
            pthread_mutex_unlock(&pool.mu);
            return NULL;
        }
        seen = atomic_load(&pool.posted);
        pool_job *j = pool.job;
        if (j->helpers == j->max_helpers || atomic_load(&j->next) >= j->stripes) {
            pthread_mutex_unlock(&pool.mu);
            continue;
        }
        const int slot = ++j->helpers;
        j->active++;
        pthread_mutex_unlock(&pool.mu);
        run_stripes(j, slot);
        pthread_mutex_lock(&pool.mu);
        if (--j->active == 0)
            pthread_cond_broadcast(&pool.done); /* callers of other jobs may wait on it too */
        pthread_mutex_unlock(&pool.mu);
    }
    return NULL;
}

static void run_alone(tsr__rcpu_fn fn, void *arg, int stripes)
{
    for (int s = 0; s < stripes; s++)
        fn(arg, s, 0);
}

/* fork(): the child has only the forking thread, so it forgets the workers (joining them at its
 * exit would wait forever); the lock is held across the fork so that its state is whole. */
static void pool_fork_prepare(void)
{
    pthread_mutex_lock(&pool.mu);
}
static void pool_fork_parent(void)
{
    pthread_mutex_unlock(&pool.mu);
}
static void pool_fork_child(void)
{
    pool.workers = 0;
    pool.job = NULL;
    pthread_mutex_unlock(&pool.mu);
}

static void pool_register_fork(void)
{
    pthread_atfork(pool_fork_prepare, pool_fork_parent, pool_fork_child);
}

void tsr__rcpu_parallel(int threads, int stripes, tsr__rcpu_fn fn, void *arg)
{
    static pthread_once_t fork_once = PTHREAD_ONCE_INIT;
    if (threads <= 1 || stripes <= 1) {
        run_alone(fn, arg, stripes);
        return;
    }
    pool_job j = {fn, arg, stripes, threads - 1, 0, 0, 0};
    pthread_once(&fork_once, pool_register_fork);
    pthread_mutex_lock(&pool.mu);
    while (pool.workers < threads - 1 && pool.workers < POOL_MAX &&
           pthread_create(&pool.thread[pool.workers], NULL, pool_worker, NULL) == 0)
        pool.workers++;
    if (pool.job || pool.workers == 0) {
        pthread_mutex_unlock(&pool.mu);
        run_alone(fn, arg, stripes);
        return;
    }
    pool.job = &j;
    atomic_fetch_add(&pool.posted, 1);
    pthread_cond_broadcast(&pool.wake);
    pthread_mutex_unlock(&pool.mu);

    run_stripes(&j, 0);

    pthread_mutex_lock(&pool.mu);
    pool.job = NULL; /* from now on no worker joins */
    while (j.active > 0)
        pthread_cond_wait(&pool.done, &pool.mu);
    pthread_mutex_unlock(&pool.mu);
}

/* Unloading the library (dlclose) must not leave threads running its code. */
__attribute__((destructor)) static void pool_stop(void)
{
    pthread_mutex_lock(&pool.mu);
    pool.quit = 1;
    pthread_cond_broadcast(&pool.wake);
    pthread_mutex_unlock(&pool.mu);
    for (int i = 0; i < pool.workers; i++)
        pthread_join(pool.thread[i], NULL);
    pool.workers = 0;
}
