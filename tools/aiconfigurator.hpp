#pragma once
// NVIDIA aiconfigurator's kernel measurement tables, read into costdsl's kernel kinds.
//
// aiconfigurator (Apache-2.0) publishes per-GPU tables in its own schema (CSV, gzipped for
// most TensorRT-LLM and vLLM tables, or the same columns as the text files of its older
// releases), one framework and version per file: GEMM, context / generation
// attention, context / generation MLA, fused MoE, NCCL collectives, the framework's
// custom all-reduce, Gated DeltaNet's (GDN) conv and delta-rule kernels and DeepSeek sparse
// attention's sparse MLA kernel (the glm5_dsa_attn_module table). A table is
// recognised by its header columns (and its op_name column where two tables share
// columns), whatever the file is called. Each row maps to one
// costdsl kernel call, typed (the kind's Config and Input) so that `costdsl import`
// writes it into a profile table and `costdsl validate` evaluates the model on it.
//
// Reading is strict where a file is malformed (a DataError "FILE:LINE:COL: ..." naming
// the column, the value and the rule, through the profile-table line reader) and
// counted where a well-formed row is something costdsl does not model (a sliding window,
// a weight-only dtype, power-law routing, ...): every such row is counted under its
// reason and reported, never dropped silently. aiconfigurator's tables of what costdsl
// has no kind for (attention modules, KDA, Mamba2, encoder attention, ...) are recognised
// by their columns too (KDA's by its op_name: it shares GDN's), and reported as such,
// not read.
#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <tuple>
#include <type_traits>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include <fmt/format.h>

#include <boost/mp11/algorithm.hpp>

#include "costdsl/detail/read_gzip_file.hpp"
#include "costdsl/error.hpp"
#include "costdsl/expert_load.hpp"
#include "costdsl/kernel.hpp"
#include "costdsl/roofline.hpp"
#include "costdsl/kernels/all_gather.hpp"
#include "costdsl/kernels/all_reduce.hpp"
#include "costdsl/kernels/attn_decode.hpp"
#include "costdsl/kernels/attn_prefill.hpp"
#include "costdsl/kernels/dsa_sparse_mla.hpp"
#include "costdsl/kernels/fused_moe.hpp"
#include "costdsl/kernels/gdn_conv1d_decode.hpp"
#include "costdsl/kernels/gdn_conv1d_prefill.hpp"
#include "costdsl/kernels/gdn_decode.hpp"
#include "costdsl/kernels/gdn_prefill.hpp"
#include "costdsl/kernels/gemm.hpp"
#include "costdsl/kernels/mla_decode.hpp"
#include "costdsl/kernels/mla_prefill.hpp"
#include "costdsl/profile_csv.hpp"
#include "costdsl/quantization.hpp"
#include "costdsl/reflect.hpp"

