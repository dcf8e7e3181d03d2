// libFuzzer target: bytes -> a case through the generators' choice stream
// (generators/choices.h) -> the reference interpreter and the libtorch backend, in process.
// A finding (or a harness bug, or a generated case that does not validate) prints the case in
// the text format and aborts, so libFuzzer writes crash-<sha1>; `vmapfuzz replay crash-<sha1>`
// and `vmapfuzz gen --bytes crash-<sha1>` decode the same case from it.
//
// A finding whose signature is filed already (reports/, or $VMAPFUZZ_REPORTS) is a known bug:
// it is counted and printed once, not a crash, as a campaign counts it and fails only on new ones.
// $VMAPFUZZ_GEN="key=value,..." sets generator knobs (as --gen does; give replay the same);
// $VMAPFUZZ_LIBTORCH_FAULT plants a lowering fault (self-tests).
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <sstream>

#include <ATen/Parallel.h>

#include "generators/choices.h"
#include "harness/report/findings.h"
#include "harness/backends/libtorch/libtorch_backend.h"
#include "harness/run/runner.h"
#include "ir/text.h"
#include "ir/validate.h"

namespace {

vf::GenPolicy gPolicy;
std::unique_ptr<vf::FindingStore> gKnown;
std::map<std::string, int64_t> gKnownHits;

[[noreturn]] void fail(const char *what, const std::string &detail, const vf::Case &c) {
  std::fprintf(stderr, "==vmapfuzz== ERROR: %s: %s\n%s==vmapfuzz== replay: vmapfuzz replay --backend libtorch <artifact>\n",
               what, detail.c_str(), vf::printCase(c).c_str());
  std::abort();
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  at::set_num_threads(1);
  const char *reports = std::getenv("VMAPFUZZ_REPORTS");
  gKnown = std::make_unique<vf::FindingStore>(reports ? reports : VMAPFUZZ_SOURCE_DIR "/reports");
  if (const char *g = std::getenv("VMAPFUZZ_GEN")) {
    std::stringstream ss(g);
    for (std::string kv; std::getline(ss, kv, ',');) {
      if (std::string err = vf::applyPolicySetting(gPolicy, kv); !err.empty()) {
        std::fprintf(stderr, "VMAPFUZZ_GEN: %s: %s\n", kv.c_str(), err.c_str());
        std::exit(2);
      }
    }
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static vf::LibtorchBackend backend;
  static vf::Runner runner(backend);
  vf::Case c = vf::caseFromBytes(data, size, gPolicy);
  if (std::string err = vf::validateCase(c); !err.empty()) fail("generated case does not validate", err, c);
  vf::CaseResult r = runner.run(c);
  if (!vf::isFailure(r.verdict)) return 0;
  if (std::string sig = vf::signatureOf(c, r); gKnown->known(sig)) {
    if (gKnownHits[sig]++ == 0) std::fprintf(stderr, "==vmapfuzz== known finding (filed): %s\n", sig.c_str());
    return 0;
  }
  fail(std::string(vf::verdictName(r.verdict)).c_str(), r.summary, c);
  return 0;
}
