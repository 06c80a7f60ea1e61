/* tessera j2k: JPEG 2000 encoding (`encode`), decoding (`decode`) and header inspection (`info`).
 */
#define _POSIX_C_SOURCE 200809L
#include "j2k_decode_many.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const cli_option j2k_options[] = {
    {"reduce", CLI_VALUE, "N", "decode: discard the N finest resolution levels (default 0)."},
    {"region", CLI_VALUE, "X,Y,W,H",
     "decode: only this rectangle of the image (reference-grid units from the image origin); "
     "only the code-blocks it needs are decoded."},
    {"layers", CLI_VALUE, "L",
     "decode: only the first L quality layers (default: all). encode: L quality layers, 1-64: "
     "with one --rate, L layers doubling in size up to it (BPP / 2^(L-1), ..., BPP / 2, BPP); "
     "without --rate, L layers of which the last holds everything (lossless with --lossless) "
     "and each one below about half the size of the next. kdu_compress Clayers=L (opj_compress "
     "takes one -r value per layer)."},
    {"components", CLI_VALUE, "LIST",
     "decode: codestream components to decode, e.g. 0 or 0,2, as decoded (default: all, with "
     "JP2 palettes, channel definitions and colour conversion applied)."},
    {"ht", CLI_FLAG, NULL,
     "encode: HTJ2K block coding (Part 15, T.814): each code-block one HT set, lossless or "
     "at --qstep a cleanup pass down to the last bit-plane; with one --rate or one --psnr the "
     "rate control (PCRD-opt) picks per code-block among the HT sets of every base bit-plane "
     "(a cleanup pass, with or without the SigProp and MagRef passes of the plane below), "
     "coded for real, with the decoder's exact error. One quality layer: several --rate or "
     "--psnr values, --layers above 1, and --rate or --psnr with --lossless (which adds a "
     "lossless layer) are refused. RPCL unless --order says otherwise. Implied by a .jph "
     "output. ojph_compress (no rate control); kdu_compress Cmodes=HT."},
    {"mode", CLI_VALUE, "standard|fast-nonstandard",
     "encode: standard (the default): JPEG 2000 code-blocks. fast-nonstandard: tessera's own "
     "block coder (bit-planes coded over 8-row stripes side by side, a range coder per stripe, "
     "made for many GPU threads per code-block; src/j2k/fast_coder.h) in an otherwise standard "
     "codestream whose COM marker segment says it is NOT a JPEG 2000 stream: only tessera "
     "decodes it exactly (other decoders give garbage or fail), and `tessera j2k info` says "
     "so. Lossless or at --qstep, one layer: its code-blocks have no truncation points, so "
     "--rate, --psnr, --layers above 1 and --ht are refused. With --backend cuda a warp codes "
     "each code-block, a thread each stripe (the same bytes); such files decode on the CPU. "
     "E.g. tessera j2k encode in.png out.j2k --mode fast-nonstandard. No opj_compress or "
     "kdu_compress equivalent."},
    {"lossless", CLI_FLAG, NULL,
     "encode: reversible coding, RCT + 5/3 wavelet (the default); the file decodes "
     "bit-exactly to the input. With --rate, lossy layers at those rates below a last, "
     "lossless layer. opj_compress: the default (with -r R1,R2,..,1); kdu_compress: "
     "Creversible=yes (with -rate -,R1,R2,..)."},
    {"rate", CLI_VALUE, "BPP[,BPP...]",
     "encode: lossy coding (ICT + 9/7) to a size: bits per pixel of the whole file, all "
     "components together; several increasing values make one quality layer each. The file up "
     "to the end of each layer is at most BPP * width * height / 8 bytes and within 1% of it "
     "(PCRD-opt rate control, one slope threshold per layer). opj_compress -r 24/BPP,.. for "
     "8-bit RGB (its values decrease); kdu_compress -rate BPP,..."},
    {"psnr", CLI_VALUE, "DB[,DB...]",
     "encode: lossy coding (ICT + 9/7) to a quality instead of a size: the PSNR in dB of the "
     "decoded image, over all components' samples together; several increasing values make one "
     "quality layer each (with --lossless, below a last, lossless layer). Each layer is the "
     "smallest whose estimated PSNR reaches its target (PCRD-opt, one slope threshold per "
     "layer); the decoded PSNR is within a few tenths of a dB of the estimate. A target beyond "
     "what --qstep gives yields the --qstep file, with a note. Excludes --rate. opj_compress -q "
     "DB,DB,..; kdu_compress has no equivalent (-slope sets the threshold itself)."},
    {"qstep", CLI_VALUE, "Q",
     "encode: lossy coding instead, ICT + 9/7 wavelet with scalar quantisation: Q is the step "
     "relative to the sample range, 0 < Q <= 1 (0.004 is about 1/256: near-transparent; "
     "larger is smaller and coarser); with --rate, the finest step, from which the rate "
     "control truncates. kdu_compress Qstep=Q; ojph_compress -qstep Q."},
    {"levels", CLI_VALUE, "N",
     "encode: wavelet decomposition levels, 0-32 (default 5, fewer for images whose smaller "
     "side is under 32). opj_compress -n N+1; kdu_compress Clevels=N."},
    {"cblk", CLI_VALUE, "WxH",
     "encode: code-block size, powers of two from 4 to 1024, at most 4096 samples (default "
     "64x64). opj_compress -b W,H; kdu_compress Cblk={H,W}."},
    {"order", CLI_VALUE, "ORDER",
     "encode: progression order LRCP (default), RLCP, RPCL, PCRL or CPRL. opj_compress -p; "
     "kdu_compress Corder."},
    {"tiles", CLI_VALUE, "WxH",
     "encode: cut the image into tiles of W x H samples from its top-left corner, or from "
     "--tile-origin (the first and last column and row smaller where the image starts and "
     "ends), each transformed and coded on its own; "
     "rate control still works over the whole image, so --rate holds for the file. At most "
     "65535 tiles; a tile larger than the image is the image. Every tile has the same --levels: "
     "the default is 5 or fewer, floor(log2) of the smaller tile side; tiles smaller than "
     "2^levels (at the edges, or with --levels given) are valid and have resolutions without "
     "samples (default: one tile). opj_compress -t W,H; kdu_compress Stiles={H,W}."},
    {"origin", CLI_VALUE, "X,Y",
     "encode: place the image's top-left sample at (X, Y) on the reference grid (SIZ's image "
     "offset). The decoded image is the same; what moves is where tiles, precincts and "
     "code-blocks cut it and the wavelet's phase (odd positions are high-pass), as when the "
     "image is a part of a larger one cut on its grid (default 0,0). opj_compress -d X,Y; "
     "kdu_compress Sorigin={Y,X}."},
    {"tile-origin", CLI_VALUE, "X,Y",
     "encode: start the tile grid at (X, Y) on the reference grid, at or before --origin on "
     "both axes and less than a tile before it, so the first tiles are partial (default 0,0). "
     "opj_compress -T X,Y; kdu_compress Stile_origin={Y,X}."},
    {"precincts", CLI_VALUE, "WxH[,WxH...]",
     "encode: precinct sizes, powers of two up to 32768, one per resolution from the highest "
     "down, the last repeated for the lower ones; only the lowest resolution may have a side "
     "of 1. Packets go precinct by precinct in the --order, code-blocks are clipped to "
     "precincts (default: maximal precincts, one per resolution). opj_compress -c "
     "[W,H],[W,H]... (which halves its last size for each lower resolution instead: list every "
     "resolution for the same stream); kdu_compress Cprecincts={H,W},{H,W}...."},
    {"sop", CLI_FLAG, NULL,
     "encode: an SOP marker segment before every packet, numbered, so a decoder can find the "
     "next packet after damage (T.800 A.8.1). opj_compress -SOP; kdu_compress Cuse_sop=yes."},
    {"eph", CLI_FLAG, NULL,
     "encode: an EPH marker after every packet header (A.8.2). opj_compress -EPH; kdu_compress "
     "Cuse_eph=yes."},
    {"tlm", CLI_FLAG, NULL,
     "encode: TLM marker segments in the main header with every tile-part's tile and length, "
     "for readers that seek to tiles (A.7.1). opj_compress -TLM; kdu_compress ORGgen_tlm=1."},
    {"plt", CLI_FLAG, NULL,
     "encode: PLT marker segments in each tile-part header with the length of each of its "
     "packets, for readers that seek to packets (A.7.3); --rate counts their bytes. "
     "opj_compress -PLT; kdu_compress ORGgen_plt=yes."},
    {"tile-parts", CLI_VALUE, "R|L|C",
     "encode: split each tile into tile-parts, a new one wherever the resolution (R), layer "
     "(L) or component (C) of the next packet in the --order changes: with RPCL and R, one per "
     "resolution, so a reader can stop after a resolution; at most 255 per tile (default: one "
     "tile-part per tile). opj_compress -TP R|L|C; kdu_compress ORGtparts=R|L|C."},
    CLI_OPTION_SYNC("encode: "),
    {"format", CLI_VALUE, "EXT",
     "decode: with several inputs or an output folder, the outputs' format: png (default), "
     "pgm, ppm, pnm or pgx; each output is FOLDER/NAME.EXT, NAME the input's file name without "
     "its extension."},
    {"threads", CLI_VALUE, "N", "CPU threads (default 0: all cores)."},
    CLI_OPTION_MAX_PIXELS,
    CLI_OPTION_BACKEND("auto (default: the CPU, whose decoder on a file beats a device start-up "
                       "and two copies), cpu, reference (single-threaded) or, for decode into "
                       ".png/.pnm, cuda: code-blocks (HT and Part 1), wavelet, colour transform "
                       "and pixels on the GPU, the same pixels as the CPU (JP2 palettes, "
                       "sYCC/ICC conversion, subsampled components and .pgx stay on the CPU; "
                       "several inputs go through the pipelined batch call); for encode, cuda: "
                       "samples, colour transform, wavelet and code-blocks (HT and Part 1) on "
                       "the GPU, rate control and the codestream on the CPU, the same bytes as "
                       "the CPU"),
    {"json", CLI_FLAG, NULL,
     "info: print the parameters as JSON; decode and encode: a JSON summary (encode with "
     "--rate, --psnr or --layers: psnr_estimate, the estimated PSNR of each layer prefix, null "
     "for a lossless one)."},
    {"quiet", CLI_FLAG, NULL, "No warnings or notes on stderr; errors are still printed."},
    {0}};

