/* tessera resize: OpenCV-exact resize of one image, or of many into a folder. */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"

#include <errno.h>
#include <libgen.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

static const cli_option resize_options[] = {
    {"size", CLI_VALUE, "WxH",
     "Output size in pixels, e.g. 1920x1080; 640x or x480 gives one side and keeps the "
     "input's aspect ratio (the other side is round(side x given / input side), halves up, at "
     "least 1, as ImageMagick's geometry rounds)."},
    {"width", CLI_VALUE, "W", "Output width; the height keeps the aspect ratio unless --height."},
    {"height", CLI_VALUE, "H", "Output height; the width keeps the aspect ratio unless --width."},
    {"scale", CLI_VALUE, "F|FX,FY",
     "Scale factor(s) instead of --size; the output size is round(input*F) as in OpenCV "
     "(cv::resize with fx, fy), and the factors themselves drive the coefficients as they do "
     "in OpenCV."},
    {"interp", CLI_VALUE, "NAME",
     "nearest, linear (default), cubic, area, lanczos4 or linear-exact: OpenCV's INTER_* "
     "methods, bit-identical for 8- and 16-bit images."},
    CLI_OPTION_BACKEND("auto (default: the CPU, which for host images is faster end to end than "
                       "a CUDA start-up and two copies over PCIe: 4K to 1080p takes 0.28 s "
                       "against 0.71 s on an H200 host), cpu, reference (single-threaded), cuda "
                       "or opencl"
                       "; the backend that ran and why are said on stderr and in --json"),
    CLI_OPTION_THREADS,
    CLI_IMAGE_OUTPUT_OPTIONS,
    CLI_OPTION_MAX_PIXELS,
    {"json", CLI_FLAG, NULL, "Print a JSON summary on stdout (sizes, backend, device, time)."},
    {"overwrite", CLI_FLAG, NULL, "Allow an output to be its input file, which is then replaced."},
    CLI_OPTION_QUIET,
    {0}};

static const char *depth_name(tsr_depth d)
{
    return d == TSR_U8 ? "u8" : d == TSR_U16 ? "u16" : "f32";
}

typedef struct resize_job {
    const cli_command *cmd;
    tsr_ctx *ctx;
    tsr_resize_options opt;
    int has_size;
    int32_t width, height; /* with --size */
    double fx, fy;         /* with --scale */
    tsr_save_options save;
    int json;
    int quiet;
    int json_items;
} resize_job;

/* Output size of one input under the job's --size (a side of 0: from the aspect ratio) or
 * --scale. */
static tsr_status output_size(resize_job *job, const tsr_image *src, int32_t *w, int32_t *h)
{
    if (job->has_size) {
        *w = job->width;
        *h = job->height;
        return cli_size_keep_aspect(src->width, src->height, INT32_MAX, w, h)
                   ? TSR_OK
                   : TSR_ERR_INVALID_ARGUMENT;
    }
    return tsr_resize_size(src->width, src->height, job->fx, job->fy, w, h);
}

static void json_item(resize_job *job, const char *in, const char *out, const tsr_image *src,
                      const tsr_image *dst, double ms)
{
    if (!job->json)
        return;
    printf("%s\n    {\"input\": ", job->json_items++ ? "," : "");
    cli_json_string(stdout, in);
    printf(", \"output\": ");
    cli_json_string(stdout, out);
    printf(", \"input_size\": [%d, %d], \"output_size\": [%d, %d], \"channels\": %d, "
           "\"depth\": \"%s\", \"resize_ms\": %.3f}",
           (int)src->width, (int)src->height, (int)dst->width, (int)dst->height, (int)src->channels,
           depth_name(src->depth), ms);
}

