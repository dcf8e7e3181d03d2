#pragma once
/// Construct coverage: which constructs and batch-spec features a case exercises.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "ir/program.h"

namespace vf {

/// Feature names a case exercises, e.g. "cond", "capture", "in_dims<0", "vmap-levels=2".
std::vector<std::string> featuresOf(const Case &c);

/// Counts of cases per feature, in a stable order.
class Coverage {
public:
  void add(const Case &c);
  const std::map<std::string, int64_t> &counts() const { return counts_; }
  /// The rows every campaign reports, so that a zero shows up as a zero.
  static const std::vector<std::string> &rows();
  /// "cond:12 capture:5 ..." for the progress line.
  std::string brief() const;

private:
  std::map<std::string, int64_t> counts_;
};

} // namespace vf