/* An option given to a sub-command it does not apply to is a usage error, not silently
 * ignored. Which sub-commands an option serves is read from its help text's labels ("decode:",
 * "encode:", "info:", "decode and encode:"); an option without labels serves all three. 0, or
 * TSR_EXIT_USAGE after the message. */
static int refuse_foreign_options(const cli_command *cmd, const cli_args *args, const char *sub)
{
    for (int i = 0; cmd->options[i].name; i++) {
        const char *help = cmd->options[i].help;
        if (!args->values[i])
            continue;
        const int both = strstr(help, "decode and encode:") != NULL;
        const int dec = both || strstr(help, "decode:") != NULL,
                  enc = strstr(help, "encode:") != NULL, inf = strstr(help, "info:") != NULL;
        if (!dec && !enc && !inf)
            continue;
        const int ok = !strcmp(sub, "decode") ? dec : !strcmp(sub, "encode") ? enc : inf;
        if (!ok) {
            char list[32] = "";
            const char *names[3] = {dec ? "decode" : NULL, enc ? "encode" : NULL,
                                    inf ? "info" : NULL};
            for (int k = 0; k < 3; k++)
                if (names[k])
                    snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s",
                             list[0] ? ", " : "", names[k]);
            cli_error(cmd, "--%s does not apply to j2k %s (it is an option of j2k %s)",
                      cmd->options[i].name, sub, list);
            return TSR_EXIT_USAGE;
        }
    }
    return 0;
}