/* Where one input of a run is. An image is in memory from LOADING to SAVING. */
typedef enum item_state {
    ITEM_QUEUED,  /* not taken yet */
    ITEM_LOADING, /* a worker decodes it (and, once cpu_workers, resizes and encodes it) */
    ITEM_LOADED,  /* src decoded and dst allocated: waits for the resize */
    ITEM_RESIZED, /* dst holds the output: waits for a worker to encode it */
    ITEM_SAVING,
    ITEM_WRITTEN, /* the output is in place; its images are freed */
    ITEM_FAILED   /* reported on stderr in one line; its images are freed */
} item_state;

typedef struct batch_item {
    tsr_image src, dst; /* allocated in `owner`; after the free, sizes only (for --json) */
    tsr_ctx *owner;
    tsr_format format; /* of the input, the format of an output named without an extension */
    double ms;         /* the resize's time per image of its call */
    item_state state;
} batch_item;

/* A run over count inputs: workers decode (ITEM_QUEUED -> ITEM_LOADED) and encode
 * (ITEM_RESIZED -> ITEM_WRITTEN) on their own contexts, one image per worker at a time, while
 * the calling thread resizes what is decoded, up to BATCH_CHUNK images per tsr_resize_batch on
 * the job's context. When that call ran on the CPU backend, the workers resize the rest
 * themselves from then on (cpu_workers), each image on its worker's one thread: the same
 * pixels (the CPU backend's output does not depend on its threads), without the calling
 * thread's team waiting for the slowest of its threads while the workers decode beside it. At
 * most max_loaded images are in memory at once (2 per worker): decoding stops there until an
 * output is written. Inputs are taken in order, and encoding goes before decoding, so memory
 * stays bounded and the first outputs come early. */
enum { BATCH_CHUNK = 16 };
typedef struct batch {
    resize_job *job;
    char **in, **out;
    batch_item *items;
    int count;
    int max_loaded;
    int in_memory; /* items from ITEM_LOADING to ITEM_SAVING */
    int next_load; /* the first ITEM_QUEUED item */
    int *saves;    /* items ITEM_RESIZED, in the order they were resized */
    int save_head, save_tail;
    int cpu_workers; /* workers resize what they decode (on their contexts' CPU backend) */
    int stop;        /* take no more inputs (an interrupt) */
    int quit;        /* workers return once no save is waiting */
    pthread_mutex_t lock;
    pthread_cond_t work;    /* to workers: a save waits, a slot is free, or quit */
    pthread_cond_t changed; /* to the resizing thread: an item changed state */
} batch;

static void item_free(batch_item *it)
{
    tsr_image src = it->src, dst = it->dst;
    tsr_image_free(it->owner, &src);
    tsr_image_free(it->owner, &dst);
    it->src.data = it->dst.data = NULL;
}

/* Decodes input i in ctx and allocates its output there: ITEM_LOADED, or ITEM_FAILED after
 * reporting why (nothing left allocated). */
static item_state item_load(batch *b, tsr_ctx *ctx, int i)
{
    resize_job *job = b->job;
    batch_item *it = &b->items[i];
    const char *in = b->in[i];
    int32_t w, h;
    tsr_status st;
    it->owner = ctx;
    if (cli_image_load(job->cmd, ctx, in, &it->src, &it->format, job->quiet) != 0)
        return ITEM_FAILED; /* the message names the file */
    if ((st = tsr_file_type_check_channels(ctx, b->out[i], tsr_file_type_of(b->out[i]),
                                           it->src.channels)) != TSR_OK) {
        cli_fail(job->cmd, ctx, st, NULL);
    } else if (output_size(job, &it->src, &w, &h) != TSR_OK) {
        if (job->has_size)
            cli_error(job->cmd, "%s: the side kept in proportion to %dx%d exceeds 2^31 - 1", in,
                      (int)it->src.width, (int)it->src.height);
        else
            cli_error(job->cmd,
                      "%s: --scale %g,%g makes no output size from %dx%d (round(side x "
                      "factor) must be 1 to 2147483647 on both sides)",
                      in, job->fx, job->fy, (int)it->src.width, (int)it->src.height);
    } else if ((st = tsr_image_alloc(ctx, &it->dst, w, h, it->src.channels, it->src.depth)) !=
               TSR_OK) {
        cli_error(job->cmd, "%s: the %dx%d output: %s", in, (int)w, (int)h,
                  tsr_ctx_last_error(ctx));
    } else {
        return ITEM_LOADED;
    }
    item_free(it);
    return ITEM_FAILED;
}

