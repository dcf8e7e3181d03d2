#include "harness/cli/cli.h"

#include <algorithm>
#include <iostream>

#include "harness/report/reproduce.h"
#include "harness/run/systems.h"

namespace vf::cli {

namespace {

const char *kFooter = R"(Run `vmapfuzz COMMAND --help` for a command's flags.

exit codes: 0 clean (selftest: target met), 1 findings (selftest: target missed),
2 bad usage or bad input, 3 environment (python/torch), 4 internal error)";

} // namespace

class UsageFormatter : public CLI::Formatter {
public:
  /// The usage line `app` prints at the top of its help.
  void set(const CLI::App *app, std::string usage) { usages_[app] = std::move(usage); }
  std::string make_usage(const CLI::App *app, std::string name) const override {
    auto it = usages_.find(app);
    return it == usages_.end() ? CLI::Formatter::make_usage(app, std::move(name)) : it->second + "\n\n";
  }

private:
  std::map<const CLI::App *, std::string> usages_;
};

Cli::Cli() : usage_(std::make_shared<UsageFormatter>()), app_("vmapfuzz: a differential fuzzer for torch.vmap of programs with control flow", "vmapfuzz") {
  app_.formatter(usage_); // commands added later inherit it
  usage_->set(&app_, "usage: vmapfuzz COMMAND [FLAGS]");
  app_.footer(kFooter);
  app_.require_subcommand(1);
  // A flag given twice takes its last value, as before; repeatable flags say so (repeatedFlag).
  app_.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
}

CLI::App &Cli::command(const std::string &name, const std::string &args, const std::string &about,
                       const std::string &details, Run run) {
  CLI::App *cmd = app_.add_subcommand(name, about);
  usage_->set(cmd, "usage: vmapfuzz " + name + (args.empty() ? "" : " " + args) + " [FLAGS]");
  if (!details.empty()) cmd->footer(details);
  runs_[cmd] = std::move(run);
  return *cmd;
}

std::string ReplayedFlags::str() const {
  std::string out;
  for (const CLI::Option *o : options_) {
    if (o->count() == 0) continue;
    if (o->get_expected_max() == 0 || o->get_type_size_max() == 0) { // a switch (add_flag): given when set
      if (o->as<bool>()) out += " " + o->get_name();
    } else {
      out += flagWords(o->get_name(), o->results());
    }
  }
  return out;
}

CLI::Option *repeatedFlag(CLI::App &cmd, const std::string &name, std::vector<std::string> &values, const std::string &help) {
  return cmd.add_option(name, values, help + " (repeatable)")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
      ->allow_extra_args(false);
}

CLI::Validator inRange(int64_t lo, int64_t hi) {
  std::string want = hi == INT64_MAX ? "an integer >= " + std::to_string(lo)
                                     : "an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
  return CLI::Validator(
      [lo, hi, want](std::string &s) -> std::string {
        int64_t v = 0;
        if (!CLI::detail::lexical_cast(s, v) || v < lo || v > hi) return "needs " + want + ", got '" + s + "'";
        return "";
      },
      "", "inRange");
}

int Cli::main(int argc, char **argv) {
  if (argc < 2 || std::string(argv[1]) == "help") {
    std::cout << app_.help();
    return argc < 2 ? kUsage : kClean;
  }
  std::string first = argv[1];
  // check_name, not get_subcommand_no_throw: CLI11 2.1 (Debian 12) and 2.4 (Debian 13) lack the latter.
  const bool known = std::any_of(runs_.begin(), runs_.end(), [&](const auto &r) { return r.first->check_name(first); });
  if (first.rfind("-", 0) != 0 && !known) {
    std::cerr << "vmapfuzz: error: unknown command '" << first << "' (try vmapfuzz --help)\n";
    return kUsage;
  }
  try {
    app_.parse(argc, argv);
  } catch (const CLI::CallForHelp &) {
    std::cout << app_.help(); // the help of the command named, if one was
    return kClean;
  } catch (const CLI::ParseError &e) {
    std::cerr << "vmapfuzz: error: " << e.what() << " (try vmapfuzz " << (first.rfind("-", 0) ? first + " " : "")
              << "--help)\n";
    return kUsage;
  } catch (const UsageError &e) { // a check that runs while parsing
    std::cerr << "vmapfuzz: error: " << e.what() << "\n";
    return kUsage;
  }
  const Run &run = runs_.at(app_.get_subcommands().front());
  try {
    return run();
  } catch (const vf::EnvironmentError &e) {
    std::cerr << "vmapfuzz: error: " << e.what() << "\n";
    return kEnvironment;
  } catch (const UsageError &e) {
    std::cerr << "vmapfuzz: error: " << e.what() << "\n";
    return kUsage;
  } catch (const std::runtime_error &e) {
    std::cerr << "vmapfuzz: error: " << e.what() << "\n";
    return kEnvironment;
  } catch (const std::exception &e) {
    std::cerr << "vmapfuzz: internal error: " << e.what() << "\n";
    return kInternal;
  }
}

} // namespace vf::cli
