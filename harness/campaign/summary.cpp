#include "harness/campaign/summary.h"

#include <iomanip>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

#include "harness/report/filed_reports.h"
#include "harness/report/triage.h"

namespace vf {

namespace {

/// A finding's verdict: its signature's, or where the signature is a rule's (silent or raising
/// alike: kFailsThrough) its folder's ("mismatch-1a2b3c4d").
std::string verdictOfFinding(const std::string &sig, const std::string &dir) {
  const std::string v = parseSignature(sig).verdict;
  if (v != kFailsThrough) return v;
  const std::string name = dir.substr(dir.find_last_of('/') + 1);
  return name.substr(0, name.find_last_of('-'));
}

} // namespace

nlohmann::json summaryJson(const CampaignOptions &opt, const CampaignStats &s, const FindingStore &store) {
  nlohmann::json j;
  j["version"] = 1;
  j["seed"] = opt.seed;
  j["shard"] = opt.shard;
  j["shards"] = opt.shards;
  j["cases"] = s.cases;
  j["respec_cases"] = s.respecCases;
  j["case_indices"] = s.caseIndices;
  j["seconds"] = s.seconds;
  j["phase_seconds"] = nlohmann::json::object(); // where the wall went (phase_times.h), summed over jobs
  for (const auto &p : phaseTable()) j["phase_seconds"][p.name] = s.phases.*p.seconds;
  j["verdicts"] = nlohmann::json::object();
  for (int v = 0; v < kVerdictCount; ++v) j["verdicts"][std::string(verdictName(static_cast<Verdict>(v)))] = s.byVerdict[v];
  j["by_mode"] = nlohmann::json::object();
  for (const auto &[mode, counts] : s.byMode)
    for (int v = 0; v < kVerdictCount; ++v) j["by_mode"][mode][std::string(verdictName(static_cast<Verdict>(v)))] = counts[v];
  j["coverage"] = nlohmann::json::object();
  for (const auto &row : Coverage::rows()) {
    auto it = s.coverage.counts().find(row);
    j["coverage"][row] = it == s.coverage.counts().end() ? 0 : it->second;
  }
  j["unsupported"] = s.unsupported;
  j["unchecked_reasons"] = s.uncheckedReasons;
  j["idle_modes"] = toJson(idleModesOf(s));
  j["findings"] = nlohmann::json::array();
  int64_t fresh = 0;
  for (const auto &[sig, rec] : store.all()) {
    if (rec.hitsNow == 0) continue;
    fresh += rec.isNew;
    j["findings"].push_back({{"signature", sig}, {"verdict", verdictOfFinding(sig, rec.dir)},
                             {"new", rec.isNew}, {"hits", rec.hitsNow}, {"dir", rec.dir}});
  }
  j["new_findings"] = fresh;
  j["look_behind"] = lookBehindJson(s.lookBehind); // cases that ended on a filed bug, and what was checked past it
  j["look_behind"]["on"] = s.lookBehindOn;
  j["unchecked"] = s.unchecked; // new failures found as the time ran out: replay them to file
  if (!s.filingError.empty()) j["filing_error"] = s.filingError; // the campaign stopped there (exit 3)
  return j;
}

namespace {

void addCounts(nlohmann::json &into, const nlohmann::json &from) {
  if (into.is_null()) into = nlohmann::json::object();
  for (auto it = from.begin(); it != from.end(); ++it) {
    if (it->is_object()) addCounts(into[it.key()], *it);
    else into[it.key()] = into.value(it.key(), int64_t{0}) + it->get<int64_t>();
  }
}

} // namespace

nlohmann::json mergeSummaries(const std::vector<nlohmann::json> &shards) {
  if (shards.empty()) throw std::invalid_argument("no summaries to merge");
  nlohmann::json m = {{"version", 1}, {"seed", shards[0].at("seed")}, {"shards", shards[0].at("shards")}, {"cases", 0},
                      {"seconds", 0.0}, {"verdicts", nlohmann::json::object()}, {"by_mode", nlohmann::json::object()},
                      {"coverage", nlohmann::json::object()}, {"unsupported", nlohmann::json::object()},
                      {"phase_seconds", nlohmann::json::object()}};
  std::set<int64_t> shardsSeen, indices;
  std::map<std::string, nlohmann::json> findings;
  for (const auto &s : shards) {
    if (s.value("version", 0) != 1) throw std::invalid_argument("a summary of an unknown version");
    if (s.at("seed") != m["seed"] || s.at("shards") != m["shards"])
      throw std::invalid_argument("summaries of different campaigns (seed " + s.at("seed").dump() + " of " +
                                  s.at("shards").dump() + " shards, and seed " + m["seed"].dump() + " of " +
                                  m["shards"].dump() + ")");
    if (!shardsSeen.insert(s.at("shard").get<int64_t>()).second)
      throw std::invalid_argument("shard " + s.at("shard").dump() + " given twice");
    for (int64_t i : s.at("case_indices"))
      if (!indices.insert(i).second) throw std::invalid_argument("case " + std::to_string(i) + " ran in two shards");
    m["cases"] = m["cases"].get<int64_t>() + s.at("cases").get<int64_t>();
    m["seconds"] = std::max(m["seconds"].get<double>(), s.at("seconds").get<double>()); // shards run side by side
    addCounts(m["verdicts"], s.at("verdicts"));
    addCounts(m["by_mode"], s.at("by_mode"));
    addCounts(m["coverage"], s.at("coverage"));
    addCounts(m["unsupported"], s.value("unsupported", nlohmann::json::object()));
    addCounts(m["unchecked_reasons"], s.value("unchecked_reasons", nlohmann::json::object()));
    const nlohmann::json phases = s.value("phase_seconds", nlohmann::json::object()); // summed over shards
    for (auto it = phases.begin(); it != phases.end(); ++it)
      m["phase_seconds"][it.key()] = m["phase_seconds"].value(it.key(), 0.0) + it->get<double>();
    for (const auto &u : s.value("unchecked", nlohmann::json::array())) m["unchecked"].push_back(u);
    for (const auto &f : s.at("findings")) {
      auto &g = findings[f.at("signature")];
      if (g.is_null()) g = f;
      else {
        g["hits"] = g["hits"].get<int64_t>() + f.at("hits").get<int64_t>();
        g["new"] = g["new"].get<bool>() || f.at("new").get<bool>();
      }
    }
  }
  m["shard"] = nullptr;
  m["shards_merged"] = shardsSeen;
  m["case_indices"] = indices;
  m["findings"] = nlohmann::json::array();
  int64_t fresh = 0;
  for (auto &[sig, f] : findings) {
    fresh += f["new"].get<bool>();
    m["findings"].push_back(f);
  }
  m["new_findings"] = fresh;
  m["idle_modes"] = toJson(idleModes(m)); // of the whole campaign: a shard alone may be too short to say
  return m;
}

std::string summaryMarkdown(const nlohmann::json &s) {
  std::ostringstream md;
  int64_t fresh = s.value("new_findings", 0);
  md << "# vmapfuzz: " << (fresh ? std::to_string(fresh) + " new finding(s)" : "no new findings") << "\n\n";
  md << "- cases: " << s.value("cases", 0) << " in " << std::fixed << std::setprecision(0) << s.value("seconds", 0.0)
     << " s, seed " << s.value("seed", nlohmann::json(0)).dump();
  if (s.contains("shards_merged")) md << ", " << s["shards_merged"].size() << " shards merged";
  md << "\n";
  for (const auto &m : idleModes(s)) md << "- **checks almost nothing**: " << describe(m) << "\n";
  md << "\n## Verdicts per mode\n\n| verdict |";
  const nlohmann::json byMode = s.value("by_mode", nlohmann::json::object());
  for (auto it = byMode.begin(); it != byMode.end(); ++it) md << " " << it.key() << " |";
  md << "\n| --- |";
  for (size_t i = 0; i < byMode.size(); ++i) md << " ---: |";
  md << "\n";
  const nlohmann::json verdicts = s.value("verdicts", nlohmann::json::object());
  for (auto v = verdicts.begin(); v != verdicts.end(); ++v) {
    md << "| " << v.key() << " |";
    for (auto it = byMode.begin(); it != byMode.end(); ++it) md << " " << it->value(v.key(), 0) << " |";
    md << "\n";
  }
  md << "\n## Findings\n\n";
  const nlohmann::json findings = s.value("findings", nlohmann::json::array());
  if (findings.empty()) md << "None.\n";
  for (bool wantNew : {true, false})
    for (const auto &f : findings)
      if (f.value("new", false) == wantNew)
        md << "- " << (wantNew ? "**NEW** " : "known ") << f.value("hits", 0) << "x `" << f.value("signature", "") << "` ("
           << f.value("dir", "") << ")\n";
  const nlohmann::json unchecked = s.value("unchecked", nlohmann::json::array());
  if (!unchecked.empty()) {
    md << "\n## Found as the time ran out, not yet checked\n\n"
          "Not shrunk, cross-checked or filed; `vmapfuzz replay --reports DIR FILE` does that.\n\n";
    for (const auto &u : unchecked) md << "- `" << u.get<std::string>() << "`\n";
  }
  md << "\n## Coverage (cases per feature)\n\n";
  const nlohmann::json coverage = s.value("coverage", nlohmann::json::object());
  for (auto it = coverage.begin(); it != coverage.end(); ++it)
    md << "- " << it.key() << ": " << it.value() << "\n";
  return md.str();
}


std::string summaryJUnit(const nlohmann::json &s) {
  std::ostringstream x;
  const nlohmann::json fs = s.value("findings", nlohmann::json::array());
  const std::vector<IdleMode> idle = idleModes(s);
  int64_t fresh = s.value("new_findings", 0);
  x << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuite name=\"vmapfuzz\" tests=\"" << std::max<size_t>(fs.size() + idle.size(), 1)
    << "\" failures=\"" << fresh + static_cast<int64_t>(idle.size()) << "\" skipped=\"" << fs.size() - fresh << "\">\n";
  for (const auto &m : idle) // a mode that checked almost nothing fails: the campaign is no evidence about it
    x << "  <testcase classname=\"vmapfuzz.mode\" name=\"" << xmlEscape(m.mode) << "\">\n    <failure message=\""
      << xmlEscape(describe(m)) << "\"/>\n  </testcase>\n";
  if (fs.empty() && idle.empty()) x << "  <testcase classname=\"vmapfuzz\" name=\"campaign: " << s.value("cases", 0) << " cases, no findings\"/>\n";
  for (const auto &f : fs) {
    x << "  <testcase classname=\"vmapfuzz." << xmlEscape(f.value("verdict", "")) << "\" name=\"" << xmlEscape(f.value("signature", "")) << "\">\n";
    if (f.value("new", false))
      x << "    <failure message=\"new finding, not filed in reports/\">" << xmlEscape(f.value("dir", "")) << "</failure>\n";
    else
      x << "    <skipped message=\"known: filed in " << xmlEscape(f.value("dir", "")) << "\"/>\n";
    x << "  </testcase>\n";
  }
  x << "</testsuite>\n";
  return x.str();
}

} // namespace vf
