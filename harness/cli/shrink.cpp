// vmapfuzz shrink: shrink a failing case file, keeping its verdict and signature.
#include <iostream>
#include <memory>

#include "harness/cli/case_files.h"
#include "harness/cli/commands.h"
#include "harness/cli/system_flags.h"
#include "harness/report/findings.h"
#include "harness/report/shrinker.h"
#include "harness/report/signature.h"
#include "ir/text.h"

namespace vf::cli {

namespace {

struct ShrinkFlags {
  SystemFlags systems;
  std::vector<std::string> files;
  std::string out; ///< "": print the smaller case
  int64_t maxAttempts = 2000;
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
  ShrinkStats ss;
  Case small = shrinkCase(c, [&](const Case &cand) { return failsTheSameWay(r, runner.run(cand)); }, &ss,
                          static_cast<int>(f.maxAttempts));
  std::cerr << "vmapfuzz shrink: " << c.program.size() << " -> " << small.program.size() << " statements in "
            << ss.attempts << " attempts\n";
  if (!f.out.empty()) writeFileAtomic(f.out, printCase(small));
  else std::cout << printCase(small);
  return kFound;
}

} // namespace

void addShrink(Cli &cli) {
  auto f = std::make_shared<ShrinkFlags>();
  CLI::App &cmd = cli.command(
      "shrink", "FILE", "shrink a failing case file keeping its verdict and signature; exit 1",
      "Any verdict but pass and unsupported (invalid included) can be shrunk; the smaller case is printed, or "
      "written to --out.",
      [f] { return shrink(*f); });
  cmd.add_option("FILE", f->files, "the case file");
  addSystemFlags(cmd, f->systems);
  addFloat64Flag(cmd, f->systems);
  cmd.add_option("--out", f->out, "write the smaller case here instead of printing it");
  flag(cmd, "--max-attempts", f->maxAttempts, "at most this many candidates")->check(inRange(1, 1000000));
}

} // namespace vf::cli
