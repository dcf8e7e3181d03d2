#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <map>
#include <set>

#include "generators/case_gen.h"
#include "generators/data.h"
#include "ir/text.h"
#include "ir/buffers.h"
#include "ir/constructs.h"
#include "ir/op_registry.h"
#include "ir/validate.h"
#include "ir/walk.h"
#include "oracles/compare.h"
#include "oracles/reference.h"

using namespace vf;

RC_GTEST_PROP(Generators, GeneratedCasesAlwaysValidate, ()) {
  Case c = *genCase(GenPolicy{});
  RC_ASSERT(validateCase(c) == "");
}

TEST(Generators, GenerationIsDeterministicForASeed) {
  for (uint64_t seed : {1ULL, 2ULL, 77ULL, 123456789ULL}) {
    std::string a = printCase(generateCase(seed, 60, GenPolicy{}));
    std::string b = printCase(generateCase(seed, 60, GenPolicy{}));
    EXPECT_EQ(a, b);
  }
  EXPECT_NE(printCase(generateCase(1, 60, GenPolicy{})), printCase(generateCase(2, 60, GenPolicy{})));
}

TEST(Generators, ProgramsUseCondAndTheBatchSpecVaries) {
  int conds = 0, noneDims = 0, negDims = 0, nested = 0;
  for (uint64_t s = 0; s < 200; ++s) {
    Case c = generateCase(s, 50, GenPolicy{});
    for (const auto &st : c.program.body.stmts) conds += st.op == "cond";
    for (const auto &l : c.spec.levels)
      for (const auto &d : l.in_dims) {
        noneDims += !d;
        negDims += d && *d < 0;
      }
    nested += c.spec.levels.size() > 1;
  }
  EXPECT_GT(conds, 40);
  EXPECT_GT(noneDims, 20);
  EXPECT_GT(negDims, 20);
  EXPECT_GT(nested, 10);
}

TEST(Generators, EveryExampleGetsItsOwnData) {
  for (uint64_t s = 0; s < 50; ++s) {
    Case c = generateCase(s, 50, GenPolicy{});
    auto inputs = makeInputs(c);
    const auto &l = c.spec.levels[0];
    for (size_t i = 0; i < inputs.size(); ++i) {
      if (!l.in_dims[i] || l.size < 2) continue;
      auto a = inputs[i].select(*l.in_dims[i], 0), b = inputs[i].select(*l.in_dims[i], 1);
      if (a.numel() < 2 || a.scalar_type() == at::kBool) continue;
      EXPECT_FALSE(at::equal(a, b)) << "seed " << s << " input " << i << " has two identical examples";
    }
  }
}

TEST(Generators, InputDataIsFixedByTheSeed) {
  Case c = generateCase(5, 50, GenPolicy{});
  auto a = makeInputs(c), b = makeInputs(c);
  for (size_t i = 0; i < a.size(); ++i) EXPECT_TRUE(at::equal(a[i], b[i]));
}

namespace {

/// Captures that GenPolicy::deepCaptures = 0 rules out: a value of a region further out than
/// the parent, or a parameter of the parent region (the program's own values are fine).
struct ScopeWalk {
  std::vector<std::set<ValueId>> params, values; ///< per open scope
  int deep = 0;

  void use(ValueId v) {
    const size_t own = values.size() - 1;
    for (size_t k = values.size(); k-- > 0;) {
      if (!values[k].count(v)) continue;
      const bool ok = k == 0 || k == own || (k + 1 == own && !params[k].count(v));
      deep += !ok;
      return;
    }
  }
  void block(const Block &b) {
    params.emplace_back();
    values.emplace_back();
    for (const auto &p : b.params) params.back().insert(p.id), values.back().insert(p.id);
    for (const auto &s : b.stmts) {
      for (auto a : s.args) use(a);
      for (const auto &r : s.regions) block(r);
      for (const auto &r : s.results) values.back().insert(r.id);
    }
    for (auto y : b.yields) use(y);
    params.pop_back();
    values.pop_back();
  }
};

int deepCaptures(const Case &c) {
  ScopeWalk w;
  w.block(c.program.body);
  return w.deep;
}

} // namespace