namespace costdsl::aic {

// The source tables, as aiconfigurator names them.
enum class Table : std::uint8_t {
  gemm,
  context_attention,
  generation_attention,
  context_mla,
  generation_mla,
  moe,
  nccl,
  custom_allreduce,
  gdn,
  dsa_sparse_attention
};

constexpr std::string_view name(Table t) noexcept {
  switch (t) {
    case Table::gemm: return "gemm";
    case Table::context_attention: return "context_attention";
    case Table::generation_attention: return "generation_attention";
    case Table::context_mla: return "context_mla";
    case Table::generation_mla: return "generation_mla";
    case Table::moe: return "moe";
    case Table::nccl: return "nccl";
    case Table::custom_allreduce: return "custom_allreduce";
    case Table::gdn: return "gdn";
    case Table::dsa_sparse_attention: return "glm5_dsa_attn_module";
  }
  return "?";
}

// The header columns each kind of table must have. Context and generation attention
// (and MLA) share theirs: a row's op_name says which it is. The first signature whose
// columns a header holds wins, so order matters.
//
// `modelled` false: one of aiconfigurator's tables of something costdsl has no kernel kind
// for, recognised so that a directory of aiconfigurator's files imports (the file is
// reported, not read) rather than stopping at "missing column". The whole-module tables
// come first: they carry the MLA / MoE columns too, but a row times a module (GEMMs and
// all), not the one kernel the MLA / MoE tables time.
struct Signature {
  std::string_view name;
  std::vector<std::string_view> columns;
  bool modelled = true;
};
inline const std::vector<Signature>& signatures() {
  static const std::vector<Signature> s{
      // GLM-5's DSA kernel tables (glm5_dsa_attn / mqa_logits / topk_module: one kernel each,
      // compress_ratio 1), ahead of the whole-module tables whose columns they carry too.
      {"dsa_kernel", {"op_name", "kernel_source", "compress_ratio", "num_heads", "batch_size", "isl", "step", "latency"}},
      {"attention_module", {"op_name", "architecture", "gemm_type", "latency"}, false},  // dsa / msa / mla modules
      {"wideep_moe", {"moe_kernel", "simulation_mode", "latency"}, false},
      {"moe_module", {"op_name", "kernel_dtype", "global_num_tokens", "latency"}, false},  // dsv4_megamoe_module
      {"gemm", {"gemm_dtype", "m", "n", "k", "latency"}},
      {"attention",
       {"op_name", "batch_size", "isl", "num_heads", "num_key_value_heads", "head_dim", "attn_dtype", "kv_cache_dtype",
        "step", "latency"}},
      {"mla", {"op_name", "mla_dtype", "kv_cache_dtype", "num_heads", "batch_size", "isl", "step", "latency"}},
      {"moe",
       {"moe_dtype", "num_tokens", "hidden_size", "inter_size", "topk", "num_experts", "moe_tp_size", "moe_ep_size",
        "distribution", "latency"}},
      // SGLang's and vLLM's name the path in `backend`; TensorRT-LLM's have none (or `implementation`).
      {"custom_allreduce", {"allreduce_dtype", "num_gpus", "message_size", "latency"}},
      {"nccl", {"op_name", "nccl_dtype", "num_gpus", "message_size", "latency"}},
      {"encoder_attention", {"op_name", "batch_size", "isl", "num_heads", "head_dim", "attn_dtype", "latency"}, false},
      // compute_scale, scale_matrix: the activation quantize inside the fp8 GEMM tables' sequences
      // (read into FileReport::quantize for add_fp8_input_gemms, no kind of their own).
      {"quantization_scale", {"op_name", "m", "k", "quant_dtype", "latency"}},
      {"mla_bmm", {"op_name", "bmm_dtype", "num_tokens", "num_heads", "latency"}, false},
      // GDN's and KDA's (one op per file: read_table_text reads gdn files only), then the
      // other linear-attention and state-space tables (mamba2's).
      {"linear_attention",
       {"op_name", "kernel_source", "phase", "batch_size", "seq_len", "num_tokens", "d_conv", "num_k_heads",
        "head_k_dim", "num_v_heads", "head_v_dim", "latency"}},
      {"linear_attn_other", {"op_name", "phase", "seq_len", "d_conv", "latency"}, false},
      {"mhc_module", {"op_name", "hc_mult", "latency"}, false},
      {"moe_alltoall", {"op_name", "moe_dtype", "num_tokens", "topk", "num_experts", "moe_ep_size", "latency"}, false},
  };
  return s;
}

// DeepSeek-V3's MLA dims: aiconfigurator's MLA tables measure that module (num_heads is
// the rank's share, checked against tp_size: 128 heads / tp).
inline constexpr std::uint64_t mla_kv_lora_rank = 512, mla_qk_nope_head_dim = 128, mla_qk_rope_head_dim = 64,
                               mla_v_head_dim = 128;

// One source row, typed as the costdsl kernel call it measured. `point` holds the exact
// values on the kind's table axes (a fused_moe rank's rows may be fractional: the
// average share of tokens·top_k / ep); `input` is the call the model evaluates.
template <KernelDef K>
struct Call {
  using Kind = K;
  typename K::Config config{};
  typename K::Input input{};
  std::array<double, K::axes.size()> point{};
};
using AnyCall = std::variant<Call<kernels::Gemm>, Call<kernels::AttnPrefill>, Call<kernels::AttnDecode>,
                             Call<kernels::MlaPrefill>, Call<kernels::MlaDecode>, Call<kernels::FusedMoe>,
                             Call<kernels::AllReduce>, Call<kernels::AllGather>, Call<kernels::GdnConv1dPrefill>,
                             Call<kernels::GdnConv1dDecode>, Call<kernels::GdnPrefill>, Call<kernels::GdnDecode>,
                             Call<kernels::DsaSparseMla>>;

struct Provenance {
  std::string framework, version, source;
};

struct Row {
  AnyCall call;
  std::string backend;  // costdsl backend name: the framework (sglang, trtllm, vllm), nccl or custom
  double time_ms = 0;
  Provenance provenance;
  Table table = Table::gemm;
  std::string file;
  std::size_t line = 0;
  std::string text;  // the source line, kept when the caller asks (held-out tables)
  bool derived = false;  // not a source row: add_fp8_input_gemms's, from the row at `line`
};

// Why rows were not mapped: reason → count and the first place it happened.
struct Skips {
  struct Entry {
    std::size_t count = 0;
    std::string first;  // FILE:LINE[:COL]
  };
  std::map<std::string, Entry> reasons;
  void add(const std::string& reason, const std::string& where) {
    Entry& e = reasons[reason];
    if (e.count++ == 0) e.first = where;
  }
  std::size_t total() const {
    std::size_t n = 0;
    for (const auto& [r, e] : reasons) n += e.count;
    return n;
  }
};

// What one source file held.
struct FileReport {
  std::string file;
  std::string table;   // the recognised table, or empty (not a measurement table)
  bool modelled = true;  // false: an aiconfigurator table costdsl has no kind for (reported, not read)
  std::string header;  // the header line (to write held-out rows back in the same schema)
  // Who measured it: the framework column lowercased, as the rows' backend (sglang, trtllm,
  // vllm; sglang without one), one per file; and its versions with their row counts,
  // usually one (aiconfigurator's B200 vLLM MoE table holds a dev build's rows too).
  std::string framework;
  std::map<std::string, std::size_t> versions;
  bool selected = true;  // false: its framework was not asked for (ReadOptions::frameworks); rows not mapped
  std::size_t rows = 0, mapped = 0;
  Skips skips;
  // A quantize table's rows (aiconfigurator's computescale and scale_matrix tables: per
  // (m, k), the dynamic quantize less the static one, and the static one), whatever the
  // framework selection: add_fp8_input_gemms takes them out of the fp8 GEMMs' sequences.
  struct QuantizeTime {
    bool compute_scale = false;  // else scale_matrix
    std::uint64_t m = 0, k = 0;
    double ms = 0;
  };
  std::vector<QuantizeTime> quantize;
  std::size_t derived = 0;           // rows derived from this file's (add_fp8_input_gemms)
  std::size_t derived_at_bound = 0;  // of which at the GEMM's hardware bound
};

struct ReadResult {
  std::vector<Row> rows;
  std::vector<FileReport> files;
};

struct ReadOptions {
  bool keep_text = false;  // keep each row's source line (held-out tables)
  // The frameworks whose tables to map (sglang, trtllm, vllm); empty: all. NCCL tables
  // are the collective library's own times, whichever framework's harness ran them:
  // always read.
  std::set<std::string, std::less<>> frameworks;
  // A framework's tables imported for these kernel kinds only (`--framework vllm:fused_moe`:
  // one framework's kernels shipped where they are what its deployments run, another's
  // elsewhere); a framework without an entry: every kind.
  std::map<std::string, std::set<std::string, std::less<>>, std::less<>> framework_kinds;
};

namespace detail {

inline std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// aiconfigurator's dtype names → costdsl's: fp8 is per tensor (per channel), fp8_block
// DeepSeek's 128×128 block scales, nvfp4 costdsl's fp4, int4_wo costdsl's int4.
inline std::optional<Dtype> dtype_of(std::string_view s) {
  if (s == "bfloat16") return Dtype::bf16;
  if (s == "float16" || s == "half") return Dtype::fp16;
  if (s == "fp8" || s == "float8_e4m3fn") return Dtype::fp8;
  if (s == "nvfp4") return Dtype::fp4;
  if (s == "fp8_block") return Dtype::fp8_block;
  if (s == "int4_wo") return Dtype::int4;  // W4A16 (Marlin / TensorRT-LLM's w4a16 MoE kernels)
  if (s == "float32" || s == "float") return Dtype::fp32;
  return std::nullopt;
}

// The cells of one row by column name, with the location and rules for messages.
class Cells {
 public:
  Cells(const std::string& file, std::size_t line, const std::map<std::string, std::size_t, std::less<>>& index,
        std::span<const CsvCell> cells)
      : file_(file), line_(line), index_(index), cells_(cells) {}

  bool has(std::string_view col) const { return index_.find(col) != index_.end(); }
  std::string_view text(std::string_view col) const { return cell(col).text; }
  std::string text_or(std::string_view col, std::string_view fallback) const {
    return has(col) ? std::string(text(col)) : std::string(fallback);
  }
  // A non-negative integer cell; a malformed one is a DataError naming cell and rule.
  std::uint64_t count(std::string_view col) const {
    const CsvCell& c = cell(col);
    const auto v = parse_csv_integer(c.text);
    if (!v) {
      // Some exporters write whole numbers as floats ("4096.0").
      const auto d = parse_csv_number(c.text);
      if (d && std::isfinite(*d) && *d >= 0 && *d == std::floor(*d) && *d < 9.2e18) return static_cast<std::uint64_t>(*d);
      throw fail(c, fmt::format("column '{}': '{}' is not a whole number", col, c.text));
    }
    if (*v < 0) throw fail(c, fmt::format("column '{}': '{}' is negative; it counts something", col, c.text));
    return static_cast<std::uint64_t>(*v);
  }
  // The latency in ms, or nullopt (counted by the caller) when it is no usable time.
  std::optional<double> latency(std::string& why) const { return time("latency", why); }
  // A measured time in column `col` (other schemas name theirs: vidur's medians).
  std::optional<double> time(std::string_view col, std::string& why) const {
    const CsvCell& c = cell(col);
    const auto v = parse_csv_number(c.text);
    if (!v) throw fail(c, fmt::format("column '{}': '{}' is not a number", col, c.text));
    if (!std::isfinite(*v) || *v <= 0) {
      why = fmt::format("{} {} (a measured time must be finite and > 0)", col,
                        std::isnan(*v) ? "NaN" : (*v <= 0 ? (*v == 0 ? "0" : "negative") : "infinite"));
      return std::nullopt;
    }
    return *v;
  }
  std::string where(std::string_view col = {}) const {
    if (!col.empty() && has(col)) return fmt::format("{}:{}:{}", file_, line_, cell(col).col);
    return fmt::format("{}:{}", file_, line_);
  }
  DataError fail(const CsvCell& c, const std::string& msg) const {
    return DataError(fmt::format("{}:{}:{}: {}", file_, line_, c.col, msg));
  }

