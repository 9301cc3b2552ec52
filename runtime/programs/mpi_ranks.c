/*
** mpi_ranks.c — lgc_main_mpi: the model's program for `lagrangec sweep` when
** lagrangec is built with MPI (liblagrangec-program-mpi.a). Started by an
** MPI launcher (mpirun, srun), its processes are the ranks of one job and
** share the sweep's runs; started any other way it is lgc_main, and MPI is
** never initialised (no singleton MPI job is made behind the user's back).
*/
#include <mpi.h>
#include <string.h>

#include "lagrangec/program.h"
#include "programs.h"

static void barrier(void)
{
    MPI_Barrier(MPI_COMM_WORLD);
}

static void sum(unsigned long v[], int n)
{
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Reduce(rank == 0 ? MPI_IN_PLACE : v, v, n, MPI_UNSIGNED_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
}

static int max(int value)
{
    int all;
    MPI_Allreduce(&value, &all, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return all;
}

int lgc_main_mpi(const lgc_model *model, int argc, char **argv)
{
    /* Only a sweep is a job's rank: the program run without a command (the cache's check) never starts MPI. */
    if (lgc_mpi_launched() == 0 || argc < 2 || strcmp(argv[1], "sweep") != 0)
        return lgc_main_ranks(model, NULL, argc, argv);
    lgc_ranks ranks = {0, 1, barrier, sum, max};
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &ranks.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks.size);
    int rc = lgc_main_ranks(model, &ranks, argc, argv);
    MPI_Finalize();
    return rc;
}
