#pragma once
// DisaggHarness: the disaggregated deployments SemiAnalysis InferenceX launched, read from
// its sweep config's history (data/harness/inferencex_disagg.csv, written by
// scripts/import_inferencex_disagg.py from .github/configs/nvidia-master.yaml), which
// completes what the silicon sample's InferenceX rows of a disaggregated deployment leave
// out. Those rows (source_file=2026-03-25.csv / 2026-04-06.csv) record the concurrency,
// the GPUs of a prefill and of a decode worker (prefill_tp_size, decode_tp_size) and the
// prefill's expert parallelism (prefill_moe_ep_size, which the export also writes as
// decode_moe_ep_size), but neither the worker counts, nor the batch caps, nor whether
// attention ran data-parallel, nor the decode workers' own expert parallelism: the
// sweep entry that launched them holds all of it. A row takes the entries that stood in
// the config when it was measured (valid_from <= measured < valid_until) for its model,
// GPU, framework, precision, ISL/OSL and concurrency, with its prefill GPUs and EP and
// its decode GPUs; where none stood then, those that stood within a day of it
// (InferenceX sweeps a pull request's configs before it merges, so most such runs predate
// their entry's commit on main by hours: 311 of the sample's 347 near misses). Exactly one
// layout must remain, with or without speculative decoding (MTP) but not both, and an MTP
// entry's depth must be in its recipe file's name (TensorRT-LLM's `_mtpN`: N draft tokens);
// else the row is a counted skip saying which.
//
// What the sweep entry does not say stays the framework's: a batch cap the entry does
// not name (its DECODE_MAX_BATCH_SIZE, or for TensorRT-LLM the recipe file's name, whose
// `_batchN_` is the decode max_batch_size per attention-DP rank) is taken to admit every
// client (the concurrency over the decode ranks), a prefill worker's cap and token budget
// the framework's defaults unless PREFILL_MAX_BATCH_SIZE / PREFILL_MAX_NUM_TOKENS name them.
#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "costdsl/detail/read_text_file.hpp"
#include "costdsl/error.hpp"
#include "deployments.hpp"
#include "named_csv_rows.hpp"

namespace costdsl::cli::deployments {

class DisaggHarness {
 public:
  // One sweep entry at one concurrency, while it stood in the config.
  struct Entry {
    std::string valid_from, valid_until;  // UTC, YYYY-MM-DDTHH:MM:SSZ; valid_until empty: still there
    std::int64_t from_s = 0, until_s = 0;  // the same in seconds since 1970 (until_s: max when still there)
    std::string commit, config, model_path, system, backend, precision, spec_decoding, recipe, where;
    std::uint32_t isl = 0, osl = 0, concurrency = 0;
    std::uint32_t prefill_workers = 0, prefill_gpus = 0, prefill_ep = 1, prefill_attention_dp = 1;
    std::uint32_t prefill_max_batch = 0, prefill_max_tokens = 0;  // 0: not named
    std::uint32_t decode_workers = 0, decode_gpus = 0, decode_ep = 1, decode_attention_dp = 1;
    std::uint32_t decode_max_batch = 0;  // per attention-DP rank; 0: not named
    // Each role's experts' kernel as its recipe names it (SGLang: `deepep` where it
    // dispatches through DeepEP, else its moe-runner-backend; TensorRT-LLM: moe_config.backend);
    // empty: not read (no recipe, or no such columns).
    std::string prefill_moe_backend, decode_moe_backend;
    // The decode worker's SGLang stream-interval as its recipe names it; 0: not named.
    std::uint32_t decode_stream_interval = 0;
    // Speculative decoding: the draft tokens a decode step verifies, from the recipe file's
    // name (`_mtp3.yaml`); 0 without speculative decoding; unknown_depth where the entry ran
    // MTP and its recipe's name does not say how deep.
    static constexpr std::uint32_t unknown_depth = ~std::uint32_t{0};
    std::uint32_t decode_draft_tokens = 0;

    // What its recipe ran (read from srt-slurm), as take_recipe() hands it to a row.
    auto recipe_ran() const {
      return std::tie(prefill_moe_backend, decode_moe_backend, decode_stream_interval, decode_draft_tokens);
    }
    // What the row does not record (the rest it matched on): entries that match one row
    // must agree on it for the row to be resolved.
    auto unit() const {
      return std::tuple_cat(std::tie(spec_decoding, prefill_workers, prefill_attention_dp, prefill_max_batch,
                                     prefill_max_tokens, decode_workers, decode_ep, decode_attention_dp,
                                     decode_max_batch),
                            recipe_ran());
    }
    void take_recipe(Deployment& d) const {
      d.prefill.moe_kernel = prefill_moe_backend;
      d.worker.moe_kernel = decode_moe_backend;
      d.decode_stream_interval = decode_stream_interval;
      d.decode_draft_tokens = decode_draft_tokens;
    }

