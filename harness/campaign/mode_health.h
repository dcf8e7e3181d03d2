#pragma once
/// A mode that checks almost nothing: more than half of its runs ended `invalid` or
/// `unsupported` for one and the same reason (a torch that lacks what the mode calls, a program
/// shape its dynamo rejects). Its campaign is then no evidence about that mode: the summary says
/// so at its top, summary.json lists it under "idle_modes", and the nightly exits with the
/// environment's code rather than call the night green.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace vf {

/// Runs of one mode before it can be called idle: a short campaign says nothing either way.
inline constexpr int64_t kIdleModeMinRuns = 20;

struct IdleMode {
  std::string mode;   ///< "MODE|DEVICE"
  int64_t runs = 0;   ///< of that mode
  int64_t count = 0;  ///< of them, ended for `reason`
  std::string reason; ///< "invalid: ..." or "unsupported: ..." (numbers as N)
};

/// The key a run that checked nothing is counted under: "invalid: SUMMARY" or "unsupported:
/// SUMMARY", its numbers replaced by N and cut to 320 characters, so that one cause is one key.
std::string uncheckedReason(const std::string &verdict, const std::string &summary);

/// The idle modes of `runsByMode` (mode -> runs) and `reasonsByMode` (mode -> uncheckedReason ->
/// runs), most idle first.
std::vector<IdleMode> idleModes(const std::map<std::string, int64_t> &runsByMode,
                                const std::map<std::string, std::map<std::string, int64_t>> &reasonsByMode);

/// The same from a summary.json's "by_mode" and "unchecked_reasons" (a merged one's too).
std::vector<IdleMode> idleModes(const nlohmann::json &summary);

nlohmann::json toJson(const std::vector<IdleMode> &idle);
/// "mode X checks almost nothing: N of M runs were invalid: ..." for one idle mode.
std::string describe(const IdleMode &m);

} // namespace vf
