#include "harness/report/safe_files.h"

#include <atomic>
#include <cerrno>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <system_error>
#include <vector>
#include <cstring>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

namespace fs = std::filesystem;

namespace vf {

namespace {

constexpr const char *kLockName = ".vmapfuzz.lock";
constexpr const char *kStagingPrefix = ".filing-";
constexpr const char *kTempMark = ".tmp.";

std::string host() {
  char buf[256] = {};
  if (gethostname(buf, sizeof buf - 1) != 0) return "localhost";
  return buf;
}

/// "PID@HOST": whose temporary a name is.
std::string writerTag() { return std::to_string(getpid()) + "@" + host(); }

std::system_error lastError(const std::string &what) { return {errno, std::generic_category(), what}; }

/// Whether the writer named at the end of a temporary's name (".PID@HOST") is a dead process
/// of this host. Another host's writer cannot be asked: its temporaries stay.
bool deadWriter(const std::string &name) {
  auto at = name.rfind('@');
  if (at == std::string::npos || name.substr(at + 1) != host()) return false;
  auto dot = name.rfind('.', at);
  if (dot == std::string::npos || dot + 1 == at) return false;
  std::string pid = name.substr(dot + 1, at - dot - 1);
  if (pid.find_first_not_of("0123456789") != std::string::npos || pid.size() > 9) return false;
  pid_t p = static_cast<pid_t>(std::stol(pid));
  return p != getpid() && kill(p, 0) != 0 && errno == ESRCH;
}

} // namespace

FilingError cannotFile(const std::string &dir, const std::string &cause, const std::string &step) {
  return FilingError("cannot file a finding into " + dir + ": " + cause + " (" + step + ")");
}

ReportsLock::ReportsLock(const std::string &reportsDir) : dir_(reportsDir) {
  std::error_code ec;
  fs::create_directories(dir_, ec);
  if (ec) throw cannotFile(dir_, ec.message(), "creating the folder");
  std::string path = dir_ + "/" + kLockName;
  fd_ = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
  if (fd_ < 0) throw cannotFile(dir_, std::strerror(errno), std::string("opening ") + kLockName);
  while (flock(fd_, LOCK_EX) != 0) {
    if (errno == EINTR) continue;
    int e = errno;
    close(fd_);
    throw cannotFile(dir_, std::strerror(e), std::string("locking ") + kLockName);
  }
}

ReportsLock::~ReportsLock() {
  if (fd_ >= 0) close(fd_); // closing the last descriptor releases the flock
}

void writeFileAtomic(const std::string &path, const std::string &text) {
  static std::atomic<unsigned> counter{0};
  const std::string tmp = path + kTempMark + std::to_string(counter++) + "." + writerTag();
  int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw lastError("cannot write " + tmp);
  auto fail = [&](const std::string &what) {
    auto err = lastError(what);
    close(fd);
    unlink(tmp.c_str());
    throw err;
  };
  for (size_t done = 0; done < text.size();) {
    ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail("cannot write " + path);
    done += static_cast<size_t>(n);
  }
  // Synced before the rename: after a crash the name holds the old text or the whole new one.
  if (fsync(fd) != 0 && errno != EINVAL) fail("cannot write " + path);
  if (close(fd) != 0) {
    auto err = lastError("cannot write " + path);
    unlink(tmp.c_str());
    throw err;
  }
  if (rename(tmp.c_str(), path.c_str()) != 0) {
    auto err = lastError("cannot rename " + tmp + " to " + path);
    unlink(tmp.c_str());
    throw err;
  }
}

nlohmann::json updateMeta(const ReportsLock &, const std::string &dir, const std::function<void(nlohmann::json &)> &change) {
  nlohmann::json meta;
  if (std::ifstream in(dir + "/meta.json"); in) meta = nlohmann::json::parse(in, nullptr, false);
  if (meta.is_discarded() || !meta.is_object()) meta = nlohmann::json::object();
  change(meta);
  writeFileAtomic(dir + "/meta.json", meta.dump(2) + "\n");
  return meta;
}

StagedFolder::StagedFolder(const ReportsLock &lock, const std::string &name)
    : target_(lock.dir() + "/" + name), staging_(lock.dir() + "/" + kStagingPrefix + name + "." + writerTag()) {
  std::error_code ec;
  fs::remove_all(staging_, ec); // this process's own, of a filing that failed half-way
  fs::create_directories(staging_, ec);
  if (ec) throw cannotFile(target_, ec.message(), "creating the folder");
}

StagedFolder::~StagedFolder() {
  std::error_code ec;
  if (!published_) fs::remove_all(staging_, ec);
}

void StagedFolder::write(const std::string &file, const std::string &text) {
  try {
    writeFileAtomic(staging_ + "/" + file, text);
  } catch (const std::system_error &e) {
    throw cannotFile(target_, e.code().message(), "writing " + file);
  }
}

void StagedFolder::publish() {
  if (fs::exists(target_)) throw cannotFile(target_, "File exists", "renaming it into place");
  if (rename(staging_.c_str(), target_.c_str()) != 0) throw cannotFile(target_, std::strerror(errno), "renaming it into place");
  published_ = true;
}

bool isFilingTemporary(const std::string &name) {
  return name.rfind(kStagingPrefix, 0) == 0 || name.find(kTempMark) != std::string::npos;
}

int removeStaleFiling(const ReportsLock &lock) {
  int removed = 0;
  std::vector<fs::path> folders = {lock.dir()};
  for (size_t i = 0; i < folders.size(); ++i) {
    std::error_code ec;
    for (auto it = fs::directory_iterator(folders[i], ec); !ec && it != fs::directory_iterator(); it.increment(ec)) {
      const std::string name = it->path().filename().string();
      std::error_code rm;
      if (isFilingTemporary(name) && deadWriter(name)) {
        fs::remove_all(it->path(), rm);
        removed += !rm;
      } else if (i == 0 && it->is_directory(rm)) {
        folders.push_back(it->path()); // a report folder: a hit's meta.json.tmp.* whose writer died
      }
    }
  }
  return removed;
}

} // namespace vf