/* A number 0 .. 2^32-1 through the CLI's strict parser. */
static int parse_u32(const char *s, uint32_t *out)
{
    long long v;
    if (!cli_parse_int(s, 0, UINT32_MAX, &v))
        return 0;
    *out = (uint32_t)v;
    return 1;
}

/* "A,B,..." with exactly n numbers (each as parse_u32 takes it) into out[0..n-1]; 1, or 0 on
 * anything else. */
static int parse_u32_list(const char *s, int n, uint32_t *out)
{
    char buf[128];
    if (snprintf(buf, sizeof buf, "%s", s) >= (int)sizeof buf || strstr(buf, ",,") ||
        buf[0] == ',' || (buf[0] && buf[strlen(buf) - 1] == ','))
        return 0;
    int k = 0;
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ","), k++)
        if (k >= n || !parse_u32(tok, &out[k]))
            return 0;
    return k == n;
}

/* Option `name`'s X,Y, when given, into *x and *y: 1, or 0 after a usage message. */
static int parse_point(const cli_command *cmd, const cli_args *args, const char *name, uint32_t *x,
                       uint32_t *y)
{
    const char *v = cli_get(cmd, args, name);
    uint32_t at[2];
    if (!v)
        return 1;
    if (!parse_u32_list(v, 2, at)) {
        cli_error(cmd, "--%s wants X,Y, two numbers from 0, not '%s'", name, v);
        return 0;
    }
    *x = at[0];
    *y = at[1];
    return 1;
}

static const char *prog_name(tsr_j2k_progression p)
{
    static const char *n[] = {"LRCP", "RLCP", "RPCL", "PCRL", "CPRL"};
    return (unsigned)p < 5 ? n[p] : "?";
}

