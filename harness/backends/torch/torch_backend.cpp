#include "harness/backends/torch/torch_backend.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include "ir/scalar_type.h"
#include "harness/backends/torch/python_emit.h"
#include "harness/backends/torch/python_entry.h"

namespace vf {

std::string defaultWorkerScript() {
  if (const char *e = std::getenv("VMAPFUZZ_WORKER")) return e;
  return VMAPFUZZ_SOURCE_DIR "/harness/backends/torch/worker/vmapfuzz_worker.py";
}

TorchBackend::TorchBackend(WorkerConfig cfg) : worker_(std::make_shared<WorkerProcess>(std::move(cfg))) {}

TorchBackend::TorchBackend(std::shared_ptr<WorkerProcess> worker, ExecConfig exec, std::string deviceLabel)
    : worker_(std::move(worker)), exec_(std::move(exec)), deviceLabel_(std::move(deviceLabel)) {}

nlohmann::json TorchBackend::hello() {
  nlohmann::json req = {{"v", kProtocolVersion}, {"op", "hello"}};
  if (worker_->coverage()) req["coverage"] = true;
  auto rep = worker_->request(req, {});
  if (rep.kind != WorkerReply::Kind::Ok)
    throw std::runtime_error("the torch worker did not start (" + rep.how + "): " + rep.stderrTail);
  if (rep.header.value("v", 0) != kProtocolVersion)
    throw std::runtime_error("the torch worker speaks protocol " + rep.header.value("v", nlohmann::json(0)).dump() +
                             ", this vmapfuzz speaks " + std::to_string(kProtocolVersion));
  if (rep.header.value("status", "") != "ok") {
    const auto &e = rep.header["error"];
    if (e.value("kind", "") == "preload") // the message names the file; the traceback says where
      throw std::runtime_error(e.value("message", "?") + "\n" + e.value("traceback", ""));
    throw std::runtime_error("python cannot import torch: " + e.value("message", "?"));
  }
  return rep.header;
}

/// The worker's "cov" object as keys: "L file:line", "B file:branch:side".
static std::vector<std::string> coverageKeys(const nlohmann::json &cov) {
  std::vector<std::string> keys;
  const nlohmann::json none = nlohmann::json::object(), &ls = cov.contains("l") ? cov["l"] : none,
                       &bs = cov.contains("b") ? cov["b"] : none;
  for (const auto &[file, lines] : ls.items())
    for (const auto &l : lines) keys.push_back("L " + file + ":" + std::to_string(l.get<int64_t>()));
  for (const auto &[file, edges] : bs.items())
    for (const auto &e : edges) {
      int64_t v = e.get<int64_t>();
      keys.push_back("B " + file + ":" + std::to_string(v / 2) + ":" + std::to_string(v % 2));
    }
  return keys;
}

static std::string toBytes(const at::Tensor &t) {
  auto c = t.contiguous();
  return std::string(static_cast<const char *>(c.data_ptr()), c.numel() * c.element_size());
}

/// A crash whose stderr says the allocator gave up is an out-of-memory death.
static bool diedOfMemory(const WorkerReply &rep) {
  for (const char *s : {"std::bad_alloc", "MemoryError", "out of memory", "can't allocate memory"})
    if (rep.stderrTail.find(s) != std::string::npos) return true;
  return false;
}

Outcome TorchBackend::request(const Case &c, const std::vector<const std::vector<at::Tensor> *> &calls, RunMode mode,
                              const nlohmann::json &extra, nlohmann::json *header) {
  auto seconds = [](std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
  };
  auto tEmit = std::chrono::steady_clock::now();
  // BatchedForward: the forward mode's request (no derivative), on the same worker.
  ExecConfig exec = exec_;
  if (mode == RunMode::BatchedForward) exec.grad = Grad::None;
  const bool batched = mode == RunMode::Batched || mode == RunMode::BatchedForward;
  nlohmann::json req = {{"v", kProtocolVersion}, {"op", "run"}, {"id", nextId_++}, {"source", emitModule(c, exec.api, exec.grad)},
                        {"mode", batched ? "batched" : mode == RunMode::PerExample ? "unbatched" : "unbatched-func"},
                        {"exec", exec.toJson()}, {"entry", entryPoint(exec_, mode).toJson()}};
  if (worker_->coverage()) req["coverage"] = worker_->coverageNewOnly() ? nlohmann::json("new") : nlohmann::json(true);
  if (batched && !swapped_.empty()) req["swap"] = swapped_;
  if (extra.is_object()) req.update(extra);
  req["tensors"] = nlohmann::json::array();
  req["calls"] = nlohmann::json::array();
  std::vector<std::string> blobs;
  for (const auto *inputs : calls) {
    req["calls"].push_back(inputs->size());
    for (const auto &t : *inputs) {
      std::vector<int64_t> shape(t.sizes().begin(), t.sizes().end());
      req["tensors"].push_back({{"dtype", std::string(dtypeName(fromScalarType(t.scalar_type())))}, {"shape", shape}});
      blobs.push_back(toBytes(t));
    }
  }
  Outcome o;
  o.emitSeconds = seconds(tEmit);
  auto tReq = std::chrono::steady_clock::now();
  WorkerReply rep = worker_->request(req, blobs);
  double roundTrip = seconds(tReq);
  if (rep.kind != WorkerReply::Kind::Ok) {
    o.status = rep.kind == WorkerReply::Kind::TimedOut ? Outcome::Status::Hang
               : diedOfMemory(rep)                     ? Outcome::Status::Oom
                                                       : Outcome::Status::Crash;
    o.errorMessage = "worker " + rep.how;
    o.traceback = rep.stderrTail;
    // The worker was running the program until it hung past its deadline or died: torch's time,
    // so the phase table accounts for it.
    o.systemSeconds = roundTrip;
    return o;
  }
  if (header) *header = rep.header;
  o.systemSeconds = rep.header.value("torch_s", 0.0);
  double handled = rep.header.value("worker_s", o.systemSeconds);
  o.workerSeconds = std::max(0.0, handled - o.systemSeconds);
  o.transportSeconds = std::max(0.0, roundTrip - handled);
  o.workerRssKb = rep.header.value("rss_kb", int64_t{0});
  if (rep.header.contains("cov")) o.pyCoverage = coverageKeys(rep.header["cov"]);
  // After a CUDA error or running out of memory the process may be unusable: replace it.
  if (rep.header.value("recycle", false)) worker_->stop();
  if (rep.header.value("status", "") != "ok") {
    const auto &e = rep.header["error"];
    o.status = e.value("oom", false)                  ? Outcome::Status::Oom
               : e.value("stage", "program") == "worker" ? Outcome::Status::HarnessError
                                                          : Outcome::Status::Error;
    o.torchLacks = e.value("stage", "") == "import";
    o.errorType = e.value("type", "?");
    o.errorMessage = e.value("message", "");
    o.traceback = e.value("traceback", "");
    o.raisingPass = e.contains("raising_pass") && e["raising_pass"].is_string() ? e["raising_pass"].get<std::string>() : "";
    o.failedCall = e.value("call", 0);
    o.afterSaveLoad = e.value("after", "") == "save/load";
    return o;
  }
  const auto &metas = rep.header["tensors"];
  std::vector<int64_t> perCall = rep.header.value("calls", std::vector<int64_t>{static_cast<int64_t>(metas.size())});
  for (size_t i = 0; i < metas.size(); ++i) {
    auto dt = parseDType(metas[i]["dtype"].get<std::string>());
    std::vector<int64_t> shape = metas[i]["shape"].get<std::vector<int64_t>>();
    auto t = at::empty(shape, at::TensorOptions().dtype(toScalarType(*dt)));
    if (t.numel()) std::memcpy(t.data_ptr(), rep.blobs[i].data(), rep.blobs[i].size());
    (static_cast<int64_t>(i) < perCall[0] ? o.outputs : o.againOutputs).push_back(t);
  }
  return o;
}

Outcome TorchBackend::run(const Case &c, const std::vector<at::Tensor> &inputs, RunMode mode) {
  return request(c, {&inputs}, mode);
}

std::vector<std::string> TorchBackend::components(const Case &c, const std::vector<at::Tensor> &inputs) {
  nlohmann::json header;
  request(c, {&inputs}, RunMode::Batched, {{"record_ops", true}}, &header);
  if (!header.contains("components") || !header["components"].is_array()) return {};
  return header["components"].get<std::vector<std::string>>();
}

Outcome TorchBackend::runTwice(const Case &c, const std::vector<at::Tensor> &inputs, const Case &again,
                               const std::vector<at::Tensor> &againInputs) {
  // One module serves both calls: the emitted program does not depend on the batch size.
  return request(c, {&inputs, &againInputs}, RunMode::Batched);
}

} // namespace vf
