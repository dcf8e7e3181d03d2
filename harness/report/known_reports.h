#pragma once
/// The project's filed reports as a read-only set of known bugs (issue 31): a campaign filing
/// into its own folder (OUT/findings) shows a finding filed there as `known: reports/<folder>`
/// instead of filing it again. Nothing under the known folder is ever written: this campaign's
/// hits of each known folder are counted in a file of the campaign's output (`save`).
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <ostream>
#include <string>

#include <nlohmann/json.hpp>

namespace vf {

/// One folder of the known set that this campaign met.
struct KnownHit {
  std::string signature; ///< the folder's signature (a hit under an alias counts here)
  std::string verdict;   ///< of the first hit: "batched-error", ...
  std::string system;    ///< of the first hit: "direct|cpu", ...
  int64_t hits = 0;      ///< in this campaign
};

class KnownReports {
public:
  /// Loads every folder of `dir` with a meta.json (filed_reports.h `loadReports`): its
  /// signature and its `aliases`. `shownAs` names `dir` in the output ("reports": a hit is shown
  /// as "known: reports/<folder>"). Throws on a missing folder or an unreadable meta.json.
  KnownReports(const std::string &dir, std::string shownAs);

  /// The folder a signature, or an alias, is filed under, shown as "<shownAs>/<folder>".
  std::optional<std::string> find(const std::string &signature) const;

  /// Counts a hit of `signature` when it is filed here. Returns nullopt when it is not; else the
  /// line to print: "known: <shownAs>/<folder> (...)" the first time the folder is hit, "" after.
  std::optional<std::string> hit(const std::string &signature, const std::string &verdict, const std::string &system);

  /// The signature of the folder `signature` (or an alias) is filed under; itself when none.
  std::string filedUnder(const std::string &signature) const;

  /// Signatures and aliases filed here.
  size_t signatures() const { return folderOf_.size(); }
  /// Folders filed here.
  size_t folders() const { return folders_; }
  /// The folder name the output uses for `dir` (the constructor's `shownAs`).
  const std::string &shownAs() const { return shownAs_; }
  /// This campaign's hits, by folder name (without `shownAs`). A copy: safe beside other jobs.
  std::map<std::string, KnownHit> hits() const;
  /// Hits of this campaign, summed over folders.
  int64_t totalHits() const;

  /// This campaign's hits as JSON: {"known": shownAs, "folders": {folder: {signature, verdict,
  /// system, hits}}}.
  nlohmann::json json() const;
  /// Adds this campaign's hits to the file at `path` (created if missing), which keeps each
  /// folder's hits over every campaign that used this output folder, and its last-seen time.
  void save(const std::string &path) const;

private:
  std::string shownAs_;
  size_t folders_ = 0;
  std::map<std::string, std::string> folderOf_; ///< signature or alias -> folder name
  std::map<std::string, std::string> signatureOf_; ///< folder name -> its signature
  mutable std::mutex mu_;
  std::map<std::string, KnownHit> hits_;
};

/// The summary's section of known findings (nothing when there were none): one line per folder
/// hit, "known Nx SIGNATURE" then "known: <shownAs>/<folder>".
void printKnown(const KnownReports &known, std::ostream &os);

} // namespace vf

namespace vf {

/// The default known set of `vmapfuzz fuzz`: `sourceDir`/reports (the checkout the binary was
/// built from) when `cwd` is that checkout or inside it and the folder exists; "" otherwise (a
/// campaign run elsewhere knows nothing but its own --reports).
std::string defaultKnownDir(const std::string &sourceDir, const std::string &cwd);

/// How `dir` is named in the output: relative to `cwd` when inside it ("reports"), else as given.
std::string shownName(const std::string &dir, const std::string &cwd);

} // namespace vf
