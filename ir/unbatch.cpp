#include "ir/unbatch.h"

namespace vf {
namespace {

std::vector<at::Tensor> unbatchLevel(const std::vector<VmapLevel> &levels, size_t li, const std::vector<at::Tensor> &inputs,
                                     const std::function<std::vector<at::Tensor>(const std::vector<at::Tensor> &)> &f) {
  if (li == levels.size()) return f(inputs);
  const VmapLevel &l = levels[li];
  std::vector<std::vector<at::Tensor>> perB;
  for (int64_t b = 0; b < l.size; ++b) {
    std::vector<at::Tensor> sliced;
    for (size_t i = 0; i < inputs.size(); ++i)
      sliced.push_back(l.in_dims[i] ? inputs[i].select(*l.in_dims[i], b) : inputs[i]);
    perB.push_back(unbatchLevel(levels, li + 1, sliced, f));
  }
  std::vector<at::Tensor> out;
  for (size_t o = 0; o < l.out_dims.size(); ++o) {
    std::vector<at::Tensor> parts;
    for (auto &r : perB) parts.push_back(r.at(o));
    out.push_back(at::stack(parts, l.out_dims[o]));
  }
  return out;
}

} // namespace

std::vector<at::Tensor> unbatch(const std::vector<VmapLevel> &levels, const std::vector<at::Tensor> &inputs,
                                const std::function<std::vector<at::Tensor>(const std::vector<at::Tensor> &)> &f) {
  return unbatchLevel(levels, 0, inputs, f);
}

} // namespace vf
