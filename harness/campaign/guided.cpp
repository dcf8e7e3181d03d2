#include "harness/campaign/guided.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <set>
#include <sstream>

#include "generators/case_gen.h"
#include "harness/report/findings.h"
#include "ir/constructs.h"
#include "ir/op_registry.h"
#include "ir/text.h"
#include "ir/validate.h"

namespace vf {

std::string lineKey(const std::string &file, int64_t line) { return "L " + file + ":" + std::to_string(line); }
std::string branchKey(const std::string &file, int64_t branch, int side) {
  return "B " + file + ":" + std::to_string(branch) + ":" + std::to_string(side);
}

PyCovTable PyCovTable::fromJson(const nlohmann::json &table) {
  PyCovTable t;
  if (!table.is_object()) return t;
  for (const auto &[file, funcs] : table.items()) {
    for (const auto &f : funcs) {
      Func fn;
      fn.file = file;
      fn.name = f.value("name", "?");
      fn.first = f.value("first", int64_t{0});
      fn.firstBranch = f.value("first_branch", int64_t{0});
      fn.lines = f.value("lines", std::vector<int64_t>{});
      for (const auto &b : f.value("branches", nlohmann::json::array()))
        fn.branches.push_back({b[0].get<int64_t>(), b[1].get<int64_t>(), b[2].get<int64_t>()});
      t.funcs.push_back(std::move(fn));
    }
  }
  return t;
}

int64_t PyCovTable::lineCount() const {
  int64_t n = 0;
  for (const auto &f : funcs) n += static_cast<int64_t>(f.lines.size());
  return n;
}

int64_t PyCovTable::branchEdgeCount() const {
  int64_t n = 0;
  for (const auto &f : funcs) n += 2 * static_cast<int64_t>(f.branches.size());
  return n;
}

int64_t PyCoverage::add(const std::vector<std::string> &keys) {
  int64_t fresh = 0;
  for (const auto &k : keys) {
    if (hits_[k]++ == 0) {
      ++fresh;
      (k[0] == 'L' ? lines_ : edges_)++;
    }
  }
  return fresh;
}

int64_t PyCoverage::hitsOf(const std::string &key) const {
  auto it = hits_.find(key);
  return it == hits_.end() ? 0 : it->second;
}

std::string lcovTrace(const PyCovTable &table, const PyCoverage &cov) {
  std::map<std::string, std::vector<const PyCovTable::Func *>> byFile;
  for (const auto &f : table.funcs) byFile[f.file].push_back(&f);
  std::ostringstream os;
  os << "TN:vmapfuzz\n";
  for (const auto &[file, funcs] : byFile) {
    os << "SF:" << file << "\n";
    int64_t fnh = 0;
    for (const auto *f : funcs) os << "FN:" << f->first << "," << f->name << "\n";
    for (const auto *f : funcs) {
      // A function counts as entered when any of its lines was reached: its most-hit line.
      int64_t calls = 0;
      for (int64_t l : f->lines) calls = std::max(calls, cov.hitsOf(lineKey(file, l)));
      fnh += calls > 0;
      os << "FNDA:" << calls << "," << f->name << "\n";
    }
    os << "FNF:" << funcs.size() << "\nFNH:" << fnh << "\n";
    std::map<int64_t, int64_t> da;
    for (const auto *f : funcs)
      for (int64_t l : f->lines) da[l] = std::max(da[l], cov.hitsOf(lineKey(file, l)));
    int64_t brf = 0, brh = 0;
    for (const auto *f : funcs)
      for (size_t i = 0; i < f->branches.size(); ++i) {
        int64_t idx = f->firstBranch + static_cast<int64_t>(i);
        bool lineHit = da.count(f->branches[i][0]) && da[f->branches[i][0]] > 0;
        for (int side = 0; side < 2; ++side) {
          int64_t n = cov.hitsOf(branchKey(file, idx, side));
          ++brf;
          brh += n > 0;
          // "-": the branch's line was never reached, as lcov's own convention.
          os << "BRDA:" << f->branches[i][0] << "," << idx << "," << side << "," << (lineHit || n ? std::to_string(n) : "-") << "\n";
        }
      }
    os << "BRF:" << brf << "\nBRH:" << brh << "\n";
    int64_t lh = 0;
    for (const auto &[l, n] : da) {
      os << "DA:" << l << "," << n << "\n";
      lh += n > 0;
    }
    os << "LF:" << da.size() << "\nLH:" << lh << "\nend_of_record\n";
  }
  return os.str();
}

bool isBatchingRule(const std::string &name) {
  // torch 2.14.1 registers cond_batch_rule and scan_batch_rule (TransformType.Vmap); while_loop
  // and switch have none. The rest is functorch's vmap front end.
  static const std::set<std::string> frontEnd = {"vmap", "vmap_impl", "_flat_vmap", "_chunked_vmap",
                                                 "_process_batched_inputs", "_create_batched_inputs",
                                                 "_maybe_remove_batch_dim", "_unwrap_batched"};
  return name.find("batch_rule") != std::string::npos || frontEnd.count(name) > 0;
}

namespace {

/// Ranges "12-14, 17" of sorted line numbers.
std::string ranges(const std::vector<int64_t> &ls) {
  std::ostringstream os;
  for (size_t i = 0; i < ls.size();) {
    size_t j = i;
    while (j + 1 < ls.size() && ls[j + 1] == ls[j] + 1) ++j;
    os << (i ? ", " : "") << ls[i];
    if (j > i) os << "-" << ls[j];
    i = j + 1;
  }
  return os.str();
}

std::string baseName(const std::string &f) {
  auto s = f.rfind('/');
  return s == std::string::npos ? f : f.substr(s + 1);
}

} // namespace

void printPyCoverage(const PyCovTable &table, const PyCoverage &cov, std::ostream &os, const std::string &match,
                     bool listNever) {
  for (const auto &f : table.funcs) {
    if (!match.empty() && f.name.find(match) == std::string::npos) continue;
    std::vector<int64_t> never;
    int64_t lh = 0, eh = 0;
    for (int64_t l : f.lines) {
      if (cov.has(lineKey(f.file, l))) ++lh;
      else never.push_back(l);
    }
    for (size_t i = 0; i < f.branches.size(); ++i)
      for (int side = 0; side < 2; ++side) eh += cov.has(branchKey(f.file, f.firstBranch + static_cast<int64_t>(i), side));
    os << "  " << std::left << std::setw(34) << (baseName(f.file) + ":" + f.name) << std::right << " lines " << std::setw(3)
       << lh << "/" << std::setw(3) << f.lines.size() << ", branch edges " << std::setw(3) << eh << "/" << std::setw(3)
       << 2 * f.branches.size() << "\n";
    if (listNever && !never.empty()) os << "      never reached: lines " << ranges(never) << "\n";
  }
}

std::vector<size_t> minimalCover(const std::vector<std::vector<std::string>> &sets) {
  std::set<std::string> covered;
  std::vector<size_t> keep;
  std::vector<bool> used(sets.size(), false);
  for (;;) {
    size_t best = sets.size();
    int64_t bestGain = 0;
    for (size_t i = 0; i < sets.size(); ++i) {
      if (used[i]) continue;
      std::set<std::string> mine(sets[i].begin(), sets[i].end());
      int64_t gain = 0;
      for (const auto &k : mine) gain += !covered.count(k);
      if (gain > bestGain) bestGain = gain, best = i;
    }
    if (best == sets.size()) break;
    used[best] = true;
    keep.push_back(best);
    covered.insert(sets[best].begin(), sets[best].end());
  }
  std::sort(keep.begin(), keep.end());
  return keep;
}

namespace {

uint64_t mix(uint64_t &s) {
  uint64_t z = (s += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

void opStmts(Block &b, std::vector<Stmt *> &out) {
  for (auto &s : b.stmts) {
    if (!isConstruct(s.op)) out.push_back(&s);
    for (auto &r : s.regions) opStmts(r, out);
  }
}

/// One mutation of `c` drawn from `rng`; `how` names it. May not validate.
Case mutateOnce(const Case &parent, uint64_t &rng, const GenPolicy &policy, std::string &how) {
  Case c = parent;
  auto pick = [&](size_t n) { return n ? static_cast<size_t>(mix(rng) % n) : 0; };
  auto &levels = c.spec.levels;
  switch (mix(rng) % 7) {
  case 0:
    how = "data seed";
    c.spec.data_seed = mix(rng);
    break;
  case 1:
    how = "batch spec";
    c.spec = genBatchSpec(c.program, policy)(rc::Random(mix(rng)), 30).value();
    break;
  case 2: {
    how = "op";
    std::vector<Stmt *> ops;
    opStmts(c.program.body, ops);
    if (ops.empty()) break;
    Stmt *s = ops[pick(ops.size())];
    std::vector<const OpDef *> same;
    const OpDef *cur = findOp(s->op);
    // A restricted-domain op only where the generator would put it: inside a region.
    bool inRegion = std::none_of(c.program.body.stmts.begin(), c.program.body.stmts.end(), [s](const Stmt &t) { return &t == s; });
    for (const auto &o : allOps())
      // An in-place update of a scan buffer becomes another one (never drawn otherwise: weight 0).
      if (o.name != s->op && cur && o.arity == cur->arity && o.inplace == cur->inplace && (o.weight > 0 || o.inplace) &&
          (!o.restrictedDomain || (inRegion && policy.domainOpWeight > 0)))
        same.push_back(&o);
    if (!same.empty()) s->op = same[pick(same.size())]->name;
    break;
  }
  case 3: {
    how = "chunk size";
    if (levels.empty()) break;
    auto &l = levels[pick(levels.size())];
    if (l.chunk_size && mix(rng) % 2) l.chunk_size.reset();
    else l.chunk_size = 1 + static_cast<int64_t>(pick(static_cast<size_t>(std::max<int64_t>(l.size, 1))));
    break;
  }
  case 4: {
    how = "out dims";
    if (levels.empty()) break;
    auto &l = levels[pick(levels.size())];
    if (l.out_dims.empty()) break;
    l.out_dims[pick(l.out_dims.size())] = static_cast<int64_t>(pick(7)) - 3;
    break;
  }
  case 5: {
    how = "in dims";
    if (levels.empty()) break;
    auto &l = levels[pick(levels.size())];
    if (l.in_dims.empty()) break;
    size_t d = pick(6);
    l.in_dims[pick(l.in_dims.size())] = d == 5 ? std::nullopt : std::optional<int64_t>(static_cast<int64_t>(d) - 2);
    c.spec.layouts.clear(); // a layout's dim is one of the physical input's: drop them with the dims
    break;
  }
  default: {
    how = "batch size";
    if (levels.empty()) break;
    auto &l = levels[pick(levels.size())];
    l.size = 1 + static_cast<int64_t>(pick(5));
    if (l.chunk_size && *l.chunk_size > l.size) l.chunk_size = l.size;
    break;
  }
  }
  return c;
}

} // namespace

std::optional<Mutant> mutateCase(const Case &parent, uint64_t seed, const GenPolicy &policy, int maxTries) {
  uint64_t rng = seed;
  Mutant m;
  for (int t = 0; t < maxTries; ++t) {
    std::string how;
    Case c = mutateOnce(parent, rng, policy, how);
    if (c == parent || !validateCase(c).empty()) {
      ++m.invalid;
      continue;
    }
    m.c = std::move(c);
    m.how = how;
    return m;
  }
  return std::nullopt;
}

std::string caseHash(const Case &c) { return fnv1aHex(printCase(c)); }

} // namespace vf

namespace vf {

Guide::Guide(GuidedOptions opt) : opt_(std::move(opt)) { s_.table = opt_.table; }

std::optional<Mutant> Guide::next(uint64_t caseSeed, const GenPolicy &policy) {
  if (!opt_.on) return std::nullopt;
  Case parent;
  {
    std::lock_guard<std::mutex> g(mu_);
    if (nextSeed_ < opt_.seeds.size()) {
      s_.seedsRun++;
      return Mutant{opt_.seeds[nextSeed_++], "corpus", 0};
    }
    // Deterministic for the case seed: whether it mutates, and which corpus case.
    if (corpus_.empty() || static_cast<double>((caseSeed >> 11) % 1000) >= opt_.mutateShare * 1000) return std::nullopt;
    parent = corpus_[(caseSeed >> 23) % corpus_.size()];
  }
  auto m = mutateCase(parent, caseSeed, policy);
  std::lock_guard<std::mutex> g(mu_);
  if (!m) {
    s_.noMutant++;
    return std::nullopt;
  }
  s_.mutants++;
  s_.invalidMutants += m->invalid;
  s_.mutations[m->how]++;
  return m;
}

int64_t Guide::observe(const Case &c, const std::vector<std::string> &keys, const Mutant *from, double seconds) {
  if (!opt_.on) return 0;
  std::lock_guard<std::mutex> g(mu_);
  int64_t fresh = s_.cov.add(keys);
  if (fresh == 0) return 0;
  corpus_.push_back(c);
  s_.corpus = static_cast<int64_t>(corpus_.size());
  s_.linesOverTime.push_back({seconds, s_.cov.lines()});
  if (from && from->how != "corpus") {
    s_.mutantsNew++;
    s_.mutationsNew[from->how]++;
  } else if (!from) {
    s_.freshNew++;
  }
  if (!opt_.corpusDir.empty() && !(from && from->how == "corpus")) saveCorpusCase(opt_.corpusDir, c);
  return fresh;
}

std::string Guide::brief() const {
  if (!opt_.on) return "";
  std::lock_guard<std::mutex> g(mu_);
  return " pycov: " + std::to_string(s_.cov.lines()) + " lines " + std::to_string(s_.cov.branchEdges()) + " edges corpus " +
         std::to_string(corpus_.size());
}

GuidedStats Guide::stats() const {
  std::lock_guard<std::mutex> g(mu_);
  return s_;
}

void printGuided(const GuidedStats &s, std::ostream &os) {
  os << "python coverage of torch's batching code: " << s.cov.lines() << "/" << s.table.lineCount() << " lines, "
     << s.cov.branchEdges() << "/" << s.table.branchEdgeCount() << " branch edges; corpus " << s.corpus << " cases ("
     << s.freshNew << " fresh, " << s.mutantsNew << " mutants";
  if (s.seedsRun) os << ", " << s.seedsRun << " read from --corpus-dir and run first";
  os << ")\n  mutants run: " << s.mutants << " (" << s.invalidMutants << " draws did not validate and were redrawn";
  if (s.noMutant) os << ", " << s.noMutant << " times none validated: a fresh case instead";
  os << ")";
  for (const auto &[how, n] : s.mutations) {
    auto it = s.mutationsNew.find(how);
    os << "; " << how << " " << n << " (new " << (it == s.mutationsNew.end() ? 0 : it->second) << ")";
  }
  os << "\n  batching rules (vmapfuzz coverage lists every function and the lines never reached):\n";
  PyCovTable rules;
  for (const auto &f : s.table.funcs)
    if (isBatchingRule(f.name)) rules.funcs.push_back(f);
  printPyCoverage(rules, s.cov, os, "", false);
}

std::vector<Case> loadCorpusDir(const std::string &dir) {
  std::vector<Case> out;
  std::error_code ec;
  if (dir.empty() || !std::filesystem::is_directory(dir, ec)) return out;
  std::vector<std::filesystem::path> files;
  for (const auto &e : std::filesystem::directory_iterator(dir))
    if (e.is_regular_file() && e.path().extension() == ".vf") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  for (const auto &p : files) {
    std::ifstream in(p);
    std::stringstream ss;
    ss << in.rdbuf();
    try {
      Case c = parseCase(ss.str());
      if (validateCase(c).empty()) out.push_back(std::move(c));
    } catch (const std::exception &) { // a file that does not parse is skipped
    }
  }
  return out;
}

std::string saveCorpusCase(const std::string &dir, const Case &c) {
  std::filesystem::create_directories(dir);
  std::string path = dir + "/" + caseHash(c) + ".vf";
  std::ofstream(path) << printCase(c);
  return path;
}

std::vector<std::vector<std::string>> coverageOfCases(const std::vector<Case> &cases, const RunnerSet &runners) {
  std::vector<std::vector<std::string>> out;
  for (const auto &c : cases) {
    std::set<std::string> keys;
    Prepared prep = runners.front()->prepare(c);
    for (Runner *r : runners) {
      CaseResult res = r->run(c, prep);
      keys.insert(res.pyCoverage.begin(), res.pyCoverage.end());
    }
    out.emplace_back(keys.begin(), keys.end());
  }
  return out;
}

} // namespace vf
