#pragma once
/// Which function of the emitted module a run calls: one table for every (mode, run) pair, read
/// by the torch backend (the request's "entry", which the worker follows) and by repro.py.
#include <string>

#include <nlohmann/json.hpp>

#include "harness/backends/backend.h"
#include "harness/backends/exec_config.h"

namespace vf {

/// One entry point of the emitted module (python_emit.h, python_grad.h).
struct EntryPoint {
  std::string function;  ///< what the module defines: "batched", "per_example", "batched_vjp", ...
  bool compiled = false; ///< torch.compile'd first with the mode's compiler (a compile mode)
  bool vjpOf = false;    ///< then wrapped in `vjp_of`: its reverse-mode gradient (python_grad.h)
  /// A precompile mode's batched run: `function` compiled ahead of time, saved, and called from
  /// a fresh process (worker/vmapfuzz_precompile.py); `compiled` is then false.
  bool precompiled = false;

  /// The request's "entry": {"fn", "compile", "vjp_of", "precompile"}.
  nlohmann::json toJson() const;
  /// The Python expression of the callable, `fn` as the module names it: `vjp_of(batched)`.
  std::string expression() const;
};

/// What a run of `run` in mode `ex` calls. RunMode::BatchedForward is the forward mode's
/// Batched run (ex with grad None). Throws std::logic_error for a pair that has no entry point
/// (PerExampleFunc outside the +vmap-grad and +jvp modes).
EntryPoint entryPoint(const ExecConfig &ex, RunMode run);

} // namespace vf
