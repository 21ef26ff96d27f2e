#pragma once
// The rows of a deployment search, and the two readings of them a user asks for: the
// best deployments meeting the SLA, and the Pareto frontier of throughput per GPU
// against speed per user.
#include <algorithm>
#include <cstddef>
#include <vector>

#include "costdsl/serve/plan_row.hpp"

namespace costdsl::serve {

struct PlanResult {
  std::vector<PlanRow> rows;  // in job order, each job's batch caps ascending

  // Up to k rows of mode `m` meeting the SLA: most tokens/s/GPU first, then most
  // tokens/s/user, then the search's own order (so ties come out the same every run).
  std::vector<std::size_t> top(Mode m, std::size_t k) const {
    std::vector<std::size_t> idx = meeting(m);
    std::stable_sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) {
      const PlanRow &x = rows[a], &y = rows[b];
      if (x.tokens_per_s_gpu() != y.tokens_per_s_gpu()) return x.tokens_per_s_gpu() > y.tokens_per_s_gpu();
      return x.tokens_per_s_user() > y.tokens_per_s_user();
    });
    if (idx.size() > k) idx.resize(k);
    return idx;
  }

  // The rows of mode `m` meeting the SLA that no other such row beats on both
  // tokens/s/GPU and tokens/s/user, by tokens/s/user ascending.
  std::vector<std::size_t> pareto(Mode m) const {
    std::vector<std::size_t> idx = meeting(m);
    std::stable_sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) {
      const PlanRow &x = rows[a], &y = rows[b];
      if (x.tokens_per_s_user() != y.tokens_per_s_user()) return x.tokens_per_s_user() > y.tokens_per_s_user();
      return x.tokens_per_s_gpu() > y.tokens_per_s_gpu();
    });
    std::vector<std::size_t> front;  // walking from the fastest per user down, keep each new best per GPU
    double best = -1;
    for (const std::size_t i : idx)
      if (rows[i].tokens_per_s_gpu() > best) {
        best = rows[i].tokens_per_s_gpu();
        front.push_back(i);
      }
    std::reverse(front.begin(), front.end());
    return front;
  }

  std::size_t count(Mode m) const {
    return static_cast<std::size_t>(std::count_if(rows.begin(), rows.end(), [&](const PlanRow& r) { return r.c.mode == m; }));
  }
  std::size_t count(Mode m, Status s) const {
    return static_cast<std::size_t>(
        std::count_if(rows.begin(), rows.end(), [&](const PlanRow& r) { return r.c.mode == m && r.status == s; }));
  }

 private:
  std::vector<std::size_t> meeting(Mode m) const {
    std::vector<std::size_t> idx;
    for (std::size_t i = 0; i < rows.size(); ++i)
      if (rows[i].c.mode == m && rows[i].status == Status::meets) idx.push_back(i);
    return idx;
  }
};

}  // namespace costdsl::serve
