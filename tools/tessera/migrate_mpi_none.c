/* migrate_mpi.h in a build without MPI: every process is a plain run, rank 0 of 1, and the
 * collective calls reduce to their one-process meaning. */
#include "migrate_mpi.h"

#include <string.h>

int migrate_mpi_start(const cli_command *cmd, migrate_mpi *m)
{
    (void)cmd;
    memset(m, 0, sizeof *m);
    m->size = 1;
    return 0;
}

int migrate_mpi_agree(const cli_command *cmd, migrate_mpi *m, int rc)
{
    (void)cmd, (void)m;
    return rc;
}

int migrate_mpi_image(const cli_command *cmd, migrate_mpi *m, tsr_ctx *ctx, const char *in,
                      const tsr_migrate_grid *velocity, const tsr_migrate_gather *shots,
                      const tsr_migrate_options *opt, double *sum, double *reduce_ms)
{
    (void)m, (void)ctx, (void)velocity, (void)shots, (void)opt, (void)sum, (void)reduce_ms;
    cli_error(cmd, "%s: this tessera was built without MPI", in);
    return TSR_EXIT_FAILURE;
}

int migrate_mpi_stop(const cli_command *cmd, migrate_mpi *m, int rc)
{
    (void)cmd, (void)m;
    return rc;
}
