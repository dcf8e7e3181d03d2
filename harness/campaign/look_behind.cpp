#include "harness/campaign/look_behind.h"

#include <algorithm>
#include <chrono>
#include <iomanip>
#include <vector>

#include "harness/report/step_around.h"

namespace vf {

void LookBehindStats::add(const LookBehindStats &o) {
  casesMet += o.casesMet;
  casesEnded += o.casesEnded;
  runsMet += o.runsMet;
  checkedPast += o.checkedPast;
  reruns += o.reruns;
  passed += o.passed;
  newFailures += o.newFailures;
  filedNew += o.filedNew;
  otherFiled += o.otherFiled;
  cameBack += o.cameBack;
  uncheckedRuns += o.uncheckedRuns;
  inEarlierMode += o.inEarlierMode;
  seconds += o.seconds;
  for (const auto &[sig, n] : o.endedOn) endedOn[sig] += n;
}

nlohmann::json lookBehindJson(const LookBehindStats &s) {
  return {{"cases_met", s.casesMet},         {"cases_ended", s.casesEnded},   {"runs_met", s.runsMet},
          {"checked_past", s.checkedPast},   {"reruns", s.reruns},            {"passed", s.passed},
          {"new_failures", s.newFailures},   {"filed_new", s.filedNew},       {"other_filed", s.otherFiled},
          {"came_back", s.cameBack},         {"unchecked_reruns", s.uncheckedRuns}, {"in_earlier_mode", s.inEarlierMode},
          {"seconds", s.seconds},
          {"ended_on", s.endedOn}};
}

void printLookBehind(const LookBehindStats &s, int64_t cases, bool on, std::ostream &os) {
  if (s.casesMet == 0) return;
  auto pct = [&](int64_t n) { return cases > 0 ? 100.0 * static_cast<double>(n) / static_cast<double>(cases) : 0.0; };
  os << std::fixed << std::setprecision(1) << "ended on a filed bug: " << s.casesMet << " cases (" << pct(s.casesMet) << " %)";
  if (!on) {
    os << "; look-behind off (--gen look_behind=0): nothing after those bugs was checked\n";
    return;
  }
  os << "; look-behind checked " << s.checkedPast << " of " << s.runsMet << " such runs past it (" << s.reruns
     << " re-runs: " << s.passed << " passed, " << s.newFailures << " new failures, " << s.filedNew << " filed new; "
     << s.otherFiled << " met another filed bug, " << s.cameBack << " the same one, " << s.uncheckedRuns
     << " checked nothing; " << s.seconds << " s)\n";
  if (s.inEarlierMode > 0)
    os << "  " << s.inEarlierMode << " of those runs took the look-behind of an earlier mode of their case (the same filed bug, not re-run)\n";
  os << "  still ended there, nothing after it checked: " << s.casesEnded << " cases (" << pct(s.casesEnded) << " %)\n";
  std::vector<std::pair<int64_t, std::string>> top;
  for (const auto &[sig, n] : s.endedOn) top.emplace_back(-n, sig);
  std::sort(top.begin(), top.end());
  for (size_t i = 0; i < top.size() && i < 3; ++i) os << "    " << -top[i].first << "x " << top[i].second << "\n";
}

std::vector<StepAround> StepAroundMemory::ordered(const std::string &sig) {
  // Each step's share of tries that got past, one past and one not assumed (untried: 1/2).
  std::vector<std::pair<double, StepAround>> scored;
  {
    std::lock_guard<std::mutex> g(mu_);
    const auto &seen = seen_[sig];
    for (auto &step : stepAroundsOf(sig)) {
      auto it = seen.find(step.phrase());
      const auto [tries, past] = it == seen.end() ? std::pair<int64_t, int64_t>{0, 0} : it->second;
      scored.emplace_back((static_cast<double>(past) + 1.0) / (static_cast<double>(tries) + 2.0), std::move(step));
    }
  }
  std::stable_sort(scored.begin(), scored.end(), [](const auto &a, const auto &b) { return a.first > b.first; });
  std::vector<StepAround> steps;
  for (auto &[score, step] : scored) steps.push_back(std::move(step));
  return steps;
}

void StepAroundMemory::tried(const std::string &sig, const StepAround &step, bool past) {
  std::lock_guard<std::mutex> g(mu_);
  auto &[tries, n] = seen_[sig][step.phrase()];
  ++tries;
  n += past ? 1 : 0;
}

namespace {

/// One look-behind's state: the case as changed so far and the bugs stepped around.
class Looker {
public:
  Looker(const Case &c, const std::string &known, const LookBehindHooks &h, LookBehindStats &s, StepAroundMemory &memory,
         int tries)
      : cur_(c), h_(h), s_(s), memory_(memory), tries_(tries) {
    behind_.steppedAround.push_back(known);
  }

