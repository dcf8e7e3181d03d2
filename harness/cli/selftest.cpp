// vmapfuzz selftest: plant each fault in torch's batching rules and measure what the harness detects.
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <memory>
#include <sstream>

#include "harness/campaign/selftest.h"
#include "harness/cli/commands.h"
#include "harness/cli/system_flags.h"
#include "harness/report/findings.h"
#include "harness/report/reproduce.h"

namespace vf::cli {

namespace {

struct SelftestFlags {
  SystemFlags systems; ///< --fault: the faults to plant (default: all, then `none`)
  int64_t seconds = 300;
  int64_t cases = -1;
  uint64_t seed = 1;
  int64_t target = 90;
  bool noShrink = false;
  int64_t culpritRuns = SelftestOptions{}.culpritRuns;
  std::string out; ///< "": write nothing
  bool list = false;
  int64_t mutateShare = 0; ///< > 0: coverage-guided, as a campaign's --mutate-share
};

/// The faults to plant: --fault's, else every fault the mode can see, then the control.
std::vector<std::string> faultsFor(const SelftestFlags &f, const ExecConfig &exec, const std::vector<FaultInfo> &known) {
  std::vector<std::string> faults = f.systems.faults;
  if (faults.empty()) {
    // A gradient mode plants the faults in the autograd of batched control flow, any other
    // mode the rest (a gradient fault leaves forward values alone: no forward mode can see it);
    // a fault in forward-mode derivatives only goes to the +jvp modes (a VJP cannot see it).
    for (const auto &k : known)
      if (isGradientFault(k.doc) == exec.gradient() && (!isForwardModeFault(k.doc) || forwardMode(exec.grad)))
        faults.push_back(k.name);
    faults.push_back(kNoFault);
  }
  for (const auto &x : faults)
    if (x != kNoFault && std::none_of(known.begin(), known.end(), [&](const auto &k) { return k.name == x; }))
      throw UsageError("unknown fault '" + x + "' (vmapfuzz selftest --list shows them)");
  return faults;
}

/// What the listing says of fault `name` (the control run `none`: nothing).
FaultInfo infoOf(const std::string &name, const std::vector<FaultInfo> &known) {
  for (const auto &k : known)
    if (k.name == name) return k;
  return {name, "", ""};
}

/// Guided: the faulty workers collect coverage of torch's batching code (the default files),
/// and every fault's campaign mutates the cases that reached new coverage.
void guide(const SelftestFlags &f, const ExecConfig &exec, WorkerConfig &faultyWorker, SelftestOptions &opt) {
  faultyWorker.coverage = "default";
  auto probe = std::make_unique<TorchBackend>(std::make_shared<WorkerProcess>(faultyWorker), exec, "cpu");
  nlohmann::json info;
  try {
    info = probe->hello();
  } catch (const std::runtime_error &e) {
    throw EnvironmentError(e.what());
  }
  if (info.contains("coverage_error")) throw EnvironmentError("--mutate-share needs coverage: " + info["coverage_error"].get<std::string>());
  opt.guided.on = true;
  opt.guided.table = PyCovTable::fromJson(info.value("coverage_table", nlohmann::json()));
  opt.guided.mutateShare = static_cast<double>(f.mutateShare) / 100.0;
}

/// The table (and under --out its Markdown and each detection's shrunk case), then the phases.
void report(const SelftestFlags &f, const std::vector<FaultResult> &results) {
  std::ostringstream table;
  printSelftestTable(results, table);
  std::cout << table.str();
  if (!f.out.empty()) {
    std::filesystem::create_directories(f.out);
    writeFileAtomic(f.out + "/selftest.md", table.str());
    for (const auto &r : results)
      if (r.detected)
        writeFileAtomic(f.out + "/" + r.fault + ".vf", "# " + r.verdict + " with --fault " + r.fault + ": " +
                                                           r.summary.substr(0, 300) + "\n# found by: " + r.reproduce +
                                                           "\n" + r.shrunkCase);
  }
  PhaseTimes all;
  double wall = 0;
  for (const auto &r : results) {
    wall += r.seconds + r.shrinkSeconds + r.phases.culprits;
    all += r.phases;
  }
  all.print(std::cerr, wall);
}

int selftest(const SelftestFlags &f) {
  SelftestOptions opt;
  opt.secondsPerFault = static_cast<double>(f.seconds);
  opt.casesPerFault = f.cases;
  opt.seed = f.seed;
  opt.targetRate = static_cast<double>(f.target) / 100.0;
  opt.policy = policyFrom(f.systems);
  opt.shrink = !f.noShrink;
  opt.culpritRuns = static_cast<int>(f.culpritRuns);
  opt.genFlags = genFlagsOf(f.systems.gen);
  std::string faultsScript = std::filesystem::path(defaultWorkerScript()).parent_path() / "vmapfuzz_faults.py";
  auto known = listFaults(f.systems.python, faultsScript);
  if (f.list) {
    for (const auto &k : known) std::cout << k.name << "\t" << k.doc << (k.component.empty() ? "" : "\t" + k.component) << "\n";
    return kClean;
  }
  auto mode = parseMode(f.systems.modes);
  if (!mode) throw UsageError("--mode: selftest runs in one mode, got '" + f.systems.modes + "'");
  const ExecConfig exec = *mode;
  const std::vector<std::string> faults = faultsFor(f, exec, known);
  SystemFlags clean = f.systems;
  clean.faults.clear();
  WorkerConfig faultyWorker = workerConfig(clean);
  if (f.mutateShare > 0) guide(f, exec, faultyWorker, opt);
  auto cleanBackend = startBackend(clean, std::cerr, exec);
  BackendFactory make = [&](const std::vector<std::string> &planted) -> std::unique_ptr<Backend> {
    WorkerConfig w = faultyWorker;
    w.faults = planted;
    auto b = std::make_unique<TorchBackend>(std::make_shared<WorkerProcess>(w), exec, "cpu");
    b->hello(); // starts the worker and plants the fault: a fault that does not plant fails here
    return b;
  };
  std::cerr << "vmapfuzz selftest: " << faults.size() << " faults, " << opt.secondsPerFault << " s each, seed " << opt.seed
            << "\n";
  std::vector<FaultResult> results;
  for (const auto &x : faults) results.push_back(runFaultCampaign(infoOf(x, known), opt, make, *cleanBackend, std::cerr));
  report(f, results);
  return selftestTargetMet(results, opt.targetRate) ? kClean : kFound;
}

} // namespace

void addSelftest(Cli &cli) {
  auto f = std::make_shared<SelftestFlags>();
  CLI::App &cmd = cli.command(
      "selftest", "", "plant faults in torch's batching rules and measure what the harness detects",
      "Plants each fault (default: all, then the control `none`; --fault NAME to choose) and runs a campaign of "
      "--time seconds per fault; prints a table of what was detected, how fast and how small it shrank "
      "(OUT/selftest.md, OUT/<fault>.vf). Exit 0 when at least --target % were detected and `none` found nothing. "
      "--mode (one mode, default eager) runs every campaign in that mode: a gradient mode (eager+grad) plants the "
      "faults in the autograd of batched control flow by default, any other mode the rest.",
      [f] { return selftest(*f); });
  addSystemFlags(cmd, f->systems);
  flag(cmd, "--time", f->seconds, "seconds of campaign per fault")->check(inRange(1, 100000000));
  flag(cmd, "--cases", f->cases, "at most this many cases per fault (-1: no limit)")->check(inRange(-1));
  flag(cmd, "--seed", f->seed, "the campaign seed, the same for every fault");
  flag(cmd, "--target", f->target, "percent of faults that must be detected")->check(inRange(0, 100));
  cmd.add_flag("--no-shrink", f->noShrink, "do not shrink the detecting cases");
  flag(cmd, "--culprit-runs", f->culpritRuns,
       "runs to name the component of torch's batching each detection needs (0: off); the table says whether it is the planted one")
      ->check(inRange(0, 1000));
  cmd.add_option("--out", f->out, "write selftest.md and each detecting case here");
  cmd.add_flag("--list", f->list, "list the faults and exit");
  flag(cmd, "--mutate-share", f->mutateShare,
       "percent of cases that mutate the fault campaign's coverage corpus (0: unguided, no coverage collected)")
      ->check(inRange(0, 100));
}

} // namespace vf::cli
