// `tribench export --futhark RESULTS.json OUT.json`.
#include <iostream>

#include "atomic_file.hpp"
#include "commands.hpp"
#include "futhark_export.hpp"

namespace tb {

int cmd_export(const ExportCmdOptions& o) {
    if (!o.futhark) throw Error("export needs a format: --futhark (the layout of `futhark bench --json`)");
    const Results r = load_results(o.input);
    FutharkExportOptions fo;
    fo.backend = o.backend;
    const nlohmann::json j = futhark_bench_json(r, fo);
    write_file_atomically(o.output, j.dump(1) + "\n");
    std::cout << "wrote " << o.output << ": " << j.size() << " Futhark program" << (j.size() == 1 ? "" : "s") << "\n";
    return 0;
}

}  // namespace tb
