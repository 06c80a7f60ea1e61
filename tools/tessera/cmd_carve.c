/* tessera carve: seam carving (shrink, enlarge, masks, object removal, seam overlay, seam-order
 * maps) of one image. */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const cli_option carve_options[] = {
    {"width", CLI_VALUE, "W",
     "Output width in pixels; smaller removes vertical seams, larger "
     "inserts them. The height stays unless --height is given."},
    {"height", CLI_VALUE, "H", "Output height in pixels (horizontal seams)."},
    {"size", CLI_VALUE, "WxH",
     "Output width and height at once; 640x or x480 gives one side and the other keeps the "
     "input's aspect ratio (round(side x given / input side), halves up), so both are carved."},
    {"scale", CLI_VALUE, "F|FX,FY",
     "Output size as a factor of the input's, round(side x F) on each side as resize --scale "
     "computes it (0.8: carve both sides to 80%; 0.8,1: the width only)."},
    {"energy", CLI_VALUE, "NAME",
     "backward (default: gradient magnitude of the current image) or forward (the energy the "
     "removal inserts, Rubinstein et al. 2008)."},
    {"mode", CLI_VALUE, "NAME",
     "exact (default: one seam per pass, the definition) or batch (K disjoint seams per pass, "
     "K = width/64 unless --batch-seams; each pass carves the top and the bottom half towards "
     "the middle row, side by side, their DPs restarting every ~1024 rows, and the seams cross "
     "it straight; approximate, much faster)."},
    {"batch-seams", CLI_VALUE, "K", "Seams per pass in batch mode (default: adaptive)."},
    {"order", CLI_VALUE, "NAME",
     "width-first (default), height-first, or optimal (when both sides shrink: the order of "
     "least total removed energy, Avidan and Shamir's transport map of 2 x rows x columns seam "
     "searches; on the CUDA backend a third of a second for 1920x1080 -> 1820x1030 on an H200, "
     "on the CPU minutes at that size)."},
    {"keep", CLI_VALUE, "MASK",
     "Image of the input's size; nonzero pixels are protected: seams cross as few of them as "
     "possible."},
    {"drop", CLI_VALUE, "MASK",
     "Image of the input's size; nonzero pixels are removed first. Without a size: object "
     "removal (seams until the object is gone, then as many inserted back)."},
    {"seams", CLI_VALUE, "OVERLAY",
     "Also write the input with every removed or inserted seam "
     "drawn in red."},
    {"save-map", CLI_VALUE, "MAP",
     "Also write the seam-order map: a 16-bit PNG giving, per pixel, the vertical seam (0, 1, "
     "...) that removes it when the input is narrowed one seam at a time (65535: never)."},
    {"map", CLI_VALUE, "MAP",
     "Retarget with a saved seam-order map instead of carving: instant, to any smaller --width."},
    CLI_OPTION_BACKEND("auto (default: cuda for images from 1 megapixel when a device is usable, "
                       "else cpu), cpu, reference (single-threaded oracle) or cuda"
                       "; the backend that ran and why are said on stderr and in --json"),
    CLI_OPTION_THREADS,
    CLI_IMAGE_OUTPUT_OPTIONS,
    CLI_OPTION_MAX_PIXELS,
    {"overwrite", CLI_FLAG, NULL, "Allow an output to be an input file, which is then replaced."},
    {"json", CLI_FLAG, NULL,
     "Print a JSON summary on stdout (sizes, seams, backend, time; device_ms: the GPU time of "
     "the seam passes on the cuda backend, 0 on the others)."},
    CLI_OPTION_QUIET,
    {0}};

/* A positive side of at most TSR_CARVE_MAX_SIDE. */
static int parse_side(const char *s, int32_t *out)
{
    long long v;
    if (!cli_parse_int(s, 1, TSR_CARVE_MAX_SIDE, &v))
        return 0;
    *out = (int32_t)v;
    return 1;
}

