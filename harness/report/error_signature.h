#pragma once
/// The signature of an error finding: the innermost exception (dynamo's wrappers peeled off),
/// its normalised message, and the frame in torch's Python code that raised it.
#include <string>

namespace vf {

/// The exception that caused a (possibly wrapped) error.
struct InnerError {
  std::string type;    ///< short class name: "RuntimeError", "AssertionError"
  std::string message; ///< its own message, one line
  bool peeled = false; ///< true when a wrapper (TorchRuntimeError, ...) was taken off
};

/// Peels dynamo's wrappers: "TorchRuntimeError: RuntimeError when making fake tensor call got
/// RuntimeError('Dimension ...')", "InternalTorchDynamoError: RuntimeError: Dimension ...",
/// "UncapturedHigherOrderOpError: ... raised exception ValueError('...')" all give the inner
/// exception; a plain "RuntimeError: Dimension ..." gives itself. `type` may be qualified
/// (torch._dynamo.exc.TorchRuntimeError).
InnerError peelError(const std::string &type, const std::string &message);

/// A message with what varies between hits of one bug replaced: addresses, numbers, lists of
/// sizes, names of generated values and functions (true_fn_12, l_args_0_, <vmapfuzz-case-7>),
/// and `name=N` lists of an assertion's wording.
std::string normaliseMessage(const std::string &message);

/// The torch frame that raised the innermost exception, as "path/relative/to/torch.py:function"
/// ("_higher_order_ops/cond.py:cond_batch_rule"), from a Python traceback: the innermost frame
/// under torch/ whose line raises (raise/assert), in the traceback itself or, for an error dynamo
/// wrapped (`wrapped`), in its "from user code:" part only. "" when the error came from C++ (the innermost Python
/// line is a call) or there is no Python traceback (the libtorch backend): the same bug then
/// has the same frame however it was wrapped.
std::string raisingFrame(const std::string &traceback, bool wrapped);

/// Where an error comes from, for its failure class (issue 27): the raising frame where torch's
/// Python raised it; for an error raised in C++, the torch function that called into C++
/// ("c++ from _functorch/vmap.py:_flatten_chunks_output"), or "c++ from the program" when the
/// call was the program's own (directly, or through the fx GraphModule of a traced body): which
/// op of the program a wrong batch dim reaches first is incidental. "hidden by dynamo" for an
/// error dynamo wrapped whose user-code frames end in a call (the call it traced, not where the
/// error came from); "" without a Python traceback.
std::string errorSite(const std::string &traceback, bool wrapped);

/// "InnerType|normalised message|frame".
std::string errorSignature(const std::string &type, const std::string &message, const std::string &traceback);

} // namespace vf
