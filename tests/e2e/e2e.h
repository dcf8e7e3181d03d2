#pragma once
/// The one setup of the end-to-end tests (tests/e2e/, label `e2e`): they drive the vmapfuzz
/// binary or the real python worker. Run a command, start a worker, make a scratch directory,
/// read a file back.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "harness/backends/torch/torch_backend.h"

namespace vf::test {

/// The vmapfuzz binary under test.
inline const std::string kBin = VMAPFUZZ_BINARY;

struct Shell {
  int code = -1;   ///< exit status, -1 when the command did not exit normally
  std::string out; ///< stdout and stderr together
};

/// Runs `cmd` with /bin/sh, stderr merged into stdout.
inline Shell sh(const std::string &cmd) {
  Shell r;
  FILE *p = popen((cmd + " 2>&1").c_str(), "r");
  if (!p) return r;
  char buf[4096];
  while (size_t n = fread(buf, 1, sizeof buf, p)) r.out.append(buf, n);
  int st = pclose(p);
  r.code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

/// The worker every end-to-end test starts: the project's python worker, a generous deadline
/// (a first compile is slow on a busy machine; no test asserts on time).
inline WorkerConfig testWorker() {
  WorkerConfig w;
  w.script = defaultWorkerScript();
  w.timeout = std::chrono::milliseconds(120000);
  return w;
}

/// A fresh, empty directory of this test process: vmapfuzz-SUITE-NAME-PID under the temp
/// directory (SUITE: the running test's suite).
inline std::string tempDir(const std::string &name) {
  const auto *info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string suite = info ? info->test_suite_name() : "e2e";
  std::replace(suite.begin(), suite.end(), '/', '-'); // a parameterised suite: Prefix/Suite
  auto d = std::filesystem::temp_directory_path() / ("vmapfuzz-" + suite + "-" + name + "-" + std::to_string(getpid()));
  std::filesystem::remove_all(d);
  std::filesystem::create_directories(d);
  return d.string();
}

/// The exit code a campaign's printed summary promises (README "Exit codes"): 1 when it filed a
/// new finding ("findings (N unique, M new)" with M > 0), else 0. A test compares the real one
/// with it instead of accepting either.
inline int campaignExitOf(const std::string &out) {
  std::smatch m;
  static const std::regex findings("findings \\(([0-9]+) unique, ([0-9]+) new\\)");
  return std::regex_search(out, m, findings) && std::stoi(m[2].str()) > 0 ? 1 : 0;
}

inline std::string slurp(const std::filesystem::path &p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline nlohmann::json readJson(const std::filesystem::path &p) {
  std::ifstream in(p);
  return nlohmann::json::parse(in);
}

} // namespace vf::test
