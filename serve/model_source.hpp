#pragma once
// ModelSource: what a deployment search needs of a model family: whether it is
// expert-parallel, the memory facts of a worker at a given parallelism (or that the arch
// rejects it), and the worker's iteration model (built once per parallelism, reused by
// every candidate that runs it). ArchFamily implements it for any arch.
#include <cstdint>
#include <optional>
#include <string>

#include "costdsl/serve/parallel.hpp"

namespace costdsl::serve {

class AnyModel;  // costdsl/serve/any_model.hpp

struct WorkerFacts {
  std::uint32_t gpus = 1;       // GPUs of one worker
  std::uint32_t kv_groups = 1;  // DP attention groups (KV pools)
  double weight_bytes_per_gpu = 0;
  double kv_bytes_per_token_per_gpu = 0;
  double kv_bytes_per_token = 0;  // the whole model's KV per token: what a disaggregated hand-off moves
  double state_bytes_per_request_per_gpu = 0;  // a fixed state per request (linear-attention layers), else 0
};

class ModelSource {
 public:
  virtual ~ModelSource() = default;
  // true: workers vary ep and the attention tp inside each DP group; false: tp only.
  virtual bool expert_parallel() const = 0;
  // true: dense workers also vary hp (KV-parallel decode workers of hp × tp GPUs).
  virtual bool kv_parallel() const { return false; }
  // nullopt when the arch rejects p (a ConfigError: a degree that does not divide a dim);
  // `why` then holds the arch's message.
  virtual std::optional<WorkerFacts> facts(Parallel p, std::string* why = nullptr) const = 0;
  // The worker's model at p, built on first use. p must be one facts() accepted.
  virtual AnyModel& model(Parallel p) = 0;
};

}  // namespace costdsl::serve
