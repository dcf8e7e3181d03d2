#include <gtest/gtest.h>

#include "ir/text.h"
#include "ir/validate.h"

using namespace vf;

namespace {
std::string check(const std::string &body, const std::string &params = "%0: f32[3], %1: f32[2,3]") {
  return validateProgram(parseProgram("func(" + params + ") {\n" + body + "}\n"));
}
} // namespace

TEST(Validate, AcceptsAWellTypedProgram) {
  EXPECT_EQ(check("  %2: f32[2,3] = add(%0, %1)\n  %3: f32[2] = sum(%2) {dim=-1, keepdim=false}\n  return %3\n"), "");
}

TEST(Validate, RejectsAnUndefinedValue) {
  EXPECT_NE(check("  %2: f32[3] = neg(%9)\n  return %2\n").find("%9 is not defined"), std::string::npos);
}

TEST(Validate, RejectsAValueDefinedTwice) {
  EXPECT_NE(check("  %0: f32[3] = neg(%0)\n  return %0\n").find("defined twice"), std::string::npos);
}

TEST(Validate, RejectsShapesThatDoNotBroadcast) {
  std::string e = check("  %2: f32[2,3] = add(%0, %1)\n  return %2\n", "%0: f32[4], %1: f32[2,3]");
  EXPECT_NE(e.find("do not broadcast"), std::string::npos) << e;
  EXPECT_NE(e.find("%2 = add"), std::string::npos) << "the message names the statement: " << e;
}

TEST(Validate, RejectsAWrongDeclaredType) {
  EXPECT_NE(check("  %2: f32[2] = neg(%0)\n  return %2\n").find("declared f32[2]"), std::string::npos);
}

TEST(Validate, RejectsADimOutOfRange) {
  EXPECT_NE(check("  %2: f32[] = sum(%0) {dim=3, keepdim=false}\n  return %2\n").find("out of range"), std::string::npos);
}

TEST(Validate, RejectsAMissingAttribute) {
  EXPECT_NE(check("  %2: f32[] = sum(%0) {dim=0}\n  return %2\n").find("needs attribute 'keepdim'"), std::string::npos);
}

TEST(Validate, RejectsANonBoolPredicate) {
  std::string e = check("  %2: f32[3] = cond(%0) [\n (){ yield %0 }\n (){ yield %0 }\n ]\n  return %2\n");
  EXPECT_NE(e.find("predicate must be a one-element bool"), std::string::npos) << e;
}

TEST(Validate, RejectsBranchOutputsOfDifferentTypes) {
  std::string e = check(
      "  %2: f32[] = sum_all(%0)\n  %3: bool[] = gt_scalar(%2) {value=0.0}\n"
      "  %4: f32[3] = cond(%3) [\n    () { yield %0 }\n    () { yield %1 }\n  ]\n  return %4\n");
  EXPECT_NE(e.find("else-branch output 0 is f32[2,3] but must be f32[3]"), std::string::npos) << e;
}

TEST(Validate, RejectsRegionParametersThatDoNotMatchOperands) {
  std::string e = check(
      "  %2: f32[] = sum_all(%0)\n  %3: bool[] = gt_scalar(%2) {value=0.0}\n"
      "  %4: f32[3] = cond(%3, %0) [\n    (%5: f32[2]) { yield %0 }\n    (%6: f32[3]) { yield %6 }\n  ]\n  return %4\n");
  EXPECT_NE(e.find("parameter %5 is f32[2] but its operand is f32[3]"), std::string::npos) << e;
}

TEST(Validate, RejectsUsingARegionValueOutsideIt) {
  std::string e = check(
      "  %2: f32[] = sum_all(%0)\n  %3: bool[] = gt_scalar(%2) {value=0.0}\n"
      "  %4: f32[3] = cond(%3) [\n    () { %5: f32[3] = neg(%0)\n yield %5 }\n    () { yield %0 }\n  ]\n  return %5\n");
  EXPECT_NE(e.find("%5 is not defined"), std::string::npos) << e;
}

