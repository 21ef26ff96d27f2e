#pragma once
// InputScratch: buffers a DP-attention arch builds its per-group input lists in, kept
// from one iteration to the next, so that `arch.inputs(it, scratch)` allocates nothing
// once warm (issue 7: no heap allocation per iteration). The inputs it returns borrow
// the buffers: they stay valid until the scratch is used again.
//
//   archs::InputScratch scratch;                       // one per simulator thread
//   evaluate(tree, arch.inputs(deal.deal(batch, dp), scratch));
#include <cstddef>
#include <memory>
#include <span>
#include <vector>

namespace costdsl::archs {

class InputScratch {
 public:
  // Starts a new iteration: the buffers are handed out again, in the same order.
  void reset() noexcept { next_ = 0; }

  // The next buffer, holding n elements of T (default-constructed where it grew, stale
  // values elsewhere: the caller assigns every element). An arch asks for the same
  // types in the same order each iteration, so after the first one nothing allocates;
  // a buffer that held another type (another arch used this scratch) is replaced. A
  // buffer only grows: a count that varies from one iteration to the next (a DP fan-out's
  // runs of groups) neither destroys nor re-constructs its elements each time.
  template <class T>
  std::span<T> take(std::size_t n) {
    if (next_ == buffers_.size()) buffers_.push_back(nullptr);
    std::unique_ptr<Buffer>& slot = buffers_[next_++];
    if (slot == nullptr || slot->type != &type_tag<T>) slot = std::make_unique<Typed<T>>();
    std::vector<T>& items = static_cast<Typed<T>&>(*slot).items;
    if (items.size() < n) items.resize(n);
    return {items.data(), n};
  }

 private:
  template <class T>
  static constexpr char type_tag = 0;  // its address names T

  struct Buffer {
    explicit Buffer(const void* t) : type(t) {}
    virtual ~Buffer() = default;
    const void* type;
  };
  template <class T>
  struct Typed final : Buffer {
    Typed() : Buffer(&type_tag<T>) {}
    std::vector<T> items;
  };

  std::vector<std::unique_ptr<Buffer>> buffers_;
  std::size_t next_ = 0;
};

}  // namespace costdsl::archs
