#pragma once
namespace costdsl::testing {
// Number of global operator new calls so far in this process.
long allocation_count();
}  // namespace costdsl::testing