    // The depth `_mtpN` in a recipe path names (N a digit or two), or unknown_depth.
    static std::uint32_t mtp_depth(std::string_view recipe) {
      const std::size_t at = recipe.rfind("_mtp");
      if (at == std::string_view::npos) return unknown_depth;
      std::uint32_t n = 0;
      std::size_t i = at + 4, digits = 0;
      for (; i < recipe.size() && recipe[i] >= '0' && recipe[i] <= '9' && digits < 2; ++i, ++digits)
        n = n * 10 + static_cast<std::uint32_t>(recipe[i] - '0');
      return digits > 0 && n > 0 && (i == recipe.size() || recipe[i] == '.' || recipe[i] == '_') ? n : unknown_depth;
    }
  };

  // data/harness/inferencex_disagg.csv under the data directory.
  static std::filesystem::path default_path(const std::filesystem::path& data_dir) {
    return data_dir / "harness" / "inferencex_disagg.csv";
  }

  // Reads the table; a malformed cell is a FILE:LINE:COL error; an attention-DP degree that
  // is neither 1 nor the worker's GPUs or a time span that ends before it starts a FILE:LINE
  // error. An entry whose EP does not divide its GPUs is kept as the config wrote it (some
  // did): a row it launched is skipped saying so.
  static DisaggHarness load(const std::filesystem::path& path) {
    const std::string file = path.string();
    const std::string text = costdsl::detail::read_text_file(path, "InferenceX disaggregated sweep table");
    DisaggHarness h;
    const std::vector<std::string_view> required{
        "valid_from",      "valid_until",   "commit",         "config",           "model_path",
        "system",          "backend",       "precision",      "isl",              "osl",
        "spec_decoding",   "concurrency",   "prefill_workers", "prefill_gpus",    "prefill_ep",
        "prefill_attention_dp", "prefill_max_batch", "prefill_max_tokens", "decode_workers", "decode_gpus",
        "decode_ep",       "decode_attention_dp", "decode_max_batch", "recipe"};
    for_each_named_row(text, file, required, "the InferenceX disaggregated sweep table",
                       [&](std::size_t, const aic::detail::Cells& r) {
                         const auto positive = [&](std::string_view col) { return count(r, col, 1); };
                         const auto optional = [&](std::string_view col) {
                           return r.text(col).empty() ? std::uint32_t{0} : count(r, col, 1);
                         };
                         Entry e;
                         e.valid_from = r.text("valid_from");
                         e.valid_until = r.text("valid_until");
                         e.commit = r.text("commit");
                         e.config = r.text("config");
                         e.model_path = r.text("model_path");
                         e.system = r.text("system");
                         e.backend = r.text("backend");
                         e.precision = r.text("precision");
                         e.spec_decoding = r.text("spec_decoding");
                         e.recipe = r.text("recipe");
                         if (e.spec_decoding != "none" && e.spec_decoding != "mtp")
                           throw DataError(fmt::format("{}: spec_decoding '{}' is neither none nor mtp", r.where(),
                                                       e.spec_decoding));
                         if (e.spec_decoding == "mtp") e.decode_draft_tokens = Entry::mtp_depth(e.recipe);
                         if (r.has("prefill_moe_backend")) e.prefill_moe_backend = r.text("prefill_moe_backend");
                         if (r.has("decode_moe_backend")) e.decode_moe_backend = r.text("decode_moe_backend");
                         if (r.has("decode_stream_interval")) e.decode_stream_interval = optional("decode_stream_interval");
                         e.where = r.where();
                         e.isl = positive("isl");
                         e.osl = positive("osl");
                         e.concurrency = positive("concurrency");
                         e.prefill_workers = positive("prefill_workers");
                         e.prefill_gpus = positive("prefill_gpus");
                         e.prefill_ep = positive("prefill_ep");
                         e.prefill_attention_dp = positive("prefill_attention_dp");
                         e.prefill_max_batch = optional("prefill_max_batch");
                         e.prefill_max_tokens = optional("prefill_max_tokens");
                         e.decode_workers = positive("decode_workers");
                         e.decode_gpus = positive("decode_gpus");
                         e.decode_ep = positive("decode_ep");
                         e.decode_attention_dp = positive("decode_attention_dp");
                         e.decode_max_batch = optional("decode_max_batch");
                         for (const auto& [role, gpus, dp] : {std::tuple{"prefill", e.prefill_gpus, e.prefill_attention_dp},
                                                              std::tuple{"decode", e.decode_gpus, e.decode_attention_dp}})
                           if (dp != 1 && dp != gpus)
                             throw DataError(fmt::format("{}: {}_attention_dp {} must be 1 or the worker's {} GPUs",
                                                         e.where, role, dp, gpus));

                         const std::optional<std::int64_t> from = utc_seconds(e.valid_from);
                         const std::optional<std::int64_t> until =
                             e.valid_until.empty() ? std::optional<std::int64_t>(std::numeric_limits<std::int64_t>::max())
                                                   : utc_seconds(e.valid_until);
                         if (!from || !until || *until < *from)
                           throw DataError(fmt::format("{}: valid_from '{}' .. valid_until '{}' is not a time span "
                                                       "(YYYY-MM-DDTHH:MM:SS, UTC)",
                                                       e.where, e.valid_from, e.valid_until));
                         e.from_s = *from;
                         e.until_s = *until;
                         h.entries_.push_back(std::move(e));
                       });
    return h;
  }

