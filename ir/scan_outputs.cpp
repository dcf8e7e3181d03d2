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

namespace vf {

Stmt buffersAsCarries(const Stmt &scan) {
  const size_t k = static_cast<size_t>(scan.attrs.getInt("ncarry"));
  const Attr *nb = scan.attrs.find("nbuf");
  const size_t m = nb ? static_cast<size_t>(std::get<int64_t>(*nb)) : 0;
  if (m == 0) return scan;
  // Moves the last m of `v` to just after its first k.
  auto moved = [&](const auto &v) {
    auto out = v;
    if (v.size() < k + m) return out;
    std::copy(v.begin(), v.begin() + k, out.begin());
    std::copy(v.end() - m, v.end(), out.begin() + k);
    std::copy(v.begin() + k, v.end() - m, out.begin() + k + m);
    return out;
  };
  Stmt s;
  s.op = scan.op;
  s.args = moved(scan.args);
  s.results = moved(scan.results);
  for (const auto &[name, a] : scan.attrs.items)
    if (name != "nbuf") s.attrs.set(name, name == "ncarry" ? Attr{static_cast<int64_t>(k + m)} : a);
  for (const auto &r : scan.regions) {
    Block b = r;
    b.params = moved(r.params);
    b.yields = moved(r.yields);
    s.regions.push_back(std::move(b));
  }
  return s;
}

} // namespace vf
