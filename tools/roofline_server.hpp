#pragma once
// The batch mode the roofline fitter (scripts/calibrate_roofline.py) drives: the
// calibration rows are read once (calibration_rows.hpp), then each request line on stdin
// is answered by one JSON line on stdout, so a Nelder-Mead loop of thousands of
// parameter sets pays for process start-up and table parsing once.
//
// Requests are JSON objects, one per line; "op" says what is asked:
//   {"op": "groups"}
//       → {"gpus": [..], "groups": [{"name": "gemm.bf16", "rows": {"h100_sxm": 35742, ..}}, ..],
//          "skipped": {"reason": count, ..}}
//   {"op": "rows", "groups": ["gemm.bf16", ..], "calls": false}
//       → the rows of those groups, one array per column: {"gpus": [..], "groups": [..],
//         "id": [..], "gpu": [index into gpus], "group": [index into groups],
//         "measured_s": [..], "flops": [..]}, and with "calls": true each row's kernel
//         call, "call": [{"kind", "config", "input"}, ..] (calibration_rows.hpp, call_json)
//   {"op": "subset", "name": "gemm/-l40s", "ids": [..], "weights": [..]}
//       → {"subset": "gemm/-l40s", "rows": n}: a row list (weights default to 1) kept
//         for the evals that follow, so a fold's rows cross the pipe once
//   {"op": "eval", "params": {..}, "subset": "gemm/-l40s" | "ids": [..], "out": "pred" | "l1" | "l2"}
//       → {"pred": [seconds per row]}, or {"loss": x}: the weighted mean over the rows of
//         |ln(pred / measured)| (l1) or ln(pred / measured)² (l2), summed in row order
// "params" is a partial roofline.json (apply_roofline_params_patch) over the built-in
// parameters (the committed data/roofline.json): each value is checked by the file's
// rule and an unknown name is an error. A bad request is answered {"error": "request N:
// ..."} naming the field, the value and the rule, and the next line is read as usual.
// Numbers are written to round-trip exactly; a time with no path (a custom all-reduce
// past its buffer) is written as Infinity, as Python's json module reads and writes it.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <istream>
#include <iterator>
#include <map>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "calibration_rows.hpp"
#include "costdsl/detail/json_parse_naming_field.hpp"
#include "costdsl/error.hpp"
#include "costdsl/load_roofline_params.hpp"
#include "costdsl/roofline.hpp"

namespace costdsl::calib {

class RooflineServer {
 public:
  explicit RooflineServer(const Rows& rows) : rows_(rows) {}

  // One request line → one answer line (no newline). Never throws for a bad request;
  // `number` names the request in error messages (run() passes the input line number).
  std::string answer(std::string_view line, std::size_t number) {
    const std::string where = fmt::format("request {}", number);
    try {
      const nlohmann::json req = costdsl::detail::parse_json_naming_field(line, where);
      if (!req.is_object()) fail(where, fmt::format("must be a JSON object, got {}", req.type_name()));
      const auto op = req.find("op");
      if (op == req.end() || !op->is_string())
        fail(where, "field 'op' must be one of \"groups\", \"rows\", \"subset\", \"eval\"");
      const std::string name = op->get<std::string>();
      if (name == "groups") return groups(req, where);
      if (name == "rows") return rows(req, where);
      if (name == "subset") return subset(req, where);
      if (name == "eval") return eval(req, where);
      fail(where, fmt::format("field 'op': '{}' is not one of \"groups\", \"rows\", \"subset\", \"eval\"", name));
    } catch (const Error& e) {
      return error_answer(e.what());
    } catch (const nlohmann::json::exception& e) {
      return error_answer(fmt::format("{}: {}", where, e.what()));
    }
  }

  // Answers every line of `in` on `out`, flushing each answer (the caller waits for it).
  void run(std::istream& in, std::ostream& out) {
    std::string line;
    for (std::size_t number = 1; std::getline(in, line); ++number) {
      if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
      out << answer(line, number) << '\n' << std::flush;
    }
  }

 private:
  struct Subset {
    std::vector<std::uint32_t> ids;
    std::vector<double> weights;
  };

  // {"error": what}; a message quoting the request's bytes (a JSON parse error shows what it
  // last read) may hold invalid UTF-8, written as U+FFFD rather than throwing from dump().
  static std::string error_answer(const std::string& what) {
    return nlohmann::json{{"error", what}}.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  }

  [[noreturn]] static void fail(const std::string& where, const std::string& what) {
    throw InputError(fmt::format("{}: {}", where, what));
  }
  static void only(const nlohmann::json& req, const std::string& where, std::initializer_list<std::string_view> keys) {
    for (const auto& [key, value] : req.items()) {
      if (key == "op" || std::find(keys.begin(), keys.end(), key) != keys.end()) continue;
      fail(where, fmt::format("unknown field '{}' for op '{}' (its fields: op{}{})", key, req["op"].get<std::string>(),
                              keys.size() > 0 ? ", " : "", fmt::join(keys, ", ")));
    }
  }

