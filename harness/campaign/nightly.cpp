#include "harness/campaign/nightly.h"

#include <chrono>
#include <filesystem>

#include "harness/campaign/replay.h"
#include "harness/campaign/summary.h"
#include "harness/report/filed_reports.h"
#include "harness/run/systems.h"

namespace fs = std::filesystem;

namespace vf {

int64_t runNightly(const NightlyOptions &opt, Systems &systems, FindingStore &store, std::ostream &log) {
  auto t0 = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
  fs::create_directories(opt.outDir);

  // 1. Every filed bug's shrunk case, in every mode: a known signature only counts a hit; a case
  //    that now fails differently is a new finding.
  int64_t replayed = 0, stillFailing = 0;
  for (const auto &[file, c] : opt.regressions)
    for (const Replayed &r : replayCase(c, systems.runners(), &store, opt.campaign.runFlags, file)) {
      ++replayed;
      if (!r.failing) continue;
      ++stillFailing;
      if (r.filed->isNew)
        log << "NEW " << verdictName(r.result.verdict) << " replaying " << file << ": " << r.result.summary
            << "\n    -> " << r.filed->dir << "\n";
    }
  log << "vmapfuzz nightly: replayed " << opt.regressions.size() << " regression cases (" << replayed << " runs, "
      << stillFailing << " still failing)\n";

  // 2. The campaign gets what the budget leaves, keeping a share for the re-check.
  CampaignOptions co = opt.campaign;
  co.uncheckedDir = opt.outDir + "/unchecked";
  double recheckReserve = opt.python.empty() ? 0 : std::min(120.0, 0.2 * opt.budgetSeconds);
  co.seconds = std::max(0.0, opt.budgetSeconds - elapsed() - recheckReserve);
  CampaignStats stats = runCampaign(co, systems.jobs(), store, log);
  printSummary(stats, store, log);

  // 3. Which filed bugs are fixed in this torch (informational: never a failure).
  nlohmann::json summary = summaryJson(co, stats, store);
  summary["regressions_replayed"] = opt.regressions.size();
  summary["regressions_still_failing"] = stillFailing;
  if (!opt.python.empty()) {
    auto reports = loadReports(opt.reportsDir);
    int open = recheckReports(reports, opt.python, systems.environment().value("torch", "?"), log);
    summary["reports_open"] = open;
    summary["reports_fixed"] = nlohmann::json::array();
    for (const auto &r : reports)
      if (r.meta.value("status", "") == "fixed") summary["reports_fixed"].push_back(r.dir);
  }

  // 4. Artifacts: the summaries, and a copy of every new finding's folder.
  writeFileAtomic(opt.outDir + "/summary.json", summary.dump(2) + "\n");
  writeFileAtomic(opt.outDir + "/summary.md", summaryMarkdown(summary));
  writeFileAtomic(opt.outDir + "/junit.xml", summaryJUnit(summary));
  for (const auto &[sig, rec] : store.all())
    if (rec.isNew) {
      fs::create_directories(opt.outDir + "/new");
      fs::copy(rec.dir, opt.outDir + "/new/" + fs::path(rec.dir).filename().string(),
               fs::copy_options::recursive | fs::copy_options::overwrite_existing);
    }
  log << "vmapfuzz nightly: " << store.newCount() << " new signature(s) in " << static_cast<int>(elapsed())
      << " s; artifacts in " << opt.outDir << "\n";
  if (!stats.filingError.empty()) throw FilingError(stats.filingError); // exit 3, after the artifacts
  // A mode that checked almost nothing makes the night no evidence: the environment's exit code.
  if (auto idle = idleModesOf(stats); !idle.empty())
    throw EnvironmentError("the nightly checked almost nothing in " + std::to_string(idle.size()) + " mode(s): " + describe(idle[0]) +
                           " (summary.json's idle_modes lists each)");
  return static_cast<int64_t>(store.newCount());
}

} // namespace vf
