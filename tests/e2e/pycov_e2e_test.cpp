// End-to-end: python coverage through the real worker (sys.monitoring), on a toy module whose
// reached lines are known exactly, and on torch's cond batching rule through a direct-mode case.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "harness/backends/exec_config.h"
#include "harness/backends/torch/torch_backend.h"
#include "harness/campaign/guided.h"
#include "harness/run/runner.h"
#include "ir/text.h"
#include "tests/e2e/e2e.h"
#include "tests/e2e/test_cases.h"

using namespace vf;
using vf::test::kCond; // batched predicate, examples on both branches

namespace {

const std::string kToy = VMAPFUZZ_SOURCE_DIR "/tests/e2e/data/toy_cov.py";

WorkerConfig config(const std::string &coverage) {
  WorkerConfig w = vf::test::testWorker();
  w.coverage = coverage;
  return w;
}

nlohmann::json runSource(WorkerProcess &w, const std::string &src, const std::string &mode, int64_t id) {
  nlohmann::json req = {{"v", kProtocolVersion}, {"op", "run"}, {"id", id}, {"source", src}, {"mode", mode},
                        {"coverage", true}, {"exec", {{"device", "cpu"}, {"compile", nullptr}, {"api", "direct"}}},
                        {"tensors", {{{"dtype", "f32"}, {"shape", {2}}}}}};
  auto rep = w.request(req, {std::string(8, '\0')});
  EXPECT_EQ(rep.kind, WorkerReply::Kind::Ok) << rep.how << rep.stderrTail;
  EXPECT_EQ(rep.header.value("status", ""), "ok") << rep.header.dump();
  return rep.header;
}

// `batched` calls pick(arg) and loop(n); per_example calls never() and pick(-1).
std::string toySource(int pickArg, int loopN) {
  std::ostringstream s;
  s << "import toy_cov\n"
    << "def batched(x):\n    toy_cov.pick(" << pickArg << ")\n" << (loopN >= 0 ? "    toy_cov.loop(" + std::to_string(loopN) + ")\n" : "")
    << "    return x\n"
    << "def per_example(x):\n    toy_cov.never()\n    toy_cov.pick(-1)\n    return x\n";
  return s.str();
}

} // namespace

TEST(PyCoverage, ToyModuleCoverageIsExact) {
  WorkerProcess w(config(kToy));
  auto hello = w.request({{"v", kProtocolVersion}, {"op", "hello"}, {"coverage", true}}, {});
  ASSERT_EQ(hello.kind, WorkerReply::Kind::Ok) << hello.stderrTail;
  ASSERT_TRUE(hello.header.contains("coverage_table")) << hello.header.dump();
  const auto &table = hello.header["coverage_table"][kToy];
  ASSERT_EQ(table.size(), 3u) << table.dump();
  EXPECT_EQ(table[0]["name"], "pick");
  EXPECT_EQ(table[0]["lines"], nlohmann::json({3, 4, 6, 7}));
  EXPECT_EQ(table[0]["branches"], nlohmann::json({{3, 4, 6}}));
  EXPECT_EQ(table[1]["name"], "never");
  EXPECT_EQ(table[1]["lines"], nlohmann::json({11}));
  EXPECT_EQ(table[2]["name"], "loop");
  EXPECT_EQ(table[2]["lines"], nlohmann::json({15, 16, 17, 18}));

  std::string src = "import sys\nsys.path.insert(0, " + nlohmann::json(std::filesystem::path(kToy).parent_path().string()).dump() + ")\n";
  auto r1 = runSource(w, src + toySource(3, -1), "batched", 1);
  EXPECT_EQ(r1["cov"]["l"][kToy], nlohmann::json({3, 4, 7})) << r1["cov"].dump(); // line 6 and never() not reached
  EXPECT_EQ(r1["cov"]["b"][kToy], nlohmann::json({0}));                           // the left edge of line 3
  // A per-example run records nothing (and disables what it hits until the next batched run).
  auto r2 = runSource(w, src + toySource(3, -1), "unbatched", 2);
  EXPECT_FALSE(r2.contains("cov"));
  // The next batched run reports everything it reaches again, line 6 and the loop included.
  auto r3 = runSource(w, src + toySource(-5, 2), "batched", 3);
  EXPECT_EQ(r3["cov"]["l"][kToy], nlohmann::json({3, 6, 7, 15, 16, 17, 18})) << r3["cov"].dump();
  EXPECT_EQ(r3["cov"]["b"][kToy], nlohmann::json({1, 2, 3})); // right edge of line 3; both edges of the for
  // The same module again: exactly the first run's coverage (events were restarted).
  auto r4 = runSource(w, src + toySource(3, -1), "batched", 4);
  EXPECT_EQ(r4["cov"], r1["cov"]);
}

TEST(PyCoverage, DirectCondCaseReachesCondBatchRule) {
  auto worker = std::make_shared<WorkerProcess>(config("default"));
  ExecConfig direct = parseModes("direct").front();
  TorchBackend b(worker, direct, "cpu");
  auto info = b.hello();
  ASSERT_TRUE(info.contains("coverage_table")) << info.dump().substr(0, 400);
  PyCovTable table = PyCovTable::fromJson(info["coverage_table"]);
  auto rule = std::find_if(table.funcs.begin(), table.funcs.end(), [](const auto &f) { return f.name == "cond_batch_rule"; });
  ASSERT_NE(rule, table.funcs.end());
  Runner runner(b);
  Case c = parseCase(kCond);
  CaseResult r = runner.run(c);
  EXPECT_EQ(r.verdict, Verdict::Pass) << r.summary;
  PyCoverage cov;
  cov.add(r.pyCoverage);
  int reached = 0;
  for (int64_t l : rule->lines) reached += cov.has(lineKey(rule->file, l));
  EXPECT_GT(reached, 3) << "cond_batch_rule lines reached by a batched-predicate cond";
  EXPECT_LT(reached, static_cast<int>(rule->lines.size())) << "the unbatched-predicate path is not taken";
}


