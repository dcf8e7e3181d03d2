#include "harness/run/systems.h"

#include <algorithm>
#include <cstdio>

#include <torch/version.h>

#include "harness/backends/libtorch/libtorch_backend.h"
#include "harness/backends/torch/preload.h"
#include "harness/backends/torch/python_emit.h"

namespace vf {

const ReproWriter &reproWriterFor(const SystemId &system) {
  switch (system.backend) {
  case BackendKind::Torch: return pythonReproWriter();
  // functorch's C++ vmap runs the batching rules that torch.vmap calls from Python: the Python
  // repro shows a libtorch finding that lies in them, and its standalone confirmation says "not
  // reproduced" for one that lies in the C++ front end (libtorch_vmap.cpp) alone.
  case BackendKind::Libtorch: return pythonReproWriter();
  }
  return pythonReproWriter();
}

Systems::Systems(const SystemsConfig &cfg, std::ostream &log) {
  if (cfg.jobs < 1) throw std::invalid_argument("Systems: jobs must be at least 1");
  nlohmann::json info = {{"torch", TORCH_VERSION}, {"python", nullptr}, {"cuda", nullptr}, {"hip", nullptr},
                         {"cuda_device", nullptr}, {"cuda_available", false}};
  std::string ver = TORCH_VERSION;
  if (cfg.torch) {
    for (int j = 0; j < cfg.jobs; ++j) workers_.push_back(std::make_shared<WorkerProcess>(cfg.worker));
    TorchBackend probe(workers_.front(), ExecConfig{}, "cpu");
    try {
      info = probe.hello();
    } catch (const std::runtime_error &e) {
      throw EnvironmentError(e.what());
    }
    ver = info.value("torch", "?");
    if (info.contains("coverage_error")) throw EnvironmentError("--coverage: " + info["coverage_error"].get<std::string>());
    if (info.contains("coverage_table")) coverageTable_ = info["coverage_table"];
    int major = 0, minor = 0;
    std::sscanf(ver.c_str(), "%d.%d", &major, &minor);
    if (major < 2 || (major == 2 && minor < 5))
      throw EnvironmentError("torch " + ver + " is too old: vmapfuzz needs torch >= 2.5 (torch.cond under vmap)");
  }
  bool hip = !info["hip"].is_null();
  std::vector<std::pair<std::string, std::string>> devices; // device, label
  for (const auto &d : cfg.devices) {
    if (d == "cpu") devices.push_back({"cpu", "cpu"});
    else if (info.value("cuda_available", false)) devices.push_back({"cuda", hip ? "rocm" : "cuda"});
    else
      skipped_.push_back("skipped: no " + d + " device (torch " + ver + (info["cuda"].is_null() && !hip ? ", a CPU-only build" : "") +
                         ", torch.cuda.is_available() is False)");
  }
  bool cpu = std::any_of(devices.begin(), devices.end(), [](const auto &d) { return d.first == "cpu"; });
  std::vector<std::string> names;
  for (int j = 0; j < cfg.jobs; ++j) {
    RunnerSet set;
    auto add = [&](std::unique_ptr<Backend> b) {
      if (j == 0) names.push_back(b->id().str());
      backends_.push_back(std::move(b));
      runners_.push_back(std::make_unique<Runner>(*backends_.back(), cfg.runner));
      set.push_back(runners_.back().get());
    };
    if (cfg.torch)
      for (const auto &[dev, label] : devices)
        for (ExecConfig m : cfg.modes) {
          m.device = dev;
          if (m.precompile && info.contains("precompile_missing")) {
            if (j == 0) skipped_.push_back("unsupported: " + SystemId::torch(m, label).str() + ": " +
                                           info["precompile_missing"].get<std::string>());
            continue;
          }
          add(std::make_unique<TorchBackend>(workers_[j], m, label));
        }
    // In process, on the CPU: one per job (functorch's layer stack is per thread).
    if (cfg.libtorch && cpu) add(std::make_unique<LibtorchBackend>());
    sets_.push_back(set);
  }
  env_ = {{"torch", ver}, {"python", info["python"]}, {"cuda", info["cuda"]}, {"hip", info["hip"]},
          {"cuda_device", info["cuda_device"]}, {"systems", names}, {"jobs", cfg.jobs}};
  auto preloads = preloadsFromJson(info.value("preloads", nlohmann::json::array()));
  if (!preloads.empty()) env_["preload"] = preloadsToJson(preloads); // absent without --preload: reports as before
  log << "vmapfuzz: torch " << ver;
  if (!info["python"].is_null()) log << ", python " << info["python"].get<std::string>();
  if (!info["cuda_device"].is_null()) log << ", " << (hip ? "ROCm " : "CUDA ") << "device " << info["cuda_device"].get<std::string>();
  log << "; systems:";
  for (const auto &n : names) log << " " << n;
  log << "; jobs: " << cfg.jobs;
  if (!cfg.worker.faults.empty()) {
    log << "; planted faults:";
    for (const auto &x : cfg.worker.faults) log << " " << x;
  }
  for (const auto &p : preloads) log << "; preloaded: " << p.path << " (sha256 " << p.sha256.substr(0, 12) << "...)";
  log << "\n";
  for (const auto &s : skipped_) log << "vmapfuzz: " << s << "\n";
}

} // namespace vf
