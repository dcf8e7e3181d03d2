#include "harness/backends/torch/python_emit.h"
#include "harness/backends/torch/python_grad.h"

#include <charconv>
#include <functional>
#include <map>
#include <cmath>
#include <set>
#include <sstream>

#include "ir/constructs.h"
#include "ir/differentiable.h"
#include "ir/op_registry.h"
#include "ir/scalar_type.h"
#include "oracles/compare.h"

namespace vf {
namespace {

std::string var(ValueId v, const std::set<ValueId> &inputs) {
  return (inputs.count(v) ? "x" : "v") + std::to_string(v);
}

std::string tupleText(const std::vector<std::string> &items) {
  if (items.size() == 1) return "(" + items[0] + ",)";
  std::string s = "(";
  for (size_t i = 0; i < items.size(); ++i) s += (i ? ", " : "") + items[i];
  return s + ")";
}

class Emitter {
public:
  Emitter(const Program &p, Api api) : direct_(api == Api::Direct) {
    for (const auto &d : p.body.params) inputs_.insert(d.id);
  }

  /// `noGrad`: decorate with torch.no_grad() (a forward run of a program with an in-place scan
  /// buffer: dynamo lets a higher-order op's body mutate an input only without grad).
  std::string program(const Program &p, bool noGrad) {
    std::ostringstream os;
    std::vector<std::string> params;
    for (const auto &d : p.body.params) params.push_back(v(d.id));
    if (noGrad) os << "@torch.no_grad()\n";
    os << "def program(" << join(params) << "):\n";
    block(os, p.body, 4);
    return os.str();
  }

private:
  std::set<ValueId> inputs_;
  /// Direct mode: the higher-order ops are called themselves, through the `_cond`, `_switch`,
  /// `_while_loop` and `_scan` helpers of directPrelude(); captured values are lifted into
  /// explicit trailing operands, as dynamo lifts them on the public path.
  bool direct_;

  /// Values that share storage have the same root: a view op's result shares its argument's.
  std::map<ValueId, ValueId> root_;
  /// Captured values re-bound to a clone while a construct's regions are emitted.
  std::map<ValueId, std::string> rename_;

  std::string v(ValueId id) const {
    auto r = rename_.find(id);
    return r != rename_.end() ? r->second : var(id, inputs_);
  }
  ValueId root(ValueId id) const {
    auto r = root_.find(id);
    return r == root_.end() ? id : r->second;
  }

  /// Values used inside `s`'s regions but defined outside them: dynamo lifts them as inputs.
  static void captured(const Stmt &s, std::set<ValueId> &out) {
    std::set<ValueId> own;
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
  }

  /// torch rejects a higher-order op whose inputs (operands and captured values) share
  /// storage. `operands` (the expressions passed in) are cloned where they alias an earlier
  /// one; an aliasing captured value is re-bound to a clone emitted before the construct.
  /// Returns the renames to undo after the construct.
  std::vector<ValueId> unalias(std::ostream &os, const Stmt &s, size_t firstOperand, std::vector<std::string> &operands,
                               int indent) {
    std::set<ValueId> seen, caps;
    for (size_t i = firstOperand; i < s.args.size(); ++i)
      if (!seen.insert(root(s.args[i])).second) operands[i] += ".clone()";
    captured(s, caps);
    std::vector<ValueId> renamed;
    for (auto c : caps) {
      if (seen.insert(root(c)).second || rename_.count(c)) continue;
      std::string name = v(c) + "_c" + std::to_string(s.results.front().id);
      os << std::string(indent, ' ') << name << " = " << v(c) << ".clone()\n";
      rename_[c] = name;
      renamed.push_back(c);
    }
    return renamed;
  }
  static std::string join(const std::vector<std::string> &xs) {
    std::string s;
    for (size_t i = 0; i < xs.size(); ++i) s += (i ? ", " : "") + xs[i];
    return s;
  }

  /// How a region returns its yields: a tuple (branches, loop bodies), one value (a loop's
  /// cond_fn), or (carries, ys) (scan's combine_fn, the first `split` yields are carries).
  enum class Ret { Tuple, Single, CarryAndYs };