 private:
  const CsvCell& cell(std::string_view col) const {
    const auto it = index_.find(col);
    if (it == index_.end()) throw DataError(fmt::format("{}:{}:1: internal: column '{}' not in the header", file_, line_, col));
    return cells_[it->second];
  }
  const std::string& file_;
  std::size_t line_;
  const std::map<std::string, std::size_t, std::less<>>& index_;
  std::span<const CsvCell> cells_;
};

// A typed call, validated by its kind: a config the kind rejects is a skip reason.
template <KernelDef K>
std::optional<AnyCall> make_call(typename K::Config c, typename K::Input in, std::array<double, K::axes.size()> point,
                                 std::string& why) {
  try {
    if constexpr (requires { K::validate(c); }) K::validate(c);
  } catch (const ConfigError& e) {
    why = fmt::format("{} config rejected: {}", K::kind, e.what());
    return std::nullopt;
  }
  return AnyCall(Call<K>{std::move(c), in, point});
}

// A GDN row (op_name gdn): its kernel_source names the kind, which must run in the row's
// phase. Context rows are `batch_size` fresh sequences of `seq_len` tokens each;
// generation rows one token per request. Heads are the rank's; the tables time bf16
// models (aiconfigurator's GDN collectors run bfloat16 activations, fp32 states).
inline std::optional<AnyCall> gdn_call(const Cells& r, std::string& why) {
  using namespace kernels;
  enum class Kind : std::uint8_t { conv_prefill, conv_decode, prefill, decode };
  struct Source {
    std::string_view kernel_source, phase;
    Kind kind;
  };
  // SGLang's, vLLM's and TensorRT-LLM's names for the four kernels (vLLM's chunked rule
  // runs FlashInfer's kernel where it can, FLA's Triton one elsewhere).
  static constexpr std::array<Source, 7> sources{{
      {"causal_conv1d_fn", "context", Kind::conv_prefill},
      {"causal_conv1d_update", "generation", Kind::conv_decode},
      {"chunk_gated_delta_rule", "context", Kind::prefill},
      {"chunk_gated_delta_rule_flashinfer", "context", Kind::prefill},
      {"chunk_gated_delta_rule_triton", "context", Kind::prefill},
      {"fused_recurrent_gated_delta_rule", "generation", Kind::decode},
      {"fused_recurrent_gated_delta_rule_packed_decode", "generation", Kind::decode},
  }};
  const std::string_view source = r.text("kernel_source"), phase = r.text("phase");
  const auto it =
      std::find_if(sources.begin(), sources.end(), [&](const Source& s) { return s.kernel_source == source; });
  if (it == sources.end()) {
    why = source == "flashinfer_gated_delta_rule_decode"
              ? fmt::format("kernel_source {}: a bf16 recurrent state (gdn_decode's state is fp32)", source)
              : fmt::format("kernel_source {}: no GDN kind runs it (causal_conv1d_fn, causal_conv1d_update, "
                            "chunk_gated_delta_rule[_flashinfer, _triton], fused_recurrent_gated_delta_rule"
                            "[_packed_decode])",
                            source);
    return std::nullopt;
  }
  if (phase != it->phase) {
    why = fmt::format("phase {} for kernel_source {}: it runs in the {} phase", phase, source, it->phase);
    return std::nullopt;
  }
  const std::uint64_t b = r.count("batch_size"), l = r.count("seq_len"), tokens = r.count("num_tokens");
  const std::uint64_t hk = r.count("num_k_heads"), dk = r.count("head_k_dim"), hv = r.count("num_v_heads"),
                      dv = r.count("head_v_dim"), d_conv = r.count("d_conv");
  if (phase == "generation" && l != 1) {
    why = fmt::format("seq_len {} in generation: one token per request is a decode step", l);
    return std::nullopt;
  }
  if (tokens != b * l) {
    why = fmt::format("num_tokens {} is not batch_size {} × seq_len {} (a batch of equal-length sequences)", tokens, b,
                      l);
    return std::nullopt;
  }
  const Dtype dt = Dtype::bf16;
  switch (it->kind) {
    case Kind::conv_prefill:
      return make_call<GdnConv1dPrefill>({dt, hk, dk, hv, dv, d_conv}, {b, l}, {double(b), double(l)}, why);
    case Kind::conv_decode:
      return make_call<GdnConv1dDecode>({dt, hk, dk, hv, dv, d_conv}, {b}, {double(b)}, why);
    case Kind::prefill: return make_call<GdnPrefill>({dt, hk, dk, hv, dv}, {b, l}, {double(b), double(l)}, why);
    case Kind::decode: return make_call<GdnDecode>({dt, hk, dk, hv, dv}, {b}, {double(b)}, why);
  }
  return std::nullopt;
}

// A glm5_dsa_attn_module row: FlashMLA's flash_mla_sparse_fwd over `batch_size` sequences
// of `isl` queries after `step` cached tokens (kernels/dsa_sparse_mla.hpp), GLM-5's latent
// (kv_lora_rank 512, rope 64) and index_topk 2048, which the table does not record. Its
// num_heads is the model's at tp_size 1; the kernel ran them padded to its head tile (128
// on Blackwell, 64 on Hopper: SGLang's nsa backend pads with zero heads), the kind's
// num_heads. The table is flat in step at every isl (the kernel walks all topk slots), so
// every row is a point on the kind's one axis, queries = batch_size × isl; duplicates merge
// into their median.
inline std::optional<AnyCall> dsa_sparse_call(const Cells& r, std::string& why) {
  using namespace kernels;
  if (r.text("kernel_source") != "flash_mla_sparse_fwd") {
    why = fmt::format("kernel_source {}: dsa_sparse_mla is FlashMLA's flash_mla_sparse_fwd", r.text("kernel_source"));
    return std::nullopt;
  }
  if (r.count("compress_ratio") != 1) {
    why = fmt::format("compress_ratio {}: a compressed KV (dsa_sparse_mla attends to every selected token)",
                      r.text("compress_ratio"));
    return std::nullopt;
  }
  const auto kv = dtype_of(r.text("kv_cache_dtype") == "fp8_e4m3" ? std::string_view("fp8") : r.text("kv_cache_dtype"));
  if (!kv) {
    why = fmt::format("kv_cache_dtype {}: no costdsl dtype", r.text("kv_cache_dtype"));
    return std::nullopt;
  }
  const std::string device = r.text_or("device", "");
  const bool blackwell = device.find("B200") != std::string::npos || device.find("B300") != std::string::npos;
  const std::uint64_t tile = blackwell ? 128 : 64, heads = r.count("num_heads") / std::max<std::uint64_t>(r.count("tp_size"), 1);
  const std::uint64_t launch = (heads + tile - 1) / tile * tile;
  const std::uint64_t b = r.count("batch_size"), isl = r.count("isl"), step = r.count("step");
  return make_call<DsaSparseMla>({*kv, launch, mla_kv_lora_rank, mla_qk_rope_head_dim, 2048}, {b, step, isl},
                                 {double(b) * double(isl)}, why);
}

}  // namespace detail

// Maps one row of a recognised table; nullopt with `why` set when costdsl does not model it.
inline std::optional<AnyCall> map_row(Table t, const detail::Cells& r, std::string& why) {
  using namespace kernels;
  using detail::dtype_of;
  switch (t) {
    case Table::gemm: {
      const std::string_view d = r.text("gemm_dtype");
      const auto dt = dtype_of(d);
      if (!dt) {
        why = fmt::format("gemm_dtype {}: no costdsl dtype (fp32, bf16, fp16, fp8, fp8_block, nvfp4)", d);
        return std::nullopt;
      }
      if (*dt == Dtype::int4) {
        why = fmt::format("gemm_dtype {}: int4 weight-only is modelled for routed experts only", d);
        return std::nullopt;
      }
      const std::uint64_t m = r.count("m"), n = r.count("n"), k = r.count("k");
      return detail::make_call<Gemm>({*dt, n, k}, {m}, {double(m)}, why);
    }
    case Table::context_attention:
    case Table::generation_attention: {
      if (r.has("beam_width") && r.text("beam_width") != "1") {
        why = fmt::format("beam_width {}: beam search is not modelled", r.text("beam_width"));
        return std::nullopt;
      }
      if (r.has("window_size") && r.count("window_size") != 0) {
        why = "window_size > 0: sliding-window attention (costdsl attention is full causal)";
        return std::nullopt;
      }
      const auto kv = dtype_of(r.text("kv_cache_dtype"));
      if (!kv) {
        why = fmt::format("kv_cache_dtype {}: no costdsl dtype", r.text("kv_cache_dtype"));
        return std::nullopt;
      }
      const std::uint64_t b = r.count("batch_size"), isl = r.count("isl"), step = r.count("step");
      const std::uint64_t qo = r.count("num_heads"), kvh = r.count("num_key_value_heads"), hd = r.count("head_dim");
      if (t == Table::context_attention) {
        const auto at = dtype_of(r.text("attn_dtype"));
        if (!at || *at != *kv) {
          why = fmt::format("attn_dtype {} with kv_cache_dtype {}: attn_prefill has one dtype for Q and the KV cache",
                            r.text("attn_dtype"), r.text("kv_cache_dtype"));
          return std::nullopt;
        }
        if (step != 0) {
          why = "step > 0: a context phase after cached tokens (only fresh prefills are read)";
          return std::nullopt;
        }
        return detail::make_call<AttnPrefill>({*at, qo, kvh, hd, 0}, {b, 0, isl}, {double(b), double(isl)}, why);
      }
      if (isl != 1) {
        why = "isl > 1 in generation attention: one new token per request is a decode step";
        return std::nullopt;
      }
      // One decode step per request, KV length step + 1 (the new token included).
      const std::uint64_t total = b * (step + 1);
      return detail::make_call<AttnDecode>({*kv, qo, kvh, hd}, {b, total}, {double(b), double(total)}, why);
    }
    case Table::context_mla:
    case Table::generation_mla: {
      const auto compute = dtype_of(r.text("mla_dtype")), kv = dtype_of(r.text("kv_cache_dtype"));
      if (!compute || !kv) {
        why = fmt::format("mla_dtype {} / kv_cache_dtype {}: no costdsl dtype", r.text("mla_dtype"),
                          r.text("kv_cache_dtype"));
        return std::nullopt;
      }
      const std::uint64_t heads = r.count("num_heads"), b = r.count("batch_size"), isl = r.count("isl"),
                          step = r.count("step");
      if (t == Table::context_mla) {
        if (*compute != *kv) {
          why = fmt::format("mla_dtype {} with kv_cache_dtype {}: mla_prefill runs on the expanded K/V in one dtype",
                            r.text("mla_dtype"), r.text("kv_cache_dtype"));
          return std::nullopt;
        }
        if (step != 0) {
          why = "step > 0: a context phase after cached tokens (only fresh prefills are read)";
          return std::nullopt;
        }
        return detail::make_call<MlaPrefill>(
            {*compute, heads, mla_kv_lora_rank, mla_qk_nope_head_dim, mla_qk_rope_head_dim, mla_v_head_dim},
            {b, 0, isl}, {double(b), double(isl)}, why);
      }
      if (isl != 1) {
        why = "isl > 1 in generation MLA: one new token per request is a decode step";
        return std::nullopt;
      }
      const std::uint64_t total = b * (step + 1);
      return detail::make_call<MlaDecode>(
          {*kv, heads, mla_kv_lora_rank, mla_qk_nope_head_dim, mla_qk_rope_head_dim, mla_v_head_dim}, {b, total},
          {double(b), double(total)}, why);
    }
    case Table::moe: {
      // The routing the kernel was timed under: balanced gating, or the power laws
      // aiconfigurator looks its models up at (expert_load.hpp); a leaf binds the one its
      // Timing names.
      const std::string_view dist = r.text("distribution");
      ExpertLoad load{};
      if (!parse_field_text(dist, load)) {
        why = fmt::format("distribution {}: not one of the expert loads costdsl binds ({})", dist, expert_load_names());
        return std::nullopt;
      }
      // w4a16_mxfp4: gpt-oss's experts as shipped, MXFP4 weights under bf16 activations (the
      // weight-only kernels vLLM, SGLang and TensorRT-LLM run for it); w4a8_mxfp4_mxfp8: the
      // same weights under MXFP8 activations (trtllm-gen's W4A8 kernel), dtype fp8.
      const std::string_view d = r.text("moe_dtype");
      const bool w4a8 = is_w4a8_expert_format(d), mxfp4_weights = d == "w4a16_mxfp4" || w4a8;
      const std::optional<Dtype> dt = w4a8            ? std::optional<Dtype>(Dtype::fp8)
                                      : mxfp4_weights ? std::optional<Dtype>(Dtype::bf16)
                                                      : dtype_of(d);
      if (!dt) {
        why = fmt::format("moe_dtype {}: no costdsl dtype", d);
        return std::nullopt;
      }
      const Dtype weights = mxfp4_weights ? Dtype::mxfp4 : *dt;
      const std::uint64_t tokens = r.count("num_tokens"), hidden = r.count("hidden_size"),
                          inter = r.count("inter_size"), k = r.count("topk"), e = r.count("num_experts"),
                          tp = r.count("moe_tp_size"), ep = r.count("moe_ep_size");
      if (tp == 0 || ep == 0 || e % ep != 0 || inter % tp != 0) {
        why = "moe_ep_size must divide num_experts and moe_tp_size must divide inter_size";
        return std::nullopt;
      }
      // The rank's share: its num_experts / ep experts get tokens·top_k / ep rows on average.
      // Under a power law the collector times the hottest EP group at that key: what the
      // slowest rank of an evenly split batch costs.
      const double rows = double(tokens) * double(k) / double(ep);
      const std::uint64_t whole = std::max<std::uint64_t>(1, static_cast<std::uint64_t>(std::llround(rows)));
      return detail::make_call<FusedMoe>({*dt, hidden, inter / tp, e / ep, k, weights, load}, {whole, 0}, {rows}, why);
    }
    case Table::nccl: {
      // all_gather: the vocabulary-parallel lm_head's logits (worklets/lm_head_tp.hpp).
      // nccl-tests' size, which the collector passes on, is the gathered output's: costdsl's
      // all_gather convention too (kernels/all_gather.hpp).
      const std::string_view op = r.text("op_name");
      if (op != "all_reduce" && op != "all_gather") {
        why = fmt::format("op_name {}: all_reduce and all_gather are imported from NCCL tables", op);
        return std::nullopt;
      }
      const std::string_view d = r.text("nccl_dtype");
      if (d != "half" && d != "bfloat16" && d != "float16") {
        why = fmt::format("nccl_dtype {}: collectives of 16-bit activations are imported", d);
        return std::nullopt;
      }
      const std::uint64_t n = r.count("num_gpus"), bytes = 2 * r.count("message_size");  // elements of 2 B
      if (op == "all_gather") return detail::make_call<AllGather>({n}, {bytes}, {double(bytes)}, why);
      return detail::make_call<AllReduce>({n}, {bytes}, {double(bytes)}, why);
    }
    case Table::custom_allreduce: {
      // SGLang's and vLLM's tables time each size in and out of a CUDA graph (backend
      // sglang_graph / sglang_eager). TensorRT-LLM's have no such column: aiconfigurator's
      // TRT-LLM collector times every size inside a CUDA graph (collect_all_reduce.py).
      const std::string_view backend = r.has("backend") ? r.text("backend") : std::string_view("graph");
      if (backend.find("graph") == std::string_view::npos) {
        why = fmt::format("backend {}: the custom all-reduce outside CUDA graphs (frameworks serve under graphs)",
                          backend);
        return std::nullopt;
      }
      const std::string_view d = r.text("allreduce_dtype");
      if (d != "bfloat16" && d != "float16" && d != "half") {
        why = fmt::format("allreduce_dtype {}: all-reduces of 16-bit activations are imported", d);
        return std::nullopt;
      }
      const std::uint64_t n = r.count("num_gpus"), bytes = 2 * r.count("message_size");
      return detail::make_call<AllReduce>({n}, {bytes}, {double(bytes)}, why);
    }
    case Table::gdn: return detail::gdn_call(r, why);
    case Table::dsa_sparse_attention: return detail::dsa_sparse_call(r, why);
  }
  return std::nullopt;
}

// The framework that measured a row, as costdsl names backends: the framework column
// lowercased (SGLang → sglang, TRTLLM → trtllm, VLLM / vLLM → vllm), sglang without one.
inline std::string framework_of(const detail::Cells& r) {
  const std::string fw = detail::lower(r.text_or("framework", "sglang"));
  return fw.empty() ? "sglang" : fw;
}

// The costdsl backend a table's rows are measured as: the framework, but for the all-reduce
// tables (NCCL's, and the framework's custom one, the all_reduce kind's `custom` backend).
inline std::string backend_of(Table t, const std::string& framework) {
  if (t == Table::nccl) return "nccl";
  if (t == Table::custom_allreduce) return "custom";
  return framework;
}

// Reads one table from text.
inline FileReport read_table_text(std::string_view text, const std::string& file, std::vector<Row>& out,
                                  const ReadOptions& opt) {
  FileReport rep;
  rep.file = file;
  std::map<std::string, std::size_t, std::less<>> index;
  std::vector<std::string> header;
  std::optional<std::size_t> sig;  // index into signatures(); "attention" / "mla" split by op_name
  bool have_header = false;
  std::size_t first_line = 0;  // the first data row: its framework and version are the file's
  std::string first_framework;  // as written there
  for_each_csv_line(text, file, [&](std::size_t line, std::string_view raw, std::span<const CsvCell> cells) {
    if (!have_header) {
      have_header = true;
      rep.header = std::string(raw);
      for (std::size_t c = 0; c < cells.size(); ++c) {
        if (cells[c].text.empty())
          throw DataError(fmt::format("{}:{}:{}: header column {} has no name", file, line, cells[c].col, c + 1));
        if (!index.emplace(std::string(cells[c].text), c).second)
          throw DataError(fmt::format("{}:{}:{}: duplicate column '{}'", file, line, cells[c].col, cells[c].text));
        header.emplace_back(cells[c].text);
      }
      const auto& sigs = signatures();
      for (std::size_t s = 0; s < sigs.size() && !sig; ++s)
        if (std::all_of(sigs[s].columns.begin(), sigs[s].columns.end(), [&](auto c) { return index.count(c) > 0; }))
          sig = s;
      if (sig) {
        rep.table = std::string(sigs[*sig].name);
        rep.modelled = sigs[*sig].modelled;
        return;
      }
      if (index.count("latency") == 0) return;  // not a measurement table: reported, not read
      // A measurement table missing columns: name the closest kind and what it lacks.
      std::size_t best = 0, best_have = 0;
      for (std::size_t s = 0; s < sigs.size(); ++s) {
        if (!sigs[s].modelled) continue;
        const auto have = static_cast<std::size_t>(std::count_if(
            sigs[s].columns.begin(), sigs[s].columns.end(), [&](auto c) { return index.count(c) > 0; }));
        if (have > best_have) best = s, best_have = have;
      }
      std::string missing;
      for (auto c : sigs[best].columns)
        if (index.count(c) == 0) missing += (missing.empty() ? "'" : ", '") + std::string(c) + "'";
      throw DataError(fmt::format("{}:{}:1: missing column {} for an aiconfigurator {} table (its columns: {})", file,
                                  line, missing, sigs[best].name, fmt::join(sigs[best].columns, ", ")));
    }
    if (!sig || !rep.modelled) return;
    if (cells.size() != header.size())
      throw DataError(fmt::format("{}:{}:{}: row has {} cells but the header has {} columns", file, line,
                                  cells.size() > header.size() ? cells[header.size()].col : raw.size() + 1,
                                  cells.size(), header.size()));
    // GDN and KDA tables share their columns, one op per file: a file whose first row is
    // not GDN's is one costdsl has no kind for (KDA's gates are per channel, not per head).
    if (rep.rows == 0 && signatures()[*sig].name == "linear_attention" && cells[index.at("op_name")].text != "gdn") {
      rep.modelled = false;
      return;
    }
    ++rep.rows;
    const detail::Cells r(file, line, index, cells);
    // One framework per file: its rows' backend and the --framework choice are the file's,
    // so a file mixing two would file one framework's kernels under the other's name.
    // Versions may differ (each row keeps its own); the report lists them.
    const std::string fw = framework_of(r), version = r.text_or("version", "");
    const std::string_view sname = signatures()[*sig].name;
    if (first_line == 0) {
      first_line = line;
      first_framework = r.text_or("framework", "");
      rep.framework = fw;
      // NCCL's and the quantize tables are read whatever frameworks were asked for (the
      // collective library's own times; the quantize the asked-for GEMM tables include).
      rep.selected = sname == "nccl" || sname == "quantization_scale" || opt.frameworks.empty() ||
                     opt.frameworks.count(fw) > 0;
    } else if (fw != rep.framework) {
      throw DataError(fmt::format("{}: framework '{}', but the file's rows from line {} are '{}': one framework "
                                  "per file",
                                  r.where("framework"), r.text_or("framework", ""), first_line, first_framework));
    }
    ++rep.versions[version];
    if (sname == "quantization_scale") {
      const std::string_view op = r.text("op_name");
      if (op != "compute_scale" && op != "scale_matrix") {
        rep.skips.add(fmt::format("op_name {}: not a quantize table's (compute_scale, scale_matrix)", op),
                      r.where("op_name"));
        return;
      }
      if (r.text("quant_dtype") != "fp8") {
        rep.skips.add(fmt::format("quant_dtype {}: only fp8's quantize is taken out of a GEMM", r.text("quant_dtype")),
                      r.where("quant_dtype"));
        return;
      }
      // compute_scale is max(0, dynamic - static) as the collectors write it: a 0 is a
      // measurement (the static quantize no faster), not a missing time.
      std::string why;
      std::optional<double> ms = r.latency(why);
      if (!ms && op == "compute_scale" && parse_csv_number(r.text("latency")) == 0.0) ms = 0.0;
      if (!ms) {
        rep.skips.add(why, r.where("latency"));
        return;
      }
      rep.quantize.push_back({op == "compute_scale", r.count("m"), r.count("k"), *ms});
      ++rep.mapped;
      return;
    }
    if (!rep.selected) return;
    Table t{};
    if (sname == "gemm") t = Table::gemm;
    else if (sname == "custom_allreduce") t = Table::custom_allreduce;
    else if (sname == "nccl") t = Table::nccl;
    else if (sname == "moe" && (!r.has("op_name") || r.text("op_name") == "moe")) t = Table::moe;
    else {
      // A MoE table's other ops (SGLang's wide-EP moe_context, ...) time other code paths.
      // vLLM spells the MLA ops context_mla / generation_mla, the others mla_context / mla_generation.
      const std::string_view op = r.has("op_name") ? r.text("op_name") : std::string_view();
      if (sname == "attention" && op == "context_attention") t = Table::context_attention;
      else if (sname == "attention" && op == "generation_attention") t = Table::generation_attention;
      else if (sname == "mla" && (op == "mla_context" || op == "context_mla")) t = Table::context_mla;
      else if (sname == "mla" && (op == "mla_generation" || op == "generation_mla")) t = Table::generation_mla;
      else if (sname == "linear_attention" && op == "gdn") t = Table::gdn;
      else if (sname == "dsa_kernel" && op == "glm5_dsa_attn_module") t = Table::dsa_sparse_attention;
      else if (sname == "dsa_kernel") {
        // The indexer's tables: deep_gemm's non-paged fp8_mqa_logits and the fused top-k on a
        // batch × isl × step grid, which is no grid over their kinds' (queries, keys) axes, and
        // decode runs the paged logits kernel no table measures: the roofline answers.
        rep.skips.add(fmt::format("op_name {}: the indexer's logits / top-k kinds read no table (their rows lie on "
                                  "no grid of the kinds' queries × keys axes): the roofline answers",
                                  op),
                      r.where("op_name"));
        return;
      } else {
        rep.skips.add(fmt::format("op_name {}: not an op of a {} table", op, sname), r.where("op_name"));
        return;
      }
    }
    std::string why;
    const std::optional<double> ms = r.latency(why);
    if (!ms) {
      rep.skips.add(why, r.where("latency"));
      return;
    }
    std::optional<AnyCall> call = map_row(t, r, why);
    if (!call) {
      rep.skips.add(why, r.where());
      return;
    }
    if (const auto only = opt.framework_kinds.find(fw); only != opt.framework_kinds.end() && sname != "nccl") {
      const std::string_view kind = std::visit([](const auto& c) { return std::decay_t<decltype(c)>::Kind::kind; }, *call);
      if (!only->second.contains(kind)) {
        rep.skips.add(fmt::format("kind {}: not asked for (--framework {}:{})", kind, fw, fmt::join(only->second, ",")),
                      r.where());
        return;
      }
    }
    Row row{std::move(*call), backend_of(t, fw), *ms,
            Provenance{r.text_or("framework", ""), version, r.text_or("kernel_source", "")},
            t, file, line, opt.keep_text ? std::string(raw) : std::string()};
    out.push_back(std::move(row));
    ++rep.mapped;
  });
  if (!have_header) throw DataError(fmt::format("{}:1:1: empty file: no header line", file));
  return rep;
}

inline FileReport read_table_text(std::string_view text, const std::string& file, std::vector<Row>& out,
                                  bool keep_text = false) {
  return read_table_text(text, file, out, ReadOptions{keep_text, {}, {}});
}

// One table file, plain text or gzip (told by its first bytes, whatever its name).
inline FileReport read_table_file(const std::filesystem::path& path, std::vector<Row>& out,
                                  const ReadOptions& opt = {}) {
  return read_table_text(costdsl::detail::read_maybe_gzip_file(path, "measurement table"), path.string(), out, opt);
}

// A name read_tables takes in a directory: .csv or .txt, plain or gzipped (.csv.gz,
// .txt.gz: how aiconfigurator ships most of its TensorRT-LLM and vLLM tables).
inline bool is_table_name(const std::filesystem::path& p) {
  std::filesystem::path name = p.filename();
  if (name.extension() == ".gz") name = name.stem();
  const std::string ext = name.extension().string();
  return ext == ".csv" || ext == ".txt";
}

// Every table in a directory (sorted by name, not recursive; see is_table_name), or one file.
inline ReadResult read_tables(const std::filesystem::path& path, const ReadOptions& opt) {
  ReadResult res;
  std::error_code ec;
  if (!std::filesystem::exists(path, ec))
    throw InputError(fmt::format("{}: no such file or directory", path.string()));
  std::vector<std::filesystem::path> files;
  if (std::filesystem::is_directory(path, ec)) {
    for (const auto& e : std::filesystem::directory_iterator(path))
      if (is_table_name(e.path())) files.push_back(e.path());  // a directory named x.csv errs below
    std::sort(files.begin(), files.end());
    if (files.empty())
      throw InputError(fmt::format("{}: holds no .csv or .txt table (plain or .gz)", path.string()));
  } else {
    files.push_back(path);
  }
  for (const auto& f : files) res.files.push_back(read_table_file(f, res.rows, opt));
  return res;
}

inline ReadResult read_tables(const std::filesystem::path& path, bool keep_text = false) {
  return read_tables(path, ReadOptions{keep_text, {}, {}});
}

namespace detail {

// One framework's dynamic fp8 activation quantize on one GPU, the time at (m, k): its
// compute_scale (dynamic less static) plus its scale_matrix (static) rows, linear in m
// between the measured m at each bracketing k, then linear in k; off the grid, the edge's
// time scaled by the elements (m·k) quantized. nullopt: no row of either table.
class QuantizeGrid {
 public:
  void add(bool compute_scale, std::uint64_t m, std::uint64_t k, double ms) {
    (compute_scale ? compute_ : static_)[k][m] = ms;
  }
  bool empty() const noexcept { return compute_.empty() || static_.empty(); }
  std::optional<double> at(double m, double k) const {
    const auto c = at(compute_, m, k), st = at(static_, m, k);
    if (!c || !st) return std::nullopt;
    return *c + *st;
  }