TEST(Validate, RejectsABatchSpecThatDoesNotFit) {
  Case c = parseCase("vmap size=2 in_dims=(0) out_dims=(0)\nfunc(%0: f32[3], %1: f32[3]) {\n  return %0\n}\n");
  EXPECT_NE(validateCase(c).find("in_dims has 1 entries for 2 inputs"), std::string::npos);
  c = parseCase("vmap size=2 in_dims=(None) out_dims=(0)\nfunc(%0: f32[3]) {\n  return %0\n}\n");
  EXPECT_NE(validateCase(c).find("no input is batched"), std::string::npos);
  c = parseCase("vmap size=2 in_dims=(2) out_dims=(0)\nfunc(%0: f32[3]) {\n  return %0\n}\n");
  EXPECT_NE(validateCase(c).find("in_dims 2 out of range"), std::string::npos);
  c = parseCase("vmap size=2 in_dims=(-2) out_dims=(-3)\nfunc(%0: f32[3]) {\n  return %0\n}\n");
  EXPECT_NE(validateCase(c).find("out_dims -3 out of range"), std::string::npos);
}

TEST(Validate, RejectsALoopCarryThatChangesType) {
  std::string e = check(
      "  %2: f32[3], %3: f32[2,3] = while_loop(%0, %1) [\n"
      "    (%4: f32[3], %5: f32[2,3]) { %6: f32[] = sum_all(%4)\n %7: bool[] = gt_scalar(%6) {value=0.0}\n yield %7 }\n"
      "    (%8: f32[3], %9: f32[2,3]) { %10: f32[] = sum_all(%8)\n yield %10, %9 }\n  ]\n  return %2\n");
  EXPECT_NE(e.find("body_fn yields (f32[], f32[2,3]) but the carries are (f32[3], f32[2,3])"), std::string::npos) << e;
}

TEST(Validate, RejectsALoopConditionThatIsNotABool) {
  std::string e = check(
      "  %2: f32[3] = while_loop(%0) [\n    (%4: f32[3]) { yield %4 }\n    (%8: f32[3]) { yield %8 }\n  ]\n  return %2\n");
  EXPECT_NE(e.find("cond_fn must yield one one-element bool"), std::string::npos) << e;
}

TEST(Validate, RejectsAScanCarryMismatch) {
  std::string e = check(
      "  %2: f32[3], %3: f32[2,3] = scan(%0, %1) {ncarry=1, reverse=false} [\n"
      "    (%4: f32[3], %5: f32[3]) { %6: f32[] = sum_all(%4)\n yield %6, %5 }\n  ]\n  return %2\n");
  EXPECT_NE(e.find("scan combine_fn must yield the carries (f32[3]) first"), std::string::npos) << e;
}

TEST(Validate, RejectsScanXsOfDifferentLengths) {
  std::string e = check(
      "  %2: f32[3], %3: f32[3] = scan(%0, %0, %1) {ncarry=1, reverse=false} [\n"
      "    (%4: f32[3], %5: f32[], %6: f32[3]) { yield %4, %5 }\n  ]\n  return %2\n");
  EXPECT_NE(e.find("scan xs have different lengths: 3 and 2"), std::string::npos) << e;
}

TEST(Validate, RejectsASwitchOnAFloatIndex) {
  std::string e = check("  %2: f32[] = sum_all(%0)\n  %3: f32[3] = switch(%2) [\n    () { yield %0 }\n  ]\n  return %3\n");
  EXPECT_NE(e.find("switch index must be a one-element integer tensor"), std::string::npos) << e;
}

