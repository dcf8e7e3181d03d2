#pragma once
/// Runs one case on the reference and on a backend, and classifies the result. The only place
/// that executes a case and decides its verdict.
#include "harness/backend.h"
#include "harness/verdict.h"
#include "ir/program.h"

namespace vf {

struct RunnerOptions {
  bool float64Reference = false;
};

class Runner {
public:
  Runner(Backend &backend, RunnerOptions opt = {}) : backend_(backend), opt_(opt) {}
  CaseResult run(const Case &c);

private:
  Backend &backend_;
  RunnerOptions opt_;
};

} // namespace vf
