#pragma once
/// Each command declares itself (its flags, their defaults and help, and what it runs) on the
/// app; main.cpp calls these in the order `vmapfuzz --help` lists them.
#include "harness/cli/cli.h"

namespace vf::cli {

void addFuzz(Cli &cli);        // fuzz.cpp
void addNightly(Cli &cli);     // nightly.cpp
void addMerge(Cli &cli);       // reports.cpp
void addReplay(Cli &cli);      // replay.cpp
void addShrink(Cli &cli);      // shrink.cpp
void addRecheck(Cli &cli);     // reports.cpp
void addReport(Cli &cli);      // reports.cpp
void addCoverage(Cli &cli);    // coverage.cpp
void addMergeCorpus(Cli &cli); // coverage.cpp
void addCaps(Cli &cli);        // caps.cpp
void addGen(Cli &cli);         // gen.cpp
void addEmit(Cli &cli);        // gen.cpp
void addSelftest(Cli &cli);    // selftest.cpp

} // namespace vf::cli
