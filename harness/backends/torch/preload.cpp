#include "harness/backends/torch/preload.h"

#include <filesystem>
#include <map>

namespace vf {

std::vector<Preload> preloadsFromJson(const nlohmann::json &list) {
  std::vector<Preload> out;
  if (!list.is_array()) return out;
  for (const auto &p : list) out.push_back({p.value("path", ""), p.value("sha256", "")});
  return out;
}

std::vector<Preload> preloadsOf(const nlohmann::json &environment) {
  return environment.is_object() && environment.contains("preload") ? preloadsFromJson(environment["preload"])
                                                                    : std::vector<Preload>{};
}

nlohmann::json preloadsToJson(const std::vector<Preload> &preloads) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto &p : preloads) list.push_back({{"path", p.path}, {"sha256", p.sha256}});
  return list;
}

std::vector<std::string> preloadFileNames(const std::vector<Preload> &preloads) {
  std::map<std::string, int> count;
  std::vector<std::string> names;
  for (const auto &p : preloads) names.push_back(std::filesystem::path(p.path).filename().string());
  for (const auto &n : names) count[n]++;
  for (size_t i = 0; i < names.size(); ++i)
    if (count[names[i]] > 1) names[i] = std::to_string(i) + "-" + names[i];
  return names;
}

} // namespace vf