/* Encodes item i's output in ctx, then frees its images: ITEM_WRITTEN or ITEM_FAILED. */
static item_state item_save(batch *b, tsr_ctx *ctx, int i)
{
    resize_job *job = b->job;
    batch_item *it = &b->items[i];
    /* "-", "out": the input's format */
    int rc = cli_image_save(job->cmd, ctx, b->out[i], &it->dst, &job->save, it->format,
                            job->quiet || job->json);
    item_free(it);
    return rc == 0 ? ITEM_WRITTEN : ITEM_FAILED;
}

/* Resizes and encodes loaded item i on a worker's context: ITEM_WRITTEN or ITEM_FAILED
 * (reported; its images freed). */
static item_state item_resize_save(batch *b, tsr_ctx *ctx, int i)
{
    batch_item *it = &b->items[i];
    double t0 = cli_now();
    tsr_status st = tsr_resize(ctx, &it->src, &it->dst, &b->job->opt);
    it->ms = (cli_now() - t0) * 1e3;
    if (st == TSR_OK)
        return item_save(b, ctx, i);
    cli_fail(b->job->cmd, ctx, st, b->in[i]);
    item_free(it);
    return ITEM_FAILED;
}

/* Resizes the n loaded items `pick` on the job's context in one batch; each becomes
 * ITEM_RESIZED or ITEM_FAILED (reported; its images freed). When the batch call fails, each
 * image is resized alone, so that the report names the ones at fault. Returns 0, or
 * TSR_EXIT_INTERRUPTED once a signal stopped the work (then none is resized). Takes no lock:
 * the items are the caller's while ITEM_LOADED. */
static int items_resize(batch *b, const int *pick, int n)
{
    resize_job *job = b->job;
    tsr_image src[BATCH_CHUNK], dst[BATCH_CHUNK];
    int resized[BATCH_CHUNK] = {0};
    for (int k = 0; k < n; k++) {
        src[k] = b->items[pick[k]].src;
        dst[k] = b->items[pick[k]].dst;
    }
    int rc = 0;
    double t0 = cli_now();
    tsr_status st = tsr_resize_batch(job->ctx, src, dst, (size_t)n, &job->opt, NULL);
    if (st == TSR_OK) {
        for (int k = 0; k < n; k++)
            resized[k] = 1;
    } else if (st == TSR_ERR_INTERRUPTED) {
        rc = cli_fail(job->cmd, job->ctx, st, NULL);
    } else {
        for (int k = 0; k < n && rc == 0; k++) {
            if ((st = tsr_resize(job->ctx, &src[k], &dst[k], &job->opt)) == TSR_OK)
                resized[k] = 1;
            else if (st == TSR_ERR_INTERRUPTED)
                rc = cli_fail(job->cmd, job->ctx, st, NULL);
            else
                cli_fail(job->cmd, job->ctx, st, b->in[pick[k]]);
        }
    }
    double ms = (cli_now() - t0) * 1e3 / n;
    for (int k = 0; k < n; k++) {
        batch_item *it = &b->items[pick[k]];
        it->ms = ms;
        if (rc == 0 && resized[k]) {
            it->state = ITEM_RESIZED;
        } else {
            item_free(it);
            it->state = rc == 0 ? ITEM_FAILED : ITEM_QUEUED; /* interrupted: not done */
        }
    }
    return rc;
}

