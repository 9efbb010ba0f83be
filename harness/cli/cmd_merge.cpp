// `tribench merge FILES... -o OUT` (docs/scale-out.md).
#include <iostream>

#include "cli/commands.hpp"
#include "results/merge.hpp"

namespace tb {

int cmd_merge(const MergeCmdOptions& o) {
    if (o.out.empty()) throw Error("merge needs -o OUT");
    MergeOptions mo;
    mo.ignore_commit = o.ignore_commit;
    mo.ignore_math = o.ignore_math;
    mo.ignore_options = o.ignore_options;
    mo.ignore_devices = o.ignore_devices;
    mo.ignore_selection = o.ignore_selection;
    mo.allow_missing = o.allow_missing;
    mo.allow_duplicates = o.allow_duplicates;
    if (o.force) mo.force();

    std::vector<ShardFile> files;
    for (const auto& path : o.files) files.push_back(ShardFile{path, load_results(path)});
    const MergeOutcome m = merge_shards(files, mo);
    for (const auto& w : m.warnings) std::cerr << "tribench: " << w << "\n";
    save_results(o.out, m.merged);

    std::size_t ok = 0;
    for (const auto& b : m.merged.benchmarks) ok += b.status == Status::Ok;
    std::cout << "merged " << files.size() << " file" << (files.size() == 1 ? "" : "s") << ": "
              << m.merged.benchmarks.size() << " benchmarks (" << ok << " ok";
    if (ok < m.merged.benchmarks.size()) std::cout << ", " << m.merged.benchmarks.size() - ok << " not ok";
    std::cout << ")";
    if (!m.missing.empty()) std::cout << ", " << m.missing.size() << " missing";
    if (!m.duplicated.empty()) std::cout << ", " << m.duplicated.size() << " duplicated (first kept)";
    std::cout << " -> " << o.out << "\n";
    return 0;
}

}  // namespace tb
