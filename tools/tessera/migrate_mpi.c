/* migrate_mpi.h over MPI (built when CMake finds an MPI C library). */
#include "migrate_mpi.h"

#include <mpi.h>
#include <stdlib.h>
#include <string.h>

/* Doubles per message of the reduction: bounds rank 0's receive buffer (8 MiB) and keeps every
 * count within MPI's int. */
enum { REDUCE_CHUNK = 1 << 20 };

static int launched_by_mpi(void)
{
    return getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMIX_RANK") || getenv("PMI_RANK");
}

int migrate_mpi_start(const cli_command *cmd, migrate_mpi *m)
{
    memset(m, 0, sizeof *m);
    m->size = 1;
    if (!launched_by_mpi())
        return 0;
    if (MPI_Init(NULL, NULL) != MPI_SUCCESS) {
        cli_error(cmd, "MPI_Init failed");
        return TSR_EXIT_FAILURE;
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &m->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &m->size);
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, m->rank, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &m->local_rank);
    MPI_Comm_free(&node);
    if (m->size > 1)
        cli_error_keep(m->error, sizeof m->error);
    return 0;
}

int migrate_mpi_agree(const cli_command *cmd, migrate_mpi *m, int rc)
{
    if (m->size == 1)
        return rc;
    int first = rc ? m->rank : m->size, worst = rc;
    MPI_Allreduce(MPI_IN_PLACE, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (!worst)
        return 0;
    m->agreed = 1;
    if (m->rank == first) {
        cli_error_keep(NULL, 0);
        cli_error(cmd, "rank %d of %d: %s", m->rank, m->size, m->error[0] ? m->error : "failed");
    }
    return worst;
}

/* Rank r's shots: [first, end) of n. */
static void share(int r, int size, int32_t n, int32_t *first, int32_t *end)
{
    *first = (int32_t)((int64_t)r * n / size);
    *end = (int32_t)((int64_t)(r + 1) * n / size);
}

int migrate_mpi_image(const cli_command *cmd, migrate_mpi *m, tsr_ctx *ctx, const char *in,
                      const tsr_migrate_grid *velocity, const tsr_migrate_gather *shots,
                      const tsr_migrate_options *opt, double *sum, double *reduce_ms)
{
    const size_t n = tsr_migrate_grid_cells(velocity);
    const size_t chunk = n < REDUCE_CHUNK ? n : REDUCE_CHUNK;
    int32_t first, end;
    share(m->rank, m->size, shots->nshots, &first, &end);
    memset(sum, 0, sizeof(double) * n);
    int rc = 0;
    double *part = NULL;
    if (m->rank == 0 && !(part = malloc(sizeof(double) * chunk)))
        rc = cli_fail(cmd, ctx, TSR_ERR_OUT_OF_MEMORY, NULL);
    tsr_status st;
    if (!rc && end > first &&
        (st =
             tsr_migrate_image_add(ctx, velocity, shots, opt, first, end - first, sum, NULL, NULL)))
        rc = cli_fail(cmd, ctx, st, in);
    if ((rc = migrate_mpi_agree(cmd, m, rc))) {
        free(part);
        return rc;
    }
    double t0 = MPI_Wtime();
    if (m->rank == 0) {
        for (int r = 1; r < m->size; r++) {
            share(r, m->size, shots->nshots, &first, &end);
            for (size_t i = 0; end > first && i < n; i += chunk) {
                int count = (int)(n - i < chunk ? n - i : chunk);
                MPI_Recv(part, count, MPI_DOUBLE, r, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                for (int k = 0; k < count; k++)
                    sum[i + (size_t)k] += part[k];
            }
        }
        *reduce_ms = 1e3 * (MPI_Wtime() - t0);
    } else {
        for (size_t i = 0; end > first && i < n; i += chunk)
            MPI_Send(sum + i, (int)(n - i < chunk ? n - i : chunk), MPI_DOUBLE, 0, 0,
                     MPI_COMM_WORLD);
    }
    free(part);
    return 0;
}

int migrate_mpi_stop(const cli_command *cmd, migrate_mpi *m, int rc)
{
    if (m->size > 1 && !m->agreed)
        rc = migrate_mpi_agree(cmd, m, rc);
    cli_error_keep(NULL, 0);
    int started = 0;
    MPI_Initialized(&started);
    if (started)
        MPI_Finalize();
    return rc;
}
