#include "harness/backends/torch/worker_process.h"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <poll.h>
#include <spawn.h>
#include <sstream>
#include <stdexcept>
#include <sys/wait.h>
#include <unistd.h>

#include "ir/scalar_type.h"

extern char **environ;

namespace vf {

WorkerProcess::WorkerProcess(WorkerConfig cfg) : cfg_(std::move(cfg)) {
  char tmpl[] = "/tmp/vmapfuzz-worker-stderr-XXXXXX";
  int fd = mkstemp(tmpl);
  if (fd < 0) throw std::runtime_error("cannot create a temporary file for the worker's stderr");
  close(fd);
  stderrPath_ = tmpl;
}

WorkerProcess::~WorkerProcess() {
  stop();
  unlink(stderrPath_.c_str());
}

void WorkerProcess::start() {
  int in[2], out[2];
  if (pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0) throw std::runtime_error("pipe: " + std::string(strerror(errno)));
  int errFd = open(stderrPath_.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, in[0], 0);
  posix_spawn_file_actions_adddup2(&fa, out[1], 1);
  posix_spawn_file_actions_adddup2(&fa, errFd, 2);
  std::vector<std::string> env;
  for (char **e = environ; *e; ++e)
    if (strncmp(*e, "VMAPFUZZ_FAULTS=", 16) != 0 && strncmp(*e, "VMAPFUZZ_MEMORY_LIMIT_MB=", 25) != 0 &&
        strncmp(*e, "VMAPFUZZ_COVERAGE=", 18) != 0)
      env.emplace_back(*e);
  if (!cfg_.coverage.empty()) env.push_back("VMAPFUZZ_COVERAGE=" + cfg_.coverage);
  std::string faults;
  for (const auto &f : cfg_.faults) faults += (faults.empty() ? "" : ",") + f;
  if (!faults.empty()) env.push_back("VMAPFUZZ_FAULTS=" + faults);
  if (cfg_.memoryLimitMb > 0) env.push_back("VMAPFUZZ_MEMORY_LIMIT_MB=" + std::to_string(cfg_.memoryLimitMb));
  env.emplace_back("PYTHONUNBUFFERED=1");
  env.emplace_back("PYTHONDONTWRITEBYTECODE=1");
  std::vector<char *> envp;
  for (auto &s : env) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> args = {cfg_.python, cfg_.script};
  for (const auto &p : cfg_.preloads) args.insert(args.end(), {"--preload", p});
  std::vector<char *> argv;
  for (auto &a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const std::string &py = cfg_.python;
  int rc = posix_spawnp(&pid_, py.c_str(), &fa, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&fa);
  close(in[0]);
  close(out[1]);
  close(errFd);
  if (rc != 0) {
    close(in[1]);
    close(out[0]);
    pid_ = -1;
    throw std::runtime_error("cannot start the torch worker '" + py + "': " + strerror(rc));
  }
  toChild_ = in[1];
  fromChild_ = out[0];
  ++restarts_;
}

void WorkerProcess::stop() {
  if (pid_ > 0) {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
  if (toChild_ >= 0) close(toChild_);
  if (fromChild_ >= 0) close(fromChild_);
  pid_ = -1;
  toChild_ = fromChild_ = -1;
}

bool WorkerProcess::writeAll(const char *p, size_t n) {
  while (n) {
    ssize_t w = write(toChild_, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

bool WorkerProcess::readAll(char *p, size_t n, std::chrono::steady_clock::time_point deadline) {
  while (n) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
    if (left <= 0) {
      timedOut_ = true;
      return false;
    }
    pollfd pfd{fromChild_, POLLIN, 0};
    int r = poll(&pfd, 1, static_cast<int>(std::min<long long>(left, 1000)));
    if (r < 0 && errno == EINTR) continue;
    if (r == 0) continue;
    ssize_t got = read(fromChild_, p, n);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return false;
    p += got;
    n -= static_cast<size_t>(got);
  }
  return true;
}

std::string WorkerProcess::stderrTail() const {
  // Only the end: the file holds everything the worker wrote since it started.
  std::ifstream f(stderrPath_, std::ios::binary | std::ios::ate);
  std::streamoff size = f.tellg();
  f.seekg(std::max<std::streamoff>(0, size - 3000));
  return std::string((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

std::string WorkerProcess::reap() {
  int status = 0;
  std::string how = "stopped answering";
  if (pid_ > 0) {
    // Give a dying process a moment to finish exiting before we read its status.
    for (int i = 0; i < 50; ++i) {
      pid_t r = waitpid(pid_, &status, WNOHANG);
      if (r == pid_) {
        if (WIFSIGNALED(status)) {
          int sig = WTERMSIG(status);
          how = "killed by signal " + std::to_string(sig) + " (SIG" + std::string(sigabbrev_np(sig) ? sigabbrev_np(sig) : "?") + ")";
        } else if (WIFEXITED(status)) {
          how = "exited with status " + std::to_string(WEXITSTATUS(status));
        }
        pid_ = -1;
        break;
      }
      usleep(10000);
    }
  }
  stop();
  return how;
}

WorkerReply WorkerProcess::request(const nlohmann::json &header, const std::vector<std::string> &blobs) {
  bool fresh = pid_ < 0;
  if (fresh) start();
  WorkerReply rep;
  timedOut_ = false;
  std::string h = header.dump();
  uint64_t len = h.size();
  bool ok = writeAll(reinterpret_cast<const char *>(&len), 8) && writeAll(h.data(), h.size());
  for (const auto &b : blobs) ok = ok && writeAll(b.data(), b.size());
  auto deadline = std::chrono::steady_clock::now() + cfg_.timeout + (fresh ? cfg_.startupTimeout : std::chrono::milliseconds(0));
  uint64_t rlen = 0;
  ok = ok && readAll(reinterpret_cast<char *>(&rlen), 8, deadline) && rlen < (uint64_t{1} << 32);
  std::string body(ok ? rlen : 0, '\0');
  ok = ok && readAll(body.data(), body.size(), deadline);
  if (ok) {
    try {
      rep.header = nlohmann::json::parse(body);
      for (const auto &m : rep.header.value("tensors", nlohmann::json::array())) {
        auto dt = parseDType(m.at("dtype").get<std::string>());
        if (!dt) throw std::runtime_error("unknown dtype in a worker reply");
        int64_t n = dtypeSize(*dt);
        for (auto s : m.at("shape")) n *= s.get<int64_t>();
        std::string blob(static_cast<size_t>(n), '\0');
        if (!readAll(blob.data(), blob.size(), deadline)) {
          ok = false;
          break;
        }
        rep.blobs.push_back(std::move(blob));
      }
    } catch (const std::exception &e) {
      ok = false;
    }
  }
  if (ok) return rep;
  rep.kind = timedOut_ ? WorkerReply::Kind::TimedOut : WorkerReply::Kind::Died;
  if (timedOut_) kill(pid_, SIGKILL);
  rep.how = timedOut_ ? "no answer within " + std::to_string(cfg_.timeout.count()) + " ms" : reap();
  if (timedOut_) stop();
  rep.stderrTail = stderrTail();
  return rep;
}

} // namespace vf
