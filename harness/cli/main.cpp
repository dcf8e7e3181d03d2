// The vmapfuzz driver: parses flags, builds the backend, runner and store, dispatches.
#include <unistd.h>

#include <algorithm>
#include <ctime>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <regex>
#include <sstream>

#include <torch/version.h>

#include "generators/case_gen.h"
#include "generators/choices.h"
#include "harness/campaign/campaign.h"
#include "harness/campaign/draw.h"
#include "harness/campaign/replay.h"
#include "harness/report/filed_reports.h"
#include "harness/campaign/caps.h"
#include "harness/campaign/nightly.h"
#include "harness/campaign/summary.h"
#include "harness/backends/torch/preload.h"
#include "harness/backends/torch/python_emit.h"
#include "harness/run/systems.h"
#include "harness/campaign/selftest.h"
#include "harness/report/reproduce.h"
#include "harness/report/shrinker.h"
#include "harness/backends/torch/torch_backend.h"
#include "ir/text.h"
#include "ir/validate.h"
#include "oracles/compare.h"

namespace {

/// Exit codes, one meaning each.
enum Exit { kClean = 0, kFound = 1, kUsage = 2, kEnvironment = 3, kInternal = 4 };

const char *kUsageText = R"(usage: vmapfuzz COMMAND [FLAGS]

commands:
  fuzz    [--time SECONDS] [--cases N] [--seed N] [--out DIR] [--float64] [--no-shrink]
          [--reports DIR] [--corpus DIR] [--jobs N] [--shard I/N] [--summary-json FILE] [--case-log FILE]
          run a campaign; file each new signature under --reports (default OUT/findings), copy
          its shrunk case to --corpus; exit 0 when nothing new was found, 1 when something was.
          --jobs: worker processes run cases in parallel; --shard I/N: only case indices i
          with i % N == I (shards of one seed never overlap); --summary-json: counts, case
          indices and findings for `merge`; --case-log: one line per case and mode (index,
          case seed, size, system, verdict, signature)
          [--coverage on|new|off|FILE,...] [--mutate-share PERCENT] [--corpus-dir DIR]: coverage
          of torch's batching code (default on) steers the campaign: cases reaching a new line or
          branch edge join a corpus, and --mutate-share (default 10) percent of cases are
          mutants of corpus cases; --corpus-dir keeps the corpus between runs; OUT/lcov.info.
          --coverage new: each case reports only what its worker never saw (cheaper)
  coverage CASES_OR_DIRS... [--out DIR] [--match NAME] [--all]
          run the cases in direct mode; per batching-rule function (every function: --all) the
          lines and branch edges reached and the lines never reached; writes DIR/lcov.info
  merge-corpus DIR... --out DIR
          keep a minimal subset of the corpora with the same coverage (greedy set cover)
  nightly [--budget SECONDS] [--seed N] [--reports DIR] [--regressions DIR] [--out DIR]
          [--no-recheck] [--jobs N] [--shard I/N] [--cases N]
          the CI job: replay the regression corpus (default corpus/regressions), fuzz for the
          rest of the budget (default 600 s; seed default: today, YYYYMMDD), re-check the filed
          reports (default DIR: reports), write OUT (default vmapfuzz-nightly)/summary.{json,md},
          junit.xml and new/; exit 1 only for signatures not filed in --reports before
  merge   SUMMARY.json... [--json FILE] [--markdown FILE] [--junit FILE]
          merge the summaries of the shards of one campaign; exit 1 if any shard found
          something new
  replay  FILE|DIR... [--reports DIR]
          re-run case files (the text format; a directory: every *.vf in it); exit 1 if any
          still fails; --reports: file each failure there as fuzz does. libFuzzer artifacts
          (crash-*, timeout-*, ..., or any file with --bytes) are decoded through the
          generators as the fuzz_case target does
  recheck [DIR]     run every filed repro.py (default DIR: reports) against the installed torch
          and mark each report open, fixed or error in its meta.json
  report  [DIR] [--markdown FILE] [--junit FILE] [--file-issues [--gh PATH]]
          summarise filed reports for CI; --file-issues files open ones with `gh issue create`
  shrink  FILE [--out FILE] [--max-attempts N]   shrink a failing case file (any verdict but
          pass and unsupported, invalid included) keeping its verdict and signature; print the
          smaller case (or write it to --out); exit 1
  caps    which constructs have working batching rules, per mode and device (probes torch;
          default --mode: every compiler, --device cpu,cuda)
  gen     [--case-seed N] [--size N]   print the case a campaign would run for that seed
          [--bytes FILE]    print the case a libFuzzer input (e.g. a crash-<hash> artifact) decodes to
  emit    FILE [--mode MODE]   print the Python a case file is run as (direct: the ops called themselves)
  selftest [--fault NAME]... [--time SECONDS] [--cases N] [--seed N] [--target PERCENT]
          [--no-shrink] [--out DIR] [--list]
          plant each fault (default: all, then the control `none`) in torch's batching rules
          and run a campaign of --time seconds (default 300) per fault; print a table of what
          was detected, how fast and how small it shrank (DIR/selftest.md, DIR/<fault>.vf);
          exit 0 when at least --target % (default 90) were detected and `none` found nothing

common flags:
  --python PATH      python with torch for the worker (default: python3)
  --timeout-ms N     per-run deadline for the worker (default: 60000; 600000 with a precompile mode)
  --memory-mb N      the worker's memory limit (RLIMIT_DATA; default 8192, 0: none)
  --mode LIST        execution modes, comma-separated: direct (the control-flow ops called
                     themselves under vmap: the batching rules without dynamo), eager (the
                     public API), compile-BACKEND[-dynamic|-static] with BACKEND eager, aot_eager
                     or inductor (default: eager; fuzz and nightly: direct,eager)
  --other-modes-share PERCENT   fuzz/nightly: the modes after the first get at most this share
                     of the systems' time (default 50 with the default modes, 100 with --mode)
  --device LIST      cpu, cuda (a ROCm torch counts as cuda; absent devices are skipped)
  --fault NAME       plant a fault in torch's batching rules in the worker (self-tests)
  --preload FILE.py  run FILE.py in each worker at start-up, before any case (repeatable), e.g.
                     a batching rule torch lacks (docs/preload.md); its path and SHA-256 go into
                     every report and repro.py runs it too. A missing file: exit 2; one that
                     raises: exit 3
  --gen KEY=VALUE    generator setting, e.g. --gen max_depth=3 (see generators/policy.cpp)
  --backend LIST     systems under test for fuzz and replay, compared three ways with the
                     reference: torch (the python worker), libtorch (in process, functorch's
                     C++ vmap), or torch,libtorch (default: torch)

exit codes: 0 clean (selftest: target met), 1 findings (selftest: target missed), 2 bad usage or bad input, 3 environment (python/torch), 4 internal error
)";

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// A --preload file's absolute path; a file that is not there is bad input.
std::string preloadPath(const std::string &path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) throw UsageError("--preload " + path + ": no such file");
  return std::filesystem::absolute(path).lexically_normal().string();
}