  /// Emits statements and the return. Control-flow regions may not return an alias of their
  /// inputs or of each other, so a region's yield is cloned unless the region computed it
  /// itself with an op that is not a view, and only its first occurrence is returned as is.
  /// `carries`: how many leading yields are loop carries. torch wants a carry's metadata,
  /// strides included, to match the initial value's, so carries are returned as fresh
  /// contiguous tensors and the initial values are passed contiguous.
  /// `buffers`: the last yields are a scan's in-place buffers, updated by the statements
  /// themselves (the in-place op mutates the tensor): not returned.
  void block(std::ostream &os, const Block &b, int indent, bool isRegion = false, Ret ret = Ret::Tuple, size_t split = 0,
             size_t carries = 0, size_t buffers = 0) {
    std::string pad(indent, ' ');
    std::set<ValueId> own;
    for (const auto &s : b.stmts) {
      stmt(os, s, indent);
      const OpDef *op = findOp(s.op);
      if (!op || !op->view)
        for (const auto &r : s.results) own.insert(r.id);
    }
    std::vector<std::string> ys;
    std::set<ValueId> returned;
    for (size_t i = 0; i + buffers < b.yields.size(); ++i) {
      ValueId y = b.yields[i];
      bool fresh = own.count(y) && returned.insert(y).second;
      if (ys.size() < carries) ys.push_back(v(y) + ".clone(memory_format=torch.contiguous_format)");
      else ys.push_back(isRegion && !fresh ? v(y) + ".clone(memory_format=torch.contiguous_format)" : v(y));
    }
    if (ret == Ret::Single) os << pad << "return " << ys.at(0) << "\n";
    else if (ret == Ret::CarryAndYs)
      os << pad << "return " << tupleText({ys.begin(), ys.begin() + split}) << ", "
         << (ys.size() == split ? "()" : tupleText({ys.begin() + split, ys.end()})) << "\n";
    else os << pad << "return " << tupleText(ys) << "\n";
  }

  /// `def NAME(params):` and the region's body.
  void function(std::ostream &os, const std::string &name, const Block &r, int indent, Ret ret = Ret::Tuple,
                size_t carries = 0, const std::vector<std::string> &lifted = {}, size_t buffers = 0) {
    std::vector<std::string> ps;
    for (const auto &d : r.params) ps.push_back(v(d.id));
    ps.insert(ps.end(), lifted.begin(), lifted.end());
    os << std::string(indent, ' ') << "def " << name << "(" << join(ps) << "):\n";
    block(os, r, indent + 4, true, ret, 0, carries, buffers);
  }

  /// A scan's in-place buffers: each a fresh tensor made from its initial value just before the
  /// scan (so that no other value is mutated), named `buf<result>`. Their names.
  std::vector<std::string> makeBuffers(std::ostream &os, const Stmt &s, const std::vector<std::string> &args, int indent) {
    const ScanParts p = scanParts(s);
    std::vector<std::string> names;
    for (size_t j = 0; j < p.bufs; ++j) {
      names.push_back("buf" + std::to_string(s.results[s.results.size() - p.bufs + j].id));
      os << std::string(indent, ' ') << names.back() << " = " << args[p.carries + p.xs + j] << ".clone()\n";
    }
    return names;
  }

  /// After the scan: its buffer results are the buffers themselves.
  void bufferResults(std::ostream &os, const std::vector<std::string> &results, const std::vector<std::string> &bufs, int indent) {
    for (size_t j = 0; j < bufs.size(); ++j)
      os << std::string(indent, ' ') << results[results.size() - bufs.size() + j] << " = " << bufs[j] << "\n";
  }

  /// Fresh tensors with the canonical contiguous strides (`.contiguous()` keeps odd strides of
  /// size-1 dims, which torch's carry metadata check then rejects).
  static std::vector<std::string> contiguous(std::vector<std::string> xs) {
    for (auto &x : xs) x += ".clone(memory_format=torch.contiguous_format)";
    return xs;
  }

  static std::string unpackTarget(const std::vector<std::string> &names) {
    return join(names) + (names.size() == 1 ? "," : "");
  }

  void stmt(std::ostream &os, const Stmt &s, int indent) {
    std::string pad(indent, ' ');
    std::vector<std::string> results;
    for (const auto &r : s.results) results.push_back(v(r.id));
    std::vector<std::string> args;
    for (auto a : s.args) args.push_back(v(a));
    std::string tag = std::to_string(s.results.front().id);
    if (s.regions.empty()) {
      const OpDef *op = findOp(s.op);
      if (op && op->view)
        for (const auto &r : s.results) root_[r.id] = root(s.args.at(0));
      os << pad << results[0] << " = " << emitPython(*op, args, s.attrs) << "\n";
      return;
    }
    // The operands start after a selector (cond's predicate, switch's index), unless cond's
    // predicate is a Python bool attribute.
    size_t firstOperand = !constructOf(s).selector.empty() && !s.attrs.find("pred") ? 1 : 0;
    std::vector<ValueId> renamed = unalias(os, s, firstOperand, args, indent);
    std::vector<std::string> lifted;
    if (direct_) {
      std::set<ValueId> caps;
      captured(s, caps);
      for (auto c : caps) lifted.push_back(v(c));
      directConstruct(os, s, indent, results, args, lifted, tag);
    } else {
      construct(os, s, indent, results, args, tag);
    }
    for (auto c : renamed) rename_.erase(c);
  }

