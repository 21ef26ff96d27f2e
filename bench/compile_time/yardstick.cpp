// The yardstick for the compile-time budget: ordinary template-heavy C++20 that includes
// nothing of costdsl, so its compile time measures the box (and the compiler), not the
// project. The budget holds each arch TU's time as a ratio to this one, measured in the
// same build: a slower or busier machine slows both alike, a heavier header only the TU.
// Keep it unchanged: editing it rescales every ratio in compile_time_budget.json.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <numeric>
#include <sstream>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <variant>
#include <vector>

namespace yardstick {

template <std::size_t N>
struct Field {
  double value = N;
  std::string name = std::to_string(N);
};

// A record of many distinct types, walked by folds: what reflection-style code costs.
template <std::size_t... I>
auto make_record(std::index_sequence<I...>) {
  return std::tuple<Field<I>...>{};
}
using Record = decltype(make_record(std::make_index_sequence<48>{}));

template <class F, std::size_t... I>
void for_each_field(Record& r, F&& f, std::index_sequence<I...>) {
  (f(std::get<I>(r)), ...);
}

using Value = std::variant<std::int64_t, double, std::string, std::vector<double>, std::map<std::string, double>>;

struct Summary {
  double total = 0;
  std::size_t strings = 0;
  void operator()(std::int64_t v) { total += double(v); }
  void operator()(double v) { total += v; }
  void operator()(const std::string& s) { strings += s.size(); }
  void operator()(const std::vector<double>& v) { total += std::accumulate(v.begin(), v.end(), 0.0); }
  void operator()(const std::map<std::string, double>& m) {
    for (const auto& [k, v] : m) total += v + double(k.size());
  }
};

template <class T>
std::vector<T> sorted_unique(std::vector<T> v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

template <std::size_t Depth>
struct Pipeline {
  static double run(const std::vector<double>& xs, const std::function<double(double)>& f) {
    std::vector<double> ys(xs.size());
    std::transform(xs.begin(), xs.end(), ys.begin(), [&](double x) { return f(x) * double(Depth); });
    std::stable_sort(ys.begin(), ys.end(), std::greater<>{});
    return Pipeline<Depth - 1>::run(ys, f) + ys.front();
  }
};
template <>
struct Pipeline<0> {
  static double run(const std::vector<double>& xs, const std::function<double(double)>&) {
    return xs.empty() ? 0.0 : xs.back();
  }
};

}  // namespace yardstick

int main(int argc, char**) {
  using namespace yardstick;
  Record record;
  double sum = 0;
  for_each_field(record, [&](auto& f) { sum += f.value + double(f.name.size()); }, std::make_index_sequence<48>{});

  std::vector<Value> values{std::int64_t{argc}, 2.5, std::string("x"), std::vector<double>{1, 2},
                            std::map<std::string, double>{{"a", 1}}};
  Summary summary;
  for (const auto& v : values) std::visit(summary, v);

  std::unordered_map<std::string, std::vector<std::pair<int, std::string>>> index;
  index["k"].emplace_back(argc, "v");
  auto ints = sorted_unique(std::vector<int>{3, 1, 2, 3});
  auto strings = sorted_unique(std::vector<std::string>{"b", "a", "b"});
  auto pairs = sorted_unique(std::vector<std::pair<double, std::string>>{{1.0, "a"}, {0.5, "b"}});

  std::ostringstream out;
  out << sum << summary.total << summary.strings << index.size() << ints.size() << strings.size() << pairs.size()
      << Pipeline<12>::run({1.0, 2.0, double(argc)}, [](double x) { return x * 0.5; });
  return out.str().empty() ? 1 : 0;
}