static int run_info(const cli_command *cmd, const cli_args *args, tsr_ctx *ctx)
{
    const char *in = args->positional[1];
    uint8_t *data;
    size_t len;
    int rc = j2k_read_file(cmd, in, &data, &len);
    if (rc)
        return rc;
    tsr_j2k_info info;
    tsr_j2k_component comps[64];
    tsr_status st = tsr_j2k_read_header(ctx, data, len, &info, comps, 64);
    free(data);
    if (st)
        return cli_fail(cmd, ctx, st, in);
    static const char *cont[] = {"codestream", "jp2", "jph"};
    uint32_t shown = info.num_components < 64 ? info.num_components : 64;
    if (cli_get(cmd, args, "json")) {
        printf("{\"file\": ");
        cli_json_string(stdout, in);
        printf(", \"container\": \"%s\", \"nonstandard\": %s, \"rsiz\": %u, \"ht\": %s, "
               "\"x0\": %u, \"y0\": %u, "
               "\"width\": %u, \"height\": %u, \"tile_x0\": %u, \"tile_y0\": %u, "
               "\"tile_width\": %u, \"tile_height\": %u, \"tiles\": [%u, %u], "
               "\"progression\": \"%s\", \"layers\": %u, \"levels\": %u, "
               "\"code_block\": [%u, %u], \"code_block_style\": %u, \"transform\": \"%s\", "
               "\"mct\": %s, \"sop\": %s, \"eph\": %s, \"precincts\": %s, \"colourspace\": %u, "
               "\"colour_method\": %u, \"palette_entries\": %u, \"output_channels\": %u, "
               "\"components\": [",
               cont[info.container], info.nonstandard ? "true" : "false", info.rsiz,
               info.is_ht ? "true" : "false", info.x0, info.y0, info.width, info.height,
               info.tile_x0, info.tile_y0, info.tile_width, info.tile_height, info.tiles_x,
               info.tiles_y, prog_name(info.progression), info.layers, info.levels, info.cblk_width,
               info.cblk_height, info.cblk_style, info.reversible ? "5/3" : "9/7",
               info.mct ? "true" : "false", info.sop ? "true" : "false",
               info.eph ? "true" : "false", info.precincts ? "true" : "false", info.colourspace,
               info.colour_method, info.palette_entries, info.output_channels);
        for (uint32_t c = 0; c < shown; c++)
            printf("%s{\"width\": %u, \"height\": %u, \"dx\": %u, \"dy\": %u, \"precision\": %u, "
                   "\"signed\": %s}",
                   c ? ", " : "", comps[c].width, comps[c].height, comps[c].dx, comps[c].dy,
                   comps[c].precision, comps[c].is_signed ? "true" : "false");
        printf("], \"num_components\": %u}\n", info.num_components);
        return 0;
    }
    printf("%s: %s%s, %ux%u at (%u,%u), %u component%s\n", in, cont[info.container],
           info.is_ht ? " (HTJ2K)" : "", info.width, info.height, info.x0, info.y0,
           info.num_components, info.num_components == 1 ? "" : "s");
    if (info.nonstandard)
        printf("  NOT a JPEG 2000 stream: its code-blocks are in tessera's fast-nonstandard "
               "format (COM marker); only tessera decodes it\n");
    printf("  tiles: %ux%u of %ux%u at (%u,%u)\n", info.tiles_x, info.tiles_y, info.tile_width,
           info.tile_height, info.tile_x0, info.tile_y0);
    printf("  coding: %s, %u layer%s, %u levels, %s, code-blocks %ux%u style 0x%02x%s%s%s%s\n",
           prog_name(info.progression), info.layers, info.layers == 1 ? "" : "s", info.levels,
           info.reversible ? "5/3 reversible" : "9/7 irreversible", info.cblk_width,
           info.cblk_height, info.cblk_style, info.mct ? ", colour transform" : "",
           info.sop ? ", SOP" : "", info.eph ? ", EPH" : "", info.precincts ? ", precincts" : "");
    if (info.container != TSR_J2K_CODESTREAM)
        printf("  jp2: colourspace %u (colr method %u), palette %u entries, %u output channels\n",
               info.colourspace, info.colour_method, info.palette_entries, info.output_channels);
    for (uint32_t c = 0; c < shown; c++)
        printf("  component %u: %ux%u, subsampling %ux%u, %u-bit %s\n", c, comps[c].width,
               comps[c].height, comps[c].dx, comps[c].dy, comps[c].precision,
               comps[c].is_signed ? "signed" : "unsigned");
    return 0;
}

static int run_decode(const cli_command *cmd, const cli_args *args, tsr_ctx *ctx)
{
    const char *in = args->positional[1], *out = args->positional[args->npositional - 1];
    tsr_j2k_decode_options opt;
    tsr_j2k_decode_options_init(&opt);
    const char *v;
    uint32_t comps[256];
    if ((v = cli_get(cmd, args, "reduce")) && !parse_u32(v, &opt.reduce)) {
        cli_error(cmd, "--reduce wants a number, not '%s'", v);
        return TSR_EXIT_USAGE;
    }
    if ((v = cli_get(cmd, args, "layers")) && (!parse_u32(v, &opt.layers) || opt.layers == 0)) {
        cli_error(cmd, "--layers wants a positive number, not '%s'", v);
        return TSR_EXIT_USAGE;
    }
    if ((v = cli_get(cmd, args, "region"))) {
        uint32_t r[4];
        if (!parse_u32_list(v, 4, r) || r[2] == 0 || r[3] == 0) {
            cli_error(cmd, "--region wants X,Y,W,H with W, H > 0, not '%s'", v);
            return TSR_EXIT_USAGE;
        }
        opt.region_x = r[0];
        opt.region_y = r[1];
        opt.region_w = r[2];
        opt.region_h = r[3];
    }
    if ((v = cli_get(cmd, args, "components"))) {
        char buf[2048];
        snprintf(buf, sizeof buf, "%s", v);
        uint32_t k = 0;
        int bad = 0;
        for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ","))
            if (k >= 256 || !parse_u32(tok, &comps[k++]))
                bad = 1;
        if (bad || k == 0) {
            cli_error(cmd, "--components wants a list like 0,1,2, not '%s'", v);
            return TSR_EXIT_USAGE;
        }
        opt.components = comps;
        opt.num_components = k;
    }
    /* several inputs, an input folder or an output folder: every input into the folder */
    const int ninputs = args->npositional - 2;
    if (ninputs > 1 || j2k_is_folder(in) || j2k_is_folder(out) || cli_get(cmd, args, "format"))
        return j2k_decode_many(cmd, args, ctx, &opt, args->positional + 1, ninputs, out,
                               cli_get(cmd, args, "format") ? cli_get(cmd, args, "format") : "png");
    int pgx = cli_check_output(cmd, ctx, in, out, TSR_WRITES_ROWS | TSR_FILE_BIT(TSR_FILE_PGX));
    if (pgx)
        return pgx;
    size_t olen = strlen(out);
    pgx = olen >= 4 && strcasecmp(out + olen - 4, ".pgx") == 0;
    if (!pgx && tsr_format_from_name(out) != TSR_FORMAT_PNG &&
        tsr_format_from_name(out) != TSR_FORMAT_PNM) {
        cli_error(cmd, "output '%s': use a .pgx, .png, .pgm, .ppm or .pnm name", out);
        return TSR_EXIT_USAGE;
    }
    uint8_t *data;
    size_t len;
    int rc = j2k_read_file(cmd, in, &data, &len);
    if (rc)
        return rc;
    tsr_j2k_save_result res;
    double t0 = cli_now();
    tsr_status st = tsr_j2k_decode_save(ctx, data, len, &opt, out, &res);
    double t1 = cli_now();
    const int nonstd =
        !st && j2k_note_nonstandard(ctx, data, len, in,
                                    cli_get(cmd, args, "quiet") || cli_get(cmd, args, "json"));
    free(data);
    if (st)
        return cli_fail(cmd, ctx, st, res.output_failed ? out : in);
    if (res.decode.warnings && !cli_get(cmd, args, "quiet"))
        fprintf(stderr, "tessera j2k: warning: %s%s\n", res.decode.warning,
                res.decode.warnings > 1 ? " (and more)" : "");
    if (cli_get(cmd, args, "json")) {
        printf("{\"command\": \"j2k decode\", \"input\": ");
        cli_json_string(stdout, in);
        printf(", \"output\": ");
        cli_json_string(stdout, out);
        printf(", \"planes\": %u, \"width\": %u, \"height\": %u, \"seconds\": %.6f, "
               "\"truncated\": %s, \"nonstandard\": %s, \"warnings\": %u, \"backend\": \"%s\", "
               "\"device\": ",
               res.planes, res.width, res.height, t1 - t0, res.decode.truncated ? "true" : "false",
               nonstd ? "true" : "false", res.decode.warnings,
               tsr_backend_name(tsr_ctx_backend(ctx)));
        cli_json_string(stdout, tsr_ctx_device_name(ctx));
        printf(", \"backend_reason\": ");
        cli_json_string(stdout, tsr_ctx_backend_reason(ctx));
        printf("}\n");
    }
    cli_note_backend(cmd, ctx, cli_get(cmd, args, "quiet") || cli_get(cmd, args, "json"));
    return 0;
}

