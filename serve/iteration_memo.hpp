#pragma once
// IterationMemo: iteration times remembered by the exact batch (every prefill chunk and
// every decode KV length, in order: a DP arch deals requests by position). Under a
// closed loop of fixed-length requests a server settles into a cycle, so the same
// batches come back round after round and across candidates that share a
// parallelism; for archs whose iteration costs tens of microseconds (DP attention over
// many groups) a lookup is far cheaper than the evaluation.
//
// The key is a 128-bit hash of the batch (two independent 64-bit lanes, the lengths
// mixed in): two different batches share a key with probability ~2^-128 per pair, far
// below anything a search could meet. The table is a fixed open-addressing array,
// allocated once; when it is three-quarters full it is cleared (the batches of the
// candidate being simulated come back quickly), so it never grows.
#include <cstdint>
#include <vector>

#include "costdsl/ops/attention/batch.hpp"

namespace costdsl::serve {

class IterationMemo {
 public:
  struct Key {
    std::uint64_t a = 0, b = 0;
  };

  explicit IterationMemo(unsigned log2_slots = 16) : slots_(std::size_t{1} << log2_slots), mask_(slots_.size() - 1) {}

  static Key key(const ops::AttentionBatch& batch) noexcept {
    std::uint64_t a = 0x243F6A8885A308D3ull ^ batch.prefill.size(), b = 0x13198A2E03707344ull ^ batch.decode_kv.size();
    auto mix = [&](std::uint64_t x) {
      a = (a ^ x) * 0x9E3779B97F4A7C15ull;
      a ^= a >> 29;
      b = (b + x) * 0xC2B2AE3D27D4EB4Full;
      b ^= b >> 31;
    };
    for (const auto& c : batch.prefill) mix((std::uint64_t{c.prefix_len} << 32) | c.append_len);
    mix(0xA4093822299F31D0ull);  // separates the two lists
    for (const std::uint32_t kv : batch.decode_kv) mix(kv);
    a |= 1;  // never the empty slot's key
    return {a, b};
  }

  const double* find(Key k) const noexcept {
    for (std::size_t i = k.a & mask_;; i = (i + 1) & mask_) {
      const Slot& s = slots_[i];
      if (s.a == 0) return nullptr;
      if (s.a == k.a && s.b == k.b) return &s.time_s;
    }
  }

  void insert(Key k, double time_s) {
    if (used_ * 4 >= slots_.size() * 3) {
      for (Slot& s : slots_) s = Slot{};
      used_ = 0;
    }
    for (std::size_t i = k.a & mask_;; i = (i + 1) & mask_) {
      Slot& s = slots_[i];
      if (s.a == 0) {
        s = {k.a, k.b, time_s};
        ++used_;
        return;
      }
      if (s.a == k.a && s.b == k.b) return;
    }
  }

 private:
  struct Slot {
    std::uint64_t a = 0, b = 0;
    double time_s = 0;
  };
  std::vector<Slot> slots_;
  std::size_t mask_;
  std::size_t used_ = 0;
};

}  // namespace costdsl::serve
