/* Benchmark harness: see harness.h. */
#define _DEFAULT_SOURCE /* wait4 */
#include "harness.h"

#include "tessera/tessera.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
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

int tsr_bench_file_exists(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && st.st_size > 0;
}

int tsr_bench_have(const char *prog)
{
    char cmd[256];
    snprintf(cmd, sizeof cmd, "command -v %s >/dev/null 2>&1", prog);
    return system(cmd) == 0;
}

uint8_t *tsr_bench_slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *b = malloc((size_t)n);
    if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
        free(b);
        b = NULL;
    }
    fclose(f);
    *len = (size_t)n;
    return b;
}

int tsr_bench_j2k_cuda_setup(int threads, tsr_progress_fn progress, void *progress_user,
                             tsr_ctx **cpu, tsr_ctx **gpu, tsr_image *src)
{
    tsr_ctx_options co;
    tsr_ctx_options_init(&co);
    co.backend = TSR_BACKEND_CPU;
    co.threads = threads;
    co.progress = progress;
    co.progress_user = progress_user;
    if (tsr_ctx_create(&co, cpu) != TSR_OK) {
        fprintf(stderr, "cpu context: %s\n", tsr_ctx_last_error(*cpu));
        return 1;
    }
    co.backend = TSR_BACKEND_CUDA;
    if (tsr_ctx_create(&co, gpu) != TSR_OK) {
        fprintf(stderr, "cuda context: %s\n", tsr_ctx_last_error(*gpu));
        return 1;
    }
    const char *root = getenv("TSR_DATA") ? getenv("TSR_DATA") : "../shared/data";
    char path[1024];
    snprintf(path, sizeof path, "%s/images/desert_mesa_4611x8192.jpg", root);
    if (tsr_image_load(*cpu, path, src, NULL) != TSR_OK) {
        fprintf(stderr, "cannot load %s (set TSR_DATA): %s\n", path, tsr_ctx_last_error(*cpu));
        return 1;
    }
    return 0;
}

int tsr_bench_make_frame(tsr_ctx *ctx, const tsr_image *src, int w, int h, const char *out)
{
    tsr_image img;
    if (tsr_image_alloc(ctx, &img, w, h, 3, TSR_U8) != TSR_OK)
        return 1;
    int rotate = w > src->width;
    for (int y = 0; y < h; y++) {
        uint8_t *d = (uint8_t *)img.data + (size_t)y * img.stride;
        for (int x = 0; x < w; x++) {
            int sx = rotate ? 100 + y : 200 + x, sy = rotate ? 100 + (w - 1 - x) : 1000 + y;
            const uint8_t *s =
                (const uint8_t *)src->data + (size_t)sy * src->stride + (size_t)sx * 3;
            memcpy(d + (size_t)x * 3, s, 3);
        }
    }
    tsr_status st = tsr_image_save(ctx, out, &img, NULL);
    tsr_image_free(ctx, &img);
    return st != TSR_OK;
}

/* The spawner (harness.h): reads a request (argv as NUL-separated strings, after its byte
 * count), runs the program with stdout and stderr to /dev/null, waits for it with wait4 and
 * answers {exit ok, peak KB}. */
static int spawn_req = -1, spawn_resp = -1;

static void spawner(int req, int resp)
{
    static char buf[8192];
    uint32_t n;
    while (read(req, &n, sizeof n) == (ssize_t)sizeof n && n < sizeof buf &&
           read(req, buf, n) == (ssize_t)n) {
        char *argv[32];
        int argc = 0;
        for (uint32_t i = 0; i < n && argc < 31; i += (uint32_t)strlen(buf + i) + 1)
            argv[argc++] = buf + i;
        argv[argc] = NULL;
        long answer[2] = {0, 0};
        const pid_t pid = fork();
        if (pid == 0) {
            const int fd = open("/dev/null", O_WRONLY);
            if (fd >= 0) {
                dup2(fd, 1);
                dup2(fd, 2);
            }
            execvp(argv[0], argv);
            _exit(127);
        }
        int status;
        struct rusage ru;
        if (pid > 0 && wait4(pid, &status, 0, &ru) == pid) {
            answer[0] = WIFEXITED(status) && WEXITSTATUS(status) == 0;
            answer[1] = ru.ru_maxrss;
        }
        if (write(resp, answer, sizeof answer) != (ssize_t)sizeof answer)
            break;
    }
    _exit(0);
}

