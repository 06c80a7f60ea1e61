/* Command-line plumbing shared by every tessera command (see cli.h). */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int option_count(const cli_command *cmd)
{
    int n = 0;
    while (cmd->options[n].name)
        n++;
    return n;
}

static int find_option(const cli_command *cmd, const char *name, size_t len)
{
    for (int i = 0; cmd->options[i].name; i++)
        if (strlen(cmd->options[i].name) == len && strncmp(cmd->options[i].name, name, len) == 0)
            return i;
    return -1;
}

static char *kept_error; /* cli_error_keep's buffer; NULL: lines go to stderr */
static size_t kept_cap;

void cli_error_keep(char *buf, size_t cap)
{
    kept_error = cap ? buf : NULL;
    kept_cap = cap;
    if (kept_error)
        kept_error[0] = 0;
}

void cli_error(const cli_command *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (kept_error) {
        if (!kept_error[0])
            vsnprintf(kept_error, kept_cap, fmt, ap);
        va_end(ap);
        return;
    }
    flockfile(stderr); /* one line, whole, when threads report at once */
    fprintf(stderr, "tessera %s: ", cmd->name);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    funlockfile(stderr);
    va_end(ap);
}

int cli_parse(const cli_command *cmd, int argc, char **argv, cli_args *out)
{
    memset(out, 0, sizeof *out);
    if (option_count(cmd) > (int)(sizeof out->values / sizeof out->values[0])) {
        cli_error(cmd, "internal error: too many options");
        return TSR_EXIT_FAILURE;
    }
    /* Positionals are compacted to the front of argv, keeping their order. */
    out->positional = argv;
    int only_positional = 0;
    for (int i = 0; i < argc; i++) {
        char *a = argv[i];
        if (only_positional || a[0] != '-' || a[1] == '\0') {
            argv[out->npositional++] = a;
            continue;
        }
        if (strcmp(a, "--") == 0) {
            only_positional = 1;
            continue;
        }
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            cli_print_help(cmd, stdout);
            return -1;
        }
        if (a[1] != '-') {
            cli_error(cmd, "unknown option '%s' (see 'tessera %s --help')", a, cmd->name);
            return TSR_EXIT_USAGE;
        }
        const char *name = a + 2;
        const char *eq = strchr(name, '=');
        size_t len = eq ? (size_t)(eq - name) : strlen(name);
        int k = find_option(cmd, name, len);
        if (k < 0) {
            cli_error(cmd, "unknown option '--%.*s' (see 'tessera %s --help')", (int)len, name,
                      cmd->name);
            return TSR_EXIT_USAGE;
        }
        const cli_option *o = &cmd->options[k];
        if (o->arg == CLI_FLAG) {
            if (eq) {
                cli_error(cmd, "option '--%s' takes no value", o->name);
                return TSR_EXIT_USAGE;
            }
            out->values[k] = "";
        } else if (eq) {
            out->values[k] = eq + 1;
        } else {
            if (i + 1 >= argc) {
                cli_error(cmd, "option '--%s' needs a value (%s)", o->name, o->metavar);
                return TSR_EXIT_USAGE;
            }
            out->values[k] = argv[++i];
        }
    }
    return 0;
}

const char *cli_get(const cli_command *cmd, const cli_args *args, const char *name)
{
    int k = find_option(cmd, name, strlen(name));
    return k < 0 ? NULL : args->values[k];
}

/* Prints text wrapped at 100 columns with the given indent. */
static void print_wrapped(FILE *f, const char *text, int indent, int first_col)
{
    int col = first_col;
    const char *p = text;
    while (*p) {
        if (*p == '\n') {
            fputc('\n', f);
            col = 0;
            p++;
            continue;
        }
        const char *w = p;
        while (*p && *p != ' ' && *p != '\n')
            p++;
        int wl = (int)(p - w);
        if (col > indent && col + 1 + wl > 100) {
            fprintf(f, "\n%*s", indent, "");
            col = indent;
        } else if (col < indent) {
            fprintf(f, "%*s", indent - col, "");
            col = indent;
        } else if (col > indent) {
            fputc(' ', f);
            col++;
        }
        fwrite(w, 1, (size_t)wl, f);
        col += wl;
        while (*p == ' ')
            p++;
    }
    fputc('\n', f);
}

