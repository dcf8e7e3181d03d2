#pragma once
/// The validator: scoping, op arity and attributes, type rules, construct rules, batch specs.
#include <string>
#include <vector>

#include "ir/program.h"

namespace vf {

/// Type of `op` applied to `args` with `attrs`, or an error message in `error`.
bool inferOpType(const std::string &op, const std::vector<Type> &args, const Attrs &attrs, Type &out,
                 std::string &error);

/// "" when the program is well-typed and well-scoped; else a message naming the statement.
std::string validateProgram(const Program &p);
/// Also checks the batch spec against the program (in_dims/out_dims counts and ranges).
std::string validateCase(const Case &c);

} // namespace vf
