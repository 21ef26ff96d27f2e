#pragma once
// The measured profile DB: data/profiles/<gpu>/<kind>.csv, loaded on first use
// (strictly: see profile_csv.hpp) and fitted into interpolating caches that the
// kernels bound to it share.
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "costdsl/profile_csv.hpp"

namespace costdsl {

class ProfileDb {
 public:
  explicit ProfileDb(std::filesystem::path root) : root_(std::move(root)) {}

  const std::filesystem::path& root() const noexcept { return root_; }

  // The table of `schema.kind` measured on `gpu` (a canonical GPU name), or
  // nullptr when there is no such file. A malformed file throws a DataError.
  const ProfileTable* table(const std::string& gpu, const ProfileSchema& schema) {
    const std::filesystem::path file = root_ / gpu / (schema.kind + ".csv");
    auto it = tables_.find(file.string());
    if (it == tables_.end()) {
      std::unique_ptr<ProfileTable> t;
      if (std::filesystem::exists(file)) t = std::make_unique<ProfileTable>(load_profile_csv(file, schema, &warnings_));
      it = tables_.emplace(file.string(), std::move(t)).first;
    }
    return it->second.get();
  }

  // The fitted cache of one group, built once by `fit` and shared after that.
  template <class Cache, class Fit>
  std::shared_ptr<const Cache> cache(const ProfileGroup& group, std::string_view what, Fit&& fit) {
    const std::pair<const void*, std::string> key{&group, std::string(what)};
    auto it = caches_.find(key);
    if (it == caches_.end()) it = caches_.emplace(key, std::make_shared<const Cache>(fit(&warnings_))).first;
    return std::static_pointer_cast<const Cache>(it->second);
  }

  // Fit-time warnings (dropped samples, monotonicity breaks), in order.
  const std::vector<std::string>& warnings() const noexcept { return warnings_; }

 private:
  std::filesystem::path root_;
  std::map<std::string, std::unique_ptr<ProfileTable>> tables_;
  std::map<std::pair<const void*, std::string>, std::shared_ptr<const void>> caches_;
  std::vector<std::string> warnings_;
};

}  // namespace costdsl
