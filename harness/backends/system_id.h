#pragma once
/// Which system under test a run was made on: the backend, how it executes a case (its mode)
/// and on which device. A value everywhere inside vmapfuzz; a string ("eager|cpu",
/// "compile-inductor|rocm", "libtorch|cpu") only at the edges: signatures, JSON, file names and
/// what a person reads. `str()` formats it and `parse()` reads it back; nothing else splits a
/// system's string.
#include <optional>
#include <string>
#include <string_view>

#include "harness/backends/exec_config.h"

namespace vf {

/// The implementations of batching under test (harness/backends/).
enum class BackendKind {
  Torch,    ///< PyTorch's own vmap, in a Python worker (torch/), in one of its modes (ExecConfig)
  Libtorch, ///< functorch's C++ vmap in process (libtorch/): no modes
};

struct SystemId {
  BackendKind backend = BackendKind::Torch;
  /// The torch backend's mode; the libtorch backend keeps the defaults (forward values, eager).
  /// `exec.device` is the device torch is asked for ("cpu" or "cuda").
  ExecConfig exec;
  /// The device as reports name it: "cpu", "cuda", or "rocm" for a ROCm build of torch (which
  /// runs through "cuda").
  std::string device = "cpu";

  /// The torch backend in mode `e`, labelled `deviceLabel` ("" labels it `e.device`).
  static SystemId torch(ExecConfig e, std::string deviceLabel = "");
  /// The in-process libtorch backend on `deviceLabel`.
  static SystemId libtorch(std::string deviceLabel = "cpu");
  /// Reads "MODE|DEVICE" back (see str()); nullopt when MODE is no known mode or DEVICE is
  /// missing or unknown.
  static std::optional<SystemId> parse(std::string_view text);

  bool isLibtorch() const { return backend == BackendKind::Libtorch; }
  Grad grad() const { return exec.grad; }
  /// The mode's name: "direct", "compile-inductor", "eager+grad", ...; "libtorch" for libtorch.
  std::string modeName() const;
  /// "MODE|DEVICE": the start of every signature, the key of every per-system table.
  std::string str() const;
  /// "MODE (DEVICE)": for a Markdown table cell, where '|' would end the cell.
  std::string display() const;
  /// The same system without its derivative: "direct+grad|cpu" -> "direct|cpu".
  SystemId forward() const;
  /// The flag that makes `vmapfuzz replay` run on this system: " --mode MODE" or " --backend libtorch".
  std::string replayFlag() const;

  friend bool operator==(const SystemId &a, const SystemId &b) { return a.str() == b.str(); }
  friend bool operator<(const SystemId &a, const SystemId &b) { return a.str() < b.str(); }
};

} // namespace vf