void cli_print_help(const cli_command *cmd, FILE *f)
{
    fprintf(f, "Usage: tessera %s %s\n\n", cmd->name, cmd->usage);
    print_wrapped(f, cmd->description, 0, 0);
    fprintf(f, "\nOptions:\n");
    for (int i = 0; cmd->options[i].name; i++) {
        const cli_option *o = &cmd->options[i];
        char head[64];
        if (o->arg == CLI_VALUE)
            snprintf(head, sizeof head, "  --%s %s", o->name, o->metavar);
        else
            snprintf(head, sizeof head, "  --%s", o->name);
        fputs(head, f);
        int col = (int)strlen(head);
        if (col >= 26) {
            fputc('\n', f);
            col = 0;
        }
        print_wrapped(f, o->help, 26, col);
    }
    fprintf(f, "  --help                  Show this help and exit.\n");
    fprintf(f, "\nExamples:\n%s\n", cmd->examples);
    fprintf(f, "\nExit status: 0 success, 1 failure (bad input file, device error), 2 bad command "
               "line.\n");
}

/* Writes roff text, escaping what roff would take as commands. */
static void man_text(FILE *f, const char *s)
{
    int bol = 1;
    for (; *s; s++) {
        if (bol && (*s == '.' || *s == '\''))
            fputs("\\&", f);
        if (*s == '\\')
            fputs("\\e", f);
        else if (*s == '-')
            fputs("\\-", f);
        else
            fputc(*s, f);
        bol = *s == '\n';
    }
}

void cli_print_man(const cli_command *cmd, FILE *f)
{
    fprintf(f, ".TH TESSERA-%s 1 \"\" \"tessera %s\" \"tessera manual\"\n", cmd->name,
            tsr_version());
    fprintf(f, ".SH NAME\ntessera\\-%s \\- ", cmd->name);
    man_text(f, cmd->summary);
    fprintf(f, "\n.SH SYNOPSIS\n.nf\ntessera %s ", cmd->name);
    man_text(f, cmd->usage);
    fprintf(f, "\n.fi\n.SH DESCRIPTION\n");
    man_text(f, cmd->description);
    fprintf(f, "\n.SH OPTIONS\n");
    for (int i = 0; cmd->options[i].name; i++) {
        const cli_option *o = &cmd->options[i];
        fprintf(f, ".TP\n.B \\-\\-");
        man_text(f, o->name);
        if (o->arg == CLI_VALUE) {
            fputs(" ", f);
            man_text(f, o->metavar);
        }
        fputc('\n', f);
        man_text(f, o->help);
        fputc('\n', f);
    }
    fprintf(f, ".TP\n.B \\-\\-help\nShow the help and exit.\n.SH EXAMPLES\n.nf\n");
    man_text(f, cmd->examples);
    fprintf(f, "\n.fi\n.SH EXIT STATUS\n0 success, 1 failure (bad input file, device error), 2 bad "
               "command line, 130 interrupted.\n.SH ENVIRONMENT\nTSR_BACKEND sets the default "
               "backend (auto, cpu, reference, cuda, opencl).\n.SH SEE ALSO\ntessera(1)\n");
}

/* The signal cli_stop_catch caught first; 0 while none. */
static volatile sig_atomic_t stop_signal;
static struct sigaction saved_int, saved_term;
static int catching;

static void on_stop_signal(int sig)
{
    if (stop_signal) { /* the second: what the signal does by default */
        signal(sig, SIG_DFL);
        raise(sig);
        return;
    }
    stop_signal = sig;
}

void cli_stop_catch(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, NULL, &saved_int);
    sigaction(SIGTERM, NULL, &saved_term);
    if (saved_int.sa_handler != SIG_IGN)
        sigaction(SIGINT, &sa, NULL);
    if (saved_term.sa_handler != SIG_IGN)
        sigaction(SIGTERM, &sa, NULL);
    catching = 1;
}

void cli_stop_release(void)
{
    if (!catching)
        return;
    sigaction(SIGINT, &saved_int, NULL);
    sigaction(SIGTERM, &saved_term, NULL);
    catching = 0;
}

int cli_stop_requested(void)
{
    return stop_signal != 0;
}

int cli_fail(const cli_command *cmd, tsr_ctx *ctx, tsr_status st, const char *what)
{
    if (st == TSR_ERR_INTERRUPTED && stop_signal) {
        cli_error(cmd, "interrupted by %s", stop_signal == SIGINT ? "SIGINT" : "SIGTERM");
        return TSR_EXIT_INTERRUPTED;
    }
    const char *msg = ctx ? tsr_ctx_last_error(ctx) : "";
    if (!msg || !*msg)
        msg = tsr_strerror(st);
    /* the image-size limit is the command's --max-pixels */
    const char *hint = st == TSR_ERR_LIMIT && find_option(cmd, "max-pixels", 10) >= 0 &&
                               strstr(msg, "limit of") && strstr(msg, " pixels")
                           ? "; --max-pixels N raises it (0: no limit)"
                           : "";
    if (what && !strstr(msg, what)) /* name the file unless the message already does */
        cli_error(cmd, "%s: %s%s", what, msg, hint);
    else
        cli_error(cmd, "%s%s", msg, hint);
    if (st == TSR_ERR_INTERRUPTED)
        return TSR_EXIT_INTERRUPTED;
    return TSR_EXIT_FAILURE;
}

