// Reads compute-sanitizer's text reports (racecheck, synccheck) into findings with source lines.
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

#include "harness/finding.h"

namespace gpugrade::gpu {

// `race` findings from "Race reported between Write access at ... in file.cu:9 / and Read access at ...
// in file.cu:14 [N hazards]", and `barrier-divergence` findings from "Barrier error detected. ...".
// Lines that are neither are ignored.
std::vector<Finding> parse_sanitizer_report(std::string_view text);

// The report of a series of `launches` (JobMode::kSeries), one finding list per launch: what follows the
// launcher's marker line for launch k, up to the next marker, belongs to launch k.
std::vector<std::vector<Finding>> parse_sanitizer_series(std::string_view text, size_t launches);

// How many launches of a series began: the launcher's marker lines in its output.
size_t series_launches_started(std::string_view text);

}  // namespace gpugrade::gpu
