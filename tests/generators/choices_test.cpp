// Byte-string driving of the generators (generators/choices.h).
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "generators/choices.h"
#include "ir/text.h"
#include "ir/validate.h"

using namespace vf;

RC_GTEST_PROP(Choices, EveryByteStringDecodesToAValidCase, (std::vector<uint8_t> bytes)) {
  Case c = caseFromBytes(bytes.data(), bytes.size(), GenPolicy{});
  RC_ASSERT(validateCase(c) == "");
}

TEST(Choices, DecodingIsDeterministic) {
  std::vector<uint8_t> b = {60, 1, 2, 3, 200, 17, 99, 5, 42, 250, 7, 7, 7, 130};
  EXPECT_EQ(printCase(caseFromBytes(b.data(), b.size(), {})), printCase(caseFromBytes(b.data(), b.size(), {})));
}

TEST(Choices, TheEmptyInputIsASmallCase) {
  // Every decision takes choice 0: one input, the index input and the predicate input (chance()
  // says yes to each), one statement (chance() says yes to a construct, whose regions are empty
  // at size 0).
  Case c = caseFromBytes(nullptr, 0, {});
  EXPECT_EQ(validateCase(c), "");
  EXPECT_EQ(c.program.body.params.size(), 3u);
  EXPECT_LE(c.program.size(), 4u);
}

TEST(Choices, ReadsAsFewBytesAsTheRangeNeeds) {
  std::vector<uint8_t> b = {7, 1, 2, 3};
  ChoiceStream s(b.data(), b.size());
  EXPECT_EQ(s.below(10), 7u);
  EXPECT_EQ(s.below(1000), (1u * 256 + 2) % 1000);
  EXPECT_EQ(s.consumed(), 3u);
  EXPECT_EQ(s.below(256), 3u);
  EXPECT_EQ(s.below(5), 0u); // exhausted: the smallest choice
}

TEST(Choices, ChangingALateByteKeepsTheEarlyDecisions) {
  std::vector<uint8_t> a(400), b;
  for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<uint8_t>(i * 37 + 11);
  b = a;
  b.back() ^= 0xff;
  // The first input's type is decided by the first bytes: both decode with the same inputs.
  Case ca = caseFromBytes(a.data(), a.size(), {}), cb = caseFromBytes(b.data(), b.size(), {});
  EXPECT_EQ(ca.program.body.params, cb.program.body.params);
}
