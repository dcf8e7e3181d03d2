// Inputs the fuzz_text libFuzzer target found, kept as tests.
#include <gtest/gtest.h>

#include "ir/text.h"

using namespace vf;

namespace {
const char *kBody = "func(%0: f32[]) {\n  return %0\n}\n";
}

TEST(TextFuzzRegressions, ANegativeDataSeedIsAParseErrorNotAnotherSeed) {
  // It used to wrap to 2^64 - n, which printed as a number the parser then rejected.
  EXPECT_THROW(parseCase(std::string("data_seed -148305290591840\n") + kBody), ParseError);
}

TEST(TextFuzzRegressions, EveryUnsigned64BitDataSeedRoundTrips) {
  Case c = parseCase(std::string("data_seed 18446744073709551615\n") + kBody);
  EXPECT_EQ(c.spec.data_seed, UINT64_MAX);
  EXPECT_EQ(parseCase(printCase(c)), c);
}
