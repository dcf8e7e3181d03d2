#pragma once
/// Filing between processes: several campaigns may file into one reports folder at once, and
/// any of them may be killed or run out of space mid-write. What makes that safe:
/// - every file is written under a name of its own writer (`NAME.tmp.N.PID@HOST`), synced, and
///   renamed into place, so a reader sees the old file or the new one, never half of one;
/// - a new report folder is written as a hidden sibling (`.filing-NAME.PID@HOST`) and renamed
///   into place last, so a folder of the reports is whole (its meta.json is there) or absent;
/// - every read-modify-write of a meta.json, and every new folder, happens under one lock of the
///   reports folder (flock on its `.vmapfuzz.lock`), re-reading what is on disk first;
/// - what a dead writer of this host left (temporaries, hidden folders) is removed by the next
///   store that opens the folder.
/// docs/filing.md says which of these hold on NFS.
#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "harness/run/systems.h"

namespace vf {

/// A finding could not be written (no space, no permission, a folder gone): an environment
/// error, exit 3. The message names the folder and the cause: "cannot file a finding into
/// DIR: No space left on device (writing repro.py)".
struct FilingError : EnvironmentError {
  using EnvironmentError::EnvironmentError;
};
/// The FilingError for `dir`, its `cause` (strerror's words) and the `step` that failed.
FilingError cannotFile(const std::string &dir, const std::string &cause, const std::string &step);

/// The lock of a reports folder, held while alive (flock, exclusive; it blocks until it gets
/// it). Creates the folder and its `.vmapfuzz.lock` when missing. Throws FilingError when it
/// cannot. Not reentrant: a second lock of the same folder in one thread waits forever.
class ReportsLock {
public:
  explicit ReportsLock(const std::string &reportsDir);
  ~ReportsLock();
  ReportsLock(const ReportsLock &) = delete;
  ReportsLock &operator=(const ReportsLock &) = delete;
  const std::string &dir() const { return dir_; }

private:
  std::string dir_;
  int fd_ = -1;
};

/// Writes `text` to `path` atomically: a temporary of this writer beside it, fsync, rename.
/// Throws std::system_error (the errno of the write that failed) and removes the temporary.
void writeFileAtomic(const std::string &path, const std::string &text);

/// Re-reads `dir`/meta.json under the lock, applies `change`, writes it back atomically;
/// returns what was written. A missing or unreadable meta.json reads as an empty object.
nlohmann::json updateMeta(const ReportsLock &lock, const std::string &dir,
                          const std::function<void(nlohmann::json &)> &change);

/// A new report folder being written: a hidden sibling of `lock.dir()/name` until publish()
/// renames it into place, the last step of filing. Destroyed unpublished (a write failed), it
/// is removed: nothing half-written stays. Each failure is a FilingError naming the folder.
class StagedFolder {
public:
  StagedFolder(const ReportsLock &lock, const std::string &name);
  ~StagedFolder();
  StagedFolder(const StagedFolder &) = delete;
  StagedFolder &operator=(const StagedFolder &) = delete;
  /// Where the files go until publish().
  const std::string &path() const { return staging_; }
  /// Writes `file` of the folder atomically.
  void write(const std::string &file, const std::string &text);
  /// Renames the folder into place; fails when a folder of its name is there already (the
  /// caller checked, under the lock, that none is).
  void publish();

private:
  std::string target_, staging_;
  bool published_ = false;
};

/// Removes the temporaries and staging folders that writers of this host, now dead, left in
/// the reports folder and its report folders. Returns how many it removed.
int removeStaleFiling(const ReportsLock &lock);

/// True for a name this file's writers use while writing (a temporary file or staging folder):
/// scans of the reports skip them.
bool isFilingTemporary(const std::string &fileName);

} // namespace vf
