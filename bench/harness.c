/* Benchmark harness: see harness.h. */
#define _POSIX_C_SOURCE 200809L
#include "harness.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

double tsr_bench_now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec * 1e-3;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void tsr_bench_stats_of(double *s, int n, tsr_bench_stats *out)
{
    memset(out, 0, sizeof *out);
    if (n <= 0)
        return;
    qsort(s, (size_t)n, sizeof *s, cmp_double);
    out->repeats = n;
    out->min_us = s[0];
    out->max_us = s[n - 1];
    out->median_us = (n & 1) ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
}

int tsr_bench_measure(tsr_bench_fn fn, void *user, int warmup, int repeats, tsr_bench_stats *out)
{
    memset(out, 0, sizeof *out);
    int it = 0;
    for (int i = 0; i < warmup; i++, it++) {
        double us = -1;
        int rc = fn(user, it, &us);
        if (rc)
            return rc;
    }
    if (repeats < 1)
        repeats = 1;
    double *s = (double *)malloc(sizeof(double) * (size_t)repeats);
    if (!s)
        return -1;
    for (int i = 0; i < repeats; i++, it++) {
        double us = -1;
        double t0 = tsr_bench_now_us();
        int rc = fn(user, it, &us);
        double t1 = tsr_bench_now_us();
        if (rc) {
            free(s);
            return rc;
        }
        s[i] = us >= 0 ? us : t1 - t0;
    }
    tsr_bench_stats_of(s, repeats, out);
    free(s);
    return 0;
}

int tsr_bench_rotation(size_t bytes_per_set, size_t cache_bytes, int max_sets)
{
    if (bytes_per_set == 0)
        return 2;
    size_t want = cache_bytes * 4;
    size_t n = (want + bytes_per_set - 1) / bytes_per_set;
    if (n < 2)
        n = 2;
    if ((int)n > max_sets)
        n = (size_t)max_sets;
    return (int)n;
}

void tsr_bench_fill_random(void *buf, size_t n, unsigned long long seed)
{
    uint64_t s = seed * 0x9E3779B97F4A7C15ull + 1;
    unsigned char *p = (unsigned char *)buf;
    size_t i = 0;
    while (i < n) {
        uint64_t z = (s += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        z ^= z >> 31;
        for (int k = 0; k < 8 && i < n; k++, i++) {
            unsigned char b = (unsigned char)(z >> (8 * k));
            p[i] = b ? b : 1;
        }
    }
}

const char *tsr_bench_host_description(void)
{
    static char desc[320];
    char model[160] = "unknown CPU";
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f) {
        char line[512];
        while (fgets(line, sizeof line, f)) {
            if (strncmp(line, "model name", 10) == 0) {
                char *c = strchr(line, ':');
                if (c) {
                    c++;
                    while (*c == ' ')
                        c++;
                    size_t l = strcspn(c, "\n");
                    if (l >= sizeof model)
                        l = sizeof model - 1;
                    memcpy(model, c, l);
                    model[l] = 0;
                }
                break;
            }
        }
        fclose(f);
    }
    struct utsname u;
    const char *rel = uname(&u) == 0 ? u.release : "?";
    snprintf(desc, sizeof desc, "%s, %ld logical CPUs, Linux %s", model,
             sysconf(_SC_NPROCESSORS_ONLN), rel);
    return desc;
}

struct tsr_bench_table {
    char *title;
    int ncols, nrows, cap;
    char **headers;
    char **cells; /* nrows * ncols */
};