typedef struct batch_worker {
    batch *b;
    tsr_ctx *ctx;
    cli_block_cache cache; /* ctx's host memory */
    pthread_t thread;
} batch_worker;

/* A worker: encodes a resized item when one waits, else decodes the next input while there is
 * room; returns on quit with no save waiting. */
static void *worker_run(void *arg)
{
    batch_worker *w = arg;
    batch *b = w->b;
    pthread_mutex_lock(&b->lock);
    for (;;) {
        int i, save = b->save_head < b->save_tail;
        if (save) {
            i = b->saves[b->save_head++];
        } else if (!b->stop && !b->quit && b->next_load < b->count &&
                   b->in_memory < b->max_loaded) {
            i = b->next_load++;
            b->in_memory++;
        } else if (b->quit) {
            break;
        } else {
            pthread_cond_wait(&b->work, &b->lock);
            continue;
        }
        b->items[i].state = save ? ITEM_SAVING : ITEM_LOADING;
        pthread_mutex_unlock(&b->lock);
        item_state next = save ? item_save(b, w->ctx, i) : item_load(b, w->ctx, i);
        pthread_mutex_lock(&b->lock);
        if (next == ITEM_LOADED && b->cpu_workers && !b->stop) {
            pthread_mutex_unlock(&b->lock); /* stays ITEM_LOADING: the resizer leaves it */
            next = item_resize_save(b, w->ctx, i);
            pthread_mutex_lock(&b->lock);
        }
        b->items[i].state = next;
        if (next != ITEM_LOADED) {
            b->in_memory--;
            pthread_cond_broadcast(&b->work);
        }
        pthread_cond_signal(&b->changed);
    }
    pthread_mutex_unlock(&b->lock);
    return NULL;
}

static int item_done(const batch_item *it)
{
    return it->state == ITEM_WRITTEN || it->state == ITEM_FAILED;
}

/* Prints what finished since *reported, in input order: --json items and progress. Called
 * with the lock held. */
static void batch_report(batch *b, int *reported, int *failed, cli_progress *progress)
{
    int before = *reported;
    for (; *reported < b->count && item_done(&b->items[*reported]); ++*reported) {
        batch_item *it = &b->items[*reported];
        if (it->state == ITEM_FAILED)
            ++*failed;
        else
            json_item(b->job, b->in[*reported], b->out[*reported], &it->src, &it->dst, it->ms);
    }
    if (*reported > before)
        cli_progress_update(progress, "resize", *reported, b->count);
}

/* The resizing thread's part of a run with workers already started: resizes whatever is
 * decoded, in chunks, until every item is done or, after a stop, until no work is left in
 * progress. Returns 0 or TSR_EXIT_INTERRUPTED. */
static int batch_resize_loop(batch *b, int *reported, int *failed, cli_progress *progress)
{
    int rc = 0;
    pthread_mutex_lock(&b->lock);
    for (;;) {
        if (!b->stop && (rc || cli_stop_requested())) {
            b->stop = 1;
            pthread_cond_broadcast(&b->work);
        }
        int pick[BATCH_CHUNK], n = 0, busy = b->save_head < b->save_tail;
        for (int i = *reported; i < b->next_load; i++) {
            item_state s = b->items[i].state;
            busy |= s == ITEM_LOADING || s == ITEM_SAVING;
            if (s == ITEM_LOADED && n < BATCH_CHUNK)
                pick[n++] = i;
        }
        if (n && !b->stop) {
            pthread_mutex_unlock(&b->lock);
            rc = items_resize(b, pick, n);
            pthread_mutex_lock(&b->lock);
            b->cpu_workers = tsr_ctx_backend(b->job->ctx) == TSR_BACKEND_CPU;
            for (int k = 0; k < n; k++) {
                batch_item *it = &b->items[pick[k]];
                if (it->state == ITEM_RESIZED)
                    b->saves[b->save_tail++] = pick[k];
                else
                    b->in_memory--;
            }
            pthread_cond_broadcast(&b->work);
        }
        batch_report(b, reported, failed, progress);
        if (*reported == b->count || (b->stop && !busy))
            break;
        if (!n || b->stop) {
            /* woken by a worker, or after 0.1 s to look at the stop flag */
            struct timespec until;
            clock_gettime(CLOCK_REALTIME, &until);
            until.tv_nsec += 100000000L;
            if (until.tv_nsec >= 1000000000L)
                until.tv_sec++, until.tv_nsec -= 1000000000L;
            pthread_cond_timedwait(&b->changed, &b->lock, &until);
        }
    }
    for (int i = *reported; i < b->next_load; i++) /* decoded, never resized: a stop */
        if (b->items[i].state == ITEM_LOADED) {
            item_free(&b->items[i]);
            b->items[i].state = ITEM_QUEUED;
            b->in_memory--;
        }
    pthread_mutex_unlock(&b->lock);
    return rc;
}

