// End-to-end (issue 16): two faults planted in cond's batching rule, both silent wrong results
// in cond-only programs, get two signatures (both culprit hop:cond, issue 27: the essential
// features of cond's input tell them apart); a nightly that meets the second with the first
// filed fails and files it as new; a bigger case of the first fault, shrunk, is filed under the
// first's signature (a shrink keeps the signature, and the ablation lands on the same features);
// one front-end fault met once raising and once silently is one report.
#include <gtest/gtest.h>

#include "tests/e2e/e2e.h"

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

// cond-batched-pred-swapped: needs a batched predicate.
const char *kSwapped = R"(vmap size=2 in_dims=(0) out_dims=(0)
data_seed 3
func(%0: f32[2]) {
  %1: f32[] = sum_all(%0)
  %2: bool[] = gt_scalar(%1) {value=0.0}
  %3: f32[2] = cond(%2, %0) [
    (%4: f32[2]) {
      %5: f32[2] = neg(%4)
      yield %5
    }
    (%6: f32[2]) {
      %7: f32[2] = sin(%6)
      yield %7
    }
  ]
  return %3
}
)";

// The same fault in a bigger case: another size, data, a second input and output.
const char *kSwappedBig = R"(vmap size=3 in_dims=(0,None) out_dims=(0,0)
data_seed 9
func(%0: f32[2], %1: f32[2]) {
  %2: f32[] = sum_all(%0)
  %3: bool[] = gt_scalar(%2) {value=0.0}
  %4: f32[2] = cond(%3, %0) [
    (%5: f32[2]) {
      %6: f32[2] = neg(%5)
      yield %6
    }
    (%7: f32[2]) {
      %8: f32[2] = sin(%7)
      yield %8
    }
  ]
  %9: f32[2] = add(%4, %1)
  %10: f32[2] = mul(%0, %1)
  return %9, %10
}
)";

// cond-operand-bdim-zero: needs an operand batched along a dim other than 0.
const char *kBdimZero = R"(vmap size=3 in_dims=(1) out_dims=(0)
data_seed 3
func(%0: f32[3]) {
  %1: f32[] = sum_all(%0)
  %2: bool[] = gt_scalar(%1) {value=0.0}
  %3: f32[3] = cond(%2, %0) [
    (%4: f32[3]) {
      %5: f32[3] = neg(%4)
      yield %5
    }
    (%6: f32[3]) {
      %7: f32[3] = sin(%6)
      yield %7
    }
  ]
  return %3
}
)";

// vmap-negative-in-dim met two ways. in_dims=(-1) on a [2, 3] input wraps to dim 2: the front
// end's batch-size check raises (IndexError, in its own _validate_and_get_batch_size).
const char *kInDimRaises = R"(vmap size=3 in_dims=(-1) out_dims=(0)
data_seed 3
func(%0: f32[2]) {
  %1: f32[2] = neg(%0)
  return %1
}
)";

// in_dims=(-2) on a [3, 2] input wraps to dim 1: vmap maps the wrong dim, silently (a result of
// another shape).
const char *kInDimSilent = R"(vmap size=3 in_dims=(-2) out_dims=(0)
data_seed 3
func(%0: f32[2]) {
  %1: f32[2] = sin(%0)
  return %1
}
)";

void write(const std::string &path, const std::string &text) { std::ofstream(path) << text; }

/// The report folders of `reports` (not its lock file, nor a hidden folder being filed).
std::vector<std::string> folders(const std::string &reports) {
  std::vector<std::string> out;
  for (const auto &e : fs::directory_iterator(reports))
    if (e.is_directory() && e.path().filename().string()[0] != '.') out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

} // namespace