TEST(Validate, RejectsEveryMalformedConstruct) {
  // Each construct rule, with the words its message must contain.
  const std::pair<const char *, const char *> cases[] = {
      {"  %2: f32[3] = cond(%0) [\n    () { yield %0 }\n  ]\n  return %2\n", "predicate must be a one-element bool"},
      {"  %2: f32[3] = cond(%0) {pred=1} [\n    (%3: f32[3]) { yield %3 }\n    (%4: f32[3]) { yield %4 }\n  ]\n  return %2\n",
       "cond takes only {pred=true|false}"},
      {"  %2: f32[3] = cond(%0) {pred=true} [\n    (%3: f32[3]) { yield %3 }\n  ]\n  return %2\n", "cond needs exactly 2 regions"},
      {"  %2: f32[] = sum_all(%0)\n  %3: i64[] = branch_index(%2)\n  %4: f32[3] = switch(%3) [\n  ]\n  return %4\n",
       "switch needs at least one branch"},
      {"  %2: f32[] = sum_all(%0)\n  %3: i64[] = branch_index(%2)\n  %4: f32[3] = switch(%3) {x=1} [\n    () { yield %0 }\n  ]\n  return %4\n",
       "switch takes no attributes"},
      {"  %2: f32[3] = while_loop() [\n    () { yield %0 }\n    () { yield %0 }\n  ]\n  return %2\n", "at least one carried value"},
      {"  %2: f32[3] = while_loop(%0) [\n    (%3: f32[3]) { yield %3 }\n  ]\n  return %2\n", "exactly 2 regions (cond_fn, body_fn)"},
      {"  %2: f32[3] = scan(%0, %1) [\n    (%3: f32[3], %4: f32[3]) { yield %3 }\n  ]\n  return %2\n", "scan needs attributes"},
      {"  %2: f32[3] = scan(%0) {ncarry=1, reverse=false} [\n    (%3: f32[3]) { yield %3 }\n  ]\n  return %2\n",
       "1 carries and at least one xs"},
      {"  %2: f32[] = sum_all(%0)\n  %3: f32[3] = scan(%0, %2) {ncarry=1, reverse=false} [\n    (%4: f32[3]) { yield %4 }\n  ]\n  return %3\n",
       "xs must have a dim to scan over"},
      {"  %2: f32[3], %3: f32[3] = scan(%0, %0) {ncarry=1, reverse=false} [\n    (%4: f32[3], %5: f32[]) { yield %4 }\n  ]\n  return %2\n",
       "gives 1 value(s) but 2 are declared"},
      {"  %2: f32[2] = scan(%0, %0) {ncarry=1, reverse=false} [\n    (%4: f32[3], %5: f32[]) { yield %4 }\n  ]\n  return %2\n",
       "result 0 is declared f32[2] but scan gives f32[3]"},
  };
  for (const auto &[body, words] : cases) {
    std::string e = check(body);
    EXPECT_NE(e.find(words), std::string::npos) << "expected '" << words << "' for\n" << body << "got: " << e;
  }
}

namespace {
// A scan with one in-place buffer (%2's copy), updated by add_ of the next carry.
const char *kBufferScan = R"(func(%0: f32[4,2], %1: f32[2]) {
  %2: f32[2], %3: f32[4,2], %4: f32[2] = scan(%1, %0, %1) {ncarry=1, reverse=false, nbuf=1} [
    (%5: f32[2], %6: f32[2], %7: f32[2]) {
      %8: f32[2] = mul(%5, %6)
      %9: f32[2] = neg(%6)
      %10: f32[2] = add_(%7, %8)
      yield %8, %9, %10
    }
  ]
  return %2, %3, %4
}
)";

std::string checkBuffer(const std::string &from, const std::string &to) {
  std::string text = kBufferScan;
  size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return validateProgram(parseProgram(text.replace(at, from.size(), to)));
}
} // namespace

TEST(Validate, AcceptsAScanWithAnInPlaceBuffer) {
  EXPECT_EQ(validateProgram(parseProgram(kBufferScan)), "");
  EXPECT_EQ(checkBuffer("add_(%7, %8)", "mul_(%7, %8)"), "");
  EXPECT_EQ(checkBuffer("add_(%7, %8)", "copy_(%7, %9)"), "");
  // The update's result is the buffer after the update: a y may read it.
  EXPECT_EQ(checkBuffer("yield %8, %9, %10", "yield %8, %10, %10"), "");
}

TEST(Validate, RejectsInPlaceBuffersThatBreakTheirRules) {
  auto expect = [](const std::string &e, const std::string &what) { EXPECT_NE(e.find(what), std::string::npos) << e; };
  // Typing: the buffer section of the yields, of the results, and of the attribute.
  expect(checkBuffer("yield %8, %9, %10", "yield %8, %9"), "scan gives 2 value(s) but 3 are declared");
  expect(checkBuffer("yield %8, %9, %10", "yield %8, %10, %9"), "must yield its in-place update's result in the buffer's place");
  expect(checkBuffer("yield %8, %9, %10", "yield %8, %10, %0"), "must yield the buffers");
  expect(checkBuffer("%4: f32[2] = scan", "%4: f32[3] = scan"), "declared f32[3]");
  expect(checkBuffer("nbuf=1", "nbuf=0"), "nbuf=M (>= 1)");
  expect(checkBuffer("add_(%7, %8)", "add_(%7, %0)"), "does not broadcast to the buffer's shape");
  // The in-place rules (ir/validate.cpp): the update of the buffer parameter itself, once, as
  // its only use, yielded in the buffer's place.
  expect(checkBuffer("add_(%7, %8)", "add_(%5, %8)"), "may only update a buffer parameter");
  expect(checkBuffer("%10: f32[2] = add_(%7, %8)", "%10: f32[2] = add(%7, %8)"), "must update it with an in-place op");
  expect(checkBuffer("%9: f32[2] = neg(%6)", "%9: f32[2] = neg(%7)"), "its only use must be its in-place update");
  expect(checkBuffer("yield %8, %9, %10", "yield %10, %9, %8"), "in the buffer's place");
  expect(checkBuffer("      yield %8, %9, %10", "      %11: f32[2] = add_(%7, %9)\n      yield %8, %9, %11"), "updated twice");
  // Outside a scan's combine_fn an in-place op has nothing to update.
  expect(validateProgram(parseProgram("func(%0: f32[2]) {\n  %1: f32[2] = add_(%0, %0)\n  return %1\n}\n")),
         "may only update a buffer parameter");
}

