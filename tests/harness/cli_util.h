#pragma once
/// Shared by the end-to-end tests that drive the vmapfuzz binary: run a command, make a scratch
/// directory, read a file back.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

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

/// A fresh, empty directory of this test process: PREFIX-NAME-PID under the temp directory.
inline std::string tempDir(const std::string &prefix, const std::string &name) {
  auto d = std::filesystem::temp_directory_path() / (prefix + "-" + name + "-" + std::to_string(getpid()));
  std::filesystem::remove_all(d);
  std::filesystem::create_directories(d);
  return d.string();
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
