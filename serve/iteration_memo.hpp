#pragma once
// IterationMemo: iteration times remembered by the exact batch (every prefill chunk and
// every decode KV length, in order: a DP arch deals requests by position). Under a
// closed loop of fixed-length requests a server settles into a cycle, so the same
// batches come back round after round and across candidates that share a
// parallelism; for archs whose iteration costs tens of microseconds (DP attention over
// many groups) a lookup is far cheaper than the evaluation.
//
// The key is a 128-bit hash of the batch (two independent 64-bit lanes, the lengths
// mixed in, each lane four interleaved accumulators folded at the end): two different
// batches share a key with probability ~2^-128 per pair, far below anything a search
// could meet. The table is a fixed open-addressing array,
// allocated once; when it is three-quarters full it is cleared (the batches of the
// candidate being simulated come back quickly), so it never grows.
#include <cstddef>
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
    // Four independent accumulators per lane, each taking two KV lengths per step: a decode
    // list of thousands (a DP worker's batch) hashes in a quarter of one chain's latency.
    Lanes h;
    h.a[0] ^= batch.prefill.size();
    h.b[0] ^= batch.decode_kv.size() | std::uint64_t{batch.decode_rows} << 40;
    for (const auto& c : batch.prefill) h.mix(0, (std::uint64_t{c.prefix_len} << 32) | c.append_len);
    h.mix(1, 0xA4093822299F31D0ull);  // separates the two lists
    const std::uint32_t* kv = batch.decode_kv.data();
    const std::size_t n = batch.decode_kv.size();
    std::size_t i = 0;
    const auto pair = [kv](std::size_t j) { return std::uint64_t{kv[j]} | (std::uint64_t{kv[j + 1]} << 32); };
    for (; i + 8 <= n; i += 8)
      for (unsigned k = 0; k < 4; ++k) h.mix(k, pair(i + 2 * k));
    for (; i < n; ++i) h.mix(i & 3, kv[i] | (std::uint64_t{1} << 40));  // the tail marked apart from pairs
    Key out{h.a[0], h.b[0]};
    for (unsigned k = 1; k < 4; ++k) {
      out.a = (out.a ^ h.a[k]) * 0x9E3779B97F4A7C15ull;
      out.a ^= out.a >> 29;
      out.b = (out.b + h.b[k]) * 0xC2B2AE3D27D4EB4Full;
      out.b ^= out.b >> 31;
    }
    out.a |= 1;  // never the empty slot's key
    return out;
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
  // Two independent 64-bit lanes (a, b), each as four accumulators.
  struct Lanes {
    std::uint64_t a[4] = {0x243F6A8885A308D3ull, 0x3707344A40938222ull, 0x299F31D0082EFA98ull, 0xEC4E6C89452821E6ull};
    std::uint64_t b[4] = {0x13198A2E03707344ull, 0x38D01377BE5466CFull, 0x34E90C6CC0AC29B7ull, 0xC97C50DD3F84D5B5ull};
    void mix(unsigned k, std::uint64_t x) noexcept {
      a[k] = (a[k] ^ x) * 0x9E3779B97F4A7C15ull;
      a[k] ^= a[k] >> 29;
      b[k] = (b[k] + x) * 0xC2B2AE3D27D4EB4Full;
      b[k] ^= b[k] >> 31;
    }
  };

  struct Slot {
    std::uint64_t a = 0, b = 0;
    double time_s = 0;
  };
  std::vector<Slot> slots_;
  std::size_t mask_;
  std::size_t used_ = 0;
};

}  // namespace costdsl::serve
