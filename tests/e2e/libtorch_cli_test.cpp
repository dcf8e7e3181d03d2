// The CLI with the libtorch backend: --backend, three-way replay naming the side that differs,
// and libFuzzer artifacts decoded by replay and gen.
#include <gtest/gtest.h>

#include "tests/e2e/e2e.h"
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>

namespace fs = std::filesystem;

namespace {

using vf::test::kBin;
using vf::test::sh;
using Proc = vf::test::Shell;
const std::string kSrc = VMAPFUZZ_SOURCE_DIR;


} // namespace

TEST(LibtorchCli, ReplayAndGenDecodeALibFuzzerArtifact) {
  fs::path dir = vf::test::tempDir("artifact");
  fs::path artifact = dir / "crash-0123456789abcdef";
  fs::copy_file(kSrc + "/corpus/fuzz/case/seed-03", artifact, fs::copy_options::overwrite_existing);
  Proc gen = sh(kBin + " gen --bytes " + artifact.string());
  ASSERT_EQ(gen.code, 0) << gen.out;
  EXPECT_NE(gen.out.find("func("), std::string::npos) << gen.out;
  Proc replay = sh(kBin + " replay --backend libtorch " + artifact.string());
  EXPECT_EQ(replay.code, 0) << replay.out;
  EXPECT_NE(replay.out.find(artifact.string() + ": pass"), std::string::npos) << replay.out;
  fs::remove_all(dir);
}

TEST(LibtorchCli, AThreeWayReplayNamesTheBackendThatDiffers) {
  Proc r = sh("VMAPFUZZ_LIBTORCH_FAULT=flip-select " + kBin + " replay --backend torch,libtorch " + kSrc +
             "/corpus/seeds/cond_batched_pred.vf");
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find("libtorch|cpu: mismatch"), std::string::npos) << r.out;
  Proc clean = sh(kBin + " replay --backend torch,libtorch " + kSrc + "/corpus/seeds/cond_batched_pred.vf");
  EXPECT_EQ(clean.code, 0) << clean.out;
}

TEST(LibtorchCli, UnknownBackendsAndFaultsAreUsageErrors) {
  Proc b = sh(kBin + " replay --backend jax " + kSrc + "/corpus/seeds/cond_batched_pred.vf");
  EXPECT_EQ(b.code, 2) << b.out;
  EXPECT_NE(b.out.find("--backend takes torch, libtorch"), std::string::npos) << b.out;
  Proc f = sh("VMAPFUZZ_LIBTORCH_FAULT=nope " + kBin + " replay --backend libtorch " + kSrc + "/corpus/seeds/cond_batched_pred.vf");
  EXPECT_EQ(f.code, 2) << f.out;
  EXPECT_NE(f.out.find("unknown fault"), std::string::npos) << f.out;
}
