#pragma once
/// The one builder of reproduce lines: the commands a report, a log line or a self-test result
/// gives for running a case again (filed in report.md and meta.json as "reproduce").
#include <cstdint>
#include <string>
#include <vector>

#include "harness/backends/system_id.h"

namespace vf {

/// `word` as one word for the shell: as it is when it needs no quoting, else single-quoted.
std::string shellWord(const std::string &word);
/// " NAME VALUE" for each value (each a shellWord): a repeated flag as a command line repeats it.
std::string flagWords(const std::string &name, const std::vector<std::string> &values);
/// " --gen K=V" for each generator setting: what every gen command repeats.
std::string genFlagsOf(const std::vector<std::string> &settings);

/// `vmapfuzz gen --case-seed S --size N` with `genFlags`: prints the case a campaign drew.
std::string genCommand(uint64_t caseSeed, int size, const std::string &genFlags);
/// `vmapfuzz replay` with `runFlags` and the flag that picks `system` (--mode MODE, or --backend
/// libtorch), on `file`.
std::string replayCommand(const std::string &runFlags, const SystemId &system, const std::string &file);
/// The gen command into case.vf, then the replay command on it.
std::string reproduceLine(uint64_t caseSeed, int size, const std::string &genFlags, const std::string &runFlags,
                          const SystemId &system);

} // namespace vf
