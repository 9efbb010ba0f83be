// `tribench report`: REPORT.md plus the PNG plots scripts/report.py draws from
// report-data.json, all in one folder.
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <sstream>

#include "support/atomic_file.hpp"
#include "cli/commands.hpp"
#include "results/metric.hpp"
#include "report/report.hpp"
#include "support/subprocess.hpp"

#ifndef TRIBENCH_SOURCE_DIR
#define TRIBENCH_SOURCE_DIR "."
#endif

namespace tb {
namespace {

namespace fs = std::filesystem;

// Exit status 3 is the script's way of saying matplotlib (or numpy) cannot be imported.
constexpr int kScriptMissingModule = 3;

std::vector<PlotEntry> draw_plots(const std::string& data_path, const std::string& dir) {
    const std::string script = plotting_script("TRIBENCH_REPORT_SCRIPT", "report.py");
    ProcessResult pr;
    try {
        pr = run_process({"python3", script, data_path, "--out", dir});
    } catch (const Error& e) {
        throw Error(std::string(e.what()) + ": the plots need python3 with matplotlib (scripts/setup.sh), or pass --no-plots");
    }
    if (pr.exit_code == kScriptMissingModule)
        throw Error("python3 " + last_output_line(pr.output) + ": install it (scripts/setup.sh does) or pass --no-plots");
    if (pr.exit_code != 0)
        throw Error(script + " failed (exit " + std::to_string(pr.exit_code) + "): " + last_output_line(pr.output));
    std::istringstream in(pr.output);
    std::string line;
    while (std::getline(in, line))  // pass on the script's warnings
        if (line.rfind("plot\t", 0) != 0 && !line.empty()) std::cerr << "report.py: " << line << "\n";
    return parse_plot_manifest(pr.output);
}

}  // namespace

int cmd_report(const ReportCmdOptions& o) {
    if (o.files.empty()) throw Error("report needs at least one results file");
    if (o.peak_gbps < 0 || o.peak_gflops < 0) throw Error("--peak-gbps and --peak-gflops must be positive");
    if (!(o.alpha > 0 && o.alpha < 1)) throw Error("--alpha must lie between 0 and 1");
    std::vector<LoadedResults> files;
    for (const auto& f : o.files) files.push_back({f, load_results_as(f, o.metric)});

    std::error_code ec;
    fs::create_directories(o.out, ec);
    if (ec || !fs::is_directory(o.out)) throw Error("cannot create folder " + o.out + ": " + (ec ? ec.message() : "not a folder"));

    ReportOptions ro;
    ro.baseline = o.baseline;
    ro.alpha = o.alpha;
    ro.peak_gbps = o.peak_gbps;
    ro.peak_gflops = o.peak_gflops;
    const auto groups = group_by_device(files, ro);
    const std::string data_path = (fs::path(o.out) / "report-data.json").string();
    write_file_atomically(data_path, report_plot_data(groups, ro).dump(1) + "\n");

    std::vector<PlotEntry> plots;
    if (!o.no_plots) plots = draw_plots(data_path, o.out);
    const std::string md_path = (fs::path(o.out) / "REPORT.md").string();
    write_file_atomically(md_path, report_markdown(files, groups, ro, plots));
    std::cout << "wrote " << md_path << " and " << plots.size() << " plot" << (plots.size() == 1 ? "" : "s") << "\n";
    return 0;
}

}  // namespace tb