static char *dup_str(const char *s)
{
    if (!s)
        s = "";
    size_t n = strlen(s) + 1;
    char *d = (char *)malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

tsr_bench_table *tsr_bench_table_new(const char *title, int ncols, const char *const *headers)
{
    tsr_bench_table *t = (tsr_bench_table *)calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->title = dup_str(title);
    t->ncols = ncols;
    t->headers = (char **)calloc((size_t)ncols, sizeof(char *));
    for (int i = 0; i < ncols; i++)
        t->headers[i] = dup_str(headers[i]);
    return t;
}

void tsr_bench_table_free(tsr_bench_table *t)
{
    if (!t)
        return;
    for (int i = 0; i < t->ncols; i++)
        free(t->headers[i]);
    for (int i = 0; i < t->nrows * t->ncols; i++)
        free(t->cells[i]);
    free(t->headers);
    free(t->cells);
    free(t->title);
    free(t);
}

void tsr_bench_table_row(tsr_bench_table *t, const char *const *cells)
{
    if (!t)
        return;
    if (t->nrows == t->cap) {
        int cap = t->cap ? 2 * t->cap : 16;
        char **c = (char **)realloc(t->cells, sizeof(char *) * (size_t)cap * (size_t)t->ncols);
        if (!c)
            return;
        t->cells = c;
        t->cap = cap;
    }
    for (int i = 0; i < t->ncols; i++)
        t->cells[t->nrows * t->ncols + i] = dup_str(cells[i]);
    t->nrows++;
}

const char *tsr_bench_fmt(const char *fmt, ...)
{
    static char ring[64][64];
    static int next;
    char *b = ring[next++ & 63];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(b, 64, fmt, ap);
    va_end(ap);
    return b;
}

void tsr_bench_table_print(const tsr_bench_table *t, FILE *f)
{
    if (!t)
        return;
    int w[64] = {0};
    int nc = t->ncols < 64 ? t->ncols : 64;
    for (int c = 0; c < nc; c++) {
        w[c] = (int)strlen(t->headers[c]);
        for (int r = 0; r < t->nrows; r++) {
            int l = (int)strlen(t->cells[r * t->ncols + c]);
            if (l > w[c])
                w[c] = l;
        }
    }
    fprintf(f, "\n%s\n", t->title);
    for (int c = 0; c < nc; c++)
        fprintf(f, "%s%-*s", c ? " | " : "| ", w[c], t->headers[c]);
    fprintf(f, " |\n");
    for (int c = 0; c < nc; c++) {
        fprintf(f, "%s", c ? "-|-" : "|-");
        for (int i = 0; i < w[c]; i++)
            fputc('-', f);
    }
    fprintf(f, "-|\n");
    for (int r = 0; r < t->nrows; r++) {
        for (int c = 0; c < nc; c++) {
            const char *s = t->cells[r * t->ncols + c];
            /* numbers right-aligned, text left-aligned */
            char *end = NULL;
            strtod(s, &end);
            int num = s[0] && end && *end == 0;
            fprintf(f, "%s%*s", c ? " | " : "| ", num ? w[c] : -w[c], s);
        }
        fprintf(f, " |\n");
    }
    fflush(f);
}

static void json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\')
            fprintf(f, "\\%c", ch);
        else if (ch < 0x20)
            fprintf(f, "\\u%04x", ch);
        else
            fputc(ch, f);
    }
    fputc('"', f);
}

static void json_cell(FILE *f, const char *s)
{
    char *end = NULL;
    strtod(s, &end);
    int num = s[0] && end && *end == 0 && strcmp(s, "nan") && strcmp(s, "inf") &&
              strcmp(s, "-inf") && strncmp(s, "0x", 2);
    if (num)
        fputs(s, f);
    else
        json_str(f, s);
}

int tsr_bench_json_write(const char *path, const char *name, const char *const *meta,
                         tsr_bench_table *const *tables, int ntables)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fprintf(f, "{\"benchmark\": ");
    json_str(f, name);
    fprintf(f, ",\n \"machine\": {");
    for (int i = 0; meta && meta[i] && meta[i + 1]; i += 2) {
        fprintf(f, "%s", i ? ", " : "");
        json_str(f, meta[i]);
        fprintf(f, ": ");
        json_str(f, meta[i + 1]);
    }
    fprintf(f, "},\n \"tables\": [");
    for (int k = 0; k < ntables; k++) {
        const tsr_bench_table *t = tables[k];
        fprintf(f, "%s\n  {\"title\": ", k ? "," : "");
        json_str(f, t->title);
        fprintf(f, ", \"rows\": [");
        for (int r = 0; r < t->nrows; r++) {
            fprintf(f, "%s\n    {", r ? "," : "");
            for (int c = 0; c < t->ncols; c++) {
                fprintf(f, "%s", c ? ", " : "");
                json_str(f, t->headers[c]);
                fprintf(f, ": ");
                json_cell(f, t->cells[r * t->ncols + c]);
            }
            fprintf(f, "}");
        }
        fprintf(f, "]}");
    }
    fprintf(f, "\n ]}\n");
    return fclose(f) == 0 ? 0 : -1;
}
