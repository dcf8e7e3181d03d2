#pragma once
/// Coverage-guided fuzzing of torch's Python batching code: the coverage the worker collects
/// (vmapfuzz_coverage.py, keys "L file:line" and "B file:branch:side"), its table of every
/// executable line and branch per function, the corpus of cases that reached new coverage, the
/// structure-aware mutation of corpus cases, greedy corpus merging, and the reports (per
/// function, and an LCOV tracefile).
#include <array>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "generators/policy.h"
#include "harness/run/runner.h"
#include "ir/program.h"

namespace vf {

/// Every executable line and branch of the target files, per function (the worker's hello).
struct PyCovTable {
  struct Func {
    std::string file, name;
    int64_t first = 0;
    std::vector<int64_t> lines;
    /// [line, left line, right line]; branch index (in its file) = firstBranch + position.
    std::vector<std::array<int64_t, 3>> branches;
    int64_t firstBranch = 0;
  };
  std::vector<Func> funcs;
  static PyCovTable fromJson(const nlohmann::json &table);
  int64_t lineCount() const;
  int64_t branchEdgeCount() const; ///< two edges per branch
  bool empty() const { return funcs.empty(); }
};

/// The coverage reached so far: each key with the number of cases that reached it.
class PyCoverage {
public:
  /// Adds one case's keys; returns how many were new.
  int64_t add(const std::vector<std::string> &keys);
  bool has(const std::string &key) const { return hits_.count(key) > 0; }
  int64_t hitsOf(const std::string &key) const;
  const std::map<std::string, int64_t> &hits() const { return hits_; }
  int64_t lines() const { return lines_; }
  int64_t branchEdges() const { return edges_; }

private:
  std::map<std::string, int64_t> hits_;
  int64_t lines_ = 0, edges_ = 0;
};

std::string lineKey(const std::string &file, int64_t line);
std::string branchKey(const std::string &file, int64_t branch, int side);

/// An LCOV tracefile (SF, FN, FNDA, FNF, FNH, DA, BRDA, BRF, BRH, LF, LH, end_of_record).
std::string lcovTrace(const PyCovTable &table, const PyCoverage &cov);
/// Per function whose name contains `match` ("" every function): lines and branch edges
/// reached of all, and with `listNever` the lines never reached.
void printPyCoverage(const PyCovTable &table, const PyCoverage &cov, std::ostream &os, const std::string &match,
                     bool listNever);
/// The batching rules and vmap front end, the rows of the campaign summary's section.
bool isBatchingRule(const std::string &funcName);

/// Greedy set cover (libFuzzer's -merge=1): indices of a subset of `sets` whose union is the
/// union of all, taking the set with the most uncovered keys first (ties: the earlier one).
std::vector<size_t> minimalCover(const std::vector<std::vector<std::string>> &sets);

/// A structure-aware mutant of a corpus case: a new data seed, a new batch spec for the same
/// program, another op of the same arity, in_dims, out_dims, chunk size or a level's size.
struct Mutant {
  Case c;
  std::string how;  ///< which mutation
  int invalid = 0;  ///< mutants drawn before this one that did not validate
};
/// Deterministic for (parent, seed). Every mutant returned validates (validateCase); nullopt
/// when `maxTries` draws all failed. Uses RapidCheck (genBatchSpec): not thread-safe.
std::optional<Mutant> mutateCase(const Case &parent, uint64_t seed, const GenPolicy &policy, int maxTries = 32);

/// 16 hex digits of FNV-1a over the case's text: the corpus file name.
std::string caseHash(const Case &c);

struct GuidedOptions {
  bool on = false;          ///< the workers collect coverage (--coverage on)
  double mutateShare = 0.5; ///< share of cases drawn by mutating corpus cases (--mutate-share)
  std::string corpusDir;    ///< --corpus-dir: read at the start, each new corpus case written there
  std::vector<Case> seeds;  ///< the cases of --corpus-dir, run first
  PyCovTable table;
};

struct GuidedStats {
  PyCovTable table;
  PyCoverage cov;
  int64_t corpus = 0, seedsRun = 0, mutants = 0, mutantsNew = 0, freshNew = 0, invalidMutants = 0, noMutant = 0;
  std::map<std::string, int64_t> mutations, mutationsNew; ///< by kind: drawn, and reaching new coverage
  std::vector<std::pair<double, int64_t>> linesOverTime;  ///< (seconds, lines reached) at each gain
};

/// The corpus and the coverage of one campaign; thread-safe.
class Guide {
public:
  explicit Guide(GuidedOptions opt);
  bool on() const { return opt_.on; }
  /// What to run instead of the fresh case `caseSeed`: a --corpus-dir case first (how "corpus"),
  /// then a mutant for `mutateShare` of the seeds; nullopt: the fresh case. Uses RapidCheck:
  /// call under the generator's lock.
  std::optional<Mutant> next(uint64_t caseSeed, const GenPolicy &policy);
  /// Records a case's coverage (the union over its runs); a case that reached anything new
  /// joins the corpus (and --corpus-dir). Returns the number of new keys.
  int64_t observe(const Case &c, const std::vector<std::string> &keys, const Mutant *from, double seconds);
  GuidedStats stats() const;
  /// " pycov: L lines E edges corpus N" for the progress line ("" when off).
  std::string brief() const;

private:
  GuidedOptions opt_;
  mutable std::mutex mu_;
  std::vector<Case> corpus_;
  size_t nextSeed_ = 0;
  GuidedStats s_;
};

/// The campaign summary's section: totals, corpus and mutants, the batching rules' functions.
void printGuided(const GuidedStats &s, std::ostream &os);
/// Runs each case on every runner (their workers collect coverage): the union of keys per case.
std::vector<std::vector<std::string>> coverageOfCases(const std::vector<Case> &cases, const RunnerSet &runners);
/// Reads every .vf of `dir` that parses and validates (sorted by name); absent dir: none.
std::vector<Case> loadCorpusDir(const std::string &dir);
/// Writes `c` as DIR/<caseHash>.vf (the directory is made).
std::string saveCorpusCase(const std::string &dir, const Case &c);

} // namespace vf
