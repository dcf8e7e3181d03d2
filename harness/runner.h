#pragma once
/// Runs one case on the reference and on a backend, and classifies the result. The only place
/// that executes a case and decides its verdict.
#include "harness/backend.h"
#include "harness/verdict.h"
#include "ir/program.h"
#include "oracles/reference.h"

namespace vf {

struct RunnerOptions {
  bool float64Reference = false;
};

class Runner {
public:
  Runner(Backend &backend, RunnerOptions opt = {}) : backends_{&backend}, opt_(opt) {}
  /// Several systems under test (e.g. torch and libtorch): the reference runs once and each
  /// backend is classified against it. The result is the first finding in backend order (else
  /// the first non-pass verdict, else pass); CaseResult::backend names the side that differs.
  Runner(std::vector<Backend *> backends, RunnerOptions opt = {}) : backends_(std::move(backends)), opt_(opt) {}
  CaseResult run(const Case &c);

private:
  std::vector<Backend *> backends_;
  RunnerOptions opt_;
  CaseResult runOn(Backend &backend_, const Case &c, const std::vector<at::Tensor> &inputs, const RefResult &ref);
};

} // namespace vf
