/* The MPI driver of `tessera migrate image`: under mpirun, the ranks split the survey's shots and
 * rank 0 sums their images. MPI stays out of libtessera: each rank migrates its shots with
 * tsr_migrate_image_add into a double sum, and the sums meet here. A build without MPI has the
 * same calls (migrate_mpi_none.c): every process is a plain run, rank 0 of 1.
 *
 * Shots: rank r of N takes the contiguous range [r n / N, (r + 1) n / N) of the n shots (in the
 * gather's order). Rank 0's sum becomes (((S_0 + S_1) + S_2) + ... + S_{N-1}), each S_r the sum
 * of rank r's shot images in shot order (a rank with no shots is left out), added in rank order
 * by rank 0 whatever the transport, so a run on N ranks is deterministic wherever a shot's image
 * is (reference backend; cpu with --threads 1) and its image does not depend on MPI's reduction
 * tree. One rank is the plain run bit for bit. N ranks differ from one rank only in where the
 * parentheses of that double sum fall: per sample at most 2 (n - 1) 2^-53 sum_k |I_k| in the
 * double sum, then the rounding to float (tests/cli/test_migrate_mpi_cli.sh checks this bound).
 *
 * Errors: the ranks agree at fixed points (migrate_mpi_agree); a rank that fails keeps its
 * error line (cli_error_keep) and goes straight to migrate_mpi_stop, which agrees once more, so
 * every rank reaches the same number of agreements and exits with the largest status of all,
 * the lowest failing rank's line printed once as "tessera migrate: rank R of N: ...". */
#ifndef TSR_MIGRATE_MPI_H
#define TSR_MIGRATE_MPI_H

#include "cli.h"

typedef struct migrate_mpi {
    int rank, size;   /* this process of the run's size; 0 of 1 in a plain run */
    int local_rank;   /* among the run's processes on this machine */
    int agreed;       /* a failure was agreed: migrate_mpi_stop agrees no more */
    char error[1024]; /* this rank's first error line (with more than one rank) */
} migrate_mpi;

/* Starts MPI when this process was launched by an MPI launcher, which the environment says
 * (OMPI_COMM_WORLD_SIZE: Open MPI's mpirun; PMIX_RANK or PMI_RANK: PMIx and PMI launchers such
 * as srun and MPICH's hydra); a process started otherwise never initialises MPI (a plain run
 * costs nothing and needs no launcher). With more than one rank, cli_error lines are kept in
 * m->error from here on. Returns 0, or an exit status after printing why MPI did not start. */
int migrate_mpi_start(const cli_command *cmd, migrate_mpi *m);

/* Collective over the ranks (every rank calls it at the same point): rc is this rank's status
 * so far (0: fine). Returns the largest status of the ranks; where one failed, the lowest failing
 * rank has printed its kept line. One rank: returns rc. */
int migrate_mpi_agree(const cli_command *cmd, migrate_mpi *m, int rc);

/* Collective: this rank's share of image migration. Zeroes sum (nx * nz doubles, as
 * tsr_migrate_image_add wants), adds this rank's shots into it, agrees, and on success leaves
 * rank 0's sum the rank-ordered total of the header; *reduce_ms (rank 0) is the wall time of
 * that gather and sum, from when every rank had finished its shots. Returns 0 or the agreed
 * exit status (the failure printed once). Only for m->size > 1. */
int migrate_mpi_image(const cli_command *cmd, migrate_mpi *m, tsr_ctx *ctx, const char *in,
                      const tsr_migrate_grid *velocity, const tsr_migrate_gather *shots,
                      const tsr_migrate_options *opt, double *sum, double *reduce_ms);

/* Ends the run: agrees rc with the other ranks unless a failure was agreed already, finalises
 * MPI where migrate_mpi_start started it, and returns the process's exit status. */
int migrate_mpi_stop(const cli_command *cmd, migrate_mpi *m, int rc);

#endif
