#include "ir/constructs.h"

namespace vf {

namespace {

std::string typesText(const std::vector<Type> &ts) {
  std::string s = "(";
  for (size_t i = 0; i < ts.size(); ++i) s += (i ? ", " : "") + typeToString(ts[i]);
  return s + ")";
}

bool oneElement(const Type &t) { return t.numel() == 1; }

/// Every region must yield what region 0 yields.
std::string sameYields(const std::vector<std::vector<Type>> &yields, const char *what) {
  for (size_t r = 1; r < yields.size(); ++r)
    if (yields[r] != yields[0])
      return std::string(what) + " " + std::to_string(r) + " yields " + typesText(yields[r]) + " but " + what + " 0 yields " +
             typesText(yields[0]);
  return "";
}

int64_t ncarry(const Stmt &s) {
  const Attr *a = s.attrs.find("ncarry");
  return a && std::holds_alternative<int64_t>(*a) ? std::get<int64_t>(*a) : -1;
}

} // namespace

const std::vector<std::string> &constructNames() {
  static const std::vector<std::string> n = {"cond", "switch", "while_loop", "scan"};
  return n;
}

bool isConstruct(const std::string &op) {
  for (const auto &n : constructNames())
    if (n == op) return true;
  return false;
}

std::string constructParams(const Stmt &s, const std::vector<Type> &args, std::vector<std::vector<Type>> &params) {
  params.clear();
  auto noAttrs = [&]() -> std::string { return s.attrs.items.empty() ? "" : s.op + " takes no attributes"; };
  if (s.op == "cond" && s.attrs.find("pred")) {
    // A Python bool predicate: no predicate tensor, every argument is an operand.
    if (!std::holds_alternative<bool>(*s.attrs.find("pred")) || s.attrs.items.size() != 1)
      return "cond takes only {pred=true|false} as attributes";
    if (s.regions.size() != 2) return "cond needs exactly 2 regions (then, else)";
    params.assign(2, args);
    return "";
  }
  if (s.op == "cond" || s.op == "switch") {
    if (auto e = noAttrs(); !e.empty()) return e;
    bool isCond = s.op == "cond";
    if (args.empty()) return s.op + " needs " + (isCond ? "a predicate" : "an index");
    if (isCond && (args[0].dtype != DType::b8 || !oneElement(args[0])))
      return "cond predicate must be a one-element bool tensor, got " + typeToString(args[0]);
    if (!isCond && (!isIntegral(args[0].dtype) || !oneElement(args[0])))
      return "switch index must be a one-element integer tensor, got " + typeToString(args[0]);
    if (isCond && s.regions.size() != 2) return "cond needs exactly 2 regions (then, else)";
    if (!isCond && s.regions.empty()) return "switch needs at least one branch";
    params.assign(s.regions.size(), std::vector<Type>(args.begin() + 1, args.end()));
    return "";
  }
  if (s.op == "while_loop") {
    if (auto e = noAttrs(); !e.empty()) return e;
    if (args.empty()) return "while_loop needs at least one carried value";
    if (s.regions.size() != 2) return "while_loop needs exactly 2 regions (cond_fn, body_fn)";
    params.assign(2, args);
    return "";
  }
  if (s.op == "scan") {
    int64_t k = ncarry(s);
    const Attr *rev = s.attrs.find("reverse");
    if (k < 1 || !rev || !std::holds_alternative<bool>(*rev) || s.attrs.items.size() != 2)
      return "scan needs attributes {ncarry=K (>= 1), reverse=true|false}";
    if (static_cast<int64_t>(args.size()) <= k) return "scan needs " + std::to_string(k) + " carries and at least one xs";
    if (s.regions.size() != 1) return "scan needs exactly 1 region (combine_fn)";
    std::vector<Type> p(args.begin(), args.begin() + k);
    int64_t len = -1;
    for (size_t i = k; i < args.size(); ++i) {
      if (args[i].rank() == 0) return "scan xs must have a dim to scan over, got " + typeToString(args[i]);
      if (len >= 0 && args[i].shape[0] != len)
        return "scan xs have different lengths: " + std::to_string(len) + " and " + std::to_string(args[i].shape[0]);
      len = args[i].shape[0];
      Type slice = args[i];
      slice.shape.erase(slice.shape.begin());
      p.push_back(slice);
    }
    params.push_back(p);
    return "";
  }
  return "unknown construct '" + s.op + "'";
}

std::string constructResults(const Stmt &s, const std::vector<Type> &args, const std::vector<std::vector<Type>> &yields,
                             std::vector<Type> &results) {
  results.clear();
  if (s.op == "cond" || s.op == "switch") {
    if (auto e = sameYields(yields, s.op == "cond" ? "branch" : "branch"); !e.empty()) return e;
    results = yields[0];
    if (results.empty()) return s.op + " branches must yield at least one value";
    return "";
  }
  if (s.op == "while_loop") {
    if (yields[0].size() != 1 || yields[0][0].dtype != DType::b8 || !oneElement(yields[0][0]))
      return "while_loop cond_fn must yield one one-element bool, got " + typesText(yields[0]);
    if (yields[1] != args)
      return "while_loop body_fn yields " + typesText(yields[1]) + " but the carries are " + typesText(args);
    results = args;
    return "";
  }
  if (s.op == "scan") {
    size_t k = static_cast<size_t>(ncarry(s));
    std::vector<Type> carries(args.begin(), args.begin() + k);
    if (yields[0].size() < k || std::vector<Type>(yields[0].begin(), yields[0].begin() + k) != carries)
      return "scan combine_fn must yield the carries " + typesText(carries) + " first, got " + typesText(yields[0]);
    results = carries;
    for (size_t i = k; i < yields[0].size(); ++i) {
      Type y = yields[0][i];
      y.shape.insert(y.shape.begin(), args[k].shape[0]);
      results.push_back(y);
    }
    return "";
  }
  return "unknown construct '" + s.op + "'";
}

} // namespace vf
