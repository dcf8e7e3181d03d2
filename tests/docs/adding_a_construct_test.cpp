// docs/adding-a-construct-or-backend.md lists every file that adding a construct touches: the
// list is checked against the source tree, so it cannot drift from the code.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

namespace fs = std::filesystem;

namespace {

const fs::path kRoot = VMAPFUZZ_SOURCE_DIR;

std::string slurp(const fs::path &p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// The files named in the first column of the construct section's table.
std::set<std::string> listedFiles() {
  const std::string doc = slurp(kRoot / "docs/adding-a-construct-or-backend.md");
  const size_t from = doc.find("## A control-flow construct"), to = doc.find("## A backend");
  EXPECT_NE(from, std::string::npos);
  std::set<std::string> files;
  std::istringstream lines(doc.substr(from, to - from));
  static const std::regex cell("`([^`]+)`");
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("| `", 0) != 0) continue;
    std::string first = line.substr(1, line.find('|', 1) - 1);
    for (std::sregex_iterator it(first.begin(), first.end(), cell), end; it != end; ++it) files.insert((*it)[1].str());
  }
  return files;
}

} // namespace

TEST(AddingAConstruct, EveryListedFileExists) {
  const auto files = listedFiles();
  EXPECT_GE(files.size(), 10u);
  for (const auto &f : files) EXPECT_TRUE(fs::exists(kRoot / f)) << f << " is listed but does not exist";
}

TEST(AddingAConstruct, EverySourceFileThatNamesAConstructKindIsListed) {
  const auto files = listedFiles();
  for (const char *layer : {"ir", "generators", "oracles", "harness"})
    for (const auto &e : fs::recursive_directory_iterator(kRoot / layer)) {
      const std::string ext = e.path().extension().string();
      if (!e.is_regular_file() || (ext != ".cpp" && ext != ".h" && ext != ".hpp")) continue;
      if (slurp(e.path()).find("ConstructKind::") == std::string::npos) continue;
      const std::string rel = fs::relative(e.path(), kRoot).string();
      EXPECT_TRUE(files.count(rel)) << rel << " names a ConstructKind but docs/adding-a-construct-or-backend.md does not list it";
    }
}
