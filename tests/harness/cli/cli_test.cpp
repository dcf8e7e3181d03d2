// The command line's flag table: parsing, defaults, repeated flags, exit codes and the flags
// replay repeats, on commands declared here (no worker, no torch).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "harness/cli/cli.h"
#include "harness/cli/system_flags.h"

using namespace vf::cli;

namespace {

struct Flags {
  int64_t n = 7;
  std::string name = "dflt";
  std::vector<std::string> tags;
  bool on = false;
};

/// Runs `vmapfuzz ARGS...` against a Cli with one command `try`; returns its exit code.
int runCli(std::vector<std::string> args, Flags &f, int commandRc = kClean) {
  Cli cli;
  CLI::App &cmd = cli.command("try", "", "a command for this test", "", [&] { return commandRc; });
  flag(cmd, "--n", f.n, "a number")->check(inRange(1, 10));
  flag(cmd, "--name", f.name, "a name");
  repeatedFlag(cmd, "--tag", f.tags, "a tag");
  cmd.add_flag("--on", f.on, "a switch");
  args.insert(args.begin(), "vmapfuzz");
  std::vector<char *> argv;
  for (auto &a : args) argv.push_back(a.data());
  return cli.main(static_cast<int>(argv.size()), argv.data());
}

} // namespace

TEST(CliFlags, DefaultsComeFromTheDeclaration) {
  Flags f;
  EXPECT_EQ(runCli({"try"}, f), kClean);
  EXPECT_EQ(f.n, 7);
  EXPECT_EQ(f.name, "dflt");
  EXPECT_TRUE(f.tags.empty());
  EXPECT_FALSE(f.on);
}

TEST(CliFlags, BothSpellingsOfAValueAndTheLastOneWins) {
  Flags f;
  EXPECT_EQ(runCli({"try", "--n", "3", "--name=a", "--name", "b", "--on"}, f), kClean);
  EXPECT_EQ(f.n, 3);
  EXPECT_EQ(f.name, "b");
  EXPECT_TRUE(f.on);
}

TEST(CliFlags, ARepeatedFlagKeepsEveryValueAndTakesOneEach) {
  Flags f;
  EXPECT_EQ(runCli({"try", "--tag", "x", "--tag=y"}, f), kClean);
  EXPECT_EQ(f.tags, (std::vector<std::string>{"x", "y"}));
  Flags g; // a word after a repeated flag's value is not a second value
  EXPECT_EQ(runCli({"try", "--tag", "x", "stray"}, g), kUsage);
}

TEST(CliFlags, BadFlagsAreUsageErrors) {
  for (std::vector<std::string> args : {std::vector<std::string>{"try", "--bogus"}, {"try", "--n", "11"},
                                        {"try", "--n", "lots"}, {"try", "--n"}, {"nope"}, {}}) {
    Flags f;
    EXPECT_EQ(runCli(args, f), kUsage) << (args.empty() ? "" : args.back());
  }
}

TEST(CliFlags, HelpExitsZeroAndTheCommandsCodeIsReturned) {
  Flags f;
  EXPECT_EQ(runCli({"--help"}, f), kClean);
  EXPECT_EQ(runCli({"try", "-h"}, f), kClean);
  EXPECT_EQ(runCli({"help"}, f), kClean);
  EXPECT_EQ(runCli({"try"}, f, kFound), kFound);
}

namespace {

/// Runs `vmapfuzz try ARGS...` where `try` declares the system flags and --float64; returns
/// the flags replay would repeat, as the command saw them once parsed.
std::string replayedOf(std::vector<std::string> args) {
  Cli cli;
  SystemFlags f;
  std::string seen = "(not run)";
  CLI::App &cmd = cli.command("try", "", "a command for this test", "", [&] {
    seen = runFlags(f);
    return kClean;
  });
  addSystemFlags(cmd, f);
  addFloat64Flag(cmd, f);
  args.insert(args.begin(), {"vmapfuzz", "try"});
  std::vector<char *> argv;
  for (auto &a : args) argv.push_back(a.data());
  EXPECT_EQ(cli.main(static_cast<int>(argv.size()), argv.data()), kClean);
  return seen;
}

} // namespace

TEST(CliFlags, ReplayRepeatsTheFlagsDeclaredReplayedAsGiven) {
  EXPECT_EQ(replayedOf({}), "");
  // Flags replay does not need (--mode picks the system; --gen is the gen command's) are not repeated.
  EXPECT_EQ(replayedOf({"--mode", "direct", "--gen", "max_depth=2", "--timeout-ms", "5000"}), "");
  EXPECT_EQ(replayedOf({"--fault", "a", "--float64", "--fault=b"}), " --fault a --fault b --float64");
  // A preloaded file's path as the flag's transform left it (absolute), quoted for the shell.
  const auto dir = std::filesystem::temp_directory_path() / "vmapfuzz cli test";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "rule.py") << "pass\n";
  const std::string rel = std::filesystem::relative(dir / "rule.py").string();
  EXPECT_EQ(replayedOf({"--preload", rel}), " --preload '" + (dir / "rule.py").string() + "'");
  std::filesystem::remove_all(dir);
}
