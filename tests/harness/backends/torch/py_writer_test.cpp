// The Python writer (harness/backends/torch/py_writer.h): indentation scopes, multi-line text,
// and the expressions emitters compose.
#include <gtest/gtest.h>

#include "harness/backends/torch/py_writer.h"

using namespace vf;

TEST(PyWriter, IndentsEachScopeByFourSpacesAndKeepsEmptyLinesEmpty) {
  PyWriter w;
  w.block("def f(x):", [&] {
    w.line("y = x");
    w.line("");
    w.block("if y:", [&] { w.line("return y"); });
    w.line("return None");
  });
  w.line("z = 1");
  EXPECT_EQ(w.str(), "def f(x):\n    y = x\n\n    if y:\n        return y\n    return None\nz = 1\n");
}

TEST(PyWriter, AScopeEndsWithItsObject) {
  PyWriter w;
  {
    auto body = w.indent();
    EXPECT_EQ(w.depth(), 1);
    auto deeper = w.indent();
    w.line("a");
  }
  EXPECT_EQ(w.depth(), 0);
  w.line("b");
  EXPECT_EQ(w.str(), "        a\nb\n");
}

TEST(PyWriter, LinesIndentsEveryLineOfAText) {
  PyWriter w;
  auto body = w.indent();
  w.lines("def g():\n    return 1\n\nx = g()\n");
  w.lines("no newline at the end");
  w.blank(2);
  EXPECT_EQ(w.str(), "    def g():\n        return 1\n\n    x = g()\n    no newline at the end\n\n\n");
}

TEST(PyExpr, TuplesOfZeroOneAndManyItems) {
  EXPECT_EQ(pyTuple({}), "()");
  EXPECT_EQ(pyTuple({"a"}), "(a,)");
  EXPECT_EQ(pyTuple({"a", "b", "c"}), "(a, b, c)");
  EXPECT_EQ(pyTuple({pyTuple({}), pyTuple({"x"})}), "((), (x,))");
}

TEST(PyExpr, CallsUnpackingAndLiterals) {
  EXPECT_EQ(pyCall("f", {}), "f()");
  EXPECT_EQ(pyCall("torch.vmap", {"program", "in_dims=(0,)"}), "torch.vmap(program, in_dims=(0,))");
  EXPECT_EQ(pyUnpack({"v1"}), "v1,");
  EXPECT_EQ(pyUnpack({"v1", "v2"}), "v1, v2");
  EXPECT_EQ(pyJoin({}), "");
  EXPECT_EQ(pyString("a\"b\\c\nd"), "\"a\\\"b\\\\c\\nd\"");
  EXPECT_EQ(pyBool(true), "True");
  EXPECT_EQ(pyBool(false), "False");
}