static tsr_status load_mask(tsr_ctx *ctx, const char *path, tsr_image *out)
{
    tsr_image img;
    tsr_status st = tsr_image_load(ctx, path, &img, NULL);
    if (st != TSR_OK)
        return st;
    if ((st = tsr_image_alloc(ctx, out, img.width, img.height, 1, TSR_U8)) == TSR_OK &&
        (st = tsr_carve_mask_from_image(ctx, &img, out)) != TSR_OK)
        tsr_image_free(ctx, out);
    tsr_image_free(ctx, &img);
    return st;
}

typedef struct carve_outputs {
    const char *paths[3];
    int written;
} carve_outputs;

/* Saves one output; remembers it so a later failure can take it back. */
static int save(const cli_command *cmd, tsr_ctx *ctx, carve_outputs *outs, const char *path,
                const tsr_image *img, const tsr_save_options *base, tsr_format fallback, int quiet)
{
    int rc = cli_image_save(cmd, ctx, path, img, base, fallback, quiet);
    if (rc != 0)
        return rc;
    tsr_output_kind kind;
    if (tsr_output_probe(ctx, path, &kind) == TSR_OK && kind != TSR_OUTPUT_STREAM)
        outs->paths[outs->written++] = path; /* a file that a later failure takes back */
    return 0;
}

static void take_back(carve_outputs *outs)
{
    for (int i = 0; i < outs->written; i++)
        unlink(outs->paths[i]);
    outs->written = 0;
}

