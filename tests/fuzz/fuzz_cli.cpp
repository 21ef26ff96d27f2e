// Fuzzes the command line: the input is the argument list, one argument per line, run
// through the same costdsl::cli::run as the binary. Every outcome must be exit 0 or 2 (a
// message naming the bad flag or value); exit 1 (an internal error) traps.
//
// Every command is reachable, those that read and write files included (import, validate,
// roofline eval / serve, eval --model-config, --svg, --csv, --profile-dir): the harness
// runs in a sandbox, a fresh temporary directory made at start-up:
//   pristine/  the fixtures, never touched: data/ (a copy of the shipped data directory,
//              which $COSTDSL_DATA_DIR points the CLI at in work/, so that a default
//              output such as `import`'s data/profiles lands in the copy), aic/ (a few
//              aiconfigurator tables), aicgz/ (SGLang's GEMMs, TRT-LLM's and vLLM's tables
//              gzipped), cut.csv.gz (a gzipped table cut short), calib/ (a roofline calibration tree:
//              aiconfigurator/h100_sxm/, vidur_h100/), cfg.json (a HuggingFace config),
//              params.json (a partial roofline.json)
//   work/      a copy of pristine/ and the working directory of every run
// An argument that holds '/' or ".." is skipped, so every path a run names is a name
// inside work/; after each run, whatever it wrote is undone (new entries removed, changed
// files copied back from pristine/), so every input meets the same files.
// Lines after a line "#stdin" are the standard input (`roofline serve` reads requests
// there). `plan` is bounded so that one input runs for at most about a second: its sizes
// (--gpus, --isl, --osl, --max-batch, --requests, ...) must be small decimal numbers, and
// --max-batch 4 and --requests 8 are added where not given; `simulate` likewise (--batch,
// --replicas, the worker counts, --concurrency, ...), which has no --max-batch and takes
// --requests with --rate only.
// COSTDSL_FUZZ_CLI_ECHO=1 prints each run's arguments, exit code and output (for writing seeds).
#include <unistd.h>
#include <zlib.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "app.hpp"
#include "costdsl/data_dir.hpp"
#include "fuzz_target.hpp"

