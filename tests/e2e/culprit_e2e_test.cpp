// Culprit localisation end to end (issue 27, harness/report/culprit.h): a fault planted in one
// component of torch's batching (vmapfuzz_faults.py) shows in a case; `vmapfuzz replay --reports`
// files the finding, and its meta.json, result.txt and report.md name that component, found by
// swapping each component the case goes through for a per-example loop in the real worker.
// The cases are the shrunk detections of `vmapfuzz selftest --seed 1 --mode direct`.
#include <gtest/gtest.h>

#include "tests/e2e/e2e.h"

#include <algorithm>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

namespace fs = std::filesystem;

namespace {

using vf::test::kBin;
using vf::test::readJson;
using vf::test::sh;
using vf::test::Shell;
using vf::test::tempDir;

struct Planted {
  const char *fault;
  const char *culprit; ///< the component the fault is planted in
  const char *text;    ///< a case that shows the fault
};

const Planted kPlanted[] = {
    // cond's rule swaps the branches under a batched predicate: a silent wrong result.
    {"cond-batched-pred-swapped", "hop:cond", R"(vmap size=2 in_dims=(0) out_dims=(0)
data_seed 6792135992345496
func(%0: bf16[]) {
  %1: bool[] = gt_scalar(%0) {value=0.0}
  %2: bf16[] = cond(%1) [
    () {
      %3: bf16[] = sigmoid(%0)
      yield %3
    }
    () {
      yield %0
    }
  ]
  return %2
}
)"},
    // where's C++ batching rule, reached only through cond's rule (it selects with torch.where
    // under a batched predicate): the op is the narrower culprit than the rule around it.
    {"aten-where-no-logical-pad", "op:where", R"(vmap size=2 in_dims=(0) out_dims=(0)
data_seed 5617452302657141
func(%0: f16[1]) {
  %2: f16[] = sum_all(%0)
  %3: bool[] = gt_scalar(%2) {value=0.0}
  %16: f16[1] = cond(%3, %0, %2) [
    (%17: f16[1], %18: f16[]) {
      yield %17
    }
    (%20: f16[1], %21: f16[]) {
      yield %0
    }
  ]
  return %16
}
)"},
    // scan's rule moves batch dims to the front instead of the end: two levels, a wrong shape.
    {"scan-bdim-moved-to-front", "hop:scan", R"(vmap size=1 in_dims=(0,None) out_dims=(0)
vmap size=2 in_dims=(0,None) out_dims=(0)
data_seed 2544838724920394
func(%0: i64[], %1: f32[1]) {
  %13: i64[], %14: f32[1], %15: f32[1] = scan(%0, %1) {ncarry=1, reverse=false} [
    (%17: i64[], %18: f32[]) {
      yield %17, %18, %18
    }
  ]
  return %13
}
)"},
    // vmap's front end wraps a negative out_dim against the wrong rank: no construct at all.
    {"vmap-negative-out-dim", "vmap:front-end", R"(vmap size=2 in_dims=(0) out_dims=(-2)
data_seed 131608551031284
func(%0: bf16[1]) {
  return %0
}
)"},
    // sum's C++ batching rule, negative dims: an error, raised inside the culprit.
    {"aten-sum-negative-dim", "op:sum", R"(vmap size=1 in_dims=(0) out_dims=(0)
data_seed 6792135992345496
func(%0: bf16[]) {
  %1: bool[] = gt_scalar(%0) {value=0.0}
  %4: bf16[] = sum(%0) {dim=0, keepdim=false}
  return %0
}
)"},
};

std::string slurp(const fs::path &p) {
  std::stringstream s;
  s << std::ifstream(p).rdbuf();
  return s.str();
}

} // namespace

TEST(CulpritE2E, AFindingNamesTheComponentItsFaultIsPlantedIn) {
  for (const Planted &p : kPlanted) {
    SCOPED_TRACE(p.fault);
    fs::path d = tempDir("culprit"), reports = d / "reports", file = d / "case.vf";
    std::ofstream(file) << p.text;
    Shell r = sh(kBin + " replay --mode direct --fault " + p.fault + " --reports " + reports.string() + " " + file.string());
    ASSERT_EQ(r.code, 1) << r.out; // it fails, with the fault planted
    int folders = 0;
    for (auto &e : fs::directory_iterator(reports)) {
      if (!e.is_directory()) continue;
      ++folders;
      nlohmann::json meta = readJson(e.path() / "meta.json");
      ASSERT_TRUE(meta.contains("culprits")) << meta.dump(2);
      EXPECT_EQ(meta["culprits"]["culprit"], p.culprit) << meta["culprits"].dump(2);
      // Every component the case went through was swapped, one run each (the program returning
      // its input goes through vmap's front end only).
      const auto &tried = meta["culprits"]["tried"];
      EXPECT_NE(std::find(tried.begin(), tried.end(), p.culprit), tried.end()) << meta["culprits"].dump(2);
      EXPECT_GE(meta["culprits"]["runs"].get<int>(), static_cast<int>(tried.size())) << meta["culprits"].dump(2);
      if (std::string(p.fault) != "vmap-negative-out-dim") EXPECT_GE(tried.size(), 2u) << meta["culprits"].dump(2);
      EXPECT_NE(slurp(e.path() / "result.txt").find(std::string("culprit: ") + p.culprit + ": replacing"), std::string::npos)
          << slurp(e.path() / "result.txt");
      EXPECT_NE(slurp(e.path() / "report.md").find("Culprit, by experiment"), std::string::npos);
    }
    EXPECT_EQ(folders, 1) << r.out;
    // Without the fault the case passes: the culprit is the planted component, not torch's bug.
    Shell clean = sh(kBin + " replay --mode direct " + file.string());
    EXPECT_EQ(clean.code, 0) << clean.out;
    fs::remove_all(d);
  }
}
