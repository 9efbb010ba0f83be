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
//
// `borrow` takes each case's configuration from another key instead (docs/tuning.md, "Two
// cross-backend views" and "Portability"): the one tuned for backend `borrow.backend` (every
// backend then runs the same configuration) and/or on the device named `borrow.device` (any
// driver; the newest entry). config_source then says whose it is ("tuned for cuda-native",
// "tuned on NVIDIA H100 80GB HBM3"); a borrowed configuration this device's space refuses is
// no error here: its benchmark fails with the reason (the runner checks every configuration).
struct TuningBorrow {
    std::string backend, device;  // "": the case's own
    bool any() const { return !backend.empty() || !device.empty(); }
};
std::size_t apply_tuning(const TuningFile& file, const std::string& path, std::vector<Case>& cases,
                         const std::vector<BackendSlot>& slots, bool named = true, const TuningBorrow& borrow = {});

}  // namespace tb
