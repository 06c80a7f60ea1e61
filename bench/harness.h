/* The benchmark harness every bench_*.c links: timing with warm-up and repeats (median and
 * min/max spread), input rotation so caches are not what gets timed, a description of the
 * machine, and results as an aligned table on stdout and as JSON in a file.
 *
 * Benchmarks are programs, not tests: they print numbers, they never decide pass or fail beyond
 * "the thing being timed returned an error". */
#ifndef TSR_BENCH_HARNESS_H
#define TSR_BENCH_HARNESS_H

#include "tessera/tessera.h"

#include <stddef.h>
#include <stdint.h>
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

/* Small file helpers: tsr_bench_file_exists is 1 for a non-empty file at p; tsr_bench_have 1
 * when the program is on PATH; tsr_bench_slurp reads a whole file into malloc'd memory (free
 * it), NULL when it cannot. */
int tsr_bench_file_exists(const char *p);
int tsr_bench_have(const char *prog);
uint8_t *tsr_bench_slurp(const char *path, size_t *len);

/* The JPEG 2000 benchmarks' options, each "--name VALUE": dir (--dir, where frames and streams
 * are kept), threads (--threads, a list), sizes (--sizes, names of tsr_bench_frame_sizes), json
 * (--json, a file for the tables), tool (--tool, the tessera program), codings (--codings),
 * repeats (--repeats, at least 1) and lib (--lib no: without the library columns). The caller
 * sets the defaults; a benchmark that does not read an option passes allowed without it. */
typedef struct tsr_bench_j2k_args {
    const char *dir, *threads, *sizes, *json, *tool, *codings;
    int repeats, lib;
} tsr_bench_j2k_args;
/* Parses argv[1 ..] into a; allowed lists the options the benchmark reads, e.g. "dir threads
 * sizes repeats json". 0, or 2 after a message on stderr naming the bad argument. */
int tsr_bench_j2k_parse(int argc, char **argv, const char *allowed, tsr_bench_j2k_args *a);
/* The frame sizes the JPEG 2000 benchmarks run: 2k 2048x1080, 4k 4096x2160, 8k 7680x4320. */
typedef struct tsr_bench_frame_size {
    const char *name;
    int w, h;
} tsr_bench_frame_size;
enum { TSR_BENCH_FRAME_SIZES = 3 };
extern const tsr_bench_frame_size tsr_bench_frame_sizes[TSR_BENCH_FRAME_SIZES];

/* The JPEG 2000 benchmarks' frames: cuts a w x h RGB image from src (8-bit RGB,
 * desert_mesa_4611x8192.jpg: from x 200, y 1000, or for frames wider than src a rotated cut
 * from x 100, y 100) and saves it as out (a PPM). 0, or 1 on failure. */
int tsr_bench_make_frame(tsr_ctx *ctx, const tsr_image *src, int w, int h, const char *out);

/* The CUDA j2k benchmarks' set-up: a CPU context of `threads` threads (0: all cores), a CUDA
 * context with the same options (progress and its user, may be NULL, in both), and the frames'
 * source image (desert_mesa_4611x8192.jpg under $TSR_DATA, default ../shared/data) loaded
 * through the CPU context. 0, or 1 after a message. */
int tsr_bench_j2k_cuda_setup(int threads, tsr_progress_fn progress, void *progress_user,
                             tsr_ctx **cpu, tsr_ctx **gpu, tsr_image *src);

/* Programs are started by a small spawner process, forked by tsr_bench_spawner_start at the
 * start of main (0, or -1): a process's peak resident memory (ru_maxrss) counts the memory of
 * the process it was forked from, so forking the programs from a benchmark that holds images
 * would report its size instead of theirs. The spawner runs each program with stdout and
 * stderr to /dev/null and waits for it with wait4. */
int tsr_bench_spawner_start(void);
/* A program run: argv (NULL-terminated; at most 8 KB of strings) through the spawner; peak_kb:
 * the last run's peak resident memory in KB. */
typedef struct tsr_bench_prog {
    const char *argv[32];
    long peak_kb;
} tsr_bench_prog;
/* A tsr_bench_fn for a tsr_bench_prog: 0 when the program exited with status 0. */
int tsr_bench_run_prog(void *user, int iter, double *us);
enum { TSR_BENCH_MAX_PROGS = 8 };
/* Measures n programs (at most TSR_BENCH_MAX_PROGS) in interleaved rounds (one run of each a round,
 * after a warm-up round), so that a slow moment of the machine falls on all of them alike:
 * `repeats` rounds, raised until the fastest program's runs add up to about a second (at most
 * MAX_ROUNDS): a 40-ms program's median of a few runs moves by 10-20% with this machine's bimodal
 * system time (bench/notes/j2k.md). median_us[i]: program i's median, or -1 when a run of it failed
 * (it is left out of the later rounds). */
void tsr_bench_measure_progs(tsr_bench_prog *p, int n, int repeats, double *median_us);

#endif
