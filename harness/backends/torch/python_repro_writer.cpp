// The torch backend's ReproWriter: a finding's program.py and repro.py, and the preloaded files
// repro.py runs first (copied into preload/ beside it).
#include "harness/backends/torch/python_emit.h"

namespace vf {
namespace {

class PythonReproWriter final : public ReproWriter {
public:
  std::string language() const override { return "python"; }
  std::string program(const Case &c, const SystemId &system) const override {
    return emitModule(c, system.exec.api, system.grad());
  }
  std::string scriptName() const override { return "repro.py"; }

  std::vector<ReproFile> files(const Case &c, const SystemId &system, const ReproMaterial &m,
                               const std::string &header) const override {
    ReproOptions ro;
    ro.exec = system.exec;
    ro.preloads = preloadsOf(m.environment);
    ro.again = m.again;
    ro.againInputs = m.againInputs;
    ro.cotangents = m.cotangents;
    ro.againCotangents = m.againCotangents;
    std::vector<ReproFile> out = {{"program.py", program(c, system), ""}, {scriptName(), emitRepro(c, m.inputs, header, ro), ""}};
    auto names = preloadFileNames(ro.preloads);
    for (size_t i = 0; i < ro.preloads.size(); ++i) out.push_back({"preload/" + names[i], "", ro.preloads[i].path});
    return out;
  }

  std::vector<std::string> environmentLines(const nlohmann::json &environment) const override {
    std::vector<std::string> lines;
    for (const auto &p : preloadsOf(environment))
      lines.push_back("preloaded before the case (`--preload`; repro.py runs it from `preload/`): `" + p.path + "`, sha256 `" +
                      p.sha256 + "`");
    return lines;
  }
};

} // namespace

const ReproWriter &pythonReproWriter() {
  static const PythonReproWriter writer;
  return writer;
}

} // namespace vf
