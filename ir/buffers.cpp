#include "ir/buffers.h"

#include <map>
#include <set>

#include "ir/constructs.h"
#include "ir/op_registry.h"

namespace vf {
namespace {

using Levels = std::set<size_t>;

/// Per value: the vmap levels it may be batched at (those that batch an input it depends on,
/// through constructs wholesale) and those it surely is batched at (an input's own, kept
/// through ops by any non-shape argument; none for a construct's results or parameters).
struct Batching {
  const Case &c;
  std::map<ValueId, Levels> maybe, sure;
  struct Update {
    ValueId buffer;
    Levels initSure, valueMaybe;
  };
  std::vector<Update> updates;

  Levels maybeOf(const std::vector<ValueId> &ids) {
    Levels out;
    for (auto v : ids) out.insert(maybe[v].begin(), maybe[v].end());
    return out;
  }

  /// Every value used in `b` (arguments and yields, nested regions included).
  static void used(const Block &b, std::vector<ValueId> &out) {
    out.insert(out.end(), b.yields.begin(), b.yields.end());
    for (const auto &s : b.stmts) {
      out.insert(out.end(), s.args.begin(), s.args.end());
      for (const auto &r : s.regions) used(r, out);
    }
  }

  void block(const Block &b, const std::map<ValueId, Levels> &bufInitSure) {
    for (const auto &s : b.stmts) {
      if (s.regions.empty()) {
        const OpDef *op = findOp(s.op);
        Levels m = maybeOf(s.args), su;
        size_t valueArgs = s.args.size() - (op ? std::min<size_t>(static_cast<size_t>(op->shapeArgs), s.args.size()) : 0);
        for (size_t i = 0; i < valueArgs; ++i) su.insert(sure[s.args[i]].begin(), sure[s.args[i]].end());
        if (op && op->inplace && s.args.size() == 2)
          if (auto it = bufInitSure.find(s.args[0]); it != bufInitSure.end()) updates.push_back({s.args[0], it->second, maybe[s.args[1]]});
        for (const auto &r : s.results) maybe[r.id] = m, sure[r.id] = su;
        continue;
      }
      // Everything the construct reads, captured values included (values defined inside its
      // regions have no entry yet and add nothing).
      std::vector<ValueId> reads = s.args;
      for (const auto &r : s.regions) used(r, reads);
      Levels m = maybeOf(reads);
      const ScanParts p = constructOf(s).kind == ConstructKind::Scan ? scanParts(s) : ScanParts{};
      for (const auto &r : s.regions) {
        std::map<ValueId, Levels> inits;
        for (size_t j = 0; j < p.bufs && j < r.params.size(); ++j)
          inits[r.params[r.params.size() - p.bufs + j].id] = sure[s.args[s.args.size() - p.bufs + j]];
        for (const auto &prm : r.params) maybe[prm.id] = m, sure[prm.id] = {};
        block(r, inits);
      }
      for (const auto &r : s.results) maybe[r.id] = m, sure[r.id] = {};
    }
  }
};

} // namespace

std::string bufferBatchingHazard(const Case &c) {
  Batching b{c, {}, {}, {}};
  for (size_t i = 0; i < c.program.body.params.size(); ++i) {
    Levels l;
    for (size_t k = 0; k < c.spec.levels.size(); ++k)
      if (i < c.spec.levels[k].in_dims.size() && c.spec.levels[k].in_dims[i]) l.insert(k);
    b.maybe[c.program.body.params[i].id] = l;
    b.sure[c.program.body.params[i].id] = l;
  }
  b.block(c.program.body, {});
  for (const auto &u : b.updates)
    for (size_t l : u.valueMaybe)
      if (!u.initSure.count(l))
        return "scan buffer %" + std::to_string(u.buffer) + " is not surely batched at vmap level " + std::to_string(l) +
               ", where its in-place update may be (vmap's in-place rule)";
  return "";
}

} // namespace vf