/* Loads, resizes and saves in[i] -> out[i] for i < count, as described at struct batch, with
 * one worker per CPU thread of the job's context (at most one per input; a worker's context
 * gets the context's threads divided among the workers, which e.g. compress PNG rows). One
 * input runs on the calling thread and the job's context alone. An image that fails
 * (unreadable input, a size or format it cannot have, a failed write) is reported on stderr in
 * one line and counted in *failed; the others are written. *finished receives how many inputs
 * were written or failed: all of them unless a signal stopped the run. Returns 0,
 * TSR_EXIT_INTERRUPTED, or another exit code when the workers cannot start. */
static int resize_all(resize_job *job, const cli_args *args, char **in, char **out, int count,
                      cli_progress *progress, int *finished, int *failed)
{
    int threads = tsr_ctx_threads(job->ctx);
    int nworkers = count < threads ? count : threads, rc = 0;
    batch b;
    memset(&b, 0, sizeof b);
    b.job = job, b.in = in, b.out = out, b.count = count;
    b.max_loaded = 2 * nworkers;
    b.items = calloc((size_t)count, sizeof *b.items);
    b.saves = calloc((size_t)count, sizeof *b.saves);
    batch_worker *workers = calloc((size_t)nworkers, sizeof *workers);
    *finished = 0;
    if (!b.items || !b.saves || !workers) {
        cli_error(job->cmd, "out of memory");
        rc = TSR_EXIT_FAILURE;
    } else if (nworkers <= 1) {
        /* one after the other, here: load, resize, save */
        for (int i = 0; i < count && rc == 0 && !cli_stop_requested(); i++) {
            b.next_load = i + 1;
            b.items[i].state = item_load(&b, job->ctx, i);
            if (b.items[i].state == ITEM_LOADED && (rc = items_resize(&b, &i, 1)) == 0 &&
                b.items[i].state == ITEM_RESIZED)
                b.items[i].state = item_save(&b, job->ctx, i);
            batch_report(&b, finished, failed, progress);
        }
    } else {
        pthread_mutex_init(&b.lock, NULL);
        pthread_cond_init(&b.work, NULL);
        pthread_cond_init(&b.changed, NULL);
        int started = 0;
        for (; started < nworkers && rc == 0; started++) {
            workers[started].b = &b;
            cli_block_cache_init(&workers[started].cache);
            rc = cli_open_worker_context(job->cmd, args, threads / nworkers,
                                         &workers[started].cache, &workers[started].ctx);
            if (rc == 0 && pthread_create(&workers[started].thread, NULL, worker_run,
                                          &workers[started]) != 0) {
                cli_error(job->cmd, "cannot start a worker thread");
                rc = TSR_EXIT_FAILURE;
            }
            if (rc) {
                tsr_ctx_destroy(workers[started].ctx);
                cli_block_cache_release(&workers[started].cache);
                break;
            }
        }
        if (rc == 0)
            rc = batch_resize_loop(&b, finished, failed, progress);
        pthread_mutex_lock(&b.lock);
        b.quit = 1;
        pthread_cond_broadcast(&b.work);
        pthread_mutex_unlock(&b.lock);
        for (int k = 0; k < started; k++) {
            pthread_join(workers[k].thread, NULL);
            tsr_ctx_destroy(workers[k].ctx);
            cli_block_cache_release(&workers[k].cache);
        }
        pthread_cond_destroy(&b.changed);
        pthread_cond_destroy(&b.work);
        pthread_mutex_destroy(&b.lock);
    }
    free(workers);
    free(b.saves);
    free(b.items);
    return rc;
}