  // Shortest text that reads back as the same double; non-finite as Python writes it.
  static void number(std::string& out, double v) {
    if (std::isnan(v)) out += "NaN";
    else if (std::isinf(v)) out += v > 0 ? "Infinity" : "-Infinity";
    else fmt::format_to(std::back_inserter(out), "{}", v);
  }
  template <class T, class F>
  static void array(std::string& out, const std::vector<T>& v, F&& each) {
    out += '[';
    for (std::size_t i = 0; i < v.size(); ++i) {
      if (i > 0) out += ',';
      each(out, v[i]);
    }
    out += ']';
  }

  std::string groups(const nlohmann::json& req, const std::string& where) const {
    only(req, where, {});
    std::vector<std::map<std::string, std::size_t>> counts(rows_.groups.size());
    for (const Row& r : rows_.rows) ++counts[r.group][rows_.gpus[r.gpu].name];
    nlohmann::json gs = nlohmann::json::array();
    for (std::size_t g = 0; g < rows_.groups.size(); ++g) gs.push_back({{"name", rows_.groups[g]}, {"rows", counts[g]}});
    nlohmann::json skipped = nlohmann::json::object();
    for (const auto& [why, e] : rows_.skipped.reasons) skipped[why] = e.count;
    nlohmann::json gpus = nlohmann::json::array();
    for (const GpuSpec& s : rows_.gpus) gpus.push_back(s.name);
    return nlohmann::json{{"gpus", gpus}, {"groups", gs}, {"skipped", skipped}}.dump();
  }

  std::string rows(const nlohmann::json& req, const std::string& where) const {
    only(req, where, {"groups", "calls"});
    bool calls = false;
    if (const auto it = req.find("calls"); it != req.end()) {
      if (!it->is_boolean()) fail(where, fmt::format("field 'calls' must be true or false, got {}", it->dump()));
      calls = it->get<bool>();
    }
    const auto it = req.find("groups");
    if (it == req.end() || !it->is_array() || it->empty())
      fail(where, "field 'groups' must be a non-empty array of group names (op \"groups\" lists them)");
    std::vector<std::string> names;
    std::vector<int> pick(rows_.groups.size(), -1);
    for (const auto& g : *it) {
      if (!g.is_string()) fail(where, fmt::format("field 'groups' holds {}, not a group name", g.dump()));
      const std::string n = g.get<std::string>();
      const auto at = std::find(rows_.groups.begin(), rows_.groups.end(), n);
      if (at == rows_.groups.end())
        fail(where, fmt::format("field 'groups': '{}' is no group of the rows read (they are: {})", n,
                                fmt::join(rows_.groups, ", ")));
      pick[static_cast<std::size_t>(at - rows_.groups.begin())] = static_cast<int>(names.size());
      names.push_back(n);
    }
    std::vector<std::uint32_t> ids;
    for (std::uint32_t i = 0; i < rows_.rows.size(); ++i)
      if (pick[rows_.rows[i].group] >= 0) ids.push_back(i);
    std::string out = "{\"gpus\":";
    std::vector<std::string> gpus;
    for (const GpuSpec& s : rows_.gpus) gpus.push_back(s.name);
    out += nlohmann::json(gpus).dump() + ",\"groups\":" + nlohmann::json(names).dump() + ",\"id\":";
    const auto integer = [](std::string& o, std::uint64_t v) { fmt::format_to(std::back_inserter(o), "{}", v); };
    array(out, ids, integer);
    out += ",\"gpu\":";
    array(out, ids, [&](std::string& o, std::uint32_t i) { integer(o, rows_.rows[i].gpu); });
    out += ",\"group\":";
    array(out, ids, [&](std::string& o, std::uint32_t i) {
      integer(o, static_cast<std::uint64_t>(pick[rows_.rows[i].group]));
    });
    out += ",\"measured_s\":";
    array(out, ids, [&](std::string& o, std::uint32_t i) { number(o, rows_.rows[i].measured_s); });
    out += ",\"flops\":";
    array(out, ids, [&](std::string& o, std::uint32_t i) { number(o, rows_.rows[i].flops); });
    if (calls) {
      out += ",\"call\":";
      array(out, ids, [&](std::string& o, std::uint32_t i) { o += call_json(rows_.rows[i]).dump(); });
    }
    out += '}';
    return out;
  }

