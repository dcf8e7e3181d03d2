#pragma once
/// A campaign's machine-readable summary (`fuzz --summary-json`), the merge of several shards'
/// summaries into one, and the CI artifacts made from it (Markdown, JUnit XML).
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/campaign/campaign.h"
#include "harness/report/findings.h"

namespace vf {

/// Version 1: seed, shard, shards, cases, case_indices, seconds, verdicts, by_mode, coverage,
/// unsupported, findings [{signature, verdict, new, hits (this campaign's), dir}], new_findings,
/// unchecked, filing_error (only when filing failed), unchecked_reasons (mode -> why runs checked
/// nothing -> runs) and idle_modes [{mode, runs, count, reason}] (mode_health.h).
nlohmann::json summaryJson(const CampaignOptions &opt, const CampaignStats &s, const FindingStore &store);

/// One summary for several shards of one campaign: counts add up, case indices are united, a
/// finding seen by several shards appears once (new if any shard filed it). Throws
/// std::invalid_argument when they are not shards of one campaign (another seed or shard
/// count, the same shard twice, or a case index in two of them).
nlohmann::json mergeSummaries(const std::vector<nlohmann::json> &shards);

/// A Markdown page for a CI run: totals, verdicts per mode, coverage, and the findings, new first.
std::string summaryMarkdown(const nlohmann::json &summary);
/// JUnit XML: one testcase per finding; a new one fails, a known one is skipped (it is filed);
/// one failing testcase per mode that checked almost nothing.
std::string summaryJUnit(const nlohmann::json &summary);

} // namespace vf
