#include "report/table.hpp"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "backend.hpp"

namespace tb {

double baseline_median(const Results& r, const BenchmarkResult& b, std::string* baseline_backend) {
    for (const auto& id : backend_ids()) {
        for (const auto& o : r.benchmarks) {
            if (o.backend != id || o.status != Status::Ok) continue;
            if (o.program != b.program || o.dataset != b.dataset || o.variant != b.variant || o.launch != b.launch)
                continue;
            if (baseline_backend) *baseline_backend = id;
            return o.summary.median;
        }
    }
    return 0;
}

namespace {

std::string fmt(const char* f, double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, f, v);
    return buf;
}

std::string throughput_text(const BenchmarkResult& b) {
    if (b.work.flops > 0 && b.throughput.gflops >= 1 && b.work.bytes > 0 &&
        b.work.flops / b.work.bytes > 4)  // compute-bound work: report GFLOP/s
        return fmt("%.1f GFLOP/s", b.throughput.gflops);
    if (b.work.bytes > 0) return fmt("%.1f GB/s", b.throughput.gbps);
    return "";
}

// n: noisy, t: throttled, b: budget cut, p: plain timing where gated was asked for.
std::string result_flags(const BenchmarkResult& b) {
    std::string f;
    if (b.noisy) f += 'n';
    if (b.throttled) f += 't';
    if (b.budget_cut) f += 'b';
    if (b.timing == "plain" && !b.timing_note.empty()) f += 'p';
    return f;
}

}  // namespace

std::string format_results_table(const Results& r, bool color) {
    struct Row {
        std::string cells[9];
        bool bad;
    };
    constexpr int kCols = 9;
    const char* head[kCols] = {"benchmark", "device", "status", "median ms", "rsd", "batch ms", "throughput", "speedup", "flags"};
    bool any_flag = false;
    std::vector<Row> rows;
    for (const auto& b : r.benchmarks) {
        Row row{};
        row.cells[0] = b.picked.empty() ? b.name : b.name + " -> " + b.picked;
        row.cells[1] = b.device;
        row.cells[2] = to_string(b.status);
        row.bad = b.status == Status::ValidationFailed || b.status == Status::Error;
        if (b.status == Status::Ok) {
            row.cells[3] = fmt("%.4f", b.summary.median);
            row.cells[4] = fmt("%.1f%%", 100 * b.summary.rsd);
            if (b.batch_ms > 0) row.cells[5] = fmt("%.4f", b.batch_ms);
            row.cells[6] = throughput_text(b);
            std::string base_id;
            const double base = baseline_median(r, b, &base_id);
            if (base > 0 && b.summary.median > 0)
                row.cells[7] = fmt("%.2fx", base / b.summary.median) + (base_id == "cuda-native" ? "" : " vs " + base_id);
            row.cells[8] = result_flags(b);
            any_flag = any_flag || !row.cells[8].empty();
        }
        rows.push_back(row);
    }
    std::size_t w[kCols];
    for (int c = 0; c < kCols; ++c) {
        w[c] = std::string(head[c]).size();
        for (const auto& row : rows) w[c] = std::max(w[c], row.cells[c].size());
    }
    std::ostringstream out;
    auto line = [&](const std::string* cells, const char* on, const char* off) {
        const int last = kCols - 1;
        for (int c = 0; c < kCols; ++c) {
            const bool right = c >= 3 && c < last;
            std::string cell = cells[c];
            std::string pad(w[c] - cell.size(), ' ');
            if (c == 2 && on) cell = on + cell + off;
            if (c == last) out << cell << "\n";
            else out << (right ? pad + cell : cell + pad) << "  ";
        }
    };
    std::string h[kCols];
    for (int c = 0; c < kCols; ++c) h[c] = head[c];
    line(h, nullptr, nullptr);
    for (const auto& row : rows) {
        const bool ok = row.cells[2] == "ok";
        if (color && (row.bad || ok))
            line(row.cells, row.bad ? "\033[31m" : "\033[32m", "\033[0m");
        else
            line(row.cells, nullptr, nullptr);
    }
    out << "speedup: baseline median / this median, against cuda-native of the same program, dataset, variant and launch\n";
    out << "batch ms: one run's share of back-to-back runs (launch overhead overlapped); median ms is gated unless flagged p\n";
    if (any_flag)
        out << "flags: n noisy (stopping rule timed out), t GPU clock throttled, b sampling cut by --budget, "
               "p timed plainly (gated timing unavailable)\n";
    return out.str();
}

}  // namespace tb
