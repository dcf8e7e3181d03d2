#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "generators/case_gen.h"
#include "generators/data.h"
#include "ir/text.h"
#include "ir/validate.h"

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