/* The progress of the library's calls on the command's context (one context a process). */
static cli_progress context_progress;

static int on_context_progress(void *user, const char *stage, double done, double total)
{
    cli_progress_update(user, stage, done, total);
    return cli_stop_requested();
}

/* A worker context's progress: silent, it only cancels on a stop. */
static int on_worker_progress(void *user, const char *stage, double done, double total)
{
    (void)user, (void)stage, (void)done, (void)total;
    return cli_stop_requested();
}

/* Creates the context of opt; 0 or the exit code after printing why not. */
static int create_context(const cli_command *cmd, const tsr_ctx_options *opt, tsr_ctx **ctx)
{
    tsr_status st = tsr_ctx_create(opt, ctx);
    if (st != TSR_OK) {
        int rc = cli_fail(cmd, *ctx, st, NULL);
        tsr_ctx_destroy(*ctx);
        *ctx = NULL;
        return rc;
    }
    return 0;
}

/* cli_open_context with the context's pixel limit (0: the library's default) and device. */
static int open_context(const cli_command *cmd, const cli_args *args, int quiet,
                        uint64_t max_pixels, int device, tsr_ctx **ctx)
{
    *ctx = NULL;
    tsr_ctx_options opt;
    tsr_ctx_options_init(&opt);
    opt.max_image_pixels = max_pixels;
    opt.device = device;
    cli_progress_init(&context_progress, quiet);
    opt.progress = on_context_progress;
    opt.progress_user = &context_progress;
    const char *backend = cli_get(cmd, args, "backend");
    if (!backend)
        backend = getenv("TSR_BACKEND");
    if (backend && tsr_backend_parse(backend, &opt.backend) != TSR_OK) {
        cli_error(cmd, "unknown backend '%s' (auto, cpu, reference, cuda, opencl)", backend);
        return TSR_EXIT_USAGE;
    }
    const char *threads = cli_get(cmd, args, "threads");
    if (threads) {
        char *end;
        long t = strtol(threads, &end, 10);
        if (*end || t < 0 || t > 4096) {
            cli_error(cmd, "--threads wants a number from 0 (all) to 4096, not '%s'", threads);
            return TSR_EXIT_USAGE;
        }
        opt.threads = (int)t;
    }
    return create_context(cmd, &opt, ctx);
}

int cli_open_context(const cli_command *cmd, const cli_args *args, int quiet, tsr_ctx **ctx)
{
    return open_context(cmd, args, quiet, 0, 0, ctx);
}

int cli_open_device_context(const cli_command *cmd, const cli_args *args, int quiet, int device,
                            tsr_ctx **ctx)
{
    return open_context(cmd, args, quiet, 0, device, ctx);
}

int cli_open_image_context(const cli_command *cmd, const cli_args *args, int quiet, tsr_ctx **ctx)
{
    const char *v = cli_get(cmd, args, "max-pixels");
    uint64_t max = CLI_MAX_PIXELS_DEFAULT;
    if (v && !cli_parse_u64(v, &max)) {
        *ctx = NULL;
        cli_error(cmd, "--max-pixels wants a number of pixels (0: no limit), not '%s'", v);
        return TSR_EXIT_USAGE;
    }
    return open_context(cmd, args, quiet, max ? max : UINT64_MAX, 0, ctx);
}

void cli_block_cache_init(cli_block_cache *c)
{
    memset(c, 0, sizeof *c);
    pthread_mutex_init(&c->lock, NULL);
}

void cli_block_cache_release(cli_block_cache *c)
{
    for (int k = 0; k < CLI_BLOCK_SLOTS; k++)
        free(c->slot[k].ptr);
    pthread_mutex_destroy(&c->lock);
    memset(c, 0, sizeof *c);
}

/* tsr_allocator.alloc over a cli_block_cache (align: a power of two, at most 64 as the library
 * asks; a kept block was allocated with 64). */
