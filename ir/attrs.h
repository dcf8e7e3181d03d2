#pragma once
/// Static attributes of a statement: `{dim=1, keepdim=true, dims=[1,0], value=0.5}`.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace vf {

using IntList = std::vector<int64_t>;
/// An entry of an IntList that is Python's None (a vmap construct's in_dims: an operand not
/// mapped): `None` in the text format and in Python.
inline constexpr int64_t kNoneDim = INT64_MIN;
using Attr = std::variant<int64_t, double, bool, IntList>;

/// Attributes in declaration order of the op (the printer keeps that order).
struct Attrs {
  std::vector<std::pair<std::string, Attr>> items;

  const Attr *find(const std::string &name) const;
  int64_t getInt(const std::string &name) const;   ///< throws std::out_of_range when absent
  double getFloat(const std::string &name) const;  ///< accepts an int attr too
  bool getBool(const std::string &name) const;
  IntList getInts(const std::string &name) const;
  void set(const std::string &name, Attr a);
  bool operator==(const Attrs &) const = default;
};

/// Text form of an attribute value: `3`, `-1`, `0.5`, `true`, `[1,0]`. Floats always carry a
/// '.' or exponent so they parse back as floats, and print the shortest round-tripping digits.
std::string attrToText(const Attr &a);
/// Python form: `3`, `0.5`, `True`, `[1, 0]`.
std::string attrToPython(const Attr &a);

} // namespace vf
