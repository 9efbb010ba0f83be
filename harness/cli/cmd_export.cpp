// `tribench export --futhark|--github-benchmark RESULTS.json OUT.json`.
#include <iostream>

#include "support/atomic_file.hpp"
#include "cli/commands.hpp"
#include "report/futhark_export.hpp"
#include "report/gab_json.hpp"

namespace tb {

int cmd_export(const ExportCmdOptions& o) {
    if (!o.futhark && !o.github_benchmark)
        throw Error("export needs a format: --futhark (the layout of `futhark bench --json`) or --github-benchmark "
                    "(github-action-benchmark's customSmallerIsBetter)");
    if (o.futhark && o.github_benchmark) throw Error("--futhark and --github-benchmark exclude each other");
    const Results r = load_results(o.input);
    if (o.github_benchmark) {
        if (!o.backend.empty()) throw Error("--backend applies to --futhark only");
        const nlohmann::ordered_json j = github_benchmark_json(r);
        write_file_atomically(o.output, j.dump(1) + "\n");
        std::cout << "wrote " << o.output << ": " << j.size() << " benchmark" << (j.size() == 1 ? "" : "s")
                  << " for github-action-benchmark (tool: customSmallerIsBetter)\n";
        return 0;
    }
    FutharkExportOptions fo;
    fo.backend = o.backend;
    const nlohmann::json j = futhark_bench_json(r, fo);
    write_file_atomically(o.output, j.dump(1) + "\n");
    std::cout << "wrote " << o.output << ": " << j.size() << " Futhark program" << (j.size() == 1 ? "" : "s") << "\n";
    return 0;
}

}  // namespace tb
