/* File output: atomic through a temporary file and rename(2), or direct to standard output and
 * files that are not regular (see atomic_file.h). */
#define _POSIX_C_SOURCE 200809L
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

/* Standard output by name: "-", or a name that the system resolves to a descriptor of this
 * process, which must be written, never replaced (the rename would land on whatever the
 * descriptor's file is, or fail). */
static int names_stdout(const char *path)
{
    return strcmp(path, "-") == 0 || strcmp(path, "/dev/stdout") == 0 ||
           strcmp(path, "/dev/stderr") == 0 || strncmp(path, "/dev/fd/", 8) == 0 ||
           strncmp(path, "/proc/self/fd/", 14) == 0;
}

/* The folder part of path ("." for a bare name, "/" for "/name") into buf. */
static int folder_of(const char *path, char *buf, size_t cap)
{
    const char *slash = strrchr(path, '/');
    size_t n = !slash ? 0 : slash == path ? 1 : (size_t)(slash - path);
    if (!slash)
        return snprintf(buf, cap, ".") < (int)cap;
    if (n >= cap)
        return 0;
    memcpy(buf, path, n);
    buf[n] = '\0';
    return 1;
}

/* Where writing path creates or replaces a file: path itself, or the end of its chain of
 * symlinks (the link is kept and its target written), into buf. Returns 0 and sets errno when
 * the chain cannot be followed (ELOOP, ENAMETOOLONG, ...). */
static int follow_links(const char *path, char *buf, size_t cap)
{
    if (snprintf(buf, cap, "%s", path) >= (int)cap)
        return errno = ENAMETOOLONG, 0;
    for (int hops = 0; hops < 40; hops++) {
        struct stat lsb;
        if (lstat(buf, &lsb) != 0 || !S_ISLNK(lsb.st_mode))
            return 1; /* not a link (or nothing there): this is the file */
        char link[4096], folder[4096];
        ssize_t n = readlink(buf, link, sizeof link - 1);
        if (n < 0)
            return 0;
        link[n] = '\0';
        if (link[0] == '/' || !folder_of(buf, folder, sizeof folder)) {
            if (snprintf(buf, cap, "%s", link) >= (int)cap)
                return errno = ENAMETOOLONG, 0;
        } else if (snprintf(buf, cap, "%s/%s", folder, link) >= (int)cap) {
            return errno = ENAMETOOLONG, 0;
        }
    }
    return errno = ELOOP, 0;
}

tsr_status tsr_output_probe(tsr_ctx *ctx, const char *path, tsr_output_kind *kind)
{
    tsr_output_kind k = TSR_OUTPUT_NEW;
    if (!path || !*path)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT, "output path is empty");
    char target[4096], folder[4096];
    struct stat sb;
    if (names_stdout(path)) {
        k = TSR_OUTPUT_STREAM;
    } else if (path[strlen(path) - 1] == '/') {
        return tsr__fail(ctx, TSR_ERR_IO, "%s: names a folder, not a file", path);
    } else if (!follow_links(path, target, sizeof target)) {
        return tsr__fail(ctx, TSR_ERR_IO, "%s: %s", path, strerror(errno));
    } else if (stat(target, &sb) == 0) {
        if (S_ISDIR(sb.st_mode))
            return tsr__fail(ctx, TSR_ERR_IO, "%s: is a folder, not a file", path);
        if (access(target, W_OK) != 0)
            return tsr__fail(ctx, TSR_ERR_IO, "%s: cannot write: %s", path, strerror(errno));
        k = S_ISREG(sb.st_mode) ? TSR_OUTPUT_REPLACE : TSR_OUTPUT_STREAM;
    } else if (errno != ENOENT) {
        return tsr__fail(ctx, TSR_ERR_IO, "%s: %s", path, strerror(errno));
    }
    if (k != TSR_OUTPUT_STREAM) {
        if (!folder_of(target, folder, sizeof folder))
            return tsr__fail(ctx, TSR_ERR_IO, "%s: path too long", path);
        if (stat(folder, &sb) != 0)
            return tsr__fail(ctx, TSR_ERR_IO, "%s: folder '%s': %s", path, folder, strerror(errno));
        if (!S_ISDIR(sb.st_mode))
            return tsr__fail(ctx, TSR_ERR_IO, "%s: '%s' is not a folder", path, folder);
        if (access(folder, W_OK | X_OK) != 0)
            return tsr__fail(ctx, TSR_ERR_IO, "%s: cannot create files in '%s': %s", path, folder,
                             strerror(errno));
    }
    if (kind)
        *kind = k;
    return TSR_OK;
}

int tsr_file_identify(const char *path, tsr_file_identity *id)
{
    char target[4096], folder[4096];
    struct stat sb;
    memset(id, 0, sizeof *id);
    if (strcmp(path, "-") == 0 || !follow_links(path, target, sizeof target))
        return 0;
    if (stat(target, &sb) == 0) {
        if (!S_ISREG(sb.st_mode))
            return 0;
    } else {
        const char *slash = strrchr(target, '/');
        const char *name = slash ? slash + 1 : target;
        if (errno != ENOENT || !folder_of(target, folder, sizeof folder) ||
            snprintf(id->name, sizeof id->name, "%s", name) >= (int)sizeof id->name ||
            stat(folder, &sb) != 0)
            return 0;
    }
    id->dev = sb.st_dev;
    id->ino = sb.st_ino;
    return 1;
}

