#include "harness/backends/system_id.h"

namespace vf {

namespace {

constexpr const char *kLibtorchMode = "libtorch";

/// The torch device a label runs on: a ROCm build of torch is driven through "cuda".
std::optional<std::string> deviceOfLabel(std::string_view label) {
  if (label == "cpu" || label == "cuda") return std::string(label);
  if (label == "rocm") return std::string("cuda");
  return std::nullopt;
}

} // namespace

SystemId SystemId::torch(ExecConfig e, std::string deviceLabel) {
  SystemId s;
  s.device = deviceLabel.empty() ? e.device : std::move(deviceLabel);
  s.exec = std::move(e);
  return s;
}

SystemId SystemId::libtorch(std::string deviceLabel) {
  SystemId s;
  s.backend = BackendKind::Libtorch;
  s.exec.device = deviceOfLabel(deviceLabel).value_or("cpu");
  s.device = std::move(deviceLabel);
  return s;
}

std::optional<SystemId> SystemId::parse(std::string_view text) {
  const size_t bar = text.find('|');
  if (bar == std::string_view::npos) return std::nullopt;
  const std::string_view mode = text.substr(0, bar), label = text.substr(bar + 1);
  auto device = deviceOfLabel(label);
  if (!device) return std::nullopt;
  if (mode == kLibtorchMode) return libtorch(std::string(label));
  auto e = parseMode(std::string(mode));
  if (!e) return std::nullopt;
  e->device = *device;
  return torch(*e, std::string(label));
}

std::string SystemId::modeName() const { return isLibtorch() ? kLibtorchMode : exec.modeName(); }

std::string SystemId::str() const { return modeName() + "|" + device; }

std::string SystemId::display() const { return modeName() + " (" + device + ")"; }

SystemId SystemId::forward() const {
  SystemId s = *this;
  s.exec.grad = Grad::None;
  return s;
}

std::string SystemId::replayFlag() const {
  // vmapfuzz's --mode parser knows every name knownModes() lists, gradient suffixes included.
  return isLibtorch() ? " --backend libtorch" : " --mode " + modeName();
}

} // namespace vf
