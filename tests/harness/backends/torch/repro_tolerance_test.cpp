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

/// The `{torch.X: (rtol, atol), ...}` dict of the repro's check, by dtype name.
std::map<std::string, Tolerance> emittedTolerances(const std::string &repro) {
  std::smatch m;
  EXPECT_TRUE(std::regex_search(repro, m, std::regex(R"(rtol, atol = \{([^}]*)\}\.get\(e\.dtype, \(0, 0\)\))")))
      << "no tolerance dict in:\n" << repro;
  std::map<std::string, Tolerance> out;
  std::string dict = m.size() > 1 ? m[1].str() : "";
  std::regex entry(R"((torch\.\w+): \(([^,]+), ([^)]+)\))");
  for (auto it = std::sregex_iterator(dict.begin(), dict.end(), entry); it != std::sregex_iterator(); ++it)
    out[(*it)[1].str()] = {std::strtod((*it)[2].str().c_str(), nullptr), std::strtod((*it)[3].str().c_str(), nullptr)};
  return out;
}

} // namespace

TEST(ReproTolerance, IsTheComparatorsTableForEveryDtype) {
  Case c = parseCase("vmap size=2 in_dims=(0) out_dims=(0)\nfunc(%0: f32[3]) {\n  %1: f32[3] = neg(%0)\n  return %1\n}\n");
  std::string repro = emitRepro(c, makeInputs(c), "# test");
  auto emitted = emittedTolerances(repro);
  ASSERT_EQ(emitted.size(), toleranceTable().size()) << repro;
  for (DType d : {DType::f32, DType::f64, DType::f16, DType::bf16, DType::i64, DType::i32, DType::b8}) {
    Tolerance want = toleranceFor(toScalarType(d));
    auto it = emitted.find(std::string(torchDTypeName(d)));
    if (want.rtol == 0 && want.atol == 0) {
      // Compared exactly: the dict's default.
      EXPECT_EQ(it, emitted.end()) << torchDTypeName(d);
      continue;
    }
    ASSERT_NE(it, emitted.end()) << torchDTypeName(d) << " missing from the repro's tolerances";
    EXPECT_EQ(it->second.rtol, want.rtol) << torchDTypeName(d);
    EXPECT_EQ(it->second.atol, want.atol) << torchDTypeName(d);
  }
  // float32 as the comparator has it (the repro once used 1e-4 for both).
  EXPECT_EQ(emitted["torch.float32"].atol, 1e-5);
  EXPECT_NE(repro.find("assert_close(a, e, rtol=rtol, atol=atol, equal_nan=True)"), std::string::npos);
}
