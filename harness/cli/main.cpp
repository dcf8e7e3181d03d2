// The vmapfuzz driver: declares every command with its flags (commands.h), parses, dispatches.
#include "harness/cli/commands.h"

int main(int argc, char **argv) {
  vf::cli::Cli cli;
  for (auto add : {vf::cli::addFuzz, vf::cli::addCoverage, vf::cli::addMergeCorpus, vf::cli::addNightly,
                   vf::cli::addMerge, vf::cli::addReplay, vf::cli::addRecheck, vf::cli::addReport, vf::cli::addShrink,
                   vf::cli::addCaps, vf::cli::addGen, vf::cli::addEmit, vf::cli::addSelftest})
    add(cli);
  return cli.main(argc, argv);
}
