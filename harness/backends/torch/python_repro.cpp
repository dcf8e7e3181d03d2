// repro.py (python_emit.h's emitRepro): the module, the inputs as literals, the comparator's
// tolerances, and a check that exits 1 while the batched and per-example results disagree.
#include "harness/backends/torch/python_emit.h"

#include <sstream>

#include "harness/backends/torch/py_literals.h"
#include "harness/backends/torch/py_writer.h"
#include "harness/backends/torch/python_entry.h"
#include "ir/differentiable.h"
#include "ir/scalar_type.h"
#include "oracles/compare.h"
#include "vmapfuzz_py_sources.h"

namespace vf {
namespace {

/// One call the repro makes: its arguments (inputs, then (co)tangents) and how a failure names it.
struct ReproCall {
  std::vector<std::string> args;
  std::string what;
};

void header(PyWriter &w, const std::string &headerComment, const ExecConfig &ex) {
  w.line("#!/usr/bin/env python3");
  std::istringstream hc(headerComment);
  for (std::string line; std::getline(hc, line);) w.line("# " + line);
  if (forwardMode(ex.grad))
    w.lines("# Exits 1 while the forward-mode derivatives of torch.vmap's result (torch.func.jvp with the tangents\n"
            "# below) disagree with those of running each example alone under plain autograd, 0 once they agree.\n");
  else if (ex.gradient())
    w.lines("# Exits 1 while the gradients of torch.vmap's result (a vector-Jacobian product with the cotangents\n"
            "# below) disagree with those of running each example alone under plain autograd, 0 once they agree.\n");
  else w.line("# Exits 1 while torch.vmap disagrees with running each example alone, 0 once it agrees.");
}

/// Runs the preloaded files first, as the worker did (py/repro_preload.py).
void preloadBlock(PyWriter &w, const std::vector<Preload> &preloads) {
  if (preloads.empty()) return;
  auto names = preloadFileNames(preloads);
  w.line("# Preloaded before the case, as the vmapfuzz worker did (--preload): from preload/ beside this");
  w.line("# script, else from the path it had when the finding was filed.");
  std::vector<std::string> rows;
  for (size_t i = 0; i < preloads.size(); ++i)
    rows.push_back(pyTuple({pyString(names[i]), pyString(preloads[i].path), pyString(preloads[i].sha256)}) + ",");
  w.line("_PRELOADS = [");
  {
    auto body = w.indent();
    for (const auto &r : rows) w.line(r);
  }
  w.line("]").lines(pysrc::repro_preload);
}

/// The comparator's tolerances for what the repro compares (oracles/compare.h), as a Python
/// list of (rtol, atol): one per output, or per gradient (tangent) in a gradient mode.
std::string pyTolerances(const Case &c, Grad g) {
  std::vector<Tolerance> tols;
  if (forwardMode(g)) {
    auto types = outputTypes(c.program);
    for (size_t j : gradOutputs(c.program)) tols.push_back(gradientTolerance(toScalarType(types.at(j).dtype), c.program));
  } else if (g != Grad::None) {
    for (size_t i : gradInputs(c.program))
      tols.push_back(gradientTolerance(toScalarType(c.program.body.params[i].type.dtype), c.program));
  } else {
    tols = outputTolerances(c.program);
  }
  std::vector<std::string> l;
  for (const auto &t : tols) l.push_back(pyTuple({pyFloat(t.rtol), pyFloat(t.atol)}));
  return "[" + pyJoin(l) + "]";
}

/// The inputs of one call as literals (`prefix` + value id), laid out as the case's layouts
/// say, then its (co)tangents. Returns the call's argument names.
std::vector<std::string> inputBlock(PyWriter &w, const Case &c, const std::vector<at::Tensor> &ts, const std::string &prefix,
                                    const std::vector<at::Tensor> &cts, bool jvp) {
  std::vector<std::string> names;
  for (size_t i = 0; i < ts.size(); ++i) {
    names.push_back(prefix + std::to_string(c.program.body.params[i].id));
    w.line(names.back() + " = " + tensorLiteral(ts[i]));
  }
  // The case's memory layouts: the same values with other strides and offsets.
  if (!c.spec.layouts.empty()) w.line(pyUnpack(names) + " = " + pyCall("layout_inputs", names));
  for (size_t j = 0; j < cts.size(); ++j) { // a gradient mode's cotangents (one per floating output) or tangents
    names.push_back(prefix + (jvp ? "_tangent" : "_cotangent") + std::to_string(j));
    w.line(names.back() + " = " + tensorLiteral(cts[j]));
  }
  return names;
}

/// What check() names each compared tensor by, and its failure message.
struct CheckTexts {
  std::string names, differs;
};

CheckTexts checkTexts(const Case &c, Grad g) {
  std::vector<std::string> names;
  if (forwardMode(g)) {
    for (size_t j : gradOutputs(c.program))
      names.push_back(pyString("output " + std::to_string(j) + " (%" + std::to_string(c.program.body.yields.at(j)) + ")"));
    return {"names = " + pyTuple(names) + "  # the outputs that take a tangent",
            "print(f\"FAIL: the tangent of {names[i]} in {what} differs from the per-example autograd loop's:\\n{err}\")"};
  }
  if (g != Grad::None) {
    for (size_t i : gradInputs(c.program)) names.push_back(pyString("x" + std::to_string(c.program.body.params[i].id)));
    return {"names = " + pyTuple(names) + "  # the inputs that take a gradient",
            "print(f\"FAIL: the gradient of {names[i]} in {what} differs from the per-example autograd loop's:\\n{err}\")"};
  }
  return {"", "print(f\"FAIL: output {i} of {what} differs from the per-example result:\\n{err}\")"};
}

/// `check(args, what)`: both sides with plain torch. The expected side is the mode's
/// per-example entry point run eagerly (python_entry.h), the actual side its batched one
/// (`loaded` in a precompile mode: the artifacts loaded in a fresh process).
void checkFunction(PyWriter &w, const Case &c, const ExecConfig &ex) {
  const CheckTexts t = checkTexts(c, ex.grad);
  const EntryPoint batched = entryPoint(ex, RunMode::Batched), perExample = entryPoint(ex, RunMode::PerExample);
  w.block("def check(args, what):", [&] {
    if (!t.names.empty()) w.line(t.names);
    w.line("expected = " + perExample.expression() + "(*args)");
    w.block("try:", [&] { w.line("actual = " + (batched.precompiled ? std::string("loaded") : batched.expression()) + "(*args)"); });
    w.block("except Exception as e:", [&] {
      w.line("print(f\"FAIL: {what} raised {type(e).__name__}: {e}\")");
      w.line("return False");
    });
    w.line("ok = len(actual) == len(expected)");
    w.block("if not ok:", [&] { w.line("print(f\"FAIL: {what} gave {len(actual)} outputs, expected {len(expected)}\")"); });
    w.block("for i, (a, e) in enumerate(zip(actual, expected)):", [&] {
      w.line("rtol, atol = TOLERANCES[i]");
      w.block("try:", [&] { w.line("torch.testing.assert_close(a, e, rtol=rtol, atol=atol, equal_nan=True)"); });
      w.block("except AssertionError as err:", [&] { w.line("ok = False").line(t.differs); });
    });
    w.line("return ok");
  });
  w.blank(2);
}

/// A precompile mode's steps (py/repro_precompile.py) after the shared compile-save-load
/// functions (worker/vmapfuzz_aot.py).
void precompileBlock(PyWriter &w, const std::vector<ReproCall> &calls, const ExecConfig &ex) {
  w.lines(pysrc::vmapfuzz_aot).blank(2);
  std::vector<std::string> args;
  for (const auto &call : calls) args.push_back(pyTuple(call.args));
  w.line("_ARGS = [" + pyJoin(args) + "]");
  w.line("_BACKEND = " + pyString(ex.compiler));
  w.line("_DYNAMIC = " + (ex.dynamic ? pyBool(*ex.dynamic) : std::string("None")));
  w.lines(pysrc::repro_precompile).blank(2);
}

} // namespace

std::string emitRepro(const Case &c, const std::vector<at::Tensor> &inputs, const std::string &headerComment,
                      const ReproOptions &opt) {
  const ExecConfig &ex = opt.exec;
  const bool jvp = forwardMode(ex.grad);
  PyWriter w;
  header(w, headerComment, ex);
  preloadBlock(w, opt.preloads);
  w.lines(emitModule(c, ex.api, ex.grad));
  if (ex.device != "cpu") w.line("torch.set_default_device(" + pyString(ex.device) + ")");
  if (const EntryPoint e = entryPoint(ex, RunMode::Batched); e.compiled) {
    std::vector<std::string> args = {e.function, "backend=" + pyString(ex.compiler)};
    if (ex.dynamic) args.push_back("dynamic=" + pyBool(*ex.dynamic));
    w.line(e.function + " = " + pyCall("torch.compile", args));
  }
  w.blank();
  std::vector<ReproCall> calls = {{inputBlock(w, c, inputs, "x", opt.cotangents, jvp), "the batched run"}};
  if (opt.again) {
    const std::string size = std::to_string(opt.again->spec.levels[0].size);
    w.line("# The same program at batch size " + size + ": the compiled function must recompile or generalise.");
    calls.push_back({inputBlock(w, c, opt.againInputs, "y", opt.againCotangents, jvp), "the second call (batch size " + size + ")"});
  }
  // The comparator's own tolerances: the repro judges the case as the campaign did.
  w.blank(2).line(std::string("# (rtol, atol) per ") + (ex.gradient() ? "gradient" : "output") +
                  ": its dtype's, or the looser one of the least precise dtype it was computed through");
  w.line("TOLERANCES = " + pyTolerances(c, ex.grad)).blank(2);
  checkFunction(w, c, ex);
  if (ex.precompile) precompileBlock(w, calls, ex);
  w.line("ok = True");
  for (const auto &call : calls) w.line("ok = check(" + pyTuple(call.args) + ", " + pyString(call.what) + ") and ok");
  w.line("print(\"OK: batched and per-example results agree\" if ok else \"FAIL\")");
  w.line("raise SystemExit(0 if ok else 1)");
  return w.str();
}

} // namespace vf
