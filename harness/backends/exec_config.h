#pragma once
/// How the torch backend executes a case: eager `torch.vmap` or `torch.compile` of the vmapped
/// function (with a compiler backend and a shape policy), on which device.
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace vf {

/// Which entry point of torch's control flow the emitted program calls.
enum class Api {
  Public, ///< torch.cond, torch.while_loop, scan, switch: the public wrappers (dynamo traces the branches)
  Direct, ///< the higher-order ops themselves (cond_op, ...): the batching rules alone, no dynamo
};

/// What a run computes: the batched program's outputs, the gradients of its floating inputs (a
/// vector-Jacobian product with the case's cotangents, generators/data.h makeCotangents), or the
/// tangents of its floating outputs (a Jacobian-vector product with the case's tangents,
/// makeTangents). Declared once, in gradModes() below; a mode name's suffix ("eager+grad").
enum class Grad {
  None,   ///< forward values only
  OfVmap, ///< "+grad": torch.autograd.grad of the batched program (backward through vmap)
  VmapOf, ///< "+vmap-grad": torch.vmap of torch.func.vjp of the program (per-sample gradients)
  Jvp,    ///< "+jvp": torch.func.jvp of the batched program (forward mode through vmap)
};

/// A mode whose run compares output tangents (a JVP) rather than input gradients (a VJP).
inline bool forwardMode(Grad g) { return g == Grad::Jvp; }

/// Every gradient setting with its mode-name suffix ("" for Grad::None) and what it does.
struct GradModeInfo {
  Grad grad;
  const char *suffix;
  const char *what;
};
const std::vector<GradModeInfo> &gradModes();

struct ExecConfig {
  Api api = Api::Public; ///< `direct` mode: Api::Direct (never compiled)
  Grad grad = Grad::None; ///< forward values, or derivatives (a "+grad" / "+vmap-grad" / "+jvp" mode)
  /// "" runs `torch.vmap` eagerly; otherwise the `torch.compile` backend: eager, aot_eager, inductor.
  std::string compiler;
  /// The `dynamic=` argument of torch.compile: unset (torch's default: static first, automatic
  /// dynamic after a recompile), true (dynamic) or false (static, recompile on every new shape).
  std::optional<bool> dynamic;
  std::string device = "cpu"; ///< "cpu" or "cuda" (ROCm builds of torch also say "cuda")
  /// `precompile-BACKEND`: the compiled vmap is compiled ahead of time (`aot_compile`), saved,
  /// loaded in a fresh process and called there (worker/vmapfuzz_precompile.py).
  bool precompile = false;

  bool compiled() const { return !compiler.empty(); }
  bool direct() const { return api == Api::Direct; }
  bool gradient() const { return grad != Grad::None; }
  /// "direct", "eager", "compile-inductor", "compile-aot_eager-dynamic", "compile-inductor-static",
  /// "precompile-inductor", each but precompile optionally with a gradient suffix: "eager+grad",
  /// "direct+vmap-grad".
  std::string modeName() const;
  /// The JSON the worker reads (protocol v2, "exec").
  nlohmann::json toJson() const;
};

/// Every mode name `--mode` accepts.
const std::vector<std::string> &knownModes();
/// Parses a mode name (see modeName); nullopt when it is not one.
std::optional<ExecConfig> parseMode(const std::string &name);
/// Parses "eager,compile-inductor": std::invalid_argument naming the bad entry.
std::vector<ExecConfig> parseModes(const std::string &list);

} // namespace vf
