// vmapfuzz fuzz: a coverage-guided campaign that files each new signature.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>

#include "harness/campaign/campaign.h"
#include "harness/campaign/guided.h"
#include "harness/campaign/summary.h"
#include "harness/cli/campaign_flags.h"
#include "harness/cli/commands.h"
#include "harness/cli/known_flag.h"
#include "harness/report/findings.h"

namespace vf::cli {

namespace {

/// Coverage guidance: --mutate-share percent of the case seeds mutate corpus cases.
/// Measured (bench/RESULTS.md, issue 17): at 50 % the mutants reached no line or edge that fresh
/// cases did not also reach within minutes, and a guided run made up to 4x fewer cases (corpus
/// cases are the larger ones). Until mutation earns its share, a default campaign spends 10 % on it.
constexpr int kDefaultMutateShare = 10;

struct FuzzFlags {
  SystemFlags systems;
  CampaignFlags campaign;
  int64_t seconds = 60;
  std::string out = "vmapfuzz-out";
  std::string reports; ///< "": OUT/findings
  std::string known = kKnownAuto;
  std::string corpus, corpusDir, caseLog;
  std::string summaryJson; ///< "": OUT/summary.json
  bool noShrink = false;
  int64_t mutateShare = kDefaultMutateShare;
};

void guidedOptions(const FuzzFlags &f, const Systems &systems, CampaignOptions &opt) {
  opt.guided.on = !systems.coverageTable().is_null();
  opt.guided.table = PyCovTable::fromJson(systems.coverageTable());
  opt.guided.mutateShare = static_cast<double>(f.mutateShare) / 100.0;
  opt.guided.corpusDir = f.corpusDir;
  opt.guided.seeds = loadCorpusDir(opt.guided.corpusDir);
  if (opt.guided.on)
    std::cerr << "vmapfuzz: coverage-guided: " << opt.guided.table.lineCount() << " lines of torch's batching code; "
              << opt.guided.mutateShare * 100 << "% of cases mutate corpus cases"
              << (opt.guided.corpusDir.empty() ? "" : "; corpus " + opt.guided.corpusDir + " (" +
                                                          std::to_string(opt.guided.seeds.size()) + " cases)")
              << "\n";
}

/// Writes summary.json atomically; `complete` false while the campaign runs. A failure is said
/// (once per campaign) and not fatal: the summary on the terminal still comes.
void writeSummary(const std::string &path, nlohmann::json summary, bool complete) {
  static bool warned = false;
  summary["complete"] = complete;
  try {
    std::filesystem::create_directories(std::filesystem::path(path).parent_path());
    writeFileAtomic(path, summary.dump(2) + "\n");
  } catch (const std::exception &e) {
    if (!warned || complete) std::cerr << "vmapfuzz: cannot write the summary " << path << ": " << e.what() << "\n";
    warned = true;
  }
}

int fuzz(FuzzFlags &f) {
  CampaignOptions opt = campaignOptions(f.campaign, f.systems);
  opt.seconds = static_cast<double>(f.seconds);
  opt.shrink = !f.noShrink;
  opt.uncheckedDir = f.out + "/unchecked";
  auto systems = startSystems(f.systems, std::cerr, static_cast<int>(f.campaign.jobs));
  if (systems->empty()) return kClean; // every device skipped: said so above
  campaignModes(f.campaign, f.systems, *systems, opt);
  guidedOptions(f, *systems, opt);
  StoreOptions so = storeOptions(f.systems, *systems);
  so.corpusDir = f.corpus;
  std::string reports = f.reports.empty() ? f.out + "/findings" : f.reports;
  FindingStore store(reports, so);
  auto known = openKnown(f.known, reports, std::cerr);
  opt.known = known.get();
  std::cerr << "vmapfuzz: fuzzing for " << opt.seconds << " s, seed " << opt.seed;
  if (opt.shards > 1) std::cerr << ", shard " << opt.shard << "/" << opt.shards;
  std::cerr << ", filing to " << reports << " (" << store.all().size() << " signatures filed already)\n";
  std::ofstream caseLog;
  if (!f.caseLog.empty()) {
    caseLog.open(f.caseLog);
    if (!caseLog) throw UsageError("--case-log: cannot write " + f.caseLog);
    caseLog << "index\tcase_seed\tsize\tsystem\tverdict\tsignature\n";
    opt.caseLog = &caseLog;
  }
  const std::string summaryPath = f.summaryJson.empty() ? f.out + "/summary.json" : f.summaryJson;
  opt.checkpoint = [&](const CampaignStats &s) { writeSummary(summaryPath, summaryJson(opt, s, store), false); };
  auto stats = runCampaign(opt, systems->jobs(), store, std::cerr);
  printSummary(stats, store, std::cout);
  if (known && known->totalHits() > 0) {
    printKnown(*known, std::cout);
    known->save(f.out + "/known.json");
  }
  if (!stats.guided.table.empty()) {
    std::filesystem::create_directories(f.out);
    writeFileAtomic(f.out + "/lcov.info", lcovTrace(stats.guided.table, stats.guided.cov));
    std::cout << "python coverage: " << f.out << "/lcov.info\n";
  }
  nlohmann::json final = summaryJson(opt, stats, store);
  if (known) final["known"] = known->json();
  writeSummary(summaryPath, final, true);
  if (!stats.filingError.empty()) throw FilingError(stats.filingError); // exit 3, after the summary
  return store.newCount() > 0 ? kFound : kClean;
}

} // namespace

void addFuzz(Cli &cli) {
  auto f = std::make_shared<FuzzFlags>();
  CLI::App &cmd = cli.command(
      "fuzz", "", "run a campaign; exit 0 when nothing new was found, 1 when something was",
      "Each new signature is filed under --reports and its shrunk case copied to --corpus. Coverage of torch's "
      "batching code (--coverage, default on) steers the campaign: cases reaching a new line or branch edge join a "
      "corpus, and --mutate-share percent of cases are mutants of corpus cases; OUT/lcov.info.",
      [f] { return fuzz(*f); });
  addSystemFlags(cmd, f->systems, kCampaignDefaults);
  addFloat64Flag(cmd, f->systems);
  addCoverageFlag(cmd, f->systems);
  addCampaignFlags(cmd, f->campaign);
  flag(cmd, "--time", f->seconds, "seconds to fuzz, shrinking included (the last ones, at most a tenth, check what the last cases found)")->check(inRange(0, 100000000));
  flag(cmd, "--out", f->out, "output directory (lcov.info, findings/, unchecked/: failures found as the time ran out)");
  cmd.add_option("--reports", f->reports, "file new signatures here (default: OUT/findings)");
  addKnownFlag(cmd, f->known);
  cmd.add_option("--corpus", f->corpus, "copy each new finding's shrunk case here");
  cmd.add_flag("--no-shrink", f->noShrink, "file findings as found, unshrunk");
  cmd.add_option("--summary-json", f->summaryJson,
                 "write counts, case indices and findings here, as the campaign goes (for `merge`; default: OUT/summary.json)");
  cmd.add_option("--case-log", f->caseLog,
                 "one line per case and mode here: index, case seed, size, system, verdict, signature");
  flag(cmd, "--mutate-share", f->mutateShare, "percent of cases that mutate corpus cases")->check(inRange(0, 100));
  cmd.add_option("--corpus-dir", f->corpusDir, "keep the coverage corpus here between runs");
}

} // namespace vf::cli