// A finding of a case that did not come from `gen` (here: read from --corpus-dir; a mutant
// alike) has a reproduce line that replays the filed case.vf, and that line reproduces it.
TEST(PyCoverage, CorpusCaseFindingReproducesFromItsFiledCase) {
  using vf::test::sh;
  std::string d = vf::test::tempDir("repro"), corpus = d + "/corpus";
  saveCorpusCase(corpus, parseCase(kCond));
  auto r = sh(vf::test::kBin + " fuzz --cases 1 --time 600 --seed 5 --fault cond-batched-pred-swapped --corpus-dir " +
              corpus + " --out " + d + " --reports " + d + "/reports");
  ASSERT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find("read from --corpus-dir"), std::string::npos) << r.out;
  EXPECT_TRUE(std::filesystem::exists(d + "/lcov.info"));
  int checked = 0;
  for (auto &e : std::filesystem::directory_iterator(d + "/reports")) {
    if (!std::filesystem::exists(e.path() / "meta.json")) continue;
    auto meta = nlohmann::json::parse(vf::test::slurp(e.path() / "meta.json"));
    std::string line = meta.value("reproduce", "");
    ASSERT_EQ(line.find("gen --case-seed"), std::string::npos) << line;
    ASSERT_EQ(line.rfind("vmapfuzz replay", 0), 0u) << line;
    EXPECT_NE(line.find("--fault cond-batched-pred-swapped"), std::string::npos) << line;
    auto again = sh("cd " + e.path().string() + " && " + vf::test::kBin + line.substr(8));
    EXPECT_EQ(again.code, 1) << line << "\n" << again.out;
    ++checked;
  }
  EXPECT_GE(checked, 1);
}

TEST(PyCoverage, CoverageAndMergeCorpusCommands) {
  using vf::test::sh;
  std::string d = vf::test::tempDir("cmds"), corpus = d + "/corpus", merged = d + "/merged";
  Case c = parseCase(kCond);
  saveCorpusCase(corpus, c);
  Case same = c; // the same program on other data: no new coverage, dropped by the merge
  same.spec.data_seed = 8;
  saveCorpusCase(corpus, same);
  auto cov = sh(vf::test::kBin + " coverage " + corpus + " --out " + d);
  ASSERT_EQ(cov.code, 0) << cov.out;
  EXPECT_NE(cov.out.find("cond.py:cond_batch_rule"), std::string::npos) << cov.out;
  EXPECT_NE(cov.out.find("never reached: lines"), std::string::npos) << cov.out;
  std::string lcov = vf::test::slurp(d + "/lcov.info");
  EXPECT_NE(lcov.find("SF:torch/_higher_order_ops/cond.py"), std::string::npos);
  EXPECT_NE(lcov.find(",cond_batch_rule\n"), std::string::npos);
  auto m = sh(vf::test::kBin + " merge-corpus " + corpus + " --out " + merged);
  ASSERT_EQ(m.code, 0) << m.out;
  EXPECT_NE(m.out.find("kept 1 of 2 cases"), std::string::npos) << m.out;
  int files = 0;
  for (auto &e : std::filesystem::directory_iterator(merged)) files += e.path().extension() == ".vf";
  EXPECT_EQ(files, 1);
}

// A scan with an in-place buffer in direct mode reaches the line of scan_batch_rule that
// forwards mutated_arg_indices to scan_op (never reached before the generator made them).
TEST(PyCoverage, DirectScanWithABufferReachesMutatedArgIndicesInScanBatchRule) {
  auto worker = std::make_shared<WorkerProcess>(config("default"));
  TorchBackend b(worker, parseModes("direct").front(), "cpu");
  auto info = b.hello();
  ASSERT_TRUE(info.contains("coverage_table")) << info.dump().substr(0, 400);
  PyCovTable table = PyCovTable::fromJson(info["coverage_table"]);
  auto rule = std::find_if(table.funcs.begin(), table.funcs.end(), [](const auto &f) { return f.name == "scan_batch_rule"; });
  ASSERT_NE(rule, table.funcs.end());
  // The line, found in the installed scan.py (its number moves between torch versions); the
  // table names files relative to torch's parent directory.
  auto where = vf::test::sh("python3 -c 'import os, torch; print(os.path.dirname(os.path.dirname(torch.__file__)))'");
  ASSERT_EQ(where.code, 0) << where.out;
  std::string root = where.out.substr(0, where.out.find('\n'));
  std::ifstream src(rule->file.rfind("/", 0) == 0 ? rule->file : root + "/" + rule->file);
  ASSERT_TRUE(src) << root << " " << rule->file;
  int64_t target = 0, n = 0;
  for (std::string line; std::getline(src, line);)
    if (++n >= rule->first && line.find("op_kwargs[\"mutated_arg_indices\"] = mutated_arg_indices") != std::string::npos) {
      target = n;
      break;
    }
  if (target == 0) GTEST_SKIP() << "this torch's scan_batch_rule does not forward mutated_arg_indices";
  CaseResult r = Runner(b).run(parseCase(vf::test::kScanBuffer));
  EXPECT_EQ(r.verdict, Verdict::Pass) << r.summary;
  PyCoverage cov;
  cov.add(r.pyCoverage);
  EXPECT_TRUE(cov.has(lineKey(rule->file, target))) << rule->file << ":" << target;
}
