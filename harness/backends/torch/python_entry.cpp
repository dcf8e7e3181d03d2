#include "harness/backends/torch/python_entry.h"

#include <stdexcept>

namespace vf {
namespace {

/// `compiles`: compiled first in a compile mode. A per-example run of a reverse-mode gradient
/// mode is plain autograd of each example alone (vjp_of(per_example)), that of +jvp the rows of
/// each example's Jacobian; PerExampleFunc is the function transform without vmap.
struct Row {
  Grad grad;
  RunMode run;
  const char *function;
  bool compiles, vjpOf;
};

constexpr Row kEntryPoints[] = {
    {Grad::None, RunMode::Batched, "batched", true, false},
    {Grad::None, RunMode::PerExample, "per_example", true, false},
    {Grad::OfVmap, RunMode::Batched, "batched", true, true},
    {Grad::OfVmap, RunMode::PerExample, "per_example", true, true},
    {Grad::VmapOf, RunMode::Batched, "batched_vjp", true, false},
    {Grad::VmapOf, RunMode::PerExample, "per_example", true, true},
    {Grad::VmapOf, RunMode::PerExampleFunc, "per_example_func_vjp", false, false},
    {Grad::Jvp, RunMode::Batched, "batched_jvp", true, false},
    {Grad::Jvp, RunMode::PerExample, "per_example_jvp_by_rows", false, false},
    {Grad::Jvp, RunMode::PerExampleFunc, "per_example_func_jvp", false, false},
};

} // namespace

nlohmann::json EntryPoint::toJson() const {
  return {{"fn", function}, {"compile", compiled}, {"vjp_of", vjpOf}, {"precompile", precompiled}};
}

std::string EntryPoint::expression() const { return vjpOf ? "vjp_of(" + function + ")" : function; }

EntryPoint entryPoint(const ExecConfig &ex, RunMode run) {
  const Grad grad = run == RunMode::BatchedForward ? Grad::None : ex.grad;
  if (run == RunMode::BatchedForward) run = RunMode::Batched;
  for (const Row &r : kEntryPoints)
    if (r.grad == grad && r.run == run) {
      EntryPoint e{r.function, r.compiles && ex.compiled(), r.vjpOf, false};
      if (ex.precompile && run == RunMode::Batched) {
        e.compiled = false;
        e.precompiled = true;
      }
      return e;
    }
  throw std::logic_error("mode " + ex.modeName() + " has no entry point for a per-example function-transform run");
}

} // namespace vf
