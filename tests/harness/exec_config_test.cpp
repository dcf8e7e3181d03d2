// Execution modes: names, parsing, and what the emitted repro does with them.
#include <gtest/gtest.h>

#include "harness/backends/exec_config.h"
#include "harness/backends/torch/python_emit.h"
#include "harness/run/runner.h"
#include "ir/text.h"

using namespace vf;

TEST(ExecConfig, EveryKnownModeParsesBackToItsName) {
  for (const auto &m : knownModes()) {
    auto e = parseMode(m);
    ASSERT_TRUE(e) << m;
    EXPECT_EQ(e->modeName(), m);
  }
  EXPECT_EQ(parseMode("eager")->compiled(), false);
  auto ind = parseMode("compile-inductor-dynamic");
  ASSERT_TRUE(ind);
  EXPECT_EQ(ind->compiler, "inductor");
  ASSERT_TRUE(ind->dynamic);
  EXPECT_TRUE(*ind->dynamic);
  EXPECT_FALSE(parseMode("compile-aot_eager")->dynamic.has_value());
  EXPECT_FALSE(*parseMode("compile-eager-static")->dynamic);
}

TEST(ExecConfig, PrecompileModesAreCompiledAndSayPrecompileToTheWorker) {
  auto p = parseMode("precompile-inductor");
  ASSERT_TRUE(p);
  EXPECT_TRUE(p->precompile);
  EXPECT_TRUE(p->compiled()); // called again at another batch size, as the compile modes are
  EXPECT_EQ(p->compiler, "inductor");
  EXPECT_EQ(p->toJson().value("precompile", false), true);
  EXPECT_FALSE(parseMode("compile-inductor")->toJson().contains("precompile"));
  EXPECT_FALSE(parseMode("precompile-inductor-dynamic"));
  EXPECT_TRUE(SystemId::parse("precompile-aot_eager|cpu")->exec.precompile);
}

TEST(ExecConfig, APrecompileReproSavesAndLoadsInTwoProcesses) {
  Case c = parseCase(R"(vmap size=2 in_dims=(0) out_dims=(0)
data_seed 1
func(%0: f32[3]) {
  %1: f32[3] = sin(%0)
  return %1
}
)");
  ReproOptions opt;
  opt.exec = *parseMode("precompile-aot_eager");
  std::string py = emitRepro(c, {at::ones({2, 3})}, "test", opt);
  EXPECT_NE(py.find("aot_compile("), std::string::npos) << py;
  EXPECT_NE(py.find("save_compiled_function("), std::string::npos) << py;
  EXPECT_NE(py.find("\"--load\""), std::string::npos) << py;
  EXPECT_NE(py.find("load_compiled_function("), std::string::npos) << py;
  EXPECT_NE(py.find("actual = loaded(*args)"), std::string::npos) << py;
  EXPECT_EQ(py.find("batched = torch.compile("), std::string::npos) << py;
}

TEST(ExecConfig, BadModeListsNameTheBadEntry) {
  EXPECT_EQ(parseModes("eager,compile-inductor").size(), 2u);
  for (const char *bad : {"", "eager,", "jit", "compile-", "compile-tvm", "eager,eager", "compile-inductor-fast"}) {
    try {
      parseModes(bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const std::invalid_argument &e) {
      EXPECT_NE(std::string(e.what()).find("mode"), std::string::npos) << e.what();
    }
  }
}

TEST(ExecConfig, BackendNamesMapBackToTheirExecution) {
  auto e = SystemId::parse("compile-aot_eager-static|rocm")->exec;
  EXPECT_EQ(e.compiler, "aot_eager");
  EXPECT_EQ(e.device, "cuda"); // ROCm torch runs through the cuda device
  EXPECT_EQ(SystemId::parse("eager|cpu")->modeName(), "eager");
  EXPECT_EQ(e.toJson()["dynamic"], false);
}

namespace {
const char *kCase = R"(vmap size=3 in_dims=(0,None) out_dims=(0)
data_seed 4
func(%0: f32[2], %1: f32[2]) {
  %2: f32[2] = mul(%0, %1)
  return %2
}
)";
}

TEST(ExecConfig, AReproCompilesAndCallsAgainAsItsFindingDid) {
  Case c = parseCase(kCase);
  Case again = atAnotherBatchSize(c);
  EXPECT_EQ(again.spec.levels[0].size, 4);
  EXPECT_EQ(atAnotherBatchSize(parseCase(std::string(kCase).replace(10, 1, "1"))).spec.levels[0].size, 3);
  ReproOptions ro;
  ro.exec = *parseMode("compile-inductor-dynamic");
  ro.exec.device = "cuda";
  ro.again = again;
  ro.againInputs = {at::zeros({4, 2}), at::ones({2})};
  std::string py = emitRepro(c, {at::zeros({3, 2}), at::ones({2})}, "test", ro);
  EXPECT_NE(py.find("batched = torch.compile(batched, backend=\"inductor\", dynamic=True)"), std::string::npos) << py;
  EXPECT_NE(py.find("torch.set_default_device(\"cuda\")"), std::string::npos) << py;
  EXPECT_NE(py.find("second call (batch size 4)"), std::string::npos) << py;
  // per_example takes its batch size from its inputs, so it serves both calls.
  EXPECT_NE(py.find("for b in range(x0.size(0))"), std::string::npos) << py;
  std::string plain = emitRepro(c, {at::zeros({3, 2}), at::ones({2})}, "test");
  EXPECT_EQ(plain.find("torch.compile"), std::string::npos);
  EXPECT_EQ(plain.find("set_default_device"), std::string::npos);
}

TEST(ExecConfig, GradientModesAreSuffixesOfEveryMode) {
  auto g = parseMode("compile-inductor-dynamic+grad");
  ASSERT_TRUE(g);
  EXPECT_EQ(g->grad, Grad::OfVmap);
  EXPECT_EQ(g->compiler, "inductor");
  EXPECT_TRUE(*g->dynamic);
  EXPECT_EQ(parseMode("direct+vmap-grad")->grad, Grad::VmapOf);
  EXPECT_TRUE(parseMode("direct+vmap-grad")->direct());
  EXPECT_EQ(parseMode("eager")->grad, Grad::None);
  EXPECT_FALSE(parseMode("eager+hvp")); // (+jvp is a mode: below)
  EXPECT_FALSE(parseMode("+grad"));
  // A forward request is what it was: no "grad" key at all.
  EXPECT_FALSE(parseMode("eager")->toJson().contains("grad"));
  EXPECT_EQ(parseMode("eager+grad")->toJson()["grad"], "of-vmap");
  EXPECT_EQ(SystemId::parse("direct+grad|cpu")->grad(), Grad::OfVmap);
  EXPECT_EQ(SystemId::parse("eager+vmap-grad|cpu")->replayFlag(), " --mode eager+vmap-grad");
  // The forward-mode setting: torch.func.jvp of the vmapped program.
  EXPECT_EQ(parseMode("direct+jvp")->grad, Grad::Jvp);
  EXPECT_EQ(parseMode("compile-eager+jvp")->modeName(), "compile-eager+jvp");
  EXPECT_EQ(parseMode("eager+jvp")->toJson()["grad"], "jvp");
  EXPECT_TRUE(forwardMode(Grad::Jvp));
  EXPECT_FALSE(forwardMode(Grad::VmapOf));
  EXPECT_FALSE(parseMode("precompile-eager+jvp"));
}
