#pragma once
// The timing context a kernel is bound to: which GPU, its roofline, where measured
// tables come from (a ProfileSource) and which source to use. Loading one from the
// shipped data: load_timing.hpp.
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "costdsl/error.hpp"
#include "costdsl/expert_load.hpp"
#include "costdsl/gpu_spec.hpp"
#include "costdsl/profile_source.hpp"
#include "costdsl/roofline.hpp"

namespace costdsl {

// auto: measured where the profile source covers the kernel, roofline otherwise.
// profile: measured only; an uncovered leaf is zero flagged NO_COVERAGE.
// roofline: analytic only.
enum class TimingMode : std::uint8_t { automatic, profile, roofline };

namespace detail {
// One number per distinct binding request (a kernel kind, its config, backends and
// preferred framework) made through one Timing and its copies. Binding is a function of
// the request and the Timing, so kernels with the same number answer alike: the hot
// path tells repeated slots apart with one compare (detail/shared_slots.hpp). Build time
// only; trees may be built from one Timing on several threads.
class AnswerIds {
 public:
  std::uint32_t id(const std::string& request) {
    const std::lock_guard<std::mutex> lock(mutex_);
    return ids_.try_emplace(request, static_cast<std::uint32_t>(ids_.size())).first->second;
  }

 private:
  std::mutex mutex_;
  std::map<std::string, std::uint32_t> ids_;
};
}  // namespace detail

inline TimingMode parse_timing_mode(std::string_view s) {
  if (s == "auto") return TimingMode::automatic;
  if (s == "profile") return TimingMode::profile;
  if (s == "roofline") return TimingMode::roofline;
  throw InputError("timing '" + std::string(s) + "' is not one of auto, profile, roofline");
}

class Timing {
 public:
  Timing(GpuSpec gpu, RooflineParams params, std::shared_ptr<ProfileSource> profiles, TimingMode mode)
      : gpu_(std::move(gpu)),
        roofline_(std::make_shared<const Roofline>(gpu_, params)),
        profiles_(std::move(profiles)),
        mode_(mode) {}

  const GpuSpec& gpu() const noexcept { return gpu_; }
  const std::shared_ptr<const Roofline>& roofline() const noexcept { return roofline_; }
  ProfileSource* profiles() const noexcept { return profiles_.get(); }
  TimingMode mode() const noexcept { return mode_; }

  // How many counts (0 .. n-1) each analytic leaf with one count input remembers its
  // time for (detail/analytic_memo.hpp): 8 bytes per count per such leaf, allocated when
  // the leaf is bound. The default covers a serving engine's token budgets; 0 turns the
  // memo off. Results are bitwise the same either way.
  static constexpr std::uint32_t default_analytic_memo = 8192;
  std::uint32_t analytic_memo() const noexcept { return analytic_memo_; }
  Timing with_analytic_memo(std::uint32_t counts) const {
    Timing t = *this;
    t.analytic_memo_ = counts;
    return t;
  }

  // The serving framework (sglang, trtllm, vllm) whose measured kernels a leaf prefers:
  // where that framework's table holds the config, other frameworks' tables are set aside;
  // where it does not, the fastest other measurement answers, as with none preferred
  // (empty, the default). Backends that are no framework's (nccl, custom, cublaslt, ...)
  // always compete. Names: kernel_frameworks.
  const std::string& kernel_framework() const noexcept { return kernel_framework_; }
  Timing with_kernel_framework(std::string framework) const {
    if (!framework.empty() && !is_kernel_framework(framework))
      throw InputError("kernel framework '" + framework + "' is not one of sglang, trtllm, vllm");
    Timing t = *this;
    t.kernel_framework_ = std::move(framework);
    return t;
  }
  // Kinds whose kernel in the deployment being modelled is not the one any table measured
  // (a serving recipe's choice, e.g. DeepGEMM experts where the fused-MoE tables time
  // another kernel): their leaves take the roofline, flagged ANALYTIC, rather than another
  // kernel's measurements. Empty by default.
  bool takes_roofline(std::string_view kind) const noexcept {
    for (const std::string& k : roofline_kinds_)
      if (k == kind) return true;
    return false;
  }
  const std::vector<std::string>& roofline_kinds() const noexcept { return roofline_kinds_; }
  Timing with_roofline_kinds(std::vector<std::string> kinds) const {
    Timing t = *this;
    t.roofline_kinds_ = std::move(kinds);
    return t;
  }
  // The expert routing the MoE leaves' tables were measured under (expert_load.hpp): a
  // model opened through its family takes the family's (FamilyInfo::expert_load) unless
  // costdsl skews the routing itself (--routing-skew), which balanced measurements then
  // carry. Balanced by default.
  ExpertLoad expert_load() const noexcept { return expert_load_; }
  Timing with_expert_load(ExpertLoad load) const {
    Timing t = *this;
    t.expert_load_ = load;
    return t;
  }
  // The backend names that are a serving framework's (aiconfigurator's tables name them).
  static constexpr std::string_view kernel_frameworks[] = {"sglang", "trtllm", "vllm"};
  // The number of a binding request (detail::AnswerIds): equal only for equal requests
  // through this Timing or a copy of it (whose roofline object it shares).
  std::uint32_t answer_id(const std::string& request) const { return answer_ids_->id(request); }

  static bool is_kernel_framework(std::string_view backend) noexcept {
    for (std::string_view f : kernel_frameworks)
      if (f == backend) return true;
    return false;
  }

 private:
  GpuSpec gpu_;
  std::shared_ptr<const Roofline> roofline_;
  std::shared_ptr<ProfileSource> profiles_;
  TimingMode mode_;
  std::uint32_t analytic_memo_ = default_analytic_memo;
  std::string kernel_framework_;
  std::vector<std::string> roofline_kinds_;
  ExpertLoad expert_load_ = ExpertLoad::balanced;
  std::shared_ptr<detail::AnswerIds> answer_ids_ = std::make_shared<detail::AnswerIds>();
};

}  // namespace costdsl
