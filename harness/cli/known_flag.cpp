#include "harness/cli/known_flag.h"

#include <filesystem>

namespace fs = std::filesystem;

namespace vf::cli {

void addKnownFlag(CLI::App &cmd, std::string &known) {
  flag(cmd, "--known", known,
       "bugs filed already, read only: a finding whose signature (or alias) is filed in this folder of reports is "
       "shown as `known: DIR/FOLDER`, counted in OUT/known.json, not shrunk or filed, and not counted in the exit "
       "code; auto: the reports/ of the checkout vmapfuzz was built from, when run inside it; none: off");
}

std::unique_ptr<KnownReports> openKnown(const std::string &known, const std::string &reports, std::ostream &log) {
  if (known == "none") return nullptr;
  const std::string cwd = fs::current_path().string();
  const std::string dir = known == kKnownAuto ? defaultKnownDir(VMAPFUZZ_SOURCE_DIR, cwd) : known;
  if (dir.empty()) return nullptr;
  if (!fs::is_directory(dir)) throw UsageError("--known: " + dir + " is not a folder of reports");
  std::error_code ec;
  if (fs::exists(reports) && fs::equivalent(dir, reports, ec)) return nullptr; // filing there: the store knows them
  std::unique_ptr<KnownReports> k;
  try {
    k = std::make_unique<KnownReports>(dir, shownName(dir, cwd));
  } catch (const std::exception &e) {
    throw UsageError(std::string("--known: ") + e.what());
  }
  log << "vmapfuzz: known bugs: " << k->shownAs() << "/ (" << k->folders()
      << " folders, read only): a finding filed there is shown as known, not filed again (--known none: off)\n";
  return k;
}

} // namespace vf::cli