static int run_carve(const cli_command *cmd, int argc, char **argv)
{
    cli_args args;
    int rc = cli_parse(cmd, argc, argv, &args);
    if (rc)
        return rc < 0 ? TSR_EXIT_OK : rc;
    if (args.npositional != 2) {
        cli_error(cmd, "needs an input and an output (see 'tessera carve --help')");
        return TSR_EXIT_USAGE;
    }
    const char *in = args.positional[0], *out = args.positional[1];
    tsr_carve_options opt;
    tsr_carve_options_init(&opt);
    const char *width = cli_get(cmd, &args, "width"), *height = cli_get(cmd, &args, "height"),
               *size = cli_get(cmd, &args, "size"), *scale = cli_get(cmd, &args, "scale");
    if ((size != NULL) + (scale != NULL) + (width || height) > 1) {
        cli_error(cmd, "give one of --size, --scale, or --width and/or --height");
        return TSR_EXIT_USAGE;
    }
    if (size && !cli_parse_size_aspect(size, TSR_CARVE_MAX_SIDE, &opt.width, &opt.height)) {
        cli_error(cmd, "--size wants WxH, Wx or xH with sides from 1 to %d, not '%s'",
                  TSR_CARVE_MAX_SIDE, size);
        return TSR_EXIT_USAGE;
    }
    /* Sides that depend on the input's size: applied once it is read. */
    const int keep_aspect = size && (!opt.width || !opt.height);
    double fx = 0, fy = 0;
    if (scale && !cli_parse_double_pair(scale, 1e-9, 1e9, &fx, &fy)) {
        cli_error(cmd, "--scale wants F or FX,FY with positive numbers, not '%s'", scale);
        return TSR_EXIT_USAGE;
    }
    if ((width && !parse_side(width, &opt.width)) || (height && !parse_side(height, &opt.height))) {
        cli_error(cmd, "--%s wants a number of pixels from 1 to %d, not '%s'",
                  width && !parse_side(width, &opt.width) ? "width" : "height", TSR_CARVE_MAX_SIDE,
                  width && !parse_side(width, &opt.width) ? width : height);
        return TSR_EXIT_USAGE;
    }
    const char *energy = cli_get(cmd, &args, "energy"), *mode = cli_get(cmd, &args, "mode"),
               *order = cli_get(cmd, &args, "order"), *k = cli_get(cmd, &args, "batch-seams");
    if (energy && tsr_carve_energy_parse(energy, &opt.energy) != TSR_OK) {
        cli_error(cmd, "unknown --energy '%s' (backward, forward)", energy);
        return TSR_EXIT_USAGE;
    }
    if (mode && tsr_carve_mode_parse(mode, &opt.mode) != TSR_OK) {
        cli_error(cmd, "unknown --mode '%s' (exact, batch)", mode);
        return TSR_EXIT_USAGE;
    }
    if (order && tsr_carve_order_parse(order, &opt.order) != TSR_OK) {
        cli_error(cmd, "unknown --order '%s' (width-first, height-first, optimal)", order);
        return TSR_EXIT_USAGE;
    }
    if (k && !parse_side(k, &opt.batch_seams)) {
        cli_error(cmd, "--batch-seams wants a positive number, not '%s'", k);
        return TSR_EXIT_USAGE;
    }
    const char *keep = cli_get(cmd, &args, "keep"), *drop = cli_get(cmd, &args, "drop"),
               *seams = cli_get(cmd, &args, "seams"), *save_map = cli_get(cmd, &args, "save-map"),
               *map = cli_get(cmd, &args, "map");
    if (!opt.width && !opt.height && !scale && !drop && !map) {
        cli_error(cmd, "needs a target (--width, --height, --size or --scale), or --drop for "
                       "object removal");
        return TSR_EXIT_USAGE;
    }
    if (map && (opt.height || keep || drop || seams || save_map || !opt.width)) {
        cli_error(cmd, "--map retargets to a --width alone (no --height, masks, --seams or "
                       "--save-map)");
        return TSR_EXIT_USAGE;
    }
    tsr_save_options save_opt;
    tsr_save_options_init(&save_opt);
    const char *quality = cli_get(cmd, &args, "quality");
    if ((rc = cli_image_save_options(cmd, &args, &save_opt)) != 0)
        return rc;
    const int json = cli_get(cmd, &args, "json") != NULL;
    const int quiet = json || cli_get(cmd, &args, "quiet") != NULL;

    if (quality && !(CLI_QUALITY_FORMATS & TSR_FILE_BIT(tsr_file_type_of(out))) &&
        tsr_file_type_of(out) != TSR_FILE_NONE &&
        (!seams || !(CLI_QUALITY_FORMATS & TSR_FILE_BIT(tsr_file_type_of(seams))))) {
        cli_error(cmd, "--quality applies to JPEG (.jpg, .jpeg) and WebP (.webp) outputs only");
        return TSR_EXIT_USAGE;
    }
    tsr_ctx *ctx = NULL;
    if ((rc = cli_open_image_context(cmd, &args, quiet, &ctx)) != 0)
        return rc;
    const char *inputs[] = {in, keep, drop, map};
    cli_output checks[] = {
        {out, "OUT", CLI_WRITES_IMAGE, TSR_FILE_NONE, 0, 0},
        {seams, "--seams", CLI_WRITES_IMAGE, TSR_FILE_NONE, 0, 0},
        {save_map, "--save-map",
         TSR_FILE_BIT(TSR_FILE_PNG) | TSR_FILE_BIT(TSR_FILE_PGM) | TSR_FILE_BIT(TSR_FILE_PNM),
         TSR_FILE_PNG, 0, 0}};
    if ((rc = cli_check_outputs(cmd, ctx, inputs, 4, checks, 3,
                                cli_get(cmd, &args, "overwrite") != NULL)) != 0) {
        tsr_ctx_destroy(ctx);
        return rc;
    }
    cli_stop_catch();
    tsr_image src = {0}, dst = {0}, keep_img = {0}, drop_img = {0}, ov = {0}, map_img = {0};
    tsr_format format = TSR_FORMAT_PNG;
    tsr_carve_report rep;
    memset(&rep, 0, sizeof rep);
    carve_outputs outs = {{0}, 0};
    tsr_status st;
    double t0 = 0, ms = 0;
    /* the device (when auto will pick one for this size) starts while the image decodes */
    int32_t pw, ph;
    if (strcmp(in, "-") != 0 && tsr_image_probe(ctx, in, &pw, &ph) == TSR_OK)
        tsr_carve_prepare(ctx, pw, ph);
    if ((rc = cli_image_load(cmd, ctx, in, &src, &format, quiet)) != 0)
        goto done;
    if (keep_aspect &&
        !cli_size_keep_aspect(src.width, src.height, TSR_CARVE_MAX_SIDE, &opt.width, &opt.height)) {
        cli_error(cmd, "%s: --size %s keeps %dx%d's aspect ratio with a side above %d", in, size,
                  (int)src.width, (int)src.height, TSR_CARVE_MAX_SIDE);
        rc = TSR_EXIT_USAGE;
        goto done;
    }
    if (scale &&
        (tsr_resize_size(src.width, src.height, fx, fy, &opt.width, &opt.height) != TSR_OK ||
         opt.width > TSR_CARVE_MAX_SIDE || opt.height > TSR_CARVE_MAX_SIDE)) {
        cli_error(cmd, "%s: --scale %s makes no size of 1 to %d pixels from %dx%d", in, scale,
                  TSR_CARVE_MAX_SIDE, (int)src.width, (int)src.height);
        rc = TSR_EXIT_USAGE;
        goto done;
    }
    if ((keep && (st = load_mask(ctx, keep, &keep_img)) != TSR_OK) ||
        (drop && (st = load_mask(ctx, drop, &drop_img)) != TSR_OK)) {
        rc = cli_fail(cmd, ctx, st, NULL);
        goto done;
    }
    opt.keep = keep ? &keep_img : NULL;
    opt.drop = drop ? &drop_img : NULL;
    opt.report = &rep;
    if (map) {
        if ((st = tsr_image_load(ctx, map, &map_img, NULL)) != TSR_OK) {
            rc = cli_fail(cmd, ctx, st, NULL);
            goto done;
        }
        if ((st = tsr_image_alloc(ctx, &dst, opt.width, src.height, src.channels, src.depth)) !=
            TSR_OK) {
            rc = cli_fail(cmd, ctx, st, in);
            goto done;
        }
        t0 = cli_now();
        if ((st = tsr_carve_retarget(ctx, &src, &map_img, &dst)) != TSR_OK) {
            rc = cli_fail(cmd, ctx, st, map);
            goto done;
        }
        ms = (cli_now() - t0) * 1e3;
    } else {
        int32_t w, h;
        if ((st = tsr_carve_size(ctx, &src, &opt, &w, &h)) != TSR_OK ||
            (st = tsr_image_alloc(ctx, &dst, w, h, src.channels, src.depth)) != TSR_OK ||
            (seams && (st = tsr_image_alloc(ctx, &ov, src.width, src.height,
                                            tsr_carve_overlay_channels(src.channels), src.depth)) !=
                          TSR_OK)) {
            rc = cli_fail(cmd, ctx, st, in);
            goto done;
        }
        opt.seams = seams ? &ov : NULL;
        if (save_map) {
            tsr_carve_options mo = opt;
            mo.width = 0;
            if ((st = tsr_image_alloc(ctx, &map_img, src.width, src.height, 1, TSR_U16)) !=
                    TSR_OK ||
                (st = tsr_carve_map(ctx, &src, &mo, &map_img)) != TSR_OK) {
                rc = cli_fail(cmd, ctx, st, in);
                goto done;
            }
        }
        t0 = cli_now();
        if ((st = tsr_carve(ctx, &src, &dst, &opt)) != TSR_OK) {
            rc = cli_fail(cmd, ctx, st, in);
            goto done;
        }
        ms = (cli_now() - t0) * 1e3;
        if ((seams && (rc = save(cmd, ctx, &outs, seams, &ov, &save_opt, format, quiet)) != 0) ||
            (save_map && (rc = save(cmd, ctx, &outs, save_map, &map_img, &save_opt, TSR_FORMAT_PNG,
                                    quiet)) != 0))
            goto done;
    }
    if ((rc = save(cmd, ctx, &outs, out, &dst, &save_opt, format, quiet)) != 0)
        goto done;
    if (json) {
        int32_t seams_total = rep.removed_vertical + rep.removed_horizontal +
                              rep.inserted_vertical + rep.inserted_horizontal;
        printf("{\"command\": \"carve\", \"input\": ");
        cli_json_string(stdout, in);
        printf(", \"output\": ");
        cli_json_string(stdout, out);
        printf(", \"input_size\": [%d, %d], \"output_size\": [%d, %d], \"energy\": \"%s\", "
               "\"mode\": \"%s\", \"order\": \"%s\", \"removed\": [%d, %d], \"inserted\": [%d, "
               "%d], \"dp_passes\": %lld, \"removed_energy\": %llu, \"backend\": \"%s\", "
               "\"device\": ",
               (int)src.width, (int)src.height, (int)dst.width, (int)dst.height,
               tsr_carve_energy_name(opt.energy), tsr_carve_mode_name(opt.mode),
               tsr_carve_order_name(opt.order), (int)rep.removed_vertical,
               (int)rep.removed_horizontal, (int)rep.inserted_vertical,
               (int)rep.inserted_horizontal, (long long)rep.dp_passes,
               (unsigned long long)rep.removed_energy, tsr_backend_name(tsr_ctx_backend(ctx)));
        cli_json_string(stdout, tsr_ctx_device_name(ctx));
        printf(", \"backend_reason\": ");
        cli_json_string(stdout, tsr_ctx_backend_reason(ctx));
        printf(", \"carve_ms\": %.3f, \"ms_per_seam\": %.4f, \"device_ms\": %.3f, "
               "\"from_map\": %s}\n",
               ms, seams_total ? ms / seams_total : 0.0, rep.device_ms, map ? "true" : "false");
    }
    cli_note_backend(cmd, ctx, quiet || json);
done:
    cli_stop_release();
    if (rc != 0)
        take_back(&outs);
    tsr_image_free(ctx, &src);
    tsr_image_free(ctx, &dst);
    tsr_image_free(ctx, &keep_img);
    tsr_image_free(ctx, &drop_img);
    tsr_image_free(ctx, &ov);
    tsr_image_free(ctx, &map_img);
    tsr_ctx_destroy(ctx);
    return rc;
}