TEST(Validate, ABufferedScanPrintsAndParsesBack) {
  Program p = parseProgram(kBufferScan);
  std::string text = printProgram(p);
  EXPECT_NE(text.find("{ncarry=1, reverse=false, nbuf=1}"), std::string::npos) << text;
  EXPECT_EQ(parseProgram(text), p);
  EXPECT_EQ(printProgram(parseProgram(text)), text);
}

// The vmap construct's typing (issue 28): one in_dim per operand, a dim or None, at least one
// mapped, equal mapped sizes, one out_dim per yield in [-(rank+1), rank].
TEST(Validate, TypesAVmapConstructAndRejectsEachMalformedOne) {
  auto vmap = [](const std::string &attrs, const std::string &params = "(%3: f32[], %4: f32[3])",
                 const std::string &result = "f32[2,3]", const std::string &args = "%1, %0") {
    return check("  %2: " + result + " = vmap(" + args + ") " + attrs + " [\n    " + params +
                 " {\n      %5: f32[3] = mul(%4, %3)\n      yield %5\n    }\n  ]\n  return %2\n");
  };
  // %1: f32[2,3] mapped at dim 0 (size 2): slices f32[3]; %0: f32[3] whole.
  EXPECT_EQ(vmap("{in_dims=[0,None], out_dims=[0]}", "(%3: f32[3], %4: f32[3])", "f32[2,3]"), "");
  EXPECT_EQ(vmap("{in_dims=[-2,None], out_dims=[-2]}", "(%3: f32[3], %4: f32[3])", "f32[2,3]"), "");
  EXPECT_EQ(vmap("{in_dims=[0,None], out_dims=[1]}", "(%3: f32[3], %4: f32[3])", "f32[3,2]"), "");
  auto fails = [&](const std::string &attrs, const std::string &what, const std::string &params = "(%3: f32[3], %4: f32[3])",
                   const std::string &args = "%1, %0") {
    const std::string e = vmap(attrs, params, "f32[2,3]", args);
    EXPECT_NE(e.find(what), std::string::npos) << attrs << ": " << e;
  };
  fails("{in_dims=[None,None], out_dims=[0]}", "at least one mapped operand", "(%3: f32[2,3], %4: f32[3])");
  fails("{in_dims=[0], out_dims=[0]}", "2 operands but 1 in_dims");
  fails("{in_dims=[2,None], out_dims=[0]}", "out of range for operand 0");
  fails("{in_dims=[0,0], out_dims=[0]}", "different sizes", "(%3: f32[3], %4: f32[])");
  fails("{in_dims=[0,None], out_dims=[2]}", "out_dim 2 is out of range");
  fails("{in_dims=[0,None], out_dims=[0,0]}", "yields 1 values but it has 2 out_dims");
  fails("{out_dims=[0]}", "needs attributes");
}

TEST(Validate, AVmapConstructsInDimsRoundTripNoneThroughTheText) {
  const std::string text = "func(%0: f32[2,3], %1: f32[]) {\n  %2: f32[3,2] = vmap(%0, %1) {in_dims=[-1,None], out_dims=[0]} [\n"
                           "    (%3: f32[2], %4: f32[]) {\n      %5: f32[2] = mul(%3, %4)\n      yield %5\n    }\n  ]\n  return %2\n}\n";
  const Program p = parseProgram(text);
  EXPECT_EQ(validateProgram(p), "");
  EXPECT_EQ(printProgram(p), text);
}