struct Flags {
  std::map<std::string, std::string> values;
  std::vector<std::string> positional;
  std::vector<std::string> faults;
  std::vector<std::string> gen; ///< KEY=VALUE generator settings
  std::vector<std::string> preloads; ///< --preload files, absolute, in order

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
      else if (key == "preload") f.preloads.push_back(preloadPath(val));
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

const std::map<std::string, bool> kCommon = {{"python", true}, {"timeout-ms", true}, {"fault", true}, {"gen", true},
                                             {"mode", true}, {"device", true}, {"memory-mb", true},
                                             {"backend", true}, {"preload", true}};

/// The generator policy with every --gen KEY=VALUE applied.
vf::GenPolicy policyFrom(const Flags &f) {
  vf::GenPolicy p;
  for (const auto &kv : f.gen)
    if (std::string err = vf::applyPolicySetting(p, kv); !err.empty()) throw UsageError("--gen " + kv + ": " + err);
  return p;
}

std::map<std::string, bool> with(std::map<std::string, bool> m) {
  m.insert(kCommon.begin(), kCommon.end());
  return m;
}

/// The --fault and --preload flags, for reproduce lines: replay must run in the same worker.
/// The flags replay needs to run a case as these flags did (reproduce lines).
std::string runFlags(const Flags &f) { return vf::runFlagsOf(f.faults, f.has("float64"), f.preloads); }

vf::WorkerConfig workerConfig(const Flags &f) {
  vf::WorkerConfig w;
  w.python = f.str("python", "python3");
  w.script = vf::defaultWorkerScript();
  w.faults = f.faults;
  w.preloads = f.preloads;
  w.timeout = std::chrono::milliseconds(f.num("timeout-ms", 60000, 100, 86400000));
  w.memoryLimitMb = f.num("memory-mb", 8192, 0, int64_t{1} << 30);
  if (!std::filesystem::exists(w.script))
    throw std::runtime_error("worker script not found at " + w.script + " (set VMAPFUZZ_WORKER)");
  return w;
}

/// --coverage on|new|off|FILE,FILE...: which torch files the workers collect coverage of ("" off;
/// "new": the default files, each case reporting only what its worker never reported before).
std::string coverageSpec(const Flags &f) {
  std::string v = f.str("coverage", "off");
  if (v == "off") return "";
  return v == "on" || v == "new" ? "default" : v;
}

/// The systems under test the flags ask for: --jobs workers, a runner per --mode and --device.
std::unique_ptr<vf::Systems> startSystems(const Flags &f, std::ostream &log, int jobs = 1,
                                          const std::string &defaultModes = "eager",
                                          const std::string &defaultDevices = "cpu") {
  vf::SystemsConfig sc;
  sc.worker = workerConfig(f);
  sc.jobs = jobs;
  sc.runner.float64Reference = f.has("float64");
  sc.worker.coverage = coverageSpec(f);
  sc.worker.coverageNewOnly = f.str("coverage", "off") == "new";
  try {
    sc.modes = vf::parseModes(f.str("mode", defaultModes));
  } catch (const std::invalid_argument &e) {
    throw UsageError(std::string("--mode: ") + e.what());
  }
  // A precompile run compiles twice and starts a fresh python3 (a first inductor compile alone
  // took 30 s on a busy machine here): 60 s would call slow runs hangs.
  if (!f.has("timeout-ms") && std::any_of(sc.modes.begin(), sc.modes.end(), [](const auto &m) { return m.precompile; }))
    sc.worker.timeout = std::chrono::milliseconds(600000);
  std::stringstream ds(f.str("device", defaultDevices));
  for (std::string d; std::getline(ds, d, ',');) {
    if (d != "cpu" && d != "cuda") throw UsageError("--device: unknown device '" + d + "' (known: cpu, cuda)");
    if (std::find(sc.devices.begin(), sc.devices.end(), d) == sc.devices.end()) sc.devices.push_back(d);
  }
  if (sc.devices.empty()) throw UsageError("--device needs at least one device");
  std::string backends = f.str("backend", "torch");
  sc.torch = sc.libtorch = false;
  std::stringstream bs(backends);
  for (std::string n; std::getline(bs, n, ',');) {
    if (n == "torch") sc.torch = true;
    else if (n == "libtorch") sc.libtorch = true;
    else throw UsageError("--backend takes torch, libtorch or torch,libtorch, got '" + backends + "'");
  }
  if (!sc.torch && !sc.libtorch) throw UsageError("--backend names no backend");
  if (!sc.torch && !f.preloads.empty()) throw UsageError("--preload needs the torch backend (its python worker runs the file)");
  try {
    return std::make_unique<vf::Systems>(sc, log);
  } catch (const std::invalid_argument &e) { // a bad VMAPFUZZ_LIBTORCH_FAULT
    throw UsageError(e.what());
  }
}

/// One eager CPU torch backend with a worker of its own (selftest's clean reference system).
std::unique_ptr<vf::TorchBackend> startBackend(const Flags &f, std::ostream &log) {
  auto b = std::make_unique<vf::TorchBackend>(workerConfig(f));
  try {
    auto info = b->hello();
    log << "vmapfuzz: python " << info.value("python", "?") << ", torch " << info.value("torch", "?") << " (cpu, eager)\n";
  } catch (const std::runtime_error &e) {
    throw vf::EnvironmentError(e.what());
  }
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
vf::Case loadCase(const std::string &path, bool bytes = false, const vf::GenPolicy &policy = {}) {
  std::string text = readFile(path);
  vf::Case c;
  // libFuzzer names its artifacts <kind>-<sha1>; they hold the bytes fuzz_case decoded.
  std::string base = std::filesystem::path(path).filename().string();
  for (const char *kind : {"crash-", "timeout-", "oom-", "leak-", "slow-unit-"})
    if (base.rfind(kind, 0) == 0) bytes = true;
  if (bytes) return vf::caseFromBytes(reinterpret_cast<const uint8_t *>(text.data()), text.size(), policy);
  try {
    c = vf::parseCase(text);
  } catch (const vf::ParseError &e) {
    throw UsageError(path + ":" + std::to_string(e.line) + ":" + std::to_string(e.col) + ": error: " + e.what());
  }
  std::string err = vf::validateCase(c);
  if (!err.empty()) throw UsageError(path + ": invalid case: " + err);
  return c;
}

/// --shard I/N into the campaign options.
void parseShard(const Flags &f, vf::CampaignOptions &opt) {
  if (!f.has("shard")) return;
  std::string sh = f.str("shard", "");
  long long i = -1, n = 0;
  char tail = 0;
  if (std::sscanf(sh.c_str(), "%lld/%lld%c", &i, &n, &tail) != 2 || n < 1 || i < 0 || i >= n)
    throw UsageError("--shard needs I/N with 0 <= I < N, got '" + sh + "'");
  opt.shard = i;
  opt.shards = n;
}

/// How findings are filed for these flags: the environment of the systems, and a standalone
/// confirmation of each repro.py unless faults are planted (the worker has them, a fresh python
/// on clean torch does not, so it could confirm nothing).
vf::StoreOptions storeOptions(const Flags &f, const vf::Systems &systems) {
  vf::StoreOptions so;
  so.environment = systems.environment();
  if (f.faults.empty()) so.confirmPython = f.str("python", "python3");
  else so.environment["planted_faults"] = f.faults;
  return so;
}

/// The modes a campaign explores in by default: `direct` (the batching rules alone, hundreds of
/// cases a second) for most of the time, and `eager` (the public API, which traces with dynamo)
/// for kDefaultEagerShare percent of the time the systems take.
const char *const kCampaignModes = "direct,eager";
constexpr int kDefaultEagerShare = 50;

/// What a campaign learns before it starts: the share of time of the modes after the first
/// (--other-modes-share; by default 50 % with the default modes, 100 % with --mode), and which
/// constructs the installed torch cannot batch (start-up probes).
void campaignModes(const Flags &f, const vf::Systems &systems, vf::CampaignOptions &opt) {
  int share = static_cast<int>(f.num("other-modes-share", f.has("mode") ? 100 : kDefaultEagerShare, 0, 100));
  opt.otherModesShare = share / 100.0;
  vf::learnUnsupported(systems.runners(), opt, std::cerr);
}

/// Coverage guidance from the flags: on when the workers collect coverage; --mutate-share
/// (percent, default kDefaultMutateShare) and --corpus-dir.
/// Measured (bench/RESULTS.md, issue 17): at 50 % the mutants reached no line or edge that fresh
/// cases did not also reach within minutes, and a guided run made up to 4x fewer cases (corpus
/// cases are the larger ones). Until mutation earns its share, a default campaign spends 10 % on it.
constexpr int kDefaultMutateShare = 10;

void guidedOptions(const Flags &f, const vf::Systems &systems, vf::CampaignOptions &opt) {
  opt.guided.on = !systems.coverageTable().is_null();
  opt.guided.table = vf::PyCovTable::fromJson(systems.coverageTable());
  opt.guided.mutateShare = static_cast<double>(f.num("mutate-share", kDefaultMutateShare, 0, 100)) / 100.0;
  opt.guided.corpusDir = f.str("corpus-dir", "");
  opt.guided.seeds = vf::loadCorpusDir(opt.guided.corpusDir);
  if (opt.guided.on)
    std::cerr << "vmapfuzz: coverage-guided: " << opt.guided.table.lineCount() << " lines of torch's batching code; "
              << opt.guided.mutateShare * 100 << "% of cases mutate corpus cases"
              << (opt.guided.corpusDir.empty() ? "" : "; corpus " + opt.guided.corpusDir + " (" +
                                                          std::to_string(opt.guided.seeds.size()) + " cases)")
              << "\n";
}

int cmdFuzz(int argc, char **argv) {
  Flags f = Flags::parse(argc, argv, 2, with({{"time", true}, {"cases", true}, {"seed", true}, {"out", true}, {"float64", false}, {"no-shrink", false}, {"reports", true}, {"corpus", true}, {"jobs", true}, {"shard", true}, {"summary-json", true}, {"case-log", true}, {"other-modes-share", true},
                                            {"coverage", true}, {"corpus-dir", true}, {"mutate-share", true}}));
  if (!f.positional.empty()) throw UsageError("fuzz takes no positional arguments");
  if (!f.has("coverage")) f.values["coverage"] = "on"; // a campaign is guided unless --coverage off
  vf::CampaignOptions opt;
  opt.seconds = static_cast<double>(f.num("time", 60, 0, 100000000));
  opt.maxCases = f.num("cases", -1, -1, INT64_MAX);
  opt.seed = f.u64("seed", 1);
  opt.tty = isatty(2);
  opt.policy = policyFrom(f);
  opt.shrink = !f.has("no-shrink");
  opt.genFlags = vf::genFlagsOf(f.gen);
  opt.runFlags = runFlags(f);
  parseShard(f, opt);
  int jobs = static_cast<int>(f.num("jobs", 1, 1, 256));
  std::string out = f.str("out", "vmapfuzz-out");
  auto systems = startSystems(f, std::cerr, jobs, kCampaignModes);
  if (systems->empty()) return kClean; // every device skipped: said so above
  campaignModes(f, *systems, opt);
  guidedOptions(f, *systems, opt);
  vf::StoreOptions so = storeOptions(f, *systems);
  so.corpusDir = f.str("corpus", "");
  std::string reports = f.str("reports", out + "/findings");
  vf::FindingStore store(reports, so);
  std::cerr << "vmapfuzz: fuzzing for " << opt.seconds << " s, seed " << opt.seed;
  if (opt.shards > 1) std::cerr << ", shard " << opt.shard << "/" << opt.shards;
  std::cerr << ", filing to " << reports << " (" << store.all().size() << " signatures filed already)\n";
  std::ofstream caseLog;
  if (f.has("case-log")) {
    caseLog.open(f.str("case-log", ""));
    if (!caseLog) throw UsageError("--case-log: cannot write " + f.str("case-log", ""));
    caseLog << "index\tcase_seed\tsize\tsystem\tverdict\tsignature\n";
    opt.caseLog = &caseLog;
  }
  auto stats = vf::runCampaign(opt, systems->jobs(), store, std::cerr);
  vf::printSummary(stats, store, std::cout);
  if (!stats.guided.table.empty()) {
    std::filesystem::create_directories(out);
    vf::writeFileAtomic(out + "/lcov.info", vf::lcovTrace(stats.guided.table, stats.guided.cov));
    std::cout << "python coverage: " << out << "/lcov.info\n";
  }
  if (f.has("summary-json"))
    vf::writeFileAtomic(f.str("summary-json", ""), vf::summaryJson(opt, stats, store).dump(2) + "\n");
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
  auto systems = startSystems(f, std::cerr);
  const nlohmann::json &env = systems->environment();
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
  Flags f = Flags::parse(argc, argv, 2, with({{"float64", false}, {"backend", true}, {"bytes", false}, {"reports", true}}));
  if (f.positional.empty()) throw UsageError("replay needs at least one case file or directory");
  f.positional = expandCaseFiles(f.positional);
  std::vector<vf::Case> cases;
  for (const auto &p : f.positional) cases.push_back(loadCase(p, f.has("bytes"), policyFrom(f))); // all parse errors before any run
  auto systems = startSystems(f, std::cerr);
  if (systems->empty()) return kClean;
  const auto &runners = systems->runners();
  std::unique_ptr<vf::FindingStore> store; // --reports: file each failure as a campaign would
  if (f.has("reports")) store = std::make_unique<vf::FindingStore>(f.str("reports", ""), storeOptions(f, *systems));
  int rc = kClean;
  for (size_t i = 0; i < cases.size(); ++i) {
    // The reproduce line names the case.vf filed beside the report, not this machine's path.
    for (const auto &[r, failing, filed, setAside] :
         vf::replayCase(cases[i], runners, store.get(), runFlags(f), "case.vf")) {
      std::cout << f.positional[i] << ": " << (runners.size() > 1 ? r.system + ": " : "") << vf::verdictName(r.verdict);
      if (!r.summary.empty()) std::cout << ": " << r.summary;
      std::cout << "\n";
      for (size_t k = 0; k < r.expected.size(); ++k) std::cout << "  expected output " << k << ": " << vf::describeTensor(r.expected[k]) << "\n";
      for (size_t k = 0; k < r.actual.size(); ++k) std::cout << "  batched  output " << k << ": " << vf::describeTensor(r.actual[k]) << "\n";
      if (!setAside.empty()) std::cout << "  set aside (not a torch bug): " << setAside << "\n";
      if (!failing) continue;
      rc = kFound;
      if (filed) std::cout << "  " << (filed->isNew ? "filed: " : "known: ") << filed->dir << "\n";
    }
  }
  return rc;
}

int cmdShrink(int argc, char **argv) {
  Flags f = Flags::parse(argc, argv, 2, with({{"float64", false}, {"out", true}, {"max-attempts", true}}));
  if (f.positional.size() != 1) throw UsageError("shrink needs exactly one case file");
  vf::Case c = loadCase(f.positional[0]);
  auto systems = startSystems(f, std::cerr);
  if (systems->empty()) return kClean;
  vf::Runner &runner = *systems->runners().front();
  vf::CaseResult r = runner.run(c);
  if (r.verdict == vf::Verdict::Pass || r.verdict == vf::Verdict::Unsupported)
    throw UsageError(f.positional[0] + ": " + std::string(vf::verdictName(r.verdict)) + " in " + r.system + ", nothing to shrink");
  std::cerr << "vmapfuzz shrink: " << vf::verdictName(r.verdict) << ": " << r.summary << "\n";
  vf::ShrinkStats ss;
  vf::Case small = vf::shrinkCase(c, [&](const vf::Case &cand) {
    return vf::failsTheSameWay(r, runner.run(cand));
  }, &ss, static_cast<int>(f.num("max-attempts", 2000, 1, 1000000)));
  std::cerr << "vmapfuzz shrink: " << c.program.size() << " -> " << small.program.size() << " statements in "
            << ss.attempts << " attempts\n";
  if (f.has("out")) vf::writeFileAtomic(f.str("out", ""), vf::printCase(small));
  else std::cout << vf::printCase(small);
  return kFound;
}

int cmdNightly(int argc, char **argv) {
  Flags f = Flags::parse(argc, argv, 2, with({{"budget", true}, {"seed", true}, {"reports", true}, {"regressions", true},
                                              {"out", true}, {"no-recheck", false}, {"jobs", true}, {"shard", true}, {"cases", true},
                                              {"other-modes-share", true}}));
  if (!f.positional.empty()) throw UsageError("nightly takes no positional arguments");
  vf::NightlyOptions no;
  no.budgetSeconds = static_cast<double>(f.num("budget", 600, 1, 100000000));
  std::time_t now = std::time(nullptr);
  char today[16];
  std::strftime(today, sizeof today, "%Y%m%d", std::gmtime(&now));
  no.campaign.seed = f.u64("seed", std::stoull(today)); // a new part of the space every night, replayable
  no.campaign.tty = isatty(2);
  no.campaign.policy = policyFrom(f);
  no.campaign.genFlags = vf::genFlagsOf(f.gen);
  no.campaign.runFlags = runFlags(f);
  parseShard(f, no.campaign);
  no.campaign.maxCases = f.num("cases", -1, -1, INT64_MAX);
  no.reportsDir = f.str("reports", "reports");
  no.outDir = f.str("out", "vmapfuzz-nightly");
  std::string regressions = f.str("regressions", "corpus/regressions");
  if (std::filesystem::is_directory(regressions)) {
    if (!std::filesystem::is_empty(regressions))
      for (const auto &file : expandCaseFiles({regressions})) no.regressions.push_back({file, loadCase(file)});
  } else if (f.has("regressions"))
    throw UsageError("--regressions " + regressions + ": not a directory");
  auto systems = startSystems(f, std::cerr, static_cast<int>(f.num("jobs", 1, 1, 256)), kCampaignModes);
  if (systems->empty()) return kClean;
  campaignModes(f, *systems, no.campaign);
  if (!f.has("no-recheck")) no.python = f.str("python", "python3");
  vf::FindingStore store(no.reportsDir, storeOptions(f, *systems));
  std::cerr << "vmapfuzz nightly: budget " << no.budgetSeconds << " s, seed " << no.campaign.seed << ", "
            << store.all().size() << " signatures filed in " << no.reportsDir << "\n";
  return vf::runNightly(no, *systems, store, std::cerr) > 0 ? kFound : kClean;
}

int cmdMerge(int argc, char **argv) {
  Flags f = Flags::parse(argc, argv, 2, {{"json", true}, {"markdown", true}, {"junit", true}});
  if (f.positional.empty()) throw UsageError("merge needs the summary.json of every shard");
  std::vector<nlohmann::json> shards;
  for (const auto &p : f.positional) {
    auto j = nlohmann::json::parse(readFile(p), nullptr, false);
    if (j.is_discarded() || !j.is_object()) throw UsageError(p + ": not a JSON summary");
    shards.push_back(std::move(j));
  }
  nlohmann::json merged;
  try {
    merged = vf::mergeSummaries(shards);
  } catch (const std::exception &e) { // bad shapes (nlohmann) or shards of different campaigns
    throw UsageError(std::string("cannot merge: ") + e.what());
  }
  if (f.has("json")) vf::writeFileAtomic(f.str("json", ""), merged.dump(2) + "\n");
  if (f.has("markdown")) vf::writeFileAtomic(f.str("markdown", ""), vf::summaryMarkdown(merged));
  if (f.has("junit")) vf::writeFileAtomic(f.str("junit", ""), vf::summaryJUnit(merged));
  std::cout << vf::summaryMarkdown(merged);
  return merged.value("new_findings", 0) > 0 ? kFound : kClean;
}

/// The cases of `coverage` and `merge-corpus`: files and every .vf under directories.
std::vector<vf::Case> loadCases(const std::vector<std::string> &args) {
  std::vector<vf::Case> cases;
  for (const auto &p : expandCaseFiles(args)) cases.push_back(loadCase(p));
  return cases;
}

int cmdCoverage(int argc, char **argv) {
  Flags f = Flags::parse(argc, argv, 2, with({{"out", true}, {"coverage", true}, {"match", true}, {"all", false}}));
  if (f.positional.empty()) throw UsageError("coverage needs case files or corpus directories");
  if (!f.has("coverage")) f.values["coverage"] = "on";
  auto cases = loadCases(f.positional);
  auto systems = startSystems(f, std::cerr, 1, "direct");
  if (systems->empty()) return kClean;
  vf::PyCovTable table = vf::PyCovTable::fromJson(systems->coverageTable());
  if (table.empty()) throw UsageError("coverage needs --coverage on or a list of files");
  vf::PyCoverage cov;
  for (const auto &keys : vf::coverageOfCases(cases, systems->runners())) cov.add(keys);
  std::cout << cases.size() << " cases: " << cov.lines() << "/" << table.lineCount() << " lines, " << cov.branchEdges()
            << "/" << table.branchEdgeCount() << " branch edges of the target files\n";
  if (!f.has("all")) { // the batching rules and vmap's front end unless --all
    vf::PyCovTable rules;
    for (const auto &fn : table.funcs)
      if (vf::isBatchingRule(fn.name)) rules.funcs.push_back(fn);
    vf::printPyCoverage(rules, cov, std::cout, f.str("match", ""), true);
  } else {
    vf::printPyCoverage(table, cov, std::cout, f.str("match", ""), true);
  }
  std::string out = f.str("out", "vmapfuzz-out");
  std::filesystem::create_directories(out);
  vf::writeFileAtomic(out + "/lcov.info", vf::lcovTrace(table, cov));
  std::cout << "lcov: " << out << "/lcov.info\n";
  return kClean;
}

int cmdMergeCorpus(int argc, char **argv) {
  Flags f = Flags::parse(argc, argv, 2, with({{"out", true}, {"coverage", true}}));
  if (f.positional.empty() || !f.has("out")) throw UsageError("merge-corpus needs corpus directories and --out DIR");
  if (!f.has("coverage")) f.values["coverage"] = "on";
  auto cases = loadCases(f.positional);
  auto systems = startSystems(f, std::cerr, 1, "direct");
  if (systems->empty()) return kClean;
  auto sets = vf::coverageOfCases(cases, systems->runners());
  auto keep = vf::minimalCover(sets);
  vf::PyCoverage all, kept;
  for (const auto &s : sets) all.add(s);
  std::string out = f.str("out", "");
  for (size_t i : keep) {
    kept.add(sets[i]);
    vf::saveCorpusCase(out, cases[i]);
  }
  std::cout << "kept " << keep.size() << " of " << cases.size() << " cases in " << out << ": " << kept.lines()
            << " lines, " << kept.branchEdges() << " branch edges (all cases: " << all.lines() << ", "
            << all.branchEdges() << ")\n";
  return kClean;
}

int cmdCaps(int argc, char **argv) {
  Flags f = Flags::parse(argc, argv, 2, with({}));
  if (!f.positional.empty()) throw UsageError("caps takes no positional arguments");
  auto systems = startSystems(f, std::cerr, 1, "eager,compile-eager,compile-aot_eager,compile-inductor,precompile-aot_eager", "cpu,cuda");
  if (systems->empty()) return kClean;
  const auto &env = systems->environment();
  std::cout << "batching rules in torch " << env.value("torch", "?") << " (python " << env.value("python", "?")
            << "): ok = batched equals per-example; no rule = torch says it cannot vmap this\n";
  for (const auto &p : vf::preloadsOf(env)) std::cout << "preloaded: " << p.path << " (sha256 " << p.sha256 << ")\n";
  std::cout << "\n";
  vf::printCapabilities(systems->runners(), std::cout);
  for (const auto &s : systems->skipped()) std::cout << s << "\n";
  return kClean;
}

int cmdGen(int argc, char **argv) {
  Flags f = Flags::parse(argc, argv, 2, with({{"case-seed", true}, {"size", true}, {"bytes", true}}));
  if (f.has("bytes")) {
    std::string b = readFile(f.str("bytes", ""));
    std::cout << vf::printCase(vf::caseFromBytes(reinterpret_cast<const uint8_t *>(b.data()), b.size(), policyFrom(f)));
    return kClean;
  }
  // The same draw as the campaign's, data re-drawn for predicate margins included.
  vf::Case c = vf::drawCase(f.u64("case-seed", 1), static_cast<int>(f.num("size", 50, 0, 1000)), policyFrom(f)).c;
  std::cout << vf::printCase(c);
  return kClean;
}

int cmdEmit(int argc, char **argv) {
  Flags f = Flags::parse(argc, argv, 2, {{"mode", true}});
  if (f.positional.size() != 1) throw UsageError("emit needs exactly one case file");
  auto mode = vf::parseMode(f.str("mode", "eager"));
  if (!mode) throw UsageError("--mode: unknown mode '" + f.str("mode", "") + "'");
  std::cout << vf::emitModule(loadCase(f.positional[0]), mode->api);
  return kClean;
}

int cmdSelftest(int argc, char **argv) {
  Flags f = Flags::parse(argc, argv, 2, with({{"time", true}, {"cases", true}, {"seed", true}, {"target", true},
                                              {"no-shrink", false}, {"out", true}, {"list", false}}));
  if (!f.positional.empty()) throw UsageError("selftest takes no positional arguments (faults go with --fault)");
  vf::SelftestOptions opt;
  opt.secondsPerFault = static_cast<double>(f.num("time", 300, 1, 100000000));
  opt.casesPerFault = f.num("cases", -1, -1, INT64_MAX);
  opt.seed = f.u64("seed", 1);
  opt.targetRate = static_cast<double>(f.num("target", 90, 0, 100)) / 100.0;
  opt.policy = policyFrom(f);
  opt.shrink = !f.has("no-shrink");
  opt.genFlags = vf::genFlagsOf(f.gen);
  std::string python = f.str("python", "python3");
  std::string faultsScript = std::filesystem::path(vf::defaultWorkerScript()).parent_path() / "vmapfuzz_faults.py";
  auto known = vf::listFaults(python, faultsScript);
  if (f.has("list")) {
    for (const auto &[name, doc] : known) std::cout << name << "\t" << doc << "\n";
    return kClean;
  }
  std::vector<std::string> faults = f.faults;
  if (faults.empty()) {
    for (const auto &k : known) faults.push_back(k.first);
    faults.push_back(vf::kNoFault);
  }
  for (const auto &x : faults)
    if (x != vf::kNoFault && std::none_of(known.begin(), known.end(), [&](const auto &k) { return k.first == x; }))
      throw UsageError("unknown fault '" + x + "' (vmapfuzz selftest --list shows them)");
  Flags cleanFlags = f;
  cleanFlags.faults.clear();
  auto clean = startBackend(cleanFlags, std::cerr);
  vf::BackendFactory make = [&](const std::vector<std::string> &planted) -> std::unique_ptr<vf::Backend> {
    Flags g = cleanFlags;
    g.faults = planted;
    auto b = std::make_unique<vf::TorchBackend>(workerConfig(g));
    b->hello(); // starts the worker and plants the fault: a fault that does not plant fails here
    return b;
  };
  std::cerr << "vmapfuzz selftest: " << faults.size() << " faults, " << opt.secondsPerFault << " s each, seed " << opt.seed
            << "\n";
  std::vector<vf::FaultResult> results;
  for (const auto &x : faults) results.push_back(vf::runFaultCampaign(x, opt, make, *clean, std::cerr));
  std::ostringstream table;
  vf::printSelftestTable(results, table);
  std::cout << table.str();
  if (f.has("out")) {
    std::string out = f.str("out", "");
    std::filesystem::create_directories(out);
    vf::writeFileAtomic(out + "/selftest.md", table.str());
    for (const auto &r : results)
      if (r.detected)
        vf::writeFileAtomic(out + "/" + r.fault + ".vf", "# " + r.verdict + " with --fault " + r.fault + ": " + r.summary.substr(0, 300) +
                                                             "\n# found by: " + r.reproduce + "\n" + r.shrunkCase);
  }
  vf::PhaseTimes all;
  double wall = 0;
  for (const auto &r : results) {
    wall += r.seconds + r.shrinkSeconds;
    all += r.phases;
  }
  all.print(std::cerr, wall);
  return vf::selftestTargetMet(results, opt.targetRate) ? kClean : kFound;
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 2 || std::string(argv[1]) == "help") {
    std::cout << kUsageText;
    return argc < 2 ? kUsage : kClean;
  }
  for (int i = 1; i < argc; ++i) // `vmapfuzz fuzz --help` too
    if (std::string(argv[i]) == "--help" || std::string(argv[i]) == "-h") {
      std::cout << kUsageText;
      return kClean;
    }
  std::string cmd = argv[1];
  static const std::map<std::string, std::function<int(int, char **)>> cmds = {
      {"fuzz", cmdFuzz}, {"replay", cmdReplay}, {"gen", cmdGen}, {"emit", cmdEmit}, {"recheck", cmdRecheck},
      {"report", cmdReport}, {"caps", cmdCaps}, {"nightly", cmdNightly}, {"merge", cmdMerge},
      {"selftest", cmdSelftest}, {"shrink", cmdShrink}, {"coverage", cmdCoverage}, {"merge-corpus", cmdMergeCorpus}};
  auto it = cmds.find(cmd);
  if (it == cmds.end()) {
    std::cerr << "vmapfuzz: error: unknown command '" << cmd << "' (try vmapfuzz --help)\n";
    return kUsage;
  }
  try {
    return it->second(argc, argv);
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
