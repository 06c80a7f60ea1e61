/* The benchmark harness every bench_*.c links: timing with warm-up and repeats (median and
 * min/max spread), input rotation so caches are not what gets timed, a description of the
 * machine, and results as an aligned table on stdout and as JSON in a file.
 *
 * Benchmarks are programs, not tests: they print numbers, they never decide pass or fail beyond
 * "the thing being timed returned an error". */
#ifndef TSR_BENCH_HARNESS_H
#define TSR_BENCH_HARNESS_H

#include <stddef.h>
#include <stdio.h>

typedef struct tsr_bench_stats {
    double median_us, min_us, max_us;
    int repeats;
} tsr_bench_stats;

/* One timed repetition. `iter` counts from 0 over warm-up and timed runs together, so a
 * benchmark can rotate inputs with it. Returns 0 on success; nonzero stops the measurement. When
 * the function measures itself (device events), it stores the time in *us; otherwise it leaves
 * *us negative and the harness uses the host clock around the call. */
typedef int (*tsr_bench_fn)(void *user, int iter, double *us);

/* Runs fn warmup times untimed, then repeats times timed; fills *out. Returns 0, or the first
 * nonzero return of fn. */
int tsr_bench_measure(tsr_bench_fn fn, void *user, int warmup, int repeats, tsr_bench_stats *out);
/* Median, min and max of n samples (sorts them in place). */
void tsr_bench_stats_of(double *samples, int n, tsr_bench_stats *out);
/* Monotonic clock in microseconds. */
double tsr_bench_now_us(void);

/* How many copies of an input of `bytes_per_set` to rotate among so that together they exceed
 * `cache_bytes` several times over (at least 2, at most max_sets). */
int tsr_bench_rotation(size_t bytes_per_set, size_t cache_bytes, int max_sets);

/* Fills n bytes with deterministic pseudo-random data that never contains a zero byte. */
void tsr_bench_fill_random(void *buf, size_t n, unsigned long long seed);

/* One line describing the host: CPU model, cores, OS kernel. */
const char *tsr_bench_host_description(void);

/* A results table of string cells, printed aligned and written as JSON (a cell that parses as a
 * number is written as a number). */
typedef struct tsr_bench_table tsr_bench_table;
tsr_bench_table *tsr_bench_table_new(const char *title, int ncols, const char *const *headers);
void tsr_bench_table_free(tsr_bench_table *t);
/* Adds a row; cells are copied. */
void tsr_bench_table_row(tsr_bench_table *t, const char *const *cells);
/* printf-style cell formatting into a rotating static buffer, for building rows inline. */
const char *tsr_bench_fmt(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void tsr_bench_table_print(const tsr_bench_table *t, FILE *f);

/* Writes {"benchmark":name,"machine":{...key/value pairs...},"tables":[...]} to path.
 * meta is a NULL-terminated list of key, value, key, value ... strings. Returns 0 on success. */
int tsr_bench_json_write(const char *path, const char *name, const char *const *meta,
                         tsr_bench_table *const *tables, int ntables);

#endif
