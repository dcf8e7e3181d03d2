#include "harness/findings.h"

#include <cstdlib>
#include <filesystem>
#include <sys/wait.h>
#include <fstream>
#include <functional>
#include <regex>
#include <sstream>

#include "generators/data.h"
#include "harness/python_emit.h"
#include "ir/text.h"
#include "oracles/compare.h"

namespace fs = std::filesystem;

namespace vf {

namespace {

std::string hex8(const std::string &s) {
  // FNV-1a: stable across runs and platforms (std::hash is not).
  uint64_t h = 1469598103934665603ULL;
  for (unsigned char ch : s) h = (h ^ ch) * 1099511628211ULL;
  char buf[17];
  snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return std::string(buf, 8);
}

void constructs(const Block &b, std::map<std::string, int> &seen) {
  for (const auto &s : b.stmts) {
    if (!s.regions.empty()) seen[s.op + (s.results.size() > 1 ? "-multi" : "")]++;
    for (const auto &r : s.regions) constructs(r, seen);
  }
}

std::string normalise(const std::string &msg) {
  std::string first = errorGist(msg);
  first = std::regex_replace(first, std::regex("0x[0-9a-fA-F]+"), "ADDR");
  first = std::regex_replace(first, std::regex("[0-9]+"), "N");
  return first.substr(0, 240);
}

} // namespace

std::string signatureOf(const Case &c, const CaseResult &r) {
  std::string sig(verdictName(r.verdict));
  if (r.verdict == Verdict::Mismatch) {
    std::map<std::string, int> seen;
    constructs(c.program.body, seen);
    sig += "|";
    for (const auto &[k, v] : seen) sig += k + ",";
  } else {
    sig += "|" + r.errorType + "|" + normalise(r.errorMessage);
  }
  return sig;
}

void writeFileAtomic(const std::string &path, const std::string &text) {
  std::string tmp = path + ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    f << text;
    if (!f) throw std::runtime_error("cannot write " + tmp);
  }
  fs::rename(tmp, path);
}

FindingStore::FindingStore(std::string outDir, std::string confirmPython)
    : out_(std::move(outDir)), python_(std::move(confirmPython)) {}

namespace {
/// Runs repro.py alone; its exit status says whether the disagreement shows without vmapfuzz.
std::string confirmStandalone(const std::string &python, const std::string &dir) {
  std::string cmd = "cd '" + dir + "' && timeout 600 '" + python + "' repro.py > repro.out 2>&1";
  int st = std::system(cmd.c_str());
  if (st == -1 || !WIFEXITED(st)) return "not checked";
  int code = WEXITSTATUS(st);
  return code == 1 ? "confirmed" : code == 0 ? "not reproduced" : "not checked (repro.py exited " + std::to_string(code) + ")";
}
} // namespace

FindingRecord FindingStore::record(const Case &c, const CaseResult &r, const std::string &reproduceLine,
                                   const std::string &shrinkNote) {
  std::string sig = signatureOf(c, r);
  auto &rec = seen_[sig];
  rec.hits++;
  rec.isNew = rec.hits == 1;
  if (!rec.isNew) return rec;
  rec.dir = out_ + "/" + std::string(verdictName(r.verdict)) + "-" + hex8(sig);
  fs::create_directories(rec.dir);
  writeFileAtomic(rec.dir + "/case.vf", printCase(c));
  writeFileAtomic(rec.dir + "/program.py", emitModule(c));
  std::ostringstream head;
  head << "vmapfuzz finding: " << verdictName(r.verdict) << "\n" << r.summary << "\nreproduce: " << reproduceLine;
  writeFileAtomic(rec.dir + "/repro.py", emitRepro(c, makeInputs(c), head.str()));
  std::ostringstream res;
  res << "verdict: " << verdictName(r.verdict) << "\nsignature: " << sig << "\nsummary: " << r.summary
      << "\nreproduce: " << reproduceLine << "\n";
  if (!shrinkNote.empty()) res << "shrinking: " << shrinkNote << "\n";
  res << "\n";
  res << "expected (each example alone, reference interpreter):\n";
  for (size_t i = 0; i < r.expected.size(); ++i) res << "  output " << i << ": " << describeTensor(r.expected[i]) << "\n";
  res << "actual (torch.vmap):\n";
  if (!r.errorType.empty()) res << "  raised " << r.errorType << ": " << r.errorMessage << "\n";
  for (size_t i = 0; i < r.actual.size(); ++i) res << "  output " << i << ": " << describeTensor(r.actual[i]) << "\n";
  if (!r.traceback.empty()) res << "\ntraceback / worker stderr:\n" << r.traceback << "\n";
  if (!python_.empty()) {
    rec.standalone = confirmStandalone(python_, rec.dir);
    res << "\nstandalone repro.py (fresh python, only torch): " << rec.standalone << "\n";
  }
  writeFileAtomic(rec.dir + "/result.txt", res.str());
  return rec;
}

} // namespace vf
