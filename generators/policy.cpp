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
// The knobs a user may turn from the command line (--gen KEY=VALUE): policy.def's.
constexpr Field kFields[] = {
#define VF_KNOB(key, member, def, lo, hi, what) {#key, &GenPolicy::member, lo, hi},
#include "generators/policy.def"
#undef VF_KNOB
};
constexpr int kMaxWeight = 100;

} // namespace

std::vector<int> GenPolicy::defaultConstructWeights() {
  std::vector<int> w(constructRegistry().size());
  for (const auto &d : constructRegistry()) w.at(static_cast<size_t>(d.kind)) = d.weight;
  return w;
}

std::string weightKnob(const ConstructDef &d) { return d.knob + "_weight"; }

std::string setPolicyField(GenPolicy &p, const std::string &key, int64_t value) {
  auto inRange = [&](int lo, int hi) {
    return value < lo || value > hi ? key + " must be in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], got " + std::to_string(value)
                                    : std::string();
  };
  for (const auto &f : kFields) {
    if (key != f.name) continue;
    if (std::string bad = inRange(f.lo, f.hi); !bad.empty()) return bad;
    p.*(f.member) = static_cast<int>(value);
    return "";
  }
  for (const auto &d : constructRegistry()) {
    if (key != weightKnob(d)) continue;
    if (std::string bad = inRange(0, kMaxWeight); !bad.empty()) return bad;
    p.weight(d.kind) = static_cast<int>(value);
    return "";
  }
  std::string known;
  for (const auto &n : policyFieldNames()) known += (known.empty() ? "" : ", ") + n;
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
  for (const auto &d : constructRegistry()) n.push_back(weightKnob(d));
  return n;
}

} // namespace vf
