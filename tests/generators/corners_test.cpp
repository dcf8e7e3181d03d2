// The corners the generators must reach: dtypes, size-0/size-1/0-d shapes, layouts, three
// vmap levels, chunking, randomness, the GPU tier, and predicates kept off their boundaries.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cmath>
#include <functional>
#include <set>

#include "generators/case_gen.h"
#include "generators/data.h"
#include "harness/campaign/coverage.h"
#include "harness/campaign/draw.h"
#include "ir/op_registry.h"
#include "ir/text.h"
#include "ir/validate.h"
#include "oracles/compare.h"
#include "oracles/reference.h"

using namespace vf;

namespace {

/// Every corner turned up: layouts, nesting, chunking, randomness and size-0 dims often.
GenPolicy wide() {
  GenPolicy p;
  p.nestedPercent = 80;
  p.layoutPercent = 80;
  p.chunkPercent = 60;
  p.randomnessPercent = 60;
  p.zeroSizePercent = 30;
  p.largeBatchPercent = 20;
  p.equalSizesPercent = 50;
  p.predInputPercent = 60;
  p.indexInputPercent = 60;
  return p;
}

} // namespace

RC_GTEST_PROP(GeneratorCorners, CasesWithEveryCornerAlwaysValidate, ()) {
  Case c = *genCase(wide());
  RC_ASSERT(validateCase(c) == "");
}

RC_GTEST_PROP(GeneratorCorners, NewSpecFieldsRoundTripThroughText, ()) {
  Case c = *genCase(wide());
  std::string text = printCase(c);
  Case back = parseCase(text);
  RC_ASSERT(back == c);
  RC_ASSERT(printCase(back) == text);
}

TEST(GeneratorCorners, GenerationIsByteIdenticalForASeed) {
  for (uint64_t seed : {3ULL, 44ULL, 987654321ULL}) {
    std::string a = printCase(generateCase(seed, 70, wide())), b = printCase(generateCase(seed, 70, wide()));
    EXPECT_EQ(a, b);
    // The campaign's draw (with data re-drawn for margins) too.
    EXPECT_EQ(printCase(drawCase(seed, 70, GenPolicy{}).c), printCase(drawCase(seed, 70, GenPolicy{}).c));
  }
}

TEST(GeneratorCorners, ReachesEveryDTypeLayoutAndLevelCount) {
  std::set<std::string> seen;
  for (uint64_t s = 0; s < 300; ++s) {
    Case c = generateCase(s, 60, wide());
    for (const auto &p : c.program.body.params) seen.insert(std::string(dtypeName(p.type.dtype)));
    for (const auto &l : c.spec.layouts) seen.insert(layoutKindName(l.kind));
    seen.insert("levels" + std::to_string(c.spec.levels.size()));
    for (const auto &l : c.spec.levels) seen.insert(l.randomness);
  }
  for (const char *want : {"f32", "f64", "f16", "bf16", "i64", "i32", "bool", "transposed", "expanded", "strided", "offset",
                           "levels1", "levels2", "levels3", "error", "different", "same"})
    EXPECT_TRUE(seen.count(want)) << want;
}

TEST(GeneratorCorners, EveryProgramHasANonEmptyFloatingInput) {
  for (uint64_t s = 0; s < 300; ++s) {
    Case c = generateCase(s, 60, wide());
    bool ok = false;
    for (const auto &p : c.program.body.params) ok |= isFloating(p.type.dtype) && p.type.numel() > 0;
    EXPECT_TRUE(ok) << printCase(c);
  }
}

TEST(GeneratorCorners, ExpandedInputsRepeatAlongTheirDimAndExamplesStillDiffer) {
  int checked = 0;
  for (uint64_t s = 0; s < 400 && checked < 20; ++s) {
    Case c = generateCase(s, 60, wide());
    auto in = makeInputs(c);
    for (size_t i = 0; i < in.size(); ++i) {
      Layout l = c.spec.layoutOf(i);
      if (l.kind != Layout::Kind::Expanded) continue;
      EXPECT_LT(physicalDimLevels(c, i)[l.dim], 0) << "an expanded dim is a batch dim";
      auto first = in[i].narrow(l.dim, 0, 1).expand(in[i].sizes());
      EXPECT_TRUE(at::equal(in[i], first)) << printCase(c);
      ++checked;
    }
  }
  EXPECT_GE(checked, 10);
}

TEST(GeneratorCorners, ChunkSizesBothDivideAndDoNot) {
  int divides = 0, not_ = 0;
  for (uint64_t s = 0; s < 400; ++s)
    for (const auto &l : generateCase(s, 50, wide()).spec.levels)
      if (l.chunk_size) (l.size % *l.chunk_size == 0 ? divides : not_)++;
  EXPECT_GT(divides, 20);
  EXPECT_GT(not_, 20);
}

