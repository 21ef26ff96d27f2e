// The C API (include/costdsl/c/costdsl.h) over the CLI's own model and command code, so
// that a C or Python caller gets the CLI's options, defaults, numbers and messages.
#include "costdsl/c/costdsl.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <mutex>
#include <new>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "app.hpp"
#include "cli_common.hpp"
#include "costdsl/error.hpp"
#include "family_times.hpp"
#include "model.hpp"

#ifndef COSTDSL_VERSION
#error "COSTDSL_VERSION: the build passes the project's version"
#endif

namespace {

using costdsl::cli::Model;
using costdsl::cli::ModelOptions;
using costdsl::cli::TimingOptions;

thread_local std::string t_error;

costdsl_status fail(costdsl_status s, std::string message) {
  t_error = std::move(message);
  return s;
}

// What an exception thrown below this boundary becomes.
costdsl_status from_exception() {
  try {
    throw;
  } catch (const costdsl::ConfigError& e) {
    return fail(COSTDSL_ERROR_CONFIG, e.what());
  } catch (const costdsl::DataError& e) {
    return fail(COSTDSL_ERROR_DATA, e.what());
  } catch (const costdsl::Error& e) {
    return fail(COSTDSL_ERROR_INPUT, e.what());
  } catch (const CLI::Error& e) {  // an option CLI11 rejected while opening a model
    return fail(COSTDSL_ERROR_INPUT, e.what());
  } catch (const std::bad_alloc&) {
    return fail(COSTDSL_ERROR_INTERNAL, "out of memory");
  } catch (const std::exception& e) {
    return fail(COSTDSL_ERROR_INTERNAL, std::string("internal error: ") + e.what());
  } catch (...) {
    return fail(COSTDSL_ERROR_INTERNAL, "internal error: an unknown exception");
  }
}

// {"tp": 8, "model_config": "x.json", "kv-replicate": true, "decode": ["64x1024"]} →
// --tp 8 --model-config x.json --kv-replicate --decode 64x1024.
std::vector<std::string> options_to_args(const char* options_json) {
  std::vector<std::string> args;
  if (options_json == nullptr || *options_json == '\0') return args;
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(options_json);
  } catch (const nlohmann::json::exception& e) {  // a syntax error, a number beyond a double
    throw costdsl::InputError(fmt::format("options: not JSON ({})", e.what()));
  }
  if (j.is_null()) return args;
  if (!j.is_object())
    throw costdsl::InputError(fmt::format("options: must be a JSON object of flag names to values, got {}", j.type_name()));
  const auto scalar = [](const std::string& key, const nlohmann::json& v) -> std::string {
    if (v.is_string()) return v.get<std::string>();
    if (v.is_number_unsigned()) return std::to_string(v.get<std::uint64_t>());
    if (v.is_number_integer()) return std::to_string(v.get<std::int64_t>());
    if (v.is_number_float()) {
      const double d = v.get<double>();
      if (!std::isfinite(d)) throw costdsl::InputError(fmt::format("option '{}': {} is not a finite number", key, d));
      return fmt::format("{}", d);
    }
    throw costdsl::InputError(
        fmt::format("option '{}': a value must be a string, a number, true/false, null or an array of them, got {}",
                    key, v.type_name()));
  };
  for (const auto& [key, value] : j.items()) {
    std::string flag = key;
    for (char& c : flag) {
      if (c == '_') c = '-';
      else if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-'))
        throw costdsl::InputError(fmt::format("option '{}': a name is a long flag without its dashes, e.g. "
                                              "\"model_config\" or \"kv-dtype\"", key));
    }
    if (flag.empty() || flag.front() == '-')
      throw costdsl::InputError(fmt::format("option '{}': a name is a long flag without its dashes", key));
    if (flag == "help")
      throw costdsl::InputError("option 'help': the options are the command line's; `costdsl <command> --help` lists them");
    flag = "--" + flag;
    if (value.is_null()) continue;
    if (value.is_boolean()) {
      if (value.get<bool>()) args.push_back(flag);
      continue;
    }
    if (value.is_array()) {
      for (const auto& e : value) {
        args.push_back(flag);
        args.push_back(scalar(key, e));
      }
      continue;
    }
    args.push_back(flag);
    args.push_back(scalar(key, value));
  }
  return args;
}

// One copy of the model's tree with its scratch rows: a thread evaluates on one copy at a time.
struct Instance {
  std::unique_ptr<Model> model;
  std::vector<costdsl::Metrics> row, nodes;
  std::vector<costdsl::ops::PrefillChunk> chunks;
};

}  // namespace

