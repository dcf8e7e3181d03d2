#include "harness/cli/case_files.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "generators/choices.h"
#include "harness/cli/cli.h"
#include "ir/text.h"
#include "ir/validate.h"

namespace vf::cli {

std::string readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UsageError(path + ": cannot read file");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

Case loadCase(const std::string &path, bool bytes, const GenPolicy &policy) {
  std::string text = readFile(path);
  // libFuzzer names its artifacts <kind>-<sha1>; they hold the bytes fuzz_case decoded.
  std::string base = std::filesystem::path(path).filename().string();
  for (const char *kind : {"crash-", "timeout-", "oom-", "leak-", "slow-unit-"})
    if (base.rfind(kind, 0) == 0) bytes = true;
  if (bytes) return caseFromBytes(reinterpret_cast<const uint8_t *>(text.data()), text.size(), policy);
  Case c;
  try {
    c = parseCase(text);
  } catch (const ParseError &e) {
    throw UsageError(path + ":" + std::to_string(e.line) + ":" + std::to_string(e.col) + ": error: " + e.what());
  }
  std::string err = validateCase(c);
  if (!err.empty()) throw UsageError(path + ": invalid case: " + err);
  return c;
}

std::vector<std::string> expandCaseFiles(const std::vector<std::string> &args) {
  std::vector<std::string> files;
  for (const auto &a : args) {
    if (!std::filesystem::is_directory(a)) {
      files.push_back(a);
      continue;
    }
    std::vector<std::string> found;
    for (const auto &e : std::filesystem::recursive_directory_iterator(a))
      if (e.is_regular_file() && e.path().extension() == ".vf") found.push_back(e.path().string());
    if (found.empty()) throw UsageError(a + ": no .vf case files in this directory");
    std::sort(found.begin(), found.end());
    files.insert(files.end(), found.begin(), found.end());
  }
  return files;
}

std::vector<Case> loadCases(const std::vector<std::string> &args) {
  std::vector<Case> cases;
  for (const auto &p : expandCaseFiles(args)) cases.push_back(loadCase(p));
  return cases;
}

} // namespace vf::cli
