// Look-behind's loop (harness/campaign/look_behind.h) with a scripted system and filing: what a
// re-run that passes, meets the same bug, meets another filed bug or fails anew leads to, the
// bounds, and the memory of which step-around got past a bug.
#include <gtest/gtest.h>

#include <functional>

#include "harness/campaign/look_behind.h"
#include "ir/text.h"

using namespace vf;

namespace {

const std::string kCondBug = "rules|cpu|fails|culprit:hop:cond|cond.predicate:batched@inner,";
const std::string kFrontBug = "rules|cpu|fails|culprit:vmap:front-end|out_dims<0,";

Case condCase() {
  return parseCase(R"(vmap size=2 in_dims=(0,0) out_dims=(-1)
data_seed 5
func(%0: f32[], %1: f32[4]) {
  %2: bool[] = gt_scalar(%0) {value=0.0}
  %3: f32[4] = cond(%2, %1) [
    (%4: f32[4]) {
      %5: f32[4] = neg(%4)
      yield %5
    }
    (%6: f32[4]) {
      %7: f32[4] = log(%6)
      yield %7
    }
  ]
  return %3
}
)");
}

/// A scripted campaign: `verdict` decides each re-run's verdict, `filed` what filing says of it
/// (the filed signature it is a hit of, "" for new).
struct Script {
  Script(std::function<Verdict(const Case &)> v, std::function<std::string(const Case &, const Behind &)> f)
      : verdict(std::move(v)), filed(std::move(f)) {}
  std::function<Verdict(const Case &)> verdict;
  std::function<std::string(const Case &, const Behind &)> filed;
  int runs = 0, filings = 0;
  std::vector<std::string> hows;

  LookBehindHooks hooks() {
    return {.timeLeft = [] { return true; },
            .run = [this](const Case &c) {
              ++runs;
              CaseResult r;
              r.verdict = verdict(c);
              return r;
            },
            .file = [this](const Case &c, const CaseResult &, const Behind &b, const std::string &how) {
              ++filings;
              hows.push_back(how);
              FilingReport rep;
              rep.known = filed(c, b);
              rep.filedNew = rep.known.empty();
              return rep;
            }};
  }
};

bool hasCond(const Case &c) { return printCase(c).find("cond(") != std::string::npos; }
bool predicateBatched(const Case &c) { return c.spec.levels[0].in_dims[0].has_value(); }

} // namespace

TEST(LookBehind, ARerunThatPassesChecksThePastTheFiledBug) {
  Script s([](const Case &) { return Verdict::Pass; }, {});
  LookBehindStats st;
  StepAroundMemory memory;
  EXPECT_TRUE(lookBehind(condCase(), kCondBug, 3, s.hooks(), st, memory));
  EXPECT_EQ(s.runs, 1);
  EXPECT_EQ(st.runsMet, 1);
  EXPECT_EQ(st.checkedPast, 1);
  EXPECT_EQ(st.passed, 1);
  EXPECT_TRUE(st.endedOn.empty());
}

TEST(LookBehind, ANewFailureBehindIsFiledAndNeverUnderTheBugSteppedAround) {
  // Every re-run mismatches; filing calls it new only when it is not the cond bug again.
  std::vector<std::string> stepped;
  Script s([](const Case &) { return Verdict::Mismatch; },
           [&](const Case &c, const Behind &b) {
             stepped = b.steppedAround;
             return predicateBatched(c) && hasCond(c) ? kCondBug : std::string();
           });
  LookBehindStats st;
  StepAroundMemory memory;
  EXPECT_TRUE(lookBehind(condCase(), kCondBug, 3, s.hooks(), st, memory));
  EXPECT_EQ(stepped, std::vector<std::string>{kCondBug}); // filing was told what it stepped around
  EXPECT_EQ(st.newFailures, 1);
  EXPECT_EQ(st.filedNew, 1);
  ASSERT_EQ(s.hows.size(), 1u);
  EXPECT_NE(s.hows[0].find("cond.predicate:batched@inner"), std::string::npos) << s.hows[0];
}

TEST(LookBehind, TheSameBugMetAgainTriesTheNextStepAroundUpToTheBound) {
  Script s([](const Case &) { return Verdict::BatchedError; },
           [](const Case &, const Behind &) { return kCondBug; });
  LookBehindStats st;
  StepAroundMemory memory;
  EXPECT_FALSE(lookBehind(condCase(), kCondBug, 3, s.hooks(), st, memory, /*triesPerBug=*/2));
  EXPECT_EQ(s.runs, 2);
  EXPECT_EQ(st.cameBack, 2);
  EXPECT_EQ(st.endedOn[kCondBug], 1);
  EXPECT_EQ(st.checkedPast, 0);
}