  std::size_t size() const noexcept { return entries_.size(); }

  // Completes d's disaggregated unit from the sweep entry that launched it, or says why
  // it cannot (the reason the row is skipped for).
  std::string resolve(Deployment& d) const {
    const std::optional<std::int64_t> at = utc_seconds(d.measured_at);
    if (!at) return "prefill_num_workers empty and no measured= time: the disaggregated unit is not recorded";
    // The entries for this deployment that stood within `slack` seconds of the measurement.
    const auto standing = [&](std::int64_t slack) {
      std::vector<const Entry*> hits;
      for (const Entry& e : entries_)
        if (stood_for(e, d, *at, slack) && e.prefill_gpus == d.prefill.tp && e.prefill_ep == d.prefill.moe_ep &&
            e.decode_gpus == d.worker.tp)
          hits.push_back(&e);
      return hits;
    };
    std::vector<const Entry*> hits = standing(0);
    if (hits.empty()) hits = standing(merge_slack_s);
    if (hits.empty())
      return "prefill_num_workers empty, and InferenceX's sweep config had no disaggregated entry for it within a day "
             "of its measurement: the disaggregated unit is not recorded";
    std::set<std::string> specs;
    for (const Entry* e : hits) specs.insert(e->spec_decoding);
    if (specs.size() > 1)
      return "InferenceX disaggregated sweep: this layout ran with and without speculative decoding (MTP), and the "
             "row does not say which";
    if (*specs.begin() != "none" &&
        std::any_of(hits.begin(), hits.end(), [](const Entry* e) { return e->decode_draft_tokens == Entry::unknown_depth; }))
      return std::string(mtp_depth_not_given);
    if (!std::all_of(hits.begin(), hits.end(), [&](const Entry* e) { return e->unit() == hits.front()->unit(); }))
      return fmt::format("InferenceX disaggregated sweep: {} entries with different worker counts or caps match "
                         "this row: which one ran is not recorded",
                         hits.size());
    const Entry& e = *hits.front();
    if (e.prefill_gpus % e.prefill_ep != 0 || e.decode_gpus % e.decode_ep != 0)
      return "InferenceX disaggregated sweep: the entry's expert parallelism does not divide its GPUs (written so in "
             "the config): the layout that ran is not recorded";
    const auto layout = [](WorkerLayout& w, std::uint32_t gpus, std::uint32_t ep, std::uint32_t dp) {
      w.dp = dp;
      w.tp = gpus / dp;
      w.moe_ep = ep;
      w.moe_tp = gpus / ep;
    };
    layout(d.prefill, e.prefill_gpus, e.prefill_ep, e.prefill_attention_dp);
    layout(d.worker, e.decode_gpus, e.decode_ep, e.decode_attention_dp);
    d.prefill_workers = e.prefill_workers;
    d.decode_workers = e.decode_workers;
    e.take_recipe(d);
    d.prefill.batch = e.prefill_max_batch;  // 0: the framework's cap
    const std::uint32_t ranks = e.decode_workers * e.decode_attention_dp;
    d.worker.batch = e.decode_max_batch != 0 ? e.decode_max_batch : (d.clients + ranks - 1) / ranks;
    d.token_budget = e.prefill_max_tokens;
    d.unit_recorded = true;
    d.unit_source = fmt::format("InferenceX {} .github/configs/nvidia-master.yaml: {}{}", e.commit, e.config,
                                e.recipe.empty() ? std::string() : fmt::format(" ({})", e.recipe));
    return {};
  }

  // InferenceX benchmarks DeepSeek-R1 only (the sweep's dsr1); the sample exports some of the
  // same runs as deepseek-ai/DeepSeek-V3 (one architecture, the same measurements twice).
  static bool same_model(std::string_view entry, std::string_view row) {
    return entry == row || (entry == "deepseek-ai/DeepSeek-R1" && row == "deepseek-ai/DeepSeek-V3");
  }

