#pragma once
/// `fuzz --known DIR`: bugs filed already (the project's reports/), read only; a finding filed
/// there is shown as known instead of being filed again (harness/report/known_reports.h).
#include <memory>
#include <ostream>
#include <string>

#include "harness/cli/cli.h"
#include "harness/report/known_reports.h"

namespace vf::cli {

/// --known's value that means "the checkout's reports/ when run inside the checkout".
inline constexpr const char *kKnownAuto = "auto";

/// Declares --known (default kKnownAuto; "none" turns it off).
void addKnownFlag(CLI::App &cmd, std::string &known);

/// The known set of a campaign that files into `reports`: nullptr when --known is "none", when
/// the default finds no checkout's reports/ around the working directory, or when it is
/// `reports` itself (its store counts those hits). Says which set it uses on `log`. A --known
/// that is not a folder of reports is a UsageError.
std::unique_ptr<KnownReports> openKnown(const std::string &known, const std::string &reports, std::ostream &log);

} // namespace vf::cli