static void *block_alloc(void *user, size_t size, size_t align)
{
    cli_block_cache *c = user;
    void *p = NULL;
    if (size >= CLI_BLOCK_MIN && align <= 64) {
        pthread_mutex_lock(&c->lock);
        int best = -1, empty = -1;
        for (int k = 0; k < CLI_BLOCK_SLOTS; k++) {
            if (!c->slot[k].used && c->slot[k].ptr && c->slot[k].size >= size &&
                c->slot[k].size / 2 <= size && (best < 0 || c->slot[k].size < c->slot[best].size))
                best = k;
            if (!c->slot[k].used && (empty < 0 || !c->slot[k].ptr))
                empty = k;
        }
        if (best >= 0) {
            c->slot[best].used = 1;
            p = c->slot[best].ptr;
        } else if (empty >= 0 && posix_memalign(&p, 64, size) == 0) {
            free(c->slot[empty].ptr); /* a kept block that fits no request of this size */
            c->slot[empty].ptr = p;
            c->slot[empty].size = size;
            c->slot[empty].used = 1;
        } else {
            p = NULL;
        }
        pthread_mutex_unlock(&c->lock);
        if (p || empty >= 0)
            return p;
    }
    if (align < sizeof(void *))
        align = sizeof(void *);
    return posix_memalign(&p, align, size ? size : 1) == 0 ? p : NULL;
}

static void block_free(void *user, void *ptr)
{
    cli_block_cache *c = user;
    pthread_mutex_lock(&c->lock);
    for (int k = 0; k < CLI_BLOCK_SLOTS; k++)
        if (c->slot[k].ptr == ptr && ptr) {
            c->slot[k].used = 0;
            pthread_mutex_unlock(&c->lock);
            return;
        }
    pthread_mutex_unlock(&c->lock);
    free(ptr);
}

int cli_open_worker_context(const cli_command *cmd, const cli_args *args, int threads,
                            cli_block_cache *cache, tsr_ctx **ctx)
{
    *ctx = NULL;
    const char *v = cli_get(cmd, args, "max-pixels");
    uint64_t max = CLI_MAX_PIXELS_DEFAULT;
    if (v && !cli_parse_u64(v, &max)) {
        cli_error(cmd, "--max-pixels wants a number of pixels (0: no limit), not '%s'", v);
        return TSR_EXIT_USAGE;
    }
    tsr_ctx_options opt;
    tsr_ctx_options_init(&opt);
    opt.backend = TSR_BACKEND_CPU;
    opt.threads = threads;
    opt.max_image_pixels = max ? max : UINT64_MAX;
    opt.progress = on_worker_progress;
    opt.allocator.alloc = block_alloc;
    opt.allocator.free = block_free;
    opt.allocator.user = cache;
    return create_context(cmd, &opt, ctx);
}

int cli_image_save_options(const cli_command *cmd, const cli_args *args, tsr_save_options *so)
{
    const char *quality = cli_get(cmd, args, "quality"), *level = cli_get(cmd, args, "png-level");
    long long v;
    if (quality) {
        if (!cli_parse_int(quality, 1, 100, &v)) {
            cli_error(cmd, "--quality wants 1 to 100, not '%s'", quality);
            return TSR_EXIT_USAGE;
        }
        so->jpeg_quality = (int)v;
        so->webp_quality = (int)v;
    }
    if (level) {
        if (!cli_parse_int(level, 0, 9, &v)) {
            cli_error(cmd, "--png-level wants 0 to 9, not '%s'", level);
            return TSR_EXIT_USAGE;
        }
        so->png_compression = (int)v;
    }
    so->sync = cli_get(cmd, args, "sync") != NULL;
    return 0;
}

void cli_note_backend(const cli_command *cmd, const tsr_ctx *ctx, int quiet)
{
    if (!quiet)
        fprintf(stderr, "tessera %s: %s backend (%s): %s\n", cmd->name,
                tsr_backend_name(tsr_ctx_backend(ctx)), tsr_ctx_device_name(ctx),
                tsr_ctx_backend_reason(ctx));
}

double cli_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void cli_progress_init(cli_progress *p, int quiet)
{
    p->enabled = !quiet && isatty(STDERR_FILENO);
    p->since = 0;
    p->last_print = 0;
}

void cli_progress_update(cli_progress *p, const char *stage, double done, double total)
{
    if (!p->enabled)
        return;
    const double now = cli_now();
    const int last = done >= total;
    if (p->since == 0)
        p->since = now;
    const int show = last ? p->last_print > 0 : now - p->since >= 0.5 && now - p->last_print >= 0.1;
    if (show) {
        fprintf(stderr, "\r%s: %.0f/%.0f (%.0f%%)   %s", stage, done, total,
                total > 0 ? 100.0 * done / total : 100.0, last ? "\n" : "");
        fflush(stderr);
        p->last_print = now;
    }
    if (last)
        p->since = p->last_print = 0;
}

