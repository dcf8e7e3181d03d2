// vmapfuzz coverage and merge-corpus: what cases reach of torch's batching code.
#include <filesystem>
#include <iostream>
#include <memory>

#include "harness/campaign/guided.h"
#include "harness/cli/case_files.h"
#include "harness/cli/commands.h"
#include "harness/cli/system_flags.h"
#include "harness/report/findings.h"

namespace vf::cli {

namespace {

/// Both commands run their cases in direct mode with coverage on.
const SystemDefaults kCoverageDefaults{.modes = "direct", .devices = "cpu"};

struct CoverageFlags {
  SystemFlags systems;
  std::vector<std::string> cases;
  std::string out = "vmapfuzz-out";
  std::string match;
  bool all = false;
};

int coverage(const CoverageFlags &f) {
  if (f.cases.empty()) throw UsageError("coverage needs case files or corpus directories");
  auto cases = loadCases(f.cases);
  auto systems = startSystems(f.systems, std::cerr);
  if (systems->empty()) return kClean;
  PyCovTable table = PyCovTable::fromJson(systems->coverageTable());
  if (table.empty()) throw UsageError("coverage needs --coverage on or a list of files");
  PyCoverage cov;
  for (const auto &keys : coverageOfCases(cases, systems->runners())) cov.add(keys);
  std::cout << cases.size() << " cases: " << cov.lines() << "/" << table.lineCount() << " lines, " << cov.branchEdges()
            << "/" << table.branchEdgeCount() << " branch edges of the target files\n";
  if (!f.all) { // the batching rules and vmap's front end unless --all
    PyCovTable rules;
    for (const auto &fn : table.funcs)
      if (isBatchingRule(fn.name)) rules.funcs.push_back(fn);
    printPyCoverage(rules, cov, std::cout, f.match, true);
  } else {
    printPyCoverage(table, cov, std::cout, f.match, true);
  }
  std::filesystem::create_directories(f.out);
  writeFileAtomic(f.out + "/lcov.info", lcovTrace(table, cov));
  std::cout << "lcov: " << f.out << "/lcov.info\n";
  return kClean;
}

struct MergeCorpusFlags {
  SystemFlags systems;
  std::vector<std::string> dirs;
  std::string out;
};

int mergeCorpus(const MergeCorpusFlags &f) {
  if (f.dirs.empty() || f.out.empty()) throw UsageError("merge-corpus needs corpus directories and --out DIR");
  auto cases = loadCases(f.dirs);
  auto systems = startSystems(f.systems, std::cerr);
  if (systems->empty()) return kClean;
  auto sets = coverageOfCases(cases, systems->runners());
  auto keep = minimalCover(sets);
  PyCoverage all, kept;
  for (const auto &s : sets) all.add(s);
  for (size_t i : keep) {
    kept.add(sets[i]);
    saveCorpusCase(f.out, cases[i]);
  }
  std::cout << "kept " << keep.size() << " of " << cases.size() << " cases in " << f.out << ": " << kept.lines()
            << " lines, " << kept.branchEdges() << " branch edges (all cases: " << all.lines() << ", "
            << all.branchEdges() << ")\n";
  return kClean;
}

} // namespace

void addCoverage(Cli &cli) {
  auto f = std::make_shared<CoverageFlags>();
  CLI::App &cmd = cli.command(
      "coverage", "CASES_OR_DIRS...", "run cases in direct mode and show what they reach of torch's batching code",
      "Per batching-rule function (every function: --all): the lines and branch edges reached and the lines never "
      "reached; writes OUT/lcov.info.",
      [f] { return coverage(*f); });
  cmd.add_option("CASES_OR_DIRS", f->cases, "case files, or directories of them");
  addSystemFlags(cmd, f->systems, kCoverageDefaults);
  addCoverageFlag(cmd, f->systems);
  flag(cmd, "--out", f->out, "where lcov.info goes");
  cmd.add_option("--match", f->match, "only functions whose name contains this");
  cmd.add_flag("--all", f->all, "every function of the target files, not only the batching rules");
}

void addMergeCorpus(Cli &cli) {
  auto f = std::make_shared<MergeCorpusFlags>();
  CLI::App &cmd = cli.command("merge-corpus", "DIR...",
                              "keep a minimal subset of the corpora with the same coverage (greedy set cover)", "",
                              [f] { return mergeCorpus(*f); });
  cmd.add_option("DIR", f->dirs, "corpus directories");
  addSystemFlags(cmd, f->systems, kCoverageDefaults);
  addCoverageFlag(cmd, f->systems);
  cmd.add_option("--out", f->out, "the merged corpus (required)");
}

} // namespace vf::cli