  /// Steps around the last bug met; true when the rest was checked. `next` is set when a re-run
  /// met another filed bug (cur_ and behind_ then step from there).
  bool stepAroundLast(bool &next) {
    next = false;
    std::vector<Case> tried;
    const std::string bug = behind_.steppedAround.back();
    for (const auto &step : memory_.ordered(bug)) {
      if (static_cast<int>(tried.size()) >= tries_ || !h_.timeLeft()) break;
      std::optional<Case> cand = step.apply(cur_);
      if (!cand || std::find(tried.begin(), tried.end(), *cand) != tried.end()) continue;
      tried.push_back(*cand);
      const CaseResult r = h_.run(*cand);
      ++s_.reruns;
      if (r.verdict == Verdict::Pass) {
        ++s_.passed;
        memory_.tried(bug, step, true);
        return true;
      }
      if (!isFailure(r.verdict)) { // invalid, ambiguous, unsupported: nothing checked, try the next
        ++s_.uncheckedRuns;
        memory_.tried(bug, step, false);
        continue;
      }
      const std::string how = how_ + step.phrase();
      const FilingReport rep = h_.file(*cand, r, behind_, how);
      memory_.tried(bug, step, rep.known.empty());
      if (rep.known.empty()) { // a new failure (filed, kept unchecked, set aside or waiting on a shrink)
        ++s_.newFailures;
        s_.filedNew += rep.filedNew;
        return true;
      }
      if (behind_.around(rep.known)) {
        ++s_.cameBack;
        continue;
      }
      ++s_.otherFiled; // another filed bug behind this one: step around it too
      cur_ = std::move(*cand);
      behind_.steppedAround.push_back(rep.known);
      how_ = how + "; then ";
      next = true;
      return false;
    }
    return false;
  }

  const std::string &last() const { return behind_.steppedAround.back(); }

private:
  Case cur_;
  Behind behind_;
  std::string how_;
  const LookBehindHooks &h_;
  LookBehindStats &s_;
  StepAroundMemory &memory_;
  const int tries_;
};

} // namespace

bool lookBehind(const Case &c, const std::string &known, int maxBugs, const LookBehindHooks &h, LookBehindStats &s,
                StepAroundMemory &memory, int triesPerBug) {
  const auto t0 = std::chrono::steady_clock::now();
  ++s.runsMet;
  Looker looker(c, known, h, s, memory, triesPerBug);
  bool past = false, next = maxBugs > 0;
  for (int bug = 0; next && bug < maxBugs; ++bug) past = looker.stepAroundLast(next);
  if (past) ++s.checkedPast;
  else ++s.endedOn[looker.last()];
  s.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return past;
}

bool CaseLookBehind::behind(const std::string &known, const std::function<bool()> &look, LookBehindStats &s) {
  const auto it = past_.find(known);
  if (it == past_.end()) return past_[known] = look();
  ++s.runsMet;
  ++s.inEarlierMode;
  if (it->second) ++s.checkedPast;
  else ++s.endedOn[known];
  return it->second;
}

} // namespace vf