// The grad construct's typing (issue 28): increasing argnums of floating operands, one 0-d
// floating yield, results of the argnums operands' types; it prints and parses back.
TEST(Validate, TypesAGradConstructAndRejectsEachMalformedOne) {
  auto grad = [](const std::string &attrs, const std::string &results = "%2: f32[2,3]", const std::string &yield = "%6",
                 const std::string &args = "%1, %0") {
    return check("  " + results + " = grad(" + args + ") " + attrs +
                 " [\n    (%3: f32[2,3], %4: f32[3]) {\n      %5: f32[2,3] = mul(%3, %4)\n      %6: f32[] = sum_all(%5)\n"
                 "      yield " + yield + "\n    }\n  ]\n  return %2\n");
  };
  EXPECT_EQ(grad("{argnums=[0]}"), "");
  EXPECT_EQ(grad("{argnums=[0,1]}", "%2: f32[2,3], %7: f32[3]"), "");
  auto fails = [&](const std::string &what, const std::string &attrs, const std::string &results = "%2: f32[2,3]",
                   const std::string &yield = "%6", const std::string &args = "%1, %0") {
    const std::string e = grad(attrs, results, yield, args);
    EXPECT_NE(e.find(what), std::string::npos) << attrs << ": " << e;
  };
  fails("needs the attribute {argnums", "{argnums=[]}");
  fails("needs the attribute {argnums", "{in_dims=[0]}");
  fails("argnum 2 is out of range", "{argnums=[2]}");
  fails("must be increasing", "{argnums=[1,0]}", "%2: f32[3], %7: f32[2,3]");
  fails("exactly one 0-d floating value", "{argnums=[0]}", "%2: f32[2,3]", "%5");
  fails("exactly one 0-d floating value", "{argnums=[0]}", "%2: f32[2,3]", "%6, %6");
  EXPECT_NE(check("  %2: i64[] = grad(%0) {argnums=[0]} [\n    (%3: i64[]) {\n      %4: f32[] = to_f32(%3)\n      yield %4\n    }\n  ]\n"
                  "  return %2\n", "%0: i64[], %1: f32[2,3]")
                .find("not floating"),
            std::string::npos);
  const std::string text = "func(%0: f32[3], %1: f32[2,3]) {\n  %2: f32[2,3], %3: f32[3] = grad(%1, %0) {argnums=[0,1]} [\n"
                           "    (%4: f32[2,3], %5: f32[3]) {\n      %6: f32[2,3] = mul(%4, %5)\n      %7: f32[] = sum_all(%6)\n"
                           "      yield %7\n    }\n  ]\n  return %2, %3\n}\n";
  const Program p = parseProgram(text);
  EXPECT_EQ(validateProgram(p), "");
  EXPECT_EQ(printProgram(p), text);
}

// The jvp construct's typing (issue 28): primals then as many tangents of the same types, all
// floating; floating yields; results are the yields, then their tangents.
TEST(Validate, TypesAJvpConstructAndRejectsEachMalformedOne) {
  auto jvp = [](const std::string &args, const std::string &results = "%2: f32[2,3], %3: f32[2,3]",
                const std::string &yield = "%5", const std::string &params = "(%4: f32[2,3])") {
    return check("  " + results + " = jvp(" + args + ") [\n    " + params + " {\n      %5: f32[2,3] = sin(%4)\n      %6: i64[2,3] = trip_limit(%4)\n"
                 "      yield " + yield + "\n    }\n  ]\n  return %3\n");
  };
  EXPECT_EQ(jvp("%1, %1"), "");
  auto fails = [&](const std::string &what, const std::string &args, const std::string &results = "%2: f32[2,3], %3: f32[2,3]",
                   const std::string &yield = "%5", const std::string &params = "(%4: f32[2,3])") {
    const std::string e = jvp(args, results, yield, params);
    EXPECT_NE(e.find(what), std::string::npos) << args << ": " << e;
  };
  fails("an even number of operands", "%1");
  fails("does not match its primal", "%1, %0");
  fails("may only yield floating values", "%1, %1", "%2: i64[2,3], %3: i64[2,3]", "%6");
  EXPECT_NE(check("  %2: i64[], %3: i64[] = jvp(%0, %0) [\n    (%4: i64[]) {\n      yield %4\n    }\n  ]\n  return %3\n", "%0: i64[], %1: f32[2,3]")
                .find("primal 0 is not floating"),
            std::string::npos);
  const std::string text = "func(%0: f32[3], %1: f32[3]) {\n  %2: f32[3], %3: f32[3] = jvp(%0, %1) [\n"
                           "    (%4: f32[3]) {\n      %5: f32[3] = sin(%4)\n      yield %5\n    }\n  ]\n  return %3\n}\n";
  const Program p = parseProgram(text);
  EXPECT_EQ(validateProgram(p), "");
  EXPECT_EQ(printProgram(p), text);
}