TEST(Generators, ByDefaultRegionsCaptureOnlyTheProgramsAndTheirParentsComputedValues) {
  // Deeper captures make torch 2.14's dynamo reject valid programs (reports/invalid-dynamo-
  // duplicate-argument); with deep_captures=1 they come back, which shows the walk sees them.
  GenPolicy deep;
  deep.deepCaptures = 1;
  int byDefault = 0, withDeep = 0, cases = 0;
  for (uint64_t s = 0; s < 1500; ++s) {
    Case c = generateCase(s * 2654435761ULL + 7, 10 + static_cast<int>(s % 91), GenPolicy{});
    ASSERT_EQ(validateCase(c), "") << printCase(c);
    byDefault += deepCaptures(c);
    Case d = generateCase(s * 2654435761ULL + 7, 10 + static_cast<int>(s % 91), deep);
    ASSERT_EQ(validateCase(d), "") << printCase(d);
    withDeep += deepCaptures(d);
    ++cases;
  }
  EXPECT_EQ(byDefault, 0);
  EXPECT_GT(withDeep, 50) << "over " << cases << " cases";
}

namespace {
/// How many restricted-domain ops (sqrt, log, acos, div) `c` has at the top level and inside regions.
std::pair<int, int> domainOps(const Case &c) {
  int top = 0, inside = 0;
  forEachStmt(c.program.body, [&](const Stmt &s, int depth) {
    const OpDef *op = s.regions.empty() ? findOp(s.op) : nullptr;
    if (op && op->restrictedDomain) ++(depth == 0 ? top : inside);
  });
  return {top, inside};
}
} // namespace

TEST(Generators, RestrictedDomainOpsOnlyInsideRegionsAndOffWithTheirKnob) {
  int inside = 0;
  for (uint64_t s = 0; s < 300; ++s) {
    Case c = generateCase(s, 60, GenPolicy{});
    auto [top, in] = domainOps(c);
    EXPECT_EQ(top, 0) << printCase(c);
    inside += in;
  }
  EXPECT_GT(inside, 20); // the default weight offers them
  GenPolicy off;
  ASSERT_EQ(applyPolicySetting(off, "domain_op_weight=0"), "");
  for (uint64_t s = 0; s < 300; ++s) {
    Case c = generateCase(s, 60, off);
    auto [top, in] = domainOps(c);
    EXPECT_EQ(top + in, 0) << printCase(c);
  }
}

RC_GTEST_PROP(Generators, CasesFullOfDomainOpsValidateAndTheReferenceRunsThem, ()) {
  GenPolicy p;
  p.domainOpWeight = 100;
  Case c = *genCase(p);
  RC_ASSERT(validateCase(c) == "");
  RC_ASSERT(domainOps(c).first == 0);
  RefResult r = runReference(c, makeInputs(c));
  RC_ASSERT(r.error == "");
}

namespace {

/// Guarded conds of `b` and below: a cond whose predicate is `gt_scalar(x) {value=0}` and whose
/// then-branch first takes sqrt or log of the parameter that x is passed as.
int guardedConds(const Block &b) {
  int n = 0;
  std::map<ValueId, ValueId> predOf; // a gt_scalar's result -> its argument
  for (const auto &s : b.stmts) {
    if (s.op == "gt_scalar" && s.attrs.getFloat("value") == 0.0) predOf[s.results[0].id] = s.args[0];
    if (s.op == "cond" && !s.args.empty() && predOf.count(s.args[0])) {
      ValueId x = predOf[s.args[0]];
      const Block &then = s.regions[0];
      for (size_t i = 1; i < s.args.size(); ++i)
        if (s.args[i] == x && !then.stmts.empty() && (then.stmts[0].op == "sqrt" || then.stmts[0].op == "log") &&
            then.stmts[0].args[0] == then.params[i - 1].id)
          ++n;
    }
    for (const auto &r : s.regions) n += guardedConds(r);
  }
  return n;
}

} // namespace