static int is_directory(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 && S_ISDIR(sb.st_mode);
}

/* out = dir + "/" + basename(in); returns 0 when it does not fit. */
static int output_path(char *out, size_t cap, const char *dir, const char *in)
{
    char tmp[4096];
    if (snprintf(tmp, sizeof tmp, "%s", in) >= (int)sizeof tmp)
        return 0;
    return snprintf(out, cap, "%s/%s", dir, basename(tmp)) < (int)cap;
}

static int run_resize(const cli_command *cmd, int argc, char **argv)
{
    cli_args args;
    int rc = cli_parse(cmd, argc, argv, &args);
    if (rc)
        return rc < 0 ? TSR_EXIT_OK : rc;

    resize_job job;
    memset(&job, 0, sizeof job);
    job.cmd = cmd;
    tsr_resize_options_init(&job.opt);
    tsr_save_options_init(&job.save);
    job.json = cli_get(cmd, &args, "json") != NULL;
    job.quiet = cli_get(cmd, &args, "quiet") != NULL;

    if (args.npositional < 2) {
        cli_error(cmd, "needs an input and an output (see 'tessera resize --help')");
        return TSR_EXIT_USAGE;
    }
    const char *size = cli_get(cmd, &args, "size"), *scale = cli_get(cmd, &args, "scale"),
               *width = cli_get(cmd, &args, "width"), *height = cli_get(cmd, &args, "height");
    if ((size != NULL) + (scale != NULL) + (width || height) != 1) {
        cli_error(cmd, "give exactly one of --size WxH, --scale F and --width/--height");
        return TSR_EXIT_USAGE;
    }
    if (size && !cli_parse_size_aspect(size, INT32_MAX, &job.width, &job.height)) {
        cli_error(cmd, "--size wants WxH, Wx or xH with positive integers below 2^31, not '%s'",
                  size);
        return TSR_EXIT_USAGE;
    }
    long long side;
    if (width && !cli_parse_int(width, 1, INT32_MAX, &side)) {
        cli_error(cmd, "--width wants a positive integer below 2^31, not '%s'", width);
        return TSR_EXIT_USAGE;
    }
    job.width = width ? (int32_t)side : job.width;
    if (height && !cli_parse_int(height, 1, INT32_MAX, &side)) {
        cli_error(cmd, "--height wants a positive integer below 2^31, not '%s'", height);
        return TSR_EXIT_USAGE;
    }
    job.height = height ? (int32_t)side : job.height;
    if (scale) {
        if (!cli_parse_double_pair(scale, 1e-300, 1e300, &job.fx, &job.fy)) {
            cli_error(cmd, "--scale wants F or FX,FY with positive finite numbers, not '%s'",
                      scale);
            return TSR_EXIT_USAGE;
        }
        job.opt.scale_x = job.fx;
        job.opt.scale_y = job.fy;
    }
    job.has_size = size || width || height;
    const char *interp = cli_get(cmd, &args, "interp");
    if (interp && tsr_interp_parse(interp, &job.opt.interp) != TSR_OK) {
        cli_error(cmd,
                  "unknown --interp '%s' (nearest, linear, cubic, area, lanczos4, "
                  "linear-exact)",
                  interp);
        return TSR_EXIT_USAGE;
    }
    const char *quality = cli_get(cmd, &args, "quality");
    if ((rc = cli_image_save_options(cmd, &args, &job.save)) != 0)
        return rc;

    /* One input and an output that is not a folder: single image. Otherwise the last argument
     * is a folder (created if missing) that receives every input under its own name. */
    int ninputs = args.npositional - 1;
    const char *last = args.positional[ninputs];
    int batch = ninputs > 1 || is_directory(last);
    char **outs = calloc((size_t)ninputs, sizeof *outs);
    if (!outs) {
        cli_error(cmd, "out of memory");
        return TSR_EXIT_FAILURE;
    }
    rc = 0;
    if (batch) {
        if (!is_directory(last) && mkdir(last, 0777) != 0) {
            cli_error(cmd, "cannot create output folder '%s': %s", last, strerror(errno));
            rc = TSR_EXIT_FAILURE;
        }
        for (int i = 0; i < ninputs && rc == 0; i++) {
            char path[4096];
            if (!output_path(path, sizeof path, last, args.positional[i]) ||
                !(outs[i] = strdup(path))) {
                cli_error(cmd, "output path for '%s' is too long", args.positional[i]);
                rc = TSR_EXIT_USAGE;
            }
            for (int j = 0; j < i && rc == 0; j++)
                if (strcmp(outs[j], outs[i]) == 0) {
                    cli_error(cmd, "inputs '%s' and '%s' would both be written to '%s'",
                              args.positional[j], args.positional[i], outs[i]);
                    rc = TSR_EXIT_USAGE;
                }
        }
    } else if (!(outs[0] = strdup(last))) {
        rc = TSR_EXIT_FAILURE;
    }

    if (rc == 0)
        rc = cli_open_image_context(cmd, &args, job.quiet || job.json, &job.ctx);
    cli_output *checks = rc == 0 ? calloc((size_t)ninputs, sizeof *checks) : NULL;
    if (rc == 0 && !checks) {
        cli_error(cmd, "out of memory");
        rc = TSR_EXIT_FAILURE;
    }
    for (int i = 0; i < ninputs && rc == 0; i++)
        checks[i] = (cli_output){outs[i], "output", CLI_WRITES_IMAGE, TSR_FILE_NONE, 0, 0};
    int any_lossy = 0; /* --quality is for JPEG and WebP outputs: one named so, or one without
                        * an extension (the input's format, which may be JPEG or WebP) */
    for (int i = 0; i < ninputs && rc == 0; i++)
        any_lossy |= (CLI_QUALITY_FORMATS & TSR_FILE_BIT(tsr_file_type_of(outs[i]))) ||
                     tsr_file_type_of(outs[i]) == TSR_FILE_NONE;
    if (rc == 0 && quality && !any_lossy) {
        cli_error(cmd, "--quality applies to JPEG (.jpg, .jpeg) and WebP (.webp) outputs only");
        rc = TSR_EXIT_USAGE;
    }
    if (rc == 0)
        rc = cli_check_outputs(cmd, job.ctx, (const char *const *)args.positional, ninputs, checks,
                               ninputs, cli_get(cmd, &args, "overwrite") != NULL);
    free(checks);
    if (rc == 0) {
        if (job.json) {
            printf("{\"command\": \"resize\", \"interp\": \"%s\", \"backend\": \"%s\", "
                   "\"device\": ",
                   tsr_interp_name(job.opt.interp), tsr_backend_name(tsr_ctx_backend(job.ctx)));
            cli_json_string(stdout, tsr_ctx_device_name(job.ctx));
            printf(", \"images\": [");
        }
        cli_progress progress;
        cli_progress_init(&progress, job.quiet || !batch);
        cli_stop_catch();
        int done = 0, failed = 0;
        rc = resize_all(&job, &args, args.positional, outs, ninputs, &progress, &done, &failed);
        cli_stop_release();
        cli_progress_end(&progress);
        if (rc == 0 && done < ninputs) {
            cli_error(cmd, "interrupted after %d of %d images (those are written)", done, ninputs);
            rc = TSR_EXIT_INTERRUPTED;
        }
        if (rc == 0 && failed) {
            if (batch)
                cli_error(cmd, "%d of %d images failed (the others are written)", failed, ninputs);
            rc = TSR_EXIT_FAILURE;
        }
        if (job.json) {
            printf("\n  ], \"failed\": %d, \"backend_reason\": ", failed);
            cli_json_string(stdout, tsr_ctx_backend_reason(job.ctx));
            printf(", \"ok\": %s}\n", rc == 0 ? "true" : "false");
        }
        if (rc == 0)
            cli_note_backend(cmd, job.ctx, job.quiet || job.json);
    }
    tsr_ctx_destroy(job.ctx);
    for (int i = 0; i < ninputs; i++)
        free(outs[i]);
    free(outs);
    return rc;
}