void cli_progress_end(cli_progress *p)
{
    if (p->enabled && p->last_print > 0)
        fputc('\n', stderr);
    p->since = p->last_print = 0;
}

/* A name among a command's inputs and outputs, sorted by identity to find two that are one
 * file in O(n log n) (batches of thousands of images). */
typedef struct named_file {
    tsr_file_identity id;
    int output; /* 1: an output, 0: an input */
    int index;
} named_file;

static int cmp_named_file(const void *p, const void *q)
{
    const named_file *a = p, *b = q;
    int c = tsr_file_identity_compare(&a->id, &b->id);
    if (c)
        return c;
    if (a->output != b->output)
        return a->output - b->output; /* inputs first */
    return (a->index > b->index) - (a->index < b->index);
}

int cli_check_outputs(const cli_command *cmd, tsr_ctx *ctx, const char *const *inputs, int ninputs,
                      cli_output *outs, int nouts, int overwrite)
{
    int stdout_user = -1;
    for (int i = 0; i < nouts; i++) {
        cli_output *o = &outs[i];
        if (!o->path)
            continue;
        o->format = TSR_FILE_NONE;
        if (tsr_file_type_of(o->path) != TSR_FILE_NONE || o->fallback != TSR_FILE_NONE) {
            if (tsr_output_format(ctx, o->path, o->writable, o->fallback, &o->format) != TSR_OK) {
                cli_error(cmd, "%s", tsr_ctx_last_error(ctx));
                return TSR_EXIT_USAGE;
            }
        }
        tsr_output_kind kind;
        if (tsr_output_probe(ctx, o->path, &kind) != TSR_OK) {
            cli_error(cmd, "%s", tsr_ctx_last_error(ctx));
            return TSR_EXIT_FAILURE;
        }
        o->stream = kind == TSR_OUTPUT_STREAM;
        if (strcmp(o->path, "-") == 0) {
            if (stdout_user >= 0) {
                cli_error(cmd, "%s and %s both name standard output ('-')", outs[stdout_user].what,
                          o->what);
                return TSR_EXIT_USAGE;
            }
            stdout_user = i;
        }
    }
    /* Outputs that are one file, or an output that is an input ("-" as an input is standard
     * input, never an output). */
    named_file *all = calloc((size_t)ninputs + (size_t)nouts + 1, sizeof *all);
    if (!all) {
        cli_error(cmd, "out of memory");
        return TSR_EXIT_FAILURE;
    }
    size_t n = 0;
    for (int i = 0; i < nouts; i++)
        if (outs[i].path && tsr_file_identify(outs[i].path, &all[n].id))
            all[n].output = 1, all[n++].index = i;
    for (int i = 0; i < ninputs && n; i++)
        if (inputs[i] && tsr_file_identify(inputs[i], &all[n].id))
            all[n].output = 0, all[n++].index = i;
    qsort(all, n, sizeof *all, cmp_named_file);
    int rc = 0;
    for (size_t k = 1; k < n && !rc; k++) {
        const named_file *a = &all[k - 1], *b = &all[k];
        if (tsr_file_identity_compare(&a->id, &b->id) != 0 || !b->output)
            continue;
        if (a->output) {
            cli_error(cmd, "%s '%s' and %s '%s' name the same file", outs[a->index].what,
                      outs[a->index].path, outs[b->index].what, outs[b->index].path);
            rc = TSR_EXIT_USAGE;
        } else if (!overwrite) {
            cli_error(cmd, "%s '%s' is the input '%s' (--overwrite replaces it)",
                      outs[b->index].what, outs[b->index].path, inputs[a->index]);
            rc = TSR_EXIT_USAGE;
        }
    }
    free(all);
    return rc;
}

int cli_check_output(const cli_command *cmd, tsr_ctx *ctx, const char *in, const char *out,
                     unsigned writable)
{
    cli_output o = {out, "OUT", writable, TSR_FILE_NONE, TSR_FILE_NONE, 0};
    return cli_check_outputs(cmd, ctx, &in, 1, &o, 1, 0);
}

void cli_json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(f, "\\%c", *p);
        else if (*p < 0x20)
            fprintf(f, "\\u%04x", *p);
        else
            fputc(*p, f);
    }
    fputc('"', f);
}

