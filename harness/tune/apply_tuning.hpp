// `run --tuning FILE|none` (docs/tuning.md, "Running tuned"): the planned cases get the
// configuration tuned for their device, backend, program and dataset where the file has one.
#pragma once

#include <string>
#include <vector>

#include "plan/selection.hpp"
#include "tune/tuning_file.hpp"

namespace tb {

// The tuning file `option` names: a path, "none" (device defaults only: ""), or "" (the
// default path, when that file exists, else "").
std::string tuning_file_for(const std::string& option);

// Gives each kernel case of `cases` the configuration `file` holds for its key
// (config_source "tuned"); the others keep their device default. Throws tb::Error, the
// message prefixed with `path`, when an entry's configuration is refused by the program's
// space on its device, and, for a file the user named (`named`), when it has entries but none
// for a device of the run. The default file is a cache of every device tuned from this
// account: other devices' entries in it are no error. Returns how many cases got a tuned
// configuration.
std::size_t apply_tuning(const TuningFile& file, const std::string& path, std::vector<Case>& cases,
                         const std::vector<BackendSlot>& slots, bool named = true);

}  // namespace tb
