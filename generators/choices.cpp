#include "generators/choices.h"

#include "generators/case_gen.h"
#include "ir/constructs.h"

namespace vf {

namespace {
thread_local ChoiceStream *tActive = nullptr;
}

uint64_t ChoiceStream::below(uint64_t n) {
  if (n <= 1) return 0;
  uint64_t v = 0;
  for (uint64_t span = n - 1; span > 0; span >>= 8) v = (v << 8) | (pos_ < size_ ? data_[pos_++] : 0);
  return v % n;
}

ChoiceStream *activeChoices() { return tActive; }

ChoiceScope::ChoiceScope(ChoiceStream &s) : prev_(tActive) { tActive = &s; }
ChoiceScope::~ChoiceScope() { tActive = prev_; }

Case caseFromBytes(const uint8_t *data, size_t size, const GenPolicy &given) {
  GenPolicy policy = given;
  for (const auto &d : constructRegistry())
    if (d.transform) policy.weight(d.kind) = 0; // the libtorch backend lowers no transform of the program
  int genSize = size ? data[0] % 101 : 0;
  ChoiceStream s(size ? data + 1 : data, size ? size - 1 : 0);
  ChoiceScope scope(s);
  // The random source is never read while the scope is active; it is only the gen's signature.
  return genCase(policy)(rc::Random(0), genSize).value();
}

} // namespace vf
