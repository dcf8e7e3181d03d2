// vmapfuzz caps: which constructs have working batching rules, per mode and device.
#include <iostream>
#include <memory>

#include "harness/backends/torch/preload.h"
#include "harness/campaign/caps.h"
#include "harness/cli/commands.h"
#include "harness/cli/system_flags.h"

namespace vf::cli {

namespace {

int caps(const SystemFlags &f) {
  auto systems = startSystems(f, std::cerr);
  if (systems->empty()) return kClean;
  const auto &env = systems->environment();
  std::cout << "batching rules in torch " << env.value("torch", "?") << " (python " << env.value("python", "?")
            << "): ok = batched equals per-example; no rule = torch says it cannot vmap this\n";
  for (const auto &p : preloadsOf(env)) std::cout << "preloaded: " << p.path << " (sha256 " << p.sha256 << ")\n";
  std::cout << "\n";
  printCapabilities(systems->runners(), std::cout);
  for (const auto &s : systems->skipped()) std::cout << s << "\n";
  return kClean;
}

} // namespace

void addCaps(Cli &cli) {
  auto f = std::make_shared<SystemFlags>();
  CLI::App &cmd = cli.command("caps", "", "which constructs have working batching rules, per mode and device",
                              "Probes the installed torch with a small case per construct, decision batched and not.",
                              [f] { return caps(*f); });
  addSystemFlags(cmd, *f, {.modes = "eager,eager+grad,eager+vmap-grad,eager+jvp,direct+jvp,compile-eager,compile-aot_eager,compile-inductor,precompile-aot_eager", .devices = "cpu,cuda"});
}

} // namespace vf::cli
