// The constructs' typing rules (ir/constructs.cpp), directly and through the validator: what
// each construct's regions receive and what it gives back.
#include <gtest/gtest.h>

#include <set>

#include "ir/constructs.h"
#include "ir/text.h"
#include "ir/validate.h"

using namespace vf;

namespace {

Type t(DType d, Shape s) { return Type{d, std::move(s)}; }

Stmt stmt(const std::string &op, size_t regions, Attrs attrs = {}) {
  Stmt s;
  s.op = op;
  s.regions.resize(regions);
  s.attrs = std::move(attrs);
  return s;
}

std::string check(const std::string &body, const std::string &params = "%0: f32[3], %1: f32[2,3]") {
  return validateProgram(parseProgram("func(" + params + ") {\n" + body + "}\n"));
}

} // namespace

TEST(Constructs, AreTheFourControlFlowOpsAndThreeTransforms) {
  EXPECT_EQ(constructNames(), (std::vector<std::string>{"cond", "switch", "while_loop", "scan", "vmap", "grad", "jvp"}));
  for (const auto &n : constructNames()) EXPECT_TRUE(isConstruct(n));
  EXPECT_FALSE(isConstruct("add"));
  EXPECT_FALSE(isConstruct("Cond"));
}

TEST(Constructs, TheRegistryHasOneEntryPerKindFoundByName) {
  std::set<ConstructKind> kinds;
  for (const auto &d : constructRegistry()) {
    EXPECT_TRUE(kinds.insert(d.kind).second) << d.name << ": a kind registered twice";
    EXPECT_EQ(findConstruct(d.name), &d);
    EXPECT_EQ(&constructDef(d.kind), &d);
    EXPECT_FALSE(d.knob.empty()) << d.name;
    // A higher-order op is called directly in direct mode, through its helper; a transform inside
    // the program (vmap, grad) is the same call in every mode, with no helper.
    const bool hop = !d.transform;
    EXPECT_EQ(d.directImport.empty(), !hop) << d.name;
    EXPECT_EQ(d.directHelper.find("def _" + d.name + "(") != std::string::npos, hop) << d.name << "'s direct helper";
    // A selector picks one region: its coverage feature is named, and only then.
    EXPECT_EQ(d.selector.empty(), d.selectorFeature.empty()) << d.name;
  }
  EXPECT_EQ(findConstruct("add"), nullptr);
  EXPECT_EQ(constructDef(ConstructKind::WhileLoop).knob, "while");
  EXPECT_EQ(constructDef(ConstructKind::Cond).selector, "predicate");
  EXPECT_EQ(constructDef(ConstructKind::Switch).selector, "index");
  EXPECT_EQ(constructDef(ConstructKind::Cond).regionName(1), "else-branch");
  EXPECT_EQ(constructDef(ConstructKind::Switch).regionName(2), "branch 2");
  Stmt s = stmt("scan", 1);
  EXPECT_EQ(constructOf(s).kind, ConstructKind::Scan);
  EXPECT_THROW(constructOf(stmt("add", 0)), std::logic_error);
}

TEST(Constructs, CondBranchesGetTheOperandsAndGiveTheirYields) {
  Stmt s = stmt("cond", 2);
  std::vector<Type> args = {t(DType::b8, {}), t(DType::f32, {3}), t(DType::i64, {2})};
  std::vector<std::vector<Type>> params;
  ASSERT_EQ(constructParams(s, args, params), "");
  EXPECT_EQ(params, (std::vector<std::vector<Type>>(2, {t(DType::f32, {3}), t(DType::i64, {2})})));
  std::vector<Type> results;
  ASSERT_EQ(constructResults(s, args, {{t(DType::f32, {3})}, {t(DType::f32, {3})}}, results), "");
  EXPECT_EQ(results, std::vector<Type>{t(DType::f32, {3})});
  EXPECT_NE(constructResults(s, args, {{t(DType::f32, {3})}, {t(DType::f64, {3})}}, results).find("branch 1 yields (f64[3]) but branch 0 yields (f32[3])"),
            std::string::npos);
  EXPECT_NE(constructResults(s, args, {{}, {}}, results).find("must yield at least one value"), std::string::npos);
  // A one-element predicate of any rank is a predicate; two elements are not.
  EXPECT_EQ(constructParams(s, {t(DType::b8, {1, 1})}, params), "");
  EXPECT_NE(constructParams(s, {t(DType::b8, {2})}, params).find("one-element bool"), std::string::npos);
}

TEST(Constructs, APythonBoolCondTakesEveryArgumentAsAnOperand) {
  Attrs a;
  a.set("pred", true);
  Stmt s = stmt("cond", 2, a);
  std::vector<std::vector<Type>> params;
  ASSERT_EQ(constructParams(s, {t(DType::f32, {3})}, params), "");
  EXPECT_EQ(params, (std::vector<std::vector<Type>>(2, {t(DType::f32, {3})})));
  Attrs bad;
  bad.set("pred", int64_t{1});
  EXPECT_NE(constructParams(stmt("cond", 2, bad), {}, params).find("only {pred=true|false}"), std::string::npos);
}

