/* Command-line plumbing shared by every `tessera` command: options declared once as data (name,
 * argument, help), parsed into values and rendered into --help; exit codes; error printing;
 * progress on stderr; JSON output helpers. */
#ifndef TSR_CLI_H
#define TSR_CLI_H

#include "tessera/tessera.h"

#include <pthread.h>
#include <stdio.h>

/* Exit codes of the tessera command (documented in tessera(1) and `tessera help`). */
enum {
    TSR_EXIT_OK = 0,
    TSR_EXIT_FAILURE = 1, /* the work failed: unreadable input, device error, ... */
    TSR_EXIT_USAGE = 2,   /* bad command line */
    TSR_EXIT_INTERRUPTED = 130
};

typedef enum cli_arg {
    CLI_FLAG, /* --name */
    CLI_VALUE /* --name VALUE or --name=VALUE */
} cli_arg;

typedef struct cli_option {
    const char *name; /* long name without dashes */
    cli_arg arg;
    const char *metavar; /* for --help, e.g. "WxH" */
    const char *help;    /* one or more sentences; the default is stated in the text */
} cli_option;

typedef struct cli_command {
    const char *name;    /* "resize" */
    const char *summary; /* one line for `tessera help` */
    const char *usage;   /* synopsis after "tessera NAME " */
    const char *description;
    const cli_option *options; /* terminated by {0} */
    const char *examples;      /* lines of examples, each "  tessera ..." */
    int (*run)(const struct cli_command *cmd, int argc, char **argv);
} cli_command;

/* Parsed command line: the value (or "" for a present flag, NULL when absent) of each option in
 * the command's table, in table order, and the positional arguments. */
typedef struct cli_args {
    const char *values[32];
    char **positional;
    int npositional;
} cli_args;

/* The options every command shares, declared once (cli_open_context reads --backend and
 * --threads; a command reads --quiet with cli_get). CLI_OPTION_BACKEND takes the command's
 * backends and its auto rule, e.g. "auto (default: the CPU), cpu or reference". */
#define CLI_OPTION_BACKEND(choices)                                                                \
    {                                                                                              \
        "backend", CLI_VALUE, "NAME",                                                              \
            choices ". The environment variable TSR_BACKEND sets the default."                     \
    }
#define CLI_OPTION_THREADS                                                                         \
    {                                                                                              \
        "threads", CLI_VALUE, "N", "CPU threads for the cpu backend (default 0: all cores)."       \
    }
#define CLI_OPTION_QUIET                                                                           \
    {                                                                                              \
        "quiet", CLI_FLAG, NULL, "No progress or notes on stderr; errors are still printed."       \
    }

/* The largest image, in pixels, that a command which reads or makes images takes (its
 * --max-pixels; cli_open_image_context) unless told otherwise: 2^28 = 16384 x 16384, twice
 * the 128 MP area of Debian's ImageMagick policy. */
#define CLI_MAX_PIXELS_DEFAULT ((uint64_t)1 << 28)
#define CLI_OPTION_MAX_PIXELS                                                                      \
    {                                                                                              \
        "max-pixels", CLI_VALUE, "N",                                                              \
            "Largest image (width x height) read or made: a larger one fails at its header, "      \
            "before its memory is taken, with exit status 1 (default 268435456 = 16384 x 16384; "  \
            "0: no limit)."                                                                        \
    }

/* --sync, declared once for every command that writes files; scope: "" or a sub-command's
 * prefix such as "encode: " */
#define CLI_OPTION_SYNC(scope)                                                                     \
    {                                                                                              \
        "sync", CLI_FLAG, NULL,                                                                    \
            scope                                                                                  \
            "fsync each output file and its folder before the rename, so that it survives a "      \
            "power loss (default off: the rename alone never leaves a partial file)."              \
    }
/* The options of every command that writes images, declared once: put CLI_IMAGE_OUTPUT_OPTIONS
 * in the command's table and read them with cli_image_save_options. */
