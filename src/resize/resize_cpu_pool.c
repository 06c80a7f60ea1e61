/* The worker threads of the CPU resize: a process-wide pool in the manner of OpenCV's
 * parallel_for_ (modules/core/src/parallel_impl.cpp): stripes are claimed one at a time from a
 * shared counter, and the caller waits only for threads that joined.
 *
 * Why not an OpenMP parallel region: its end waits for every thread of the team, and libgomp's
 * idle threads spin by default. On a machine shared with other work (more runnable threads
 * than cores) a spinning worker has used up its share of the core and is scheduled late, so a
 * 1 ms resize waited 10-20 ms for it (median of 200 calls on a loaded 2-core machine: 16 ms
 * with libgomp's default, 4 ms with OMP_WAIT_POLICY=passive, 2 ms single-threaded).
 *
 * Why the caller sleeps while the workers run: a worker woken by the caller is often queued on
 * the caller's own core (measured on a 2-vCPU VM: in most rounds after the first, a 4K->1080p
 * call ran both threads on one core and took 1.5-2.0 ms instead of 0.6-0.8). So a call posts
 * its job to `threads` workers and sleeps, which frees its core for them; only when no worker
 * has taken the job's last free slot within TAKEOVER_NS (a busy machine) does the caller join
 * and run stripes itself. A worker that finished a job polls for the next one for about 50 us
 * (back-to-back calls find it awake) and then sleeps on a condition variable; a worker that
 * comes late finds no stripe left and is not waited for. Workers are started on first use, up
 * to the largest thread count asked for (at most POOL_MAX), and are stopped and joined when the
 * library is unloaded; a child made by fork() starts with none. */
#include "resize/resize_cpu_pool.h"

#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

typedef struct pool_job {
    tsr__rcpu_fn fn;
    void *arg;
    int stripes;
    int max_helpers; /* threads: the slots, for workers and the caller alike */
    atomic_int next; /* next stripe to claim */
    int helpers;     /* threads that joined, each with its slot (under mu) */
    int active;      /* joined threads still running stripes (under mu) */
} pool_job;

/* Most workers the pool starts (a call asking for more threads runs on this many + 1). */
enum { POOL_MAX = 255 };

static struct {
    pthread_mutex_t mu;
    pthread_cond_t wake; /* a job was posted */
    pthread_cond_t done; /* a worker left a job (CLOCK_MONOTONIC; set up by pool_init) */
    pool_job *job;       /* the running call's job; NULL when the pool is free */
    atomic_ulong posted; /* jobs posted so far (written under mu) */
    int workers;         /* threads started */
    int quit;            /* the library is being unloaded: workers return */
    pthread_t thread[POOL_MAX];
} pool = {.mu = PTHREAD_MUTEX_INITIALIZER, .wake = PTHREAD_COND_INITIALIZER};

/* How long a worker polls for the next job before it sleeps; how long a caller leaves its job to
 * the workers before it joins in. */
enum { POOL_SPIN_NS = 50000, TAKEOVER_NS = 200000 };

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

/* Whether a thread may still join j: a slot is free and a stripe unclaimed (call under mu). */
static int can_join(pool_job *j)
{
    return j->helpers < j->max_helpers && atomic_load(&j->next) < j->stripes;
}

/* Joins j with the next slot and runs stripes until none is left; called and returns under mu
 * (released while running). Returns the joined threads still running afterwards. */
static int join_and_run(pool_job *j)
{
    const int slot = j->helpers++;
    j->active++;
    pthread_mutex_unlock(&pool.mu);
    run_stripes(j, slot);
    pthread_mutex_lock(&pool.mu);
    return --j->active;
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
        if (can_join(j) && join_and_run(j) == 0)
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

static void pool_init(void)
{
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&pool.done, &attr);
    pthread_condattr_destroy(&attr);
    pthread_atfork(pool_fork_prepare, pool_fork_parent, pool_fork_child);
}

/* True while stripes of j are unclaimed or joined threads still run them (call under mu). */
static int job_running(pool_job *j)
{
    return atomic_load(&j->next) < j->stripes || j->active > 0;
}

void tsr__rcpu_parallel(int threads, int stripes, tsr__rcpu_fn fn, void *arg)
{
    static pthread_once_t init_once = PTHREAD_ONCE_INIT;
    if (threads <= 1 || stripes <= 1) {
        run_alone(fn, arg, stripes);
        return;
    }
    pool_job j = {fn, arg, stripes, threads, 0, 0, 0};
    pthread_once(&init_once, pool_init);
    pthread_mutex_lock(&pool.mu);
    while (pool.workers < threads && pool.workers < POOL_MAX &&
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

    /* Sleep while the workers run the job; join it when a slot is still free at the deadline
     * (at once when fewer workers than slots could be started). */
    struct timespec deadline;
    clock_gettime(CLOCK_MONOTONIC, &deadline);
    if (pool.workers >= threads) {
        deadline.tv_nsec += TAKEOVER_NS;
        deadline.tv_sec += deadline.tv_nsec / 1000000000;
        deadline.tv_nsec %= 1000000000;
    }
    int rc = 0;
    while (job_running(&j) && rc == 0) /* woken: look again; timed out: join */
        rc = pthread_cond_timedwait(&pool.done, &pool.mu, &deadline);
    if (can_join(&j))
        join_and_run(&j);
    while (job_running(&j))
        pthread_cond_wait(&pool.done, &pool.mu);
    pool.job = NULL; /* from now on no worker joins */
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
