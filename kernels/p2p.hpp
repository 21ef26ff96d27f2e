#pragma once
// L1 p2p: one send/recv pair between two ranks (pipeline-stage hand-off), per rank.
// num_gpus is the span of GPUs the pair lives in: ≤ gpus_per_node crosses NVLink,
// more crosses the network. Input `bytes` = the message.
#include <array>
#include <string>
#include <vector>

#include "costdsl/detail/str.hpp"
#include "costdsl/dim.hpp"
#include "costdsl/kernel_def.hpp"
#include "costdsl/kernels/detail/compiled_once.hpp"
#include "costdsl/reflect.hpp"

namespace costdsl::kernels {

struct P2p {
  static constexpr std::string_view kind = "p2p";
  static constexpr Family family = Family::communication;

  struct Config {
    COSTDSL_FIELDS((Dim, num_gpus));
  };
  struct Input {
    COSTDSL_FIELDS((std::uint64_t, bytes));
  };
  static constexpr std::array<std::string_view, 1> axes{"bytes"};

  static std::array<double, 1> point(const Config&, const Input& in) { return {double(in.bytes)}; }

  static int gpus(const Config& c) { return static_cast<int>(c.num_gpus.value); }
  // A span of one GPU has no peer: nothing moves.
  static bool local(const Config& c) { return c.num_gpus <= 1; }
  // 0: a transfer computes nothing.
  static double flops(const Config&, const Input&) { return 0; }
  // The message crosses the link once (bus factor 1).
  static double bytes(const Config& c, const Input& in) { return local(c) ? 0 : double(in.bytes); }

  static Metrics roofline(const Roofline& rf, const Config& c, const Input& in) {
    if (local(c)) return Metrics{};
    return rf.collective(CollectiveKind::p2p, double(in.bytes), gpus(c));
  }
  static double lower_bound_s(const Roofline& rf, const Config& c, const Input& in) {
    return local(c) ? 0 : rf.collective_lower_bound_s(CollectiveKind::p2p, double(in.bytes), gpus(c));
  }

  // Message sizes 2 KiB .. 1 GiB, powers of two (20 points).
  static std::vector<Input> sweep(const Config&) {
    std::vector<Input> grid;
    for (std::uint64_t b = 2048; b <= (1ull << 30); b *= 2) grid.push_back({b});
    return grid;
  }
  static std::vector<std::string> default_backends() { return {"nccl"}; }

  static void validate(const Config& c) {
    if (c.num_gpus == 0 || c.num_gpus > max_gpus)
      throw ConfigError(costdsl::detail::str("p2p: num_gpus ", c.num_gpus.value, " must be in 1..", max_gpus));
  }
  static constexpr std::uint64_t max_gpus = 65536;
};

}  // namespace costdsl::kernels

COSTDSL_KERNEL_COMPILED_ONCE(P2p);
