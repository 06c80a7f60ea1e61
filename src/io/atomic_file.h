/* File output. A new file, or an existing regular file, is written atomically: the bytes go to
 * a temporary file in the destination's folder, which is flushed (and synced when asked) and
 * renamed over the destination only when complete. Whatever fails, the destination is either
 * untouched or the complete new file, and the temporary file is gone. A symlink is followed to its
 * target, which is the file replaced (the link stays); an existing file keeps its permission bits
 * (and its owner where the process may set it); a read-only file is refused, as shells and cp do.
 * Standard output ("-", /dev/stdout, /dev/fd/N, /proc/self/fd/N) and other files that are not
 * regular (devices such as /dev/null, FIFOs, sockets) cannot be replaced: the bytes are
 * written to them directly, so a failure there can leave part of the output behind.
 *
 * Use: tsr__atomic_open, then tsr__atomic_write any number of times, then exactly one of
 * tsr__atomic_commit or tsr__atomic_abort (commit aborts by itself when it fails). */
#ifndef TSR_IO_ATOMIC_FILE_H
#define TSR_IO_ATOMIC_FILE_H

#include "core/ctx.h"
#include "tessera/io.h"

#include <stdio.h>

typedef struct tsr__atomic_file {
    char *path;       /* the destination as given, for messages (a copy; context allocator) */
    char *dest;       /* what is renamed over: path with symlinks followed (NULL: streamed) */
    char *temp_path;  /* "<folder>/.<name>.tmp-<pid>-<n>" */
    FILE *fp;         /* open on the temporary file; NULL once closed */
    int created;      /* temp_path exists and is ours to remove */
    int write_failed; /* a write failed: commit refuses */
    int stream;       /* written directly (TSR_OUTPUT_STREAM): no temporary file */
    int sync;         /* the caller's choice after open: fsync the file and its folder at
                         commit (durability after a power loss; 0 after open) */
} tsr__atomic_file;

/* Creates the temporary file beside path (mode 0666 less the umask, like a plain fopen).
 * On failure nothing is left on disk and *af needs no abort. */
tsr_status tsr__atomic_open(tsr_ctx *ctx, const char *path, tsr__atomic_file *af);
/* Appends len bytes; TSR_ERR_IO (with errno's text) when the system refuses. */
tsr_status tsr__atomic_write(tsr_ctx *ctx, tsr__atomic_file *af, const void *data, size_t len);
/* Flushes, closes and renames the temporary file over the destination; with af->sync it first
 * fsyncs the file and afterwards the folder (best effort). On any failure it removes the
 * temporary file and returns TSR_ERR_IO. */
tsr_status tsr__atomic_commit(tsr_ctx *ctx, tsr__atomic_file *af);
/* Closes and removes the temporary file and frees *af's strings; safe to call twice. */
void tsr__atomic_abort(tsr_ctx *ctx, tsr__atomic_file *af);

#endif
