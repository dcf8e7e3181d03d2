// The vmapfuzz driver: parses flags, builds the backend, runner and store, dispatches.
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <sstream>

#include "generators/case_gen.h"
#include "generators/margin.h"
#include "harness/campaign.h"
#include "harness/filed_reports.h"
#include "harness/python_emit.h"
#include "harness/torch_backend.h"
#include "ir/text.h"
#include "ir/validate.h"
#include "oracles/compare.h"

namespace {

/// Exit codes, one meaning each.
enum Exit { kClean = 0, kFound = 1, kUsage = 2, kEnvironment = 3, kInternal = 4 };

const char *kUsageText = R"(usage: vmapfuzz COMMAND [FLAGS]

commands:
  fuzz    [--time SECONDS] [--cases N] [--seed N] [--out DIR] [--float64] [--no-shrink]
          [--reports DIR] [--corpus DIR]
          run a campaign; file each new signature under --reports (default OUT/findings), copy
          its shrunk case to --corpus; exit 0 when nothing new was found, 1 when something was
  replay  FILE|DIR...   re-run case files (the text format; a directory: every *.vf in it);
          exit 1 if any still fails
  recheck [DIR]     run every filed repro.py (default DIR: reports) against the installed torch
          and mark each report open, fixed or error in its meta.json
  report  [DIR] [--markdown FILE] [--junit FILE] [--file-issues [--gh PATH]]
          summarise filed reports for CI; --file-issues files open ones with `gh issue create`
  gen     [--case-seed N] [--size N]   print the case a campaign would run for that seed
  emit    FILE      print the Python a case file is run as

common flags:
  --python PATH      python with torch for the worker (default: python3)
  --timeout-ms N     per-run deadline for the worker (default: 60000)
  --fault NAME       plant a fault in torch's batching rules in the worker (self-tests)
  --gen KEY=VALUE    generator setting, e.g. --gen max_depth=3 (see generators/policy.cpp)

exit codes: 0 clean, 1 findings, 2 bad usage or bad input, 3 environment (python/torch), 4 internal error
)";

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Flags {
  std::map<std::string, std::string> values;
  std::vector<std::string> positional;
  std::vector<std::string> faults;
  std::vector<std::string> gen; ///< KEY=VALUE generator settings

  static Flags parse(int argc, char **argv, int from, const std::map<std::string, bool> &known) {
    Flags f;
    for (int i = from; i < argc; ++i) {
      std::string a = argv[i];
      if (a.rfind("--", 0) != 0) {
        f.positional.push_back(a);
        continue;
      }
      std::string key = a.substr(2), val;
      auto eq = key.find('=');
      if (eq != std::string::npos) {
        val = key.substr(eq + 1);
        key = key.substr(0, eq);
      }
      auto it = known.find(key);
      if (it == known.end()) throw UsageError("unknown flag --" + key);
      if (it->second && eq == std::string::npos) {
        if (i + 1 >= argc) throw UsageError("flag --" + key + " needs a value");
        val = argv[++i];
      }
      if (key == "fault") f.faults.push_back(val);
      else if (key == "gen") f.gen.push_back(val);
      else f.values[key] = val;
    }
    return f;
  }

  bool has(const std::string &k) const { return values.count(k) > 0; }

  int64_t num(const std::string &k, int64_t def, int64_t lo, int64_t hi) const {
    auto it = values.find(k);
    if (it == values.end()) return def;
    size_t used = 0;
    int64_t v = 0;
    try {
      v = std::stoll(it->second, &used);
    } catch (...) {
      used = 0;
    }
    if (used == 0 || used != it->second.size() || v < lo || v > hi)
      throw UsageError("--" + k + " needs an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], got '" +
                       it->second + "'");
    return v;
  }

  uint64_t u64(const std::string &k, uint64_t def) const {
    auto it = values.find(k);
    if (it == values.end()) return def;
    size_t used = 0;
    uint64_t v = 0;
    try {
      v = std::stoull(it->second, &used);
    } catch (...) {
      used = 0;
    }
    if (used == 0 || used != it->second.size() || it->second[0] == '-')
      throw UsageError("--" + k + " needs a non-negative integer, got '" + it->second + "'");
    return v;
  }

  std::string str(const std::string &k, const std::string &def) const {
    auto it = values.find(k);
    return it == values.end() ? def : it->second;
  }
};

const std::map<std::string, bool> kCommon = {{"python", true}, {"timeout-ms", true}, {"fault", true}, {"gen", true}};

/// The generator policy with every --gen KEY=VALUE applied.
vf::GenPolicy policyFrom(const Flags &f) {
  vf::GenPolicy p;
  for (const auto &kv : f.gen) {
    auto eq = kv.find('=');
    if (eq == std::string::npos) throw UsageError("--gen needs KEY=VALUE, got '" + kv + "'");
    int64_t v = 0;
    try {
      size_t used = 0;
      v = std::stoll(kv.substr(eq + 1), &used);
      if (used != kv.size() - eq - 1) throw std::invalid_argument("trailing");
    } catch (const std::exception &) {
      throw UsageError("--gen " + kv + ": the value must be an integer");
    }
    std::string err = vf::setPolicyField(p, kv.substr(0, eq), v);
    if (!err.empty()) throw UsageError("--gen " + kv + ": " + err);
  }
  return p;
}

