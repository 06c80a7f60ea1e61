/* Atomic file output through a temporary file and rename(2) (see atomic_file.h). */
#include "io/atomic_file.h"

#include "core/checked.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Distinguishes temporary names made by different calls in one process. */
static atomic_uint temp_counter;

/* Copies s into a new string from the context's allocator. */
static tsr_status dup_string(tsr_ctx *ctx, const char *s, size_t extra, char **out)
{
    size_t n = strlen(s), size;
    void *p;
    if (!tsr__size_add(n, extra + 1, &size))
        return tsr__fail(ctx, TSR_ERR_OVERFLOW, "path of %zu bytes is too long", n);
    tsr_status st = tsr__alloc(ctx, size, &p);
    if (st != TSR_OK)
        return st;
    memcpy(p, s, n + 1);
    *out = p;
    return TSR_OK;
}

tsr_status tsr__atomic_open(tsr_ctx *ctx, const char *path, tsr__atomic_file *af)
{
    memset(af, 0, sizeof *af);
    if (!path || !*path)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT, "output path is empty");
    const char *slash = strrchr(path, '/');
    const char *name = slash ? slash + 1 : path;
    if (!*name)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT, "output path '%s' names a folder", path);
    tsr_status st = dup_string(ctx, path, 0, &af->path);
    if (st != TSR_OK)
        return st;
    /* ".<name>.tmp-<pid>-<counter>": a hidden name in the same folder, so that rename(2) stays
     * within one file system. 48 bytes cover the dot and the decimal suffix. */
    size_t folder_len = (size_t)(name - path);
    st = dup_string(ctx, path, 48, &af->temp_path);
    if (st != TSR_OK) {
        tsr__atomic_abort(ctx, af);
        return st;
    }
    for (int attempt = 0;; attempt++) {
        unsigned n = atomic_fetch_add(&temp_counter, 1u);
        snprintf(af->temp_path + folder_len, strlen(name) + 49, ".%s.tmp-%ld-%u", name,
                 (long)getpid(), n);
        int fd = open(af->temp_path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd < 0) {
            int e = errno;
            if (e == EEXIST && attempt < 100)
                continue;
            st = tsr__fail(ctx, TSR_ERR_IO, "cannot create a temporary file for '%s': %s", path,
                           strerror(e));
            tsr__atomic_abort(ctx, af); /* created is 0: nothing is removed */
            return st;
        }
        af->created = 1;
        af->fp = fdopen(fd, "wb");
        if (!af->fp) {
            int e = errno;
            close(fd);
            st = tsr__fail(ctx, TSR_ERR_IO, "cannot open a stream for '%s': %s", path, strerror(e));
            tsr__atomic_abort(ctx, af);
            return st;
        }
        return TSR_OK;
    }
}

tsr_status tsr__atomic_write(tsr_ctx *ctx, tsr__atomic_file *af, const void *data, size_t len)
{
    if (af->write_failed || !af->fp)
        return tsr__fail(ctx, TSR_ERR_IO, "writing '%s' after an earlier failure", af->path);
    if (len && fwrite(data, 1, len, af->fp) != len) {
        af->write_failed = 1;
        return tsr__fail(ctx, TSR_ERR_IO, "cannot write '%s': %s", af->path, strerror(errno));
    }
    return TSR_OK;
}

/* Syncs the folder holding path so that the rename itself is durable; failures are ignored
 * (some file systems refuse fsync on folders). */
static void sync_folder(const char *path)
{
    char folder[4096];
    const char *slash = strrchr(path, '/');
    if (!slash) {
        snprintf(folder, sizeof folder, ".");
    } else {
        size_t n = (size_t)(slash - path);
        if (n == 0)
            n = 1; /* "/name": the root folder */
        if (n >= sizeof folder)
            return;
        memcpy(folder, path, n);
        folder[n] = '\0';
    }
    int fd = open(folder, O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        (void)fsync(fd);
        close(fd);
    }
}

tsr_status tsr__atomic_commit(tsr_ctx *ctx, tsr__atomic_file *af)
{
    tsr_status st = TSR_OK;
    if (af->write_failed || !af->fp) {
        st = tsr__fail(ctx, TSR_ERR_IO, "not committing '%s' after a failed write", af->path);
    } else if (fflush(af->fp) != 0) {
        st = tsr__fail(ctx, TSR_ERR_IO, "cannot write '%s': %s", af->path, strerror(errno));
    } else if (fsync(fileno(af->fp)) != 0) {
        st = tsr__fail(ctx, TSR_ERR_IO, "cannot sync '%s': %s", af->path, strerror(errno));
    } else {
        FILE *fp = af->fp;
        af->fp = NULL;
        if (fclose(fp) != 0)
            st = tsr__fail(ctx, TSR_ERR_IO, "cannot close '%s': %s", af->path, strerror(errno));
        else if (rename(af->temp_path, af->path) != 0)
            st = tsr__fail(ctx, TSR_ERR_IO, "cannot rename the temporary file onto '%s': %s",
                           af->path, strerror(errno));
    }
    if (st != TSR_OK) {
        tsr__atomic_abort(ctx, af);
        return st;
    }
    sync_folder(af->path);
    tsr__free(ctx, af->path);
    tsr__free(ctx, af->temp_path);
    memset(af, 0, sizeof *af);
    return TSR_OK;
}

void tsr__atomic_abort(tsr_ctx *ctx, tsr__atomic_file *af)
{
    if (af->fp) {
        fclose(af->fp);
        af->fp = NULL;
    }
    if (af->created) /* only a file this writer created (a failed O_EXCL open made none) */
        unlink(af->temp_path);
    tsr__free(ctx, af->path);
    tsr__free(ctx, af->temp_path);
    memset(af, 0, sizeof *af);
}
