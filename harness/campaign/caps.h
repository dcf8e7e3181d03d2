#pragma once
/// `vmapfuzz caps`: probes the installed torch with one small program per construct and way of
/// batching it, in every mode and on every device, and says which have working batching rules.
#include <ostream>
#include <string>
#include <vector>

#include "harness/campaign/campaign.h"
#include "ir/program.h"

namespace vf {

struct Probe {
  std::string construct; ///< cond, switch, while_loop, scan
  std::string what;      ///< e.g. "batched predicate"
  Case c;
};

/// The probes, parsed from their text (they are part of the program, so they always parse).
std::vector<Probe> capabilityProbes();

/// A verdict as a capability: "ok", "no rule", "fails: batched-error", ...
std::string capabilityOf(Verdict v);

/// Probes every runner of `runners` (each probe takes milliseconds in direct mode): a construct
/// whose every probe comes back `unsupported` on a runner goes into opt.unsupportedIn for it;
/// one unsupported on every runner is no longer generated (its weight set to 0 through
/// opt.policy and opt.genFlags, so reproduce lines regenerate the same cases), unless
/// opt.policy.keepUnsupported (then nothing is probed: every construct is generated and run on
/// every runner, as before the probes existed). Returns the constructs no longer generated, and
/// says so in `log`.
std::vector<std::string> learnUnsupported(const RunnerSet &runners, CampaignOptions &opt, std::ostream &log);

/// Runs every probe on every runner and prints the matrix; returns the number of cells that
/// are not "ok".
int printCapabilities(const RunnerSet &runners, std::ostream &os);

} // namespace vf
