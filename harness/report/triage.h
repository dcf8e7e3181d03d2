#pragma once
/// Triage of filed signatures (issue 16): which reports are one root cause seen in several modes,
/// and, for a new signature, which filed reports it is closest to and how it differs from them.
///
/// A signature key (signature.h) is "MODE|DEVICE|VERDICT|..." where the rest is, for an error,
/// "TYPE|MESSAGE|FRAME" and, for a mismatch, "CONSTRUCTS|FEATURES|KIND", each after a
/// "culprit:COMPONENT" field in a culprit signature (culpritKey); a finding localised to a
/// batching rule is "rules|DEVICE|fails|culprit:COMPONENT|FEATURES". Older keys (kept as aliases)
/// may lack the last fields: every field is optional here.
#include <string>
#include <vector>

namespace vf {

struct SignatureParts {
  std::string system;  ///< "eager|cpu": mode and device, as filed
  std::string verdict; ///< "mismatch", "batched-error", ..., "fails" (through a batching rule)
  std::string culprit; ///< a culprit signature's component ("hop:cond"), "" in an ablation signature
  // An error's parts.
  std::string errorType, message, frame;
  // A mismatch's parts (features: an error's too, in a culprit key).
  std::vector<std::string> constructs, features;
  std::string kind; ///< "values:all", "shape:some", ...
};

/// Splits a signature key into its parts (see above).
SignatureParts parseSignature(const std::string &key);

/// The root cause a signature stands for: the key without its mode and device, so the same bug
/// met in direct mode, eager and under inductor is one root cause filed as several reports.
std::string rootCauseOf(const std::string &key);

/// How close a filed report is to a new signature, and in words what they share and what not.
struct Closeness {
  std::string report;  ///< the filed folder's name
  double score = 0;    ///< 0 (nothing in common) .. 1 (the same root cause)
  std::string shares;  ///< "the same exception (AssertionError), raised at the same frame ..."
  std::string differs; ///< "the message differs (40% of its words in common)"
};

/// The filed signatures (report name, key) closest to `key`, best first: at most `n`, each with
/// a score of at least `minScore`. Only reports of the same verdict are compared.
std::vector<Closeness> closestReports(const std::string &key,
                                      const std::vector<std::pair<std::string, std::string>> &filed, size_t n = 3,
                                      double minScore = 0.25);

} // namespace vf