#define CLI_IMAGE_OUTPUT_OPTIONS                                                                   \
    {"quality", CLI_VALUE, "Q",                                                                    \
     "JPEG quality 1-100 for .jpg outputs (default 95); for .webp outputs, lossy WebP at that "    \
     "quality (default: lossless WebP, the same pixels back)."},                                   \
        {"png-level", CLI_VALUE, "N",                                                              \
         "zlib level 0-9 of .png outputs (default 3; 1 is the fastest, 9 the smallest; the rows "  \
         "compress on every thread)."},                                                            \
        CLI_OPTION_SYNC("")
/* Reads --quality, --png-level and --sync into *so (already initialised); 0, or TSR_EXIT_USAGE
 * after printing the error. */
int cli_image_save_options(const cli_command *cmd, const cli_args *args, tsr_save_options *so);

/* The image formats resize and carve write: tsr_image_save's and JPEG 2000 (.jp2, .j2k, .j2c:
 * lossless, through tsr_j2k_encode_save). */
#define CLI_WRITES_IMAGE TSR_WRITES_IMAGE_J2K
/* The output formats --quality applies to (JPEG, WebP). */
#define CLI_QUALITY_FORMATS (TSR_FILE_BIT(TSR_FILE_JPEG) | TSR_FILE_BIT(TSR_FILE_WEBP))

/* Loads an image: every format tsr_image_load reads, and JPEG 2000 (JP2/JPH files and
 * codestreams, by content) through tsr_j2k_decode_image, whose warnings (a truncated stream)
 * are printed on stderr unless quiet. "-" is standard input. *format receives the format
 * detected. Returns 0, or the exit code after printing one line naming the file. */
int cli_image_load(const cli_command *cmd, tsr_ctx *ctx, const char *path, tsr_image *out,
                   tsr_format *format, int quiet);
/* Reads the file at path ("-": standard input) whole into *data (malloc; free it) and *len.
 * Returns 0, or the exit code after printing one line naming the file. */
int cli_read_file(const cli_command *cmd, const char *path, uint8_t **data, size_t *len);
/* Saves img as path: in the format of its extension, or `fallback` when it has none (a
 * JPEG 2000 fallback writes PNG: no JPEG 2000 container is named). JPEG 2000 is written
 * lossless. What the format cannot hold is converted first, with a one-line note on stderr
 * (unless quiet) saying what became what (cli_image_fit). Returns 0 or the exit code after
 * printing one line. */
int cli_image_save(const cli_command *cmd, tsr_ctx *ctx, const char *path, const tsr_image *img,
                   const tsr_save_options *so, tsr_format fallback, int quiet);
/* The conversion cli_image_save makes for format f: *out is img itself (data shared, nothing
 * to free) when f holds it, else a new image (free it with tsr_image_free) of the nearest
 * depth and channels f holds, and *note says what changed (else ""). Depths: u16 -> u8 is
 * round(v * 255 / 65535); u8 -> u16 is v * 257; integers -> f32 are v / 255 or v / 65535 (1.0
 * white); f32 -> integers clamp to [0, 1] (NaN to 0) and round(v * max), into u16 where the
 * format holds it. Channels: alpha is dropped where the format has none (JPEG, PNM, PFM);
 * gray becomes RGB where the format has no gray (WebP), gray+alpha RGBA where it has alpha but
 * no gray+alpha (WebP, BMP). */
tsr_status cli_image_fit(tsr_ctx *ctx, tsr_format f, const tsr_image *img, tsr_image *out,
                         char *note, size_t note_cap);

/* Parses argv (after the command name). Options may appear anywhere; "--" ends options.
 * On error prints one line to stderr and returns TSR_EXIT_USAGE; on --help prints the help and
 * returns -1 (the caller exits 0); otherwise returns 0. */
int cli_parse(const cli_command *cmd, int argc, char **argv, cli_args *out);
/* The value of option `name` (NULL when absent). The name must be in the table. */
const char *cli_get(const cli_command *cmd, const cli_args *args, const char *name);
void cli_print_help(const cli_command *cmd, FILE *f);
/* The command's manual page in roff, generated from the same table (installed as
 * tessera-NAME.1). */
void cli_print_man(const cli_command *cmd, FILE *f);