/* A comma-separated list of at most TSR_J2K_MAX_LAYERS strictly increasing numbers in [lo, hi]
 * (one per quality layer) into out[0 .. *count - 1]; 0 when v is not one. */
static int increasing_list(const char *v, double lo, double hi, double *out, uint32_t *count)
{
    *count = 0;
    for (const char *p = v;;) {
        char item[64];
        const size_t n = strcspn(p, ",");
        double x;
        if (n >= sizeof item || *count == TSR_J2K_MAX_LAYERS)
            return 0;
        memcpy(item, p, n);
        item[n] = 0;
        if (!cli_parse_double(item, lo, hi, &x) || (*count && !(x > out[*count - 1])))
            return 0;
        out[(*count)++] = x;
        if (!p[n])
            return 1;
        p += n + 1;
    }
}
/* "WxH[,WxH...]" into opt's precinct sizes: powers of two, 1 to 32768. */
static int parse_precincts(const char *v, tsr_j2k_encode_options *opt)
{
    opt->num_precincts = 0;
    for (const char *p = v;;) {
        const size_t n = strcspn(p, ",");
        char item[48];
        int32_t w, h;
        if (n == 0 || n >= sizeof item || opt->num_precincts == TSR_J2K_MAX_PRECINCT_SIZES)
            return 0;
        memcpy(item, p, n);
        item[n] = 0;
        if (!cli_parse_size(item, 32768, &w, &h) || (w & (w - 1)) || (h & (h - 1)))
            return 0;
        opt->precinct_width[opt->num_precincts] = (uint32_t)w;
        opt->precinct_height[opt->num_precincts++] = (uint32_t)h;
        if (!p[n])
            return 1;
        p += n + 1;
    }
}

