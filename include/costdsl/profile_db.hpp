#pragma once
// The measured profile DB: data/profiles/<gpu>/<kind>.csv, loaded on first use
// (strictly: see profile_csv.hpp) and fitted into interpolating caches that the
// kernels bound to it share. The ProfileSource a Timing hands its kernels.
#include <cstddef>
#include <filesystem>
#include <map>
#include <set>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "costdsl/detail/config.hpp"
#include "costdsl/profile_csv.hpp"
#include "costdsl/profile_source.hpp"

namespace costdsl {

class ProfileDb final : public ProfileSource {
 public:
  explicit ProfileDb(std::filesystem::path root) : root_(std::move(root)) {}

  const std::filesystem::path& root() const noexcept { return root_; }

  // The table of `schema.kind` measured on `gpu` (a canonical GPU name), or
  // nullptr when there is no such file. A malformed file throws a DataError.
  COSTDSL_DECL const ProfileTable* table(const std::string& gpu, const ProfileSchema& schema);

  // Every shape the source measured of `schema.kind` on `gpu`: root/all/<gpu>/<kind>.csv.gz
  // (complete_profile_path), or nullptr. The tables above hold the shapes the shipped
  // models bind, read at start-up; this one is read, once, only when a config misses them
  // (a model of its own). A damaged stream or table throws a DataError naming the file.
  COSTDSL_DECL const ProfileTable* complete_table(const std::string& gpu, const ProfileSchema& schema);

  // The (config, backend) keys of the complete table, from its index beside it
  // (<kind>.configs: one `backend,config...` line per measured config), or nullptr when
  // there is no index: a miss reads the compressed table only when it holds the config
  // (or, for a kind that blends neighbouring configs, may hold neighbours).
  COSTDSL_DECL const std::set<ProfileKey>* complete_keys(const std::string& gpu, const ProfileSchema& schema);

  // Finds each backend's rows for the request's config (or, for a config between
  // measured ones, its neighbours' rows) and fits them (once: kernels with the same
  // config share the caches).
  COSTDSL_DECL std::vector<BackendTables> bind(const TableRequest& request) override;

  COSTDSL_DECL std::vector<std::vector<std::string>> keys(const std::string& gpu, const ProfileSchema& schema,
                                                          const std::string& backend) override;

  const std::vector<std::string>& warnings() const noexcept override { return warnings_; }

 private:
  COSTDSL_DECL const ProfileTable* cached_table(const std::filesystem::path& file, const ProfileSchema& schema);
  COSTDSL_DECL std::shared_ptr<const void> fitted(const ProfileTable& table, const ProfileGroup& group,
                                                  const TableRequest& request, bool energy);
  COSTDSL_DECL BackendTables between_configs(const ProfileTable& table, const TableRequest& request,
                                             std::size_t backend);

  std::filesystem::path root_;
  std::map<std::string, std::unique_ptr<ProfileTable>> tables_;  // by path: the tables and the complete ones
  std::map<std::string, std::unique_ptr<std::set<ProfileKey>>> complete_keys_;  // by index path
  std::map<std::pair<const void*, bool>, std::shared_ptr<const void>> caches_;  // (group, energy) -> cache
  std::vector<std::string> warnings_;
};

}  // namespace costdsl

#if !defined(COSTDSL_SEPARATE_COMPILATION)
#include "costdsl/impl/profile_db.ipp"
#endif
