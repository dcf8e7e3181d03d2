#include "ir/differentiable.h"

namespace vf {

std::vector<size_t> gradInputs(const Program &p) {
  std::vector<size_t> out;
  for (size_t i = 0; i < p.body.params.size(); ++i)
    if (isFloating(p.body.params[i].type.dtype)) out.push_back(i);
  return out;
}

std::vector<size_t> gradOutputs(const Program &p) {
  std::vector<size_t> out;
  auto types = outputTypes(p);
  for (size_t i = 0; i < types.size(); ++i)
    if (isFloating(types[i].dtype)) out.push_back(i);
  return out;
}

} // namespace vf
