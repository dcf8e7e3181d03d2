#pragma once
/// Files findings: one folder per signature under a reports directory, with the shrunk case,
/// the emitted Python, a standalone repro.py, report.md (ready to paste as an issue), result.txt
/// and meta.json. Signatures already filed there (by this or an earlier campaign) only get
/// their hit count and last-seen updated. Every write is atomic, and campaigns filing into one
/// folder at once see each other's findings (safe_files.h).
#include <chrono>
#include <filesystem>
#include <functional>
#include <future>
#include <optional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/report/safe_files.h"
#include "harness/report/signature.h"
#include "harness/run/verdict.h"
#include "ir/program.h"

namespace vf {

struct FindingRecord {
  std::string dir;
  std::string signature;
  int64_t hits = 0;      ///< over every campaign that filed into this directory
  int64_t hitsNow = 0;   ///< in this campaign
  bool isNew = false;    ///< filed by this campaign
  /// For a new finding: "confirmed" when its repro.py, run alone in a fresh python, fails as
  /// reported; "not reproduced" when it passes there; "" when not checked; kConfirming while
  /// the fresh python still runs (in the background: see FindingStore::settle).
  std::string standalone;
};

struct StoreOptions {
  std::string confirmPython;     ///< python that runs each new repro.py alone ("" = don't)
  /// Runs each new repro.py alone (script, its folder, at most that many seconds) and says what
  /// it showed, as a fresh `confirmPython` would: "confirmed", "not reproduced" or "not checked
  /// (...)"; nullopt when it cannot (a fresh `confirmPython` runs it then). Unset: always a fresh
  /// python. The torch backend's StandaloneRunner forks its start-up image instead.
  std::function<std::optional<std::string>(const std::string &, const std::string &, int)> confirm;
  std::string corpusDir;         ///< where each new shrunk case is also copied ("" = nowhere)
  nlohmann::json environment;    ///< torch/python/device facts for report.md and meta.json
};

/// FindingRecord::standalone while the repro.py of a new finding still runs.
inline constexpr const char *kConfirming = "being confirmed";

class FindingStore {
public:
  /// Loads the signatures already filed under `reportsDir` (from each folder's meta.json), and
  /// each folder's `aliases` (its signatures before a migration, or of folders merged into it).
  /// Removes what dead writers of this host left there (removeStaleFiling).
  explicit FindingStore(std::string reportsDir, StoreOptions opt = {});
  /// Loads the folders filed since by other campaigns (a folder appears whole: no lock needed).
  void refresh();
  /// Records a finding: files it the first time its signature is seen, else counts the hit.
  /// Under the reports folder's lock: what is on disk decides (another campaign may have filed
  /// the signature meanwhile: then the hit counts there), and a hit adds one to meta.json's
  /// count. Throws FilingError when it cannot write; nothing of it is then counted or left.
  /// `signature`: "" computes it from the case.
  FindingRecord record(const Case &c, const CaseResult &r, const std::string &reproduceLine,
                       const std::string &shrinkNote = "", const std::string &signature = "");
  /// The same with the full signature (`findingSignature`): its essential features and frame
  /// go into report.md, result.txt and meta.json.
  FindingRecord record(const Case &c, const CaseResult &r, const std::string &reproduceLine, const std::string &shrinkNote,
                       const Signature &signature);
  /// True when a finding with this signature, or with this signature as an alias, is filed.
  bool known(const std::string &sig) const { return seen_.count(sig) > 0 || aliases_.count(sig) > 0; }
  /// The signature `sig` is filed under: itself, or the one it is an alias of.
  std::string filedUnder(const std::string &sig) const {
    auto it = aliases_.find(sig);
    return it == aliases_.end() ? sig : it->second;
  }
  /// Signatures seen by this campaign (new or already filed).
  size_t unique() const;
  /// Signatures this campaign filed for the first time.
  size_t newCount() const;
  const std::map<std::string, FindingRecord> &all() const { return seen_; }

  /// A new finding's repro.py runs in a fresh python in the background, so the campaign goes
  /// on meanwhile (the fresh python's start-up and torch import cost seconds). Its result goes
  /// into the finding's result.txt, meta.json and record here when it is collected: by every
  /// record() of a later finding, and by settle(), which waits for all of them. Call settle()
  /// before reading all() for a summary; the destructor settles too, so nothing is lost.
  void settle();
  /// Confirmations still running.
  size_t confirming() const { return confirming_.size(); }
  /// Whether new findings' repro.py are confirmed (StoreOptions::confirmPython).
  bool confirms() const { return !opt_.confirmPython.empty(); }
  /// A campaign's end: a confirmation runs at most until then (its fresh python is stopped and
  /// the finding says "not checked: the campaign's time ran out"), and none starts with less
  /// than kMinConfirmSeconds left, so settle() returns by the deadline. nullopt: no limit
  /// (600 s each).
  void setDeadline(std::optional<std::chrono::steady_clock::time_point> deadline) { deadline_ = deadline; }
  static constexpr double kMinConfirmSeconds = 3;

  /// A new finding as it is filed (defined in findings.cpp).
  struct Filing;

  FindingStore(const FindingStore &) = delete;
  FindingStore &operator=(const FindingStore &) = delete;
  ~FindingStore();

private:
  /// Writes the result of finished confirmations (all of them when `wait`).
  void collect(bool wait);
  /// Reads one report folder's meta.json into seen_ and aliases_ (once per folder name).
  void load(const std::filesystem::path &folder);
  /// Counts a hit of a filed signature in its meta.json (under `lock`).
  void countHit(const ReportsLock &lock, FindingRecord &rec);
  /// Files a new finding's folder (under `lock`): the case, the files of its backend's
  /// ReproWriter, result.txt, report.md and meta.json; starts its confirmation.
  FindingRecord fileNew(const ReportsLock &lock, const Filing &f);
  /// Copies the shrunk case into the corpus as NAME.vf.
  void copyToCorpus(const std::string &name, const Filing &f) const;

  struct Confirmation {
    std::string signature;
    std::future<std::string> status;
  };
  std::vector<Confirmation> confirming_;
  std::optional<std::chrono::steady_clock::time_point> deadline_;
  std::string dir_;
  StoreOptions opt_;
  std::map<std::string, FindingRecord> seen_;
  std::map<std::string, std::string> aliases_; ///< alias -> the signature it is filed under
  std::set<std::string> loaded_;               ///< folder names read into seen_
};

/// 16 hex digits of the FNV-1a hash of `text`: stable across runs and platforms (std::hash is
/// not). Names report folders, corpus files and unchecked cases.
std::string fnv1aHex(const std::string &text);

/// The current UTC time as ISO 8601.
std::string nowUtc();

} // namespace vf
