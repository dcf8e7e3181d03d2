#pragma once
/// Which program inputs a construct's selector is computed from: the data flow (ir/dataflow.h)
/// from the program's parameters through ops, construct operands, captures, region yields and
/// loop carries, and through the selectors of enclosing or earlier constructs.
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "ir/program.h"

namespace vf {

/// One entry per selector, in the order the walk meets them (cond's predicate, unless a Python
/// bool; switch's index; the value a while_loop's cond_fn yields, met after the selectors inside
/// its cond_fn): bit i set when it depends on input i (the first 64 inputs). A selector inside a
/// loop counts what any iteration may read.
std::vector<uint64_t> selectorInputs(const Program &p);

/// Which program inputs every value of `p` (region parameters included) is computed from, by the
/// same walk: bit i set when it depends on input i (the first 64 inputs). A value in a loop
/// counts what any iteration may read.
std::unordered_map<ValueId, uint64_t> valueInputs(const Program &p);

} // namespace vf