/* Prints "tessera CMD: message" to stderr. */
void cli_error(const cli_command *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* From this call on, cli_error writes its first line's message (without the "tessera CMD: "
 * prefix) into buf (cap bytes, emptied here) instead of stderr and drops the later ones, for a
 * caller that decides afterwards whether and how to print it; cap 0 sends lines to stderr
 * again. */
void cli_error_keep(char *buf, size_t cap);
/* Prints the context's last error (or the status text) for a failed call and returns the exit
 * code for that status. */
int cli_fail(const cli_command *cmd, tsr_ctx *ctx, tsr_status st, const char *what);

/* Creates the context from --backend (default: env TSR_BACKEND, else auto) and --threads, with
 * the library's progress on stderr (cli_progress, unless quiet) and cancellation by
 * cli_stop_requested. Returns 0 or an exit code. */
int cli_open_context(const cli_command *cmd, const cli_args *args, int quiet, tsr_ctx **ctx);
/* cli_open_context on the backend's device number `device` (tsr_ctx_options.device). */
int cli_open_device_context(const cli_command *cmd, const cli_args *args, int quiet, int device,
                            tsr_ctx **ctx);
/* cli_open_context for a command that reads or makes images (CLI_OPTION_MAX_PIXELS in its
 * table): the context's max_image_pixels is --max-pixels (default CLI_MAX_PIXELS_DEFAULT;
 * 0: no limit), and a failure for it (cli_fail) names the option. */
int cli_open_image_context(const cli_command *cmd, const cli_args *args, int quiet, tsr_ctx **ctx);
/* The large host blocks one context has freed, kept for its next allocations: a block of
 * CLI_BLOCK_MIN bytes or more is kept in a free slot when freed and handed out again for a
 * request it holds (up to twice its size), so that a worker's next image reuses memory whose
 * pages are mapped already. Faulting in fresh pages cost 50-75 ms per 72 MB (a 24 Mpx RGB
 * image) on the 2-core development machine, refilling kept ones 8-10 ms. A block no slot
 * takes is freed as usual. Thread-safe (a context's images may be freed on another thread). */
enum { CLI_BLOCK_SLOTS = 4 };
#define CLI_BLOCK_MIN ((size_t)1 << 20)
typedef struct cli_block_cache {
    pthread_mutex_t lock;
    struct {
        void *ptr; /* NULL: an empty slot */
        size_t size;
        int used; /* handed out */
    } slot[CLI_BLOCK_SLOTS];
} cli_block_cache;
void cli_block_cache_init(cli_block_cache *c);
/* Frees the kept blocks; after the context using the cache is destroyed. */
void cli_block_cache_release(cli_block_cache *c);

/* A context for one worker thread of a command that spreads its files over threads: the
 * --max-pixels of cli_open_image_context (call that first, with the same args, so that the
 * value is known good), the CPU backend with `threads` threads (>= 1) whatever --backend says,
 * host memory from `cache` (initialised; it outlives the context), and a progress callback
 * that prints nothing and cancels the call in progress once cli_stop_requested. A thread loads
 * and saves in its own context, so its errors are its own (a context is used by one thread at
 * a time). Returns 0 or an exit code. */
int cli_open_worker_context(const cli_command *cmd, const cli_args *args, int threads,
                            cli_block_cache *cache, tsr_ctx **ctx);
/* After an operation (unless quiet): one line on stderr naming the backend it ran on, its
 * device and why that backend was chosen ("cpu backend (CPU, 16 threads): host images: ..."). */
void cli_note_backend(const cli_command *cmd, const tsr_ctx *ctx, int quiet);

/* Progress on stderr, only when stderr is a terminal and not quiet: "stage: done/total (N%)" on
 * one line rewritten in place, first after half a second of a stage (short work prints
 * nothing), then at most ten times a second; the report with done >= total ends the stage's
 * line. The context from cli_open_context reports the library's progress this way. */
typedef struct cli_progress {
    int enabled;
    double since;      /* when the current stage's first report came; 0 before it */
    double last_print; /* when its line was last printed; 0 while it has not been */
} cli_progress;
void cli_progress_init(cli_progress *p, int quiet);
void cli_progress_update(cli_progress *p, const char *stage, double done, double total);
/* Ends a line left open by a stage that stopped early (an error). */
void cli_progress_end(cli_progress *p);

