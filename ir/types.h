#pragma once
/// Value types of the program model: a dtype and a per-example shape (no batch dims).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace vf {

/// The dtypes a program value may have.
enum class DType { f32, f64, f16, bf16, i64, i32, b8 };

/// Text name of a dtype as used by the text format ("f32", "i64", "bool", ...).
std::string_view dtypeName(DType d);
/// Parses a text dtype name; nullopt when unknown.
std::optional<DType> parseDType(std::string_view s);
/// The torch spelling, e.g. "torch.float32".
std::string_view torchDTypeName(DType d);
/// Bytes per element.
int dtypeSize(DType d);
bool isFloating(DType d);
bool isIntegral(DType d); ///< integer dtypes, not bool

using Shape = std::vector<int64_t>;

/// The type of one value for one example.
struct Type {
  DType dtype = DType::f32;
  Shape shape;

  int64_t rank() const { return static_cast<int64_t>(shape.size()); }
  int64_t numel() const;
  bool operator==(const Type &) const = default;
};

/// "f32[3,4]"; a 0-d tensor prints as "f32[]".
std::string typeToString(const Type &t);

/// Wraps a possibly negative dim into [0, rank); nullopt when out of range.
std::optional<int64_t> wrapDim(int64_t dim, int64_t rank);

/// Broadcast of two shapes by numpy rules; nullopt when incompatible.
std::optional<Shape> broadcastShapes(const Shape &a, const Shape &b);

/// Type promotion of two dtypes following torch's rules for tensors of equal category priority.
DType promoteTypes(DType a, DType b);

/// torch.result_type of two tensors: a 0-d tensor only decides the dtype when its category
/// (bool < integer < floating) is higher than the other's.
DType resultType(const Type &a, const Type &b);

} // namespace vf
