// Turns the user's --program/--dataset/--backend/--device/--variant choices into the list
// of benchmark cases, with one-line errors for names that match nothing.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "backend.hpp"
#include "program.hpp"

namespace tb {

// Splits repeated and comma-separated option values: {"a,b", "c"} -> {"a", "b", "c"}.
std::vector<std::string> split_list(const std::vector<std::string>& values);

struct BackendSlot {
    std::string id;
    std::unique_ptr<Backend> backend;
    std::vector<DeviceInfo> devices;  // empty when unavailable
    std::string unavailable;          // the reason, when the backend cannot start
    bool run_kernels = true;          // false: probed only to host vendor-library rows
};

// Creates each backend (ids must be known) and lists its devices; never throws for an
// unavailable backend, only for an unknown id.
std::vector<BackendSlot> probe_backends(const std::vector<std::string>& ids);

// Probes what `--backend` asks for: "vendor" needs the cuda-native backend's devices, which
// are then probed without running their kernels unless cuda-native was asked for too.
std::vector<BackendSlot> probe_requested(const std::vector<std::string>& requested, bool* vendor);

// Device indices of one backend chosen by the selectors: an index ("0") or a
// case-insensitive substring of the device's name, vendor or platform ("h100", "pocl").
// No selectors: the GPUs if the backend has any, otherwise every device.
std::vector<std::size_t> select_devices(const std::vector<DeviceInfo>& devices,
                                        const std::vector<std::string>& selectors);
bool selector_matches(const DeviceInfo& d, std::size_t index, const std::string& selector);

// Where a case's configuration came from (Case::config_source, the results' config_source).
inline constexpr const char* kDeviceDefaultSource = "device-default";
inline constexpr const char* kTunedSource = "tuned";

struct Case {
    const Program* program;
    Dataset dataset;
    std::string variant;
    LaunchMode launch;
    std::size_t slot;    // index into the BackendSlot list
    std::size_t device;  // index into that slot's devices
    std::string name;    // benchmark name
    bool vendor = false; // a vendor-library baseline row (backend "vendor") on a CUDA device
    // The kernels' tuning configuration (Program::defines(config); docs/tuning.md): the
    // device's default from plan_cases, or a tuning file's entry (config_source "tuned").
    // Empty with no source for vendor rows.
    TuningConfig config;
    std::string config_source;
};

struct SelectionRequest {
    std::vector<std::string> programs, datasets, variants, devices;
    std::vector<LaunchMode> launches;  // empty: stream, plus graph where supported
    bool all_datasets = false;          // also the large datasets on CPU devices
    bool small_only = false;            // only the CI-sized datasets, on every device
    bool vendor = false;                // add vendor-library rows (cuFFT, cuSPARSE) on cuda-native devices
    std::vector<std::string> matrix_files;  // --matrix: datasets read from files
};

// Builds the cases; throws tb::Error for an unknown program, dataset, variant or device.
std::vector<Case> plan_cases(const SelectionRequest& req, const std::vector<BackendSlot>& slots);

std::string benchmark_name(const Program& p, const std::string& dataset, const std::string& variant,
                           const std::string& backend, LaunchMode launch);

}  // namespace tb
