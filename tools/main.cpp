// costdsl: the command-line face of the library (see app.hpp).
#include <iostream>
#include <memory>
#include <string_view>

#include "app.hpp"
#ifdef COSTDSL_WITH_MPI
#include "mpi_shim.hpp"
#endif

int main(int argc, char** argv) {
#ifdef COSTDSL_WITH_MPI
  std::unique_ptr<costdsl::cli::Distributed> mpi;
  try {
    mpi = costdsl::cli::start_mpi_if_launched(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "costdsl: internal error: " << e.what() << '\n';
    return 1;
  }
  costdsl::cli::distributed_backend() = mpi.get();
  // Under mpirun only `plan` shares its work out; any other command runs on rank 0 alone.
  if (mpi && mpi->rank() != 0 && !(argc > 1 && std::string_view(argv[1]) == "plan")) return 0;
  const int rc = costdsl::cli::run(argc, argv);
  costdsl::cli::distributed_backend() = nullptr;
  return rc;
#else
  return costdsl::cli::run(argc, argv);
#endif
}
