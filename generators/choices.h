#pragma once
/// Byte-string driving of the generators (structure-aware fuzzing): while a ChoiceScope is
/// alive, every decision the generators in case_gen.cpp make (each `draw`, `scaled`, `chance`,
/// `pick` and the data seed) reads the next bytes of a choice stream instead of RapidCheck's
/// random source. The same generators serve both drivers: a seed (campaigns) or bytes
/// (libFuzzer).
///
/// The trade-off, in the way Hypothesis and libFuzzer's FuzzedDataProvider make it: bytes are
/// consumed front to back, one decision at a time, as few bytes as the decision's range needs
/// (one byte for any range up to 256). Changing one byte changes one decision and keeps every
/// earlier one, so libFuzzer's small mutations give related cases; a decision that changes the
/// structure (another op, another construct) shifts how the later bytes are read, so the tail
/// is reinterpreted, not preserved. Running out of bytes makes every later decision its
/// smallest choice, so any byte string, the empty one included, decodes to a valid case, and
/// shorter inputs give smaller cases (libFuzzer's -reduce_inputs shrinks them). Hashing the
/// bytes into a seed would make every mutation an unrelated case instead.
#include <cstddef>
#include <cstdint>

#include "generators/policy.h"
#include "ir/program.h"

namespace vf {

class ChoiceStream {
public:
  ChoiceStream(const uint8_t *data, size_t size) : data_(data), size_(size) {}
  /// A choice in [0, n): the next ceil(log256 n) bytes, big-endian, modulo n; 0 once exhausted.
  uint64_t below(uint64_t n);
  size_t consumed() const { return pos_; }

private:
  const uint8_t *data_;
  size_t size_, pos_ = 0;
};

/// The stream the generators read on this thread, or nullptr (RapidCheck decides).
ChoiceStream *activeChoices();

/// Makes `s` the active stream for its lifetime (scopes nest).
class ChoiceScope {
public:
  explicit ChoiceScope(ChoiceStream &s);
  ~ChoiceScope();
  ChoiceScope(const ChoiceScope &) = delete;
  ChoiceScope &operator=(const ChoiceScope &) = delete;

private:
  ChoiceStream *prev_;
};

/// The case `data` decodes to: byte 0 sets the generation size (0..100), the rest are the
/// choices of genCase(policy). Deterministic; every byte string gives a valid case. The bytes are
/// libFuzzer's, whose target runs the libtorch backend: it decodes no vmap construct (that
/// backend does not lower one), so the fuzzer, `gen --bytes` and `replay` of an artifact agree.
Case caseFromBytes(const uint8_t *data, size_t size, const GenPolicy &policy);

} // namespace vf