int cli_parse_int(const char *s, long long lo, long long hi, long long *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi)
        return 0;
    *out = v;
    return 1;
}

int cli_parse_u64(const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    if (*s == '-' || *s == '+' || *s == ' ')
        return 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s || *end)
        return 0;
    *out = v;
    return 1;
}

int cli_parse_double(const char *s, double lo, double hi, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !isfinite(v) || !(v >= lo && v <= hi))
        return 0;
    *out = v;
    return 1;
}

int cli_parse_double_pair(const char *s, double lo, double hi, double *a, double *b)
{
    const char *comma = strchr(s, ',');
    char first[64];
    if (!comma)
        return cli_parse_double(s, lo, hi, a) && (*b = *a, 1);
    if ((size_t)(comma - s) >= sizeof first)
        return 0;
    memcpy(first, s, (size_t)(comma - s));
    first[comma - s] = '\0';
    return cli_parse_double(first, lo, hi, a) && cli_parse_double(comma + 1, lo, hi, b);
}

int cli_parse_size(const char *s, int32_t max_side, int32_t *w, int32_t *h)
{
    const char *x = strpbrk(s, "xX");
    char first[24];
    long long a, b;
    if (!x || x == s || (size_t)(x - s) >= sizeof first)
        return 0;
    memcpy(first, s, (size_t)(x - s));
    first[x - s] = '\0';
    if (!cli_parse_int(first, 1, max_side, &a) || !cli_parse_int(x + 1, 1, max_side, &b))
        return 0;
    *w = (int32_t)a;
    *h = (int32_t)b;
    return 1;
}

int cli_parse_size_aspect(const char *s, int32_t max_side, int32_t *w, int32_t *h)
{
    size_t n = strlen(s);
    long long v;
    if (n >= 2 && (s[n - 1] == 'x' || s[n - 1] == 'X')) { /* "Wx" */
        char first[24];
        if (n - 1 >= sizeof first)
            return 0;
        memcpy(first, s, n - 1);
        first[n - 1] = '\0';
        if (!cli_parse_int(first, 1, max_side, &v))
            return 0;
        *w = (int32_t)v;
        *h = 0;
        return 1;
    }
    if (n >= 2 && (s[0] == 'x' || s[0] == 'X')) { /* "xH" */
        if (!cli_parse_int(s + 1, 1, max_side, &v))
            return 0;
        *w = 0;
        *h = (int32_t)v;
        return 1;
    }
    return cli_parse_size(s, max_side, w, h);
}

int cli_size_keep_aspect(int32_t in_w, int32_t in_h, int32_t max_side, int32_t *w, int32_t *h)
{
    /* round(a * b / c) with halves up, exactly: floor((2ab + c) / 2c), all below 2^64 */
    if (*h == 0 && *w > 0) {
        uint64_t v = (2 * (uint64_t)in_h * (uint64_t)*w + (uint64_t)in_w) / (2 * (uint64_t)in_w);
        if (v > (uint64_t)max_side)
            return 0;
        *h = v ? (int32_t)v : 1;
    } else if (*w == 0 && *h > 0) {
        uint64_t v = (2 * (uint64_t)in_w * (uint64_t)*h + (uint64_t)in_h) / (2 * (uint64_t)in_h);
        if (v > (uint64_t)max_side)
            return 0;
        *w = v ? (int32_t)v : 1;
    }
    return 1;
}

/* Reads all of f into memory (malloc); NULL with errno set on failure. */
static uint8_t *read_all(FILE *f, size_t *len)
{
    size_t n = 0, cap = 1 << 16;
    uint8_t *buf = malloc(cap);
    while (buf) {
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap)
            break;
        uint8_t *grown = cap * 2 > cap ? realloc(buf, cap * 2) : NULL;
        if (!grown) {
            free(buf);
            errno = ENOMEM;
            return NULL;
        }
        buf = grown;
        cap *= 2;
    }
    if (buf && ferror(f)) {
        int e = errno;
        free(buf);
        errno = e ? e : EIO;
        return NULL;
    }
    *len = n;
    return buf;
}

