#pragma once
/// How precisely each value of a program is known: the least precise floating dtype it was
/// computed through. Two correct runs of a program (a batched kernel and a per-example loop,
/// say) may round differently wherever a floating op runs, and a later cast does not take the
/// difference back: `to_f64(sum_all(x: f32))` is an f64 value known to float32 precision only.
/// The comparator's tolerance and the reference's ambiguity margins read this, not the value's
/// own dtype.
#include <optional>
#include <unordered_map>
#include <vector>

#include "ir/program.h"

namespace vf {

/// The less precise of two floating dtypes (bf16 < f16 < f32 < f64); nullopt is exact.
std::optional<DType> lessPrecise(std::optional<DType> a, std::optional<DType> b);

/// For every value that depends on a floating value: the least precise floating dtype among
/// the values it was computed from, its own included. Through a construct, each result follows
/// what its regions yield for it, and what decides which region runs or how many times (cond's
/// predicate, switch's index, while_loop's condition). Values that depend on no floating value
/// are absent.
std::unordered_map<ValueId, DType> valuePrecisions(const Program &p);

/// The precision of each program output, in order (nullopt: computed exactly).
std::vector<std::optional<DType>> outputPrecisions(const Program &p);

/// The least precise floating dtype anywhere in the program: a gradient depends on the whole
/// program, so this bounds its rounding.
std::optional<DType> programPrecision(const Program &p);

} // namespace vf
