#pragma once
/// The libtorch backend: runs a case in this process under functorch's C++ vmap (the dynamic
/// layer stack of ATen/functorch), every op through ATen's C++ batching rules, control flow
/// lowered as JAX batches it (harness/libtorch_interp.h). A second, independent batched
/// implementation next to the torch backend, and fast enough for libFuzzer.
#include "harness/backends/backend.h"
#include "harness/backends/libtorch/libtorch_interp.h"

namespace vf {

class LibtorchBackend : public Backend {
public:
  /// `fault`: a planted lowering bug (tests); the default reads $VMAPFUZZ_LIBTORCH_FAULT.
  explicit LibtorchBackend(LoweringFault fault = faultFromEnvironment());
  SystemId id() const override { return SystemId::libtorch("cpu"); }
  /// Batched: vmap levels, in_dims, out_dims and chunk_size as torch.vmap. PerExample: the same
  /// interpreter on each example alone, no vmap (native control flow throughout).
  Outcome run(const Case &c, const std::vector<at::Tensor> &inputs, RunMode mode) override;

  /// $VMAPFUZZ_LIBTORCH_FAULT ("flip-select", "no-while-mask"); throws std::invalid_argument
  /// naming the known faults when it is set to anything else.
  static LoweringFault faultFromEnvironment();

private:
  LoweringFault fault_;
};

} // namespace vf
