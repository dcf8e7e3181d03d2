#include "ir/types.h"

#include <algorithm>
#include <array>
#include <sstream>

namespace vf {

namespace {
struct DTypeInfo {
  DType d;
  std::string_view name;
  std::string_view torch;
  int size;
};
constexpr std::array<DTypeInfo, 7> kDTypes{{
    {DType::f32, "f32", "torch.float32", 4},
    {DType::f64, "f64", "torch.float64", 8},
    {DType::f16, "f16", "torch.float16", 2},
    {DType::bf16, "bf16", "torch.bfloat16", 2},
    {DType::i64, "i64", "torch.int64", 8},
    {DType::i32, "i32", "torch.int32", 4},
    {DType::b8, "bool", "torch.bool", 1},
}};
const DTypeInfo &info(DType d) { return kDTypes[static_cast<size_t>(d)]; }
} // namespace

std::string_view dtypeName(DType d) { return info(d).name; }
std::string_view torchDTypeName(DType d) { return info(d).torch; }
int dtypeSize(DType d) { return info(d).size; }

std::optional<DType> parseDType(std::string_view s) {
  for (const auto &i : kDTypes)
    if (i.name == s) return i.d;
  return std::nullopt;
}

bool isFloating(DType d) {
  return d == DType::f32 || d == DType::f64 || d == DType::f16 || d == DType::bf16;
}
bool isIntegral(DType d) { return d == DType::i64 || d == DType::i32; }

int64_t Type::numel() const {
  int64_t n = 1;
  for (auto s : shape) n *= s;
  return n;
}

std::string typeToString(const Type &t) {
  std::ostringstream os;
  os << dtypeName(t.dtype) << '[';
  for (size_t i = 0; i < t.shape.size(); ++i) os << (i ? "," : "") << t.shape[i];
  os << ']';
  return os.str();
}

std::optional<int64_t> wrapDim(int64_t dim, int64_t rank) {
  int64_t r = std::max<int64_t>(rank, 1); // torch lets 0-d tensors use dim 0 / -1
  if (dim < -r || dim >= r) return std::nullopt;
  return dim < 0 ? dim + r : dim;
}

std::optional<Shape> broadcastShapes(const Shape &a, const Shape &b) {
  size_t n = std::max(a.size(), b.size());
  Shape out(n);
  for (size_t i = 0; i < n; ++i) {
    int64_t da = i < n - a.size() ? 1 : a[i - (n - a.size())];
    int64_t db = i < n - b.size() ? 1 : b[i - (n - b.size())];
    if (da != db && da != 1 && db != 1) return std::nullopt;
    out[i] = da == 1 ? db : da;
  }
  return out;
}

DType promoteTypes(DType a, DType b) {
  if (a == b) return a;
  auto rank = [](DType d) {
    switch (d) {
    case DType::b8: return 0;
    case DType::i32: return 1;
    case DType::i64: return 2;
    case DType::bf16: return 3;
    case DType::f16: return 3;
    case DType::f32: return 4;
    case DType::f64: return 5;
    }
    return 0;
  };
  // f16 with bf16 promotes to f32, as in torch.
  if ((a == DType::f16 && b == DType::bf16) || (a == DType::bf16 && b == DType::f16)) return DType::f32;
  return rank(a) >= rank(b) ? a : b;
}

DType resultType(const Type &a, const Type &b) {
  auto category = [](DType d) { return d == DType::b8 ? 0 : isIntegral(d) ? 1 : 2; };
  bool za = a.rank() == 0, zb = b.rank() == 0;
  if (za != zb) {
    const Type &dimmed = za ? b : a, &zero = za ? a : b;
    if (category(zero.dtype) > category(dimmed.dtype)) return zero.dtype;
    return dimmed.dtype;
  }
  return promoteTypes(a.dtype, b.dtype);
}

} // namespace vf