TEST(Constructs, SwitchBranchesAllGetTheOperands) {
  Stmt s = stmt("switch", 3);
  std::vector<std::vector<Type>> params;
  ASSERT_EQ(constructParams(s, {t(DType::i32, {}), t(DType::f32, {2})}, params), "");
  EXPECT_EQ(params, (std::vector<std::vector<Type>>(3, {t(DType::f32, {2})})));
  EXPECT_NE(constructParams(s, {t(DType::b8, {})}, params).find("switch index must be a one-element integer"), std::string::npos);
  EXPECT_NE(constructParams(s, {}, params).find("switch needs an index"), std::string::npos);
  std::vector<Type> results;
  EXPECT_NE(constructResults(s, {}, {{t(DType::f32, {2})}, {t(DType::f32, {2})}, {t(DType::f32, {3})}}, results).find("branch 2 yields"),
            std::string::npos);
}

TEST(Constructs, WhileLoopCarriesKeepTheirTypes) {
  Stmt s = stmt("while_loop", 2);
  std::vector<Type> carries = {t(DType::i64, {}), t(DType::f32, {2, 2})};
  std::vector<std::vector<Type>> params;
  ASSERT_EQ(constructParams(s, carries, params), "");
  EXPECT_EQ(params, (std::vector<std::vector<Type>>(2, carries)));
  std::vector<Type> results;
  ASSERT_EQ(constructResults(s, carries, {{t(DType::b8, {})}, carries}, results), "");
  EXPECT_EQ(results, carries);
  EXPECT_NE(constructResults(s, carries, {{t(DType::b8, {2})}, carries}, results).find("cond_fn must yield one one-element bool"),
            std::string::npos);
  EXPECT_NE(constructResults(s, carries, {{t(DType::b8, {})}, {carries[0]}}, results).find("body_fn yields (i64[])"),
            std::string::npos);
}

TEST(Constructs, ScanSlicesTheXsAndStacksTheYs) {
  Attrs a;
  a.set("ncarry", int64_t{1});
  a.set("reverse", false);
  Stmt s = stmt("scan", 1, a);
  std::vector<Type> args = {t(DType::f32, {3}), t(DType::f32, {5, 3}), t(DType::i64, {5})};
  std::vector<std::vector<Type>> params;
  ASSERT_EQ(constructParams(s, args, params), "");
  EXPECT_EQ(params, (std::vector<std::vector<Type>>{{t(DType::f32, {3}), t(DType::f32, {3}), t(DType::i64, {})}}));
  std::vector<Type> results;
  ASSERT_EQ(constructResults(s, args, {{t(DType::f32, {3}), t(DType::f64, {2}), t(DType::b8, {})}}, results), "");
  EXPECT_EQ(results, (std::vector<Type>{t(DType::f32, {3}), t(DType::f64, {5, 2}), t(DType::b8, {5})}));
  EXPECT_NE(constructParams(s, {t(DType::f32, {3}), t(DType::f32, {5}), t(DType::f32, {4})}, params).find("different lengths: 5 and 4"),
            std::string::npos);
  Attrs zero;
  zero.set("ncarry", int64_t{0});
  zero.set("reverse", false);
  EXPECT_NE(constructParams(stmt("scan", 1, zero), args, params).find("ncarry=K (>= 1)"), std::string::npos);
}

TEST(Constructs, UnknownConstructsAreNamed) {
  std::vector<std::vector<Type>> params;
  std::vector<Type> results;
  EXPECT_EQ(constructParams(stmt("loop", 1), {}, params), "unknown construct 'loop'");
  EXPECT_EQ(constructResults(stmt("loop", 1), {}, {{}}, results), "unknown construct 'loop'");
}

TEST(Constructs, TheValidatorAcceptsEachWellTypedConstruct) {
  EXPECT_EQ(check("  %2: f32[] = sum_all(%0)\n  %3: bool[] = gt_scalar(%2) {value=0.0}\n"
                  "  %4: f32[3] = cond(%3, %0) [\n    (%5: f32[3]) { yield %5 }\n    (%6: f32[3]) { %7: f32[3] = neg(%6)\n yield %7 }\n  ]\n"
                  "  return %4\n"),
            "");
  EXPECT_EQ(check("  %2: f32[3] = cond(%0) {pred=true} [\n    (%3: f32[3]) { yield %3 }\n    (%4: f32[3]) { yield %0 }\n  ]\n  return %2\n"),
            "");
  EXPECT_EQ(check("  %2: f32[3], %3: f32[2,3] = scan(%0, %1) {ncarry=1, reverse=true} [\n"
                  "    (%4: f32[3], %5: f32[3]) { %6: f32[3] = add(%4, %5)\n yield %6, %5 }\n  ]\n  return %2, %3\n"),
            "");
}
