/* tessera resize: OpenCV-exact resize of one image, or of many into a folder. */
#define _POSIX_C_SOURCE 200809L
#include "resize_batch.h"

#include <errno.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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
    {"jpeg-decoder", CLI_VALUE, "NAME",
     "libjpeg-turbo (default) or nvjpeg: decode JPEG inputs on the GPU with NVIDIA nvJPEG "
     "(libnvjpeg.so.13 from the CUDA toolkit, loaded at run time; the GPU's hardware JPEG "
     "decoders where it has them), in batches, and resize them there (the cuda backend; "
     "--backend must be cuda or auto); other inputs take the usual path. nvJPEG's pixels are "
     "not libjpeg-turbo's (a different IDCT and chroma upsampling), so outputs of JPEG inputs "
     "differ from OpenCV's by small amounts under this option (tests/unit/"
     "test_nvjpeg_cuda_gpu.c measures the PSNR); --json says per image which decoder ran."},
    CLI_IMAGE_OUTPUT_OPTIONS,
    CLI_OPTION_MAX_PIXELS,
    {"json", CLI_FLAG, NULL, "Print a JSON summary on stdout (sizes, backend, device, time)."},
    {"overwrite", CLI_FLAG, NULL, "Allow an output to be its input file, which is then replaced."},
    CLI_OPTION_QUIET,
    {0}};

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
    const char *decoder = cli_get(cmd, &args, "jpeg-decoder");
    if (decoder && strcmp(decoder, "nvjpeg") != 0 && strcmp(decoder, "libjpeg-turbo") != 0) {
        cli_error(cmd, "unknown --jpeg-decoder '%s' (libjpeg-turbo, nvjpeg)", decoder);
        return TSR_EXIT_USAGE;
    }
    job.nvjpeg = decoder && strcmp(decoder, "nvjpeg") == 0;
    const char *backend = cli_get(cmd, &args, "backend");
    if (job.nvjpeg && backend && strcmp(backend, "cuda") != 0 && strcmp(backend, "auto") != 0) {
        cli_error(cmd, "--jpeg-decoder nvjpeg resizes on the GPU: --backend cuda or auto, not '%s'",
                  backend);
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
            printf(", \"jpeg_decoder\": \"%s\", \"images\": [",
                   job.nvjpeg ? "nvjpeg" : "libjpeg-turbo");
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
    "FIFOs are written directly). With --jpeg-decoder nvjpeg, JPEG inputs are decoded on the GPU "
    "by NVIDIA nvJPEG instead of libjpeg-turbo: their outputs are then not OpenCV-exact, since "
    "nvJPEG's IDCT and chroma upsampling give slightly different pixels (the resize itself is "
    "still OpenCV's arithmetic).",
    resize_options,
    "  tessera resize photo.jpg small.png --size 640x480\n"
    "  tessera resize photo.tif thumb.webp --size 200x\n"
    "  tessera resize scan.pfm small.pfm --height 300 --interp area\n"
    "  tessera resize scan.png half.png --scale 0.5 --interp area\n"
    "  tessera resize frame.ppm wide.ppm --scale 2,1 --interp lanczos4 --backend cpu\n"
    "  tessera resize a.jpg b.jpg c.png thumbs/ --size 256x256 --json\n"
    "  tessera resize photos/*.jpg thumbs/ --width 512 --interp area --backend cuda "
    "--jpeg-decoder nvjpeg\n"
    "  tessera resize survey.png quarter.png --scale 0.25 --max-pixels 1000000000",
    run_resize};