TEST(LookBehind, AnotherFiledBugBehindIsSteppedAroundInTurnWithinTheBound) {
  // Past the cond bug lies a filed bug of the front end (the case's negative out_dim), and past
  // that a pass; with room for one bug only, the case ends on the front end's bug.
  int depth = 0;
  Script s([&](const Case &) { return depth++ == 0 ? Verdict::Mismatch : Verdict::Pass; },
           [](const Case &, const Behind &) { return kFrontBug; });
  LookBehindStats st;
  StepAroundMemory memory;
  EXPECT_TRUE(lookBehind(condCase(), kCondBug, 2, s.hooks(), st, memory));
  EXPECT_EQ(st.otherFiled, 1);
  EXPECT_EQ(st.passed, 1);
  depth = 0;
  LookBehindStats one;
  EXPECT_FALSE(lookBehind(condCase(), kCondBug, 1, s.hooks(), one, memory));
  EXPECT_EQ(one.endedOn[kFrontBug], 1);
  // Off: nothing is run, the case ended on the bug.
  LookBehindStats off;
  const int before = s.runs;
  EXPECT_FALSE(lookBehind(condCase(), kCondBug, 0, s.hooks(), off, memory));
  EXPECT_EQ(s.runs, before);
  EXPECT_EQ(off.runsMet, 1);
  EXPECT_EQ(off.endedOn[kCondBug], 1);
}

TEST(LookBehind, TheStepAroundThatGotPastABugIsTriedFirstNextTime) {
  // Only the rewrite without cond gets past the cond bug; unbatching its predicate does not.
  Script s([](const Case &c) { return hasCond(c) ? Verdict::BatchedError : Verdict::Pass; },
           [](const Case &, const Behind &) { return kCondBug; });
  StepAroundMemory memory;
  ASSERT_EQ(memory.ordered(kCondBug).front().kind, StepAround::Kind::Feature);
  LookBehindStats st;
  EXPECT_TRUE(lookBehind(condCase(), kCondBug, 3, s.hooks(), st, memory));
  EXPECT_EQ(s.runs, 2); // the feature, then both branches
  EXPECT_EQ(memory.ordered(kCondBug).front().kind, StepAround::Kind::SelectBothBranches);
  s.runs = 0;
  EXPECT_TRUE(lookBehind(condCase(), kCondBug, 3, s.hooks(), st, memory));
  EXPECT_EQ(s.runs, 1);
}

TEST(LookBehind, ACaseLooksBehindEachFiledBugOnceInTheFirstModeThatMetIt) {
  // Direct mode and eager mode of one case both end on the cond bug: only direct's run steps
  // around it; eager's run takes that outcome, and counts as checked past it, not as re-run.
  Script s([](const Case &) { return Verdict::Pass; }, {});
  LookBehindStats st;
  StepAroundMemory memory;
  CaseLookBehind once;
  auto look = [&] { return lookBehind(condCase(), kCondBug, 3, s.hooks(), st, memory); };
  EXPECT_TRUE(once.behind(kCondBug, look, st));
  EXPECT_TRUE(once.behind(kCondBug, look, st));
  EXPECT_EQ(s.runs, 1);
  EXPECT_EQ(st.runsMet, 2);
  EXPECT_EQ(st.checkedPast, 2);
  EXPECT_EQ(st.inEarlierMode, 1);
  // Another filed bug of the same case is looked behind on its own; one that could not be got
  // past stays "ended" for the later mode too.
  Script fails([](const Case &) { return Verdict::BatchedError; }, [](const Case &, const Behind &) { return kFrontBug; });
  LookBehindStats st2;
  auto lookFront = [&] { return lookBehind(condCase(), kFrontBug, 1, fails.hooks(), st2, memory); };
  EXPECT_FALSE(once.behind(kFrontBug, lookFront, st2));
  EXPECT_FALSE(once.behind(kFrontBug, lookFront, st2));
  EXPECT_EQ(st2.runsMet, 2);
  EXPECT_EQ(st2.checkedPast, 0);
  EXPECT_EQ(st2.endedOn[kFrontBug], 2);
  EXPECT_EQ(st2.inEarlierMode, 1);
}
