#include "harness/report/step_around.h"

#include <functional>

#include "harness/report/ablation.h"
#include "harness/report/triage.h"
#include "ir/validate.h"
#include "ir/walk.h"

namespace vf {

namespace {

/// A feature's change in words.
std::string featurePhrase(const std::string &f) {
  const size_t at = f.find('@');
  const std::string base = f.substr(0, at);
  const std::string where = at == std::string::npos ? "" : " at the " + f.substr(at + 1) + " level";
  std::string what;
  if (base == "nested") what = "only the innermost level of vmap kept";
  else if (base == "chunk_size") what = "chunk_size dropped" + where;
  else if (base.starts_with("in_dims") || base.starts_with("out_dims"))
    what = base.substr(0, base.find_first_of("<>")) + (base.find('<') != std::string::npos ? " made positive" : " made 0") + where;
  else if (base.starts_with("dtype=")) what = "the " + base.substr(6) + " inputs moved to another dtype";
  else if (const size_t dot = base.find('.'), colon = base.find(':'); dot != std::string::npos && colon != std::string::npos)
    what = "every " + base.substr(0, dot) + "'s " + base.substr(dot + 1, colon - dot - 1) +
           (base.substr(colon + 1) == "batched" ? " unbatched" : " batched") + where;
  else what = "`" + f + "` changed";
  return what + " (filed feature `" + f + "`)";
}

} // namespace

std::string StepAround::phrase() const {
  switch (kind) {
  case Kind::Feature: return featurePhrase(arg);
  case Kind::SelectBothBranches: return "every cond replaced by both of its branches and a torch.where of their results";
  case Kind::UnbatchReads: return "every input that `" + arg + "` reads unbatched";
  case Kind::CanonicalSpec: return "vmap's in_dims and out_dims made 0 or positive, chunk_size dropped";
  case Kind::OneLevel: return "only the innermost level of vmap kept";
  }
  return "";
}

std::optional<Case> StepAround::apply(const Case &c) const {
  switch (kind) {
  case Kind::Feature: return withoutFeature(c, arg);
  case Kind::SelectBothBranches: return selectBothBranches(c);
  case Kind::UnbatchReads: return unbatchReadsOf(c, arg);
  case Kind::CanonicalSpec: {
    Case cand = c;
    for (const char *f : {"in_dims<0", "in_dims>0", "out_dims<0", "out_dims>0", "chunk_size"})
      if (auto next = withoutFeature(cand, f)) cand = std::move(*next);
    if (cand == c) return std::nullopt;
    return cand;
  }
  case Kind::OneLevel: return withoutFeature(c, "nested");
  }
  return std::nullopt;
}

namespace {

/// `cond` (a statement of a tensor predicate) as both of its branches, inlined, and a where per
/// result, which keeps the cond's result ids.
std::vector<Stmt> bothBranches(const Stmt &cond) {
  std::vector<Stmt> out;
  std::vector<std::vector<ValueId>> yields;
  for (size_t k = 0; k < cond.regions.size(); ++k) {
    const Block r = inlinedRegion(cond, k);
    out.insert(out.end(), r.stmts.begin(), r.stmts.end());
    yields.push_back(r.yields);
  }
  for (size_t i = 0; i < cond.results.size(); ++i) {
    Stmt w;
    w.op = "where";
    w.args = {cond.args[0], yields[0][i], yields[1][i]};
    w.results = {cond.results[i]};
    out.push_back(std::move(w));
  }
  return out;
}

} // namespace

std::optional<Case> selectBothBranches(const Case &c) {
  Case cand = c;
  bool changed = false;
  std::function<void(Block &)> rewrite = [&](Block &b) {
    for (size_t si = 0; si < b.stmts.size();) {
      for (auto &r : b.stmts[si].regions) rewrite(r); // the inner conds first
      const Stmt &s = b.stmts[si];
      // A valid cond's tensor predicate is a one-element bool: a where's condition as it is.
      const bool tensorPredicate = s.op == "cond" && s.attrs.find("pred") == nullptr;
      if (!tensorPredicate) {
        ++si;
        continue;
      }
      const std::vector<Stmt> both = bothBranches(s);
      b.stmts.erase(b.stmts.begin() + static_cast<std::ptrdiff_t>(si));
      b.stmts.insert(b.stmts.begin() + static_cast<std::ptrdiff_t>(si), both.begin(), both.end());
      si += both.size();
      changed = true;
    }
  };
  rewrite(cand.program.body);
  if (!changed || !validateCase(cand).empty()) return std::nullopt;
  return cand;
}

std::vector<StepAround> stepAroundsOf(const std::string &signatureKey) {
  const SignatureParts p = parseSignature(signatureKey);
  std::vector<StepAround> out;
  for (const auto &f : p.features)
    if (!f.empty()) out.push_back({StepAround::Kind::Feature, f});
  if (p.culprit == "hop:cond") out.push_back({StepAround::Kind::SelectBothBranches, ""});
  if (p.culprit.starts_with("hop:") || p.culprit.starts_with("op:")) out.push_back({StepAround::Kind::UnbatchReads, p.culprit});
  out.push_back({StepAround::Kind::CanonicalSpec, ""});
  out.push_back({StepAround::Kind::OneLevel, ""});
  return out;
}

nlohmann::json stepAroundJson(const std::string &signatureKey) {
  nlohmann::json j = nlohmann::json::array();
  for (const auto &s : stepAroundsOf(signatureKey)) j.push_back(s.phrase());
  return j;
}

} // namespace vf