std::map<std::string, bool> with(std::map<std::string, bool> m) {
  m.insert(kCommon.begin(), kCommon.end());
  return m;
}

vf::WorkerConfig workerConfig(const Flags &f) {
  vf::WorkerConfig w;
  w.python = f.str("python", "python3");
  w.script = vf::defaultWorkerScript();
  w.faults = f.faults;
  w.timeout = std::chrono::milliseconds(f.num("timeout-ms", 60000, 100, 86400000));
  if (!std::filesystem::exists(w.script))
    throw std::runtime_error("worker script not found at " + w.script + " (set VMAPFUZZ_WORKER)");
  return w;
}

/// Starts the backend and checks python and torch, or fails with an environment error.
std::unique_ptr<vf::TorchBackend> startBackend(const Flags &f, std::ostream &log, nlohmann::json *env = nullptr) {
  auto b = std::make_unique<vf::TorchBackend>(workerConfig(f));
  auto info = b->hello();
  std::string ver = info.value("torch", "?");
  int major = 0, minor = 0;
  sscanf(ver.c_str(), "%d.%d", &major, &minor);
  if (major < 2 || (major == 2 && minor < 5))
    throw std::runtime_error("torch " + ver + " is too old: vmapfuzz needs torch >= 2.5 (torch.cond under vmap)");
  if (env)
    *env = {{"torch", ver}, {"python", info.value("python", "?")}, {"cuda", info["cuda"]}, {"hip", info["hip"]},
            {"device", "cpu"}, {"mode", "eager"}};
  log << "vmapfuzz: python " << info.value("python", "?") << ", torch " << ver << " (cpu, eager)";
  if (!f.faults.empty()) {
    log << ", planted faults:";
    for (const auto &x : f.faults) log << " " << x;
  }
  log << "\n";
  return b;
}

std::string readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UsageError(path + ": cannot read file");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// Reads and validates a case file; errors name the file, line and column.
vf::Case loadCase(const std::string &path) {
  std::string text = readFile(path);
  vf::Case c;
  try {
    c = vf::parseCase(text);
  } catch (const vf::ParseError &e) {
    throw UsageError(path + ":" + std::to_string(e.line) + ":" + std::to_string(e.col) + ": error: " + e.what());
  }
  std::string err = vf::validateCase(c);
  if (!err.empty()) throw UsageError(path + ": invalid case: " + err);
  return c;
}

int cmdFuzz(int argc, char **argv) {
  Flags f = Flags::parse(argc, argv, 2, with({{"time", true}, {"cases", true}, {"seed", true}, {"out", true}, {"float64", false}, {"no-shrink", false}, {"reports", true}, {"corpus", true}}));
  if (!f.positional.empty()) throw UsageError("fuzz takes no positional arguments");
  vf::CampaignOptions opt;
  opt.seconds = static_cast<double>(f.num("time", 60, 0, 100000000));
  opt.maxCases = f.num("cases", -1, -1, INT64_MAX);
  opt.seed = f.u64("seed", 1);
  opt.tty = isatty(2);
  opt.policy = policyFrom(f);
  opt.shrink = !f.has("no-shrink");
  for (const auto &g : f.gen) opt.genFlags += " --gen " + g;
  for (const auto &x : f.faults) opt.runFlags += " --fault " + x;
  if (f.has("float64")) opt.runFlags += " --float64";
  std::string out = f.str("out", "vmapfuzz-out");
  vf::StoreOptions so;
  auto backend = startBackend(f, std::cerr, &so.environment);
  vf::Runner runner(*backend, {f.has("float64")});
  // With faults planted in the worker only, a standalone repro.py runs on clean torch and
  // cannot confirm anything.
  if (f.faults.empty()) so.confirmPython = f.str("python", "python3");
  else so.environment["planted_faults"] = f.faults;
  so.corpusDir = f.str("corpus", "");
  std::string reports = f.str("reports", out + "/findings");
  vf::FindingStore store(reports, so);
  std::cerr << "vmapfuzz: fuzzing for " << opt.seconds << " s, seed " << opt.seed << ", filing to " << reports << " ("
            << store.all().size() << " signatures filed already)\n";
  auto stats = vf::runCampaign(opt, runner, store, std::cerr);
  vf::printSummary(stats, store, std::cout);
  return store.newCount() > 0 ? kFound : kClean;
}

/// Case files named directly, and every *.vf under a named directory (sorted).
std::vector<std::string> expandCaseFiles(const std::vector<std::string> &args) {
  std::vector<std::string> files;
  for (const auto &a : args) {
    if (!std::filesystem::is_directory(a)) {
      files.push_back(a);
      continue;
    }
    std::vector<std::string> found;
    for (const auto &e : std::filesystem::recursive_directory_iterator(a))
      if (e.is_regular_file() && e.path().extension() == ".vf") found.push_back(e.path().string());
    if (found.empty()) throw UsageError(a + ": no .vf case files in this directory");
    std::sort(found.begin(), found.end());
    files.insert(files.end(), found.begin(), found.end());
  }
  return files;
}

