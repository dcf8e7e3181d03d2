// SystemId: a system's identity as a value, its string only at the edges.
#include <gtest/gtest.h>

#include "harness/backends/system_id.h"

using namespace vf;

TEST(SystemId, EveryModeOnEveryDeviceRoundTripsThroughItsString) {
  for (const auto &mode : knownModes())
    for (const char *label : {"cpu", "cuda", "rocm"}) {
      const std::string text = mode + "|" + label;
      auto id = SystemId::parse(text);
      ASSERT_TRUE(id) << text;
      EXPECT_EQ(id->str(), text);
      EXPECT_EQ(id->modeName(), mode);
      EXPECT_EQ(id->device, label);
      EXPECT_FALSE(id->isLibtorch());
      EXPECT_EQ(*SystemId::parse(id->str()), *id);
    }
}

TEST(SystemId, ARocmTorchRunsThroughTheCudaDevice) {
  auto id = SystemId::parse("compile-inductor|rocm").value();
  EXPECT_EQ(id.exec.device, "cuda");
  EXPECT_EQ(id.device, "rocm");
  EXPECT_EQ(id.exec.compiler, "inductor");
  EXPECT_EQ(SystemId::torch(id.exec, "rocm"), id);
  EXPECT_EQ(SystemId::torch(id.exec).str(), "compile-inductor|cuda"); // no label: the device's own name
}

TEST(SystemId, TheLibtorchBackendIsItsOwnKindNotAnEagerMode) {
  // Parsing "libtorch|cpu" used to give torch's eager mode, patched up by prefix checks.
  auto id = SystemId::parse("libtorch|cpu").value();
  EXPECT_TRUE(id.isLibtorch());
  EXPECT_EQ(id.backend, BackendKind::Libtorch);
  EXPECT_EQ(id.str(), "libtorch|cpu");
  EXPECT_NE(id, *SystemId::parse("eager|cpu"));
  EXPECT_EQ(id.replayFlag(), " --backend libtorch");
  EXPECT_EQ(SystemId::libtorch(), id);
}

TEST(SystemId, MalformedStringsAreRejected) {
  for (const char *bad : {"", "eager", "eager|", "|cpu", "eager|tpu", "eager+hvp|cpu", "libtorch|mps", "eager|cpu|x"})
    EXPECT_FALSE(SystemId::parse(bad)) << bad;
}

TEST(SystemId, ForwardDropsOnlyTheDerivative) {
  EXPECT_EQ(SystemId::parse("direct+vmap-grad|cpu")->forward().str(), "direct|cpu");
  EXPECT_EQ(SystemId::parse("compile-inductor-dynamic+grad|cuda")->forward().str(), "compile-inductor-dynamic|cuda");
  EXPECT_EQ(SystemId::parse("eager+jvp|rocm")->forward().str(), "eager|rocm");
  EXPECT_EQ(SystemId::parse("eager|cpu")->forward().str(), "eager|cpu");
}

TEST(SystemId, TheReplayFlagNamesTheMode) {
  EXPECT_EQ(SystemId::parse("eager+vmap-grad|cpu")->replayFlag(), " --mode eager+vmap-grad");
  EXPECT_EQ(SystemId::parse("precompile-aot_eager|cuda")->replayFlag(), " --mode precompile-aot_eager");
  EXPECT_EQ(SystemId::parse("direct|cpu")->display(), "direct (cpu)");
  EXPECT_EQ(SystemId{}.str(), "eager|cpu"); // the default: eager on the CPU
}
