#include "harness/campaign/mode_health.h"

#include <algorithm>
#include <regex>

namespace vf {

std::string uncheckedReason(const std::string &verdict, const std::string &summary) {
  return verdict + ": " + std::regex_replace(summary.substr(0, 320), std::regex("[0-9]+"), "N");
}

std::vector<IdleMode> idleModes(const std::map<std::string, int64_t> &runsByMode,
                                const std::map<std::string, std::map<std::string, int64_t>> &reasonsByMode) {
  std::vector<IdleMode> idle;
  for (const auto &[mode, runs] : runsByMode) {
    auto it = reasonsByMode.find(mode);
    if (runs < kIdleModeMinRuns || it == reasonsByMode.end()) continue;
    IdleMode top{mode, runs, 0, ""};
    for (const auto &[reason, n] : it->second)
      if (n > top.count) top.count = n, top.reason = reason;
    if (2 * top.count > runs) idle.push_back(top);
  }
  std::sort(idle.begin(), idle.end(), [](const IdleMode &a, const IdleMode &b) {
    return a.count * b.runs != b.count * a.runs ? a.count * b.runs > b.count * a.runs : a.mode < b.mode;
  });
  return idle;
}

std::vector<IdleMode> idleModes(const nlohmann::json &summary) {
  std::map<std::string, int64_t> runs;
  std::map<std::string, std::map<std::string, int64_t>> reasons;
  const auto byMode = summary.value("by_mode", nlohmann::json::object());
  for (auto m = byMode.begin(); m != byMode.end(); ++m)
    for (auto v = m->begin(); v != m->end(); ++v) runs[m.key()] += v->get<int64_t>();
  const auto why = summary.value("unchecked_reasons", nlohmann::json::object());
  for (auto m = why.begin(); m != why.end(); ++m)
    for (auto r = m->begin(); r != m->end(); ++r) reasons[m.key()][r.key()] = r->get<int64_t>();
  return idleModes(runs, reasons);
}

nlohmann::json toJson(const std::vector<IdleMode> &idle) {
  nlohmann::json j = nlohmann::json::array();
  for (const auto &m : idle) j.push_back({{"mode", m.mode}, {"runs", m.runs}, {"count", m.count}, {"reason", m.reason}});
  return j;
}

std::string describe(const IdleMode &m) {
  return "mode " + m.mode + " checks almost nothing: " + std::to_string(m.count) + " of its " + std::to_string(m.runs) +
         " runs ended " + m.reason;
}

} // namespace vf
