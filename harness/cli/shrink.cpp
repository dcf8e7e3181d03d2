// vmapfuzz shrink: shrink a failing case file, keeping its culprit and failure class (or its signature).
#include <iostream>
#include <memory>

#include "harness/cli/case_files.h"
#include "harness/cli/commands.h"
#include "harness/cli/system_flags.h"
#include "harness/report/findings.h"
#include "harness/report/shrink_finding.h"
#include "harness/report/signature.h"
#include "ir/text.h"

namespace vf::cli {

namespace {

struct ShrinkFlags {
  SystemFlags systems;
  std::vector<std::string> files;
  std::string out; ///< "": print the smaller case
  int64_t maxAttempts = 2000;
  int64_t culpritRuns = 24;
};

int shrink(const ShrinkFlags &f) {
  if (f.files.size() != 1) throw UsageError("shrink needs exactly one case file");
  Case c = loadCase(f.files[0]);
  auto systems = startSystems(f.systems, std::cerr);
  if (systems->empty()) return kClean;
  Runner &runner = *systems->runners().front();
  CaseResult r = runner.run(c);
  if (r.verdict == Verdict::Pass || r.verdict == Verdict::Unsupported)
    throw UsageError(f.files[0] + ": " + std::string(verdictName(r.verdict)) + " in " + r.system.str() + ", nothing to shrink");
  std::cerr << "vmapfuzz shrink: " << verdictName(r.verdict) << ": " << r.summary << "\n";
  const FindingShrink s = shrinkFinding(c, r, runner, static_cast<int>(f.culpritRuns), static_cast<int>(f.maxAttempts));
  std::cerr << "vmapfuzz shrink: " << c.program.size() << " -> " << s.shrunk.program.size() << " statements in "
            << s.stats.attempts << " attempts"
            << (s.culprit.empty() ? " (same signature)" : " (same failure class and culprit " + s.culprit + ")") << "\n";
  if (!f.out.empty()) writeFileAtomic(f.out, printCase(s.shrunk));
  else std::cout << printCase(s.shrunk);
  return kFound;
}

} // namespace

void addShrink(Cli &cli) {
  auto f = std::make_shared<ShrinkFlags>();
  CLI::App &cmd = cli.command(
      "shrink", "FILE", "shrink a failing case file keeping its culprit and failure class, or its signature; exit 1",
      "Any verdict but pass and unsupported (invalid included) can be shrunk; the smaller case is printed, or "
      "written to --out. Its culprit is localised first (a component of torch's batching whose per-example loop "
      "makes it pass); where there is one, the shrink keeps it and the failure class, else the signature.",
      [f] { return shrink(*f); });
  cmd.add_option("FILE", f->files, "the case file");
  addSystemFlags(cmd, f->systems);
  addFloat64Flag(cmd, f->systems);
  cmd.add_option("--out", f->out, "write the smaller case here instead of printing it");
  flag(cmd, "--max-attempts", f->maxAttempts, "at most this many candidates")->check(inRange(1, 1000000));
  flag(cmd, "--culprit-runs", f->culpritRuns, "runs to localise the culprit before shrinking (0: keep the signature instead)")
      ->check(inRange(0, 1000));
}

} // namespace vf::cli