TEST(SignatureE2E, TwoCondFaultsAreTwoSignaturesAndTheNightlyFailsOnTheSecond) {
  std::string d = tempDir("two"), reports = d + "/reports";
  fs::create_directories(d + "/first");
  fs::create_directories(d + "/second");
  write(d + "/first/swapped.vf", kSwapped);
  write(d + "/second/bdim.vf", kBdimZero);
  Shell filed = sh(kBin + " replay --reports " + reports + " --fault cond-batched-pred-swapped " + d + "/first/swapped.vf");
  ASSERT_EQ(filed.code, 1) << filed.out;
  ASSERT_NE(filed.out.find("filed: "), std::string::npos) << filed.out;
  ASSERT_EQ(folders(reports).size(), 1u);
  auto first = readJson(folders(reports)[0] + "/meta.json");
  // Signed by its culprit (issue 27): cond's rule, and what of its input the failure needs.
  EXPECT_NE(first["signature"].get<std::string>().find("|culprit:hop:cond|"), std::string::npos) << first.dump(2);
  EXPECT_NE(first["signature"].get<std::string>().find("cond.predicate:batched@inner"), std::string::npos) << first.dump(2);
  EXPECT_NE(first.value("essential", "").find("the predicate of cond is batched"), std::string::npos) << first.dump(2);

  // The first fault again: known, the nightly passes.
  const std::string nightly = kBin + " nightly --budget 600 --cases 0 --no-recheck --reports " + reports;
  Shell again = sh(nightly + " --fault cond-batched-pred-swapped --regressions " + d + "/first --out " + d + "/n1");
  EXPECT_EQ(again.code, 0) << again.out;
  EXPECT_EQ(folders(reports).size(), 1u);

  // The second fault: a different silent wrong result in a cond-only program. New: exit 1.
  Shell second = sh(nightly + " --fault cond-operand-bdim-zero --regressions " + d + "/second --out " + d + "/n2");
  EXPECT_EQ(second.code, 1) << second.out;
  EXPECT_NE(second.out.find("NEW mismatch"), std::string::npos) << second.out;
  ASSERT_EQ(folders(reports).size(), 2u);
  std::set<std::string> sigs;
  for (const auto &f : folders(reports)) sigs.insert(readJson(f + "/meta.json")["signature"].get<std::string>());
  EXPECT_EQ(sigs.size(), 2u);
  for (const auto &s : sigs) EXPECT_NE(s.find("|culprit:hop:cond|"), std::string::npos) << s; // both in cond's rule
}

TEST(SignatureE2E, AShrunkBiggerCaseOfOneFaultIsFiledUnderItsSignature) {
  std::string d = tempDir("shrink"), reports = d + "/reports";
  write(d + "/small.vf", kSwapped);
  write(d + "/big.vf", kSwappedBig);
  const std::string fault = " --fault cond-batched-pred-swapped ";
  ASSERT_EQ(sh(kBin + " replay --reports " + reports + fault + d + "/small.vf").code, 1);
  Shell shrunk = sh(kBin + " shrink" + fault + d + "/big.vf --out " + d + "/shrunk.vf");
  ASSERT_EQ(shrunk.code, 1) << shrunk.out;
  Shell known = sh(kBin + " replay --reports " + reports + fault + d + "/shrunk.vf");
  EXPECT_EQ(known.code, 1) << known.out;
  EXPECT_NE(known.out.find("known: "), std::string::npos) << known.out;
  EXPECT_EQ(folders(reports).size(), 1u);
}

TEST(SignatureE2E, OneFaultMetAsAnErrorAndAsASilentWrongResultIsOneReport) {
  // Issue 27: where the wrong value of the front end is met (its own check raising, or a
  // result of the wrong shape) is incidental; the rule and what of its input it needs are not.
  std::string d = tempDir("one"), reports = d + "/reports";
  write(d + "/raises.vf", kInDimRaises);
  write(d + "/silent.vf", kInDimSilent);
  const std::string replay = kBin + " replay --reports " + reports + " --fault vmap-negative-in-dim ";
  Shell raises = sh(replay + d + "/raises.vf");
  ASSERT_EQ(raises.code, 1) << raises.out;
  EXPECT_NE(raises.out.find("batched-error"), std::string::npos) << raises.out;
  EXPECT_NE(raises.out.find("filed: "), std::string::npos) << raises.out;
  ASSERT_EQ(folders(reports).size(), 1u);
  auto meta = readJson(folders(reports)[0] + "/meta.json");
  EXPECT_EQ(meta["signature"].get<std::string>(), "rules|cpu|fails|culprit:vmap:front-end|in_dims<0,") << meta.dump(2);
  EXPECT_EQ(meta["verdict"].get<std::string>(), "batched-error");
  Shell silent = sh(replay + d + "/silent.vf");
  ASSERT_EQ(silent.code, 1) << silent.out;
  EXPECT_NE(silent.out.find("mismatch"), std::string::npos) << silent.out;
  EXPECT_NE(silent.out.find("known: "), std::string::npos) << silent.out;
  EXPECT_EQ(folders(reports).size(), 1u);
  // Without the fault both pass: the report is the fault's.
  EXPECT_EQ(sh(kBin + " replay " + d + "/raises.vf").code, 0);
  EXPECT_EQ(sh(kBin + " replay " + d + "/silent.vf").code, 0);
}
