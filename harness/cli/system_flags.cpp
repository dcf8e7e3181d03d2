#include "harness/cli/system_flags.h"

#include <algorithm>
#include <filesystem>
#include <sstream>

#include "harness/backends/torch/standalone.h"
#include "harness/report/reproduce.h"

namespace vf::cli {

void addSystemFlags(CLI::App &cmd, SystemFlags &f, const SystemDefaults &defaults) {
  f.modes = defaults.modes;
  f.devices = defaults.devices;
  flag(cmd, "--python", f.python, "python with torch for the worker");
  f.timeoutFlag = flag(cmd, "--timeout-ms", f.timeoutMs, "per-run deadline for the worker (600000 when a precompile mode runs)")
                      ->check(inRange(100, 86400000));
  flag(cmd, "--memory-mb", f.memoryMb, "the worker's memory limit (RLIMIT_DATA; 0: none)")->check(inRange(0, int64_t{1} << 30));
  f.modesFlag = flag(cmd, "--mode", f.modes,
                     "execution modes, comma-separated: direct (the control-flow ops called themselves under vmap: "
                     "the batching rules without dynamo), eager (the public API), compile-BACKEND[-dynamic|-static] "
                     "with BACKEND eager, aot_eager or inductor; precompile-BACKEND (compiled, saved, loaded in a fresh process and "
                     "called at two batch sizes); any but precompile +grad (gradients of the vmapped program, a VJP "
                     "with random cotangents), +vmap-grad (vmap of torch.func.vjp: per-sample gradients) or +jvp (torch.func.jvp "
                     "of the vmapped program: forward mode, random tangents), e.g. direct+grad");
  flag(cmd, "--device", f.devices, "devices, comma-separated: cpu, cuda (a ROCm torch counts as cuda; absent devices are skipped)");
  f.replayed.mark(repeatedFlag(cmd, "--fault", f.faults, "plant a fault in torch's batching rules in the worker (self-tests)"));
  f.replayed.mark(repeatedFlag(cmd, "--preload", f.preloads,
               "run this .py file in each worker at start-up, before any case, e.g. a batching rule torch lacks "
               "(docs/preload.md); its path and SHA-256 go into every report and repro.py runs it too. A missing "
               "file: exit 2; one that raises: exit 3")
      ->transform(CLI::Validator(
          [](std::string &path) {
            std::error_code ec;
            if (!std::filesystem::is_regular_file(path, ec)) throw UsageError("--preload " + path + ": no such file");
            path = std::filesystem::absolute(path).lexically_normal().string();
            return std::string();
          },
          "", "existing file, made absolute")));
  repeatedFlag(cmd, "--gen", f.gen, "generator setting KEY=VALUE, e.g. --gen max_depth=3 (see generators/policy.cpp)");
  flag(cmd, "--backend", f.backends,
       "systems under test, compared with the reference: torch (the python worker), libtorch (in process, "
       "functorch's C++ vmap), or torch,libtorch");
}

void addFloat64Flag(CLI::App &cmd, SystemFlags &f) {
  f.replayed.mark(cmd.add_flag("--float64", f.float64, "compute the reference in float64"));
}

void addCoverageFlag(CLI::App &cmd, SystemFlags &f) {
  f.coverage = "on";
  flag(cmd, "--coverage", f.coverage,
       "coverage of torch's batching code collected by the workers: on, new (each case reports only what its "
       "worker never saw: cheaper), off, or FILE,... (the torch files to cover)");
}

GenPolicy policyFrom(const SystemFlags &f) {
  GenPolicy p;
  for (const auto &kv : f.gen)
    if (std::string err = applyPolicySetting(p, kv); !err.empty()) throw UsageError("--gen " + kv + ": " + err);
  return p;
}

std::string runFlags(const SystemFlags &f) { return f.replayed.str(); }

WorkerConfig workerConfig(const SystemFlags &f) {
  WorkerConfig w;
  w.python = f.python;
  w.script = defaultWorkerScript();
  w.faults = f.faults;
  w.preloads = f.preloads;
  w.timeout = std::chrono::milliseconds(f.timeoutMs);
  w.memoryLimitMb = f.memoryMb;
  if (!std::filesystem::exists(w.script))
    throw std::runtime_error("worker script not found at " + w.script + " (set VMAPFUZZ_WORKER)");
  return w;
}

/// --coverage on|new|off|FILE,FILE...: which torch files the workers collect coverage of ("" off;
/// "new": the default files, each case reporting only what its worker never reported before).
static std::string coverageSpec(const std::string &v) {
  if (v == "off") return "";
  return v == "on" || v == "new" ? "default" : v;
}

std::unique_ptr<Systems> startSystems(const SystemFlags &f, std::ostream &log, int jobs) {
  SystemsConfig sc;
  sc.worker = workerConfig(f);
  sc.jobs = jobs;
  sc.runner.float64Reference = f.float64;
  sc.worker.coverage = coverageSpec(f.coverage);
  sc.worker.coverageNewOnly = f.coverage == "new";
  try {
    sc.modes = parseModes(f.modes);
  } catch (const std::invalid_argument &e) {
    throw UsageError(std::string("--mode: ") + e.what());
  }
  // A precompile run compiles twice and starts a fresh python3 (a first inductor compile alone
  // took 30 s on a busy machine): the default deadline would call slow runs hangs.
  if (f.timeoutFlag && f.timeoutFlag->count() == 0 &&
      std::any_of(sc.modes.begin(), sc.modes.end(), [](const auto &m) { return m.precompile; }))
    sc.worker.timeout = std::chrono::milliseconds(600000);
  sc.devices.clear();
  std::stringstream ds(f.devices);
  for (std::string d; std::getline(ds, d, ',');) {
    if (d != "cpu" && d != "cuda") throw UsageError("--device: unknown device '" + d + "' (known: cpu, cuda)");
    if (std::find(sc.devices.begin(), sc.devices.end(), d) == sc.devices.end()) sc.devices.push_back(d);
  }
  if (sc.devices.empty()) throw UsageError("--device needs at least one device");
  sc.torch = sc.libtorch = false;
  std::stringstream bs(f.backends);
  for (std::string n; std::getline(bs, n, ',');) {
    if (n == "torch") sc.torch = true;
    else if (n == "libtorch") sc.libtorch = true;
    else throw UsageError("--backend takes torch, libtorch or torch,libtorch, got '" + f.backends + "'");
  }
  if (!sc.torch && !sc.libtorch) throw UsageError("--backend names no backend");
  if (!sc.torch && !f.preloads.empty()) throw UsageError("--preload needs the torch backend (its python worker runs the file)");
  try {
    return std::make_unique<Systems>(sc, log);
  } catch (const std::invalid_argument &e) { // a bad VMAPFUZZ_LIBTORCH_FAULT
    throw UsageError(e.what());
  }
}

std::unique_ptr<TorchBackend> startBackend(const SystemFlags &f, std::ostream &log, const ExecConfig &exec) {
  auto b = std::make_unique<TorchBackend>(std::make_shared<WorkerProcess>(workerConfig(f)), exec, "cpu");
  try {
    auto info = b->hello();
    log << "vmapfuzz: python " << info.value("python", "?") << ", torch " << info.value("torch", "?") << " (cpu, "
        << exec.modeName() << ")\n";
  } catch (const std::runtime_error &e) {
    throw EnvironmentError(e.what());
  }
  return b;
}

StoreOptions storeOptions(const SystemFlags &f, const Systems &systems) {
  StoreOptions so;
  so.environment = systems.environment();
  if (f.faults.empty()) {
    so.confirmPython = f.python;
    auto runner = std::make_shared<StandaloneRunner>(f.python); // the store's confirmations share it
    so.confirm = [runner](const std::string &script, const std::string &dir, int seconds) { return (*runner)(script, dir, seconds); };
  } else {
    so.environment["planted_faults"] = f.faults;
  }
  return so;
}

} // namespace vf::cli
