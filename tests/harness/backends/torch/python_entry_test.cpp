// The one table of entry points (harness/backends/torch/python_entry.h): what each mode's runs
// call in the emitted module.
#include <gtest/gtest.h>

#include <stdexcept>

#include "harness/backends/torch/python_entry.h"

using namespace vf;

namespace {

EntryPoint entry(const std::string &mode, RunMode run) { return entryPoint(*parseMode(mode), run); }

} // namespace

TEST(EntryPoint, ForwardModes) {
  EXPECT_EQ(entry("eager", RunMode::Batched).expression(), "batched");
  EXPECT_FALSE(entry("eager", RunMode::Batched).compiled);
  EXPECT_TRUE(entry("compile-inductor", RunMode::Batched).compiled);
  EXPECT_TRUE(entry("compile-inductor", RunMode::PerExample).compiled); // as the worker always did
  EXPECT_EQ(entry("direct", RunMode::PerExample).expression(), "per_example");
}

TEST(EntryPoint, GradientModes) {
  EXPECT_EQ(entry("eager+grad", RunMode::Batched).expression(), "vjp_of(batched)");
  EXPECT_EQ(entry("eager+grad", RunMode::PerExample).expression(), "vjp_of(per_example)");
  EXPECT_EQ(entry("eager+vmap-grad", RunMode::Batched).expression(), "batched_vjp");
  EXPECT_EQ(entry("eager+vmap-grad", RunMode::PerExampleFunc).expression(), "per_example_func_vjp");
  EXPECT_EQ(entry("direct+jvp", RunMode::Batched).expression(), "batched_jvp");
  EXPECT_EQ(entry("direct+jvp", RunMode::PerExample).expression(), "per_example_jvp_by_rows");
  EXPECT_EQ(entry("direct+jvp", RunMode::PerExampleFunc).expression(), "per_example_func_jvp");
  // BatchedForward: the forward mode's batched run, on the same worker.
  EXPECT_EQ(entry("eager+grad", RunMode::BatchedForward).expression(), "batched");
  EXPECT_THROW(entry("eager+grad", RunMode::PerExampleFunc), std::logic_error);
}

TEST(EntryPoint, PrecompileModesCallTheLoadedArtifact) {
  EntryPoint b = entry("precompile-eager", RunMode::Batched);
  EXPECT_TRUE(b.precompiled);
  EXPECT_FALSE(b.compiled);
  EXPECT_EQ(b.toJson(), (nlohmann::json{{"fn", "batched"}, {"compile", false}, {"vjp_of", false}, {"precompile", true}}));
  EXPECT_FALSE(entry("precompile-eager", RunMode::PerExample).precompiled);
}