/* Decodes JPEG 2000 bytes into an 8- or 16-bit image (tsr_j2k_decode_image). */
static tsr_status load_j2k(const cli_command *cmd, tsr_ctx *ctx, const uint8_t *data, size_t len,
                           const char *path, tsr_image *out, int quiet)
{
    tsr_image desc, img;
    tsr_j2k_result res;
    tsr_status st = tsr_j2k_decode_image_layout(ctx, data, len, NULL, &desc);
    if (st == TSR_OK)
        st = tsr_image_alloc(ctx, &img, desc.width, desc.height, desc.channels, desc.depth);
    if (st != TSR_OK)
        return st;
    if ((st = tsr_j2k_decode_image(ctx, data, len, NULL, &img, &res)) != TSR_OK) {
        tsr_image_free(ctx, &img);
        return st;
    }
    if (!quiet && res.warnings)
        fprintf(stderr, "tessera %s: %s: warning: %s%s\n", cmd->name, path, res.warning,
                res.warnings > 1 ? " (and more)" : "");
    *out = img;
    return TSR_OK;
}

int cli_read_file(const cli_command *cmd, const char *path, uint8_t **data, size_t *len)
{
    int is_stdin = strcmp(path, "-") == 0;
    FILE *f = is_stdin ? stdin : fopen(path, "rb");
    *len = 0;
    *data = f ? read_all(f, len) : NULL;
    int err = errno;
    if (f && !is_stdin)
        fclose(f);
    if (*data)
        return 0;
    cli_error(cmd, "%s: cannot read: %s", path, strerror(err));
    return TSR_EXIT_FAILURE;
}

int cli_image_load(const cli_command *cmd, tsr_ctx *ctx, const char *path, tsr_image *out,
                   tsr_format *format, int quiet)
{
    /* A file's first bytes say whether it is JPEG 2000; standard input cannot be peeked, so it
     * is read whole first. */
    int is_stdin = strcmp(path, "-") == 0;
    unsigned char head[12] = {0};
    size_t nhead = 0;
    if (!is_stdin) {
        FILE *f = fopen(path, "rb");
        if (f) {
            nhead = fread(head, 1, sizeof head, f);
            fclose(f);
        }
    }
    tsr_format kind = tsr_format_detect(head, nhead);
    tsr_status st;
    if (is_stdin || kind == TSR_FORMAT_JP2 || kind == TSR_FORMAT_J2K) {
        FILE *f = is_stdin ? stdin : fopen(path, "rb");
        size_t len = 0;
        uint8_t *data = f ? read_all(f, &len) : NULL;
        if (f && !is_stdin)
            fclose(f);
        if (!data) {
            cli_error(cmd, "%s: cannot read: %s", path, strerror(errno));
            return TSR_EXIT_FAILURE;
        }
        kind = tsr_format_detect(data, len);
        if (kind == TSR_FORMAT_JP2 || kind == TSR_FORMAT_J2K)
            st = load_j2k(cmd, ctx, data, len, path, out, quiet);
        else
            st = tsr_image_decode(ctx, data, len, out, &kind);
        free(data);
    } else {
        st = tsr_image_load(ctx, path, out, &kind);
    }
    if (format)
        *format = kind;
    return st == TSR_OK ? 0 : cli_fail(cmd, ctx, st, path);
}

static const char *depth_words(tsr_depth d)
{
    return d == TSR_U8 ? "8-bit" : d == TSR_U16 ? "16-bit" : "float";
}

static const char *channel_words(int c)
{
    static const char *const names[5] = {"", "gray", "gray+alpha", "RGB", "RGBA"};
    return c >= 1 && c <= 4 ? names[c] : "?";
}

/* One sample of depth `from` at p as a value of depth `to` (cli_image_fit's rules). */
static void convert_sample(const void *p, tsr_depth from, void *q, tsr_depth to)
{
    double v; /* in [0, 1] for integers */
    if (from == TSR_U8)
        v = *(const uint8_t *)p;
    else if (from == TSR_U16)
        v = *(const uint16_t *)p;
    else
        v = *(const float *)p;
    if (from == to) {
        memcpy(q, p, tsr_depth_size(to));
    } else if (to == TSR_F32) {
        *(float *)q = (float)(v / (from == TSR_U8 ? 255.0 : 65535.0));
    } else if (from == TSR_F32) {
        double max = to == TSR_U8 ? 255.0 : 65535.0;
        double c = v > 0 ? (v < 1 ? v : 1) : 0; /* NaN compares false: 0 */
        double r = floor(c * max + 0.5);
        if (to == TSR_U8)
            *(uint8_t *)q = (uint8_t)r;
        else
            *(uint16_t *)q = (uint16_t)r;
    } else if (to == TSR_U8) {
        *(uint8_t *)q = (uint8_t)(((uint32_t)v * 255u + 32767u) / 65535u);
    } else {
        *(uint16_t *)q = (uint16_t)((uint32_t)v * 257u);
    }
}