int tsr_file_identity_compare(const tsr_file_identity *a, const tsr_file_identity *b)
{
    if (a->dev != b->dev)
        return a->dev < b->dev ? -1 : 1;
    if (a->ino != b->ino)
        return a->ino < b->ino ? -1 : 1;
    return strcmp(a->name, b->name);
}

int tsr_same_file(const char *a, const char *b)
{
    if (!a || !b)
        return 0;
    if (strcmp(a, "-") == 0 || strcmp(b, "-") == 0)
        return strcmp(a, b) == 0;
    tsr_file_identity ia, ib;
    return tsr_file_identify(a, &ia) && tsr_file_identify(b, &ib) &&
           tsr_file_identity_compare(&ia, &ib) == 0;
}

/* Opens path for writing directly (standard output, a device, a FIFO). */
static tsr_status open_stream(tsr_ctx *ctx, const char *path, tsr__atomic_file *af)
{
    int fd = strcmp(path, "-") == 0 ? dup(STDOUT_FILENO) : open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return tsr__fail(ctx, TSR_ERR_IO, "%s: cannot open for writing: %s", path, strerror(errno));
    af->fp = fdopen(fd, "wb");
    if (!af->fp) {
        int e = errno;
        close(fd);
        return tsr__fail(ctx, TSR_ERR_IO, "%s: cannot open a stream: %s", path, strerror(e));
    }
    af->stream = 1;
    return TSR_OK;
}

tsr_status tsr__atomic_open(tsr_ctx *ctx, const char *path, tsr__atomic_file *af)
{
    memset(af, 0, sizeof *af);
    tsr_output_kind kind;
    tsr_status st = tsr_output_probe(ctx, path, &kind);
    if (st != TSR_OK)
        return st;
    if ((st = dup_string(ctx, path, 0, &af->path)) != TSR_OK)
        return st;
    if (kind == TSR_OUTPUT_STREAM) {
        if ((st = open_stream(ctx, path, af)) != TSR_OK)
            tsr__atomic_abort(ctx, af);
        return st;
    }
    char target[4096];
    struct stat old;
    int replacing = 0;
    if (!follow_links(path, target, sizeof target)) {
        st = tsr__fail(ctx, TSR_ERR_IO, "%s: %s", path, strerror(errno));
        tsr__atomic_abort(ctx, af);
        return st;
    }
    if (kind == TSR_OUTPUT_REPLACE && stat(target, &old) == 0 && S_ISREG(old.st_mode))
        replacing = 1;
    if ((st = dup_string(ctx, target, 0, &af->dest)) != TSR_OK) {
        tsr__atomic_abort(ctx, af);
        return st;
    }
    const char *slash = strrchr(target, '/');
    const char *name = slash ? slash + 1 : target;
    /* ".<name>.tmp-<pid>-<counter>": a hidden name in the same folder, so that rename(2) stays
     * within one file system. 48 bytes cover the dot and the decimal suffix. */
    size_t folder_len = (size_t)(name - target);
    st = dup_string(ctx, target, 48, &af->temp_path);
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
        if (replacing) { /* the replaced file's permission bits, and owner where allowed */
            (void)fchmod(fd, old.st_mode & 07777);
            if (fchown(fd, old.st_uid, old.st_gid) != 0)
                (void)fchmod(fd, old.st_mode & 0777);
        }
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
    } else if (af->stream) {
        FILE *fp = af->fp; /* nothing to sync or rename: the bytes are where they go */
        af->fp = NULL;
        if (fclose(fp) != 0)
            st = tsr__fail(ctx, TSR_ERR_IO, "cannot close '%s': %s", af->path, strerror(errno));
    } else if (af->sync && fsync(fileno(af->fp)) != 0) {
        st = tsr__fail(ctx, TSR_ERR_IO, "cannot sync '%s': %s", af->path, strerror(errno));
    } else {
        FILE *fp = af->fp;
        af->fp = NULL;
        if (fclose(fp) != 0)
            st = tsr__fail(ctx, TSR_ERR_IO, "cannot close '%s': %s", af->path, strerror(errno));
        else if (rename(af->temp_path, af->dest) != 0)
            st = tsr__fail(ctx, TSR_ERR_IO, "cannot rename the temporary file onto '%s': %s",
                           af->path, strerror(errno));
    }
    if (st != TSR_OK) {
        tsr__atomic_abort(ctx, af);
        return st;
    }
    if (!af->stream && af->sync)
        sync_folder(af->dest);
    tsr__free(ctx, af->path);
    tsr__free(ctx, af->dest);
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
    tsr__free(ctx, af->dest);
    tsr__free(ctx, af->temp_path);
    memset(af, 0, sizeof *af);
}