TEST(Generators, GuardedCondsKeepEachTakenPathInsideTheDomain) {
  // The then-branch's sqrt/log is of the value the predicate keeps > 0: the reference (each
  // example alone, only its taken branch) never leaves the domain there.
  int guarded = 0;
  for (uint64_t s = 0; s < 300; ++s) {
    Case c = generateCase(s, 60, GenPolicy{});
    guarded += guardedConds(c.program.body);
  }
  EXPECT_GT(guarded, 10);
  GenPolicy off;
  ASSERT_EQ(applyPolicySetting(off, "guarded_cond_percent=0"), "");
  ASSERT_EQ(applyPolicySetting(off, "domain_op_weight=0"), "");
  int none = 0;
  for (uint64_t s = 0; s < 300; ++s) none += guardedConds(generateCase(s, 60, off).program.body);
  EXPECT_EQ(none, 0);
  // A program that is only a guarded cond: positive examples take sqrt, negative ones the else
  // branch; the reference records no domain left.
  Case c = parseCase(R"(vmap size=4 in_dims=(0) out_dims=(0)
data_seed 1
func(%0: f32[]) {
  %1: bool[] = gt_scalar(%0) {value=0.0}
  %2: f32[] = cond(%1, %0) [
    (%3: f32[]) { %4: f32[] = sqrt(%3)
 yield %4 }
    (%5: f32[]) { yield %5 }
  ]
  return %2
}
)");
  ASSERT_EQ(guardedConds(c.program.body), 1);
  RefResult r = runReference(c, {at::tensor({0.5f, -0.5f, 2.0f, -3.0f})});
  EXPECT_EQ(r.error, "");
  EXPECT_EQ(r.domain.reason(kAmbiguityMargin), "");
}

namespace {

/// How many scans of `b` (and below) have in-place buffers, and how many buffers in all.
std::pair<int, int> bufferedScans(const Block &b) {
  std::pair<int, int> n{0, 0};
  forEachStmt(b, [&](const Stmt &s, int) {
    if (!isConstruct(s.op) || constructOf(s).kind != ConstructKind::Scan) return;
    size_t m = scanParts(s).bufs;
    n.first += m > 0;
    n.second += static_cast<int>(m);
  });
  return n;
}

GenPolicy scansWithBuffers() {
  GenPolicy p;
  p.condPercent = 60;
  p.weight(ConstructKind::Scan) = 20;
  p.scanInplacePercent = 100;
  return p;
}

} // namespace

RC_GTEST_PROP(Generators, ScansWithBuffersValidateRoundTripAndHoldVmapsInPlaceRule, ()) {
  Case c = *genCase(scansWithBuffers());
  RC_ASSERT(validateCase(c) == "");
  RC_ASSERT(parseCase(printCase(c)) == c);
  // Each buffer is batched wherever its update may be, whatever the batch spec (ir/buffers.h).
  RC_ASSERT(bufferBatchingHazard(c) == "");
  // The levels the program opens itself are not covered by that: no buffer inside a vmap's function.
  forEachStmt(c.program.body, [](const Stmt &s, int) {
    if (s.op != "vmap") return;
    forEachStmt(s.regions[0], [](const Stmt &inner, int) { RC_ASSERT(inner.attrs.find("nbuf") == nullptr); });
  });
  RefResult r = runReference(c, makeInputs(c));
  RC_ASSERT(r.error == "");
}

TEST(Generators, ScanBuffersComeWithTheirKnobAndGoWithout) {
  int scans = 0, buffers = 0, two = 0;
  for (uint64_t s = 0; s < 200; ++s) {
    auto [sc, bu] = bufferedScans(generateCase(s, 60, scansWithBuffers()).program.body);
    scans += sc;
    buffers += bu;
    two += bu > sc;
  }
  EXPECT_GT(scans, 50);
  EXPECT_GT(buffers, scans);
  EXPECT_GT(two, 0) << "now and then a scan with two buffers";
  int byDefault = 0;
  for (uint64_t s = 0; s < 300; ++s) byDefault += bufferedScans(generateCase(s, 60, GenPolicy{}).program.body).first;
  EXPECT_GT(byDefault, 0) << "the default policy makes some";
  GenPolicy off;
  ASSERT_EQ(applyPolicySetting(off, "scan_inplace_percent=0"), "");
  off.weight(ConstructKind::Scan) = 20;
  for (uint64_t s = 0; s < 200; ++s) EXPECT_EQ(bufferedScans(generateCase(s, 60, off).program.body).first, 0);
}
