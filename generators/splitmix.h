#pragma once
/// splitmix64 (Steele, Lea and Flood, 2014): the one seed mixer of the generators and the
/// campaign (case seeds from a campaign's seed, data seeds for margin re-draws).
#include <cstdint>

namespace vf {

/// splitmix64's increment, the golden ratio in 64 bits.
inline constexpr uint64_t kSplitmixGamma = 0x9E3779B97F4A7C15ULL;

/// splitmix64's output function: a bijective mix of all 64 bits.
constexpr uint64_t splitmixMix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

/// The next splitmix64 output after `state`: the mix of `state + kSplitmixGamma`.
constexpr uint64_t splitmix64(uint64_t state) { return splitmixMix(state + kSplitmixGamma); }

} // namespace vf
