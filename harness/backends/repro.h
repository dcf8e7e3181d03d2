#pragma once
/// A backend's hook for filing: what a finding's folder gets from the kind of system that found
/// it. The program as that system runs it, and a standalone script that exits 1 while the finding
/// shows and 0 once it is fixed, with whatever files the script needs beside it. The report layer
/// (harness/report/findings.cpp) files what a writer gives and knows no backend's language;
/// `reproWriterFor` (harness/run/systems.h) picks the writer of a system's backend kind.
#include <optional>
#include <string>
#include <vector>

#include <ATen/ATen.h>
#include <nlohmann/json.hpp>

#include "harness/backends/system_id.h"
#include "ir/program.h"

namespace vf {

/// The data of a finding's runs, made by the harness (generators/data.h), so that the script
/// feeds the system exactly what the campaign fed it.
struct ReproMaterial {
  std::vector<at::Tensor> inputs;
  std::optional<Case> again;             ///< a second call at another batch size (compiled guards)
  std::vector<at::Tensor> againInputs;
  /// Gradient modes: the cotangents of the case's VJP (and of the second call); in a
  /// forward-mode ("+jvp") mode the tangents of its JVP.
  std::vector<at::Tensor> cotangents, againCotangents;
  nlohmann::json environment;            ///< the campaign's (Systems::environment)
};

/// One file of a finding's folder: `text`, or a copy of the file at `copyOf` (skipped, with the
/// script saying so, when that file is gone).
struct ReproFile {
  std::string name; ///< relative to the folder, e.g. "repro.py", "preload/rule.py"
  std::string text;
  std::string copyOf;
};

/// What the confirmation makes of the standalone script's run: exit status 1 "confirmed", 0 "not
/// reproduced", another "not checked (repro.py exited N)"; `stillRan`: stopped at its limit of
/// `seconds`. Shared by every way of running it (a fresh interpreter, the torch worker's image).
inline std::string standaloneVerdict(int code, bool stillRan, int seconds) {
  if (stillRan) return "not checked (repro.py still ran after " + std::to_string(seconds) + " s)";
  return code == 1 ? "confirmed" : code == 0 ? "not reproduced" : "not checked (repro.py exited " + std::to_string(code) + ")";
}

class ReproWriter {
public:
  virtual ~ReproWriter() = default;
  /// The language of program(), for a Markdown code fence: "python".
  virtual std::string language() const = 0;
  /// The program as `system` runs it: report.md shows it.
  virtual std::string program(const Case &c, const SystemId &system) const = 0;
  /// The standalone script's file name, run by the confirmation as `INTERPRETER NAME` in the folder.
  virtual std::string scriptName() const = 0;
  /// Every file of the finding besides case.vf and the reports: the program, the script (headed
  /// by `header`, one comment line per line), and what the script needs beside it.
  virtual std::vector<ReproFile> files(const Case &c, const SystemId &system, const ReproMaterial &m,
                                       const std::string &header) const = 0;
  /// Lines for report.md's environment list that this kind of system adds to the campaign's
  /// (e.g. the torch worker's preloaded files); none by default.
  virtual std::vector<std::string> environmentLines(const nlohmann::json &environment) const { return {}; }
};

} // namespace vf
