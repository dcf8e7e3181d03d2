#pragma once
/// The nightly job in one call: replay the regression corpus, run a campaign for the rest of the
/// time budget, re-check every filed report, and write the CI artifacts. Only signatures not yet
/// filed count as failures.
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "harness/campaign/campaign.h"
#include "harness/report/findings.h"
#include "harness/run/systems.h"

namespace vf {

struct NightlyOptions {
  CampaignOptions campaign;      ///< its `seconds` is set to what the budget leaves
  double budgetSeconds = 600;    ///< for everything: replay, campaign, re-check
  std::string reportsDir;        ///< new findings are filed here; what is filed here is known
  std::string outDir;            ///< artifacts: summary.json, summary.md, junit.xml, new/
  std::string python;            ///< runs each filed repro.py for the re-check ("" = skip it)
  std::vector<std::pair<std::string, Case>> regressions; ///< (file, case), replayed first
};

/// Returns how many new signatures were filed.
int64_t runNightly(const NightlyOptions &opt, Systems &systems, FindingStore &store, std::ostream &log);

} // namespace vf
