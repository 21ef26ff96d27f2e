#pragma once
// Everything in one include: the core (core.hpp), kernels bound to timing sources,
// the model forms, lowering and the manifest, loading (GPU catalog, roofline
// parameters, profile tables, config.json) and reporting (describe, manifest JSON).
// The layer folders (kernels/, ops/, worklets/, archs/) are included by name.
#include "costdsl/core.hpp"
#include "costdsl/data_dir.hpp"
#include "costdsl/describe.hpp"
#include "costdsl/dtype.hpp"
#include "costdsl/flat_tree.hpp"
#include "costdsl/form.hpp"
#include "costdsl/gpu_catalog.hpp"
#include "costdsl/gpu_spec.hpp"
#include "costdsl/hf_config.hpp"
#include "costdsl/kernel.hpp"
#include "costdsl/kernel_def.hpp"
#include "costdsl/load_hf_config.hpp"
#include "costdsl/load_roofline_params.hpp"
#include "costdsl/load_timing.hpp"
#include "costdsl/lower.hpp"
#include "costdsl/manifest.hpp"
#include "costdsl/manifest_json.hpp"
#include "costdsl/profile_csv.hpp"
#include "costdsl/profile_db.hpp"
#include "costdsl/quantization.hpp"
#include "costdsl/reflect.hpp"
#include "costdsl/roofline.hpp"
#include "costdsl/timing.hpp"
#include "costdsl/token_axis.hpp"
