#pragma once
/// Which program inputs a construct's selector is computed from: the data flow from the
/// program's parameters through ops, construct operands, captures and region yields.
#include <cstdint>
#include <vector>

#include "ir/program.h"

namespace vf {

/// One entry per selector in program order (cond's predicate, unless a Python bool; switch's
/// index; the value a while_loop's cond_fn yields): bit i set when it depends on input i (the
/// first 64 inputs). A loop's carries depend on everything its body yields, so a loop
/// condition counts what any iteration may read.
std::vector<uint64_t> selectorInputs(const Program &p);

} // namespace vf