 private:
  using Grid = std::map<std::uint64_t, std::map<std::uint64_t, double>>;  // k → m → ms
  // Linear between the measured points around x; past either end, the end's time scaled by x.
  static double along(const std::map<std::uint64_t, double>& v, double x) {
    const auto hi = v.lower_bound(static_cast<std::uint64_t>(std::ceil(x)));
    if (hi == v.end()) return std::prev(v.end())->second * x / double(std::prev(v.end())->first);
    if (hi == v.begin() || double(hi->first) == x) return hi->second * x / double(hi->first);
    const auto lo = std::prev(hi);
    const double f = (x - double(lo->first)) / double(hi->first - lo->first);
    return lo->second + f * (hi->second - lo->second);
  }
  static std::optional<double> at(const Grid& g, double m, double k) {
    if (g.empty()) return std::nullopt;
    auto hi = g.lower_bound(static_cast<std::uint64_t>(std::ceil(k)));
    if (hi == g.end()) return along(std::prev(g.end())->second, m) * k / double(std::prev(g.end())->first);
    if (double(hi->first) == k) return along(hi->second, m);
    if (hi == g.begin()) return along(hi->second, m) * k / double(hi->first);
    const auto lo = std::prev(hi);
    const double f = (k - double(lo->first)) / double(hi->first - lo->first);
    return along(lo->second, m) + f * (along(hi->second, m) - along(lo->second, m));
  }
  Grid compute_, static_;
};

}  // namespace detail

// Each fp8 GEMM row once more as the GEMM runs where its input arrives quantized (gemm's
// input_dtype fp8: a norm, attention or SiLU·mul with the quantize fused, kernels/gemm.hpp):
// the measured sequence less its dynamic activation quantize, from the quantize tables of
// the framework that measured the GEMM. SGLang's compute_scale rows are max(0, per-token
// less static) and read zero on every GPU, its static quantize the slower one, so its
// per-token kernel is not measured alone: vLLM's per-token quantize on the same GPU (one
// pass reading bf16 and writing fp8 with a scale per row, as SGLang's) stands for it, and
// the row's source says so. The difference never goes under the GEMM's own hardware bound
// on `rf`'s GPU (its fp8 input, weights and output at full bandwidth, or its flops at peak),
// as aiconfigurator floors its static-fp8 GEMMs at their roofline: where the quantize is
// most of the sequence (a narrow n at many rows) a noisy difference could not otherwise be
// told from a GEMM. Rows at that floor are counted in the file's report.
inline void add_fp8_input_gemms(ReadResult& read, const Roofline& rf) {
  std::map<std::string, detail::QuantizeGrid, std::less<>> grids;  // framework → its quantize
  std::map<std::string, std::string, std::less<>> versions;
  for (const FileReport& f : read.files)
    for (const FileReport::QuantizeTime& q : f.quantize) {
      grids[f.framework].add(q.compute_scale, q.m, q.k, q.ms);
      if (!f.versions.empty()) versions[f.framework] = f.versions.rbegin()->first;
    }
  std::map<std::string, FileReport*, std::less<>> by_file;
  for (FileReport& f : read.files) by_file[f.file] = &f;
  std::vector<Row> derived_rows;
  for (const Row& row : read.rows) {
    const auto* gemm = std::get_if<Call<kernels::Gemm>>(&row.call);
    if (gemm == nullptr || gemm->config.dtype != Dtype::fp8 || gemm->config.input_dtype != Dtype::bf16) continue;
    const std::string own = row.backend == "sglang" ? "vllm" : row.backend;
    const auto g = grids.find(own);
    FileReport& rep = *by_file.at(row.file);
    const std::string where = fmt::format("{}:{}", row.file, row.line);
    if (g == grids.end() || g->second.empty()) {
      rep.skips.add(fmt::format("fp8 GEMM with fp8 input not derived: no {} compute_scale and scale_matrix tables "
                                "read beside it",
                                own),
                    where);
      continue;
    }
    const std::optional<double> q = g->second.at(double(gemm->input.m), double(gemm->config.k.value));
    if (!q) continue;  // not empty(): both tables hold rows
    Row derived = row;
    auto& call = std::get<Call<kernels::Gemm>>(derived.call);
    call.config.input_dtype = Dtype::fp8;
    const double floor_ms = kernels::Gemm::lower_bound_s(rf, call.config, call.input) * 1e3;
    derived.time_ms = std::max(row.time_ms - *q, floor_ms);
    if (derived.time_ms == floor_ms) ++rep.derived_at_bound;
    derived.provenance.source += fmt::format(" less {} {} quantize", own == "vllm" ? "vLLM" : own, versions[own]);
    derived.text.clear();  // not a source line: the held-out tables write the measured row alone
    derived.derived = true;
    derived_rows.push_back(std::move(derived));
    ++rep.derived;
  }
  read.rows.insert(read.rows.end(), std::make_move_iterator(derived_rows.begin()),
                   std::make_move_iterator(derived_rows.end()));
}

// ---------------------------------------------------------------- the costdsl side

// Calls f(Call<K>) for the row's kind.
template <class F>
decltype(auto) visit_call(const Row& r, F&& f) {
  return std::visit(std::forward<F>(f), r.call);
}

// A row's kind, config key (profile_key text) and table point, as a profile table holds them.
struct Keyed {
  std::string_view kind;
  std::vector<std::string> config;
  std::vector<double> point;
};
inline Keyed keyed(const Row& r) {
  return visit_call(r, [](const auto& c) {
    using K = typename std::remove_cvref_t<decltype(c)>::Kind;
    return Keyed{K::kind, profile_key(c.config), std::vector<double>(c.point.begin(), c.point.end())};
  });
}

// 64-bit FNV-1a: a stable hash (the held-out split must not change between runs or builds).
inline std::uint64_t fnv1a(std::string_view s) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : s) h = (h ^ c) * 0x100000001b3ull;
  return h;
}

