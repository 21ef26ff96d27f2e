#pragma once
// AnyModel: an IterationModel whose arch type is erased (one virtual call per
// iteration), so that the planner's search and simulations are compiled once for every
// arch instead of once per arch type. Optionally remembers iteration times by batch
// (IterationMemo): worth it only where an evaluation is expensive.
#include <cstdint>
#include <memory>
#include <utility>

#include "costdsl/ops/attention/batch.hpp"
#include "costdsl/ops/moe/routing.hpp"
#include "costdsl/serve/arch_model.hpp"
#include "costdsl/serve/iteration_memo.hpp"
#include "costdsl/timing.hpp"

namespace costdsl::serve {

class AnyModel {
 public:
  // Builds arch's tree for `timing`. memo: remember iteration times by batch.
  template <ServableArch Arch>
  static AnyModel of_arch(Arch arch, const Timing& timing, ops::moe::Routing routing = {}, bool memo = false) {
    AnyModel m;
    m.impl_ = std::make_unique<Holder<Arch>>(std::move(arch), timing, routing);
    if (memo) m.memo_ = std::make_unique<IterationMemo>();
    return m;
  }

  double iteration_s(const ops::AttentionBatch& batch) {
    ++calls_;
    if (!memo_) return impl_->iteration_s(batch);
    // Lockstep decodes never repeat a batch, and hashing a DP worker's thousands of KV
    // lengths costs a tenth of its iteration: a window of lookups without a hit pauses
    // the memo for a while (an iteration's time is the same looked up or evaluated).
    if (paused_ > 0) {
      --paused_;
      return impl_->iteration_s(batch);
    }
    if (++window_ == memo_window) {
      if (window_hits_ == 0) paused_ = memo_pause;
      window_ = window_hits_ = 0;
    }
    const IterationMemo::Key k = IterationMemo::key(batch);
    if (const double* t = memo_->find(k)) {
      ++hits_;
      ++window_hits_;
      return *t;
    }
    const double t = impl_->iteration_s(batch);
    memo_->insert(k, t);
    return t;
  }
  double kv_bytes_per_token_per_gpu() const { return impl_->kv_bytes_per_token_per_gpu(); }
  double weight_bytes_per_gpu() const { return impl_->weight_bytes_per_gpu(); }
  std::uint32_t gpus() const { return impl_->gpus(); }
  double launches() { return impl_->launches(); }
  std::uint32_t kv_groups() const { return impl_->kv_groups(); }
  std::uint32_t layers() const { return impl_->layers(); }
  bool memoized() const noexcept { return memo_ != nullptr; }
  // Iterations asked for, and how many of them the memo answered.
  std::uint64_t calls() const noexcept { return calls_; }
  std::uint64_t memo_hits() const noexcept { return hits_; }

 private:
  AnyModel() = default;

  struct Concept {
    virtual ~Concept() = default;
    virtual double iteration_s(const ops::AttentionBatch& batch) = 0;
    virtual double kv_bytes_per_token_per_gpu() const = 0;
    virtual double weight_bytes_per_gpu() const = 0;
    virtual std::uint32_t gpus() const = 0;
    virtual std::uint32_t kv_groups() const = 0;
    virtual std::uint32_t layers() const = 0;
    virtual double launches() = 0;
  };
  template <class Arch>
  struct Holder final : Concept {
    Holder(Arch arch, const Timing& timing, ops::moe::Routing routing) : model(std::move(arch), timing, routing) {}
    double iteration_s(const ops::AttentionBatch& batch) override { return model.iteration_s(batch); }
    double kv_bytes_per_token_per_gpu() const override { return model.kv_bytes_per_token_per_gpu(); }
    double weight_bytes_per_gpu() const override { return model.weight_bytes_per_gpu(); }
    std::uint32_t gpus() const override { return model.gpus(); }
    std::uint32_t kv_groups() const override { return model.kv_groups(); }
    std::uint32_t layers() const override { return model.layers(); }
    double launches() override { return model.launches(); }
    ArchModel<Arch> model;
  };

  std::unique_ptr<Concept> impl_;
  std::unique_ptr<IterationMemo> memo_;
  std::uint64_t calls_ = 0, hits_ = 0;
  // Lookups in the current window and its hits; iterations left before the next lookup.
  static constexpr std::uint32_t memo_window = 1024, memo_pause = 15 * 1024;
  std::uint32_t window_ = 0, window_hits_ = 0, paused_ = 0;
};

}  // namespace costdsl::serve
