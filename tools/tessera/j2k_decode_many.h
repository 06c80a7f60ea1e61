/* tessera j2k decode with several inputs or a folder of them (j2k_decode_many.c), and the j2k
 * command's file reader. */
#ifndef TSR_TOOLS_J2K_DECODE_MANY_H
#define TSR_TOOLS_J2K_DECODE_MANY_H

#include "cli.h"

/* Decodes every input (files; a folder stands for the files in it, in name order, hidden ones
 * skipped) into folder/NAME.EXT, NAME the input's file name without its extension, EXT ext
 * (png, pgm, ppm, pnm or pgx). On the CUDA backend the files go through tsr_j2k_decode_images
 * in groups (pipelined: one file's packets read while the device decodes the one before);
 * otherwise one tsr_j2k_decode_save each. Progress on a terminal (unless quiet); a file that
 * fails is reported on stderr in one line and the others are still written; warnings one line
 * a file (unless quiet); with json a summary on stdout. Returns 0, TSR_EXIT_FAILURE when a file
 * failed (after all the others), TSR_EXIT_USAGE for names that collide or a bad --format, or
 * TSR_EXIT_INTERRUPTED after a signal (the files finished so far are written). */
int j2k_decode_many(const cli_command *cmd, const cli_args *args, tsr_ctx *ctx,
                    const tsr_j2k_decode_options *opt, char *const *inputs, int ninputs,
                    const char *folder, const char *ext);

/* 1 when path names a folder. */
int j2k_is_folder(const char *path);
/* Reads the whole file at path into *data (malloc'd) and *len; 0, or TSR_EXIT_FAILURE after a
 * message naming the file. */
int j2k_read_file(const cli_command *cmd, const char *path, uint8_t **data, size_t *len);
/* 1 when the stream's header reads and says it is not JPEG 2000 (tsr_j2k_info.nonstandard:
 * tessera's fast-nonstandard coder); then, unless quiet, a note naming in on stderr. */
int j2k_note_nonstandard(tsr_ctx *ctx, const uint8_t *data, size_t len, const char *in, int quiet);

#endif
