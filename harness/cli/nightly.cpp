// vmapfuzz nightly: the CI job (regression corpus, a campaign for the rest of the budget, recheck).
#include <ctime>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>

#include "harness/campaign/nightly.h"
#include "harness/cli/campaign_flags.h"
#include "harness/cli/case_files.h"
#include "harness/cli/commands.h"
#include "harness/report/findings.h"

namespace vf::cli {

namespace {

struct NightlyFlags {
  SystemFlags systems;
  CampaignFlags campaign;
  int64_t budget = 600;
  std::string reports = "reports";
  std::optional<std::string> regressions; ///< unset: corpus/regressions when it is there
  std::string out = "vmapfuzz-nightly";
  bool noRecheck = false;
};

/// Today as YYYYMMDD: a new part of the space every night, replayable.
uint64_t today() {
  std::time_t now = std::time(nullptr);
  char buf[16];
  std::strftime(buf, sizeof buf, "%Y%m%d", std::gmtime(&now));
  return std::stoull(buf);
}

int nightly(const NightlyFlags &f) {
  NightlyOptions no;
  no.budgetSeconds = static_cast<double>(f.budget);
  no.campaign = campaignOptions(f.campaign, f.systems);
  no.reportsDir = f.reports;
  no.outDir = f.out;
  std::string regressions = f.regressions.value_or("corpus/regressions");
  if (std::filesystem::is_directory(regressions)) {
    if (!std::filesystem::is_empty(regressions))
      for (const auto &file : expandCaseFiles({regressions})) no.regressions.push_back({file, loadCase(file)});
  } else if (f.regressions)
    throw UsageError("--regressions " + regressions + ": not a directory");
  auto systems = startSystems(f.systems, std::cerr, static_cast<int>(f.campaign.jobs));
  if (systems->empty()) return kClean;
  campaignModes(f.campaign, f.systems, *systems, no.campaign);
  if (!f.noRecheck) no.python = f.systems.python;
  FindingStore store(no.reportsDir, storeOptions(f.systems, *systems));
  std::cerr << "vmapfuzz nightly: budget " << no.budgetSeconds << " s, seed " << no.campaign.seed << ", "
            << store.all().size() << " signatures filed in " << no.reportsDir << "\n";
  return runNightly(no, *systems, store, std::cerr) > 0 ? kFound : kClean;
}

} // namespace

void addNightly(Cli &cli) {
  auto f = std::make_shared<NightlyFlags>();
  CLI::App &cmd = cli.command(
      "nightly", "", "the CI job; exit 1 only for signatures not filed in --reports before",
      "Replays the regression corpus, fuzzes for the rest of the budget, re-checks the filed reports, and writes "
      "OUT/summary.{json,md}, junit.xml and new/.",
      [f] { return nightly(*f); });
  addSystemFlags(cmd, f->systems, kCampaignDefaults);
  f->campaign.seed = today();
  addCampaignFlags(cmd, f->campaign);
  flag(cmd, "--budget", f->budget, "seconds for the whole job")->check(inRange(1, 100000000));
  flag(cmd, "--reports", f->reports, "the filed reports: what is known");
  cmd.add_option("--regressions", f->regressions, "the regression corpus to replay (default: corpus/regressions)");
  flag(cmd, "--out", f->out, "where the summary, junit.xml and new findings go");
  cmd.add_flag("--no-recheck", f->noRecheck, "do not re-run the filed repro.py files");
}

} // namespace vf::cli
