#pragma once
// The shared shape of the NCCL ring collectives (all_reduce, all_gather,
// reduce_scatter): Config = the group size, Input = the message in NCCL's size
// convention, work = the bus bytes each rank puts on the link.
#include <array>
#include <string>
#include <vector>

#include "costdsl/detail/str.hpp"
#include "costdsl/dim.hpp"
#include "costdsl/fixed_string.hpp"
#include "costdsl/kernel_def.hpp"
#include "costdsl/reflect.hpp"

namespace costdsl::kernels::detail {

template <CollectiveKind C, FixedString Kind>
struct BusCollective {
  static constexpr std::string_view kind = Kind.view();
  static constexpr Family family = Family::communication;
  static constexpr CollectiveKind collective = C;

  struct Config {
    COSTDSL_FIELDS((Dim, num_gpus));
  };
  struct Input {
    COSTDSL_FIELDS((std::uint64_t, bytes));
  };
  static constexpr std::array<std::string_view, 1> axes{"bytes"};

  static std::array<double, 1> point(const Config&, const Input& in) { return {double(in.bytes)}; }
  // Time is latency plus bytes over bandwidth: interpolate linearly (see Kernel::fit).
  static constexpr std::array<interp::AxisScale, 1> axis_scales{interp::AxisScale::linear};

  static int gpus(const Config& c) { return static_cast<int>(c.num_gpus.value); }
  // 0 by choice: gathers compute nothing, and a reduction's (n−1)/n adds per element
  // run on the SMs far below any roof while the link is the bottleneck.
  static double flops(const Config&, const Input&) { return 0; }
  // Bus bytes each rank puts on the link: bus_factor · message (0 on one GPU).
  static double bytes(const Config& c, const Input& in) { return bus_factor(C, gpus(c)) * double(in.bytes); }

  static Metrics roofline(const Roofline& rf, const Config& c, const Input& in) {
    return rf.collective(C, double(in.bytes), gpus(c));
  }
  static double lower_bound_s(const Roofline& rf, const Config& c, const Input& in) {
    return rf.collective_lower_bound_s(C, double(in.bytes), gpus(c));
  }

  // Message sizes 2 KiB .. 1 GiB, powers of two (20 points).
  static std::vector<Input> sweep(const Config&) {
    std::vector<Input> grid;
    for (std::uint64_t b = 2048; b <= (1ull << 30); b *= 2) grid.push_back({b});
    return grid;
  }
  static std::vector<std::string> default_backends() { return {"nccl"}; }

  // One GPU is a valid degenerate group: a zero-time no-op (flops = bytes = 0).
  static constexpr std::uint64_t max_gpus = 65536;
  static void validate(const Config& c) {
    if (c.num_gpus == 0 || c.num_gpus > max_gpus)
      throw ConfigError(costdsl::detail::str(kind, ": num_gpus ", c.num_gpus.value, " must be in 1..", max_gpus));
  }
};

}  // namespace costdsl::kernels::detail
