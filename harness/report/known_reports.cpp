#include "harness/report/known_reports.h"

#include <filesystem>
#include <fstream>
#include <iomanip>

#include "harness/report/filed_reports.h"
#include "harness/report/findings.h"

namespace fs = std::filesystem;

namespace vf {

KnownReports::KnownReports(const std::string &dir, std::string shownAs) : shownAs_(std::move(shownAs)) {
  for (const auto &r : loadReports(dir)) {
    const std::string folder = fs::path(r.dir).filename().string();
    const std::string sig = r.meta.at("signature").get<std::string>();
    ++folders_;
    signatureOf_[folder] = sig;
    folderOf_[sig] = folder;
    if (auto a = r.meta.find("aliases"); a != r.meta.end() && a->is_array())
      for (const auto &alias : *a)
        if (alias.is_string()) folderOf_.emplace(alias.get<std::string>(), folder); // a folder's own signature wins
  }
}

std::optional<std::string> KnownReports::find(const std::string &signature) const {
  auto it = folderOf_.find(signature);
  if (it == folderOf_.end()) return std::nullopt;
  return shownAs_ + "/" + it->second;
}

std::string KnownReports::filedUnder(const std::string &signature) const {
  auto it = folderOf_.find(signature);
  if (it == folderOf_.end()) return signature;
  auto s = signatureOf_.find(it->second);
  return s == signatureOf_.end() ? signature : s->second;
}

std::optional<std::string> KnownReports::hit(const std::string &signature, const std::string &verdict,
                                             const std::string &system) {
  auto it = folderOf_.find(signature);
  if (it == folderOf_.end()) return std::nullopt;
  std::lock_guard<std::mutex> g(mu_);
  KnownHit &h = hits_[it->second];
  if (h.hits++ > 0) return std::string();
  h.signature = signatureOf_.at(it->second);
  h.verdict = verdict;
  h.system = system;
  return "known: " + shownAs_ + "/" + it->second + " (" + verdict + " in " + system +
         "; filed there already: counted, not shrunk or filed again)";
}

std::map<std::string, KnownHit> KnownReports::hits() const {
  std::lock_guard<std::mutex> g(mu_);
  return hits_;
}

int64_t KnownReports::totalHits() const {
  int64_t n = 0;
  for (const auto &[folder, h] : hits()) n += h.hits;
  return n;
}

nlohmann::json KnownReports::json() const {
  nlohmann::json j = {{"known", shownAs_}, {"folders", nlohmann::json::object()}};
  for (const auto &[folder, h] : hits())
    j["folders"][folder] = {{"signature", h.signature}, {"verdict", h.verdict}, {"system", h.system}, {"hits", h.hits}};
  return j;
}

void KnownReports::save(const std::string &path) const {
  nlohmann::json j;
  if (std::ifstream in(path); in) j = nlohmann::json::parse(in, nullptr, false);
  if (!j.is_object()) j = nlohmann::json::object();
  j["known"] = shownAs_;
  if (!j["folders"].is_object()) j["folders"] = nlohmann::json::object();
  const std::string now = nowUtc();
  for (const auto &[folder, h] : hits()) {
    auto &f = j["folders"][folder];
    if (!f.is_object()) f = nlohmann::json::object();
    f["signature"] = h.signature;
    f["hits"] = f.value("hits", int64_t{0}) + h.hits;
    f["last_seen"] = now;
  }
  if (auto parent = fs::path(path).parent_path(); !parent.empty()) fs::create_directories(parent);
  writeFileAtomic(path, j.dump(2) + "\n");
}

void printKnown(const KnownReports &known, std::ostream &os) {
  auto hits = known.hits();
  if (hits.empty()) return;
  os << "known (filed in " << known.shownAs() << "/ already; not filed again, and not counted in the exit code): "
     << hits.size() << " signatures, " << known.totalHits() << " hits\n";
  for (const auto &[folder, h] : hits)
    os << "  known " << h.hits << "x " << h.signature << "\n     known: " << known.shownAs() << "/" << folder << "\n";
}

namespace {

/// `p` made absolute and normal, symbolic links resolved where it exists.
fs::path normal(const std::string &p) {
  std::error_code ec;
  fs::path w = fs::weakly_canonical(fs::absolute(p), ec);
  return ec ? fs::absolute(p).lexically_normal() : w;
}

/// Whether `inner` is `outer` or below it.
bool within(const fs::path &inner, const fs::path &outer) {
  auto rel = inner.lexically_relative(outer);
  return !rel.empty() && *rel.begin() != "..";
}

} // namespace

std::string defaultKnownDir(const std::string &sourceDir, const std::string &cwd) {
  if (sourceDir.empty()) return "";
  const fs::path src = normal(sourceDir);
  const fs::path reports = src / "reports";
  if (!within(normal(cwd), src) || !fs::is_directory(reports)) return "";
  return reports.string();
}

std::string shownName(const std::string &dir, const std::string &cwd) {
  const fs::path d = normal(dir), here = normal(cwd);
  if (d == here) return ".";
  return within(d, here) ? d.lexically_relative(here).string() : dir;
}

} // namespace vf
