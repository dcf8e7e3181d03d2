#pragma once
/// Runs one case on the reference and on a backend, and classifies the result. The only place
/// that executes a case and decides its verdict.
#include "harness/backends/backend.h"
#include "harness/run/verdict.h"
#include "ir/program.h"
#include "oracles/reference.h"

namespace vf {

struct RunnerOptions {
  bool float64Reference = false;
};

/// A case's inputs and reference result: computed once, shared by the runners of every mode.
struct Prepared {
  std::vector<at::Tensor> inputs;
  RefResult reference;
  double seconds = 0;
};

/// The same program at another outer batch size: what a compiled function is called with next.
Case atAnotherBatchSize(const Case &c);

class Runner {
public:
  Runner(Backend &backend, RunnerOptions opt = {}) : backend_(backend), opt_(opt) {}
  Prepared prepare(const Case &c) const;
  CaseResult run(const Case &c) { return run(c, prepare(c)); }
  CaseResult run(const Case &c, const Prepared &p);
  Backend &backend() { return backend_; }

private:
  Backend &backend_;
  RunnerOptions opt_;
};

/// The systems under test of one job: a runner per mode, all on the job's own worker.
using RunnerSet = std::vector<Runner *>;

} // namespace vf
