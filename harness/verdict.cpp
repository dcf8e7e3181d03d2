#include "harness/verdict.h"

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
  }
  return "?";
}

bool isFinding(Verdict v) {
  return v == Verdict::Mismatch || v == Verdict::BatchedError || v == Verdict::Crash || v == Verdict::Hang;
}

} // namespace vf