  // Whether entry e is d's deployment (model, GPU, framework, precision, ISL/OSL and
  // concurrency) and stood in the config within `slack` seconds of `at`, d's measurement.
  static bool stood_for(const Entry& e, const Deployment& d, std::int64_t at, std::int64_t slack) {
    return same_model(e.model_path, d.model_path) && e.system == d.system && e.backend == d.backend &&
           e.precision == d.precision && e.isl == d.isl && e.osl == d.osl && e.concurrency == d.clients &&
           e.from_s - slack <= at && (e.until_s == std::numeric_limits<std::int64_t>::max() || at < e.until_s + slack);
  }

  // A disaggregated row that records its unit (the results database's) takes what its
  // recipe ran from the sweep entries of that layout that stood when it was measured
  // (within a day): each role's experts' kernel and the decode stream interval, where those
  // entries agree on them. Returns whether it did.
  bool recipe_facts(Deployment& d) const {
    const std::optional<std::int64_t> at = utc_seconds(d.measured_at);
    if (!at || !d.disaggregated) return false;
    const Entry* first = nullptr;
    for (const Entry& e : entries_) {
      const bool same_layout =
          e.prefill_workers == d.prefill_workers && e.prefill_gpus == d.prefill.tp * d.prefill.dp &&
          e.prefill_attention_dp == d.prefill.dp && e.prefill_ep == d.prefill.moe_ep &&
          e.decode_workers == d.decode_workers && e.decode_gpus == d.worker.tp * d.worker.dp &&
          e.decode_attention_dp == d.worker.dp && e.decode_ep == d.worker.moe_ep;
      if (!same_layout || !stood_for(e, d, *at, merge_slack_s)) continue;
      // Entries whose recipes differ: which one ran is not recorded.
      if (first != nullptr && first->recipe_ran() != e.recipe_ran()) return false;
      first = &e;
    }
    if (first == nullptr) return false;
    first->take_recipe(d);
    return true;
  }

  // How far from its measurement an entry may have stood when none stood at that moment.
  static constexpr std::int64_t merge_slack_s = 24 * 3600;

  // "YYYY-MM-DDTHH:MM:SS..." (UTC) as seconds since 1970-01-01; nullopt if it is not that.
  static std::optional<std::int64_t> utc_seconds(std::string_view t) {
    if (t.size() < 19 || t[4] != '-' || t[7] != '-' || t[10] != 'T' || t[13] != ':' || t[16] != ':')
      return std::nullopt;
    const auto num = [&](std::size_t at, std::size_t n) -> std::optional<std::int64_t> {
      std::int64_t v = 0;
      for (std::size_t i = at; i < at + n; ++i) {
        if (t[i] < '0' || t[i] > '9') return std::nullopt;
        v = v * 10 + (t[i] - '0');
      }
      return v;
    };
    const auto y = num(0, 4), mo = num(5, 2), dd = num(8, 2), h = num(11, 2), mi = num(14, 2), se = num(17, 2);
    if (!y || !mo || !dd || !h || !mi || !se || *mo < 1 || *mo > 12 || *dd < 1 || *dd > 31 || *h > 23 || *mi > 59 ||
        *se > 60)
      return std::nullopt;
    // Days from 1970-01-01 to y-mo-dd in the proleptic Gregorian calendar: count from
    // 1 March so the leap day ends a year (era = 400 years = 146097 days).
    const std::int64_t yy = *y - (*mo <= 2 ? 1 : 0), era = (yy >= 0 ? yy : yy - 399) / 400;
    const std::int64_t yoe = yy - era * 400, mp = (*mo + 9) % 12;
    const std::int64_t doy = (153 * mp + 2) / 5 + *dd - 1, doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    const std::int64_t days = era * 146097 + doe - 719468;
    return days * 86400 + *h * 3600 + *mi * 60 + *se;
  }

 private:
  static std::uint32_t count(const aic::detail::Cells& r, std::string_view col, std::uint64_t min) {
    const std::uint64_t v = r.count(col);
    if (v < min || v > 10'000'000)
      throw DataError(fmt::format("{}: column '{}': {} must be in {}..10000000", r.where(col), col, v, min));
    return static_cast<std::uint32_t>(v);
  }

  std::vector<Entry> entries_;
};

// Resolves every disaggregated row whose unit is not recorded from the harness, moving
// the rows it cannot resolve to the table's skips; an InferenceX row that records its unit
// takes its recipe's facts (recipe_facts).
inline void resolve_units(Table& t, const DisaggHarness& h) {
  std::vector<Deployment> kept;
  kept.reserve(t.rows.size());
  for (Deployment& d : t.rows) {
    if (d.unit_recorded) {
      if (recipe_for(provenance_of(d)).harness == "inferencex") h.recipe_facts(d);
      kept.push_back(std::move(d));
    } else if (std::string why = h.resolve(d); why.empty()) {
      kept.push_back(std::move(d));
    } else {
      t.skips.add(std::move(why), d.where);
    }
  }
  t.rows = std::move(kept);
}

}  // namespace costdsl::cli::deployments
