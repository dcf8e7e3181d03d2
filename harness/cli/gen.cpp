// vmapfuzz gen and emit: print the case of a seed, or the Python a case is run as.
#include <iostream>
#include <memory>

#include "generators/choices.h"
#include "harness/backends/exec_config.h"
#include "harness/backends/torch/python_emit.h"
#include "harness/campaign/draw.h"
#include "harness/cli/case_files.h"
#include "harness/cli/commands.h"
#include "harness/cli/system_flags.h"
#include "ir/text.h"

namespace vf::cli {

namespace {

struct GenFlags {
  SystemFlags systems; ///< only --gen is used
  uint64_t caseSeed = 1;
  int64_t size = 50;
  std::string bytes; ///< "": draw from --case-seed
  int64_t count = 1; ///< > 1: that many seeds from --case-seed on, each after a line "=== SEED"
};

int gen(const GenFlags &f) {
  if (!f.bytes.empty()) {
    std::string b = readFile(f.bytes);
    std::cout << printCase(caseFromBytes(reinterpret_cast<const uint8_t *>(b.data()), b.size(), policyFrom(f.systems)));
    return kClean;
  }
  // The same draw as the campaign's, data re-drawn for predicate margins included.
  const GenPolicy policy = policyFrom(f.systems);
  for (int64_t k = 0; k < f.count; ++k) {
    const uint64_t seed = f.caseSeed + static_cast<uint64_t>(k);
    if (f.count > 1) std::cout << "=== " << seed << "\n";
    std::cout << printCase(drawCase(seed, static_cast<int>(f.size), policy).c);
  }
  return kClean;
}

struct EmitFlags {
  std::vector<std::string> files;
  std::string mode = "eager";
};

int emit(const EmitFlags &f) {
  if (f.files.size() != 1) throw UsageError("emit needs exactly one case file");
  auto mode = parseMode(f.mode);
  if (!mode) throw UsageError("--mode: unknown mode '" + f.mode + "'");
  std::cout << emitModule(loadCase(f.files[0]), mode->api, mode->grad);
  return kClean;
}

} // namespace

void addGen(Cli &cli) {
  auto f = std::make_shared<GenFlags>();
  CLI::App &cmd = cli.command("gen", "", "print the case a campaign would run for a case seed", "",
                              [f] { return gen(*f); });
  addSystemFlags(cmd, f->systems);
  flag(cmd, "--case-seed", f->caseSeed, "the case seed (a campaign's reproduce line names it)");
  flag(cmd, "--size", f->size, "the generator's size")->check(inRange(0, 1000));
  flag(cmd, "--count", f->count, "print this many cases, of seeds --case-seed, --case-seed + 1, ..., each after a line '=== SEED'")
      ->check(inRange(1, 1000000));
  cmd.add_option("--bytes", f->bytes, "print the case a libFuzzer input (e.g. a crash-<hash> artifact) decodes to");
}

void addEmit(Cli &cli) {
  auto f = std::make_shared<EmitFlags>();
  CLI::App &cmd = cli.command("emit", "FILE", "print the Python a case file is run as", "", [f] { return emit(*f); });
  cmd.add_option("FILE", f->files, "the case file");
  flag(cmd, "--mode", f->mode, "the mode to emit for (direct: the ops called themselves)");
}

} // namespace vf::cli
