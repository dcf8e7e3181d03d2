#pragma once
/// The flags of a campaign, shared by `fuzz` and `nightly`, and the campaign options they make.
#include <cstdint>
#include <optional>
#include <string>

#include "harness/campaign/campaign.h"
#include "harness/cli/system_flags.h"

namespace vf::cli {

struct CampaignFlags {
  uint64_t seed = 1; ///< the caller sets its default before addCampaignFlags
  int64_t cases = -1;
  int64_t jobs = 1;
  std::string shard;                      ///< I/N, "": the whole campaign
  std::optional<int64_t> otherModesShare; ///< percent; unset: kDefaultEagerShare, or 100 with --mode
  int64_t culpritRuns = CampaignOptions{}.culpritRuns; ///< culprit localisation's runs per finding
};

/// The modes a campaign explores in by default: `direct` (the batching rules alone, hundreds of
/// cases a second) for most of the time, and `eager` (the public API, which traces with dynamo)
/// for kDefaultEagerShare percent of the time the systems take.
inline const SystemDefaults kCampaignDefaults{.modes = "direct,eager", .devices = "cpu"};
constexpr int kDefaultEagerShare = 50;

/// Declares --seed, --cases, --jobs, --shard, --other-modes-share and --culprit-runs.
void addCampaignFlags(CLI::App &cmd, CampaignFlags &f);

/// The options of a campaign of these flags (seed, cases, shard, generator policy, the flags its
/// reproduce lines repeat).
CampaignOptions campaignOptions(const CampaignFlags &c, const SystemFlags &s);

/// What a campaign learns before it starts: the share of time of the modes after the first, and
/// which constructs the installed torch cannot batch (start-up probes).
void campaignModes(const CampaignFlags &c, const SystemFlags &s, const Systems &systems, CampaignOptions &opt);

} // namespace vf::cli
