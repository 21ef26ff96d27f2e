#pragma once
// The archs the CLI ships (costdsl archs, --arch): every config.json in
// data/models/, named by its file name and built as the family it declares
// (tools/family.hpp). A model of a known family ships by adding its config.json
// there; an optional "costdsl_summary" key says in one line what it is, for
// `costdsl archs`.
#include <string>
#include <string_view>
#include <vector>

namespace costdsl::cli {

struct ShippedArch {
  std::string name;     // the file name without .json, as --arch takes it
  std::string family;   // a Family name
  std::string config;   // file under data/models/
  std::string summary;  // its costdsl_summary, else its first architectures entry
};

// Every shipped arch, by family (in registration order), then by name with
// digit runs compared as numbers (llama3_8b before llama3_70b).
std::vector<ShippedArch> shipped_archs();
// The shipped arch `name` (exact); an InputError listing the known ones.
ShippedArch find_arch(std::string_view name);

}  // namespace costdsl::cli