std::vector<vf::FiledReport> loadReportsOrUsage(const std::string &dir) {
  try {
    return vf::loadReports(dir);
  } catch (const std::invalid_argument &e) {
    throw UsageError(e.what());
  }
}

int cmdRecheck(int argc, char **argv) {
  Flags f = Flags::parse(argc, argv, 2, with({}));
  if (f.positional.size() > 1) throw UsageError("recheck takes at most one reports directory");
  auto reports = loadReportsOrUsage(f.positional.empty() ? "reports" : f.positional[0]);
  nlohmann::json env;
  auto backend = startBackend(f, std::cerr, &env);
  int open = vf::recheckReports(reports, f.str("python", "python3"), env.value("torch", "?"), std::cout);
  std::cout << reports.size() << " reports re-checked against torch " << env.value("torch", "?") << ": " << open
            << " still open\n";
  return kClean;
}

int cmdReport(int argc, char **argv) {
  Flags f = Flags::parse(argc, argv, 2, {{"markdown", true}, {"junit", true}, {"file-issues", false}, {"gh", true}});
  if (f.positional.size() > 1) throw UsageError("report takes at most one reports directory");
  auto reports = loadReportsOrUsage(f.positional.empty() ? "reports" : f.positional[0]);
  if (f.has("markdown")) vf::writeFileAtomic(f.str("markdown", ""), vf::reportsMarkdown(reports));
  if (f.has("junit")) vf::writeFileAtomic(f.str("junit", ""), vf::reportsJUnit(reports));
  if (!f.has("markdown") && !f.has("junit")) std::cout << vf::reportsMarkdown(reports);
  if (f.has("file-issues")) {
    std::string gh = f.str("gh", "gh");
    std::string probe = "command -v '" + gh + "' >/dev/null 2>&1";
    if (std::system(probe.c_str()) != 0) throw std::runtime_error("--file-issues needs the GitHub CLI '" + gh + "' on PATH");
    int n = vf::fileIssues(reports, gh, std::cerr);
    std::cerr << n << " issue(s) filed\n";
  }
  return kClean;
}

int cmdReplay(int argc, char **argv) {
  Flags f = Flags::parse(argc, argv, 2, with({{"float64", false}}));
  if (f.positional.empty()) throw UsageError("replay needs at least one case file or directory");
  f.positional = expandCaseFiles(f.positional);
  std::vector<vf::Case> cases;
  for (const auto &p : f.positional) cases.push_back(loadCase(p)); // all parse errors before any run
  auto backend = startBackend(f, std::cerr);
  vf::Runner runner(*backend, {f.has("float64")});
  int rc = kClean;
  for (size_t i = 0; i < cases.size(); ++i) {
    auto r = runner.run(cases[i]);
    std::cout << f.positional[i] << ": " << vf::verdictName(r.verdict);
    if (!r.summary.empty()) std::cout << ": " << r.summary;
    std::cout << "\n";
    for (size_t k = 0; k < r.expected.size(); ++k) std::cout << "  expected output " << k << ": " << vf::describeTensor(r.expected[k]) << "\n";
    for (size_t k = 0; k < r.actual.size(); ++k) std::cout << "  batched  output " << k << ": " << vf::describeTensor(r.actual[k]) << "\n";
    if (vf::isFinding(r.verdict) || r.verdict == vf::Verdict::HarnessBug) rc = kFound;
  }
  return rc;
}

int cmdGen(int argc, char **argv) {
  Flags f = Flags::parse(argc, argv, 2, with({{"case-seed", true}, {"size", true}}));
  // The same draw as the campaign's, data re-drawn for predicate margins included.
  vf::Case c = vf::drawCase(f.u64("case-seed", 1), static_cast<int>(f.num("size", 50, 0, 1000)), policyFrom(f)).c;
  std::cout << vf::printCase(c);
  return kClean;
}

int cmdEmit(int argc, char **argv) {
  Flags f = Flags::parse(argc, argv, 2, {});
  if (f.positional.size() != 1) throw UsageError("emit needs exactly one case file");
  std::cout << vf::emitModule(loadCase(f.positional[0]));
  return kClean;
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 2 || std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h" || std::string(argv[1]) == "help") {
    std::cout << kUsageText;
    return argc < 2 ? kUsage : kClean;
  }
  std::string cmd = argv[1];
  static const std::map<std::string, std::function<int(int, char **)>> cmds = {
      {"fuzz", cmdFuzz}, {"replay", cmdReplay}, {"gen", cmdGen}, {"emit", cmdEmit}, {"recheck", cmdRecheck},
      {"report", cmdReport}};
  auto it = cmds.find(cmd);
  if (it == cmds.end()) {
    std::cerr << "vmapfuzz: error: unknown command '" << cmd << "' (try vmapfuzz --help)\n";
    return kUsage;
  }
  try {
    return it->second(argc, argv);
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
