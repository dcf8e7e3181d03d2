#pragma once
/// The vmapfuzz command line: one CLI11 subcommand per command, each flag declared once (name,
/// help, default, check) next to the field it fills, so usage, parsing and defaults come from one
/// declaration, as libFuzzer's FlagsDef does. Adding a flag is one `flag(...)` line in its
/// command's file (or in flags.cpp when several commands share it).
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace vf::cli {

/// Exit codes, one meaning each.
enum Exit { kClean = 0, kFound = 1, kUsage = 2, kEnvironment = 3, kInternal = 4 };

/// Bad usage or bad input: exit kUsage with the message.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// What a command does once its flags are parsed; returns its exit code.
using Run = std::function<int()>;

/// Prints each command's own usage line (CLI11's App::usage is 2.2 or newer; this works on 2.1).
class UsageFormatter;

/// The vmapfuzz app and the run of each of its commands.
class Cli {
public:
  Cli();

  /// Declares command `name` (`args`: its positional arguments in the usage line; `about`: one
  /// line for the command list; `details`: printed under its flags by `vmapfuzz NAME --help`).
  CLI::App &command(const std::string &name, const std::string &args, const std::string &about,
                    const std::string &details, Run run);

  /// Parses argv and runs the command it names; every error becomes its exit code.
  int main(int argc, char **argv);

private:
  std::shared_ptr<UsageFormatter> usage_; ///< before app_: the app and its commands print with it
  CLI::App app_;
  std::map<const CLI::App *, Run> runs_;
};

/// Declares `--name` on `cmd`, filling `value` (whose initial value is the default shown in help).
template <class T> CLI::Option *flag(CLI::App &cmd, const std::string &name, T &value, const std::string &help) {
  return cmd.add_option(name, value, help)->capture_default_str();
}

/// Declares a repeatable `--name`: every occurrence appends one value.
CLI::Option *repeatedFlag(CLI::App &cmd, const std::string &name, std::vector<std::string> &values, const std::string &help);

/// The flags that running a case again needs too (--fault, --preload, --float64): each marked
/// where it is declared, so reproduce lines repeat what was given with no list kept by hand.
class ReplayedFlags {
public:
  /// Marks `o` (declared on the command being parsed) as one replay needs.
  CLI::Option *mark(CLI::Option *o) {
    options_.push_back(o);
    return o;
  }
  /// " --NAME VALUE" for each value given (after the flag's transforms, shell-quoted where it
  /// needs it), " --NAME" for a switch given; in the order the flags were declared.
  std::string str() const;

private:
  std::vector<const CLI::Option *> options_;
};

/// An integer in [lo, hi] (hi omitted: no upper bound), for `->check(...)`.
CLI::Validator inRange(int64_t lo, int64_t hi = INT64_MAX);

} // namespace vf::cli
