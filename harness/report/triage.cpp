#include "harness/report/triage.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>

#include "harness/report/signature.h"
#include "harness/run/verdict.h"

namespace vf {

namespace {

std::vector<std::string> split(const std::string &s, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  for (size_t i = 0; i <= s.size(); ++i)
    if (i == s.size() || s[i] == sep) {
      out.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  return out;
}

std::vector<std::string> listOf(const std::string &commaList) {
  std::vector<std::string> out;
  for (auto &x : split(commaList, ','))
    if (!x.empty()) out.push_back(x);
  return out;
}

bool isVerdictName(const std::string &s) {
  if (s == kFailsThrough) return true; // a culprit key's (signature.h)
  for (int v = 0; v < kVerdictCount; ++v)
    if (verdictName(static_cast<Verdict>(v)) == s) return true;
  return false;
}

/// The words of an error message (normalised numbers are "N"): what two messages are compared by.
std::set<std::string> words(const std::string &message) {
  std::set<std::string> out;
  std::string w;
  for (char ch : message + " ") {
    if (std::isalnum(static_cast<unsigned char>(ch)) || ch == '_') {
      w += ch;
    } else {
      if (w.size() > 1) out.insert(w);
      w.clear();
    }
  }
  return out;
}

template <class T> double jaccard(const std::set<T> &a, const std::set<T> &b) {
  if (a.empty() && b.empty()) return 1;
  size_t common = 0;
  for (const auto &x : a) common += b.count(x);
  return static_cast<double>(common) / static_cast<double>(a.size() + b.size() - common);
}

std::set<std::string> setOf(const std::vector<std::string> &v) { return {v.begin(), v.end()}; }

std::string joined(const std::set<std::string> &xs) {
  std::string out;
  for (const auto &x : xs) out += (out.empty() ? "" : ", ") + x;
  return out;
}

std::set<std::string> minus(const std::set<std::string> &a, const std::set<std::string> &b) {
  std::set<std::string> out;
  for (const auto &x : a)
    if (!b.count(x)) out.insert(x);
  return out;
}

std::string percent(double x) { return std::to_string(static_cast<int>(std::lround(100 * x))) + "%"; }

/// Adds `what` to a "; "-separated sentence.
void add(std::string &sentence, const std::string &what) { sentence += (sentence.empty() ? "" : "; ") + what; }

Closeness compareErrors(const SignatureParts &a, const SignatureParts &b) {
  Closeness c;
  double score = 0;
  if (a.errorType == b.errorType) {
    score += 1;
    add(c.shares, "the same exception (" + a.errorType + ")");
  } else {
    add(c.differs, "another exception (" + b.errorType + " there, " + a.errorType + " here)");
  }
  if (!a.frame.empty() && a.frame == b.frame) {
    score += 2;
    add(c.shares, "raised at the same torch frame (" + a.frame + ")");
  } else if (!a.frame.empty() && !b.frame.empty()) {
    add(c.differs, "raised elsewhere (" + b.frame + " there, " + a.frame + " here)");
  }
  double m = jaccard(words(a.message), words(b.message));
  score += 3 * m;
  if (m == 1) add(c.shares, "the same message");
  else if (m > 0) add(c.differs, "the message differs (" + percent(m) + " of its words in common)");
  else add(c.differs, "the message has no word in common");
  c.score = score / 6;
  return c;
}

/// What two signatures' essential features share and what not, in `c`'s sentences; returns
/// their Jaccard similarity.
double compareFeatures(const SignatureParts &a, const SignatureParts &b, Closeness &c) {
  auto fa = setOf(a.features), fb = setOf(b.features);
  std::set<std::string> common;
  for (const auto &f : fa)
    if (fb.count(f)) common.insert(f);
  if (!common.empty()) add(c.shares, "the essential features " + joined(common));
  if (auto only = minus(fa, fb); !only.empty()) add(c.differs, "needs " + joined(only) + " only here");
  if (auto only = minus(fb, fa); !only.empty()) add(c.differs, "needs " + joined(only) + " only there");
  return jaccard(fa, fb);
}

/// Two failures through a batching rule (culpritKey): the same culprit counts half, what of its
/// input they need the other half.
Closeness compareFailsThrough(const SignatureParts &a, const SignatureParts &b) {
  Closeness c;
  c.score = (a.culprit == b.culprit ? 0.5 : 0.0) + 0.5 * compareFeatures(a, b, c);
  return c;
}

Closeness compareMismatches(const SignatureParts &a, const SignatureParts &b) {
  Closeness c;
  auto ca = setOf(a.constructs), cb = setOf(b.constructs);
  const double cons = jaccard(ca, cb);
  if (cons == 1) add(c.shares, ca.empty() ? "no construct" : "the same constructs (" + joined(ca) + ")");
  else add(c.differs, "other constructs (" + (cb.empty() ? std::string("none") : joined(cb)) + " there, " +
                          (ca.empty() ? std::string("none") : joined(ca)) + " here)");
  double score = 2 * cons + 3 * compareFeatures(a, b, c);
  auto kindOf = [](const std::string &k) { return k.substr(0, k.find(':')); };
  if (!a.kind.empty() && a.kind == b.kind) {
    score += 1;
    add(c.shares, "the same difference (" + a.kind + ")");
  } else if (!a.kind.empty() && !b.kind.empty()) {
    score += kindOf(a.kind) == kindOf(b.kind) ? 0.5 : 0;
    add(c.differs, "another difference (" + b.kind + " there, " + a.kind + " here)");
  }
  c.score = score / 6;
  return c;
}

} // namespace

SignatureParts parseSignature(const std::string &key) {
  SignatureParts p;
  auto f = split(key, '|');
  size_t v = 0;
  while (v < f.size() && !isVerdictName(f[v])) ++v;
  if (v == f.size()) { // not a signature of ours: everything is the message
    p.message = key;
    return p;
  }
  for (size_t i = 0; i < v; ++i) p.system += (i ? "|" : "") + f[i];
  p.verdict = f[v];
  std::vector<std::string> rest(f.begin() + static_cast<std::ptrdiff_t>(v) + 1, f.end());
  if (!rest.empty() && rest[0].rfind("culprit:", 0) == 0) {
    p.culprit = rest[0].substr(8);
    rest.erase(rest.begin());
  }
  if (p.verdict == kFailsThrough) { // "rules|DEVICE|fails|culprit:C|FEATURES"
    if (!rest.empty()) p.features = listOf(rest[0]);
    return p;
  }
  if (p.verdict == "mismatch") {
    if (!rest.empty()) p.constructs = listOf(rest[0]);
    if (rest.size() > 1) p.features = listOf(rest[1]);
    if (rest.size() > 2) p.kind = rest[2];
    return p;
  }
  // A culprit key's features come first ("" or "a,b,"; an exception's name is neither).
  if (!p.culprit.empty() && rest.size() > 3 && (rest[0].empty() || rest[0].back() == ',')) {
    p.features = listOf(rest[0]);
    rest.erase(rest.begin());
  }
  if (!rest.empty()) p.errorType = rest[0];
  if (rest.size() == 2) p.message = rest[1];
  if (rest.size() > 2) {
    for (size_t i = 1; i + 1 < rest.size(); ++i) p.message += (i > 1 ? "|" : "") + rest[i];
    p.frame = rest.back();
  }
  return p;
}

std::string rootCauseOf(const std::string &key) {
  SignatureParts p = parseSignature(key);
  if (p.verdict.empty()) return key;
  return key.substr(p.system.empty() ? 0 : p.system.size() + 1);
}

std::vector<Closeness> closestReports(const std::string &key,
                                      const std::vector<std::pair<std::string, std::string>> &filed, size_t n,
                                      double minScore) {
  SignatureParts a = parseSignature(key);
  std::vector<Closeness> out;
  for (const auto &[report, other] : filed) {
    if (other == key) continue;
    SignatureParts b = parseSignature(other);
    if (b.verdict != a.verdict || a.verdict.empty()) continue;
    Closeness c = a.verdict == kFailsThrough ? compareFailsThrough(a, b)
                  : a.verdict == "mismatch"  ? compareMismatches(a, b)
                                             : compareErrors(a, b);
    if (!a.culprit.empty() && a.culprit == b.culprit) add(c.shares, "the same culprit (" + a.culprit + ")");
    else if (!a.culprit.empty() && !b.culprit.empty()) add(c.differs, "another culprit (" + b.culprit + " there, " + a.culprit + " here)");
    if (a.system == b.system) add(c.shares, "the same mode and device (" + a.system + ")");
    else add(c.differs, "filed from " + b.system + ", met here in " + a.system);
    c.report = report;
    if (c.score >= minScore) out.push_back(c);
  }
  std::stable_sort(out.begin(), out.end(), [](const Closeness &x, const Closeness &y) { return x.score > y.score; });
  if (out.size() > n) out.resize(n);
  return out;
}

} // namespace vf