tsr_status cli_image_fit(tsr_ctx *ctx, tsr_format f, const tsr_image *img, tsr_image *out,
                         char *note, size_t note_cap)
{
    unsigned depths = tsr_format_depths(f), chans = tsr_format_channels(f);
    note[0] = '\0';
    *out = *img;
    if (!depths)
        return TSR_OK; /* not an image format: tsr_image_save says so */
    tsr_depth d = img->depth;
    if (!(depths & TSR_DEPTH_BIT(d)))
        d = (depths & TSR_DEPTH_BIT(TSR_F32)) && !(depths & TSR_DEPTH_BIT(TSR_U8)) ? TSR_F32
            : img->depth == TSR_F32 && (depths & TSR_DEPTH_BIT(TSR_U16))           ? TSR_U16
                                                                                   : TSR_U8;
    int c = img->channels;
    static const int prefer[5][3] = {{0}, {3, 0, 0}, {4, 1, 3}, {0}, {3, 0, 0}};
    for (int k = 0; k < 3 && !(chans & TSR_CHANNELS_BIT(c)); k++)
        if (prefer[img->channels][k])
            c = prefer[img->channels][k];
    if (d == img->depth && c == img->channels)
        return TSR_OK;
    tsr_image o;
    tsr_status st = tsr_image_alloc(ctx, &o, img->width, img->height, c, d);
    if (st != TSR_OK)
        return st;
    size_t in_size = tsr_depth_size(img->depth), out_size = tsr_depth_size(d);
    const int in_c = img->channels, in_alpha = in_c == 2 || in_c == 4;
    const int out_alpha = c == 2 || c == 4, in_colour = in_c >= 3;
    for (int32_t y = 0; y < img->height; y++) {
        const uint8_t *s = (const uint8_t *)img->data + (size_t)y * img->stride;
        uint8_t *q = (uint8_t *)o.data + (size_t)y * o.stride;
        for (int32_t x = 0; x < img->width; x++, s += in_size * (size_t)in_c) {
            for (int k = 0; k < c; k++, q += out_size) {
                /* output channel k reads: colour channels (gray replicated), then alpha (an
                 * output has alpha only where the input has: see prefer) */
                int is_alpha = out_alpha && k == c - 1;
                int from = is_alpha ? in_c - 1 : in_colour ? k : 0;
                convert_sample(s + (size_t)from * in_size, img->depth, q, d);
            }
        }
    }
    snprintf(note, note_cap, "%s holds no %s %s: writing %s %s%s", tsr_format_name(f),
             depth_words(img->depth), channel_words(img->channels), depth_words(d),
             channel_words(c),
             in_alpha && !out_alpha                  ? " (alpha dropped)"
             : d == TSR_U8 && img->depth == TSR_U16  ? " (samples rounded to 8 bits)"
             : img->depth == TSR_F32 && d != TSR_F32 ? " (values clamped to 0..1 and scaled)"
             : d == TSR_F32                          ? " (1.0 is white)"
                                                     : "");
    *out = o;
    return TSR_OK;
}

int cli_image_save(const cli_command *cmd, tsr_ctx *ctx, const char *path, const tsr_image *img,
                   const tsr_save_options *so, tsr_format fallback, int quiet)
{
    tsr_file_type named = tsr_file_type_of(path);
    tsr_format f = named == TSR_FILE_NONE ? fallback : tsr_file_type_image(named);
    if (named == TSR_FILE_NONE && (f == TSR_FORMAT_JP2 || f == TSR_FORMAT_J2K))
        f = TSR_FORMAT_PNG;
    tsr_image fit;
    char note[200];
    tsr_status st = cli_image_fit(ctx, f, img, &fit, note, sizeof note);
    if (st != TSR_OK)
        return cli_fail(cmd, ctx, st, path);
    if (note[0] && !quiet)
        fprintf(stderr, "tessera %s: %s: %s\n", cmd->name, path, note);
    if (f == TSR_FORMAT_JP2 || f == TSR_FORMAT_J2K) {
        tsr_j2k_encode_options jo;
        tsr_j2k_encode_options_init(&jo); /* lossless */
        st = tsr_j2k_encode_save(ctx, &fit, &jo, path, NULL);
    } else {
        tsr_save_options o = *so;
        o.format = named == TSR_FILE_NONE ? f : TSR_FORMAT_UNKNOWN;
        st = tsr_image_save(ctx, path, &fit, &o);
    }
    if (fit.data != img->data)
        tsr_image_free(ctx, &fit);
    return st == TSR_OK ? 0 : cli_fail(cmd, ctx, st, path);
}
