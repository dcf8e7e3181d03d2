#pragma once
/// RapidCheck generators of well-typed programs and batch specs.
#include <cstdint>

#include <rapidcheck.h>

#include "generators/policy.h"
#include "ir/program.h"

namespace vf {

/// Programs that always validate, with control flow whose predicates split the batch.
rc::Gen<Program> genProgram(const GenPolicy &policy);
/// A batch spec for `p`: sizes, in_dims (None, positive, negative), out_dims, nesting, chunking.
rc::Gen<BatchSpec> genBatchSpec(const Program &p, const GenPolicy &policy);
/// A whole case (program, then a spec that fits it).
rc::Gen<Case> genCase(const GenPolicy &policy);

/// The case a campaign runs for `seed` at generation size `size`; deterministic.
Case generateCase(uint64_t seed, int size, const GenPolicy &policy);

} // namespace vf