  void construct(std::ostream &os, const Stmt &s, int indent, const std::vector<std::string> &results,
                 const std::vector<std::string> &args, const std::string &tag) {
    std::string pad(indent, ' ');
    auto tupleOr = [](const std::vector<std::string> &xs) { return xs.empty() ? std::string("()") : tupleText(xs); };
    switch (constructOf(s).kind) {
    case ConstructKind::Cond: {
      function(os, "true_fn_" + tag, s.regions[0], indent);
      function(os, "false_fn_" + tag, s.regions[1], indent);
      bool pythonBool = s.attrs.find("pred") != nullptr;
      std::string pred = pythonBool ? (s.attrs.getBool("pred") ? "True" : "False") : args[0];
      os << pad << unpackTarget(results) << " = torch.cond(" << pred << ", true_fn_" << tag << ", false_fn_" << tag
         << ", " << tupleOr({args.begin() + (pythonBool ? 0 : 1), args.end()}) << ")\n";
      break;
    }
    case ConstructKind::Switch: {
      std::vector<std::string> names;
      for (size_t k = 0; k < s.regions.size(); ++k) {
        names.push_back("branch_" + tag + "_" + std::to_string(k));
        function(os, names.back(), s.regions[k], indent);
      }
      os << pad << unpackTarget(results) << " = switch(" << args[0] << ", " << tupleText(names) << ", "
         << tupleOr({args.begin() + 1, args.end()}) << ")\n";
      break;
    }
    case ConstructKind::WhileLoop: {
      function(os, "cond_fn_" + tag, s.regions[0], indent, Ret::Single);
      function(os, "body_fn_" + tag, s.regions[1], indent, Ret::Tuple, s.regions[1].yields.size());
      os << pad << unpackTarget(results) << " = torch.while_loop(cond_fn_" << tag << ", body_fn_" << tag << ", "
         << tupleText(contiguous(args)) << ")\n";
      break;
    }
    case ConstructKind::Scan: {
      // Buffers are captured by combine_fn, as a user's KV cache would be: dynamo lifts them and
      // passes the ones it sees mutated as scan's mutated_arg_indices.
      const ScanParts p = scanParts(s);
      const size_t k = p.carries;
      const Block &r = s.regions[0];
      std::vector<std::string> bufs = makeBuffers(os, s, args, indent);
      std::vector<std::string> carries, xs;
      for (size_t i = 0; i < k + p.xs; ++i) (i < k ? carries : xs).push_back(v(r.params[i].id));
      os << pad << "def combine_fn_" << tag << "(carry, x):\n";
      os << pad << "    " << unpackTarget(carries) << " = carry\n";
      os << pad << "    " << unpackTarget(xs) << " = x\n";
      for (size_t j = 0; j < p.bufs; ++j) os << pad << "    " << v(r.params[k + p.xs + j].id) << " = " << bufs[j] << "\n";
      block(os, r, indent + 4, true, Ret::CarryAndYs, k, k, p.bufs);
      std::vector<std::string> finals(results.begin(), results.begin() + k),
          ys(results.begin() + k, results.end() - static_cast<std::ptrdiff_t>(p.bufs));
      os << pad << "(" << unpackTarget(finals) << "), (" << (ys.empty() ? "" : unpackTarget(ys)) << ") = scan(combine_fn_"
         << tag << ", " << tupleText(contiguous({args.begin(), args.begin() + k})) << ", "
         << tupleText({args.begin() + k, args.begin() + k + p.xs}) << ", reverse=" << (s.attrs.getBool("reverse") ? "True" : "False")
         << ")\n";
      bufferResults(os, results, bufs, indent);
      break;
    }
    }
  }
  /// Direct mode: the same regions as functions that take their captured values as trailing
  /// parameters, and a call of the op's helper (directPrelude) with those values lifted.
  void directConstruct(std::ostream &os, const Stmt &s, int indent, const std::vector<std::string> &results,
                       const std::vector<std::string> &args, const std::vector<std::string> &lifted,
                       const std::string &tag) {
    std::string pad(indent, ' ');
    auto withLifted = [&](std::vector<std::string> xs) {
      xs.insert(xs.end(), lifted.begin(), lifted.end());
      return xs.empty() ? std::string("()") : tupleText(xs);
    };
    switch (constructOf(s).kind) {
    case ConstructKind::Cond: {
      function(os, "true_fn_" + tag, s.regions[0], indent, Ret::Tuple, 0, lifted);
      function(os, "false_fn_" + tag, s.regions[1], indent, Ret::Tuple, 0, lifted);
      bool pythonBool = s.attrs.find("pred") != nullptr;
      std::string pred = pythonBool ? (s.attrs.getBool("pred") ? "True" : "False") : args[0];
      os << pad << unpackTarget(results) << " = _cond(" << pred << ", true_fn_" << tag << ", false_fn_" << tag << ", "
         << withLifted({args.begin() + (pythonBool ? 0 : 1), args.end()}) << ")\n";
      break;
    }
    case ConstructKind::Switch: {
      std::vector<std::string> names;
      for (size_t k = 0; k < s.regions.size(); ++k) {
        names.push_back("branch_" + tag + "_" + std::to_string(k));
        function(os, names.back(), s.regions[k], indent, Ret::Tuple, 0, lifted);
      }
      os << pad << unpackTarget(results) << " = _switch(" << args[0] << ", " << tupleText(names) << ", "
         << withLifted({args.begin() + 1, args.end()}) << ")\n";
      break;
    }
    case ConstructKind::WhileLoop: {
      function(os, "cond_fn_" + tag, s.regions[0], indent, Ret::Single, 0, lifted);
      function(os, "body_fn_" + tag, s.regions[1], indent, Ret::Tuple, s.regions[1].yields.size(), lifted);
      os << pad << unpackTarget(results) << " = _while_loop(cond_fn_" << tag << ", body_fn_" << tag << ", "
         << tupleText(contiguous(args)) << ", " << withLifted({}) << ")\n";
      break;
    }
    case ConstructKind::Scan: {
      // combine_fn(*carries, *x_slices, *buffers, *lifted) -> (*next_carries, *ys): the flat
      // form scan_op takes. The buffers lead the additional inputs, and mutated_arg_indices
      // names them as dynamo does (indices into init + xs + additional_inputs).
      const ScanParts p = scanParts(s);
      const size_t k = p.carries;
      std::vector<std::string> bufs = makeBuffers(os, s, args, indent);
      std::string mutated;
      for (size_t j = 0; j < p.bufs; ++j) mutated += (j ? "," : "") + std::to_string(k + p.xs + j);
      function(os, "combine_fn_" + tag, s.regions[0], indent, Ret::Tuple, k, lifted, p.bufs);
      std::vector<std::string> flat(results.begin(), results.end() - static_cast<std::ptrdiff_t>(p.bufs));
      os << pad << unpackTarget(flat) << " = _scan(combine_fn_" << tag << ", "
         << tupleText(contiguous({args.begin(), args.begin() + k})) << ", " << tupleText({args.begin() + k, args.begin() + k + p.xs})
         << ", " << withLifted(bufs) << ", reverse=" << (s.attrs.getBool("reverse") ? "True" : "False");
      if (!mutated.empty()) os << ", mutated_arg_indices=" << pyString(mutated);
      os << ")\n";
      bufferResults(os, results, bufs, indent);
      break;
    }
    }
  }
};

void usedConstructs(const Block &b, std::set<std::string> &out) {
  for (const auto &s : b.stmts) {
    if (!s.regions.empty()) out.insert(s.op);
    for (const auto &r : s.regions) usedConstructs(r, out);
  }
}

std::string optDim(const std::optional<int64_t> &d) { return d ? std::to_string(*d) : "None"; }

std::string inDims(const VmapLevel &l) {
  std::vector<std::string> xs;
  for (const auto &d : l.in_dims) xs.push_back(optDim(d));
  return tupleText(xs);
}

std::string outDims(const VmapLevel &l) {
  std::vector<std::string> xs;
  for (auto d : l.out_dims) xs.push_back(std::to_string(d));
  return tupleText(xs);
}

std::string pyFloat(double d) {
  if (std::isnan(d)) return "nan";
  if (std::isinf(d)) return d > 0 ? "inf" : "-inf";
  char buf[64];
  auto [e, ec] = std::to_chars(buf, buf + sizeof buf, d);
  return std::string(buf, e);
}

/// The comparator's tolerances for what the repro compares (oracles/compare.h), as a Python
/// list of (rtol, atol): one per output, or per gradient in a gradient mode.
std::string pyTolerances(const Case &c, bool grad, bool jvp = false) {
  std::vector<Tolerance> tols;
  if (jvp) { // one per floating output's tangent
    auto types = outputTypes(c.program);
    for (size_t j : gradOutputs(c.program)) tols.push_back(gradientTolerance(toScalarType(types.at(j).dtype), c.program));
  }
  else if (grad)
    for (size_t i : gradInputs(c.program))
      tols.push_back(gradientTolerance(toScalarType(c.program.body.params[i].type.dtype), c.program));
  else
    tols = outputTolerances(c.program);
  std::string l;
  for (const auto &t : tols) l += (l.empty() ? "(" : ", (") + pyFloat(t.rtol) + ", " + pyFloat(t.atol) + ")";
  return "[" + l + "]";
}

std::string tensorLiteral(const at::Tensor &t) {
  std::ostringstream os;
  auto flat = t.contiguous().reshape(-1);
  bool isFloat = t.is_floating_point();
  auto d = flat.to(at::kDouble);
  auto acc = d.accessor<double, 1>();
  os << "torch.tensor([";
  for (int64_t i = 0; i < flat.numel(); ++i) {
    if (i) os << ", ";
    if (i && i % 8 == 0) os << "\n    ";
    if (isFloat) os << pyFloat(acc[i]);
    else if (t.scalar_type() == at::kBool) os << (acc[i] != 0 ? "True" : "False");
    else os << static_cast<int64_t>(acc[i]);
  }
  std::string dt;
  switch (t.scalar_type()) {
  case at::kFloat: dt = "torch.float32"; break;
  case at::kDouble: dt = "torch.float64"; break;
  case at::kHalf: dt = "torch.float16"; break;
  case at::kBFloat16: dt = "torch.bfloat16"; break;
  case at::kLong: dt = "torch.int64"; break;
  case at::kInt: dt = "torch.int32"; break;
  default: dt = "torch.bool";
  }
  os << "], dtype=" << dt << ").reshape(";
  std::vector<std::string> dims;
  for (auto s : t.sizes()) dims.push_back(std::to_string(s));
  os << tupleText(dims) << ")";
  return os.str();
}

/// `layout_inputs(x0, ...)`: the contiguous inputs re-made in the case's layouts (same values,
/// other strides and storage offsets), for the worker and repro.py to call before `batched`.
/// Empty when every input is contiguous.
std::string layoutFunction(const Case &c, bool passRest) {
  if (c.spec.layouts.empty()) return "";
  std::ostringstream os;
  std::vector<std::string> params, made;
  for (size_t i = 0; i < c.program.body.params.size(); ++i) {
    std::string x = "x" + std::to_string(c.program.body.params[i].id);
    params.push_back(x);
    Layout l = c.spec.layoutOf(i);
    std::string d = std::to_string(l.dim);
    switch (l.kind) {
    case Layout::Kind::Contiguous: made.push_back(x); break;
    case Layout::Kind::Transposed: made.push_back(x + ".transpose(" + d + ", -1).contiguous().transpose(" + d + ", -1)"); break;
    case Layout::Kind::Expanded: made.push_back(x + ".narrow(" + d + ", 0, 1).expand(" + x + ".shape)"); break;
    case Layout::Kind::Strided: made.push_back("_strided(" + x + ", " + d + ")"); break;
    case Layout::Kind::Offset: made.push_back("_offset(" + x + ")"); break;
    }
  }
  os << "def _strided(x, d):\n"
        "    \"\"\"x's values at every other element of a larger buffer along dim d, from offset 1.\"\"\"\n"
        "    shape = list(x.shape)\n"
        "    shape[d] = 2 * shape[d] + 1\n"
        "    v = torch.ops.aten.slice(torch.full(shape, 77, dtype=x.dtype), d, 1, None, 2)\n"
        "    return v.copy_(x)\n\n\n"
        "def _offset(x):\n"
        "    \"\"\"x's values, contiguous, 3 elements into their storage.\"\"\"\n"
        "    return torch.full((x.numel() + 3,), 77, dtype=x.dtype)[3:].view(x.shape).copy_(x)\n\n\n";
  std::string plist;
  for (size_t i = 0; i < params.size(); ++i) plist += (i ? ", " : "") + params[i];
  if (passRest) { // a gradient mode's cotangents follow the inputs, contiguous
    os << "def layout_inputs(" << plist << ", *rest):\n";
    os << "    \"\"\"The inputs in the case's memory layouts: same values, other strides (the rest as they are).\"\"\"\n";
    os << "    return " << tupleText(made) << " + rest\n\n\n";
    return os.str();
  }
  os << "def layout_inputs(" << plist << "):\n";
  os << "    \"\"\"The inputs in the case's memory layouts: same values, other strides.\"\"\"\n";
  os << "    return " << tupleText(made) << "\n\n\n";
  return os.str();
}

/// Direct mode's helpers (the registry's `directHelper`). torch.cond's own input checks (a
/// one-element predicate, tensor operands) are left out on purpose: a valid program always
/// passes them at the top level, and inside a region the public path does not make them either
/// (under dynamo, torch.cond goes straight to cond_op), so checking there would report failures
/// the public API never shows. Only the helpers of the constructs a program uses are emitted,
/// so a torch without one of the ops fails only the programs that need it.
std::string directPrelude(const std::set<std::string> &used) {
  std::ostringstream os;
  for (const auto &d : constructRegistry())
    if (used.count(d.name)) os << d.directImport << "\n";
  os << "\n\n";
  for (const auto &d : constructRegistry())
    if (used.count(d.name)) os << d.directHelper << "\n\n";
  return os.str();
}

} // namespace

std::string pyString(const std::string &s) {
  std::string out = "\"";
  for (char ch : s) {
    if (ch == '"' || ch == '\\') out += '\\';
    if (ch == '\n') out += "\\n";
    else out += ch;
  }
  return out + "\"";
}

bool hasBuffers(const Block &b) {
  for (const auto &s : b.stmts) {
    if (isConstruct(s.op) && constructOf(s).kind == ConstructKind::Scan && scanParts(s).bufs > 0) return true;
    for (const auto &r : s.regions)
      if (hasBuffers(r)) return true;
  }
  return false;
}

std::string emitProgram(const Program &p, Api api, bool forward) {
  return Emitter(p, api).program(p, forward && hasBuffers(p.body));
}

std::string emitModule(const Case &c, Api api, Grad grad) {
  std::ostringstream os;
  std::set<std::string> used;
  usedConstructs(c.program.body, used);
  os << "import torch\n";
  if (api == Api::Direct) os << directPrelude(used);
  else {
    // Those not exported under torch.* yet (switch, scan).
    for (const auto &d : constructRegistry())
      if (used.count(d.name) && !d.publicImport.empty()) os << d.publicImport << "\n";
  }
  os << "\n\n" << emitProgram(c.program, api, grad == Grad::None) << "\n\n";
  // batched: vmap levels from the innermost out.
  std::string expr = "program";
  for (auto it = c.spec.levels.rbegin(); it != c.spec.levels.rend(); ++it) {
    expr = "torch.vmap(" + expr + ", in_dims=" + inDims(*it) + ", out_dims=" + outDims(*it);
    if (it->chunk_size) expr += ", chunk_size=" + std::to_string(*it->chunk_size);
    if (it->randomness != "error") expr += ", randomness='" + it->randomness + "'";
    expr += ")";
  }
  os << "batched = " << expr << "\n\n\n";
  os << layoutFunction(c, grad != Grad::None);
  // per_example: one Python loop per level, innermost first.
  std::vector<std::string> params;
  for (const auto &d : c.program.body.params) params.push_back("x" + std::to_string(d.id));
  std::string plist;
  for (size_t i = 0; i < params.size(); ++i) plist += (i ? ", " : "") + params[i];
  size_t n = c.spec.levels.size();
  for (size_t li = n; li-- > 0;) {
    const VmapLevel &l = c.spec.levels[li];
    std::string name = li == 0 ? "per_example" : "per_example_level" + std::to_string(li);
    std::string inner = li + 1 == n ? "program" : "per_example_level" + std::to_string(li + 1);
    std::string call, size;
    for (size_t i = 0; i < params.size(); ++i) {
      call += (i ? ", " : "") + (l.in_dims[i] ? params[i] + ".select(" + std::to_string(*l.in_dims[i]) + ", b)" : params[i]);
      // The batch size comes from the first batched input, so the function serves any batch size.
      if (l.in_dims[i] && size.empty()) size = params[i] + ".size(" + std::to_string(*l.in_dims[i]) + ")";
    }
    if (size.empty()) size = std::to_string(l.size);
    os << "def " << name << "(" << plist << "):\n";
    if (li == 0) os << "    \"\"\"Each example alone, stacked the way vmap stacks: what `batched` must return.\"\"\"\n";
    os << "    outs = [" << inner << "(" << call << ") for b in range(" << size << ")]\n";
    os << "    return tuple(torch.stack(o, dim=d) for o, d in zip(zip(*outs), " << outDims(l) << "))\n\n\n";
  }
  os << gradFunctions(c, grad);
  return os.str();
}

namespace {

/// Runs the preloaded files first, as the worker did: each from the report's preload/ folder
/// beside repro.py, else from where it was; a file whose hash changed is run with a warning.
std::string preloadBlock(const std::vector<Preload> &preloads) {
  if (preloads.empty()) return "";
  std::ostringstream os;
  auto names = preloadFileNames(preloads);
  os << "# Preloaded before the case, as the vmapfuzz worker did (--preload): from preload/ beside this\n"
     << "# script, else from the path it had when the finding was filed.\n"
     << "import hashlib as _hashlib, os as _os, runpy as _runpy  # noqa: E401\n"
     << "for _name, _path, _sha256 in [\n";
  for (size_t i = 0; i < preloads.size(); ++i)
    os << "    (" << pyString(names[i]) << ", " << pyString(preloads[i].path) << ", " << pyString(preloads[i].sha256) << "),\n";
  os << "]:\n"
     << "    _copy = _os.path.join(_os.path.dirname(_os.path.abspath(__file__)), \"preload\", _name)\n"
     << "    _file = _copy if _os.path.exists(_copy) else _path\n"
     << "    if not _os.path.exists(_file):\n"
     << "        print(f\"ERROR: preload {_name} is neither in preload/ nor at {_path}\")\n"
     << "        raise SystemExit(3)\n"
     << "    with open(_file, \"rb\") as _f:\n"
     << "        if _hashlib.sha256(_f.read()).hexdigest() != _sha256:\n"
     << "            print(f\"warning: {_file} differs from the file the finding ran with (sha256 {_sha256})\")\n"
     << "    try:\n"
     << "        _runpy.run_path(_file, run_name=\"__vmapfuzz_preload__\")\n"
     << "    except Exception as _e:  # exit 1 means the bug is there: a broken preload is something else\n"
     << "        print(f\"ERROR: preload {_file} failed: {type(_e).__name__}: {_e}\")\n"
     << "        raise SystemExit(3)\n";
  return os.str();
}

/// A precompile mode's repro: without arguments it compiles one artifact per call ahead of time,
/// saves them and runs itself again as a fresh process with `--load DIR`, which loads them
/// and makes the calls through `loaded` (as the worker's vmapfuzz_precompile.py does).
std::string precompileBlock(const std::vector<std::pair<std::string, std::string>> &calls, const ExecConfig &ex) {
  std::ostringstream os;
  os << "import os as _os, shutil as _shutil, subprocess as _subprocess, sys as _sys, tempfile as _tempfile\n\n\n"
     << "def _entry(*args):\n    return batched(*args)\n\n\n"
     << "_ARGS = [";
  for (const auto &[args, what] : calls) os << "(" << args << (args.find(',') == std::string::npos ? "," : "") << "), ";
  os << "]\n"
     << "if _sys.argv[1:2] != [\"--load\"]:  # step 1: compile and save, then load in a fresh process\n"
     << "    _dir = _tempfile.mkdtemp(prefix=\"vmapfuzz-precompile-\")\n"
     << "    try:\n"
     << "        for _k, _args in enumerate(_ARGS):\n"
     << "            torch._dynamo.reset()\n"
     << "            _c = torch.compile(_entry, backend=" << pyString(ex.compiler) << ", fullgraph=True).aot_compile((_args, {}))\n"
     << "            try:\n"
     << "                _c.save_compiled_function(_os.path.join(_dir, f\"artifact_{_k}.bin\"))\n"
     << "            except Exception as e:\n"
     << "                print(f\"FAIL: saving the compiled function raised {type(e).__name__}: {e}\")\n"
     << "                raise SystemExit(1)\n"
     << "        print(\"saved; loading it in a fresh process\", flush=True)\n"
     << "        _rc = _subprocess.run([_sys.executable, _os.path.abspath(__file__), \"--load\", _dir]).returncode\n"
     << "    finally:\n"
     << "        _shutil.rmtree(_dir, ignore_errors=True)\n"
     << "    raise SystemExit(_rc)\n\n\n"
     << "def _load(k):  # step 2, in the fresh process\n"
     << "    with open(_os.path.join(_sys.argv[2], f\"artifact_{k}.bin\"), \"rb\") as f:\n"
     << "        return torch.compiler.load_compiled_function(f, f_globals=globals())\n\n\n"
     << "_calls = []\n\n\n"
     << "def loaded(*args):\n"
     << "    # Artifact 0 at every batch size its saved guards accept; where they reject one, that call's own.\n"
     << "    k = len(_calls)\n"
     << "    _calls.append(k)\n"
     << "    first = _load(0)\n"
     << "    return (first if k == 0 or first.guard_check(*args) else _load(k))(*args)\n\n\n";
  return os.str();
}

} // namespace

std::string emitRepro(const Case &c, const std::vector<at::Tensor> &inputs, const std::string &headerComment,
                      const ReproOptions &opt) {
  std::ostringstream os;
  os << "#!/usr/bin/env python3\n";
  std::istringstream hc(headerComment);
  for (std::string line; std::getline(hc, line);) os << "# " << line << "\n";
  const ExecConfig &ex = opt.exec;
  const bool grad = ex.gradient();
  const bool jvp = forwardMode(ex.grad);
  if (jvp)
    os << "# Exits 1 while the forward-mode derivatives of torch.vmap's result (torch.func.jvp with the tangents\n"
          "# below) disagree with those of running each example alone under plain autograd, 0 once they agree.\n";
  else if (grad)
    os << "# Exits 1 while the gradients of torch.vmap's result (a vector-Jacobian product with the cotangents\n"
          "# below) disagree with those of running each example alone under plain autograd, 0 once they agree.\n";
  else os << "# Exits 1 while torch.vmap disagrees with running each example alone, 0 once it agrees.\n";
  os << preloadBlock(opt.preloads);
  os << emitModule(c, opt.exec.api, ex.grad);
  if (ex.device != "cpu") os << "torch.set_default_device(" << pyString(ex.device) << ")\n";
  const std::string compiledFn = ex.grad == Grad::VmapOf ? "batched_vjp" : jvp ? "batched_jvp" : "batched";
  if (ex.compiled() && !ex.precompile) {
    os << compiledFn << " = torch.compile(" << compiledFn << ", backend=" << pyString(ex.compiler);
    if (ex.dynamic) os << ", dynamic=" << (*ex.dynamic ? "True" : "False");
    os << ")\n";
  }
  auto inputBlock = [&](const std::vector<at::Tensor> &ts, const std::string &prefix, const std::vector<at::Tensor> &cts) {
    std::vector<std::string> names;
    for (size_t i = 0; i < ts.size(); ++i) {
      std::string nm = prefix + std::to_string(c.program.body.params[i].id);
      names.push_back(nm);
      os << nm << " = " << tensorLiteral(ts[i]) << "\n";
    }
    std::string args;
    for (size_t i = 0; i < names.size(); ++i) args += (i ? ", " : "") + names[i];
    // The case's memory layouts: the same values with other strides and offsets.
    if (!c.spec.layouts.empty()) os << args << (names.size() == 1 ? "," : "") << " = layout_inputs(" << args << ")\n";
    for (size_t j = 0; j < cts.size(); ++j) { // a gradient mode's cotangents (one per floating output) or tangents
      std::string nm = prefix + (jvp ? "_tangent" : "_cotangent") + std::to_string(j);
      os << nm << " = " << tensorLiteral(cts[j]) << "\n";
      args += (args.empty() ? "" : ", ") + nm;
    }
    return args;
  };
  os << "\n";
  std::vector<std::pair<std::string, std::string>> calls = {{inputBlock(inputs, "x", opt.cotangents), "the batched run"}};
  if (opt.again) {
    os << "# The same program at batch size " << opt.again->spec.levels[0].size
       << ": the compiled function must recompile or generalise.\n";
    calls.push_back({inputBlock(opt.againInputs, "y", opt.againCotangents), "the second call (batch size " +
                                                          std::to_string(opt.again->spec.levels[0].size) + ")"});
  }
  // The comparator's own tolerances: the repro judges the case as the campaign did.
  os << "\n\n# (rtol, atol) per " << (grad ? "gradient" : "output")
     << ": its dtype's, or the looser one of the least precise dtype it was computed through\n";
  os << "TOLERANCES = " << pyTolerances(c, grad, jvp) << "\n";
  os << "\n\ndef check(args, what):\n";
  if (jvp) {
    // Both sides with plain torch: torch.func.jvp of the batched program, and the per-example loop
    // under reverse-mode autograd, one backward per output element (per_example_jvp_by_rows).
    std::vector<std::string> names;
    for (size_t j : gradOutputs(c.program))
      names.push_back(pyString("output " + std::to_string(j) + " (%" + std::to_string(c.program.body.yields.at(j)) + ")"));
    os << "    names = " << tupleText(names) << "  # the outputs that take a tangent\n";
    os << "    expected = per_example_jvp_by_rows(*args)\n";
    os << "    try:\n        actual = batched_jvp(*args)\n";
  } else if (grad) {
    // Both sides with plain torch: the per-example loop under autograd, and the batched VJP.
    std::vector<std::string> names;
    for (size_t i : gradInputs(c.program)) names.push_back(pyString("x" + std::to_string(c.program.body.params[i].id)));
    os << "    names = " << tupleText(names) << "  # the inputs that take a gradient\n";
    os << "    expected = vjp_of(per_example)(*args)\n";
    os << "    try:\n        actual = " << (ex.grad == Grad::VmapOf ? "batched_vjp(*args)" : "vjp_of(batched)(*args)") << "\n";
  } else {
    os << "    expected = per_example(*args)\n";
    os << "    try:\n        actual = " << (ex.precompile ? "loaded" : "batched") << "(*args)\n";
  }
  os << "    except Exception as e:\n";
  os << "        print(f\"FAIL: {what} raised {type(e).__name__}: {e}\")\n        return False\n";
  os << "    ok = len(actual) == len(expected)\n";
  os << "    if not ok:\n        print(f\"FAIL: {what} gave {len(actual)} outputs, expected {len(expected)}\")\n";
  os << "    for i, (a, e) in enumerate(zip(actual, expected)):\n";
  os << "        rtol, atol = TOLERANCES[i]\n";
  os << "        try:\n";
  os << "            torch.testing.assert_close(a, e, rtol=rtol, atol=atol, equal_nan=True)\n";
  os << "        except AssertionError as err:\n";
  os << "            ok = False\n";
  if (jvp)
    os << "            print(f\"FAIL: the tangent of {names[i]} in {what} differs from the per-example autograd loop's:\\n{err}\")\n";
  else if (grad)
    os << "            print(f\"FAIL: the gradient of {names[i]} in {what} differs from the per-example autograd loop's:\\n{err}\")\n";
  else
    os << "            print(f\"FAIL: output {i} of {what} differs from the per-example result:\\n{err}\")\n";
  os << "    return ok\n\n\n";
  if (ex.precompile) os << precompileBlock(calls, ex);
  os << "ok = True\n";
  for (const auto &[args, what] : calls) os << "ok = check((" << args << (args.find(',') == std::string::npos ? "," : "") << "), " << pyString(what) << ") and ok\n";
  os << "print(\"OK: batched and per-example results agree\" if ok else \"FAIL\")\n";
  os << "raise SystemExit(0 if ok else 1)\n";
  return os.str();
}

} // namespace vf
