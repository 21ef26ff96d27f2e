#pragma once
// The MPI implementation of Distributed, compiled into the costdsl binary only when
// meson finds MPI (tools/mpi_shim.cpp is the one file that includes <mpi.h>).
#include <memory>

#include "distributed.hpp"

namespace costdsl::cli {

// Initialises MPI when this process was started by an MPI launcher (mpirun sets
// OMPI_COMM_WORLD_SIZE or PMIX_RANK), else returns nullptr and leaves MPI alone, so a
// plain `costdsl ...` never pays for (or depends on) MPI start-up. The object finalises
// MPI when it is destroyed.
std::unique_ptr<Distributed> start_mpi_if_launched(int& argc, char**& argv);

}  // namespace costdsl::cli
