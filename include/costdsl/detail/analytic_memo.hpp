#pragma once
// AnalyticMemo: the times an analytic (roofline) leaf has already computed, by its one
// count input (a GEMM's m, a norm's tokens). A roofline leaf costs ~70 ns (three pow and
// an expm1 in the overlap and saturation curves), twenty times a table lookup, and a
// serving simulator asks the same leaf for the same token counts again and again: the
// GEMMs of every decode-only iteration at one batch size, a planner's candidates over one
// tree. A leaf's answer is a pure function of its bound config and its input, so an
// entry never goes stale.
//
// One slot per count below the capacity, filled on first use, so an iteration never
// allocates. Slots hold the time's bits, 0 for "not computed" (a time of 0 is never
// stored: it is recomputed, which is exact). Lookups and stores are atomic on the word
// (plain moves on x86), so threads evaluating one tree share the memo without a lock:
// racing writers store the same bits.
#include <atomic>
#include <bit>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <new>

namespace costdsl::detail {

class AnalyticMemo {
 public:
  // calloc'd, so every slot is committed up front (64 KiB a leaf by default: a 64-GPU
  // DeepSeek-V3 plan's trees hold ~40 MB of memos). An anonymous mapping that commits a
  // page only as its counts are first stored held 30 MB less there, but a page fault per
  // first touch cost a short serve_sim run 40% (docs/perf-history.md, "Issue 17, tenth session").
  explicit AnalyticMemo(std::uint32_t capacity)
      : slots_(static_cast<std::uint64_t*>(std::calloc(capacity, sizeof(std::uint64_t)))), capacity_(capacity) {
    if (slots_ == nullptr && capacity > 0) throw std::bad_alloc();
  }
  AnalyticMemo(const AnalyticMemo&) = delete;
  AnalyticMemo& operator=(const AnalyticMemo&) = delete;

  std::uint32_t capacity() const noexcept { return capacity_; }

  // The remembered time for a count below the capacity, or 0 (not computed yet).
  double find(std::uint64_t count) const noexcept {
    return std::bit_cast<double>(std::atomic_ref<std::uint64_t>(slots_.get()[count]).load(std::memory_order_relaxed));
  }

  void store(std::uint64_t count, double time_s) noexcept {
    std::atomic_ref<std::uint64_t>(slots_.get()[count]).store(std::bit_cast<std::uint64_t>(time_s),
                                                              std::memory_order_relaxed);
  }

 private:
  struct Free {
    void operator()(std::uint64_t* p) const noexcept { std::free(p); }
  };
  std::unique_ptr<std::uint64_t[], Free> slots_;
  std::uint32_t capacity_;
};

}  // namespace costdsl::detail
