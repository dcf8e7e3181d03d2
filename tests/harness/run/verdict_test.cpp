// errorGist: one informative line of an error message; the verdict lists.
#include <gtest/gtest.h>

#include "harness/run/verdict.h"

using namespace vf;

TEST(ErrorGist, KeepsTheFirstLineOfAPlainMessage) {
  EXPECT_EQ(errorGist("shape mismatch: [2] vs [3]\n  at foo.py:3\n  more"), "shape mismatch: [2] vs [3]");
  EXPECT_EQ(errorGist("one line"), "one line");
}

TEST(ErrorGist, EmptyAndBlankMessagesGiveNothing) {
  EXPECT_EQ(errorGist(""), "");
  EXPECT_EQ(errorGist("\n   \n\t\n"), "");
}

TEST(ErrorGist, SkipsLeadingBlankLinesAndIndentation) {
  EXPECT_EQ(errorGist("\n\n    indented cause\nrest"), "indented cause");
}

TEST(ErrorGist, AnAnnouncingLineGetsTheNextOne) {
  EXPECT_EQ(errorGist("Got graph break/error:\n  Unsupported: data-dependent branching\n  hint"),
            "Got graph break/error: Unsupported: data-dependent branching");
  // A colon at the end of the only line stays as it is.
  EXPECT_EQ(errorGist("nothing follows:"), "nothing follows:");
}

TEST(ErrorGist, KeepsTheRaisedExceptionLine) {
  EXPECT_EQ(errorGist("Observed exception\n  from user code:\nraised exception RuntimeError('boom')\nmore"),
            "Observed exception raised exception RuntimeError('boom')");
}

TEST(ErrorGist, KeepsDynamosCause) {
  EXPECT_EQ(errorGist("torch._dynamo failed\nwhile calling call_function cond(a, b): got AssertionError('bad')\nx"),
            "torch._dynamo failed got AssertionError('bad')");
}

TEST(Verdicts, FindingsAndFailures) {
  for (Verdict v : {Verdict::Mismatch, Verdict::BatchedError, Verdict::Crash, Verdict::Hang, Verdict::Oom}) {
    EXPECT_TRUE(isFinding(v)) << verdictName(v);
    EXPECT_TRUE(isFailure(v)) << verdictName(v);
  }
  EXPECT_FALSE(isFinding(Verdict::HarnessBug));
  EXPECT_TRUE(isFailure(Verdict::HarnessBug));
  for (Verdict v : {Verdict::Pass, Verdict::Invalid, Verdict::Ambiguous, Verdict::Unsupported}) {
    EXPECT_FALSE(isFinding(v)) << verdictName(v);
    EXPECT_FALSE(isFailure(v)) << verdictName(v);
  }
}

TEST(Verdicts, EveryVerdictHasItsOwnName) {
  std::set<std::string_view> names;
  for (int v = 0; v < kVerdictCount; ++v) {
    auto n = verdictName(static_cast<Verdict>(v));
    EXPECT_NE(n, "?");
    EXPECT_TRUE(names.insert(n).second) << n;
  }
}
