#pragma once
/// Case files named on the command line: read, parsed and validated, errors as usage errors that
/// name the file (and line and column).
#include <string>
#include <vector>

#include "generators/policy.h"
#include "ir/program.h"

namespace vf::cli {

/// The bytes of a file; one that cannot be read is a usage error.
std::string readFile(const std::string &path);

/// Reads and validates a case file. A libFuzzer artifact (crash-*, timeout-*, ...) or, with
/// `bytes`, any file is decoded through the generators as the fuzz_case target does.
Case loadCase(const std::string &path, bool bytes = false, const GenPolicy &policy = {});

/// Case files named directly, and every *.vf under a named directory (sorted).
std::vector<std::string> expandCaseFiles(const std::vector<std::string> &args);

/// The cases of those files and directories.
std::vector<Case> loadCases(const std::vector<std::string> &args);

} // namespace vf::cli
