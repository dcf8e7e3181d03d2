#include "harness/cli/campaign_flags.h"

#include <unistd.h>

#include <cstdio>
#include <iostream>

#include "harness/campaign/caps.h"
#include "harness/report/reproduce.h"

namespace vf::cli {

void addCampaignFlags(CLI::App &cmd, CampaignFlags &f) {
  flag(cmd, "--seed", f.seed, "campaign seed: every case's seed derives from it");
  flag(cmd, "--cases", f.cases, "at most this many cases (-1: no limit)")->check(inRange(-1));
  flag(cmd, "--jobs", f.jobs, "worker processes running cases in parallel")->check(inRange(1, 256));
  cmd.add_option("--shard", f.shard, "I/N: only case indices i with i % N == I (shards of one seed never overlap)");
  cmd.add_option("--other-modes-share", f.otherModesShare,
                 "percent: the modes after the first get at most this share of the systems' time (default " +
                     std::to_string(kDefaultEagerShare) + " with the default modes, 100 with --mode)")
      ->check(inRange(0, 100));
  flag(cmd, "--culprit-runs", f.culpritRuns,
       "runs per new finding to find the component of torch's batching it needs, each swapped for a per-example loop (0: off)")
      ->check(inRange(0, 1000));
}

/// --shard I/N into the campaign options.
static void parseShard(const std::string &sh, CampaignOptions &opt) {
  if (sh.empty()) return;
  long long i = -1, n = 0;
  char tail = 0;
  if (std::sscanf(sh.c_str(), "%lld/%lld%c", &i, &n, &tail) != 2 || n < 1 || i < 0 || i >= n)
    throw UsageError("--shard needs I/N with 0 <= I < N, got '" + sh + "'");
  opt.shard = i;
  opt.shards = n;
}

CampaignOptions campaignOptions(const CampaignFlags &c, const SystemFlags &s) {
  CampaignOptions opt;
  opt.seed = c.seed;
  opt.maxCases = c.cases;
  opt.culpritRuns = static_cast<int>(c.culpritRuns);
  opt.tty = isatty(2);
  opt.policy = policyFrom(s);
  opt.genFlags = genFlagsOf(s.gen);
  opt.runFlags = runFlags(s);
  parseShard(c.shard, opt);
  return opt;
}

void campaignModes(const CampaignFlags &c, const SystemFlags &s, const Systems &systems, CampaignOptions &opt) {
  int64_t share = c.otherModesShare.value_or(s.modesFlag->count() > 0 ? 100 : kDefaultEagerShare);
  opt.otherModesShare = static_cast<double>(share) / 100.0;
  learnUnsupported(systems.runners(), opt, std::cerr);
}

} // namespace vf::cli
