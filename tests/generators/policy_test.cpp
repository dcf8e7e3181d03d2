// Every --gen knob parses, lands in its field, and rejects values out of its range.
#include <gtest/gtest.h>

#include <set>

#include "generators/policy.h"
#include "ir/constructs.h"

using namespace vf;

TEST(Policy, EveryKnobSetsItsOwnField) {
  std::set<std::string> seen;
  for (const auto &name : policyFieldNames()) {
    EXPECT_TRUE(seen.insert(name).second) << name << " listed twice";
    // Its lowest value, then its highest: find them by asking for absurd values.
    GenPolicy p;
    std::string lowErr = setPolicyField(p, name, -1000000000);
    ASSERT_NE(lowErr.find("must be in ["), std::string::npos) << name << ": " << lowErr;
    int64_t lo = std::stoll(lowErr.substr(lowErr.find('[') + 1));
    int64_t hi = std::stoll(lowErr.substr(lowErr.find(", ", lowErr.find('[')) + 2));
    EXPECT_LE(lo, hi) << name;
    for (int64_t v : {lo, hi}) {
      GenPolicy q;
      EXPECT_EQ(setPolicyField(q, name, v), "") << name << "=" << v;
      EXPECT_EQ(applyPolicySetting(q, name + "=" + std::to_string(v)), "") << name << "=" << v;
    }
    EXPECT_NE(setPolicyField(p, name, lo - 1), "") << name;
    EXPECT_NE(setPolicyField(p, name, hi + 1), "") << name;
    EXPECT_NE(applyPolicySetting(p, name + "=" + std::to_string(hi + 1)), "") << name;
  }
  EXPECT_GE(seen.size(), 29u);
}

TEST(Policy, NamedKnobsReachTheirFields) {
  GenPolicy p;
  EXPECT_EQ(applyPolicySetting(p, "max_depth=2"), "");
  EXPECT_EQ(p.maxDepth, 2);
  EXPECT_EQ(applyPolicySetting(p, "max_region_outputs=1"), "");
  EXPECT_EQ(p.maxRegionOutputs, 1);
  EXPECT_EQ(applyPolicySetting(p, "max_levels=3"), "");
  EXPECT_EQ(p.maxLevels, 3);
  EXPECT_EQ(applyPolicySetting(p, "dtype_mask=2"), "");
  EXPECT_EQ(p.dtypeMask, 2);
  EXPECT_EQ(allowedDTypes(p), std::vector<DType>{DType::f64});
  EXPECT_EQ(applyPolicySetting(p, "deep_captures=1"), "");
  EXPECT_EQ(p.deepCaptures, 1);
  EXPECT_EQ(applyPolicySetting(p, "max_total_batch=1048576"), "");
  EXPECT_EQ(p.maxTotalBatch, 1 << 20);
}

TEST(Policy, RejectsMalformedSettingsAndLeavesThePolicyAlone) {
  GenPolicy p;
  const int depth = p.maxDepth;
  EXPECT_EQ(applyPolicySetting(p, "max_depth"), "needs KEY=VALUE");
  EXPECT_EQ(applyPolicySetting(p, "max_depth=two"), "the value must be an integer");
  EXPECT_EQ(applyPolicySetting(p, "max_depth=2x"), "the value must be an integer");
  EXPECT_EQ(applyPolicySetting(p, "max_depth="), "the value must be an integer");
  EXPECT_EQ(applyPolicySetting(p, "max_depth=99999999999999999999"), "the value must be an integer");
  EXPECT_NE(applyPolicySetting(p, "max_depth=9").find("max_depth must be in [0, 8], got 9"), std::string::npos);
  EXPECT_NE(applyPolicySetting(p, "max_depht=2").find("unknown generator setting 'max_depht'"), std::string::npos);
  EXPECT_EQ(p.maxDepth, depth);
}

TEST(Policy, AllowedDTypesFallBackToFloat32) {
  GenPolicy p;
  p.dtypeMask = 0;
  EXPECT_EQ(allowedDTypes(p), std::vector<DType>{DType::f32});
  p.dtypeMask = 127;
  EXPECT_EQ(allowedDTypes(p), p.dtypes);
}

// The construct registry names each construct's weight knob; the campaign turns a construct off
// with it (--gen KNOB_weight=0) when no mode can batch it.
TEST(Policy, EveryConstructsKnobIsAWeightField) {
  for (const auto &d : constructRegistry()) {
    GenPolicy p;
    EXPECT_EQ(setPolicyField(p, weightKnob(d), 0), "") << d.name;
    EXPECT_EQ(p.weight(d.kind), 0) << d.name;
    EXPECT_EQ(GenPolicy{}.weight(d.kind), d.weight) << d.name;
  }
}