static int run_encode(const cli_command *cmd, const cli_args *args, tsr_ctx *ctx)
{
    const char *in = args->positional[1], *out = args->positional[2];
    tsr_j2k_encode_options opt;
    tsr_j2k_encode_options_init(&opt);
    const char *v;
    if ((v = cli_get(cmd, args, "qstep"))) {
        double q;
        if (cli_get(cmd, args, "lossless")) {
            cli_error(cmd, "--lossless and --qstep exclude each other");
            return TSR_EXIT_USAGE;
        }
        if (!cli_parse_double(v, 1e-9, 1.0, &q)) {
            cli_error(cmd, "--qstep wants a step in (0, 1], not '%s'", v);
            return TSR_EXIT_USAGE;
        }
        opt.lossless = 0;
        opt.quant_step = (float)q;
    }
    if ((v = cli_get(cmd, args, "rate"))) {
        if (!increasing_list(v, 1e-6, 1e5, opt.rates, &opt.num_rates)) {
            cli_error(cmd,
                      "--rate wants at most %d increasing bits per pixel above 0, one per "
                      "layer, not '%s'",
                      TSR_J2K_MAX_LAYERS, v);
            return TSR_EXIT_USAGE;
        }
        opt.lossless = cli_get(cmd, args, "lossless") != NULL;
    }
    if ((v = cli_get(cmd, args, "psnr"))) {
        if (cli_get(cmd, args, "rate")) {
            cli_error(cmd, "--psnr and --rate exclude each other: give a quality or a size");
            return TSR_EXIT_USAGE;
        }
        if (!increasing_list(v, 1e-6, 999, opt.psnrs, &opt.num_psnrs)) {
            cli_error(cmd,
                      "--psnr wants at most %d increasing PSNRs in dB above 0 (below 999), one "
                      "per layer, not '%s'",
                      TSR_J2K_MAX_LAYERS, v);
            return TSR_EXIT_USAGE;
        }
        opt.lossless = cli_get(cmd, args, "lossless") != NULL;
    }
    if ((v = cli_get(cmd, args, "layers"))) {
        long long n;
        if (!cli_parse_int(v, 1, TSR_J2K_MAX_LAYERS, &n)) {
            cli_error(cmd, "--layers wants a number from 1 to %d, not '%s'", TSR_J2K_MAX_LAYERS, v);
            return TSR_EXIT_USAGE;
        }
        opt.layers = (uint32_t)n;
    }
    if ((v = cli_get(cmd, args, "levels"))) {
        long long n;
        if (!cli_parse_int(v, 0, 32, &n)) {
            cli_error(cmd, "--levels wants a number from 0 to 32, not '%s'", v);
            return TSR_EXIT_USAGE;
        }
        opt.levels = (int)n;
    }
    if ((v = cli_get(cmd, args, "cblk"))) {
        int32_t w, h;
        if (!cli_parse_size(v, 1024, &w, &h) || (w & (w - 1)) || (h & (h - 1)) || w < 4 || h < 4 ||
            w * h > 4096) {
            cli_error(cmd,
                      "--cblk wants WxH, powers of two from 4 to 1024 with W*H <= 4096, not '%s'",
                      v);
            return TSR_EXIT_USAGE;
        }
        opt.cblk_width = (uint32_t)w;
        opt.cblk_height = (uint32_t)h;
    }
    if ((v = cli_get(cmd, args, "order"))) {
        int k = -1;
        for (int i = 0; i < 5; i++)
            if (!strcasecmp(v, prog_name((tsr_j2k_progression)i)))
                k = i;
        if (k < 0) {
            cli_error(cmd, "--order wants LRCP, RLCP, RPCL, PCRL or CPRL, not '%s'", v);
            return TSR_EXIT_USAGE;
        }
        opt.order = (tsr_j2k_progression)k;
    }
    size_t olen = strlen(out);
    const char *ext = olen >= 4 ? out + olen - 4 : "";
    opt.ht = cli_get(cmd, args, "ht") != NULL || !strcasecmp(ext, ".jph");
    if (opt.ht && !cli_get(cmd, args, "order"))
        opt.order = TSR_J2K_RPCL; /* practitioners' HT default */
    if ((v = cli_get(cmd, args, "tiles"))) {
        int32_t w, h;
        if (!cli_parse_size(v, INT32_MAX, &w, &h)) {
            cli_error(cmd, "--tiles wants WxH, both sides at least 1, not '%s'", v);
            return TSR_EXIT_USAGE;
        }
        opt.tile_width = (uint32_t)w;
        opt.tile_height = (uint32_t)h;
    }
    if (!parse_point(cmd, args, "origin", &opt.x0, &opt.y0) ||
        !parse_point(cmd, args, "tile-origin", &opt.tile_x0, &opt.tile_y0))
        return TSR_EXIT_USAGE;
    if ((v = cli_get(cmd, args, "precincts")) && !parse_precincts(v, &opt)) {
        cli_error(cmd,
                  "--precincts wants WxH[,WxH...], at most %d sizes, powers of two from 1 to "
                  "32768, not '%s'",
                  TSR_J2K_MAX_PRECINCT_SIZES, v);
        return TSR_EXIT_USAGE;
    }
    if ((v = cli_get(cmd, args, "tile-parts"))) {
        if (!strcasecmp(v, "R"))
            opt.tile_parts = TSR_J2K_TP_RESOLUTION;
        else if (!strcasecmp(v, "L"))
            opt.tile_parts = TSR_J2K_TP_LAYER;
        else if (!strcasecmp(v, "C"))
            opt.tile_parts = TSR_J2K_TP_COMPONENT;
        else {
            cli_error(cmd,
                      "--tile-parts wants R (resolution), L (layer) or C (component), not '%s'", v);
            return TSR_EXIT_USAGE;
        }
    }
    opt.plt = cli_get(cmd, args, "plt") != NULL;
    opt.sync = cli_get(cmd, args, "sync") != NULL;
    opt.sop = cli_get(cmd, args, "sop") != NULL;
    opt.eph = cli_get(cmd, args, "eph") != NULL;
    opt.tlm = cli_get(cmd, args, "tlm") != NULL;
    if ((v = cli_get(cmd, args, "mode"))) {
        if (!strcasecmp(v, "fast-nonstandard"))
            opt.mode = TSR_J2K_MODE_FAST_NONSTANDARD;
        else if (strcasecmp(v, "standard")) {
            cli_error(cmd, "--mode wants standard or fast-nonstandard, not '%s'", v);
            return TSR_EXIT_USAGE;
        }
    }
    if (strcasecmp(ext, ".j2k") && strcasecmp(ext, ".j2c") && strcasecmp(ext, ".jp2") &&
        strcasecmp(ext, ".jph")) {
        cli_error(cmd, "output '%s': use a .j2k, .j2c (codestream), .jp2 or .jph name", out);
        return TSR_EXIT_USAGE;
    }
    tsr_image img;
    tsr_status st = tsr_image_load(ctx, in, &img, NULL);
    if (st)
        return cli_fail(cmd, ctx, st, in);
    size_t bytes = 0;
    tsr_j2k_encode_result est;
    opt.result = &est;
    double t0 = cli_now();
    st = tsr_j2k_encode_save(ctx, &img, &opt, out, &bytes);
    double t1 = cli_now();
    const int32_t w = img.width, h = img.height, ch = img.channels;
    const int bits = img.depth == TSR_U16 ? 16 : 8;
    tsr_image_free(ctx, &img);
    if (st)
        return cli_fail(cmd, ctx, st, in);
    if (est.rate_short && !cli_get(cmd, args, "quiet"))
        fprintf(stderr,
                "tessera j2k: note: --rate %g is below what the markers and empty packets take "
                "(tile-part headers, PLT, SOP, a packet per precinct): the file is larger; "
                "fewer tiles, tile-parts or precincts, or a higher rate, meet it\n",
                opt.rates[est.rate_short - 1]);
    if (est.psnr_short && !cli_get(cmd, args, "quiet"))
        fprintf(stderr,
                "tessera j2k: note: --psnr %g is beyond what the quantisation step gives "
                "(estimated %.2f dB with every pass: the --qstep file from that layer on); a "
                "smaller --qstep reaches higher\n",
                opt.psnrs[est.psnr_short - 1], est.psnr[est.psnr_short - 1]);
    if (cli_get(cmd, args, "json")) {
        printf("{\"command\": \"j2k encode\", \"input\": ");
        cli_json_string(stdout, in);
        printf(", \"output\": ");
        cli_json_string(stdout, out);
        printf(", \"width\": %d, \"height\": %d, \"components\": %d, \"bits\": %d, "
               "\"lossless\": %s, \"ht\": %s, \"mode\": \"%s\", \"order\": \"%s\", "
               "\"bytes\": %zu, \"bpp\": %.6f, \"seconds\": %.6f",
               w, h, ch, bits, opt.lossless ? "true" : "false", opt.ht ? "true" : "false",
               opt.mode == TSR_J2K_MODE_FAST_NONSTANDARD ? "fast-nonstandard" : "standard",
               prog_name(opt.order), bytes, 8.0 * (double)bytes / ((double)w * (double)h), t1 - t0);
        printf(", \"backend\": \"%s\", \"device\": ", tsr_backend_name(tsr_ctx_backend(ctx)));
        cli_json_string(stdout, tsr_ctx_device_name(ctx));
        printf(", \"backend_reason\": ");
        cli_json_string(stdout, tsr_ctx_backend_reason(ctx));
        if (est.layers) { /* rate control's estimate per layer; null: lossless */
            printf(", \"psnr_estimate\": [");
            for (uint32_t l = 0; l < est.layers; l++) {
                if (isinf(est.psnr[l]))
                    printf("%snull", l ? ", " : "");
                else
                    printf("%s%.3f", l ? ", " : "", est.psnr[l]);
            }
            printf("]");
        }
        printf("}\n");
    }
    cli_note_backend(cmd, ctx, cli_get(cmd, args, "quiet") || cli_get(cmd, args, "json"));
    return 0;
}

