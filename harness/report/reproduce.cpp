#include "harness/report/reproduce.h"

#include <regex>

namespace vf {

std::string shellWord(const std::string &word) {
  if (!word.empty() && word.find_first_of(" '\"\\$`!*?;&|<>()#~\t\n") == std::string::npos) return word;
  return "'" + std::regex_replace(word, std::regex("'"), "'\\''") + "'";
}

std::string flagWords(const std::string &name, const std::vector<std::string> &values) {
  std::string out;
  for (const auto &v : values) out += " " + name + " " + shellWord(v);
  return out;
}

std::string genFlagsOf(const std::vector<std::string> &settings) { return flagWords("--gen", settings); }

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
