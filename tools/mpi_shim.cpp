// MPI behind tools/distributed.hpp: the only translation unit that includes <mpi.h>.
#include "mpi_shim.hpp"

#include <mpi.h>

#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

namespace costdsl::cli {
namespace {

class MpiDistributed final : public Distributed {
 public:
  MpiDistributed(int& argc, char**& argv) {
    if (MPI_Init(&argc, &argv) != MPI_SUCCESS) throw std::runtime_error("MPI_Init failed");
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
  }
  ~MpiDistributed() override { MPI_Finalize(); }
  MpiDistributed(const MpiDistributed&) = delete;
  MpiDistributed& operator=(const MpiDistributed&) = delete;

  int rank() const override { return rank_; }
  int size() const override { return size_; }

  std::vector<std::string> gather(const std::string& mine) override {
    if (mine.size() > static_cast<std::size_t>(INT32_MAX)) throw std::runtime_error("MPI gather: more than 2 GiB");
    const int n = static_cast<int>(mine.size());
    std::vector<int> sizes(rank_ == 0 ? size_ : 0), offsets(rank_ == 0 ? size_ : 0);
    MPI_Gather(&n, 1, MPI_INT, sizes.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
    std::string all;
    if (rank_ == 0) {
      long long total = 0;
      for (int r = 0; r < size_; ++r) {
        offsets[r] = static_cast<int>(total);
        total += sizes[r];
      }
      if (total > INT32_MAX) throw std::runtime_error("MPI gather: more than 2 GiB in all");
      all.resize(static_cast<std::size_t>(total));
    }
    MPI_Gatherv(mine.data(), n, MPI_BYTE, all.data(), sizes.data(), offsets.data(), MPI_BYTE, 0, MPI_COMM_WORLD);
    std::vector<std::string> out;
    if (rank_ == 0)
      for (int r = 0; r < size_; ++r) out.push_back(all.substr(offsets[r], sizes[r]));
    return out;
  }

 private:
  int rank_ = 0, size_ = 1;
};

bool launched_by_mpi() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK"})
    if (const char* s = std::getenv(v); s != nullptr && *s != '\0') return true;
  return false;
}

}  // namespace

std::unique_ptr<Distributed> start_mpi_if_launched(int& argc, char**& argv) {
  if (!launched_by_mpi()) return nullptr;
  return std::make_unique<MpiDistributed>(argc, argv);
}

}  // namespace costdsl::cli