int tsr_bench_spawner_start(void)
{
    int a[2], b[2];
    if (pipe(a) || pipe(b))
        return -1;
    const pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        close(a[1]);
        close(b[0]);
        spawner(a[0], b[1]);
    }
    close(a[0]);
    close(b[1]);
    spawn_req = a[1];
    spawn_resp = b[0];
    return 0;
}

int tsr_bench_run_prog(void *user, int iter, double *us)
{
    (void)iter;
    (void)us;
    tsr_bench_prog *p = user;
    char buf[8192];
    uint32_t n = 0;
    for (int i = 0; p->argv[i]; i++) {
        const size_t l = strlen(p->argv[i]) + 1;
        if (n + l > sizeof buf)
            return -1;
        memcpy(buf + n, p->argv[i], l);
        n += (uint32_t)l;
    }
    long answer[2];
    if (write(spawn_req, &n, sizeof n) != (ssize_t)sizeof n ||
        write(spawn_req, buf, n) != (ssize_t)n ||
        read(spawn_resp, answer, sizeof answer) != (ssize_t)sizeof answer)
        return -1;
    p->peak_kb = answer[1];
    return !answer[0];
}

enum { MAX_ROUNDS = 31 };

void tsr_bench_measure_progs(tsr_bench_prog *p, int n, int repeats, double *median_us)
{
    double t[TSR_BENCH_MAX_PROGS][MAX_ROUNDS];
    int ok[TSR_BENCH_MAX_PROGS];
    if (n > TSR_BENCH_MAX_PROGS)
        n = TSR_BENCH_MAX_PROGS;
    for (int i = 0; i < n; i++) {
        double us = -1;
        ok[i] = tsr_bench_run_prog(&p[i], 0, &us) == 0; /* warm-up */
        median_us[i] = -1;
    }
    int rounds = repeats < MAX_ROUNDS ? repeats : MAX_ROUNDS;
    for (int r = 0; r < rounds; r++) {
        double fastest = 1e300;
        for (int i = 0; i < n; i++) {
            if (!ok[i])
                continue;
            double us = -1;
            const double t0 = tsr_bench_now_us();
            ok[i] = tsr_bench_run_prog(&p[i], r + 1, &us) == 0;
            t[i][r] = tsr_bench_now_us() - t0;
            fastest = t[i][r] < fastest ? t[i][r] : fastest;
        }
        if (r == 0 && fastest < 1e300) {
            const int need = (int)(1e6 / fastest) + 1;
            rounds = need > rounds ? (need < MAX_ROUNDS ? need : MAX_ROUNDS) : rounds;
        }
    }
    for (int i = 0; i < n; i++) {
        tsr_bench_stats s;
        if (!ok[i])
            continue;
        tsr_bench_stats_of(t[i], rounds, &s);
        median_us[i] = s.median_us;
    }
}

const tsr_bench_frame_size tsr_bench_frame_sizes[TSR_BENCH_FRAME_SIZES] = {
    {"2k", 2048, 1080}, {"4k", 4096, 2160}, {"8k", 7680, 4320}};

int tsr_bench_j2k_parse(int argc, char **argv, const char *allowed, tsr_bench_j2k_args *a)
{
    for (int i = 1; i < argc; i += 2) {
        const char *name = argv[i];
        if (strncmp(name, "--", 2) != 0 || !name[2] || !strstr(allowed, name + 2)) {
            fprintf(stderr, "unknown option %s (options: %s)\n", name, allowed);
            return 2;
        }
        if (i + 1 >= argc) {
            fprintf(stderr, "option %s wants a value\n", name);
            return 2;
        }
        const char *v = argv[i + 1];
        if (!strcmp(name, "--dir"))
            a->dir = v;
        else if (!strcmp(name, "--threads"))
            a->threads = v;
        else if (!strcmp(name, "--sizes"))
            a->sizes = v;
        else if (!strcmp(name, "--json"))
            a->json = v;
        else if (!strcmp(name, "--tool"))
            a->tool = v;
        else if (!strcmp(name, "--codings"))
            a->codings = v;
        else if (!strcmp(name, "--repeats"))
            a->repeats = atoi(v) < 1 ? 1 : atoi(v);
        else if (!strcmp(name, "--lib"))
            a->lib = strcmp(v, "no") != 0;
        else {
            fprintf(stderr, "unknown option %s (options: %s)\n", name, allowed);
            return 2;
        }
    }
    return 0;
}
