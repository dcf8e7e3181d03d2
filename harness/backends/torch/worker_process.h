#pragma once
/// One long-lived Python worker process, spoken to over pipes with length-prefixed frames
/// (see harness/backends/torch/worker/vmapfuzz_worker.py for the protocol). Started with fork+exec; a worker
/// that dies or overruns its deadline is reported and restarted on the next request.
#include <chrono>
#include <string>
#include <sys/types.h>
#include <vector>

#include <nlohmann/json.hpp>

namespace vf {

/// The version of the worker protocol (harness/backends/torch/worker/vmapfuzz_worker.py); both sides check it.
constexpr int kProtocolVersion = 2;

struct WorkerConfig {
  std::string python = "python3";
  std::string script;             ///< path of vmapfuzz_worker.py
  std::vector<std::string> faults; ///< planted through VMAPFUZZ_FAULTS (self-tests only)
  std::vector<std::string> preloads; ///< python files the worker runs at start-up, before any case (--preload)
  std::chrono::milliseconds timeout{60000};        ///< per request
  std::chrono::milliseconds startupTimeout{180000}; ///< added to the first request: python imports torch
  int64_t memoryLimitMb = 8192; ///< the worker's data segment (RLIMIT_DATA); 0: no limit
  /// Python coverage of torch's batching code (VMAPFUZZ_COVERAGE): "" off, "default", or
  /// comma-separated files (vmapfuzz_coverage.py).
  std::string coverage;
  /// Each case reports only the coverage its worker process never reported before (no
  /// sys.monitoring.restart_events per case: cheaper, but no per-case coverage).
  bool coverageNewOnly = false;
};

/// A reply, or why there is none.
struct WorkerReply {
  enum class Kind { Ok, Died, TimedOut };
  Kind kind = Kind::Ok;
  nlohmann::json header;
  std::vector<std::string> blobs;
  std::string how;        ///< for Died: "killed by signal 11 (SIGSEGV)" / "exited with status 3"
  std::string stderrTail; ///< the last lines the worker wrote to stderr
};

class WorkerProcess {
public:
  explicit WorkerProcess(WorkerConfig cfg);
  ~WorkerProcess();
  WorkerProcess(const WorkerProcess &) = delete;
  WorkerProcess &operator=(const WorkerProcess &) = delete;

  /// Sends one request; `blobSizes(reply)` tells how many raw bytes follow the reply header.
  WorkerReply request(const nlohmann::json &header, const std::vector<std::string> &blobs);
  /// Kills the process (if any); the next request starts a fresh one.
  void stop();
  pid_t pid() const { return pid_; }
  int restarts() const { return restarts_; }
  bool coverage() const { return !cfg_.coverage.empty(); }
  bool coverageNewOnly() const { return cfg_.coverageNewOnly; }

private:
  void start();
  bool writeAll(const char *p, size_t n);
  /// Reads exactly n bytes before the deadline; false on EOF or timeout (sets timedOut_).
  bool readAll(char *p, size_t n, std::chrono::steady_clock::time_point deadline);
  std::string stderrTail() const;
  std::string reap();

  WorkerConfig cfg_;
  pid_t pid_ = -1;
  int toChild_ = -1, fromChild_ = -1;
  std::string stderrPath_;
  bool timedOut_ = false;
  int restarts_ = -1;
};

} // namespace vf