TEST(GeneratorCorners, BatchSizesIncludeOneTwoPrimesAndLarge) {
  std::set<int64_t> sizes;
  for (uint64_t s = 0; s < 400; ++s) {
    Case c = generateCase(s, 50, wide());
    int64_t total = 1;
    for (const auto &l : c.spec.levels) {
      sizes.insert(l.size);
      total *= l.size;
    }
    EXPECT_LE(total, wide().maxTotalBatch);
  }
  for (int64_t want : {1, 2, 3, 5, 7, 11, 13}) EXPECT_TRUE(sizes.count(want)) << want;
  EXPECT_TRUE(sizes.count(31) || sizes.count(64) || sizes.count(97));
}

TEST(GeneratorCorners, LoopBoundsAreInRangeForNanAndInfinities) {
  // trip_limit and branch_index bound every while_loop (the counter starts in [-3, 5] and
  // counts up to a limit in [0, 4]), also on the garbage a batched cond's other branch sees.
  auto x = at::tensor({NAN, INFINITY, -INFINITY, 1e30, -1e30, 0.3}, at::kFloat);
  for (auto dt : {at::kFloat, at::kHalf, at::kBFloat16, at::kDouble}) {
    EvalCtx ctx;
    auto lim = findOp("trip_limit")->eval({x.to(dt)}, {}, ctx);
    auto idx = findOp("branch_index")->eval({x.to(dt)}, {}, ctx);
    EXPECT_TRUE(((lim >= 0) & (lim <= 4)).all().item<bool>()) << lim;
    EXPECT_TRUE(((idx >= -3) & (idx <= 5)).all().item<bool>()) << idx;
  }
}

TEST(GeneratorCorners, HalfPrecisionMarginsAreWider) {
  // A float16 comparison 1e-3 from its boundary is within a few units of rounding: ambiguous.
  // The same distance in float32 is not.
  auto a16 = at::tensor({1.001}, at::kDouble).to(at::kHalf), b16 = at::tensor({1.0}, at::kDouble).to(at::kHalf);
  EvalCtx c16, c32;
  findOp("gt")->eval({a16, b16}, {}, c16);
  findOp("gt")->eval({a16.to(at::kFloat), b16.to(at::kFloat)}, {}, c32);
  EXPECT_LT(c16.minMargin, kAmbiguityMargin);
  EXPECT_GT(c32.minMargin, kAmbiguityMargin);
}

TEST(GeneratorCorners, RedrawnCasesKeepTheirMargin) {
  int redrawn = 0;
  for (uint64_t s = 0; s < 150; ++s) {
    DrawnCase d = drawCase(s, 50, GenPolicy{});
    Case first = generateCase(s, 50, GenPolicy{});
    // Only the data changes: same program, same spec but for the seed.
    EXPECT_EQ(printProgram(d.c.program), printProgram(first.program));
    redrawn += d.redraws > 0;
    if (d.nearBoundary) continue;
    RefResult r = runReference(d.c, makeInputs(d.c));
    if (r.error.empty()) {
      EXPECT_GE(r.minMargin, kAmbiguityMargin) << printCase(d.c);
    }
  }
  EXPECT_GT(redrawn, 0); // some predicates do land near 0 at first
}

TEST(GeneratorCorners, GpuTierPassesTwoToThe31And32ButIsOffByDefault) {
  GenPolicy p;
  p.gpuTier = 1;
  int64_t past31 = 0, past32 = 0;
  auto big = [](const Case &c) {
    int64_t batch = 1, most = 0;
    for (const auto &l : c.spec.levels) batch *= l.size;
    std::function<void(const Block &)> walk = [&](const Block &b) {
      for (const auto &s : b.stmts) {
        for (const auto &r : s.results) most = std::max(most, r.type.numel());
        for (const auto &r : s.regions) walk(r);
      }
    };
    walk(c.program.body);
    return most * batch;
  };
  for (uint64_t s = 0; s < 80; ++s) {
    Case c = generateCase(s, 50, p); // generated and validated only: tens of GiB to run
    ASSERT_EQ(validateCase(c), "") << printCase(c);
    int64_t n = big(c);
    past31 += n > (int64_t{1} << 31);
    past32 += n > (int64_t{1} << 32);
  }
  EXPECT_GT(past31, 10);
  EXPECT_GT(past32, 5);
  for (uint64_t s = 0; s < 200; ++s) EXPECT_LT(big(generateCase(s, 90, GenPolicy{})), int64_t{1} << 24);
}

