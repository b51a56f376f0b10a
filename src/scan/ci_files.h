#pragma once
// Files a CI runner gives a step for its output: `echo "x=1" >>
// "$GITHUB_OUTPUT"`, a job summary appended to `$GITHUB_STEP_SUMMARY`. The
// classifier sees a write to a path known only at run time (L2); in a CI file
// it is the runner's own channel, so the scan reads such a write as one to
// /dev/null. The variable names are data (config/scan.yaml ci_output_files).

#include <string>
#include <string_view>
#include <vector>

namespace togmal::scan {

/// `command` with each reference to one of `variables` (`$V`, `${V}`,
/// quoted or not) that is a redirection's target (`>`, `>>`, `>|`, `&>>`) or
/// an argument of `tee` replaced by `/dev/null` (padded with blanks when the
/// reference is longer, so positions keep matching the file).
std::string WithoutCiFileWrites(std::string_view command,
                                const std::vector<std::string>& variables);

}  // namespace togmal::scan