const cli_command cli_cmd_carve = {
    "carve",
    "content-aware resize by seam carving: shrink, enlarge, protect, remove objects",
    "IN OUT (--width W | --height H | --size WxH | --scale F | --drop MASK) [options]\n"
    "       tessera carve IN OUT --map MAP --width W",
    "Resizes IN into OUT by repeatedly removing (or duplicating) the connected path of least "
    "energy, one pixel per row or column (Avidan and Shamir 2007). Exact mode follows one "
    "integer definition (luma, backward or forward energy, leftmost tie-break) on every "
    "backend, bit for bit; batch mode removes K disjoint seams per pass. Masks are exact rules: "
    "seams cross as few keep pixels as possible, then as many drop pixels as possible. 8- and "
    "16-bit gray, gray+alpha, RGB and RGBA images; alpha is carried. Sides up to 65535 pixels. "
    "Inputs are read in every format resize reads (PNG, JPEG, PNM, PAM, TIFF, WebP, BMP, JPEG "
    "2000; float images are not carved). OUT's extension chooses the output format as for "
    "resize (.png, .jpg/.jpeg, .pgm gray, .ppm colour, .pnm either, .pam, .pfm, .tif/.tiff, "
    ".webp, .bmp, .jp2, .j2k/.j2c; another extension is an error), converting with a note on "
    "stderr what it cannot hold; OUT without one (\"-\": standard output) gets the input's "
    "format. IN may be \"-\" (standard input). An output that is an input is "
    "refused unless --overwrite.",
    carve_options,
    "  tessera carve photo.jpg narrow.png --width 640\n"
    "  tessera carve photo.tif small.webp --scale 0.8\n"
    "  tessera carve photo.png wide.jp2 --size 1600x\n"
    "  tessera carve photo.jpg small.png --size 800x500 --energy forward --order optimal\n"
    "  tessera carve beach.png clean.png --drop person.png --seams cuts.png\n"
    "  tessera carve photo.png wide.png --width 1600 --keep faces.png\n"
    "  tessera carve photo.png out.png --width 900 --save-map order.png\n"
    "  tessera carve photo.png out.png --map order.png --width 700\n"
    "  tessera carve panorama.png strip.png --width 20000 --max-pixels 0",
    run_carve};
