// `tribench report`: REPORT.md (environment, per-program tables of medians, speedups, RSDs
// and validation) and the data scripts/report.py plots from. Pure building: the command
// (cmd_report.cpp) writes the files and runs the script.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "results/results.hpp"

namespace tb {

struct LoadedResults {
    std::string path;
    Results results;
};

struct ReportOptions {
    std::string baseline = "cuda-native";
    double alpha = 0.05;
    double peak_gbps = 0;    // roofline ceilings for devices without calibration; 0: none
    double peak_gflops = 0;
};

// Benchmarks of all files that ran on devices of one name (a GPU's backends share it),
// merged; the first file wins when a benchmark name repeats.
struct DeviceGroup {
    std::string device;     // device name, or the device id when the file does not list it
    Results merged;         // its benchmarks; device ids made unique across files
    double copy_gbps = 0;   // roofline ceilings (0: unknown)
    double fp32_gflops = 0;
    std::string ceiling_source;  // "calibration", "--peak-gbps/--peak-gflops" or ""
    std::map<std::string, double> empty_kernel_us;  // backend -> its calibrated clock floor
    std::vector<std::string> duplicates;  // "name (file)" ignored as repeats
};

std::vector<DeviceGroup> group_by_device(const std::vector<LoadedResults>& files, const ReportOptions& o);

// The baseline of one program in a group: o.baseline when it ran there, else the first
// backend (cuda-native, cuda-prelude, opencl, vendor order) with an ok result; "" if none.
std::string program_baseline(const Results& merged, const std::string& program, const std::string& wanted);

// Input of scripts/report.py (schema "tribench-report-data"): one flat record per
// benchmark with its speedup, and each device's ceilings.
nlohmann::json report_plot_data(const std::vector<DeviceGroup>& groups, const ReportOptions& o);

struct PlotEntry {
    std::string file;     // relative to the report folder
    std::string device;   // the DeviceGroup's device
    std::string program;  // "" for device-level plots (roofline)
    std::string title;
};
// Parses the script's "plot\t<file>\t<device>\t<program>\t<title>" lines; other lines
// (warnings) are ignored.
std::vector<PlotEntry> parse_plot_manifest(const std::string& output);

// best_groups: group_by_device of `report --best` files (each backend with its own tuned
// configuration); each program's table then shows the each-at-its-own-best view beside.
std::string report_markdown(const std::vector<LoadedResults>& files, const std::vector<DeviceGroup>& groups,
                            const ReportOptions& o, const std::vector<PlotEntry>& plots,
                            const std::vector<DeviceGroup>& best_groups = {});

}  // namespace tb
