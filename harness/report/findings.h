#pragma once
/// Files findings: one folder per signature under a reports directory, with the shrunk case,
/// the emitted Python, a standalone repro.py, report.md (ready to paste as an issue), result.txt
/// and meta.json. Signatures already filed there (by this or an earlier campaign) only get
/// their hit count and last-seen updated. Every write is atomic.
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "harness/run/verdict.h"
#include "ir/program.h"

namespace vf {

/// What identifies a bug: mode and device class, verdict, exception type and normalised
/// message, or for a mismatch the constructs of the case. Errors keep their signature while
/// shrinking; a mismatch is shrunk as "still a mismatch" and named by its shrunk case. It names
/// nothing that shrinking removes on purpose, such as a second vmap level.
std::string signatureOf(const Case &c, const CaseResult &r);
/// Shrinking keeps a candidate when it fails as the case did: the same verdict and, except for
/// a mismatch (whose constructs may go), the same signature.
bool failsTheSameWay(Verdict verdict, const std::string &signature, const Case &candidate, const CaseResult &now);

struct FindingRecord {
  std::string dir;
  std::string signature;
  int64_t hits = 0;      ///< over every campaign that filed into this directory
  int64_t hitsNow = 0;   ///< in this campaign
  bool isNew = false;    ///< filed by this campaign
  /// For a new finding: "confirmed" when its repro.py, run alone in a fresh python, fails as
  /// reported; "not reproduced" when it passes there; "" when not checked.
  std::string standalone;
};

struct StoreOptions {
  std::string confirmPython;     ///< python that runs each new repro.py alone ("" = don't)
  std::string corpusDir;         ///< where each new shrunk case is also copied ("" = nowhere)
  nlohmann::json environment;    ///< torch/python/device facts for report.md and meta.json
};

class FindingStore {
public:
  /// Loads the signatures already filed under `reportsDir` (from each folder's meta.json).
  explicit FindingStore(std::string reportsDir, StoreOptions opt = {});
  /// Records a finding: files it the first time its signature is seen, else counts the hit.
  /// `signature`: "" computes it from the case.
  FindingRecord record(const Case &c, const CaseResult &r, const std::string &reproduceLine,
                       const std::string &shrinkNote = "", const std::string &signature = "");
  /// True when a finding with this signature is filed already.
  bool known(const std::string &sig) const { return seen_.count(sig) > 0; }
  /// Signatures seen by this campaign (new or already filed).
  size_t unique() const;
  /// Signatures this campaign filed for the first time.
  size_t newCount() const;
  const std::map<std::string, FindingRecord> &all() const { return seen_; }

private:
  std::string dir_;
  StoreOptions opt_;
  std::map<std::string, FindingRecord> seen_;
};

/// Writes `text` to `path` atomically (temporary file, then rename).
void writeFileAtomic(const std::string &path, const std::string &text);
/// The current UTC time as ISO 8601.
std::string nowUtc();

} // namespace vf
