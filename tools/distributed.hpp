#pragma once
// How `costdsl plan` learns whether it runs as one of several processes. The costdsl
// binary installs an MPI implementation (tools/mpi_shim.cpp) when it is built with MPI
// and launched by mpirun; everything else (the fuzz harness, a build without MPI, a
// plain run) sees a single process. Nothing here includes <mpi.h>.
#include <memory>
#include <string>
#include <vector>

namespace costdsl::cli {

class Distributed {
 public:
  virtual ~Distributed() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  // Every rank passes its bytes; rank 0 gets every rank's, in rank order (the others get {}).
  virtual std::vector<std::string> gather(const std::string& mine) = 0;
};

// The process's Distributed, or nullptr for a single process.
inline Distributed*& distributed_backend() {
  static Distributed* backend = nullptr;
  return backend;
}

}  // namespace costdsl::cli
