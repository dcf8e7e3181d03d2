#include "generators/policy.h"

#include <climits>
#include <stdexcept>
#include <utility>

namespace vf {

namespace {
struct Field {
  const char *name;
  int GenPolicy::*member;
  int lo, hi;
};
// The knobs a user may turn from the command line (--gen KEY=VALUE).
constexpr Field kFields[] = {
    {"max_inputs", &GenPolicy::maxInputs, 1, 16},
    {"max_rank", &GenPolicy::maxRank, 0, 6},
    {"max_dim_size", &GenPolicy::maxDimSize, 1, 64},
    {"max_stmts", &GenPolicy::maxStmts, 1, 64},
    {"max_depth", &GenPolicy::maxDepth, 0, 8},
    {"cond_percent", &GenPolicy::condPercent, 0, 100},
    {"cond_weight", &GenPolicy::condWeight, 0, 100},
    {"switch_weight", &GenPolicy::switchWeight, 0, 100},
    {"while_weight", &GenPolicy::whileWeight, 0, 100},
    {"scan_weight", &GenPolicy::scanWeight, 0, 100},
    {"scan_inplace_percent", &GenPolicy::scanInplacePercent, 0, 100},
    {"python_bool_percent", &GenPolicy::pythonBoolPercent, 0, 100},
    {"domain_op_weight", &GenPolicy::domainOpWeight, 0, 100},
    {"guarded_cond_percent", &GenPolicy::guardedCondPercent, 0, 100},
    {"max_operands", &GenPolicy::maxOperands, 0, 8},
    {"max_region_outputs", &GenPolicy::maxRegionOutputs, 1, 8},
    {"max_outputs", &GenPolicy::maxOutputs, 1, 8},
    {"max_levels", &GenPolicy::maxLevels, 1, 3},
    {"nested_percent", &GenPolicy::nestedPercent, 0, 100},
    {"none_in_dim_percent", &GenPolicy::noneInDimPercent, 0, 100},
    {"chunk_percent", &GenPolicy::chunkPercent, 0, 100},
    {"unbatched_input_percent", &GenPolicy::unbatchedInputPercent, 0, 100},
    {"unbatched_selector_percent", &GenPolicy::unbatchedSelectorPercent, 0, 100},
    {"dtype_mask", &GenPolicy::dtypeMask, 1, 127},
    {"zero_size_percent", &GenPolicy::zeroSizePercent, 0, 100},
    {"large_batch_percent", &GenPolicy::largeBatchPercent, 0, 100},
    {"max_total_batch", &GenPolicy::maxTotalBatch, 1, 1 << 20},
    {"equal_sizes_percent", &GenPolicy::equalSizesPercent, 0, 100},
    {"randomness_percent", &GenPolicy::randomnessPercent, 0, 100},
    {"layout_percent", &GenPolicy::layoutPercent, 0, 100},
    {"max_redraws", &GenPolicy::maxRedraws, 0, 100},
    {"respecs_per_pass", &GenPolicy::respecsPerPass, 0, 64},
    {"gpu_tier", &GenPolicy::gpuTier, 0, 1},
    {"deep_captures", &GenPolicy::deepCaptures, 0, 1},
    {"keep_unsupported", &GenPolicy::keepUnsupported, 0, 1},
};
} // namespace

std::string setPolicyField(GenPolicy &p, const std::string &key, int64_t value) {
  for (const auto &f : kFields) {
    if (key != f.name) continue;
    if (value < f.lo || value > f.hi)
      return key + " must be in [" + std::to_string(f.lo) + ", " + std::to_string(f.hi) + "], got " + std::to_string(value);
    p.*(f.member) = static_cast<int>(value);
    return "";
  }
  std::string known;
  for (const auto &f : kFields) known += (known.empty() ? "" : ", ") + std::string(f.name);
  return "unknown generator setting '" + key + "' (known: " + known + ")";
}

std::string applyPolicySetting(GenPolicy &p, const std::string &keyValue) {
  auto eq = keyValue.find('=');
  if (eq == std::string::npos) return "needs KEY=VALUE";
  const std::string value = keyValue.substr(eq + 1);
  int64_t v = 0;
  try {
    size_t used = 0;
    v = std::stoll(value, &used);
    if (used != value.size()) return "the value must be an integer";
  } catch (const std::exception &) {
    return "the value must be an integer";
  }
  return setPolicyField(p, keyValue.substr(0, eq), v);
}

std::vector<DType> allowedDTypes(const GenPolicy &p) {
  std::vector<DType> out;
  for (DType d : p.dtypes)
    if (p.dtypeMask & (1 << static_cast<int>(d))) out.push_back(d);
  if (out.empty()) out.push_back(DType::f32);
  return out;
}

std::vector<std::string> policyFieldNames() {
  std::vector<std::string> n;
  for (const auto &f : kFields) n.emplace_back(f.name);
  return n;
}

} // namespace vf
