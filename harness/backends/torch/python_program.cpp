#include "harness/backends/torch/python_program.h"

#include <functional>

#include "harness/backends/torch/python_emit.h"
#include "ir/constructs.h"
#include "ir/op_registry.h"

namespace vf {

std::set<ValueId> capturedValues(const Stmt &s) {
  std::set<ValueId> own, out;
  std::function<void(const Block &)> walk = [&](const Block &b) {
    for (const auto &p : b.params) own.insert(p.id);
    for (const auto &st : b.stmts) {
      for (auto a : st.args)
        if (!own.count(a)) out.insert(a);
      for (const auto &r : st.results) own.insert(r.id);
      for (const auto &sub : st.regions) walk(sub);
    }
    for (auto y : b.yields)
      if (!own.count(y)) out.insert(y);
  };
  for (const auto &r : s.regions) walk(r);
  return out;
}

std::vector<std::string> contiguous(std::vector<std::string> xs) {
  for (auto &x : xs) x += ".clone(memory_format=torch.contiguous_format)";
  return xs;
}

ProgramEmitter::ProgramEmitter(const Program &p, Api api) : direct_(api == Api::Direct) {
  for (const auto &d : p.body.params) inputs_.insert(d.id);
}

std::string ProgramEmitter::program(const Program &p, bool noGrad) {
  std::vector<std::string> params;
  for (const auto &d : p.body.params) params.push_back(v(d.id));
  if (noGrad) w_.line("@torch.no_grad()");
  w_.block("def " + pyCall("program", params) + ":", [&] { block(p.body, {}); });
  return w_.str();
}

std::string ProgramEmitter::v(ValueId id) const {
  auto r = rename_.find(id);
  return r != rename_.end() ? r->second : (inputs_.count(id) ? "x" : "v") + std::to_string(id);
}

ValueId ProgramEmitter::root(ValueId id) const {
  auto r = root_.find(id);
  return r == root_.end() ? id : r->second;
}

std::vector<std::string> ProgramEmitter::names(const std::vector<ValueId> &ids) const {
  std::vector<std::string> out;
  for (auto id : ids) out.push_back(v(id));
  return out;
}

void ProgramEmitter::block(const Block &b, const BlockOptions &o) {
  std::set<ValueId> own;
  for (const auto &s : b.stmts) {
    stmt(s);
    const OpDef *op = findOp(s.op);
    if (!op || !op->view)
      for (const auto &r : s.results) own.insert(r.id);
  }
  std::vector<std::string> ys;
  std::set<ValueId> returned;
  for (size_t i = 0; i + o.buffers < b.yields.size(); ++i) {
    ValueId y = b.yields[i];
    bool fresh = own.count(y) && returned.insert(y).second;
    bool clone = ys.size() < o.carries || (o.region && !fresh);
    ys.push_back(clone ? contiguous({v(y)})[0] : v(y));
  }
  if (o.ret == Ret::Single) w_.line("return " + ys.at(0));
  else if (o.ret == Ret::CarryAndYs)
    w_.line("return " + pyTuple({ys.begin(), ys.begin() + o.split}) + ", " + pyTuple({ys.begin() + o.split, ys.end()}));
  else w_.line("return " + pyTuple(ys));
}

void ProgramEmitter::function(const RegionFn &r) {
  w_.block("def " + pyCall(r.name, r.params) + ":", [&] {
    for (const auto &l : r.prologue) w_.line(l);
    block(*r.body, r.opt);
  });
}

RegionFn ProgramEmitter::region(std::string name, const Block &b, BlockOptions opt,
                                const std::vector<std::string> &lifted) const {
  opt.region = true;
  std::vector<std::string> params;
  for (const auto &d : b.params) params.push_back(v(d.id));
  params.insert(params.end(), lifted.begin(), lifted.end());
  return {std::move(name), &b, opt, std::move(params), {}};
}

std::vector<ValueId> ProgramEmitter::unalias(const Stmt &s, size_t firstOperand, std::vector<std::string> &operands) {
  std::set<ValueId> seen;
  for (size_t i = firstOperand; i < s.args.size(); ++i)
    if (!seen.insert(root(s.args[i])).second) operands[i] += ".clone()";
  std::vector<ValueId> renamed;
  for (auto c : capturedValues(s)) {
    if (seen.insert(root(c)).second || rename_.count(c)) continue;
    std::string name = v(c) + "_c" + std::to_string(s.results.front().id);
    w_.line(name + " = " + v(c) + ".clone()");
    rename_[c] = name;
    renamed.push_back(c);
  }
  return renamed;
}

void ProgramEmitter::stmt(const Stmt &s) {
  std::vector<std::string> args = names(s.args);
  if (s.regions.empty()) {
    const OpDef *op = findOp(s.op);
    if (op && op->view)
      for (const auto &r : s.results) root_[r.id] = root(s.args.at(0));
    w_.line(v(s.results.front().id) + " = " + emitPython(*op, args, s.attrs));
    return;
  }
  // The operands start after a selector (cond's predicate, switch's index), unless cond's
  // predicate is a Python bool attribute.
  size_t firstOperand = !constructOf(s).selector.empty() && !s.attrs.find("pred") ? 1 : 0;
  std::vector<ValueId> renamed = unalias(s, firstOperand, args);
  std::vector<std::string> lifted;
  if (direct_)
    for (auto c : capturedValues(s)) lifted.push_back(v(c));
  ConstructPlan p = plan(s, args, lifted);
  for (const auto &l : p.before) w_.line(l);
  for (const auto &r : p.regions) function(r);
  w_.line(p.call);
  for (const auto &l : p.after) w_.line(l);
  for (auto c : renamed) rename_.erase(c);
}

} // namespace vf
