#include "ir/op_registry.h"

#include <algorithm>
#include <numeric>

namespace vf {

const OpDef *findOp(const std::string &name) {
  for (const auto &op : allOps())
    if (op.name == name) return &op;
  return nullptr;
}

std::string checkAttrs(const OpDef &op, const std::vector<Type> &args, const Attrs &attrs) {
  for (const auto &[k, v] : attrs.items) {
    bool declared = std::any_of(op.attrs.begin(), op.attrs.end(), [&](auto &s) { return s.name == k; });
    if (!declared) return "op '" + op.name + "' has no attribute '" + k + "'";
  }
  int64_t r = args.empty() ? 0 : args[0].rank();
  for (const auto &spec : op.attrs) {
    const Attr *a = attrs.find(spec.name);
    if (!a) return "op '" + op.name + "' needs attribute '" + spec.name + "'";
    auto bad = [&](const std::string &why) { return "attribute " + spec.name + "=" + attrToText(*a) + " of '" + op.name + "': " + why; };
    switch (spec.domain) {
    case AttrDomain::Dim:
    case AttrDomain::NewDim: {
      auto *i = std::get_if<int64_t>(a);
      if (!i) return bad("expected an integer dim");
      int64_t n = spec.domain == AttrDomain::Dim ? r : r + 1;
      if (!wrapDim(*i, n)) return bad("dim out of range for rank " + std::to_string(r));
      break;
    }
    case AttrDomain::Perm: {
      auto *l = std::get_if<IntList>(a);
      if (!l) return bad("expected a list of dims");
      if (static_cast<int64_t>(l->size()) != r) return bad("permutation needs " + std::to_string(r) + " dims");
      std::vector<bool> seen(r, false);
      for (auto d : *l) {
        auto w = wrapDim(d, r);
        if (!w || seen[*w]) return bad("not a permutation");
        seen[*w] = true;
      }
      break;
    }
    case AttrDomain::Bool:
      if (!std::holds_alternative<bool>(*a)) return bad("expected true or false");
      break;
    case AttrDomain::Scalar:
      if (!std::holds_alternative<double>(*a) && !std::holds_alternative<int64_t>(*a)) return bad("expected a number");
      break;
    case AttrDomain::Shape: {
      auto *l = std::get_if<IntList>(a);
      if (!l) return bad("expected a shape");
      int64_t n = 1;
      for (auto d : *l) {
        if (d < 0) return bad("negative size");
        n *= d;
      }
      if (n != (args.empty() ? 1 : args[0].numel())) return bad("shape has a different number of elements");
      break;
    }
    case AttrDomain::Count:
      if (!std::holds_alternative<int64_t>(*a) || std::get<int64_t>(*a) < 1 || std::get<int64_t>(*a) > 8)
        return bad("expected a count in [1, 8]");
      break;
    case AttrDomain::Index:
    case AttrDomain::SignedIndex:
    case AttrDomain::Indices: {
      const Attr *dimAttr = attrs.find("dim");
      if (!dimAttr || !std::holds_alternative<int64_t>(*dimAttr) || r == 0) return bad("needs a valid dim of a tensor");
      auto d = wrapDim(std::get<int64_t>(*dimAttr), r);
      if (!d) return bad("needs a valid dim");
      int64_t size = args[0].shape[*d];
      IntList idx;
      if (spec.domain != AttrDomain::Indices) {
        if (!std::holds_alternative<int64_t>(*a)) return bad("expected an index");
        idx = {std::get<int64_t>(*a)};
      } else {
        if (!std::holds_alternative<IntList>(*a) || std::get<IntList>(*a).empty()) return bad("expected a list of indices");
        idx = std::get<IntList>(*a);
      }
      int64_t lo = spec.domain == AttrDomain::SignedIndex ? -size : 0;
      for (auto i : idx)
        if (i < lo || i >= size) return bad("index out of range for size " + std::to_string(size));
      break;
    }
    }
  }
  return "";
}

std::string emitPython(const OpDef &op, const std::vector<std::string> &args, const Attrs &attrs) {
  std::string out;
  const std::string &t = op.python;
  for (size_t i = 0; i < t.size(); ++i) {
    if (t[i] != '{') {
      out += t[i];
      continue;
    }
    size_t j = t.find('}', i);
    std::string key = t.substr(i + 1, j - i - 1);
    if (!key.empty() && std::isdigit(static_cast<unsigned char>(key[0])))
      out += args.at(std::stoul(key));
    else
      out += attrToPython(*attrs.find(key));
    i = j;
  }
  return out;
}

} // namespace vf
