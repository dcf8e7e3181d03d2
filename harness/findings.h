#pragma once
/// Writes findings to an output folder, one folder per signature: the case in the text format,
/// the emitted Python, a standalone repro.py and both results. Later hits of a known signature
/// only bump its count.
#include <map>
#include <string>

#include "harness/verdict.h"
#include "ir/program.h"

namespace vf {

/// What identifies a bug: verdict, exception type and normalised message, or for a mismatch
/// the constructs of the case. It must survive shrinking (the shrinker keeps it fixed), so it
/// names nothing that shrinking removes on purpose, such as a second vmap level.
std::string signatureOf(const Case &c, const CaseResult &r);

struct FindingRecord {
  std::string dir;
  int hits = 0;
  bool isNew = false;
  /// For a new finding: "confirmed" when its repro.py, run alone in a fresh python, fails as
  /// reported; "not reproduced" when it passes there; "" when not checked.
  std::string standalone;
};

class FindingStore {
public:
  /// `confirmPython`: a python with torch that runs each new repro.py alone to confirm it
  /// (empty: no confirmation, e.g. while faults are planted in the worker only).
  explicit FindingStore(std::string outDir, std::string confirmPython = "");
  /// Records a finding; writes its folder the first time its signature is seen.
  FindingRecord record(const Case &c, const CaseResult &r, const std::string &reproduceLine,
                       const std::string &shrinkNote = "");
  size_t unique() const { return seen_.size(); }
  /// True when a finding with this signature was recorded already.
  bool known(const std::string &sig) const { return seen_.count(sig) > 0; }
  const std::map<std::string, FindingRecord> &all() const { return seen_; }

private:
  std::string out_, python_;
  std::map<std::string, FindingRecord> seen_;
};

/// Writes `text` to `path` atomically (temporary file, then rename).
void writeFileAtomic(const std::string &path, const std::string &text);

} // namespace vf
