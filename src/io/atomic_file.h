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

#include <stdio.h>
#include <sys/types.h>

/* How tsr__atomic_open will write a path (tsr__output_probe). */
typedef enum tsr__output_kind {
    TSR__OUTPUT_NEW = 1, /* nothing there yet: temporary file, then rename */
    TSR__OUTPUT_REPLACE, /* a regular file (a symlink's target): temporary file, then rename */
    TSR__OUTPUT_STREAM   /* standard output or a file that is not regular: written directly */
} tsr__output_kind;

typedef struct tsr__atomic_file {
    char *path;       /* the destination as given, for messages (a copy; context allocator) */
    char *dest;       /* what is renamed over: path with symlinks followed (NULL: streamed) */
    char *temp_path;  /* "<folder>/.<name>.tmp-<pid>-<n>" */
    FILE *fp;         /* open on the temporary file; NULL once closed */
    int created;      /* temp_path exists and is ours to remove */
    int write_failed; /* a write failed: commit refuses */
    int stream;       /* written directly (TSR__OUTPUT_STREAM): no temporary file */
    int sync;         /* the caller's choice after open: fsync the file and its folder at
                         commit (durability after a power loss; 0 after open) */
} tsr__atomic_file;

/* Checks, writing nothing, that path can be written as tsr__atomic_open would: "-"; an
 * existing file that is not a folder and that the process may write, and for a regular file
 * whose folder it may create files in; or a new name (a dangling symlink's target) in an
 * existing folder it may create files in. kind (may be NULL) receives how it would be written.
 * Fails with TSR_ERR_IO and "PATH: reason". */
tsr_status tsr__output_probe(tsr_ctx *ctx, const char *path, tsr__output_kind *kind);
/* What a name stands for, to tell whether two names are one file: an existing regular file's
 * device and inode (after symlinks), or a new name's folder (device and inode) and last
 * component. */
typedef struct tsr__file_identity {
    dev_t dev;
    ino_t ino;
    char name[256]; /* "" for an existing file */
} tsr__file_identity;
/* Fills *id and returns 1, or returns 0 when path is neither ("-", a device, a FIFO, a name
 * that cannot be resolved). */
int tsr__file_identify(const char *path, tsr__file_identity *id);
/* Orders identities (for sorting); 0 when they are one file. */
int tsr__file_identity_compare(const tsr__file_identity *a, const tsr__file_identity *b);
/* 1 when a and b name one file: the same existing regular file (device and inode, after
 * symlinks), the same new name in the same folder, or both "-"; else 0. */
int tsr__same_file(const char *a, const char *b);

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
