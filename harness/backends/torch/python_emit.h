#pragma once
/// Emits a case as plain Python on public torch APIs: `program` (one example), `batched` (the
/// vmapped program) and `per_example` (each example alone, stacked as vmap stacks). Written with
/// PyWriter (py_writer.h): the program and its regions in python_program.cpp and
/// python_constructs.cpp, the module in python_module.cpp, repro.py in python_repro.cpp, the
/// static Python in py/*.py (embedded at build time, cmake/EmbedPython.cmake).
#include <string>
#include <vector>

#include <ATen/ATen.h>

#include "harness/backends/exec_config.h"
#include "harness/backends/repro.h"
#include "harness/backends/torch/preload.h"
#include "harness/backends/torch/py_writer.h"
#include "ir/program.h"

namespace vf {

/// `def program(x0, x1): ...` with control flow as torch.cond and nested functions; with
/// Api::Direct, as calls of the higher-order ops themselves (see directPrelude in the .cpp).
/// A scan's in-place buffers are fresh tensors its combine_fn mutates (`buf.add_(v)`); with
/// `forward` a program that has one runs under torch.no_grad(), where dynamo accepts input
/// mutation in a higher-order op's body (a gradient mode's run is then rejected unbatched too:
/// `invalid`).
std::string emitProgram(const Program &p, Api api = Api::Public, bool forward = true);
/// True when a scan in `b` (or in a region of it) has in-place buffers.
bool hasBuffers(const Block &b);
/// The full module the worker executes: imports, program, batched, per_example; in a gradient
/// mode also the gradient functions (python_grad.h), and `layout_inputs` passes the cotangents
/// after the inputs through unchanged.
std::string emitModule(const Case &c, Api api = Api::Public, Grad grad = Grad::None);
struct ReproOptions {
  ExecConfig exec;                  ///< compile `batched` and pick the default device as the finding's mode did
  std::optional<Case> again;        ///< a second call at another batch size (guards of a compiled function)
  std::vector<at::Tensor> againInputs;
  std::vector<Preload> preloads;    ///< run first, as the worker did (--preload)
  /// Gradient modes (exec.grad): the cotangents of the case's VJP (and of the second call); in a
  /// forward-mode ("+jvp") mode the tangents of its JVP (generators/data.h makeTangents).
  std::vector<at::Tensor> cotangents, againCotangents;
};

/// A standalone script: the module, the inputs as literals, and a check that exits non-zero
/// while batched and per-example results disagree (or the batched run raises).
std::string emitRepro(const Case &c, const std::vector<at::Tensor> &inputs, const std::string &headerComment,
                      const ReproOptions &opt = {});

/// The torch backend's filing hook (harness/backends/repro.h): program.py, repro.py (emitRepro:
/// the finding's mode, inputs and (co)tangents, and the campaign's preloaded files, copied into
/// preload/ beside it).
const ReproWriter &pythonReproWriter();

} // namespace vf
