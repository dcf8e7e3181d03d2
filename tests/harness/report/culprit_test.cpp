// Culprit localisation (harness/report/culprit.h): the decision over scripted swaps, and the
// runner glue over a fake backend whose batched run is wrong until the faulty component is swapped.
#include "harness/report/culprit.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

#include "../fake_backend.h"
#include "ir/text.h"

namespace vf {
namespace {

using Swapped = std::vector<std::string>;

/// A probe scripted per single component; any other swap set gives `rest`.
auto scripted(std::map<std::string, SwapResult> one, SwapResult rest = SwapResult::FailsAlike, std::vector<Swapped> *asked = nullptr) {
  return [one, rest, asked](const Swapped &s) {
    if (asked) asked->push_back(s);
    if (s.size() == 1 && one.count(s[0])) return one.at(s[0]);
    return rest;
  };
}

TEST(Culprit, TheOneSwapThatPassesIsTheCulpritAndEveryComponentIsTried) {
  std::vector<Swapped> asked;
  Culprits k = localise({"op:where", "hop:cond", "vmap:front-end", "hop:scan"},
                        scripted({{"hop:scan", SwapResult::Passes}}, SwapResult::FailsAlike, &asked), 24);
  ASSERT_TRUE(k.localised());
  EXPECT_EQ(k.culprit(), "hop:scan");
  // Rules of the constructs first, then the front end, then ops; each alone, none together.
  EXPECT_EQ(asked, (std::vector<Swapped>{{"hop:cond"}, {"hop:scan"}, {"vmap:front-end"}, {"op:where"}}));
  EXPECT_EQ(k.runs, 4);
  EXPECT_FALSE(k.together);
  EXPECT_NE(k.sentence().find("replacing the vmap rule of scan (`hop:scan`) with a per-example loop makes this case pass"),
            std::string::npos)
      << k.sentence();
  EXPECT_NE(k.sentence().find("the other 3 components does not"), std::string::npos) << k.sentence();
}

TEST(Culprit, AnOpInsideARegionIsTheNarrowerCulpritThanTheRuleThatLoopsOverIt) {
  // cond's per-example loop runs its branches on plain tensors, so it hides a faulty op inside.
  Culprits k = localise({"hop:cond", "op:sum", "op:sin"},
                        scripted({{"hop:cond", SwapResult::Passes}, {"op:sum", SwapResult::Passes}}), 24);
  ASSERT_TRUE(k.localised());
  EXPECT_EQ(k.culprit(), "op:sum");
  EXPECT_EQ(k.subsumed, (std::vector<std::string>{"hop:cond"}));
  EXPECT_NE(k.sentence().find("the other 1 component does not (the vmap rule of cond only as its loop runs it"),
            std::string::npos)
      << k.sentence();
  // Two ops that pass are still two.
  Culprits two = localise({"hop:cond", "op:sum", "op:sin"},
                          scripted({{"hop:cond", SwapResult::Passes}, {"op:sum", SwapResult::Passes}, {"op:sin", SwapResult::Passes}}), 24);
  EXPECT_FALSE(two.localised());
  EXPECT_EQ(two.culprits, (std::vector<std::string>{"op:sum", "op:sin"}));
}

TEST(Culprit, ARuleInsideAnotherIsTheNarrowerCulprit) {
  // A cond in a scan's body: scan's per-example loop runs cond's rule on plain tensors.
  const auto both = scripted({{"hop:cond", SwapResult::Passes}, {"hop:scan", SwapResult::Passes}});
  Culprits k = localise({"hop:scan", "hop:cond"}, both, 24, {{"hop:cond", "hop:scan"}});
  EXPECT_EQ(k.culprit(), "hop:cond");
  EXPECT_EQ(k.subsumed, (std::vector<std::string>{"hop:scan"}));
  // Without the nesting known, two rules that pass are not one culprit.
  EXPECT_FALSE(localise({"hop:scan", "hop:cond"}, both, 24).localised());
  // Read from the case: a cond inside a scan, another cond after it.
  Case c = parseCase(R"(vmap size=2 in_dims=(0) out_dims=(0)
func(%0: f32[2]) {
  %1: f32[] = sum_all(%0)
  %2: f32[], %3: f32[2] = scan(%1, %0) {ncarry=1, reverse=false} [
    (%4: f32[], %5: f32[]) {
      %6: bool[] = gt_scalar(%4) {value=0.0}
      %7: f32[] = cond(%6, %5) [
        (%8: f32[]) {
          yield %8
        }
        (%9: f32[]) {
          %10: f32[] = neg(%9)
          yield %10
        }
      ]
      yield %7, %7
    }
  ]
  return %3
}
)");
  EXPECT_EQ(nestedRules(c), (std::set<std::pair<std::string, std::string>>{{"hop:cond", "hop:scan"}}));
}

TEST(Culprit, SeveralSwapsThatPassAreNotOneCulprit) {
  Culprits k = localise({"hop:cond", "vmap:front-end"},
                        scripted({{"hop:cond", SwapResult::Passes}, {"vmap:front-end", SwapResult::Passes}}), 24);
  EXPECT_FALSE(k.localised());
  EXPECT_EQ(k.culprit(), "");
  EXPECT_EQ(k.culprits, (std::vector<std::string>{"hop:cond", "vmap:front-end"}));
  EXPECT_NE(k.sentence().find("not localised to one component"), std::string::npos) << k.sentence();
}

TEST(Culprit, NoSingleSwapThenAllTogetherSaysWhetherItNeedsSeveral) {
  std::vector<Swapped> asked;
  Culprits k = localise({"hop:cond", "op:sum"}, scripted({{"op:sum", SwapResult::FailsOtherwise}}, SwapResult::FailsAlike, &asked), 24);
  EXPECT_TRUE(k.culprits.empty());
  EXPECT_EQ(k.otherwise, (std::vector<std::string>{"op:sum"}));
  EXPECT_EQ(asked.back(), (Swapped{"hop:cond", "op:sum"}));
  EXPECT_FALSE(k.together);
  EXPECT_EQ(k.runs, 3);

  Culprits both = localise({"hop:cond", "op:sum"}, [](const Swapped &s) {
    return s.size() == 2 ? SwapResult::Passes : SwapResult::FailsAlike;
  }, 24);
  EXPECT_TRUE(both.together);
  EXPECT_NE(both.sentence().find("all of them swapped at once do"), std::string::npos) << both.sentence();
}

TEST(Culprit, TheRunBudgetHolds) {
  int runs = 0;
  Culprits k = localise({"op:a", "op:b", "op:c", "op:d"}, [&](const Swapped &) {
    ++runs;
    return SwapResult::FailsAlike;
  }, 2);
  EXPECT_EQ(runs, 2);
  EXPECT_EQ(k.runs, 2);
  EXPECT_TRUE(k.capped);
  EXPECT_EQ(k.tried.size(), 2u);
}

TEST(Culprit, NothingToSwapIsSaidSo) {
  Culprits k = localise({}, scripted({}), 24);
  EXPECT_TRUE(k.tried.empty());
  EXPECT_EQ(k.runs, 0);
}

TEST(Culprit, TracingIsDescribedAsTheModesOwn) {
  EXPECT_EQ(tracingComponent("eager"), "dynamo:eager");
  EXPECT_EQ(describeComponent("dynamo:eager"), "the public API's tracing (dynamo)");
  EXPECT_EQ(describeComponent("op:where"), "the batching of torch's `where`");
  EXPECT_EQ(describeComponent("hop:while_loop"), "the vmap rule of while_loop");
}

TEST(Culprit, MetaJsonCarriesTheDecision) {
  Culprits k = localise({"hop:cond", "op:sum"}, scripted({{"hop:cond", SwapResult::Passes}}), 24);
  auto j = culpritsJson(k);
  EXPECT_EQ(j["culprit"], "hop:cond");
  EXPECT_EQ(j["tried"].size(), 2u);
  EXPECT_EQ(j["runs"], 2);
  Culprits none = localise({"op:sum"}, scripted({}), 24);
  EXPECT_TRUE(culpritsJson(none)["culprit"].is_null());
}

/// A fake system whose batched run is wrong unless the component `faulty` is swapped.
class SwappableFake : public fake::FakeBackend {
public:
  std::string faulty = "hop:cond";
  std::vector<std::string> names = {"hop:cond", "op:neg", "vmap:front-end"};
  std::vector<Swapped> swaps; ///< what each batched run had swapped
  std::vector<std::string> components(const Case &, const std::vector<at::Tensor> &) override { return names; }
  void swap(std::vector<std::string> s) override { now_ = std::move(s); }
  Outcome run(const Case &c, const std::vector<at::Tensor> &inputs, RunMode mode) override {
    if (mode == RunMode::Batched) {
      swaps.push_back(now_);
      const bool fixed = std::find(now_.begin(), now_.end(), faulty) != now_.end();
      batched = fake::ok(fixed ? fake::FakeBackend::Right : fake::FakeBackend::Wrong);
    }
    return fake::FakeBackend::run(c, inputs, mode);
  }

private:
  Swapped now_;
};

TEST(Culprit, FindCulpritsSwapsThroughTheBackendAndLeavesNothingSwapped) {
  SwappableFake b;
  Runner runner(b);
  const Case c = fake::negCase();
  CaseResult found = runner.run(c);
  ASSERT_EQ(found.verdict, Verdict::Mismatch);
  Culprits k = findCulprits(c, found, runner, 24);
  EXPECT_EQ(k.culprit(), "hop:cond");
  // After the first run (unswapped), one run per component alone.
  EXPECT_EQ(b.swaps, (std::vector<Swapped>{{}, {"hop:cond"}, {"vmap:front-end"}, {"op:neg"}}));
  // The scope restored the backend: the next run swaps nothing and fails again.
  EXPECT_EQ(runner.run(c).verdict, Verdict::Mismatch);
  EXPECT_EQ(b.swaps.back(), Swapped{});
}

TEST(Culprit, AFaultInNoSwappableComponentIsNotLocalised) {
  SwappableFake b;
  b.faulty = "somewhere else";
  Runner runner(b);
  const Case c = fake::negCase();
  Culprits k = findCulprits(c, runner.run(c), runner, 24);
  EXPECT_TRUE(k.culprits.empty());
  EXPECT_FALSE(k.together);
  EXPECT_EQ(k.tried.size(), 3u);
}

TEST(Culprit, ABackendThatCannotSwapTriesNothing) {
  fake::FakeBackend b;
  b.batched = fake::ok(fake::FakeBackend::Wrong);
  Runner runner(b);
  const Case c = fake::negCase();
  Culprits k = findCulprits(c, runner.run(c), runner, 24);
  EXPECT_TRUE(k.tried.empty());
  EXPECT_EQ(b.calls.size(), 2u); // the found run's batched and per-example runs only
}

} // namespace
} // namespace vf
