/* The run of tessera resize over its inputs (resize_batch.h). */
#define _POSIX_C_SOURCE 200809L
#include "resize_batch.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *depth_name(tsr_depth d)
{
    return d == TSR_U8 ? "u8" : d == TSR_U16 ? "u16" : "f32";
}

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
                      const tsr_image *dst, double ms, const char *decoder)
{
    if (!job->json)
        return;
    printf("%s\n    {\"input\": ", job->json_items++ ? "," : "");
    cli_json_string(stdout, in);
    printf(", \"output\": ");
    cli_json_string(stdout, out);
    printf(", \"input_size\": [%d, %d], \"output_size\": [%d, %d], \"channels\": %d, "
           "\"depth\": \"%s\", \"decoder\": \"%s\", \"resize_ms\": %.3f}",
           (int)src->width, (int)src->height, (int)dst->width, (int)dst->height, (int)src->channels,
           depth_name(src->depth), decoder, ms);
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
    uint8_t *jpeg;      /* --jpeg-decoder nvjpeg: the JPEG file (malloc), src then holds its
                           size only (data NULL); the GPU decodes it in the resize */
    size_t jpeg_len;
    int gpu_decoded; /* decoded by nvJPEG (for --json) */
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
    free(it->jpeg);
    it->jpeg = NULL;
}

/* With --jpeg-decoder nvjpeg: when input i is a JPEG file (not standard input), reads it whole
 * into it->jpeg and gives it->src its size from the header, leaving the pixels to the GPU.
 * Returns 1 when it did, 0 for an input of another format (decoded as usual), -1 after
 * reporting a failure. */
static int item_read_jpeg(batch *b, tsr_ctx *ctx, int i)
{
    resize_job *job = b->job;
    batch_item *it = &b->items[i];
    const char *in = b->in[i];
    if (strcmp(in, "-") == 0)
        return 0;
    unsigned char head[4] = {0};
    FILE *f = fopen(in, "rb");
    size_t nhead = f ? fread(head, 1, sizeof head, f) : 0;
    if (f)
        fclose(f);
    if (tsr_format_detect(head, nhead) != TSR_FORMAT_JPEG)
        return 0;
    if (cli_read_file(job->cmd, in, &it->jpeg, &it->jpeg_len) != 0)
        return -1;
    memset(&it->src, 0, sizeof it->src);
    it->src.depth = TSR_U8;
    tsr_status st = tsr_jpeg_info(ctx, it->jpeg, it->jpeg_len, &it->src.width, &it->src.height,
                                  &it->src.channels);
    if (st != TSR_OK) {
        cli_fail(job->cmd, ctx, st, in);
        free(it->jpeg);
        it->jpeg = NULL;
        return -1;
    }
    it->format = TSR_FORMAT_JPEG;
    return 1;
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
    int gpu = job->nvjpeg ? item_read_jpeg(b, ctx, i) : 0;
    if (gpu < 0 || (!gpu && cli_image_load(job->cmd, ctx, in, &it->src, &it->format, job->quiet)))
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

/* One batch call on the job's context over the n items pick, all of one kind: JPEG files for
 * the GPU (tsr_resize_jpeg_batch) or decoded images (tsr_resize_batch). */
static tsr_status resize_call(batch *b, const int *pick, int n)
{
    resize_job *job = b->job;
    tsr_image src[BATCH_CHUNK], dst[BATCH_CHUNK];
    const void *bits[BATCH_CHUNK];
    size_t lens[BATCH_CHUNK];
    for (int k = 0; k < n; k++) {
        const batch_item *it = &b->items[pick[k]];
        src[k] = it->src;
        dst[k] = it->dst;
        bits[k] = it->jpeg;
        lens[k] = it->jpeg_len;
    }
    if (b->items[pick[0]].jpeg)
        return tsr_resize_jpeg_batch(job->ctx, bits, lens, dst, (size_t)n, &job->opt, NULL);
    return tsr_resize_batch(job->ctx, src, dst, (size_t)n, &job->opt, NULL);
}

/* Resizes the n items pick of one kind (resize_call) in one batch; each becomes ITEM_RESIZED
 * or ITEM_FAILED (reported; its images freed). When the batch call fails, each image is
 * resized alone, so that the report names the ones at fault. Returns 0, TSR_EXIT_INTERRUPTED
 * once a signal stopped the work, or the exit code of a failure no image can escape (nvJPEG
 * or the GPU missing, reported once); then none is resized. */
static int items_resize_kind(batch *b, const int *pick, int n)
{
    resize_job *job = b->job;
    int resized[BATCH_CHUNK] = {0};
    int rc = 0;
    double t0 = cli_now();
    tsr_status st = resize_call(b, pick, n);
    if (st == TSR_OK) {
        for (int k = 0; k < n; k++)
            resized[k] = 1;
    } else if (st == TSR_ERR_INTERRUPTED || st == TSR_ERR_NO_BACKEND) {
        rc = cli_fail(job->cmd, job->ctx, st, NULL);
    } else {
        for (int k = 0; k < n && rc == 0; k++) {
            if ((st = resize_call(b, &pick[k], 1)) == TSR_OK)
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
        it->gpu_decoded = it->jpeg != NULL;
        if (rc == 0 && resized[k]) {
            it->state = ITEM_RESIZED;
            free(it->jpeg);
            it->jpeg = NULL;
        } else {
            item_free(it);
            it->state = rc == 0 ? ITEM_FAILED : ITEM_QUEUED; /* interrupted: not done */
        }
    }
    return rc;
}

/* Resizes the n loaded items `pick`: the JPEG files for the GPU in one batch, then the decoded
 * images in another (so that the context's backend afterwards is the decoded images'), as
 * items_resize_kind. Takes no lock: the items are the caller's while ITEM_LOADED. */
static int items_resize(batch *b, const int *pick, int n)
{
    int gpu[BATCH_CHUNK], host[BATCH_CHUNK], ngpu = 0, nhost = 0, rc = 0;
    for (int k = 0; k < n; k++) {
        if (b->items[pick[k]].jpeg)
            gpu[ngpu++] = pick[k];
        else
            host[nhost++] = pick[k];
    }
    if (ngpu)
        rc = items_resize_kind(b, gpu, ngpu);
    if (nhost && rc == 0)
        rc = items_resize_kind(b, host, nhost);
    else if (nhost)
        for (int k = 0; k < nhost; k++) { /* not done */
            item_free(&b->items[host[k]]);
            b->items[host[k]].state = ITEM_QUEUED;
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
        if (next == ITEM_LOADED && b->cpu_workers && !b->stop && !b->items[i].jpeg) {
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
            json_item(b->job, b->in[*reported], b->out[*reported], &it->src, &it->dst, it->ms,
                      it->gpu_decoded ? "nvjpeg" : "cpu");
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
int resize_all(resize_job *job, const cli_args *args, char **in, char **out, int count,
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
