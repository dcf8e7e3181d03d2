// vmapfuzz recheck, report and merge: the filed reports and campaign summaries, for CI.
#include <cstdlib>
#include <iostream>
#include <memory>

#include <nlohmann/json.hpp>

#include "harness/campaign/summary.h"
#include "harness/cli/case_files.h"
#include "harness/cli/commands.h"
#include "harness/cli/system_flags.h"
#include "harness/report/filed_reports.h"
#include "harness/report/findings.h"

namespace vf::cli {

namespace {

std::vector<FiledReport> loadReportsOrUsage(const std::string &dir) {
  try {
    return loadReports(dir);
  } catch (const std::invalid_argument &e) {
    throw UsageError(e.what());
  }
}

struct RecheckFlags {
  SystemFlags systems;
  std::string dir = "reports";
};

int recheck(const RecheckFlags &f) {
  auto reports = loadReportsOrUsage(f.dir);
  auto systems = startSystems(f.systems, std::cerr);
  const nlohmann::json &env = systems->environment();
  int open = recheckReports(reports, f.systems.python, env.value("torch", "?"), std::cout);
  std::cout << reports.size() << " reports re-checked against torch " << env.value("torch", "?") << ": " << open
            << " still open\n";
  return kClean;
}

struct ReportFlags {
  std::string dir = "reports";
  std::string markdown, junit; ///< "": not written
  bool fileIssues = false;
  std::string gh = "gh";
};

int report(const ReportFlags &f) {
  auto reports = loadReportsOrUsage(f.dir);
  if (!f.markdown.empty()) writeFileAtomic(f.markdown, reportsMarkdown(reports));
  if (!f.junit.empty()) writeFileAtomic(f.junit, reportsJUnit(reports));
  if (f.markdown.empty() && f.junit.empty()) std::cout << reportsMarkdown(reports);
  if (f.fileIssues) {
    std::string probe = "command -v '" + f.gh + "' >/dev/null 2>&1";
    if (std::system(probe.c_str()) != 0) throw std::runtime_error("--file-issues needs the GitHub CLI '" + f.gh + "' on PATH");
    int n = fileIssues(reports, f.gh, std::cerr);
    std::cerr << n << " issue(s) filed\n";
  }
  return kClean;
}

struct MergeFlags {
  std::vector<std::string> summaries;
  std::string json, markdown, junit; ///< "": not written
};

int merge(const MergeFlags &f) {
  if (f.summaries.empty()) throw UsageError("merge needs the summary.json of every shard");
  std::vector<nlohmann::json> shards;
  for (const auto &p : f.summaries) {
    auto j = nlohmann::json::parse(readFile(p), nullptr, false);
    if (j.is_discarded() || !j.is_object()) throw UsageError(p + ": not a JSON summary");
    shards.push_back(std::move(j));
  }
  nlohmann::json merged;
  try {
    merged = mergeSummaries(shards);
  } catch (const std::exception &e) { // bad shapes (nlohmann) or shards of different campaigns
    throw UsageError(std::string("cannot merge: ") + e.what());
  }
  if (!f.json.empty()) writeFileAtomic(f.json, merged.dump(2) + "\n");
  if (!f.markdown.empty()) writeFileAtomic(f.markdown, summaryMarkdown(merged));
  if (!f.junit.empty()) writeFileAtomic(f.junit, summaryJUnit(merged));
  std::cout << summaryMarkdown(merged);
  return merged.value("new_findings", 0) > 0 ? kFound : kClean;
}

} // namespace

void addRecheck(Cli &cli) {
  auto f = std::make_shared<RecheckFlags>();
  CLI::App &cmd = cli.command("recheck", "[DIR]",
                              "run every filed repro.py against the installed torch and mark each report open, "
                              "fixed or error in its meta.json",
                              "", [f] { return recheck(*f); });
  flag(cmd, "DIR", f->dir, "the filed reports");
  addSystemFlags(cmd, f->systems);
}

void addReport(Cli &cli) {
  auto f = std::make_shared<ReportFlags>();
  CLI::App &cmd = cli.command("report", "[DIR]", "summarise filed reports for CI", "", [f] { return report(*f); });
  flag(cmd, "DIR", f->dir, "the filed reports");
  cmd.add_option("--markdown", f->markdown, "write the summary as Markdown here (instead of printing it)");
  cmd.add_option("--junit", f->junit, "write the summary as JUnit XML here");
  cmd.add_flag("--file-issues", f->fileIssues, "file open reports with `gh issue create`");
  flag(cmd, "--gh", f->gh, "the GitHub CLI for --file-issues");
}

void addMerge(Cli &cli) {
  auto f = std::make_shared<MergeFlags>();
  CLI::App &cmd = cli.command("merge", "SUMMARY.json...",
                              "merge the summaries of the shards of one campaign; exit 1 if any shard found something new",
                              "", [f] { return merge(*f); });
  cmd.add_option("SUMMARY.json", f->summaries, "the --summary-json of every shard");
  cmd.add_option("--json", f->json, "write the merged summary here");
  cmd.add_option("--markdown", f->markdown, "write it as Markdown here");
  cmd.add_option("--junit", f->junit, "write it as JUnit XML here");
}

} // namespace vf::cli