struct ImportOptions {
  // Hold back this percentage of each table's grid lines for an accuracy check: a line is
  // every row of one config and backend at one value of the table's first axis (a GEMM's
  // m, an attention table's batch), chosen by a hash of the kind, config, backend and that
  // value; never a config's smallest or largest value. Held-back points vanish from the
  // grid, so the model meets them as real off-grid queries.
  double hold_out_percent = 0;
  // Which configs to keep (the shipped archs' shapes); empty keeps all. For kinds whose
  // configs interpolate (kernels/gemm.hpp: n, k) the caller's wanted configs are widened
  // to the measured neighbours that bracket them.
  std::map<std::string, std::set<std::vector<std::string>>, std::less<>> wanted;
};

struct KindReport {
  std::string kind;
  std::size_t rows = 0;        // rows written
  std::size_t configs = 0;     // distinct (config, backend) groups written
  std::size_t merged = 0;      // duplicate measurements merged into their median
  std::size_t held_out = 0;    // rows held back
  std::size_t not_wanted = 0;  // rows of configs no wanted config needs
};

struct ImportResult {
  std::vector<KindReport> kinds;
  std::map<std::string, std::string> tables;  // kind → profile table text (kinds with rows written)
  std::vector<const Row*> held_out;           // the rows held back, in read order
};

