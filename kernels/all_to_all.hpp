#pragma once
// L1 all_to_all: MoE token dispatch / combine, and the HP exchange of partial attention
// outputs of KV-parallel decode, across num_gpus ranks (per rank, NCCL). Routing is
// uneven, so a rank's send and receive volumes differ; the slowest rank (max over ranks,
// taken upstream) sets the step's time.
#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include "costdsl/detail/str.hpp"
#include "costdsl/dim.hpp"
#include "costdsl/kernel_def.hpp"
#include "costdsl/kernels/detail/compiled_once.hpp"
#include "costdsl/reflect.hpp"

namespace costdsl::kernels {

struct AllToAll {
  static constexpr std::string_view kind = "all_to_all";
  static constexpr Family family = Family::communication;

  struct Config {
    COSTDSL_FIELDS((Dim, num_gpus));
  };
  // This rank's total send and receive buffers (its own slice included).
  struct Input {
    COSTDSL_FIELDS((std::uint64_t, send_bytes), (std::uint64_t, recv_bytes));
  };
  static constexpr std::array<std::string_view, 2> axes{"send_bytes", "recv_bytes"};

  static std::array<double, 2> point(const Config&, const Input& in) {
    return {double(in.send_bytes), double(in.recv_bytes)};
  }
  static Input input_at(const Config&, const std::array<double, 2>& at) {
    return {costdsl::detail::count_at(at[0]), costdsl::detail::count_at(at[1])};
  }
  // Send and receive are additive loads on the link: extend off-grid with per-axis slopes.
  static constexpr interp::OffGrid off_grid = interp::OffGrid::weighted;

  static int gpus(const Config& c) { return static_cast<int>(c.num_gpus.value); }
  // Full-duplex links: the larger direction is the message the roofline times.
  static double message(const Input& in) { return double(std::max(in.send_bytes, in.recv_bytes)); }
  // 0: a permutation of data computes nothing.
  static double flops(const Config&, const Input&) { return 0; }
  // Bus bytes: (n−1)/n of the larger direction leaves the rank (its own slice stays); 0 on one GPU.
  static double bytes(const Config& c, const Input& in) {
    return bus_factor(CollectiveKind::all_to_all, gpus(c)) * message(in);
  }

  static Metrics roofline(const Roofline& rf, const Config& c, const Input& in) {
    return rf.collective(CollectiveKind::all_to_all, message(in), gpus(c));
  }
  static double lower_bound_s(const Roofline& rf, const Config& c, const Input& in) {
    return rf.collective_lower_bound_s(CollectiveKind::all_to_all, message(in), gpus(c));
  }

  // send × recv, each 2 KiB .. 1 GiB in powers of two (400 points): the off-diagonal
  // cells are the imbalanced ranks of real routing.
  static std::vector<Input> sweep(const Config&) {
    std::vector<Input> grid;
    for (std::uint64_t s = 2048; s <= (1ull << 30); s *= 2)
      for (std::uint64_t r = 2048; r <= (1ull << 30); r *= 2) grid.push_back({s, r});
    return grid;
  }
  static std::vector<std::string> default_backends() { return {"nccl"}; }

  // One GPU is a valid degenerate group: a zero-time no-op (flops = bytes = 0).
  static void validate(const Config& c) {
    if (c.num_gpus == 0 || c.num_gpus > max_gpus)
      throw ConfigError(costdsl::detail::str("all_to_all: num_gpus ", c.num_gpus.value, " must be in 1..", max_gpus));
  }
  static constexpr std::uint64_t max_gpus = 65536;
};

}  // namespace costdsl::kernels

COSTDSL_KERNEL_COMPILED_ONCE(AllToAll);
