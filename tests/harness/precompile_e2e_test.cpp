// End-to-end: a precompile mode saves the compiled vmap, loads it in a fresh process and calls it
// at two batch sizes; a fault planted in the load path is found, filed, and its repro.py (which
// saves and loads in two processes itself) fails the same way. precompile-aot_eager: the fastest
// compiler whose artifact this torch saves for a batched cond (precompile-eager's save fails).
#include <gtest/gtest.h>

#include "tests/harness/cli_util.h"

#include <filesystem>

namespace fs = std::filesystem;

namespace {

using vf::test::kBin;
using vf::test::sh;
using vf::test::Shell;

const std::string kSeed = std::string(VMAPFUZZ_SOURCE_DIR) + "/corpus/seeds/cond_batched_pred.vf";

TEST(Precompile, ALoadedArtifactAgreesWithTheReferenceAtBothBatchSizes) {
  Shell r = sh(kBin + " replay --mode precompile-aot_eager " + kSeed);
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("precompile-aot_eager|cpu"), std::string::npos) << r.out;
}

TEST(Precompile, AFaultInTheLoadPathIsFoundAndFiledWithATwoProcessRepro) {
  std::string d = vf::test::tempDir("vmapfuzz-precompile", "planted");
  Shell r = sh(kBin + " fuzz --cases 2 --time 900 --seed 7 --no-shrink --mode precompile-aot_eager"
                      " --fault precompile-load-perturbed --out " + d);
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find("after save/load"), std::string::npos) << r.out;
  fs::path repro;
  for (const auto &e : fs::recursive_directory_iterator(d))
    if (e.path().filename() == "repro.py") repro = e.path();
  ASSERT_FALSE(repro.empty()) << "no report filed under " << d << "\n" << r.out;
  // The fault lives in the worker's fresh process only: on plain torch the repro saves, loads
  // in a second process and passes; that it runs both steps is what matters here.
  Shell rp = sh("python3 " + repro.string());
  EXPECT_EQ(rp.code, 0) << rp.out;
  EXPECT_NE(rp.out.find("saved; loading it in a fresh process"), std::string::npos) << rp.out;
}

} // namespace
