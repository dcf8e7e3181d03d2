#pragma once
// A fake system under test for the runner's and replay's tests: its batched and per-example
// runs return scripted outcomes.
#include <string>
#include <vector>

#include "harness/backends/backend.h"
#include "ir/text.h"

namespace vf::fake {

/// A backend whose batched and per-example runs return what the test scripted. An output of
/// `Right` is the program's true result (-x), `Wrong` is off by one.
class FakeBackend : public Backend {
public:
  enum Result { Right, Wrong };
  struct Script {
    Outcome::Status status = Outcome::Status::Ok;
    Result result = Right;
    std::string errorType, errorMessage;
  };
  Script batched, perExample, again;
  bool twice = false;
  std::vector<RunMode> calls;

  SystemId id() const override { return *SystemId::parse(twice ? "compile-eager|cpu" : "eager|cpu"); }
  Outcome run(const Case &, const std::vector<at::Tensor> &inputs, RunMode mode) override {
    calls.push_back(mode);
    return play(mode == RunMode::Batched ? batched : perExample, inputs);
  }
  bool checksRecompiles() const override { return twice; }
  Outcome runTwice(const Case &, const std::vector<at::Tensor> &inputs, const Case &,
                   const std::vector<at::Tensor> &againInputs) override {
    calls.push_back(RunMode::Batched);
    Outcome o = play(batched, inputs);
    if (o.status == Outcome::Status::Ok) o.againOutputs = play(again, againInputs).outputs;
    return o;
  }

private:
  static Outcome play(const Script &s, const std::vector<at::Tensor> &inputs) {
    Outcome o;
    o.status = s.status;
    o.errorType = s.errorType;
    o.errorMessage = s.errorMessage;
    if (s.status == Outcome::Status::Ok) o.outputs = {s.result == Right ? -inputs[0] : 1 - inputs[0]};
    return o;
  }
};

/// vmap(neg) over a batch of two f32[3]: the program FakeBackend's `Right` answers.
inline Case negCase() {
  return parseCase("vmap size=2 in_dims=(0) out_dims=(0)\nfunc(%0: f32[3]) {\n  %1: f32[3] = neg(%0)\n  return %1\n}\n");
}

/// A run that returns the right or a wrong result.
inline FakeBackend::Script ok(FakeBackend::Result r) { return {Outcome::Status::Ok, r, "", ""}; }
/// A run that ends with `s` (an error, a crash ...) and that message.
inline FakeBackend::Script failing(Outcome::Status s, std::string type, std::string msg) {
  return {s, FakeBackend::Right, std::move(type), std::move(msg)};
}

} // namespace vf::fake
