// vmapfuzz replay: re-run case files on every system; --reports files each failure.
#include <iostream>
#include <memory>

#include "harness/campaign/replay.h"
#include "harness/cli/case_files.h"
#include "harness/cli/commands.h"
#include "harness/cli/system_flags.h"
#include "harness/report/findings.h"
#include "oracles/compare.h"

namespace vf::cli {

namespace {

struct ReplayFlags {
  SystemFlags systems;
  std::vector<std::string> files;
  std::string reports; ///< "": file nothing
  bool bytes = false;
};

int replay(const ReplayFlags &f) {
  if (f.files.empty()) throw UsageError("replay needs at least one case file or directory");
  std::vector<std::string> files = expandCaseFiles(f.files);
  std::vector<Case> cases;
  for (const auto &p : files) cases.push_back(loadCase(p, f.bytes, policyFrom(f.systems))); // all parse errors before any run
  auto systems = startSystems(f.systems, std::cerr);
  if (systems->empty()) return kClean;
  const auto &runners = systems->runners();
  std::unique_ptr<FindingStore> store; // --reports: file each failure as a campaign would
  if (!f.reports.empty()) store = std::make_unique<FindingStore>(f.reports, storeOptions(f.systems, *systems));
  int rc = kClean;
  for (size_t i = 0; i < cases.size(); ++i) {
    // The reproduce line names the case.vf filed beside the report, not this machine's path.
    for (const auto &[r, failing, filed, setAside] : replayCase(cases[i], runners, store.get(), runFlags(f.systems), "case.vf")) {
      std::cout << files[i] << ": " << (runners.size() > 1 ? r.system.str() + ": " : "") << verdictName(r.verdict);
      if (!r.summary.empty()) std::cout << ": " << r.summary;
      std::cout << "\n";
      for (size_t k = 0; k < r.expected.size(); ++k) std::cout << "  expected output " << k << ": " << describeTensor(r.expected[k]) << "\n";
      for (size_t k = 0; k < r.actual.size(); ++k) std::cout << "  batched  output " << k << ": " << describeTensor(r.actual[k]) << "\n";
      if (!setAside.empty()) std::cout << "  set aside (not a torch bug): " << setAside << "\n";
      if (!failing) continue;
      rc = kFound;
      if (filed) std::cout << "  " << (filed->isNew ? "filed: " : "known: ") << filed->dir << "\n";
    }
  }
  return rc;
}

} // namespace

void addReplay(Cli &cli) {
  auto f = std::make_shared<ReplayFlags>();
  CLI::App &cmd = cli.command(
      "replay", "FILE|DIR...", "re-run case files (a directory: every *.vf in it); exit 1 if any still fails",
      "libFuzzer artifacts (crash-*, timeout-*, ..., or any file with --bytes) are decoded through the generators "
      "as the fuzz_case target does.",
      [f] { return replay(*f); });
  cmd.add_option("FILE|DIR", f->files, "case files, or directories of them");
  addSystemFlags(cmd, f->systems);
  addFloat64Flag(cmd, f->systems);
  cmd.add_option("--reports", f->reports, "file each failure here as fuzz does");
  cmd.add_flag("--bytes", f->bytes, "decode every file as libFuzzer bytes");
}

} // namespace vf::cli
