#pragma once
// One request of a serving workload.
#include <cstdint>

namespace costdsl::serve {

struct Request {
  double arrival_s = 0;
  std::uint32_t input_tokens = 0;
  std::uint32_t output_tokens = 0;  // includes the first token, which the prefill produces
  // Leading input tokens whose KV a prefix cache already holds: prefill starts after them.
  // The request still reserves KV for its whole input (the cached blocks are not shared
  // between requests in this model, which is the conservative choice).
  std::uint32_t cached_tokens = 0;

  friend bool operator==(const Request&, const Request&) = default;
};

}  // namespace costdsl::serve