static int run_j2k(const cli_command *cmd, int argc, char **argv)
{
    cli_args args;
    int rc = cli_parse(cmd, argc, argv, &args);
    if (rc < 0)
        return 0;
    if (rc)
        return rc;
    if (args.npositional < 1) {
        cli_error(cmd, "missing sub-command: encode, decode or info (see --help)");
        return TSR_EXIT_USAGE;
    }
    const char *sub = args.positional[0];
    int is_decode = strcmp(sub, "decode") == 0, is_info = strcmp(sub, "info") == 0;
    int is_encode = strcmp(sub, "encode") == 0;
    if (!is_decode && !is_info && !is_encode) {
        cli_error(cmd, "unknown sub-command '%s' (encode, decode or info)", sub);
        return TSR_EXIT_USAGE;
    }
    if ((is_encode && args.npositional != 3) || (is_decode && args.npositional < 3)) {
        cli_error(cmd, "%s wants IN OUT%s", sub, is_decode ? " (or IN... FOLDER)" : "");
        return TSR_EXIT_USAGE;
    }
    if (is_info && args.npositional != 2) {
        cli_error(cmd, "info wants one input");
        return TSR_EXIT_USAGE;
    }
    if ((rc = refuse_foreign_options(cmd, &args, sub)))
        return rc;
    tsr_ctx *ctx;
    /* info reads headers only: the library's pixel limit unless --max-pixels is given */
    rc = is_info && !cli_get(cmd, &args, "max-pixels")
             ? cli_open_context(cmd, &args, 1, &ctx)
             : cli_open_image_context(cmd, &args, 1, &ctx);
    if (rc)
        return rc;
    cli_stop_catch();
    rc = is_info     ? run_info(cmd, &args, ctx)
         : is_encode ? run_encode(cmd, &args, ctx)
                     : run_decode(cmd, &args, ctx);
    cli_stop_release();
    tsr_ctx_destroy(ctx);
    return rc;
}

