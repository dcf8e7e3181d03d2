#include "harness/report/findings.h"

#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <sys/wait.h>
#include <fstream>
#include <functional>
#include <regex>
#include <sstream>

#include "generators/data.h"
#include "harness/backends/exec_config.h"
#include "harness/report/step_around.h"
#include "harness/report/triage.h"
#include "harness/run/runner.h"
#include "harness/run/systems.h"
#include "ir/differentiable.h"
#include "ir/text.h"
#include "oracles/compare.h"
#include "oracles/reference.h"

namespace fs = std::filesystem;

namespace vf {

namespace {

std::string hex8(const std::string &s) { return fnv1aHex(s).substr(0, 8); }

} // namespace

std::string fnv1aHex(const std::string &text) {
  uint64_t h = 1469598103934665603ULL;
  for (unsigned char ch : text) h = (h ^ ch) * 1099511628211ULL;
  char buf[17];
  snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return std::string(buf, 16);
}

std::string nowUtc() {
  std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

FindingStore::FindingStore(std::string reportsDir, StoreOptions opt) : dir_(std::move(reportsDir)), opt_(std::move(opt)) {
  if (!fs::is_directory(dir_)) return;
  try {
    ReportsLock lock(dir_);
    removeStaleFiling(lock);
  } catch (const FilingError &) { // a folder this process cannot write to: read it as it is
  }
  refresh();
}

void FindingStore::refresh() {
  std::error_code ec;
  for (auto it = fs::directory_iterator(dir_, ec); !ec && it != fs::directory_iterator(); it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.empty() || name[0] == '.' || loaded_.count(name)) continue; // the lock, staging folders
    load(it->path());
  }
}

void FindingStore::load(const fs::path &folder) {
  auto meta = folder / "meta.json";
  if (!fs::exists(meta)) return; // not a report
  try {
    std::ifstream in(meta);
    auto j = nlohmann::json::parse(in);
    const std::string sig = j.at("signature").get<std::string>();
    auto &rec = seen_[sig];
    if (rec.dir.empty()) { // the first folder of a signature filed twice (by an old vmapfuzz) counts
      rec.dir = folder.string();
      rec.signature = sig;
      rec.hits = j.value("hits", int64_t{0});
    }
    for (const auto &alias : j.value("aliases", std::vector<std::string>{}))
      if (alias != sig) aliases_[alias] = sig;
  } catch (const std::exception &ex) {
    throw std::runtime_error(meta.string() + ": unreadable meta.json: " + ex.what());
  }
  loaded_.insert(folder.filename().string());
}

size_t FindingStore::unique() const {
  size_t n = 0;
  for (const auto &[k, r] : seen_) n += r.hitsNow > 0;
  return n;
}

size_t FindingStore::newCount() const {
  size_t n = 0;
  for (const auto &[k, r] : seen_) n += r.isNew;
  return n;
}

namespace {

/// Runs repro.py alone in a fresh python; its exit status says whether the disagreement shows
/// without vmapfuzz.
std::string confirmInFreshPython(const std::string &python, const std::string &script, const std::string &dir, int seconds) {
  std::string cmd = "cd '" + dir + "' && timeout " + std::to_string(seconds) + " '" + python + "' '" + script + "' > repro.out 2>&1";
  int st = std::system(cmd.c_str());
  if (st == -1 || !WIFEXITED(st)) return "not checked";
  const int code = WEXITSTATUS(st);
  return standaloneVerdict(code, code == 124, seconds); // 124: timeout(1) stopped it
}

std::string title(const Case &c, const CaseResult &r) {
  std::string list = constructList(c);
  std::string what = list.empty() ? "torch.vmap" : "torch.vmap of torch." + list.substr(0, list.find_first_of("-,"));
  if (r.verdict == Verdict::Mismatch && forwardMode(r.system.grad()))
    return "torch.func.jvp of " + what + " differs from the per-example derivatives";
  if (r.verdict == Verdict::Mismatch && r.system.exec.gradient())
    return "the gradients of " + what + " differ from those of running each example alone";
  if (r.verdict == Verdict::Mismatch) return what + " returns a different result than running each example alone";
  if (r.verdict == Verdict::BatchedError) return what + " raises " + r.errorType + " where each example alone runs";
  if (r.verdict == Verdict::Crash) return what + " kills the process (" + r.summary + ")";
  if (r.verdict == Verdict::Hang) return what + " does not finish (" + r.summary + ")";
  if (r.verdict == Verdict::Oom) return what + " runs out of memory (" + r.summary + ")";
  return what + ": " + std::string(verdictName(r.verdict));
}

} // namespace

/// A new finding as it is filed: the shrunk case, its result (relabelled to the mode it is filed
/// as), the signature and what filing learnt of it.
struct FindingStore::Filing {
  const Case &c;
  const CaseResult &r;     ///< `found` with the system it is filed as (a forward bug: the forward mode)
  const CaseResult &found; ///< as the runner classified it
  const std::string &reproduceLine, &shrinkNote;
  const Signature &full;
  std::string sig;
  std::vector<Closeness> closest;
  nlohmann::json env; ///< the campaign's, with the mode and device that found it
  const ReproWriter &writer;
};

namespace {

using Filing = FindingStore::Filing;

std::string reportMarkdown(const Filing &f) {
  const Case &c = f.c;
  const CaseResult &r = f.r;
  const Signature &sig = f.full;
  std::ostringstream md;
  md << "# " << title(c, r) << "\n\n";
  md << "## What happens\n\n";
  // Which rule is wrong first, found by swapping components for per-example loops.
  if (!sig.culprits.tried.empty())
    md << "Culprit, by experiment (" << sig.culprits.runs << (sig.culprits.runs == 1 ? " run" : " runs") << "): "
       << sig.culprits.sentence() << ".\n\n";
  // The root cause: what the failure needs, found by ablation.
  if (!sig.essential.empty()) {
    md << "Root cause, by ablation (" << sig.probes << (sig.probes == 1 ? " run" : " runs")
       << ", each with one feature of the batching changed): it " << sig.essential << ".";
    if (r.verdict == Verdict::Mismatch)
      md << " The " << differenceKind(r, false) << " of " << (differenceKind(r, true).ends_with(":all") ? "every output" : "some outputs")
         << " differs.";
    else
      md << " The error's class (its exception and where it is raised) is what the ablation kept.";
    md << "\n\n";
  }
  if (!sig.frame.empty()) md << "Raised in torch at `" << sig.frame << "`.\n\n";
  // A gradient mode's outputs are the gradients of the floating inputs, named by input.
  const bool grad = r.system.exec.gradient();
  const bool jvp = forwardMode(r.system.grad());
  auto item = [&](size_t i) {
    auto gin = gradInputs(c.program);
    auto gout = gradOutputs(c.program);
    if (jvp && i < gout.size()) return "tangent of output " + std::to_string(gout[i]);
    return grad && i < gin.size() ? "gradient of x" + std::to_string(c.program.body.params[gin[i]].id) : "output " + std::to_string(i);
  };
  if (jvp) {
    md << "Mode `" << r.system.str() << "`: " << r.system.modeName()
       << " computes the tangents of the floating outputs of the batched program (torch.func.jvp with random tangents, "
          "in repro.py); they should equal the per-example Jacobian-vector products (plain autograd).\n\n";
  } else if (grad) {
    md << "Mode `" << r.system.str() << "`: " << r.system.modeName()
       << " computes the gradients of the floating inputs of the batched program (a vector-Jacobian product with random "
          "cotangents, in repro.py); they should equal those of running each example alone under plain autograd.\n\n";
  }
  if (r.verdict == Verdict::Mismatch) {
    md << "The batched result differs from the per-example result: " << r.summary << ".\n\n";
    for (size_t i = 0; i < r.actual.size(); ++i) md << "- batched " << item(i) << ": `" << describeTensor(r.actual[i]) << "`\n";
  } else if (!r.errorType.empty()) {
    md << "The batched run raises `" << r.errorType << "`:\n\n```\n" << errorGist(r.errorMessage) << "\n```\n";
  } else {
    md << r.summary << "\n";
  }
  if (!r.elsewhere.empty()) md << "\n**Where it shows:** " << r.elsewhere << "\n";
  if (grad)
    md << "\n## What should happen\n\nThe gradients of `torch.vmap(program)(*inputs)` (with the cotangents in repro.py) should "
          "equal those of running `program` on each example alone and stacking the results (`vjp_of(per_example)` in the "
          "script below), which runs fine:\n\n";
  else
    md << "\n## What should happen\n\n`torch.vmap(program)(*inputs)` should equal running `program` on each example "
          "alone and stacking the results (`per_example` in the script below), which runs fine:\n\n";
  for (size_t i = 0; i < r.expected.size(); ++i) md << "- expected " << item(i) << ": `" << describeTensor(r.expected[i]) << "`\n";
  md << "\n## Reproduce\n\nThe program, per example (the batching is in `batched`):\n\n```" << f.writer.language() << "\n"
     << f.writer.program(c, r.system) << "```\n\n`python3 " << f.writer.scriptName()
     << "` (beside this report; needs only torch) exits 1 while the bug is there and 0 once it is fixed.\n\nvmapfuzz: `"
     << f.reproduceLine << "`\n\n";
  md << "## Environment\n\n";
  for (auto it = f.env.begin(); it != f.env.end(); ++it)
    if (it.key() != "preload") md << "- " << it.key() << ": " << it.value().dump() << "\n";
  for (const auto &line : f.writer.environmentLines(f.env)) md << "- " << line << "\n";
  if (!f.closest.empty()) {
    // Triage: a new signature, but maybe a relative of a filed one (the same frame, another message).
    md << "\n## Closest filed reports\n\nThis signature is new. The filed reports nearest to it:\n\n";
    for (const auto &c : f.closest)
      md << "- `" << c.report << "` (" << static_cast<int>(c.score * 100 + 0.5) << "% alike): shares " << c.shares
         << (c.differs.empty() ? "" : "; differs: " + c.differs) << "\n";
  }
  md << "\nFound and shrunk by vmapfuzz. The case in its text format is `case.vf`.\n";
  return md.str();
}

} // namespace

void FindingStore::countHit(const ReportsLock &lock, FindingRecord &rec) {
  nlohmann::json meta;
  try {
    meta = updateMeta(lock, rec.dir, [&](nlohmann::json &m) {
      m["signature"] = rec.signature;
      m["hits"] = m.value("hits", int64_t{0}) + 1; // what is on disk: other campaigns' hits too
      m["last_seen"] = nowUtc();
    });
  } catch (const std::system_error &e) {
    throw cannotFile(rec.dir, e.code().message(), "counting a hit in meta.json");
  }
  rec.hits = meta["hits"].get<int64_t>();
  rec.hitsNow++;
}

FindingRecord FindingStore::record(const Case &c, const CaseResult &r, const std::string &reproduceLine,
                                   const std::string &shrinkNote, const std::string &signature) {
  Signature s;
  s.key = signature.empty() ? signatureOf(c, r) : signature;
  return record(c, r, reproduceLine, shrinkNote, s);
}

FindingStore::~FindingStore() {
  try {
    settle();
  } catch (const std::exception &e) { // a destructor must not throw: say it, lose only the note
    std::fprintf(stderr, "vmapfuzz: could not write a repro.py confirmation: %s\n", e.what());
  }
}

void FindingStore::settle() { collect(true); }

void FindingStore::collect(bool wait) {
  for (auto it = confirming_.begin(); it != confirming_.end();) {
    if (!wait && it->status.wait_for(std::chrono::seconds(0)) != std::future_status::ready) {
      ++it;
      continue;
    }
    auto &rec = seen_[it->signature];
    rec.standalone = it->status.get();
    it = confirming_.erase(it);
    try {
      ReportsLock lock(dir_);
      std::ofstream(rec.dir + "/result.txt", std::ios::app) << "\nstandalone repro.py (fresh python, only torch): " << rec.standalone << "\n";
      if (fs::exists(rec.dir + "/meta.json"))
        updateMeta(lock, rec.dir, [&](nlohmann::json &meta) { meta["standalone"] = rec.standalone; });
    } catch (const std::system_error &e) {
      throw cannotFile(rec.dir, e.code().message(), "writing its repro.py's confirmation");
    }
  }
}

namespace {

/// result.txt: the finding in plain text, with the runner's full detail.
std::string resultText(const Filing &f) {
  const CaseResult &r = f.r;
  const Signature &full = f.full;
  std::ostringstream res;
  res << "verdict: " << verdictName(r.verdict) << "\nmode: " << r.system.str() << "\nsignature: " << f.sig << "\nsummary: " << r.summary
      << "\nreproduce: " << f.reproduceLine << "\n";
  if (f.found.forwardDiffers) res << "found in: " << f.found.system.str() << " (its forward values already differ)\n";
  if (!full.essential.empty()) res << "essential: " << full.essential << " (" << full.probes << (full.probes == 1 ? " ablation run)\n" : " ablation runs)\n");
  if (!full.frame.empty()) res << "raised at: " << full.frame << "\n";
  if (!full.culprits.tried.empty())
    res << "culprit: " << (full.culprits.localised() ? full.culprits.culprit() : "(not localised)") << ": " << full.culprits.sentence()
        << " (" << full.culprits.runs << (full.culprits.runs == 1 ? " run)\n" : " runs)\n");
  if (!f.shrinkNote.empty()) res << "shrinking: " << f.shrinkNote << "\n";
  if (!r.elsewhere.empty()) res << "in other modes: " << r.elsewhere << "\n";
  for (const auto &c : f.closest) res << "closest filed: " << c.report << " (shares " << c.shares << ")\n";
  if (f.env.contains("preload") && f.env["preload"].is_array()) // the files the workers ran first (--preload)
    for (const auto &p : f.env["preload"]) res << "preload: " << p.value("path", "?") << " sha256 " << p.value("sha256", "?") << "\n";
  res << "\n";
  res << "expected (each example alone, reference interpreter):\n";
  for (size_t i = 0; i < r.expected.size(); ++i) res << "  output " << i << ": " << describeTensor(r.expected[i]) << "\n";
  res << "actual (torch.vmap):\n";
  if (!r.errorType.empty()) res << "  raised " << r.errorType << ": " << r.errorMessage << "\n";
  for (size_t i = 0; i < r.actual.size(); ++i) res << "  output " << i << ": " << describeTensor(r.actual[i]) << "\n";
  if (!r.traceback.empty()) res << "\ntraceback / worker stderr:\n" << r.traceback << "\n";
  return res.str();
}

/// meta.json: what `vmapfuzz reports` and later campaigns read back.
nlohmann::json metaJson(const Filing &f, const FindingRecord &rec) {
  const CaseResult &r = f.r;
  nlohmann::json meta = {{"signature", f.sig},
                         {"verdict", std::string(verdictName(r.verdict))},
                         {"title", title(f.c, r)},
                         {"summary", r.summary},
                         {"reproduce", f.reproduceLine},
                         {"shrinking", f.shrinkNote},
                         {"other_modes", r.elsewhere},
                         {"standalone", rec.standalone},
                         {"environment", f.env},
                         {"first_seen", nowUtc()},
                         {"last_seen", nowUtc()},
                         {"hits", rec.hits},
                         {"status", "open"}};
  if (!f.full.essential.empty()) {
    meta["essential"] = f.full.essential;
    meta["essential_features"] = f.full.features;
    meta["ablation_runs"] = f.full.probes;
  }
  if (!f.full.frame.empty()) meta["raised_at"] = f.full.frame;
  if (!f.full.culprits.tried.empty()) meta["culprits"] = culpritsJson(f.full.culprits);
  // How a later campaign steps around this bug to check the rest of a case (look-behind).
  meta["step_around"] = stepAroundJson(f.sig);
  for (const auto &c : f.closest)
    meta["closest"].push_back({{"report", c.report}, {"score", c.score}, {"shares", c.shares}, {"differs", c.differs}});
  return meta;
}

/// The data the finding's runs were fed: the case's inputs, the second call's, and in a gradient
/// mode the (co)tangents the runner drew (from the case and its inputs or reference outputs).
ReproMaterial materialOf(const Case &c, const CaseResult &r, const nlohmann::json &environment) {
  ReproMaterial m;
  m.inputs = makeInputs(c);
  m.environment = environment;
  if (r.againBatchSize) {
    m.again = c;
    m.again->spec.levels[0].size = r.againBatchSize;
    m.againInputs = makeInputs(*m.again);
  }
  if (r.system.exec.gradient()) {
    const bool jvp = forwardMode(r.system.grad());
    auto cotangents = [jvp](const Case &k) {
      return jvp ? makeTangents(k, makeInputs(k)) : makeCotangents(k, runReference(k, makeInputs(k)).outputs);
    };
    m.cotangents = cotangents(c);
    if (m.again) m.againCotangents = cotangents(*m.again);
  }
  return m;
}

} // namespace

FindingRecord FindingStore::record(const Case &c, const CaseResult &found, const std::string &reproduceLine,
                                   const std::string &shrinkNote, const Signature &full) {
  collect(false);
  std::string sig = full.key;
  // At most two fresh pythons at a time (each imports torch: hundreds of MB): a campaign that
  // files many findings at once waits for the oldest (never past its deadline: they stop there),
  // before it takes the reports' lock that other campaigns wait for.
  if (!opt_.confirmPython.empty() && !known(sig))
    while (confirming_.size() >= 2) {
      confirming_.front().status.wait();
      collect(false);
    }
  ReportsLock lock(dir_);
  refresh(); // what other campaigns filed meanwhile
  // A signature filed under another name (an old one, or a merged folder's) counts there.
  if (auto a = aliases_.find(sig); a != aliases_.end()) sig = a->second;
  if (auto it = seen_.find(sig); it != seen_.end() && !it->second.dir.empty()) {
    // Known: count the hit, keep everything else as filed.
    countHit(lock, it->second);
    FindingRecord hit = it->second;
    hit.isNew = false;
    return hit;
  }
  // A forward bug met in a gradient mode is reported as the forward mode's: its report and
  // repro.py show the forward values that differ.
  CaseResult r = found;
  if (found.forwardDiffers) r.system = found.system.forward();
  std::vector<std::pair<std::string, std::string>> filed;
  for (const auto &[k, other] : seen_)
    if (!other.dir.empty() && k != sig) filed.emplace_back(fs::path(other.dir).filename().string(), k);
  Filing f{c, r, found, reproduceLine, shrinkNote, full, sig, closestReports(sig, filed), opt_.environment, reproWriterFor(r.system)};
  f.env["mode"] = r.system.exec.modeName();
  f.env["device"] = r.system.device;
  return fileNew(lock, f);
}

FindingRecord FindingStore::fileNew(const ReportsLock &lock, const Filing &f) {
  FindingRecord rec;
  rec.signature = f.sig;
  rec.hits = rec.hitsNow = 1;
  rec.isNew = true;
  const std::string verdict(verdictName(f.r.verdict));
  std::string name = verdict + "-" + hex8(f.sig);
  if (fs::exists(dir_ + "/" + name)) name = verdict + "-" + fnv1aHex(f.sig); // taken (8 hex digits)
  rec.dir = dir_ + "/" + name;
  // The folder is written as a hidden sibling and renamed into place last: whole, or not there.
  StagedFolder staged(lock, name);
  staged.write("case.vf", printCase(f.c));
  std::ostringstream head;
  head << "vmapfuzz finding: " << verdict << "\n" << f.r.summary << "\nreproduce: " << f.reproduceLine;
  for (const auto &file : f.writer.files(f.c, f.r.system, materialOf(f.c, f.r, opt_.environment), head.str())) {
    if (file.copyOf.empty()) {
      staged.write(file.name, file.text);
      continue;
    }
    std::error_code ec; // gone since the campaign started: the script falls back to the path and says so
    fs::create_directories(fs::path(staged.path()) / fs::path(file.name).parent_path(), ec);
    fs::copy_file(file.copyOf, fs::path(staged.path()) / file.name, fs::copy_options::overwrite_existing, ec);
  }
  // The confirmation starts once the folder is in place; meta.json says it is under way.
  double left = 600;
  if (deadline_) left = std::min(left, std::chrono::duration<double>(*deadline_ - std::chrono::steady_clock::now()).count());
  const bool confirm = !opt_.confirmPython.empty() && left >= kMinConfirmSeconds;
  if (confirm) rec.standalone = kConfirming;
  else if (!opt_.confirmPython.empty()) rec.standalone = "not checked (filed as the campaign's time ran out: run repro.py)";
  staged.write("result.txt", resultText(f));
  staged.write("report.md", reportMarkdown(f));
  staged.write("meta.json", metaJson(f, rec).dump(2) + "\n");
  staged.publish();
  seen_[f.sig] = rec;
  loaded_.insert(name);
  if (confirm)
    confirming_.push_back({f.sig, std::async(std::launch::async, [how = opt_.confirm, python = opt_.confirmPython,
                                                                  script = f.writer.scriptName(), dir = rec.dir,
                                                                  seconds = static_cast<int>(left)] {
                             std::optional<std::string> got = how ? how(script, dir, seconds) : std::nullopt;
                             return got ? *got : confirmInFreshPython(python, script, dir, seconds);
                           })});
  if (!opt_.corpusDir.empty()) copyToCorpus(name, f);
  return rec;
}

void FindingStore::copyToCorpus(const std::string &name, const Filing &f) const {
  try {
    fs::create_directories(opt_.corpusDir);
    writeFileAtomic(opt_.corpusDir + "/" + name + ".vf", "# " + title(f.c, f.r) + "\n# signature: " + f.sig + "\n" + printCase(f.c));
  } catch (const std::system_error &e) { // filed in the reports; its corpus copy is missing
    throw cannotFile(opt_.corpusDir, e.code().message(), "copying " + name + "'s case to the corpus");
  }
}

} // namespace vf
