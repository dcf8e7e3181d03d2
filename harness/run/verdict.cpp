#include "harness/run/verdict.h"

namespace vf {

std::string_view verdictName(Verdict v) {
  switch (v) {
  case Verdict::Pass: return "pass";
  case Verdict::Mismatch: return "mismatch";
  case Verdict::BatchedError: return "batched-error";
  case Verdict::Crash: return "crash";
  case Verdict::Hang: return "hang";
  case Verdict::Invalid: return "invalid";
  case Verdict::Ambiguous: return "ambiguous";
  case Verdict::Unsupported: return "unsupported";
  case Verdict::HarnessBug: return "harness-bug";
  case Verdict::Oom: return "oom";
  }
  return "?";
}

std::string errorGist(const std::string &message) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start <= message.size()) {
    size_t end = message.find('\n', start);
    if (end == std::string::npos) end = message.size();
    std::string line = message.substr(start, end - start);
    size_t b = line.find_first_not_of(" \t");
    if (b != std::string::npos) lines.push_back(line.substr(b));
    start = end + 1;
  }
  if (lines.empty()) return "";
  std::string gist = lines[0];
  for (const auto &l : lines) {
    if (l.rfind("raised exception ", 0) == 0) return gist + " " + l;
    // dynamo: "... call_function cond(<arguments>): got AssertionError('...')": keep the cause.
    size_t got = l.find("): got ");
    if (got != std::string::npos) return gist + " got " + l.substr(got + 7);
  }
  if (gist.back() == ':' && lines.size() > 1) gist += " " + lines[1];
  return gist;
}

bool isFinding(Verdict v) {
  return v == Verdict::Mismatch || v == Verdict::BatchedError || v == Verdict::Crash || v == Verdict::Hang ||
         v == Verdict::Oom;
}

bool isFailure(Verdict v) { return isFinding(v) || v == Verdict::HarnessBug; }

} // namespace vf
