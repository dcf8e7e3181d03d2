#pragma once
/// The typing rules of the control-flow constructs, shared by the validator and the shrinker's
/// type re-inference. Semantics: see oracles/reference.h; Python: harness/python_emit.cpp.
///
///   cond(pred, operands...) [then, else]          pred: one-element bool
///   switch(index, operands...) [branch0, ...]     index: one-element integer, clamped
///   while_loop(carries...) [cond_fn, body_fn]     cond_fn yields a one-element bool,
///                                                 body_fn yields the next carries
///   scan(carries..., xs...) {ncarry=K, reverse=B} [combine]
///                                                 combine(carries, slices of xs at dim 0)
///                                                 yields the next carries, then ys; results:
///                                                 final carries, then ys stacked at dim 0
#include <string>
#include <vector>

#include "ir/program.h"

namespace vf {

/// The most iterations a while_loop may run per example, in the reference and in every
/// lowering: a runaway loop is an error, not a hang.
inline constexpr int kMaxIterations = 10000;

/// True for cond, switch, while_loop and scan.
bool isConstruct(const std::string &op);
/// The constructs, for help texts and coverage.
const std::vector<std::string> &constructNames();

/// Checks the construct's arguments and attributes and gives each region's parameter types.
std::string constructParams(const Stmt &s, const std::vector<Type> &args, std::vector<std::vector<Type>> &params);
/// Checks what each region yields and gives the construct's result types.
std::string constructResults(const Stmt &s, const std::vector<Type> &args, const std::vector<std::vector<Type>> &yields,
                             std::vector<Type> &results);

} // namespace vf