// The margin check's last reference run is what a fresh one gives on the final data: the
// campaign reuses it instead of computing it again.
TEST(GeneratorCorners, TheMarginChecksLastEvaluationIsTheFinalDatas) {
  for (uint64_t s = 0; s < 40; ++s) {
    DrawnCase d = drawCase(s, 50, GenPolicy{});
    ASSERT_TRUE(d.evaluated.has_value());
    RefResult fresh = runReference(d.c, makeInputs(d.c));
    EXPECT_EQ(d.evaluated->reference.error, fresh.error);
    EXPECT_EQ(d.evaluated->reference.minMargin, fresh.minMargin);
    ASSERT_EQ(d.evaluated->reference.outputs.size(), fresh.outputs.size());
    for (size_t k = 0; k < fresh.outputs.size(); ++k) {
      const at::Tensor &a = d.evaluated->reference.outputs[k], &b = fresh.outputs[k];
      ASSERT_EQ(a.sizes(), b.sizes());
      // Equal, NaN where NaN: bit for bit the same computation.
      EXPECT_TRUE(a.is_floating_point() ? at::logical_or(a == b, at::logical_and(a.isnan(), b.isnan())).all().item<bool>()
                                        : at::equal(a, b))
          << printCase(d.c);
    }
  }
}

// A predicate that no data moves off its boundary (x > x is always exactly at it) costs one
// re-draw, not the policy's whole budget; one that data does move is still re-drawn.
TEST(GeneratorCorners, AStructuralBoundaryStopsTheRedrawsAfterOne) {
  Case c = parseCase(R"(vmap size=3 in_dims=(0) out_dims=(0)
data_seed 1
func(%0: f32[]) {
  %1: bool[] = gt(%0, %0)
  %2: f32[] = cond(%1, %0) [
    (%3: f32[]) {
      yield %3
    }
    (%4: f32[]) {
      yield %4
    }
  ]
  return %2
}
)");
  DrawnCase d = keepMargin(c, 8);
  EXPECT_EQ(d.redraws, 1);
  EXPECT_TRUE(d.nearBoundary);
  int movedOff = 0;
  for (uint64_t s = 0; s < 150; ++s) {
    DrawnCase g = drawCase(s, 50, GenPolicy{});
    movedOff += g.redraws > 1 && !g.nearBoundary;
  }
  EXPECT_GT(movedOff, 0); // data that does move a boundary is re-drawn more than once
}

// The spec generator's unbatched-selector share (GenPolicy::unbatchedSelectorPercent): with it,
// many more cases have a predicate that no level batches, and every spec still batches some
// input at every level.
TEST(GeneratorCorners, TheUnbatchedSelectorShareRaisesUnbatchedPredicates) {
  auto count = [](int percent) {
    GenPolicy p;
    p.unbatchedSelectorPercent = percent;
    int unbatched = 0;
    for (uint64_t seed = 0; seed < 400; ++seed) {
      Case c = generateCase(seed, 60, p);
      for (const auto &l : c.spec.levels) {
        bool any = false;
        for (const auto &d : l.in_dims) any |= d.has_value();
        EXPECT_TRUE(any) << printCase(c);
      }
      for (const auto &f : featuresOf(c)) unbatched += f == "pred=unbatched" || f == "pattern=pred-outer/operands-inner";
    }
    return unbatched;
  };
  const int off = count(0), on = count(50);
  EXPECT_GT(on, off + off / 2) << off << " vs " << on;
}


TEST(GeneratorCorners, ConditionsTakeAOneElementPredicateInputMappedPastItsDim) {
  // The predicate input's shapes are [], [1] and [1, 1]; conds take it as it is, and some batch
  // specs map it at a dim other than its first, which a computed 0-d predicate never is.
  GenPolicy p;
  p.predInputPercent = 100;
  Coverage cov;
  std::set<std::string> shapes;
  for (uint64_t s = 0; s < 400; ++s) {
    Case c = generateCase(s * 13 + 5, 20 + static_cast<int>(s % 70), p);
    ASSERT_EQ(validateCase(c), "") << printCase(c);
    cov.add(c);
    const Def &last = c.program.body.params.back();
    if (last.type.dtype == DType::b8 && last.type.numel() == 1) shapes.insert(typeToString(last.type));
  }
  EXPECT_EQ(shapes.size(), 3u);
  for (const char *row : {"pred-input", "pred-input-at-dim>0"}) {
    const auto it = cov.counts().find(row);
    EXPECT_TRUE(it != cov.counts().end() && it->second > 0) << row;
  }
}
