#pragma once
// The timing context a kernel is bound to: which GPU, its roofline, the
// measured profile tables (if any) and which source to use.
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "costdsl/error.hpp"
#include "costdsl/gpu_spec.hpp"
#include "costdsl/profile_db.hpp"
#include "costdsl/roofline.hpp"

namespace costdsl {

// auto: measured where the profile DB covers the kernel, roofline otherwise.
// profile: measured only; an uncovered leaf is zero flagged NO_COVERAGE.
// roofline: analytic only.
enum class TimingMode : std::uint8_t { automatic, profile, roofline };

inline TimingMode parse_timing_mode(std::string_view s) {
  if (s == "auto") return TimingMode::automatic;
  if (s == "profile") return TimingMode::profile;
  if (s == "roofline") return TimingMode::roofline;
  throw InputError("timing '" + std::string(s) + "' is not one of auto, profile, roofline");
}

class Timing {
 public:
  Timing(GpuSpec gpu, RooflineParams params, std::shared_ptr<ProfileDb> profiles, TimingMode mode)
      : gpu_(std::move(gpu)),
        roofline_(std::make_shared<const Roofline>(gpu_, params)),
        profiles_(std::move(profiles)),
        mode_(mode) {}

  // The shipped data: data/gpus.json, data/roofline.json, data/profiles/ (or profile_dir).
  static Timing for_gpu(std::string_view gpu_name, TimingMode mode = TimingMode::automatic,
                        std::optional<std::filesystem::path> profile_dir = std::nullopt) {
    const GpuCatalog catalog = GpuCatalog::load_default();
    auto db = std::make_shared<ProfileDb>(profile_dir ? *profile_dir : default_data_dir() / "profiles");
    return Timing(catalog.find(gpu_name), RooflineParams::load_default(), std::move(db), mode);
  }

  const GpuSpec& gpu() const noexcept { return gpu_; }
  const std::shared_ptr<const Roofline>& roofline() const noexcept { return roofline_; }
  ProfileDb* profiles() const noexcept { return profiles_.get(); }
  TimingMode mode() const noexcept { return mode_; }

 private:
  GpuSpec gpu_;
  std::shared_ptr<const Roofline> roofline_;
  std::shared_ptr<ProfileDb> profiles_;
  TimingMode mode_;
};

}  // namespace costdsl
