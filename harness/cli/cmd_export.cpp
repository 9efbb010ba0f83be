// `tribench export --futhark|--github-benchmark RESULTS.json OUT.json`.
#include <iostream>

#include <nlohmann/json.hpp>

#include "support/atomic_file.hpp"
#include "cli/commands.hpp"
#include "report/reporter.hpp"

namespace tb {

int cmd_export(const ExportCmdOptions& o) {
    if (!o.futhark && !o.github_benchmark)
        throw Error("export needs a format: --futhark (the layout of `futhark bench --json`) or --github-benchmark "
                    "(github-action-benchmark's customSmallerIsBetter)");
    if (o.futhark && o.github_benchmark) throw Error("--futhark and --github-benchmark exclude each other");
    const Results r = load_results(o.input);
    if (o.github_benchmark && !o.backend.empty()) throw Error("--backend applies to --futhark only");
    ReportInput in = run_report(r);
    in.backend = o.backend;
    const std::string text = render_report(o.futhark ? "futhark" : "github-benchmark", in);
    write_file_atomically(o.output, text);
    // Both formats are one JSON value whose entries are what was exported.
    const std::size_t n = nlohmann::json::parse(text).size();
    if (o.github_benchmark)
        std::cout << "wrote " << o.output << ": " << n << " benchmark" << (n == 1 ? "" : "s")
                  << " for github-action-benchmark (tool: customSmallerIsBetter)\n";
    else
        std::cout << "wrote " << o.output << ": " << n << " Futhark program" << (n == 1 ? "" : "s") << "\n";
    return 0;
}

}  // namespace tb