const cli_command cli_cmd_j2k = {
    "j2k",
    "encode images into JPEG 2000 (lossless, lossy, to a rate), decode JPEG 2000 (Part 1 and "
    "HTJ2K) codestreams "
    "and JP2/JPH files, inspect headers",
    "encode IN OUT [--lossless] [--ht] [--rate BPP[,BPP...] | --psnr DB[,DB...]] [--qstep Q] "
    "[--layers N] "
    "[--levels N] "
    "[--cblk WxH] [--tiles WxH] [--origin X,Y] [--tile-origin X,Y] [--precincts WxH[,WxH...]] "
    "[--order LRCP|RLCP|RPCL|PCRL|CPRL] "
    "[--sop] [--eph] [--tlm] [--plt] [--tile-parts R|L|C] [--mode standard|fast-nonstandard] "
    "[--threads N] [--json]\n"
    "       tessera j2k decode IN OUT [--reduce N] [--region X,Y,W,H] [--layers L] "
    "[--components LIST] [--threads N] [--max-pixels N]\n"
    "       tessera j2k decode IN... FOLDER [--format png|pgm|ppm|pnm|pgx] [--backend cuda] "
    "[decode options]\n"
    "       tessera j2k info IN [--json]",
    "encode: reads IN (PNG, JPEG, PNM; 8- or 16-bit gray, gray+alpha, RGB, RGBA) and writes a "
    "JPEG 2000 Part 1 file: OUT ending in .j2k or .j2c gets a raw codestream, .jp2 the JP2 "
    "file format. One tile or a grid of tiles (--tiles), one or more quality layers (--rate, "
    "--layers), maximal precincts or --precincts. "
    "Lossless (default): RCT for "
    "three or more channels, reversible 5/3 wavelet; any conforming decoder (tessera, "
    "opj_decompress, kdu_expand) gives back the input exactly. Lossy (--rate, --psnr, --qstep): "
    "ICT and "
    "9/7. "
    "The output appears atomically. "
    "decode: decodes a raw codestream (.j2k, .j2c, .jhc) or a JP2/JPH file. OUT ending in .pgx "
    "gets PGX, the conformance format: OUT itself for one component, OUT_0.pgx, OUT_1.pgx, ... "
    "otherwise, each at its own size and depth. .png, .pgm, .ppm and .pnm get an 8- or 16-bit "
    "image (components of equal size only; samples rescaled to the full 8- or 16-bit range "
    "when the precision differs). A JP2/JPH file is rendered as its boxes say: palette (pclr, "
    "cmap) expanded, cdef channel order, and sYCC, e-sYCC and restricted ICC profiles "
    "(monochrome, which gives RGB, or RGB matrix/TRC) converted to sRGB; other colour "
    "specifications (ROMM-RGB, CIELab, LUT-based ICC profiles, ...) are output as decoded "
    "with a warning. A truncated codestream decodes what it holds, with a "
    "warning. Malformed or unsupported input gives a message naming the problem and the byte "
    "offset, exit status 1 and no output. With several inputs, an input folder (its files in "
    "name order) or an output folder (created if missing), every input is decoded into "
    "FOLDER/NAME.EXT (NAME its file name without the extension, EXT from --format, png by "
    "default); on --backend cuda the files go through the library's batch call "
    "(tsr_j2k_decode_images), pipelined: the host reads one file's packets while the GPU "
    "decodes the one before, and an image comes down while the next one's kernels run. A "
    "file that fails is reported on stderr (one line naming it) and the others are written, "
    "with exit status 1 at the end; progress is shown on a terminal. "
    "info: prints the main-header parameters.",
    j2k_options,
    "  tessera j2k encode photo.png photo.jp2\n"
    "  tessera j2k encode scan.pgm scan.j2k --levels 6 --cblk 32x32 --order RPCL --json\n"
    "  tessera j2k encode photo.png small.jp2 --qstep 0.02\n"
    "  tessera j2k encode photo.png web.jp2 --rate 1\n"
    "  tessera j2k encode photo.png layered.jp2 --rate 0.25,0.5,1,2\n"
    "  tessera j2k encode photo.png q.jp2 --psnr 30,35,40 --json\n"
    "  tessera j2k encode scan.png scan.jp2 --lossless --layers 6\n"
    "  tessera j2k encode map.png map.j2k --tiles 512x512 --order RPCL --tile-parts R --tlm --plt\n"
    "  tessera j2k encode part.png part.j2k --lossless --origin 1001,37 --tiles 256x256 "
    "--tile-origin 1000,0\n"
    "  tessera j2k encode photo.png p.j2k --rate 1 --precincts 256x256,128x128 --order PCRL\n"
    "  tessera j2k encode photo.png fast.j2k --mode fast-nonstandard   # tessera-only format\n"
    "  tessera j2k decode image.jp2 image.png\n"
    "  tessera j2k decode stream.j2k out.pgx --reduce 1\n"
    "  tessera j2k decode big.j2k crop.ppm --region 1024,1024,512,512 --threads 2\n"
    "  tessera j2k decode satellite.jp2 full.png --max-pixels 0\n"
    "  tessera j2k decode frames/ decoded/ --format pnm --backend cuda\n"
    "  tessera j2k decode a.j2k b.j2k c.jph out/ --json\n"
    "  tessera j2k info stream.j2k --json",
    run_j2k};
