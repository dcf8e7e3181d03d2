#include "harness/report/filed_reports.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <sys/wait.h>

#include "harness/backends/system_id.h"
#include "harness/report/culprit.h"
#include "harness/report/findings.h"
#include "harness/report/step_around.h"

namespace fs = std::filesystem;

namespace vf {

namespace {

std::string quote(const std::string &s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

/// Runs a shell command; returns its exit code (or -1) and its stdout.
int runCommand(const std::string &cmd, std::string &out) {
  FILE *p = popen(cmd.c_str(), "r");
  if (!p) return -1;
  std::array<char, 4096> buf{};
  while (size_t n = fread(buf.data(), 1, buf.size(), p)) out.append(buf.data(), n);
  int st = pclose(p);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/// Writes the `keys` of r.meta into its meta.json as it is on disk now, under the reports' lock
/// (a campaign may be counting hits in it meanwhile), and reads the result back into r.meta.
void saveMeta(FiledReport &r, std::initializer_list<const char *> keys) {
  ReportsLock lock(fs::path(r.dir).parent_path().string());
  r.meta = updateMeta(lock, r.dir, [&](nlohmann::json &meta) {
    for (const char *k : keys) meta[k] = r.meta[k];
  });
}

} // namespace

std::string xmlEscape(const std::string &s) {
  std::string o;
  for (char c : s) {
    switch (c) {
    case '<': o += "&lt;"; break;
    case '>': o += "&gt;"; break;
    case '&': o += "&amp;"; break;
    case '"': o += "&quot;"; break;
    default:
      if (static_cast<unsigned char>(c) >= 0x20 || c == '\n' || c == '\t') o += c;
    }
  }
  return o;
}

std::vector<FiledReport> loadReports(const std::string &dir) {
  if (!fs::is_directory(dir)) throw std::invalid_argument(dir + ": not a directory of reports");
  std::vector<FiledReport> out;
  for (const auto &e : fs::directory_iterator(dir)) {
    auto meta = e.path() / "meta.json";
    if (e.path().filename().string().starts_with(".") || !fs::exists(meta)) continue; // a folder being filed
    std::ifstream in(meta);
    auto j = nlohmann::json::parse(in, nullptr, false);
    if (j.is_discarded() || !j.is_object() || !j.contains("signature"))
      throw std::invalid_argument(meta.string() + ": not a vmapfuzz meta.json");
    out.push_back({e.path().string(), j});
  }
  std::sort(out.begin(), out.end(), [](auto &a, auto &b) { return a.dir < b.dir; });
  return out;
}

int recheckReports(std::vector<FiledReport> &reports, const std::string &python, const std::string &torchVersion,
                   std::ostream &log) {
  int open = 0;
  for (auto &r : reports) {
    std::string out;
    int code = runCommand("cd " + quote(r.dir) + " && timeout 600 " + quote(python) + " repro.py 2>&1", out);
    std::string status = code == 1 ? "open" : code == 0 ? "fixed" : "error";
    open += status == "open";
    r.meta["status"] = status;
    r.meta["last_checked"] = nowUtc();
    r.meta["checked_with_torch"] = torchVersion;
    // How a campaign steps around this bug (look-behind), from its signature and this harness's
    // step-arounds: kept current as they change.
    r.meta["step_around"] = stepAroundJson(r.meta.value("signature", ""));
    saveMeta(r, {"status", "last_checked", "checked_with_torch", "step_around"});
    log << (status == "open" ? "OPEN  " : status == "fixed" ? "FIXED " : "ERROR ") << fs::path(r.dir).filename().string()
        << "  " << r.meta.value("title", "") << "\n";
  }
  return open;
}

namespace {

/// One root cause (triage.h) as a table cell: what it is, without mode and device.
std::string rootCauseText(const SignatureParts &p) {
  std::string t, feats;
  for (const auto &f : p.features) feats += (feats.empty() ? "" : ", ") + f;
  const std::string needs = feats.empty() ? "" : "; needs " + feats;
  if (p.verdict == kFailsThrough) { // through a batching rule: silent or raising, one root cause
    t = "`" + p.culprit + "` gives a wrong result" + needs;
  } else if (p.verdict == "mismatch") {
    std::string cons;
    for (const auto &c : p.constructs) cons += (cons.empty() ? "" : ", ") + c;
    // A culprit key names no constructs: the culprit says where.
    const std::string what = !p.culprit.empty() ? "`" + p.culprit + "`" : cons.empty() ? std::string("no construct") : cons;
    t = what + needs + (p.kind.empty() ? "" : "; " + p.kind);
  } else if (!p.culprit.empty() && p.errorType == "error") { // a culprit key's class (signature.h)
    t = "`" + p.culprit + "`" + (p.frame == "elsewhere" ? " hands on a wrong value and something after it raises"
                                                        : " raises in " + p.frame) + needs;
  } else {
    t = p.errorType + (p.frame.empty() ? "" : " at " + p.frame) + (p.message.empty() ? "" : ": " + p.message) + needs;
  }
  if (t.size() > 160) t = t.substr(0, 157) + "...";
  for (auto &ch : t)
    if (ch == '|' || ch == '\n') ch = ' ';
  return t;
}

} // namespace

std::vector<RootCause> groupByRootCause(const std::vector<FiledReport> &reports) {
  std::vector<RootCause> out;
  std::map<std::string, size_t> index;
  for (const auto &r : reports) {
    std::string sig = r.meta.value("signature", "");
    SignatureParts parts = parseSignature(sig);
    std::string key = rootCauseOf(sig);
    auto [it, fresh] = index.emplace(key, out.size());
    if (fresh) {
      RootCause g;
      g.key = key;
      g.parts = parts;
      out.push_back(g);
    }
    RootCause &g = out[it->second];
    g.reports.push_back(fs::path(r.dir).filename().string());
    const std::string &system = parts.system;
    if (std::find(g.systems.begin(), g.systems.end(), system) == g.systems.end()) g.systems.push_back(system);
    g.hits += r.meta.value("hits", int64_t{0});
    g.open |= r.meta.value("status", "open") == "open";
  }
  std::stable_sort(out.begin(), out.end(), [](const RootCause &a, const RootCause &b) { return a.hits > b.hits; });
  return out;
}

std::vector<CulpritGroup> groupByCulprit(const std::vector<FiledReport> &reports) {
  std::vector<CulpritGroup> out;
  std::map<std::string, size_t> index;
  std::map<std::string, std::set<std::string>> causes;
  for (const auto &r : reports) {
    const std::string sig = r.meta.value("signature", "");
    std::string culprit = parseSignature(sig).culprit;
    if (culprit.empty() && r.meta.contains("culprits") && r.meta["culprits"].value("culprit", nlohmann::json()).is_string())
      culprit = r.meta["culprits"]["culprit"].get<std::string>();
    auto [it, fresh] = index.emplace(culprit, out.size());
    if (fresh) out.push_back(CulpritGroup{culprit, {}, 0, 0, 0});
    CulpritGroup &g = out[it->second];
    g.reports.push_back(fs::path(r.dir).filename().string());
    g.hits += r.meta.value("hits", int64_t{0});
    g.open += r.meta.value("status", "open") == "open";
    causes[culprit].insert(rootCauseOf(sig));
  }
  for (auto &g : out) g.rootCauses = causes[g.culprit].size();
  std::stable_sort(out.begin(), out.end(), [](const CulpritGroup &a, const CulpritGroup &b) {
    if (a.culprit.empty() != b.culprit.empty()) return b.culprit.empty();
    return a.hits > b.hits;
  });
  return out;
}

namespace {

void culpritTable(std::ostream &md, const std::vector<FiledReport> &reports) {
  const auto groups = groupByCulprit(reports);
  md << "## Reports per culprit\n\nThe component of torch's batching whose per-example loop makes each report's case "
        "pass, found by experiment.\n\n";
  md << "| culprit | what it is | root causes | reports | open | hits |\n| --- | --- | ---: | --- | ---: | ---: |\n";
  for (const auto &g : groups) {
    std::string folders;
    for (const auto &x : g.reports) folders += (folders.empty() ? "" : ", ") + ("`" + x + "`");
    md << "| " << (g.culprit.empty() ? "(not localised)" : "`" + g.culprit + "`") << " | "
       << (g.culprit.empty() ? "no single component: see each report's ablation" : describeComponent(g.culprit)) << " | "
       << g.rootCauses << " | " << folders << " | " << g.open << " | " << g.hits << " |\n";
  }
  md << "\n";
}

} // namespace

std::string reportsMarkdown(const std::vector<FiledReport> &reports) {
  std::ostringstream md;
  int open = 0, fixed = 0;
  for (const auto &r : reports) {
    std::string s = r.meta.value("status", "open");
    open += s == "open";
    fixed += s == "fixed";
  }
  md << "# vmapfuzz reports\n\n" << reports.size() << " filed: " << open << " open, " << fixed << " fixed.\n\n";
  culpritTable(md, reports);
  // Then hits per root cause, a root cause met in several modes being one row.
  auto causes = groupByRootCause(reports);
  md << "## Hits per root cause\n\n" << causes.size() << " root cause(s) in " << reports.size() << " report(s).\n\n";
  md << "| hits | verdict | root cause | modes | reports | open |\n| --- | --- | --- | --- | --- | --- |\n";
  for (const auto &g : causes) {
    std::string systems, folders;
    for (const auto &x : g.systems) { // "eager (cpu)": a '|' would end the table cell
      auto id = SystemId::parse(x);
      systems += (systems.empty() ? "" : ", ") + (id ? id->display() : x);
    }
    for (const auto &x : g.reports) folders += (folders.empty() ? "" : ", ") + ("`" + x + "`");
    md << "| " << g.hits << " | " << g.parts.verdict << " | " << rootCauseText(g.parts) << " | " << systems << " | "
       << folders << " | " << (g.open ? "yes" : "no") << " |\n";
  }
  md << "\n## Reports\n\n";
  // Each report's nearest other root cause: a pair alike at 75% or more is worth a look (one
  // root cause filed twice?).
  std::vector<std::pair<std::string, std::string>> filed;
  std::vector<std::string> causeOf; // each report's root cause, computed once
  for (const auto &r : reports) {
    filed.emplace_back(fs::path(r.dir).filename().string(), r.meta.value("signature", ""));
    causeOf.push_back(rootCauseOf(filed.back().second));
  }
  md << "| status | verdict | hits | title | folder | closest other report |\n| --- | --- | --- | --- | --- | --- |\n";
  for (size_t i = 0; i < reports.size(); ++i) {
    const auto &r = reports[i];
    std::string sig = filed[i].second, closest;
    std::vector<std::pair<std::string, std::string>> others;
    for (size_t k = 0; k < filed.size(); ++k)
      if (causeOf[k] != causeOf[i]) others.push_back(filed[k]);
    if (auto c = closestReports(sig, others, 1, 0.5); !c.empty())
      closest = "`" + c[0].report + "` (" + std::to_string(static_cast<int>(c[0].score * 100 + 0.5)) + "% alike" +
                (c[0].score >= 0.75 ? ", worth a look" : "") + ")";
    md << "| " << r.meta.value("status", "open") << " | " << r.meta.value("verdict", "?") << " | "
       << r.meta.value("hits", 0) << " | " << r.meta.value("title", "") << " | `" << fs::path(r.dir).filename().string()
       << "` | " << closest << " |\n";
  }
  return md.str();
}

std::string reportsJUnit(const std::vector<FiledReport> &reports) {
  int failures = 0;
  for (const auto &r : reports) failures += r.meta.value("status", "open") == "open";
  std::ostringstream x;
  x << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuite name=\"vmapfuzz\" tests=\"" << reports.size()
    << "\" failures=\"" << failures << "\">\n";
  for (const auto &r : reports) {
    std::string name = fs::path(r.dir).filename().string();
    x << "  <testcase classname=\"vmapfuzz." << xmlEscape(r.meta.value("verdict", "finding")) << "\" name=\"" << xmlEscape(name)
      << "\">";
    if (r.meta.value("status", "open") == "open")
      x << "\n    <failure message=\"" << xmlEscape(r.meta.value("title", "")) << "\">"
        << xmlEscape(r.meta.value("summary", "") + "\nreproduce: " + r.meta.value("reproduce", "")) << "</failure>\n  ";
    x << "</testcase>\n";
  }
  x << "</testsuite>\n";
  return x.str();
}

int fileIssues(std::vector<FiledReport> &reports, const std::string &gh, std::ostream &log) {
  int filed = 0;
  for (auto &r : reports) {
    if (r.meta.value("status", "open") != "open" || r.meta.contains("issue_url")) continue;
    std::string out;
    int code = runCommand(quote(gh) + " issue create --title " + quote(r.meta.value("title", "vmapfuzz finding")) +
                              " --body-file " + quote(r.dir + "/report.md") + " --label vmapfuzz",
                          out);
    if (code != 0) throw std::runtime_error("gh issue create failed (exit " + std::to_string(code) + ") for " + r.dir);
    std::string url = out.substr(0, out.find('\n'));
    r.meta["issue_url"] = url;
    saveMeta(r, {"issue_url"});
    log << "filed " << fs::path(r.dir).filename().string() << ": " << url << "\n";
    ++filed;
  }
  return filed;
}

} // namespace vf
