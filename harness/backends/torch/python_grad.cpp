#include "harness/backends/torch/python_grad.h"

#include "harness/backends/torch/py_literals.h"
#include "harness/backends/torch/py_writer.h"
#include "ir/differentiable.h"
#include "vmapfuzz_py_sources.h"

namespace vf {
namespace {

std::string indexTuple(const std::vector<size_t> &xs) {
  std::vector<std::string> s;
  for (size_t x : xs) s.push_back(std::to_string(x));
  return pyTuple(s);
}

/// `NAME = [` one entry a line `]`, then two blank lines.
void table(PyWriter &w, const std::string &name, const std::vector<std::string> &entries) {
  w.line(name + " = [");
  {
    auto rows = w.indent();
    for (const auto &e : entries) w.line(e + ",");
  }
  w.line("]").blank(2);
}

/// A static part (py/*.py), then two blank lines.
void fragment(PyWriter &w, std::string_view text) { w.lines(text).blank(2); }

/// What every gradient mode's functions start with: `what` (comment lines), the input and
/// output indices, and the forward and backward pass, each in a function of its own name so
/// that the worker finds which one raised (its reply's raising_pass).
void header(PyWriter &w, const Case &c, const char *what) {
  w.lines(what);
  w.line("_N_INPUTS = " + std::to_string(c.program.body.params.size()));
  w.line("_GRAD_INPUTS = " + indexTuple(gradInputs(c.program)) + "  # the floating inputs");
  w.line("_GRAD_OUTPUTS = " + indexTuple(gradOutputs(c.program)) + "  # the floating outputs").blank(2);
  fragment(w, pysrc::grad_passes);
}

/// One entry of _LEVELS per vmap level, outermost first: (in_dims of the inputs and the
/// cotangents, the in_dim of each gradient's input, chunk_size, randomness).
std::vector<std::string> vjpLevels(const Case &c) {
  std::vector<std::string> rows;
  for (const auto &l : c.spec.levels) {
    std::vector<std::string> in, grads;
    for (const auto &d : l.in_dims) in.push_back(pyDim(d));
    for (size_t j : gradOutputs(c.program)) in.push_back(std::to_string(l.out_dims.at(j)));
    for (size_t i : gradInputs(c.program)) grads.push_back(pyDim(l.in_dims.at(i)));
    rows.push_back(pyTuple({pyTuple(in), pyTuple(grads), l.chunk_size ? std::to_string(*l.chunk_size) : "None",
                            "'" + l.randomness + "'"}));
  }
  return rows;
}

/// One entry of _JVP_LEVELS per vmap level, outermost first: the in_dims of the inputs and of
/// their tangents, the out_dims of the floating outputs, the level's size (when it batches no input).
std::vector<std::string> jvpLevels(const Case &c) {
  std::vector<std::string> rows;
  for (const auto &l : c.spec.levels) {
    std::vector<std::string> in, out;
    for (const auto &d : l.in_dims) in.push_back(pyDim(d));
    for (size_t i : gradInputs(c.program)) in.push_back(pyDim(l.in_dims.at(i)));
    for (size_t j : gradOutputs(c.program)) out.push_back(std::to_string(l.out_dims.at(j)));
    rows.push_back(pyTuple({pyTuple(in), pyTuple(out), std::to_string(l.size)}));
  }
  return rows;
}

} // namespace

std::string gradFunctions(const Case &c, Grad g) {
  PyWriter w;
  switch (g) {
  case Grad::None: return "";
  case Grad::Jvp:
    header(w, c,
           "# Forward-mode derivatives (vmapfuzz's +jvp modes). Each function takes the inputs, then one tangent\n"
           "# per floating input, and returns the tangent of each floating output (a Jacobian-vector product).\n");
    fragment(w, pysrc::jvp_functions);
    table(w, "_JVP_LEVELS", jvpLevels(c));
    fragment(w, pysrc::jvp_loops);
    return w.str();
  case Grad::OfVmap:
  case Grad::VmapOf:
    header(w, c,
           "# Gradients (vmapfuzz's gradient modes). Each function takes the inputs, then one cotangent per\n"
           "# floating output, and returns the gradient of each floating input.\n");
    fragment(w, pysrc::vjp_of);
    if (g == Grad::VmapOf) {
      table(w, "_LEVELS", vjpLevels(c));
      fragment(w, pysrc::vmap_vjp);
    }
    return w.str();
  }
  return "";
}

} // namespace vf
