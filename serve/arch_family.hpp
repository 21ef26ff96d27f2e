#pragma once
// ArchFamily: a ModelSource over any arch whose run-time form can be made for a
// parallelism (make(Parallel) -> arch; a ConfigError when the arch rejects it).
//
//   serve::ArchFamily family([&](serve::Parallel p) {
//     return archs::Llama3<archs::Llama3Config>(archs::Llama3Config::from_hf(hf, p)); }, false, timing);
//
// Where the layout decides the arch's type (a MoE family whose ep 1 workers over tp > 1
// GPUs TP-shard their experts: another tree), make returns a std::variant of the arch
// types; each worker is the alternative made for its parallelism, with its own tree.
//
// Trees are built once per parallelism and kept. Memo::automatic remembers iteration
// times by batch (IterationMemo) for workers with DP attention groups, whose iterations
// cost tens of microseconds; a dense worker's evaluation is cheaper than the lookup.
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "costdsl/error.hpp"
#include "costdsl/ops/moe/routing.hpp"
#include "costdsl/serve/any_model.hpp"
#include "costdsl/serve/detail/arch_facts.hpp"
#include "costdsl/serve/detail/visit_arch.hpp"
#include "costdsl/serve/model_source.hpp"
#include "costdsl/serve/parallel.hpp"
#include "costdsl/timing.hpp"

namespace costdsl::serve {

enum class Memo : std::uint8_t { automatic, always, never };

template <class Make>
class ArchFamily final : public ModelSource {
 public:
  using Made = std::remove_cvref_t<std::invoke_result_t<const Make&, Parallel>>;  // an arch or a variant of archs

  ArchFamily(Make make, bool expert_parallel, Timing timing, ops::moe::Routing routing = {},
             Memo memo = Memo::automatic)
      : make_(std::move(make)), ep_(expert_parallel), timing_(std::move(timing)), routing_(routing), memo_(memo) {}

  bool expert_parallel() const override { return ep_; }

  std::optional<WorkerFacts> facts(Parallel p, std::string* why = nullptr) const override {
    try {
      const Made made = make_(p);
      return detail::visit_arch(made, [](const auto& a) {
        WorkerFacts f{detail::worker_gpus(a), detail::kv_groups(a), a.weight_bytes_per_gpu(),
                      a.kv_bytes_per_token_per_gpu(), 0};
        if constexpr (requires { a.kv_bytes_per_token(); }) {
          f.kv_bytes_per_token = a.kv_bytes_per_token();
        } else {
          f.kv_bytes_per_token = f.kv_bytes_per_token_per_gpu * f.gpus;
        }
        if constexpr (requires { a.recurrent_state_bytes_per_request_per_gpu(); })
          f.state_bytes_per_request_per_gpu = a.recurrent_state_bytes_per_request_per_gpu();
        return f;
      });
    } catch (const ConfigError& e) {
      if (why != nullptr) *why = e.what();
      return std::nullopt;
    }
  }

  AnyModel& model(Parallel p) override {
    for (auto& [q, m] : built_)
      if (q == p) return *m;
    Made made = make_(p);
    detail::visit_arch(std::move(made), [&](auto&& a) {
      const bool memo = memo_ == Memo::always || (memo_ == Memo::automatic && detail::kv_groups(a) > 1);
      built_.emplace_back(p, std::make_unique<AnyModel>(AnyModel::of_arch(std::move(a), timing_, routing_, memo)));
    });
    return *built_.back().second;
  }

  const Timing& timing() const noexcept { return timing_; }

 private:
  Make make_;
  bool ep_;
  Timing timing_;
  ops::moe::Routing routing_;
  Memo memo_;
  std::vector<std::pair<Parallel, std::unique_ptr<AnyModel>>> built_;
};

}  // namespace costdsl::serve
