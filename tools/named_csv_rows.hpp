#pragma once
// Tables read by column name (vidur's medians, the deployments of `validate --deployments`):
// a header line, then rows of exactly as many cells, each handed over as aic::detail::Cells
// so every cell error is FILE:LINE:COL naming the column, the value and the rule.
#include <cstddef>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "aiconfigurator.hpp"  // aic::detail::Cells
#include "costdsl/error.hpp"
#include "costdsl/profile_csv.hpp"

namespace costdsl::cli {

// Calls f(line, Cells) for each data row; the header must hold `required` (else an error
// naming `what`, e.g. "a vidur table"). Empty header names are ignored (pandas writes its
// unnamed index that way).
template <class F>
void for_each_named_row(const std::string& text, const std::string& file, const std::vector<std::string_view>& required,
                        std::string_view what, F&& f) {
  std::map<std::string, std::size_t, std::less<>> index;
  std::size_t columns = 0;
  bool have_header = false;
  for_each_csv_line(text, file, [&](std::size_t line, std::string_view raw, std::span<const CsvCell> cells) {
    if (!have_header) {
      have_header = true;
      columns = cells.size();
      for (std::size_t c = 0; c < cells.size(); ++c) {
        if (cells[c].text.empty()) continue;
        if (!index.emplace(std::string(cells[c].text), c).second)
          throw DataError(fmt::format("{}:{}:{}: duplicate column '{}'", file, line, cells[c].col, cells[c].text));
      }
      for (std::string_view col : required)
        if (index.count(col) == 0)
          throw DataError(fmt::format("{}:{}:1: missing column '{}' for {} (it needs: {})", file, line, col, what,
                                      fmt::join(required, ", ")));
      return;
    }
    if (cells.size() != columns)
      throw DataError(fmt::format("{}:{}:{}: row has {} cells but the header has {} columns", file, line,
                                  cells.size() > columns ? cells[columns].col : raw.size() + 1, cells.size(),
                                  columns));
    f(line, aic::detail::Cells(file, line, index, cells));
  });
  if (!have_header) throw DataError(fmt::format("{}:1:1: empty file: no header line", file));
}

}  // namespace costdsl::cli
