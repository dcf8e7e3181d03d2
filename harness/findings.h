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
/// the constructs and batch-spec features of the case.
std::string signatureOf(const Case &c, const CaseResult &r);

struct FindingRecord {
  std::string dir;
  int hits = 0;
  bool isNew = false;
};

class FindingStore {
public:
  explicit FindingStore(std::string outDir);
  /// Records a finding; writes its folder the first time its signature is seen.
  FindingRecord record(const Case &c, const CaseResult &r, const std::string &reproduceLine);
  size_t unique() const { return seen_.size(); }
  const std::map<std::string, FindingRecord> &all() const { return seen_; }

private:
  std::string out_;
  std::map<std::string, FindingRecord> seen_;
};

/// Writes `text` to `path` atomically (temporary file, then rename).
void writeFileAtomic(const std::string &path, const std::string &text);

} // namespace vf