  std::vector<std::uint32_t> ids_of(const nlohmann::json& v, const std::string& where) const {
    if (!v.is_array()) fail(where, fmt::format("field 'ids' must be an array of row ids, got {}", v.type_name()));
    std::vector<std::uint32_t> ids;
    ids.reserve(v.size());
    for (std::size_t i = 0; i < v.size(); ++i) {
      const auto& x = v[i];
      if (!x.is_number_unsigned() || x.get<std::uint64_t>() >= rows_.rows.size())
        fail(where, fmt::format("field 'ids[{}]': {} is not a row id (ids run 0..{}, from op \"rows\")", i, x.dump(),
                                rows_.rows.size() - 1));
      ids.push_back(static_cast<std::uint32_t>(x.get<std::uint64_t>()));
    }
    return ids;
  }

  std::string subset(const nlohmann::json& req, const std::string& where) {
    only(req, where, {"name", "ids", "weights"});
    const auto name = req.find("name");
    if (name == req.end() || !name->is_string() || name->get<std::string>().empty())
      fail(where, "field 'name' must be a non-empty string (the subset's name for op \"eval\")");
    const auto ids = req.find("ids");
    if (ids == req.end()) fail(where, "field 'ids' is missing (the subset's row ids)");
    Subset s{ids_of(*ids, where), {}};
    if (s.ids.empty()) fail(where, "field 'ids' is empty: a subset needs at least one row");
    if (const auto w = req.find("weights"); w != req.end()) {
      if (!w->is_array() || w->size() != s.ids.size())
        fail(where, fmt::format("field 'weights' must be an array of {} numbers (one per id)", s.ids.size()));
      for (std::size_t i = 0; i < w->size(); ++i) {
        const auto& x = (*w)[i];
        if (!x.is_number() || !std::isfinite(x.get<double>()) || !(x.get<double>() > 0))
          fail(where, fmt::format("field 'weights[{}]': {} must be a finite number > 0", i, x.dump()));
        s.weights.push_back(x.get<double>());
      }
    } else {
      s.weights.assign(s.ids.size(), 1.0);
    }
    const std::size_t n = s.ids.size();
    subsets_[name->get<std::string>()] = std::move(s);
    return nlohmann::json{{"subset", name->get<std::string>()}, {"rows", n}}.dump();
  }

  std::string eval(const nlohmann::json& req, const std::string& where) const {
    only(req, where, {"params", "subset", "ids", "out"});
    RooflineParams p;
    if (const auto it = req.find("params"); it != req.end())
      p = apply_roofline_params_patch(RooflineParams{}, it->dump(), where + ": params");
    std::string out_kind = "pred";
    if (const auto it = req.find("out"); it != req.end()) {
      out_kind = it->is_string() ? it->get<std::string>() : it->dump();
      if (out_kind != "pred" && out_kind != "l1" && out_kind != "l2")
        fail(where, fmt::format("field 'out': '{}' is not one of \"pred\", \"l1\", \"l2\"", out_kind));
    }
    const auto sub = req.find("subset");
    const auto ids_j = req.find("ids");
    if ((sub == req.end()) == (ids_j == req.end()))
      fail(where, "give the rows as exactly one of 'subset' (a name from op \"subset\") and 'ids'");
    Subset given;
    const Subset* s = &given;
    if (sub != req.end()) {
      const auto it = sub->is_string() ? subsets_.find(sub->get<std::string>()) : subsets_.end();
      if (it == subsets_.end())
        fail(where, fmt::format("field 'subset': {} is no subset defined by op \"subset\"", sub->dump()));
      s = &it->second;
    } else {
      given.ids = ids_of(*ids_j, where);
      given.weights.assign(given.ids.size(), 1.0);
    }
    std::vector<Roofline> rf;
    rf.reserve(rows_.gpus.size());
    for (const GpuSpec& g : rows_.gpus) rf.emplace_back(g, p);
    if (out_kind == "pred") {
      std::string out = "{\"pred\":";
      array(out, s->ids, [&](std::string& o, std::uint32_t i) { number(o, predict_s(rows_.rows[i], rf[rows_.rows[i].gpu])); });
      return out + '}';
    }
    // The fitter's loss, in its summation order: the weighted mean of each row's log ratio.
    const bool l1 = out_kind == "l1";
    double sum = 0, weight = 0;
    for (std::size_t k = 0; k < s->ids.size(); ++k) {
      const Row& r = rows_.rows[s->ids[k]];
      const double e = std::log(predict_s(r, rf[r.gpu]) / r.measured_s);
      sum += s->weights[k] * (l1 ? std::abs(e) : e * e);
      weight += s->weights[k];
    }
    std::string out = "{\"loss\":";
    number(out, sum / weight);
    return out + '}';
  }

  const Rows& rows_;
  std::map<std::string, Subset> subsets_;
};

}  // namespace costdsl::calib