/* Stopping long work on SIGINT or SIGTERM. Between cli_stop_catch and cli_stop_release the first
 * such signal only sets a flag: cli_stop_requested() turns 1, the context's progress callback
 * then cancels the library call in progress (TSR_ERR_INTERRUPTED), and the command removes its
 * temporary output and exits 130 (cli_fail says "interrupted"). A second signal ends the
 * process the usual way. A signal the process was started ignoring (SIGINT in a background job)
 * stays ignored. */
void cli_stop_catch(void);
void cli_stop_release(void);
int cli_stop_requested(void);

/* Strict number parsing for option values: the whole string must be the number and lie in
 * [lo, hi]; each returns 1 and stores it, or 0 (leaving *out alone). */
int cli_parse_int(const char *s, long long lo, long long hi, long long *out);
int cli_parse_u64(const char *s, uint64_t *out);
int cli_parse_double(const char *s, double lo, double hi, double *out); /* finite only */
/* "A" or "A,B", each in [lo, hi] as cli_parse_double wants; "A" alone sets both. */
int cli_parse_double_pair(const char *s, double lo, double hi, double *a, double *b);
/* "WxH" with both sides in [1, max_side]. */
int cli_parse_size(const char *s, int32_t max_side, int32_t *w, int32_t *h);
/* cli_parse_size that also takes "Wx" and "xH": the missing side is 0, for
 * cli_size_keep_aspect to fill in. */
int cli_parse_size_aspect(const char *s, int32_t max_side, int32_t *w, int32_t *h);
/* Fills a side of 0 so that the output keeps the input's aspect ratio: h = round(in_h * w /
 * in_w) with halves up and at least 1 (ImageMagick's geometry "200x" rounds so), likewise w.
 * Returns 0 when the result exceeds max_side. */
int cli_size_keep_aspect(int32_t in_w, int32_t in_h, int32_t max_side, int32_t *w, int32_t *h);

/* An output file a command will write, checked before any work by cli_check_outputs. */
typedef struct cli_output {
    const char *path;  /* NULL: not asked for */
    const char *what;  /* how messages name it when two collide: "OUT", "--svg" */
    unsigned writable; /* the formats it may be written in (a mask of TSR_FILE_BIT) */
    /* The format of "-" and of a name without an extension; TSR_FILE_NONE: the input's
     * format, which the command applies once the input is read (images). */
    tsr_file_type fallback;
    tsr_file_type format; /* out: the name's format, or the fallback; NONE while deferred */
    int stream; /* out: standard output, a device or a FIFO: written directly, never replaced */
} cli_output;

/* The one check of a command's outputs, before it reads or computes anything: each output's
 * format comes from its name (tsr_output_format: an extension tessera cannot write there is a
 * usage error naming it and the formats it can write, exit 2); its path must be writable
 * (tsr_output_probe: a missing or read-only folder, a read-only file, a folder given as a
 * file fail with exit 1); two outputs may not name one file, and an output may not be one of
 * the inputs unless `overwrite` (--overwrite) allows it (exit 2). Prints one line and returns
 * the exit code, or 0. */
int cli_check_outputs(const cli_command *cmd, tsr_ctx *ctx, const char *const *inputs, int ninputs,
                      cli_output *outs, int nouts, int overwrite);

/* cli_check_outputs for a command's one input and one output, which may be written in the
 * formats of `writable` (TSR_FILE_BIT mask; a name without an extension passes to the
 * command's own rule). */
int cli_check_output(const cli_command *cmd, tsr_ctx *ctx, const char *in, const char *out,
                     unsigned writable);

/* Writes s as a JSON string literal (with quotes and escapes). */
void cli_json_string(FILE *f, const char *s);

/* Monotonic seconds. */
double cli_now(void);

extern const cli_command cli_cmd_resize;
extern const cli_command cli_cmd_carve;
extern const cli_command cli_cmd_layout;
extern const cli_command cli_cmd_j2k;
extern const cli_command cli_cmd_migrate;

#endif
