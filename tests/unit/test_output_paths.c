/* Output names and paths (src/io/format.c, src/io/atomic_file.c): the extension-to-format rule
 * and its messages, the channel rule of .pgm/.ppm, tsr_output_probe on missing folders,
 * folders and special files, tsr_same_file, and the writer's handling of symlinks (target
 * written, link kept), replaced files' modes and FIFOs (written through, not replaced). */
#define _POSIX_C_SOURCE 200809L /* mkdtemp */
#include "testlib.h"

#include "io/atomic_file.h"
#include "tessera/io.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char dir[256];

static const char *at(const char *name)
{
    static char buf[4][512];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/%s", dir, name);
    return buf[k];
}

static void test_format_rule(tsr_ctx *ctx)
{
    CHECK(tsr_file_type_of("a/b.PNG") == TSR_FILE_PNG);
    CHECK(tsr_file_type_of("x.jpeg") == TSR_FILE_JPEG);
    CHECK(tsr_file_type_of("x.pgm") == TSR_FILE_PGM);
    CHECK(tsr_file_type_of("x.PPM") == TSR_FILE_PPM);
    CHECK(tsr_file_type_of("x.graphml") == TSR_FILE_GRAPHML);
    CHECK(tsr_file_type_of("x.webp") == TSR_FILE_WEBP);
    CHECK(tsr_file_type_of("x.gif") == TSR_FILE_OTHER);
    CHECK(tsr_file_type_of("-") == TSR_FILE_NONE);
    CHECK(tsr_file_type_of("out") == TSR_FILE_NONE);
    CHECK(tsr_file_type_of(".png") == TSR_FILE_NONE);
    CHECK(tsr_file_type_of("dir.png/x") == TSR_FILE_NONE);
    CHECK(tsr_file_type_of("x.") == TSR_FILE_NONE);
    CHECK(tsr_format_from_name("x.ppm") == TSR_FORMAT_PNM);
    CHECK(tsr_format_from_name("x.gif") == TSR_FORMAT_UNKNOWN);

    tsr_file_type f = TSR_FILE_NONE;
    CHECK_OK(ctx, tsr_output_format(ctx, "a.Jpg", TSR_WRITES_IMAGE, TSR_FILE_NONE, &f));
    CHECK(f == TSR_FILE_JPEG);
    CHECK_OK(ctx, tsr_output_format(ctx, "-", TSR_WRITES_IMAGE, TSR_FILE_PNG, &f));
    CHECK(f == TSR_FILE_PNG);
    CHECK_STATUS(tsr_output_format(ctx, "r.gif", TSR_WRITES_IMAGE, TSR_FILE_PNG, &f),
                 TSR_ERR_INVALID_ARGUMENT);
    CHECK(strstr(tsr_ctx_last_error(ctx), "r.gif: tessera cannot write .gif files here") != NULL);
    CHECK_STATUS(tsr_output_format(ctx, "r.jp2", TSR_WRITES_IMAGE, TSR_FILE_PNG, &f),
                 TSR_ERR_INVALID_ARGUMENT); /* JPEG 2000 is not tsr_image_save's */
    CHECK_OK(ctx, tsr_output_format(ctx, "r.jp2", TSR_WRITES_IMAGE_J2K, TSR_FILE_PNG, &f));
    CHECK(f == TSR_FILE_JP2);
    CHECK(strstr(tsr_ctx_last_error(ctx), ".png, .jpg") != NULL);
    CHECK_STATUS(tsr_output_format(ctx, "o.json", TSR_FILE_BIT(TSR_FILE_SVG), TSR_FILE_SVG, &f),
                 TSR_ERR_INVALID_ARGUMENT);
    CHECK(strstr(tsr_ctx_last_error(ctx), "(it writes .svg)") != NULL);
    CHECK_STATUS(tsr_output_format(ctx, "out", TSR_WRITES_IMAGE, TSR_FILE_NONE, &f),
                 TSR_ERR_INVALID_ARGUMENT);
    CHECK(strstr(tsr_ctx_last_error(ctx), "no extension") != NULL);

    CHECK_OK(ctx, tsr_file_type_check_channels(ctx, "g.pgm", TSR_FILE_PGM, 1));
    CHECK_STATUS(tsr_file_type_check_channels(ctx, "c.pgm", TSR_FILE_PGM, 3), TSR_ERR_UNSUPPORTED);
    CHECK_STATUS(tsr_file_type_check_channels(ctx, "g.ppm", TSR_FILE_PPM, 1), TSR_ERR_UNSUPPORTED);
    CHECK_OK(ctx, tsr_file_type_check_channels(ctx, "g.pnm", TSR_FILE_PNM, 1));

    /* tsr_image_save follows the rule: colour into .pgm writes nothing */
    tsr_image img;
    CHECK_OK(ctx, tsr_image_alloc(ctx, &img, 4, 4, 3, TSR_U8));
    memset(img.data, 7, img.stride * 4);
    CHECK_STATUS(tsr_image_save(ctx, at("c.pgm"), &img, NULL), TSR_ERR_UNSUPPORTED);
    CHECK(access(at("c.pgm"), F_OK) != 0);
    CHECK_STATUS(tsr_image_save(ctx, at("c.gif"), &img, NULL), TSR_ERR_INVALID_ARGUMENT);
    CHECK(access(at("c.gif"), F_OK) != 0);
    tsr_image_free(ctx, &img);
}

