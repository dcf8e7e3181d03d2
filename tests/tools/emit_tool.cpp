// A test-only tool that prints the module the torch backend emits for a case file, as
// `vmapfuzz emit --mode MODE FILE` prints it, linked from the emitter's layers alone (no
// generators, campaign or CLI), so that two builds of the emitter can be compared without
// building all of vmapfuzz (bench/emit-identical.sh's EMIT_BINARY):
//
//   vmapfuzz_emit_tool emit --mode MODE FILE          the module, on stdout
//   vmapfuzz_emit_tool emit --mode MODE FILE FILE...  each file's module beside it, as
//                                                     FILE.MODE.py (FILE.MODE.err when it fails):
//                                                     one process for many cases
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "harness/backends/torch/python_emit.h"
#include "ir/text.h"

namespace {

/// The module of `file` in mode `ex` to `out`; false (the reason on `err`) when it fails.
bool emitFile(const std::string &file, const vf::ExecConfig &ex, std::ostream &out, std::ostream &err) {
  std::ifstream in(file);
  std::stringstream text;
  text << in.rdbuf();
  try {
    if (!in) throw std::runtime_error("cannot read the file");
    out << vf::emitModule(vf::parseCase(text.str()), ex.api, ex.grad);
    return true;
  } catch (const std::exception &e) {
    err << "vmapfuzz_emit_tool: " << file << ": " << e.what() << "\n";
    return false;
  }
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 5 || std::string(argv[1]) != "emit" || std::string(argv[2]) != "--mode") {
    std::cerr << "usage: vmapfuzz_emit_tool emit --mode MODE FILE [FILE...]\n";
    return 2;
  }
  const std::string mode = argv[3];
  auto ex = vf::parseMode(mode);
  if (!ex) {
    std::cerr << "vmapfuzz_emit_tool: unknown mode " << mode << "\n";
    return 2;
  }
  if (argc == 5) return emitFile(argv[4], *ex, std::cout, std::cerr) ? 0 : 1;
  for (int i = 4; i < argc; ++i) {
    std::ostringstream out, err;
    const bool ok = emitFile(argv[i], *ex, out, err);
    std::ofstream(std::string(argv[i]) + "." + mode + (ok ? ".py" : ".err")) << (ok ? out.str() : err.str());
  }
  return 0;
}
