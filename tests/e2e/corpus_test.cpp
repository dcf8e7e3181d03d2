// The hand-written seeds: each parses, validates, and torch's own per-example run of its
// emitted Python gives the values our reference interpreter gives.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "generators/data.h"
#include "harness/backends/torch/torch_backend.h"
#include "ir/text.h"
#include "ir/validate.h"
#include "oracles/compare.h"
#include "oracles/reference.h"
#include "tests/e2e/e2e.h"

using namespace vf;
namespace fs = std::filesystem;

namespace {

/// Every seed's per-example run on `torch` gives the reference's values.
void everySeedAgreesWithTheReference(TorchBackend &torch) {
  std::set<std::string> constructs;
  int checked = 0;
  for (auto &e : fs::directory_iterator(VMAPFUZZ_SOURCE_DIR "/corpus/seeds")) {
    if (e.path().extension() != ".vf") continue;
    std::stringstream text;
    text << std::ifstream(e.path()).rdbuf();
    Case c = parseCase(text.str());
    ASSERT_EQ(validateCase(c), "") << e.path();
    auto inputs = makeInputs(c);
    RefResult ref = runReference(c, inputs);
    ASSERT_EQ(ref.error, "") << e.path();
    Outcome o = torch.run(c, inputs, RunMode::PerExample);
    ASSERT_EQ(o.status, Outcome::Status::Ok) << e.path() << ": " << o.errorType << ": " << o.errorMessage;
    auto cmp = compareOutputs(ref.outputs, o.outputs);
    EXPECT_TRUE(cmp.equal) << e.path() << ": " << cmp.detail;
    std::function<void(const Block &)> walk = [&](const Block &b) {
      for (const auto &s : b.stmts) {
        if (!s.regions.empty()) constructs.insert(s.op);
        for (const auto &r : s.regions) walk(r);
      }
    };
    walk(c.program.body);
    ++checked;
  }
  EXPECT_GE(checked, 6);
  EXPECT_EQ(constructs, (std::set<std::string>{"cond", "grad", "jvp", "scan", "switch", "vmap", "while_loop"}));
}

} // namespace

TEST(Corpus, EverySeedReplaysWithTheReferenceValues) {
  TorchBackend torch(vf::test::testWorker());
  everySeedAgreesWithTheReference(torch);
}

// Direct mode calls the ops themselves through helpers that stand in for the public wrappers
// (the index clamp, scan's reverse, captured values lifted into operands): without vmap, each
// seed must still compute what the reference computes.
TEST(Corpus, EverySeedReplaysWithTheReferenceValuesInDirectMode) {
  WorkerConfig w = vf::test::testWorker();
  ExecConfig direct;
  direct.api = Api::Direct;
  TorchBackend torch(std::make_shared<WorkerProcess>(w), direct, "cpu");
  everySeedAgreesWithTheReference(torch);
}
