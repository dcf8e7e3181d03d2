#pragma once
/// The filed reports directory as a whole: re-checking every repro.py against the installed
/// torch (fix verification), summaries for CI (Markdown, JUnit XML), and filing to GitHub.
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/report/triage.h"

namespace vf {

struct FiledReport {
  std::string dir;
  nlohmann::json meta;
};

/// Every folder of `dir` with a meta.json, sorted by name; throws on an unreadable meta.json.
std::vector<FiledReport> loadReports(const std::string &dir);

/// Runs each repro.py with `python` and records the outcome in meta.json: status "open" (exit
/// 1: the bug is still there), "fixed" (exit 0), or "error" (anything else). Prints a table.
/// Returns how many are still open.
int recheckReports(std::vector<FiledReport> &reports, const std::string &python, const std::string &torchVersion,
                   std::ostream &log);

/// Filed reports that are one root cause (triage.h: the signature without mode and device).
struct RootCause {
  std::string key;                  ///< rootCauseOf(signature)
  SignatureParts parts;             ///< of the first report's signature
  std::vector<std::string> reports; ///< folder names
  std::vector<std::string> systems; ///< "eager|cpu", ... where it was filed from
  int64_t hits = 0;                 ///< summed over its reports
  bool open = false;                ///< some report of it is still open
};
/// Groups reports per root cause, the most hit first.
std::vector<RootCause> groupByRootCause(const std::vector<FiledReport> &reports);

/// Filed reports whose finding was localised to one component of torch's batching (culprit.h),
/// the signature's culprit or, for a report signed otherwise, meta.json's `culprits.culprit`.
struct CulpritGroup {
  std::string culprit;              ///< "hop:cond", ...; "" for the reports localised to none
  std::vector<std::string> reports; ///< folder names
  size_t rootCauses = 0;            ///< distinct root causes (groupByRootCause) among them
  int64_t hits = 0;
  int64_t open = 0; ///< reports still open
};
/// Groups reports per culprit, the most hit first; the reports localised to none last.
std::vector<CulpritGroup> groupByCulprit(const std::vector<FiledReport> &reports);

/// The Markdown summary: reports per culprit, hits per root cause, then one row per report.
std::string reportsMarkdown(const std::vector<FiledReport> &reports);
/// Text escaped for an XML attribute or element; control characters XML 1.0 forbids are dropped.
std::string xmlEscape(const std::string &s);
/// One testcase per report; an open bug is a failure, a fixed one passes.
std::string reportsJUnit(const std::vector<FiledReport> &reports);

/// Files every open report that has no issue yet with `gh issue create`; stores the URL gh
/// prints in meta.json. Returns how many were filed; throws when `gh` fails.
int fileIssues(std::vector<FiledReport> &reports, const std::string &gh, std::ostream &log);

} // namespace vf
