#include "harness/report/reproduce.h"

#include <regex>


namespace vf {

std::string genFlagsOf(const std::vector<std::string> &settings) {
  std::string flags;
  for (const auto &s : settings) flags += " --gen " + s;
  return flags;
}

std::string runFlagsOf(const std::vector<std::string> &faults, bool float64, const std::vector<std::string> &preloads) {
  std::string flags;
  for (const auto &f : faults) flags += " --fault " + f;
  if (float64) flags += " --float64";
  for (const auto &p : preloads) // a path with spaces or quotes is single-quoted for the shell
    flags += " --preload " + (p.find_first_of(" '\"\\$`") == std::string::npos ? p : "'" + std::regex_replace(p, std::regex("'"), "'\\''") + "'");
  return flags;
}

std::string genCommand(uint64_t caseSeed, int size, const std::string &genFlags) {
  return "vmapfuzz gen --case-seed " + std::to_string(caseSeed) + " --size " + std::to_string(size) + genFlags;
}

std::string replayCommand(const std::string &runFlags, const SystemId &system, const std::string &file) {
  return "vmapfuzz replay" + runFlags + system.replayFlag() + " " + file;
}

std::string reproduceLine(uint64_t caseSeed, int size, const std::string &genFlags, const std::string &runFlags,
                          const SystemId &system) {
  return genCommand(caseSeed, size, genFlags) + " > case.vf && " + replayCommand(runFlags, system, "case.vf");
}

} // namespace vf
