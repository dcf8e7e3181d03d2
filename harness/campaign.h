#pragma once
/// The fuzz loop: generate, run, classify, record, report progress. It only loops; the driver
/// (cli) builds the backend and the store.
#include <cstdint>
#include <map>
#include <ostream>
#include <string>

#include "generators/policy.h"
#include "harness/coverage.h"
#include "harness/findings.h"
#include "harness/runner.h"

namespace vf {

struct CampaignOptions {
  double seconds = 60;
  int64_t maxCases = -1; ///< -1: no limit
  uint64_t seed = 1;
  GenPolicy policy;
  bool tty = false;      ///< rewrite the progress line in place
  bool shrink = true;    ///< shrink each new finding before filing it
  int maxShrinkAttempts = 400;
  std::string genFlags;  ///< the --gen flags, repeated in every reproduce line
  std::string runFlags;  ///< flags replay needs too (--fault, --float64)
};

struct CampaignStats {
  int64_t cases = 0;
  int64_t byVerdict[kVerdictCount] = {};
  double seconds = 0, referenceSeconds = 0, systemSeconds = 0;
  Coverage coverage;
  int64_t shrinkAttempts = 0;
  double shrinkSeconds = 0;
  std::map<std::string, int64_t> invalidReasons; ///< why torch rejected programs: feeds the generator's fixes
  std::map<std::string, int64_t> unsupported;    ///< constructs torch has no batching rule for, with counts
  int64_t redrawnCases = 0, redraws = 0;          ///< cases whose data was re-drawn for predicate margins
  int64_t nearBoundary = 0;                       ///< cases still near a boundary after every re-draw
};

/// The seed of case `index` of a campaign with `seed`: the reproduce line names it.
uint64_t caseSeed(uint64_t seed, int64_t index);
/// The generation size of case `index` (sizes cycle so both small and large cases appear).
int caseSize(int64_t index);

CampaignStats runCampaign(const CampaignOptions &opt, Runner &runner, FindingStore &store, std::ostream &log);

/// The end-of-campaign summary: verdict counts, coverage table, findings.
void printSummary(const CampaignStats &s, const FindingStore &store, std::ostream &os);

} // namespace vf