namespace {

namespace fs = std::filesystem;

constexpr std::string_view gemm_table =
    "framework,version,device,op_name,kernel_source,gemm_dtype,m,n,k,latency\n"
    "SGLang,0.5.14,H100,gemm,torch,bfloat16,1,1024,4096,0.006\n"
    "SGLang,0.5.14,H100,gemm,torch,bfloat16,16,1024,4096,0.007\n"
    "SGLang,0.5.14,H100,gemm,torch,bfloat16,256,1024,4096,0.012\n"
    "SGLang,0.5.14,H100,gemm,torch,bfloat16,1,2048,4096,0.008\n"
    "SGLang,0.5.14,H100,gemm,torch,bfloat16,16,2048,4096,0.009\n"
    "SGLang,0.5.14,H100,gemm,torch,bfloat16,256,2048,4096,0.02\n"
    "SGLang,0.5.14,H100,gemm,deepgemm,fp8_block,1,1024,4096,0.02\n";
constexpr std::string_view nccl_table =
    "framework,version,device,op_name,kernel_source,nccl_dtype,num_gpus,message_size,latency\n"
    "TRTLLM,2.29.2,H100,all_reduce,NCCL,half,8,1048576,0.038\n"
    "TRTLLM,2.29.2,H100,all_reduce,NCCL,half,8,16777216,0.1998\n"
    "TRTLLM,2.29.2,H100,all_gather,NCCL,half,8,16777216,0.12\n";
constexpr std::string_view attention_table =
    "framework,version,device,op_name,kernel_source,batch_size,isl,num_heads,num_key_value_heads,head_dim,"
    "beam_width,attn_dtype,kv_cache_dtype,step,window_size,latency\n"
    "SGLang,0.5.14,H100,context_attention,fa,1,4096,32,8,128,1,bfloat16,bfloat16,0,0,0.3\n"
    "SGLang,0.5.14,H100,context_attention,fa,4,1024,32,8,128,1,fp8,fp8,0,0,0.1\n"
    "SGLang,0.5.14,H100,generation_attention,fa,64,1,32,8,128,1,bfloat16,bfloat16,2047,0,0.15\n"
    "SGLang,0.5.14,H100,generation_attention,fa,8,1,32,8,128,1,bfloat16,fp8,511,0,0.02\n";
constexpr std::string_view moe_table =
    "framework,version,device,op_name,kernel_source,moe_dtype,num_tokens,hidden_size,inter_size,topk,num_experts,"
    "moe_tp_size,moe_ep_size,distribution,latency\n"
    "SGLang,0.5.14,H100,moe,fm,bfloat16,256,4096,1536,8,128,1,8,balanced,0.3\n"
    "SGLang,0.5.14,H100,moe,fm,bfloat16,256,4096,1536,8,128,1,8,power_law_1.2,0.4\n";
constexpr std::string_view custom_allreduce_table =
    "framework,version,device,op_name,kernel_source,allreduce_dtype,num_gpus,message_size,backend,latency\n"
    "SGLang,0.5.14,H100,custom_allreduce,ca,bfloat16,8,1048576,sglang_graph,0.02\n"
    "SGLang,0.5.14,H100,custom_allreduce,ca,bfloat16,8,16777216,sglang_graph,0.5\n";
constexpr std::string_view vidur_mlp_table =
    "time_stats.emb.median,time_stats.input_layernorm.median,time_stats.attn_rope.median,"
    "time_stats.post_attention_layernorm.median,time_stats.mlp_act.median,time_stats.add.median,num_tokens,"
    "num_tensor_parallel_workers,n_embd,n_expanded_embd,n_head,n_kv_head,vocab_size\n"
    "0.02,0.012,0.01,0.012,0.011,0.01,128,8,8192,28672,64,8,32000\n"
    "0.25,0.12,0.1,0.12,0.36,0.06,2048,2,8192,28672,64,8,32000\n";
constexpr std::string_view vidur_p2p_table =
    ",time_stats.send_recv.median,rank,num_workers,size,collective,devices_per_node,max_devices_per_node\n"
    "0,0.017,0,2,2048,send_recv,1,8\n"
    "1,0.35,0,2,16777216,send_recv,1,8\n";
constexpr std::string_view params_json = R"({"gemm": {}})";
// validate --deployments: an aggregated bf16 and fp8 row, a disaggregated one, a model
// whose config is model_configs/org--name_config.json.
constexpr std::string_view deployments_table =
    "id,backend,model_path,system,mode,isl,osl,gemm_quant_mode,moe_quant_mode,batch_size,tp_size,"
    "prefill_batch_size,prefill_num_workers,prefill_tp_size,decode_batch_size,decode_num_workers,decode_tp_size,"
    "silicon_ttft_ms,silicon_tpot_ms\n"
    "a,trtllm,meta-llama/Llama-3.1-8B-Instruct,h100_sxm,agg,512,8,,,4,1,,,,,,,90,5\n"
    "b,vllm,meta-llama/Llama-3.1-8B-Instruct,h100_sxm,agg,512,8,fp8,,4,2,,,,,,,60,4\n"
    "c,sglang,meta-llama/Llama-3.1-8B-Instruct,h100_sxm,disagg,512,8,,,,,1,1,1,4,1,1,70,5\n";

void write_file(const fs::path& path, std::string_view text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

// `text` gzipped, as aiconfigurator ships its TensorRT-LLM and vLLM tables.
std::string gzip(std::string_view text) {
  z_stream z{};
  if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK) std::abort();
  std::string out(deflateBound(&z, static_cast<uLong>(text.size())), '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  z.avail_in = static_cast<uInt>(text.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  if (deflate(&z, Z_FINISH) != Z_STREAM_END) std::abort();
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

// A table as another framework measured it: SGLang's rows under `framework`.
std::string as_framework(std::string_view table, std::string_view framework) {
  std::string out(table);
  for (std::size_t at = 0; (at = out.find("\nSGLang,", at)) != std::string::npos; at += framework.size() + 2)
    out.replace(at + 1, 6, framework);
  return out;
}

class Sandbox {
 public:
  Sandbox() {
    const fs::path data = costdsl::default_data_dir();  // the shipped data, before $COSTDSL_DATA_DIR is set
    std::string dir = (fs::temp_directory_path() / "costdsl-fuzz-cli-XXXXXX").string();
    if (mkdtemp(dir.data()) == nullptr) {
      std::cerr << "fuzz_cli: cannot make a temporary directory\n";
      std::abort();
    }
    root_ = dir;
    pristine_ = root_ / "pristine";
    work_ = root_ / "work";
    fs::create_directories(pristine_);
    fs::copy(data, pristine_ / "data", fs::copy_options::recursive);
    write_file(pristine_ / "aic" / "my_gemms.txt", gemm_table);
    write_file(pristine_ / "aic" / "nccl.csv", nccl_table);
    write_file(pristine_ / "aic" / "attention.csv", attention_table);
    write_file(pristine_ / "aic" / "README.csv", "name,value\nnot,a table\n");
    // aicgz/: TensorRT-LLM's and vLLM's tables gzipped beside SGLang's, for --framework;
    // cut.csv.gz: one cut short, an error naming it.
    write_file(pristine_ / "aicgz" / "gemm_sglang.csv", gemm_table);
    write_file(pristine_ / "aicgz" / "gemm_trtllm.csv.gz", gzip(as_framework(gemm_table, "TRTLLM")));
    write_file(pristine_ / "aicgz" / "attention_vllm.csv.gz", gzip(as_framework(attention_table, "VLLM")));
    write_file(pristine_ / "aicgz" / "nccl.csv.gz", gzip(nccl_table));
    const std::string packed = gzip(gemm_table);
    write_file(pristine_ / "cut.csv.gz", std::string_view(packed).substr(0, packed.size() / 2));
    const fs::path h100 = pristine_ / "calib" / "aiconfigurator" / "h100_sxm";
    write_file(h100 / "gemm.csv", gemm_table);
    write_file(h100 / "attention.csv", attention_table);
    write_file(h100 / "moe.csv", moe_table);
    write_file(h100 / "nccl.csv", nccl_table);
    write_file(h100 / "custom_allreduce.csv", custom_allreduce_table);
    write_file(pristine_ / "calib" / "vidur_h100" / "llama2_70b_mlp.csv", vidur_mlp_table);
    write_file(pristine_ / "calib" / "vidur_h100" / "dgx_send_recv.csv", vidur_p2p_table);
    fs::copy_file(data / "models" / "llama3_8b.json", pristine_ / "cfg.json");
    write_file(pristine_ / "params.json", params_json);
    write_file(pristine_ / "silicon.csv", deployments_table);
    fs::create_directories(pristine_ / "model_configs");
    fs::copy_file(data / "models" / "llama3_8b.json",
                  pristine_ / "model_configs" / "meta-llama--Llama-3.1-8B-Instruct_config.json");
    fs::copy(pristine_, work_, fs::copy_options::recursive);
    for (const auto& e : fs::recursive_directory_iterator(work_)) manifest_[e.path()] = stamp(e.path());
    setenv("COSTDSL_DATA_DIR", (work_ / "data").c_str(), 1);
    fs::current_path(work_);
  }
  ~Sandbox() {
    std::error_code ec;
    fs::current_path(root_.parent_path(), ec);
    fs::remove_all(root_, ec);
  }
  Sandbox(const Sandbox&) = delete;
  Sandbox& operator=(const Sandbox&) = delete;

  // Undoes what a run wrote in work/: removes what pristine/ lacks, copies back what changed.
  void restore() {
    fs::current_path(work_);
    std::vector<fs::path> extra, changed;
    std::size_t seen = 0;
    for (auto it = fs::recursive_directory_iterator(work_); it != fs::recursive_directory_iterator(); ++it) {
      const auto m = manifest_.find(it->path());
      if (m == manifest_.end()) {
        extra.push_back(it->path());
        it.disable_recursion_pending();
        continue;
      }
      ++seen;
      if (stamp(it->path()) != m->second) changed.push_back(it->path());
    }
    for (const fs::path& p : extra) fs::remove_all(p);
    if (seen != manifest_.size())  // an entry was removed or replaced: lay work/ anew
      for (const auto& [p, s] : manifest_) changed.push_back(p);
    for (const fs::path& p : changed) {
      const fs::path from = pristine_ / p.lexically_relative(work_);
      if (fs::is_directory(from)) {
        if (!fs::is_directory(p)) {
          fs::remove_all(p);
          fs::create_directories(p);
        }
      } else {
        if (fs::is_directory(p)) fs::remove_all(p);
        fs::copy_file(from, p, fs::copy_options::overwrite_existing);
      }
    }
    for (const fs::path& p : changed) manifest_[p] = stamp(p);
  }

 private:
  using Stamp = std::pair<std::uintmax_t, fs::file_time_type>;  // size (-1: a directory), mtime
  static Stamp stamp(const fs::path& p) {
    std::error_code ec;
    const auto status = fs::symlink_status(p, ec);
    if (ec || status.type() == fs::file_type::not_found) return {0, {}};
    const std::uintmax_t size = fs::is_directory(status) ? std::uintmax_t(-1) : fs::file_size(p, ec);
    return {size, fs::last_write_time(p, ec)};
  }
  fs::path root_, pristine_, work_;
  std::map<fs::path, Stamp> manifest_;
};

Sandbox& sandbox() {
  static Sandbox box;
  return box;
}

// True if s is a decimal number of at most 9 digits that is at least lo and at most hi.
bool small_number(std::string_view s, std::uint64_t lo, std::uint64_t hi) {
  if (s.empty() || s.size() > 9) return false;
  std::uint64_t v = 0;
  for (const char c : s) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + static_cast<std::uint64_t>(c - '0');
  }
  return v >= lo && v <= hi;
}

// `plan` and `simulate` within about a second under the sanitizers: false if a size
// flag's values are not small decimal numbers; adds plan's --max-batch and --requests
// where not given.
bool bound_plan(std::vector<std::string>& args) {
  bool plan = false, simulate = false;
  for (const auto& a : args) {
    plan = plan || a == "plan";
    simulate = simulate || a == "simulate";
  }
  if (!plan && !simulate) return true;
  struct Bound {
    std::string_view flag;
    std::uint64_t lo, hi;
    bool list;  // a vector option: values up to the next flag, each comma-separated
  };
  // Measured under ASan + UBSan (-O1): a disaggregated MoE search on 8 GPUs with --max-batch
  // 16 took 17 s, on 4 GPUs with --max-batch 4 about 1 s on a busy 2-core box.
  static constexpr Bound bounds[] = {
      {"--gpus", 0, 4, false},         {"--isl", 0, 4096, false},    {"--osl", 0, 16, false},
      {"--prefix", 0, 4096, false},    {"--max-batch", 0, 4, false}, {"--requests", 0, 8, false},
      {"--concurrency", 0, 8, false},  {"--top", 0, 64, false},      {"--token-budgets", 256, 8192, true},
      {"--hp", 0, 16, true},           {"--batch", 0, 8, false},     {"--replicas", 0, 4, false},
      {"--prefill-workers", 0, 4, false}, {"--decode-workers", 0, 4, false}, {"--prefill-batch", 0, 8, false},
      {"--token-budget", 0, 8192, false}, {"--rounds", 0, 20, false}};
  bool has_max_batch = false, has_requests = false;
  const auto values_ok = [](std::string_view v, const Bound& b) {
    while (true) {
      const auto comma = v.find(',');
      if (!small_number(v.substr(0, comma), b.lo, b.hi)) return false;
      if (comma == std::string_view::npos) return true;
      v.remove_prefix(comma + 1);
    }
  };
  for (std::size_t i = 1; i < args.size(); ++i) {
    const std::string_view a = args[i];
    const auto eq = a.find('=');
    const std::string_view flag = a.substr(0, eq);
    has_max_batch = has_max_batch || flag == "--max-batch";
    has_requests = has_requests || flag == "--requests";
    for (const Bound& b : bounds) {
      if (flag != b.flag) continue;
      if (eq != std::string_view::npos) {
        if (!values_ok(a.substr(eq + 1), b)) return false;
      } else if (i + 1 < args.size() && !values_ok(args[i + 1], b)) {
        return false;
      }
      if (b.list)
        for (std::size_t j = i + 2; j < args.size() && !args[j].starts_with('-'); ++j)
          if (!values_ok(args[j], b)) return false;
    }
  }
  if (simulate) return true;
  if (!has_max_batch) args.insert(args.end(), {"--max-batch", "4"});
  if (!has_requests) args.insert(args.end(), {"--requests", "8"});
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static constexpr std::size_t max_args = 24, max_arg_length = 64;
  Sandbox& box = sandbox();
  std::vector<std::string> args{"costdsl"};
  std::string_view rest(reinterpret_cast<const char*>(data), size);
  std::string stdin_text;
  while (!rest.empty()) {
    const auto nl = rest.find('\n');
    const std::string_view arg = rest.substr(0, nl);
    rest = nl == std::string_view::npos ? std::string_view{} : rest.substr(nl + 1);
    if (arg == "#stdin") {
      stdin_text = rest;
      break;
    }
    if (arg.size() > max_arg_length || args.size() > max_args) return 0;
    // Names inside the sandbox only: no absolute path, no way up.
    if (arg.find('/') != std::string_view::npos || arg.find("..") != std::string_view::npos ||
        arg.find('\0') != std::string_view::npos)
      return 0;
    args.emplace_back(arg);
  }
  if (!bound_plan(args)) return 0;
  std::vector<const char*> argv;
  for (const auto& a : args) argv.push_back(a.c_str());
  std::ostringstream sink;
  std::istringstream in(stdin_text);
  auto* out = std::cout.rdbuf(sink.rdbuf());
  auto* err = std::cerr.rdbuf(sink.rdbuf());
  auto* cin = std::cin.rdbuf(in.rdbuf());
  const int code = costdsl::cli::run(static_cast<int>(argv.size()), argv.data());
  std::cin.rdbuf(cin);
  std::cin.clear();
  std::cout.rdbuf(out);
  std::cerr.rdbuf(err);
  std::cout.clear();
  std::cerr.clear();
  box.restore();
  static const bool echo = std::getenv("COSTDSL_FUZZ_CLI_ECHO") != nullptr;
  if (echo) {
    for (const auto& a : args) std::cerr << a << ' ';
    std::cerr << "\n  exit " << code << ": " << sink.str().substr(0, 2000) << '\n';
  }
  if (code != 0 && code != 2) {
    std::cerr << "fuzz_cli: exit " << code << ": " << sink.str() << '\n';
    __builtin_trap();
  }
  return 0;
}
