// `tribench report`: REPORT.md plus the PNG plots scripts/report.py draws from
// report-data.json, all in one folder.
#include <filesystem>
#include <iostream>

#include "support/atomic_file.hpp"
#include "cli/commands.hpp"
#include "results/metric.hpp"
#include "report/report.hpp"
#include "support/subprocess.hpp"

namespace tb {
namespace {

namespace fs = std::filesystem;

std::vector<PlotEntry> draw_plots(const std::string& data_path, const std::string& dir) {
    std::string manifest;
    for (const auto& line : run_plotting_script("TRIBENCH_REPORT_SCRIPT", "report.py", data_path, dir))
        manifest += line + "\n";
    return parse_plot_manifest(manifest);
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
    std::vector<LoadedResults> best_files;
    for (const auto& f : o.best) best_files.push_back({f, load_results_as(f, o.metric)});
    const auto best_groups = group_by_device(best_files, ro);
    const std::string data_path = (fs::path(o.out) / "report-data.json").string();
    write_file_atomically(data_path, report_plot_data(groups, ro).dump(1) + "\n");

    std::vector<PlotEntry> plots;
    if (!o.no_plots) plots = draw_plots(data_path, o.out);
    const std::string md_path = (fs::path(o.out) / "REPORT.md").string();
    write_file_atomically(md_path, report_markdown(files, groups, ro, plots, best_groups));
    std::cout << "wrote " << md_path << " and " << plots.size() << " plot" << (plots.size() == 1 ? "" : "s") << "\n";
    return 0;
}

}  // namespace tb