const cli_command cli_cmd_resize = {
    "resize",
    "resize images, bit-identical to OpenCV's cv::resize, on CPU, CUDA or OpenCL",
    "IN OUT (--size WxH | --scale F[,FY] | --width W | --height H) [options]\n"
    "       tessera resize IN... FOLDER (--size WxH | --scale F[,FY] | ...) [options]",
    "Resizes IN into OUT with OpenCV's cv::resize arithmetic (the C++ path, IPP off): for 8- "
    "and 16-bit images the output is bit-identical to OpenCV 4.6 for every interpolation and "
    "backend (and float images, e.g. from PFM or TIFF, are resized in float). Input formats "
    "(PNG, JPEG, PBM/PGM/PPM, PAM, PFM, TIFF, WebP, BMP, JPEG 2000 JP2/J2K) are recognised by "
    "content; IN may be \"-\" (standard input). OUT's extension chooses the output format: "
    ".png, .jpg/.jpeg, .pgm (gray), .ppm (colour), .pnm (either), .pam, .pfm (float), "
    ".tif/.tiff, .webp (lossless unless --quality), .bmp, .jp2, .j2k/.j2c (lossless JPEG "
    "2000); any other extension is an error, and OUT without one (\"-\" for standard output) "
    "gets the input's format (PNG for JPEG 2000 inputs). What the output format cannot hold "
    "is converted with a one-line note on stderr: 16-bit samples into 8-bit formats (JPEG, "
    "WebP, BMP) round to 8 bits, alpha is dropped where the format has none (JPEG, PNM, PFM), "
    "integer samples into PFM become 0..1 floats and floats into integer formats are clamped "
    "to 0..1 and scaled. An output that is the input "
    "file is refused unless --overwrite. With several inputs, or when the last argument is a "
    "folder, every input is written into that folder under its own file name: the inputs are "
    "decoded and the outputs encoded on --threads workers, at most two images a worker in "
    "memory at once, while the decoded ones are resized in batches (on the GPU, transfers of "
    "one image overlap the kernels of another); an input that fails is reported on stderr (one "
    "line each) and the others are written, with exit status 1 at the end. Files appear only "
    "when complete (written to a temporary file, then renamed; standard output, devices and "
    "FIFOs are written directly).",
    resize_options,
    "  tessera resize photo.jpg small.png --size 640x480\n"
    "  tessera resize photo.tif thumb.webp --size 200x\n"
    "  tessera resize scan.pfm small.pfm --height 300 --interp area\n"
    "  tessera resize scan.png half.png --scale 0.5 --interp area\n"
    "  tessera resize frame.ppm wide.ppm --scale 2,1 --interp lanczos4 --backend cpu\n"
    "  tessera resize a.jpg b.jpg c.png thumbs/ --size 256x256 --json\n"
    "  tessera resize survey.png quarter.png --scale 0.25 --max-pixels 1000000000",
    run_resize};
