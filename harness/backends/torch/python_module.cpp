// The module the worker executes (python_emit.h's emitModule): imports, `program`, `batched`,
// `layout_inputs`, `per_example` and, in a gradient mode, the gradient functions.
#include "harness/backends/torch/python_emit.h"

#include <set>

#include "harness/backends/torch/py_literals.h"
#include "harness/backends/torch/py_writer.h"
#include "harness/backends/torch/python_grad.h"
#include "harness/backends/torch/python_program.h"
#include "ir/constructs.h"
#include "vmapfuzz_py_sources.h"

namespace vf {
namespace {

void usedConstructs(const Block &b, std::set<std::string> &out) {
  for (const auto &s : b.stmts) {
    if (!s.regions.empty()) out.insert(s.op);
    for (const auto &r : s.regions) usedConstructs(r, out);
  }
}

std::vector<std::string> inputNames(const Case &c) {
  std::vector<std::string> xs;
  for (const auto &d : c.program.body.params) xs.push_back("x" + std::to_string(d.id));
  return xs;
}

/// The imports of the constructs the program uses. Direct mode: each op itself and its helper
/// (the registry's `directHelper`). torch.cond's own input checks (a one-element predicate,
/// tensor operands) are left out on purpose: a valid program always passes them at the top
/// level, and inside a region the public path does not make them either (under dynamo,
/// torch.cond goes straight to cond_op), so checking there would report failures the public
/// API never shows. Only the helpers of the constructs a program uses are emitted, so a torch
/// without one of the ops fails only the programs that need it. Public: those not exported
/// under torch.* yet (switch, scan).
void imports(PyWriter &w, const Program &p, Api api) {
  std::set<std::string> used;
  usedConstructs(p.body, used);
  w.line("import torch");
  if (api == Api::Direct) {
    for (const auto &d : constructRegistry())
      if (used.count(d.name) && !d.directImport.empty()) w.line(d.directImport);
    w.blank(2);
    for (const auto &d : constructRegistry())
      if (used.count(d.name) && !d.directHelper.empty()) w.lines(d.directHelper).blank(2);
  } else {
    for (const auto &d : constructRegistry())
      if (used.count(d.name) && !d.publicImport.empty()) w.line(d.publicImport);
  }
  for (const auto &d : constructRegistry())
    if (used.count(d.name) && !d.helper.empty()) w.blank(2).lines(d.helper);
}

/// Whether the program opens vmap levels of its own (the registry's `_vmap` helper).
bool opensLevels(const Program &p) {
  std::set<std::string> used;
  usedConstructs(p.body, used);
  return used.count(constructDef(ConstructKind::Vmap).name) > 0;
}

/// `batched = torch.vmap(...)`: the vmap levels from the innermost out.
std::string batchedExpr(const BatchSpec &spec) {
  std::string expr = "program";
  for (auto it = spec.levels.rbegin(); it != spec.levels.rend(); ++it) {
    std::vector<std::string> args = {expr, "in_dims=" + pyInDims(*it), "out_dims=" + pyOutDims(*it)};
    if (it->chunk_size) args.push_back("chunk_size=" + std::to_string(*it->chunk_size));
    if (it->randomness != "error") args.push_back("randomness='" + it->randomness + "'");
    expr = pyCall("torch.vmap", args);
  }
  return expr;
}

/// The expression that makes input `x` in layout `l` (same values, other strides or offset).
std::string laidOut(const std::string &x, const Layout &l) {
  const std::string d = std::to_string(l.dim);
  switch (l.kind) {
  case Layout::Kind::Contiguous: return x;
  case Layout::Kind::Transposed: return x + ".transpose(" + d + ", -1).contiguous().transpose(" + d + ", -1)";
  case Layout::Kind::Expanded: return x + ".narrow(" + d + ", 0, 1).expand(" + x + ".shape)";
  case Layout::Kind::Strided: return "_strided(" + x + ", " + d + ")";
  case Layout::Kind::Offset: return "_offset(" + x + ")";
  }
  return x;
}

/// `layout_inputs(x0, ...)`: the contiguous inputs re-made in the case's layouts, for the worker
/// and repro.py to call before `batched`; `passRest`: a gradient mode's (co)tangents follow the
/// inputs and are passed through as they are. Nothing when every input is contiguous.
void layoutFunction(PyWriter &w, const Case &c, bool passRest) {
  if (c.spec.layouts.empty()) return;
  w.lines(pysrc::layouts).blank(2);
  std::vector<std::string> params = inputNames(c), made;
  for (size_t i = 0; i < params.size(); ++i) made.push_back(laidOut(params[i], c.spec.layoutOf(i)));
  if (passRest) params.push_back("*rest");
  w.block("def " + pyCall("layout_inputs", params) + ":", [&] {
    w.line(passRest ? "\"\"\"The inputs in the case's memory layouts: same values, other strides (the rest as they are).\"\"\""
                    : "\"\"\"The inputs in the case's memory layouts: same values, other strides.\"\"\"");
    w.line("return " + pyTuple(made) + (passRest ? " + rest" : ""));
  });
  w.blank(2);
}

/// `per_example`: one Python loop per vmap level, innermost first, each stacking its examples'
/// outputs the way vmap stacks them. The batch size comes from the level's first batched input,
/// so the function serves any batch size.
void perExample(PyWriter &w, const Case &c) {
  const std::vector<std::string> params = inputNames(c);
  const size_t n = c.spec.levels.size();
  for (size_t li = n; li-- > 0;) {
    const VmapLevel &l = c.spec.levels[li];
    auto level = [](size_t i) { return "per_example_level" + std::to_string(i); };
    std::vector<std::string> call;
    std::string size;
    for (size_t i = 0; i < params.size(); ++i) {
      call.push_back(l.in_dims[i] ? params[i] + ".select(" + std::to_string(*l.in_dims[i]) + ", b)" : params[i]);
      if (l.in_dims[i] && size.empty()) size = params[i] + ".size(" + std::to_string(*l.in_dims[i]) + ")";
    }
    if (size.empty()) size = std::to_string(l.size);
    const std::string outs = "outs = [" + pyCall(li + 1 == n ? "program" : level(li + 1), call) + " for b in range(" + size + ")]";
    w.block("def " + pyCall(li == 0 ? "per_example" : level(li), params) + ":", [&] {
      if (li == 0) w.line("\"\"\"Each example alone, stacked the way vmap stacks: what `batched` must return.\"\"\"");
      if (li == 0 && opensLevels(c.program)) { // the program's own vmaps as loops meanwhile (_vmap)
        w.line("global _VMAP_AS_LOOPS");
        w.line("_VMAP_AS_LOOPS = True");
        w.block("try:", [&] { w.line(outs); });
        w.block("finally:", [&] { w.line("_VMAP_AS_LOOPS = False"); });
      } else {
        w.line(outs);
      }
      w.line("return tuple(torch.stack(o, dim=d) for o, d in zip(zip(*outs), " + pyOutDims(l) + "))");
    });
    w.blank(2);
  }
}

} // namespace

bool hasBuffers(const Block &b) {
  for (const auto &s : b.stmts) {
    if (isConstruct(s.op) && constructOf(s).kind == ConstructKind::Scan && scanParts(s).bufs > 0) return true;
    for (const auto &r : s.regions)
      if (hasBuffers(r)) return true;
  }
  return false;
}

std::string emitProgram(const Program &p, Api api, bool forward) {
  return ProgramEmitter(p, api).program(p, forward && hasBuffers(p.body));
}

std::string emitModule(const Case &c, Api api, Grad grad) {
  PyWriter w;
  imports(w, c.program, api);
  w.blank(2).lines(emitProgram(c.program, api, grad == Grad::None)).blank(2);
  w.line("batched = " + batchedExpr(c.spec)).blank(2);
  layoutFunction(w, c, grad != Grad::None);
  perExample(w, c);
  return w.str() + gradFunctions(c, grad);
}

} // namespace vf
