// A filed repro.py judges a case with the comparator's own tolerances: the dict it is emitted
// with is read back and compared with toleranceFor for every dtype.
#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <regex>

#include "generators/data.h"
#include "harness/backends/torch/python_emit.h"
#include "ir/scalar_type.h"
#include "ir/text.h"
#include "oracles/compare.h"

using namespace vf;

namespace {

/// The `TOLERANCES = [(rtol, atol), ...]` list of a repro.
std::vector<Tolerance> emittedTolerances(const std::string &repro) {
  std::smatch m;
  EXPECT_TRUE(std::regex_search(repro, m, std::regex(R"(\nTOLERANCES = \[([^\]]*)\]\n)"))) << "no tolerance list in:\n" << repro;
  std::vector<Tolerance> out;
  std::string list = m.size() > 1 ? m[1].str() : "";
  std::regex entry(R"(\(([^,]+), ([^)]+)\))");
  for (auto it = std::sregex_iterator(list.begin(), list.end(), entry); it != std::sregex_iterator(); ++it)
    out.push_back({std::strtod((*it)[1].str().c_str(), nullptr), std::strtod((*it)[2].str().c_str(), nullptr)});
  return out;
}

} // namespace

TEST(ReproTolerance, IsTheComparatorsForEveryOutput) {
  // One output of every dtype, and a float64 output computed in float32 (a sum cast up), which
  // the comparator judges with float32's tolerance.
  Case c = parseCase(R"(vmap size=2 in_dims=(0,0,0,0,0) out_dims=(0,0,0,0,0,0,0,0)
func(%0: f32[3], %1: f64[3], %2: f16[3], %3: bf16[3], %6: i64[3]) {
  %4: f32[] = sum_all(%0)
  %5: f64[] = to_f64(%4)
  %7: bool[3] = gt(%1, %1)
  return %0, %1, %2, %3, %5, %6, %7, %1
}
)");
  std::string repro = emitRepro(c, makeInputs(c), "# test");
  auto emitted = emittedTolerances(repro);
  auto want = outputTolerances(c.program);
  ASSERT_EQ(emitted.size(), want.size()) << repro;
  ASSERT_EQ(want.size(), 8u);
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(emitted[i].rtol, want[i].rtol) << "output " << i;
    EXPECT_EQ(emitted[i].atol, want[i].atol) << "output " << i;
  }
  // Each dtype's own tolerance where the output was computed in it.
  const DType own[] = {DType::f32, DType::f64, DType::f16, DType::bf16};
  for (int i = 0; i < 4; ++i) EXPECT_EQ(want[i].atol, toleranceFor(toScalarType(own[i])).atol) << i;
  EXPECT_EQ(want[1].atol, 1e-12);
  // The float64 sum of a float32 one: float32's tolerance, not float64's.
  EXPECT_EQ(want[4].atol, toleranceFor(at::kFloat).atol);
  EXPECT_EQ(want[4].rtol, toleranceFor(at::kFloat).rtol);
  // Integers and bools: exact.
  EXPECT_EQ(want[5].atol, 0);
  EXPECT_EQ(want[6].rtol, 0);
  EXPECT_NE(repro.find("assert_close(a, e, rtol=rtol, atol=atol, equal_nan=True)"), std::string::npos);
}
