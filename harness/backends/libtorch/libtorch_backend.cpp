#include "harness/backends/libtorch/libtorch_backend.h"

#include <chrono>
#include <cstdlib>
#include <stdexcept>

#include "harness/backends/libtorch/libtorch_vmap.h"
#include "ir/unbatch.h"

namespace vf {

LoweringFault LibtorchBackend::faultFromEnvironment() {
  const char *e = std::getenv("VMAPFUZZ_LIBTORCH_FAULT");
  bool ok = true;
  LoweringFault f = parseLoweringFault(e ? e : "", ok);
  if (!ok)
    throw std::invalid_argument(std::string("VMAPFUZZ_LIBTORCH_FAULT=") + e +
                                ": unknown fault (known: flip-select, no-while-mask)");
  return f;
}

LibtorchBackend::LibtorchBackend(LoweringFault fault) : fault_(fault) {}

namespace {

/// The Python exception type torch would raise for this C++ error.
std::string errorType(const std::exception &e) {
  if (dynamic_cast<const c10::NotImplementedError *>(&e)) return "NotImplementedError";
  if (dynamic_cast<const c10::IndexError *>(&e)) return "IndexError";
  if (dynamic_cast<const c10::ValueError *>(&e)) return "ValueError";
  if (dynamic_cast<const c10::TypeError *>(&e)) return "TypeError";
  if (dynamic_cast<const c10::Error *>(&e)) return "RuntimeError";
  return "std::exception";
}

} // namespace

Outcome LibtorchBackend::run(const Case &c, const std::vector<at::Tensor> &inputs, RunMode mode) {
  Outcome o;
  auto t0 = std::chrono::steady_clock::now();
  auto program = [&](const std::vector<at::Tensor> &xs) { return evalBatched(c.program, xs, fault_); };
  try {
    o.outputs = mode == RunMode::Batched || mode == RunMode::BatchedForward ? vmapLevels(c.spec.levels, inputs, program) : unbatch(c.spec.levels, inputs, program);
    for (auto &t : o.outputs) t = t.contiguous();
  } catch (const c10::Error &e) {
    o.status = Outcome::Status::Error;
    o.errorType = errorType(e);
    o.errorMessage = e.what_without_backtrace();
    o.traceback = e.what();
  } catch (const std::exception &e) {
    o.status = Outcome::Status::Error;
    o.errorType = errorType(e);
    o.errorMessage = e.what();
  }
  o.systemSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return o;
}

} // namespace vf
