#include "ir/scan_outputs.h"

#include <algorithm>

#include "ir/scalar_type.h"

namespace vf {

std::vector<at::Tensor> stackScanOutputs(const Stmt &scan, std::vector<std::vector<at::Tensor>> ys) {
  const size_t k = static_cast<size_t>(scan.attrs.getInt("ncarry"));
  const bool reverse = scan.attrs.getBool("reverse");
  std::vector<at::Tensor> out;
  for (size_t y = 0; y < ys.size(); ++y) {
    if (reverse) std::reverse(ys[y].begin(), ys[y].end());
    if (ys[y].empty()) {
      const Type &t = scan.results.at(k + y).type;
      out.push_back(at::empty(t.shape, at::TensorOptions().dtype(toScalarType(t.dtype))));
    } else {
      out.push_back(at::stack(ys[y], 0));
    }
  }
  return out;
}

} // namespace vf
