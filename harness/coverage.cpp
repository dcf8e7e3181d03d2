#include "harness/coverage.h"

#include <functional>
#include <set>

namespace vf {

namespace {

void walk(const Block &b, std::set<ValueId> visible, int depth, std::set<std::string> &f) {
  for (const auto &p : b.params) visible.insert(p.id);
  for (const auto &s : b.stmts) {
    if (!s.regions.empty()) {
      f.insert(s.op);
      if (s.results.size() > 1) f.insert(s.op + "-multi-output");
      if (depth >= 1) f.insert("nested-construct");
      if (s.op == "cond" && s.attrs.find("pred")) f.insert("cond-python-bool");
      else if (s.args.size() == 1 && s.op == "cond") f.insert("cond-no-operands");
      for (const auto &r : s.regions) {
        std::set<ValueId> own;
        for (const auto &p : r.params) own.insert(p.id);
        std::function<void(const Block &)> uses = [&](const Block &rb) {
          for (const auto &st : rb.stmts) {
            for (auto a : st.args)
              if (!own.count(a) && visible.count(a)) f.insert("capture");
            for (const auto &d : st.results) own.insert(d.id);
            for (const auto &sub : st.regions) {
              for (const auto &p : sub.params) own.insert(p.id);
              uses(sub);
            }
          }
          for (auto y : rb.yields)
            if (!own.count(y) && visible.count(y)) f.insert("capture");
        };
        uses(r);
        walk(r, visible, depth + 1, f);
      }
    }
    for (const auto &d : s.results) visible.insert(d.id);
  }
}

} // namespace

std::vector<std::string> featuresOf(const Case &c) {
  std::set<std::string> f;
  walk(c.program.body, {}, 0, f);
  f.insert("vmap-levels=" + std::to_string(c.spec.levels.size()));
  for (const auto &l : c.spec.levels) {
    if (l.size == 1) f.insert("batch=1");
    if (l.chunk_size) f.insert("chunk_size");
    for (const auto &d : l.in_dims) f.insert(!d ? "in_dims=None" : *d < 0 ? "in_dims<0" : *d > 0 ? "in_dims>0" : "in_dims=0");
    for (auto d : l.out_dims) f.insert(d < 0 ? "out_dims<0" : d > 0 ? "out_dims>0" : "out_dims=0");
  }
  for (const auto &p : c.program.body.params)
    if (p.type.rank() == 0) f.insert("0-d input");
  return {f.begin(), f.end()};
}

const std::vector<std::string> &Coverage::rows() {
  static const std::vector<std::string> r = {
      "cond", "cond-multi-output", "cond-no-operands", "cond-python-bool", "switch", "while_loop", "scan", "nested-construct", "capture", "vmap-levels=1",
      "vmap-levels=2", "batch=1", "chunk_size", "in_dims=None", "in_dims=0", "in_dims>0", "in_dims<0",
      "out_dims=0", "out_dims>0", "out_dims<0", "0-d input"};
  return r;
}

void Coverage::add(const Case &c) {
  for (const auto &f : featuresOf(c)) counts_[f]++;
}

std::string Coverage::brief() const {
  static const std::vector<std::pair<std::string, std::string>> shown = {
      {"cond", "cond"}, {"switch", "switch"}, {"while_loop", "while"}, {"scan", "scan"}, {"nested-construct", "nested"}, {"capture", "capture"},
      {"vmap-levels=2", "vmap2"}, {"in_dims<0", "neg-dim"}, {"in_dims=None", "none-dim"}, {"chunk_size", "chunk"}};
  std::string s;
  for (const auto &[k, label] : shown) {
    auto it = counts_.find(k);
    s += (s.empty() ? "" : " ") + label + ":" + std::to_string(it == counts_.end() ? 0 : it->second);
  }
  return s;
}

} // namespace vf