struct costdsl_model {
  ModelOptions options;
  std::unique_ptr<costdsl::Timing> timing;  // every copy's leaves read it; it never changes
  std::mutex mutex;
  std::vector<std::unique_ptr<Instance>> idle;

  std::unique_ptr<Instance> make_instance() const {
    auto in = std::make_unique<Instance>();
    in->model = costdsl::cli::open_model(options, *timing);
    const costdsl::Manifest& m = in->model->manifest();
    in->row.resize(m.slots.size());
    in->nodes.resize(m.tree.size());
    return in;
  }
  std::unique_ptr<Instance> take() {
    {
      const std::lock_guard lock(mutex);
      if (!idle.empty()) {
        std::unique_ptr<Instance> in = std::move(idle.back());
        idle.pop_back();
        return in;
      }
    }
    return make_instance();
  }
  void give_back(std::unique_ptr<Instance> in) {
    const std::lock_guard lock(mutex);
    idle.push_back(std::move(in));
  }
};

namespace {

// Open handles. A call holds a reference while it runs, so close() on another thread
// cannot free a model under it; a handle not in the table is closed.
std::mutex g_models_mutex;
std::unordered_map<const costdsl_model*, std::shared_ptr<costdsl_model>>& models() {
  static std::unordered_map<const costdsl_model*, std::shared_ptr<costdsl_model>> m;
  return m;
}

std::shared_ptr<costdsl_model> find_model(const costdsl_model* handle) {
  const std::lock_guard lock(g_models_mutex);
  const auto it = models().find(handle);
  return it == models().end() ? nullptr : it->second;
}

}  // namespace

extern "C" {

const char* costdsl_version(void) { return COSTDSL_VERSION; }
int costdsl_api_version(void) { return COSTDSL_C_API_VERSION; }
const char* costdsl_last_error(void) { return t_error.c_str(); }

costdsl_status costdsl_model_open(const char* options_json, costdsl_model** out) {
  t_error.clear();
  if (out == nullptr) return fail(COSTDSL_ERROR_NULL, "costdsl_model_open: out is NULL");
  *out = nullptr;
  if (options_json == nullptr) return fail(COSTDSL_ERROR_NULL, "costdsl_model_open: options_json is NULL");
  try {
    auto model = std::make_shared<costdsl_model>();
    TimingOptions timing;
    {
      // The options of `costdsl eval` but the batch, parsed by the CLI's own definitions.
      CLI::App app{"the options of costdsl_model_open", "costdsl_model_open"};
      costdsl::cli::add_model_options(app, model->options);
      timing.add(app);
      std::vector<std::string> args = options_to_args(options_json);
      std::reverse(args.begin(), args.end());  // CLI11 takes a vector in reverse order
      app.parse(args);
    }
    model->timing = std::make_unique<costdsl::Timing>(timing.make());
    model->give_back(model->make_instance());  // builds the first copy: a bad layout fails here
    costdsl_model* handle = model.get();
    {
      const std::lock_guard lock(g_models_mutex);
      models().emplace(handle, std::move(model));
    }
    *out = handle;
    return COSTDSL_OK;
  } catch (...) {
    return from_exception();
  }
}

void costdsl_model_close(costdsl_model* model) {
  if (model == nullptr) return;
  std::shared_ptr<costdsl_model> keep;  // released outside the lock
  const std::lock_guard lock(g_models_mutex);
  const auto it = models().find(model);
  if (it == models().end()) return;
  keep = std::move(it->second);
  models().erase(it);
}

}  // extern "C"