namespace detail {

// For a kind whose configs interpolate (K::interpolated_config), the measured configs a
// wanted one blends, as Kernel::bind_between_configs picks them: along each interpolated
// field the two measured values around the wanted one (the outermost two off the range).
template <KernelDef K>
std::set<std::vector<std::string>> neighbours(const std::vector<std::string>& want,
                                              const std::set<std::vector<std::string>>& have) {
  std::set<std::vector<std::string>> out;
  if (have.count(want)) {
    out.insert(want);
    return out;
  }
  if constexpr (requires { K::interpolated_config; }) {
    const std::vector<std::string> names = field_names<typename K::Config>();
    std::vector<std::size_t> fields;
    for (auto f : K::interpolated_config)
      fields.push_back(static_cast<std::size_t>(std::find(names.begin(), names.end(), f) - names.begin()));
    auto is_field = [&](std::size_t i) { return std::find(fields.begin(), fields.end(), i) != fields.end(); };
    std::vector<std::vector<double>> values(fields.size());
    for (const auto& h : have) {
      bool same = true;
      for (std::size_t i = 0; i < h.size() && same; ++i) same = is_field(i) || h[i] == want[i];
      if (!same) continue;
      for (std::size_t f = 0; f < fields.size(); ++f) values[f].push_back(std::stod(h[fields[f]]));
    }
    std::vector<std::array<double, 2>> edge(fields.size());
    for (std::size_t f = 0; f < fields.size(); ++f) {
      auto& v = values[f];
      std::sort(v.begin(), v.end());
      v.erase(std::unique(v.begin(), v.end()), v.end());
      const double x = std::stod(want[fields[f]]);
      if (std::binary_search(v.begin(), v.end(), x)) {
        edge[f] = {x, x};
        continue;
      }
      if (v.size() < 2) return out;
      std::size_t hi = static_cast<std::size_t>(std::lower_bound(v.begin(), v.end(), x) - v.begin());
      hi = std::clamp<std::size_t>(hi, 1, v.size() - 1);
      edge[f] = {v[hi - 1], v[hi]};
    }
    for (std::size_t c = 0; c < (std::size_t{1} << fields.size()); ++c) {
      std::vector<std::string> key = want;
      for (std::size_t f = 0; f < fields.size(); ++f)
        key[fields[f]] = std::to_string(static_cast<std::uint64_t>(edge[f][(c >> f) & 1U]));
      if (have.count(key)) out.insert(key);
    }
  }
  return out;
}

// The kind's schema and neighbour rule by name: every kind a row can map to (AnyCall's
// alternatives, so that a kind added there cannot be missing here).
template <class C>
using call_kind = std::type_identity<typename C::Kind>;

template <class F>
void with_kind(std::string_view kind, F&& f) {
  bool found = false;
  boost::mp11::mp_for_each<boost::mp11::mp_transform<call_kind, AnyCall>>([&](auto k) {
    using K = typename decltype(k)::type;
    if (!found && K::kind == kind) {
      found = true;
      f(k);
    }
  });
}

inline std::string number_text(double v) { return fmt::format("{}", v); }

}  // namespace detail

