#include "harness/backends/exec_config.h"

#include <sstream>
#include <stdexcept>

namespace vf {

const std::vector<GradModeInfo> &gradModes() {
  static const std::vector<GradModeInfo> modes = {
      {Grad::None, "", "forward values"},
      {Grad::OfVmap, "+grad", "gradients: torch.autograd.grad of the vmapped program, random cotangents"},
      {Grad::VmapOf, "+vmap-grad", "per-sample gradients: torch.vmap of torch.func.vjp of the program"},
      {Grad::Jvp, "+jvp", "forward mode: torch.func.jvp of the vmapped program, random tangents"},
  };
  return modes;
}

namespace {

const GradModeInfo &gradInfo(Grad g) {
  for (const auto &m : gradModes())
    if (m.grad == g) return m;
  return gradModes().front();
}

} // namespace

std::string ExecConfig::modeName() const {
  std::string n;
  if (direct()) n = "direct";
  else if (!compiled()) n = "eager";
  else if (precompile) n = "precompile-" + compiler;
  else {
    n = "compile-" + compiler;
    if (dynamic) n += *dynamic ? "-dynamic" : "-static";
  }
  return n + gradInfo(grad).suffix;
}

nlohmann::json ExecConfig::toJson() const {
  nlohmann::json j = {{"device", device}, {"compile", nullptr}, {"dynamic", nullptr}};
  if (compiled()) j["compile"] = compiler;
  if (dynamic) j["dynamic"] = *dynamic;
  j["api"] = direct() ? "direct" : "public";
  if (precompile) j["precompile"] = true;
  // Absent for forward values: a forward request is byte-for-byte what it was.
  if (grad == Grad::OfVmap) j["grad"] = "of-vmap";
  if (grad == Grad::VmapOf) j["grad"] = "vmap-of";
  if (grad == Grad::Jvp) j["grad"] = "jvp";
  return j;
}

const std::vector<std::string> &knownModes() {
  static const std::vector<std::string> modes = [] {
    std::vector<std::string> base = {"direct", "eager"};
    for (const char *c : {"eager", "aot_eager", "inductor"})
      for (const char *s : {"", "-dynamic", "-static"}) base.push_back(std::string("compile-") + c + s);
    std::vector<std::string> m;
    for (const auto &g : gradModes())
      for (const auto &b : base) m.push_back(b + g.suffix);
    // Precompile modes compare forward values only.
    for (const char *c : {"eager", "aot_eager", "inductor"}) m.push_back(std::string("precompile-") + c);
    return m;
  }();
  return modes;
}

std::optional<ExecConfig> parseMode(const std::string &full) {
  for (const auto &m : knownModes()) {
    if (m != full) continue;
    ExecConfig e;
    std::string name = full;
    size_t plus = name.find('+');
    if (plus != std::string::npos) {
      for (const auto &g : gradModes())
        if (name.substr(plus) == g.suffix) e.grad = g.grad;
      name = name.substr(0, plus);
    }
    if (name == "eager") return e;
    if (name == "direct") {
      e.api = Api::Direct;
      return e;
    }
    if (name.rfind("precompile-", 0) == 0) {
      e.precompile = true;
      e.compiler = name.substr(11);
      return e;
    }
    std::string rest = name.substr(8); // after "compile-"
    for (const char *suffix : {"-dynamic", "-static"}) {
      std::string s = suffix;
      if (rest.size() > s.size() && rest.compare(rest.size() - s.size(), s.size(), s) == 0) {
        e.dynamic = s == "-dynamic";
        rest = rest.substr(0, rest.size() - s.size());
      }
    }
    e.compiler = rest;
    return e;
  }
  return std::nullopt;
}

std::vector<ExecConfig> parseModes(const std::string &list) {
  std::vector<ExecConfig> out;
  std::vector<std::string> items;
  for (size_t at = 0;;) {
    size_t comma = list.find(',', at);
    items.push_back(list.substr(at, comma == std::string::npos ? std::string::npos : comma - at));
    if (comma == std::string::npos) break;
    at = comma + 1;
  }
  for (const auto &item : items) {
    auto e = parseMode(item);
    if (!e) {
      std::string known;
      for (const auto &m : knownModes()) known += (known.empty() ? "" : ", ") + m;
      throw std::invalid_argument("unknown mode '" + item + "' (known: " + known + ")");
    }
    for (const auto &o : out)
      if (o.modeName() == e->modeName()) throw std::invalid_argument("mode '" + item + "' given twice");
    out.push_back(*e);
  }
  return out;
}

} // namespace vf
