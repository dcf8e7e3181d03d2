#pragma once
/// The flags of the systems under test (worker, modes, devices, backends, faults, preloads,
/// generator settings), shared by every command that runs cases, and what they build.
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "generators/policy.h"
#include "harness/backends/torch/torch_backend.h"
#include "harness/cli/cli.h"
#include "harness/report/findings.h"
#include "harness/run/systems.h"

namespace vf::cli {

struct SystemFlags {
  std::string python = "python3";
  int64_t timeoutMs = 60000;
  int64_t memoryMb = 8192;
  std::string modes;   ///< default per command (SystemDefaults)
  std::string devices; ///< default per command
  std::string backends = "torch";
  std::vector<std::string> faults;
  std::vector<std::string> preloads; ///< absolute paths of existing files (checked while parsing)
  std::vector<std::string> gen;      ///< KEY=VALUE generator settings
  std::string coverage = "off";      ///< on|new|off|FILE,...: only commands that declare --coverage
  bool float64 = false;              ///< only commands that declare --float64
  CLI::Option *modesFlag = nullptr;  ///< whether --mode was given (campaigns: --other-modes-share)
  CLI::Option *timeoutFlag = nullptr; ///< whether --timeout-ms was given (precompile modes default longer)
  ReplayedFlags replayed;             ///< --fault, --preload, --float64: what reproduce lines repeat
};

/// The modes and devices a command runs in when --mode / --device are not given.
struct SystemDefaults {
  std::string modes = "eager";
  std::string devices = "cpu";
};

/// Declares --python, --timeout-ms, --memory-mb, --mode, --device, --fault, --preload, --gen, --backend.
void addSystemFlags(CLI::App &cmd, SystemFlags &f, const SystemDefaults &defaults = {});
/// Declares --float64 (compute the reference in float64).
void addFloat64Flag(CLI::App &cmd, SystemFlags &f);
/// Declares --coverage with default `on`.
void addCoverageFlag(CLI::App &cmd, SystemFlags &f);

/// The generator policy with every --gen KEY=VALUE applied.
GenPolicy policyFrom(const SystemFlags &f);
/// The flags replay needs to run a case as these flags did (reproduce lines): those declared
/// as replayed, as they were given.
std::string runFlags(const SystemFlags &f);
/// The systems under test the flags ask for: `jobs` workers, a runner per --mode and --device.
std::unique_ptr<Systems> startSystems(const SystemFlags &f, std::ostream &log, int jobs = 1);
/// One CPU torch backend in mode `exec` with a worker of its own (selftest's systems).
std::unique_ptr<TorchBackend> startBackend(const SystemFlags &f, std::ostream &log, const ExecConfig &exec = {});
/// The worker of these flags.
WorkerConfig workerConfig(const SystemFlags &f);
/// How findings are filed for these flags: the environment of the systems, and a standalone
/// confirmation of each repro.py unless faults are planted (the worker has them, a fresh python
/// on clean torch does not, so it could confirm nothing).
StoreOptions storeOptions(const SystemFlags &f, const Systems &systems);

} // namespace vf::cli