// Turns mapped rows into costdsl profile tables (one per kind), merging duplicate
// measurements and applying the hold-out and the config filter.
//
// Duplicates: rows with the same kind, config, backend and table point (aiconfigurator
// sometimes times one shape twice, or two dtypes map to one costdsl dtype) keep the
// median of their times (the mean of the two middle ones for an even count) and the
// provenance of the first.
inline ImportResult import_rows(const std::vector<Row>& rows, const ImportOptions& opt, const std::string& gpu) {
  ImportResult res;
  struct Point {
    std::vector<double> times;
    std::vector<const Row*> rows;  // the first one's provenance is written
  };
  // kind → (config, backend, point) → times
  std::map<std::string, std::map<std::tuple<std::vector<std::string>, std::string, std::vector<double>>, Point>,
           std::less<>>
      by_kind;
  for (const Row& r : rows) {
    const Keyed k = keyed(r);
    Point& p = by_kind[std::string(k.kind)][{k.config, r.backend, k.point}];
    p.rows.push_back(&r);
    p.times.push_back(r.time_ms);
  }
  for (auto& [kind, points] : by_kind) {
    KindReport rep;
    rep.kind = kind;
    // The configs to keep.
    std::optional<std::set<std::vector<std::string>>> keep;
    if (const auto w = opt.wanted.find(kind); !opt.wanted.empty()) {
      keep.emplace();
      std::map<std::string, std::set<std::vector<std::string>>> have;  // backend → configs
      for (const auto& [key, p] : points) have[std::get<1>(key)].insert(std::get<0>(key));
      if (w != opt.wanted.end())
        detail::with_kind(kind, [&](auto k) {
          using K = typename decltype(k)::type;
          for (const auto& want : w->second)
            for (const auto& [backend, configs] : have)
              for (const auto& n : detail::neighbours<K>(want, configs)) keep->insert(n);
        });
    }
    // Grid lines per (config, backend): the first-axis values, to spare the edges.
    std::map<std::pair<std::vector<std::string>, std::string>, std::pair<double, double>> range;
    for (const auto& [key, p] : points) {
      auto [it, fresh] = range.try_emplace({std::get<0>(key), std::get<1>(key)}, std::get<2>(key)[0], std::get<2>(key)[0]);
      it->second.first = std::min(it->second.first, std::get<2>(key)[0]);
      it->second.second = std::max(it->second.second, std::get<2>(key)[0]);
    }
    ProfileSchema schema;
    detail::with_kind(kind, [&](auto k) { schema = profile_schema<typename decltype(k)::type>(); });
    std::string out = fmt::format(
        "# {} on {}: NVIDIA aiconfigurator measurements (Apache-2.0) imported by `costdsl import aiconfigurator`;\n"
        "# framework, version and source (the kernel the framework ran) name each row's origin; \"=\" repeats the "
        "cell above.\n",
        kind, gpu);
    std::vector<std::string> cols;
    for (const auto& c : schema.config) cols.push_back(c.name);
    for (const auto& i : schema.inputs) cols.push_back(i);
    out += fmt::format("{},backend,time_ms,framework,version,source\n", fmt::join(cols, ","));
    std::set<std::pair<std::vector<std::string>, std::string>> groups;
    // Numeric order within text keys: sort by the config's values as numbers where they are.
    std::vector<const std::pair<const std::tuple<std::vector<std::string>, std::string, std::vector<double>>, Point>*>
        order;
    for (const auto& e : points) order.push_back(&e);
    auto num_key = [&](const std::vector<std::string>& c) {
      std::vector<std::pair<double, std::string>> k;
      for (std::size_t i = 0; i < c.size(); ++i)
        k.emplace_back(schema.config[i].type == ColumnType::integer ? std::stod(c[i]) : 0.0,
                       schema.config[i].type == ColumnType::integer ? std::string() : c[i]);
      return k;
    };
    std::stable_sort(order.begin(), order.end(), [&](const auto* a, const auto* b) {
      const auto& [ca, ba, pa] = a->first;
      const auto& [cb, bb, pb] = b->first;
      const auto ka = num_key(ca), kb = num_key(cb);
      return std::tie(ka, ba, pa) < std::tie(kb, bb, pb);
    });
    std::array<std::string, 3> provenance_above;  // the last written row's framework, version, source
    for (const auto* e : order) {
      const auto& [config, backend, point] = e->first;
      const Point& p = e->second;
      if (keep && !keep->count(config)) {
        rep.not_wanted += p.times.size();
        continue;
      }
      const auto& [lo, hi] = range.at({config, backend});
      if (opt.hold_out_percent > 0 && point[0] != lo && point[0] != hi) {
        // A column with a default (Column::default_from) at its default value is left out of
        // the id, as it was before the column existed: the same rows stay held out. One with
        // a constant default (Column::default_value) is left out whatever its value: a row at
        // another value derives from the measured one (add_fp8_input_gemms) and is held out with it.
        std::vector<std::string_view> id_config;
        for (std::size_t i = 0; i < config.size(); ++i) {
          if (!schema.config[i].default_value.empty()) continue;
          const std::size_t from = schema.default_source(i);
          if (from == i || config[i] != config[from]) id_config.push_back(config[i]);
        }
        const std::string id = fmt::format("{}|{}|{}|{}", kind, fmt::join(id_config, ","), backend,
                                           detail::number_text(point[0]));
        if (double(fnv1a(id) % 10000) < opt.hold_out_percent * 100) {
          rep.held_out += p.times.size();
          for (const Row* r : p.rows)
            if (!r->derived) res.held_out.push_back(r);
          continue;
        }
      }
      std::vector<double> t = p.times;
      std::sort(t.begin(), t.end());
      const std::size_t n = t.size();
      const double median = n % 2 == 1 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
      rep.merged += n - 1;
      std::vector<std::string> cells = config;
      for (double v : point) cells.push_back(detail::number_text(v));
      // Provenance is free text in the table: a comma in it would split the cell, and a lone
      // "=" repeats the cell above (the loader's ditto), which a run of equal cells is written as.
      const std::array<std::string, 3> provenance{p.rows[0]->provenance.framework, p.rows[0]->provenance.version,
                                                  p.rows[0]->provenance.source};
      std::array<std::string, 3> written;
      for (std::size_t i = 0; i < provenance.size(); ++i) {
        std::string text = provenance[i] == "=" ? std::string("(=)") : provenance[i];
        std::replace(text.begin(), text.end(), ',', ';');
        written[i] = rep.rows > 0 && text == provenance_above[i] ? std::string("=") : text;
        provenance_above[i] = std::move(text);
      }
      out += fmt::format("{},{},{:.7g},{}\n", fmt::join(cells, ","), backend, median, fmt::join(written, ","));
      ++rep.rows;
      groups.insert({config, backend});
    }
    rep.configs = groups.size();
    // A kind none of whose configs is wanted (the GDN kinds under --for-archs: no shipped
    // arch binds them) writes no table: a header alone would only warn on every load.
    if (rep.rows > 0) {
      // Every table is read back by the strict loader before it is handed out.
      load_profile_csv_text(out, kind + ".csv", schema);
      res.tables.emplace(kind, std::move(out));
    }
    res.kinds.push_back(std::move(rep));
  }
  return res;
}

}  // namespace costdsl::aic
