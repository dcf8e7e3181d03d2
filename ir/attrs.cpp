#include "ir/attrs.h"

#include <charconv>
#include <cmath>
#include <stdexcept>

namespace vf {

const Attr *Attrs::find(const std::string &name) const {
  for (const auto &[k, v] : items)
    if (k == name) return &v;
  return nullptr;
}

static const Attr &need(const Attrs &a, const std::string &name) {
  const Attr *p = a.find(name);
  if (!p) throw std::out_of_range("missing attribute '" + name + "'");
  return *p;
}

int64_t Attrs::getInt(const std::string &name) const { return std::get<int64_t>(need(*this, name)); }
double Attrs::getFloat(const std::string &name) const {
  const Attr &a = need(*this, name);
  if (auto *i = std::get_if<int64_t>(&a)) return static_cast<double>(*i);
  return std::get<double>(a);
}
bool Attrs::getBool(const std::string &name) const { return std::get<bool>(need(*this, name)); }
IntList Attrs::getInts(const std::string &name) const { return std::get<IntList>(need(*this, name)); }

void Attrs::set(const std::string &name, Attr a) {
  for (auto &[k, v] : items)
    if (k == name) {
      v = std::move(a);
      return;
    }
  items.emplace_back(name, std::move(a));
}

static std::string floatText(double d) {
  if (std::isnan(d)) return "nan";
  if (std::isinf(d)) return d > 0 ? "inf" : "-inf";
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, d);
  std::string s(buf, end);
  if (s.find_first_of(".eE") == std::string::npos) s += ".0";
  return s;
}

static std::string listText(const IntList &l, const char *sep) {
  std::string s = "[";
  for (size_t i = 0; i < l.size(); ++i) s += (i ? sep : "") + (l[i] == kNoneDim ? std::string("None") : std::to_string(l[i]));
  return s + "]";
}

std::string attrToText(const Attr &a) {
  if (auto *i = std::get_if<int64_t>(&a)) return std::to_string(*i);
  if (auto *d = std::get_if<double>(&a)) return floatText(*d);
  if (auto *b = std::get_if<bool>(&a)) return *b ? "true" : "false";
  return listText(std::get<IntList>(a), ",");
}

std::string attrToPython(const Attr &a) {
  if (auto *d = std::get_if<double>(&a)) {
    if (std::isnan(*d)) return "float('nan')";
    if (std::isinf(*d)) return *d > 0 ? "float('inf')" : "float('-inf')";
    return floatText(*d);
  }
  if (auto *b = std::get_if<bool>(&a)) return *b ? "True" : "False";
  if (auto *l = std::get_if<IntList>(&a)) return listText(*l, ", ");
  return attrToText(a);
}

} // namespace vf
