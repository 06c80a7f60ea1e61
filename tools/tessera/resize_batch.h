/* tessera resize's run over its inputs (resize_batch.c): one image on the calling thread, or many
 * through a pipeline of worker threads that decode and encode while the calling thread resizes. */
#ifndef TSR_TOOLS_RESIZE_BATCH_H
#define TSR_TOOLS_RESIZE_BATCH_H

#include "cli.h"

/* What cmd_resize.c parsed: the options every image of the run shares. */
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
    int nvjpeg; /* --jpeg-decoder nvjpeg: JPEG inputs decoded on the GPU (tsr_resize_jpeg_batch) */
} resize_job;

/* Loads, resizes and saves in[i] -> out[i] for i < count, as described at struct batch
 * (resize_batch.c), with one worker per CPU thread of the job's context (at most one per input; a
 * worker's context gets the context's threads divided among the workers, which e.g. compress PNG
 * rows). One input runs on the calling thread and the job's context alone. An image that fails
 * (unreadable input, a size or format it cannot have, a failed write) is reported on stderr in
 * one line and counted in *failed; the others are written. *finished receives how many inputs
 * were written or failed: all of them unless a signal stopped the run. Returns 0,
 * TSR_EXIT_INTERRUPTED, or another exit code when the workers cannot start. */
int resize_all(resize_job *job, const cli_args *args, char **in, char **out, int count,
               cli_progress *progress, int *finished, int *failed);

#endif
