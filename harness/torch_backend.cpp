#include "harness/torch_backend.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include "generators/data.h"
#include "harness/python_emit.h"

namespace vf {

std::string defaultWorkerScript() {
  if (const char *e = std::getenv("VMAPFUZZ_WORKER")) return e;
  return VMAPFUZZ_SOURCE_DIR "/harness/worker/vmapfuzz_worker.py";
}

TorchBackend::TorchBackend(WorkerConfig cfg) : worker_(std::move(cfg)) {}

nlohmann::json TorchBackend::hello() {
  auto rep = worker_.request({{"v", 1}, {"op", "hello"}}, {});
  if (rep.kind != WorkerReply::Kind::Ok)
    throw std::runtime_error("the torch worker did not start (" + rep.how + "): " + rep.stderrTail);
  if (rep.header.value("status", "") != "ok")
    throw std::runtime_error("python cannot import torch: " + rep.header["error"].value("message", "?"));
  return rep.header;
}

static std::string toBytes(const at::Tensor &t) {
  auto c = t.contiguous();
  return std::string(static_cast<const char *>(c.data_ptr()), c.numel() * c.element_size());
}

Outcome TorchBackend::run(const Case &c, const std::vector<at::Tensor> &inputs, RunMode mode) {
  auto seconds = [](std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
  };
  auto tEmit = std::chrono::steady_clock::now();
  nlohmann::json req = {{"v", 1}, {"op", "run"}, {"id", nextId_++}, {"source", emitModule(c)},
                        {"mode", mode == RunMode::Batched ? "batched" : "unbatched"}};
  req["tensors"] = nlohmann::json::array();
  std::vector<std::string> blobs;
  for (const auto &t : inputs) {
    std::vector<int64_t> shape(t.sizes().begin(), t.sizes().end());
    req["tensors"].push_back({{"dtype", std::string(dtypeName(fromScalarType(t.scalar_type())))}, {"shape", shape}});
    blobs.push_back(toBytes(t));
  }
  Outcome o;
  o.emitSeconds = seconds(tEmit);
  auto tReq = std::chrono::steady_clock::now();
  WorkerReply rep = worker_.request(req, blobs);
  double roundTrip = seconds(tReq);
  if (rep.kind != WorkerReply::Kind::Ok) {
    o.status = rep.kind == WorkerReply::Kind::TimedOut ? Outcome::Status::Hang : Outcome::Status::Crash;
    o.errorMessage = "worker " + rep.how;
    o.traceback = rep.stderrTail;
    return o;
  }
  o.systemSeconds = rep.header.value("torch_s", 0.0);
  double handled = rep.header.value("worker_s", o.systemSeconds);
  o.workerSeconds = std::max(0.0, handled - o.systemSeconds);
  o.transportSeconds = std::max(0.0, roundTrip - handled);
  o.workerRssKb = rep.header.value("rss_kb", int64_t{0});
  if (rep.header.value("status", "") != "ok") {
    o.status = Outcome::Status::Error;
    const auto &e = rep.header["error"];
    o.errorType = e.value("type", "?");
    o.errorMessage = e.value("message", "");
    o.traceback = e.value("traceback", "");
    return o;
  }
  const auto &metas = rep.header["tensors"];
  for (size_t i = 0; i < metas.size(); ++i) {
    auto dt = parseDType(metas[i]["dtype"].get<std::string>());
    std::vector<int64_t> shape = metas[i]["shape"].get<std::vector<int64_t>>();
    auto t = at::empty(shape, at::TensorOptions().dtype(toScalarType(*dt)));
    if (t.numel()) std::memcpy(t.data_ptr(), rep.blobs[i].data(), rep.blobs[i].size());
    o.outputs.push_back(t);
  }
  return o;
}

} // namespace vf