namespace {

// Both iteration calls: the checks, a copy of the tree, the evaluation; `breakdown` adds
// the per-family split (the tree's nodes aggregated).
costdsl_status iterate(const char* fn, costdsl_model* handle, const costdsl_prefill_chunk* prefill, size_t n_prefill,
                       const uint32_t* decode_kv, size_t n_decode, costdsl_iteration& out, bool breakdown) {
  t_error.clear();
  if (handle == nullptr) return fail(COSTDSL_ERROR_NULL, fmt::format("{}: model is NULL", fn));
  if (prefill == nullptr && n_prefill > 0)
    return fail(COSTDSL_ERROR_NULL, fmt::format("{}: prefill is NULL with n_prefill {}", fn, n_prefill));
  if (decode_kv == nullptr && n_decode > 0)
    return fail(COSTDSL_ERROR_NULL, fmt::format("{}: decode_kv is NULL with n_decode {}", fn, n_decode));
  const std::shared_ptr<costdsl_model> model = find_model(handle);
  if (!model) return fail(COSTDSL_ERROR_CLOSED, fmt::format("{}: the model is closed", fn));
  try {
    std::unique_ptr<Instance> in = model->take();
    in->chunks.resize(n_prefill);
    for (std::size_t i = 0; i < n_prefill; ++i) in->chunks[i] = {prefill[i].cached, prefill[i].new_tokens};
    const costdsl::ops::AttentionBatch batch{std::span(in->chunks),
                                             std::span<const std::uint32_t>(decode_kv, n_decode)};
    costdsl::Metrics total;
    try {
      total = in->model->evaluate(batch, in->row);
    } catch (...) {
      model->give_back(std::move(in));  // a rejected batch leaves the copy as it was
      throw;
    }
    out.time_s = total.time_s;
    out.energy_j = total.energy_j;
    out.flops = total.flops;
    out.bytes = total.bytes;
    out.coverage = static_cast<std::uint32_t>(total.coverage);
    if (breakdown) {
      const costdsl::Manifest& m = in->model->manifest();
      m.tree.aggregate(in->row, in->nodes);
      const auto families = costdsl::cli::family_times(m, in->nodes);
      for (std::size_t f = 0; f < families.size(); ++f) out.family_s[f] = families[f];
    }
    model->give_back(std::move(in));
    return COSTDSL_OK;
  } catch (...) {
    return from_exception();
  }
}

}  // namespace

extern "C" {

costdsl_status costdsl_model_iteration(costdsl_model* model, const costdsl_prefill_chunk* prefill, size_t n_prefill,
                                       const uint32_t* decode_kv, size_t n_decode, costdsl_iteration* out) {
  if (out == nullptr) return fail(COSTDSL_ERROR_NULL, "costdsl_model_iteration: out is NULL");
  costdsl_iteration it{};
  const costdsl_status s = iterate("costdsl_model_iteration", model, prefill, n_prefill, decode_kv, n_decode, it, true);
  if (s == COSTDSL_OK) *out = it;
  return s;
}

costdsl_status costdsl_model_time(costdsl_model* model, const costdsl_prefill_chunk* prefill, size_t n_prefill,
                                  const uint32_t* decode_kv, size_t n_decode, double* seconds) {
  if (seconds == nullptr) return fail(COSTDSL_ERROR_NULL, "costdsl_model_time: seconds is NULL");
  costdsl_iteration it{};
  const costdsl_status s = iterate("costdsl_model_time", model, prefill, n_prefill, decode_kv, n_decode, it, false);
  if (s == COSTDSL_OK) *seconds = it.time_s;
  return s;
}

costdsl_status costdsl_run_json(const char* command, const char* options_json, char** out_json) {
  t_error.clear();
  if (out_json == nullptr) return fail(COSTDSL_ERROR_NULL, "costdsl_run_json: out_json is NULL");
  *out_json = nullptr;
  if (command == nullptr) return fail(COSTDSL_ERROR_NULL, "costdsl_run_json: command is NULL");
  if (options_json == nullptr) return fail(COSTDSL_ERROR_NULL, "costdsl_run_json: options_json is NULL");
  try {
    const std::string_view cmd(command);
    if (cmd != "simulate" && cmd != "plan" && cmd != "eval")
      return fail(COSTDSL_ERROR_INPUT,
                  fmt::format("costdsl_run_json: command '{}' (known: simulate, plan, eval)", cmd));
    std::vector<std::string> args{"costdsl", std::string(cmd)};
    for (std::string& a : options_to_args(options_json)) args.push_back(std::move(a));
    args.emplace_back("--json");
    std::vector<const char*> argv;
    for (const std::string& a : args) argv.push_back(a.c_str());
    std::string output, errors;
    const int rc = costdsl::cli::run_captured(static_cast<int>(argv.size()), argv.data(), output, errors);
    if (rc != 0) {
      // The CLI's message without its "costdsl: error: " prefix and trailing newline.
      for (const std::string_view prefix : {"costdsl: error: ", "costdsl: internal error: "})
        if (errors.starts_with(prefix)) errors.erase(0, prefix.size());
      while (!errors.empty() && (errors.back() == '\n' || errors.back() == ' ')) errors.pop_back();
      return fail(rc == 2 ? COSTDSL_ERROR_INPUT : COSTDSL_ERROR_INTERNAL, errors);
    }
    char* s = static_cast<char*>(std::malloc(output.size() + 1));
    if (s == nullptr) return fail(COSTDSL_ERROR_INTERNAL, "out of memory");
    std::memcpy(s, output.c_str(), output.size() + 1);
    *out_json = s;
    return COSTDSL_OK;
  } catch (...) {
    return from_exception();
  }
}

void costdsl_string_free(char* s) { std::free(s); }

}  // extern "C"