static int write_text(tsr_ctx *ctx, const char *path, const char *text)
{
    tsr__atomic_file af;
    tsr_status st = tsr__atomic_open(ctx, path, &af);
    if (st == TSR_OK && (st = tsr__atomic_write(ctx, &af, text, strlen(text))) != TSR_OK)
        tsr__atomic_abort(ctx, &af);
    if (st == TSR_OK)
        st = tsr__atomic_commit(ctx, &af);
    return st == TSR_OK;
}

static int file_is(const char *path, const char *text)
{
    size_t n = 0;
    unsigned char *b = tsr_test_read_file(path, &n);
    int same = b && n == strlen(text) && memcmp(b, text, n) == 0;
    free(b);
    return same;
}

static void test_paths(tsr_ctx *ctx)
{
    tsr_output_kind kind = 0;
    CHECK_STATUS(tsr_output_probe(ctx, at("none/x.png"), &kind), TSR_ERR_IO);
    CHECK(strstr(tsr_ctx_last_error(ctx), "No such file") != NULL);
    CHECK_STATUS(tsr_output_probe(ctx, dir, &kind), TSR_ERR_IO);
    CHECK(strstr(tsr_ctx_last_error(ctx), "folder") != NULL);
    CHECK_OK(ctx, tsr_output_probe(ctx, at("new.png"), &kind));
    CHECK(kind == TSR_OUTPUT_NEW);
    CHECK_OK(ctx, tsr_output_probe(ctx, "-", &kind));
    CHECK(kind == TSR_OUTPUT_STREAM);
    CHECK(access(at("new.png"), F_OK) != 0); /* probing writes nothing */

    /* a symlink's target is written, the link stays; a dangling one creates its target */
    CHECK(symlink("target.txt", at("link.txt")) == 0);
    CHECK(write_text(ctx, at("link.txt"), "one"));
    struct stat sb;
    CHECK(lstat(at("link.txt"), &sb) == 0 && S_ISLNK(sb.st_mode));
    CHECK(file_is(at("target.txt"), "one"));
    CHECK(write_text(ctx, at("link.txt"), "two"));
    CHECK(lstat(at("link.txt"), &sb) == 0 && S_ISLNK(sb.st_mode));
    CHECK(file_is(at("target.txt"), "two"));
    CHECK(tsr_same_file(at("link.txt"), at("target.txt")));
    CHECK(tsr_same_file(at("new.png"), at("./new.png")));
    CHECK(!tsr_same_file(at("new.png"), at("other.png")));
    CHECK(tsr_same_file("-", "-"));
    CHECK(!tsr_same_file("-", at("target.txt")));

    /* a replaced file keeps its mode */
    CHECK(chmod(at("target.txt"), 0640) == 0);
    CHECK(write_text(ctx, at("target.txt"), "three"));
    CHECK(stat(at("target.txt"), &sb) == 0 && (sb.st_mode & 07777) == 0640);
    CHECK(file_is(at("target.txt"), "three"));

    /* a FIFO is written through, not replaced */
    CHECK(mkfifo(at("fifo"), 0600) == 0);
    CHECK_OK(ctx, tsr_output_probe(ctx, at("fifo"), &kind));
    CHECK(kind == TSR_OUTPUT_STREAM);
    pid_t pid = fork();
    if (pid == 0) { /* the reader: copies the FIFO into a file */
        char buf[64];
        int in = open(at("fifo"), O_RDONLY), out = open(at("fifo.out"), O_WRONLY | O_CREAT, 0600);
        ssize_t n;
        while (in >= 0 && out >= 0 && (n = read(in, buf, sizeof buf)) > 0)
            if (write(out, buf, (size_t)n) != n)
                _exit(1);
        _exit(0);
    }
    CHECK(write_text(ctx, at("fifo"), "through"));
    int status = 0;
    waitpid(pid, &status, 0);
    CHECK(lstat(at("fifo"), &sb) == 0 && S_ISFIFO(sb.st_mode));
    CHECK(file_is(at("fifo.out"), "through"));
}

int main(void)
{
    const char *t = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/tsr_test_paths_XXXXXX", t && *t ? t : "/tmp");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    tsr_ctx *ctx = tsr_test_reference_ctx();
    test_format_rule(ctx);
    test_paths(ctx);
    tsr_ctx_destroy(ctx);
    const char *names[] = {"link.txt", "target.txt", "fifo", "fifo.out"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        unlink(at(names[i]));
    rmdir(dir);
    return tsr_test_finish("test_output_paths");
}
