// REPORT.md: what ran where, then per device and program the medians, speedups, RSDs and
// validation, with the plots the script made placed beside their tables.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <set>
#include <sstream>

#include "compare/compare.hpp"
#include "report/compare_text.hpp"
#include "report/text_format.hpp"
#include "results/environment.hpp"
#include "report/report.hpp"

namespace tb {

using nlohmann::json;

namespace {

std::string printf_str(const char* f, double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, f, v);
    return buf;
}

std::string env_text(const json& env, const char* key) {
    if (!env.is_object() || !env.contains(key)) return "";
    const json& v = env[key];
    if (v.is_string()) return v.get<std::string>();
    if (v.is_array()) {
        std::string s;
        for (const auto& e : v) s += (s.empty() ? "" : " ") + (e.is_string() ? e.get<std::string>() : e.dump());
        return s;
    }
    return v.dump();
}

std::string gib(std::uint64_t bytes) { return bytes ? printf_str("%.1f GiB", double(bytes) / (1u << 30)) : ""; }

void runs_section(std::ostringstream& out, const std::vector<LoadedResults>& files) {
    out << "## Runs\n\n| file | tribench | created (UTC) | host | CPU | OS | compiler | options |\n"
        << "|:--|:--|:--|:--|:--|:--|:--|:--|\n";
    for (const auto& f : files) {
        const json& e = f.results.environment;
        out << "| " << markdown_escape(f.path) << " | "
            << markdown_escape(env_text(e, "tribench_version") + " " + env_text(e, "tribench_commit")) << " | "
            << markdown_escape(env_text(e, "created_utc")) << " | " << markdown_escape(env_text(e, "hostname")) << " | "
            << markdown_escape(env_text(e, "cpu")) << " | " << markdown_escape(env_text(e, "os")) << " | "
            << markdown_escape(env_text(e, "compiler")) << " | " << markdown_escape(env_text(e, "options")) << " |\n";
    }
    out << "\n";
    for (const auto& f : files) {
        const std::string cmd = env_text(f.results.environment, "command_line");
        if (!cmd.empty()) out << "- `" << markdown_escape(f.path) << "`: `" << cmd << "`\n";
    }
    out << "\n";
}

void devices_section(std::ostringstream& out, const std::vector<DeviceGroup>& groups) {
    out << "## Devices\n\n| device | backends | compute capability | compute units | memory | clock MHz | driver | "
           "copy GB/s | FP32 GFLOP/s | ceilings from |\n|:--|:--|--:|--:|--:|--:|:--|--:|--:|:--|\n";
    for (const auto& g : groups) {
        std::set<std::string> backends;
        for (const auto& b : g.merged.benchmarks) backends.insert(b.backend);
        std::string bl;
        for (const auto& b : backends) bl += (bl.empty() ? "" : ", ") + b;
        const DeviceRecord* d = g.merged.devices.empty() ? nullptr : &g.merged.devices.front();
        std::string cc, cus, mem, clock, driver;
        if (d) {
            if (d->info.cc_major > 0) cc = std::to_string(d->info.cc_major) + "." + std::to_string(d->info.cc_minor);
            if (d->info.compute_units > 0) cus = std::to_string(d->info.compute_units);
            mem = gib(d->info.global_mem_bytes);
            if (d->info.clock_mhz > 0) clock = std::to_string(d->info.clock_mhz);
            driver = d->info.driver_version;
        }
        out << "| " << markdown_escape(g.device) << " | " << markdown_escape(bl) << " | " << cc << " | " << cus << " | "
            << mem << " | " << clock << " | " << markdown_escape(driver) << " | "
            << (g.copy_gbps > 0 ? printf_str("%.0f", g.copy_gbps) : "") << " | "
            << (g.fp32_gflops > 0 ? printf_str("%.0f", g.fp32_gflops) : "") << " | "
            << markdown_escape(g.ceiling_source.empty() ? "none" : g.ceiling_source) << " |\n";
    }
    out << "\n";
    // Each backend's clock floor: what no kernel can read less than on it (docs/measurement.md).
    for (const auto& g : groups) {
        if (g.empty_kernel_us.empty()) continue;
        out << "Clock floor on " << markdown_escape(g.device) << " (an empty kernel, timed like the benchmarks):";
        const char* sep = " ";
        for (const auto& [backend, us] : g.empty_kernel_us) {
            out << sep << markdown_escape(backend) << " " << printf_str("%.2f", us) << " us";
            sep = ", ";
        }
        out << ".\n\n";
    }
}

void summary_section(std::ostringstream& out, const std::vector<DeviceGroup>& groups) {
    std::size_t counts[4] = {0, 0, 0, 0};
    for (const auto& g : groups)
        for (const auto& b : g.merged.benchmarks) ++counts[int(b.status)];
    out << "## Summary\n\n" << counts[0] + counts[1] + counts[2] + counts[3] << " benchmarks: " << counts[0]
        << " ok, " << counts[1] << " validation failed, " << counts[2] << " error, " << counts[3] << " skipped.\n\n";
}

// Median and speedup per backend, one row per dataset/variant/launch.
// A group's benchmarks of one program, with the group's devices.
Results program_results(const Results& merged, const std::string& program) {
    Results one;
    one.devices = merged.devices;
    for (const auto& b : merged.benchmarks)
        if (b.program == program) one.benchmarks.push_back(b);
    return one;
}

const DeviceGroup* group_named(const std::vector<DeviceGroup>& groups, const std::string& device) {
    for (const auto& g : groups)
        if (g.device == device) return &g;
    return nullptr;
}

void matrix_table(std::ostringstream& out, const BackendMatrix& m) {
    out << "Median time in ms (speedup vs " << markdown_escape(m.baseline)
        << "; ~ marks no significant difference, two-sided Mann-Whitney U at p < " << printf_str("%g", m.alpha) << ")";
    if (m.has_best)
        out << "; each \"best\" column: the backend with the configuration tuned for it, against "
            << markdown_escape(m.baseline) << " with its own";
    out << ":\n\n| dataset |";
    const std::vector<MatrixColumn> columns = matrix_columns(m);
    for (const auto& c : columns) out << " " << markdown_escape(c.head) << " |";
    out << "\n|:--|";
    for (std::size_t i = 0; i < columns.size(); ++i) out << "--:|";
    out << "\n";
    for (const auto& r : m.rows) {
        // The section names the program already.
        const std::string label = r.label();
        const std::string key = label.rfind(r.program + "/", 0) == 0 ? label.substr(r.program.size() + 1) : label;
        out << "| " << markdown_escape(key) << " |";
        for (const auto& col : columns) {
            const MatrixCell* c = col.best ? r.cells[col.cell].best.get() : &r.cells[col.cell];
            std::string text;
            if (c && c->present && c->status != Status::Ok) text = to_string(c->status);
            else if (c && c->present) {
                text = format_ms(c->median_ms);
                if (c->speedup > 0)
                    text += " (" + std::string(col.is_baseline || c->significant ? "" : "~") + format_speedup(c->speedup) + ")";
            }
            out << " " << markdown_escape(text) << " |";
        }
        out << "\n";
    }
    out << "\n";
}

std::string fraction(double v, double peak) { return peak > 0 ? printf_str(" (%.0f%%)", 100 * v / peak) : ""; }

void details_table(std::ostringstream& out, const DeviceGroup& g, const std::string& program) {
    out << "<details><summary>Details: RSD, throughput, validation</summary>\n\n"
        << "| benchmark | status | median ms | RSD | samples | GB/s (of copy) | GFLOP/s (of FP32) | validation |\n"
        << "|:--|:--|--:|--:|--:|--:|--:|:--|\n";
    for (const auto& b : g.merged.benchmarks) {
        if (b.program != program) continue;
        const bool ok = b.status == Status::Ok && b.summary.median > 0;
        const double sec = b.summary.median * 1e-3;
        const double gbps = ok ? b.work.bytes / sec * 1e-9 : 0, gflops = ok ? b.work.flops / sec * 1e-9 : 0;
        std::string validation = b.validation.detail;
        if (b.validation.sampled) validation += " (sampled)";
        if (!ok && !b.error.empty()) validation = b.error;
        out << "| " << markdown_escape(b.name) << " | " << to_string(b.status) << " | "
            << (ok ? format_ms(b.summary.median) : "") << " | " << (ok ? printf_str("%.1f%%", 100 * b.summary.rsd) : "")
            << " | " << b.samples_ms.size() << " | "
            << (ok && b.work.bytes > 0 ? printf_str("%.1f", gbps) + fraction(gbps, g.copy_gbps) : "") << " | "
            << (ok && b.work.flops > 0 ? printf_str("%.1f", gflops) + fraction(gflops, g.fp32_gflops) : "") << " | "
            << markdown_escape(validation) << " |\n";
    }
    out << "\n</details>\n\n";
}

void plots_for(std::ostringstream& out, const std::vector<PlotEntry>& plots, const std::string& device,
               const std::string& program) {
    for (const auto& p : plots)
        if (p.device == device && p.program == program)
            out << "![" << markdown_escape(p.title) << "](" << p.file << ")\n\n";
}

void failures_section(std::ostringstream& out, const std::vector<DeviceGroup>& groups) {
    std::ostringstream rows;
    for (const auto& g : groups)
        for (const auto& b : g.merged.benchmarks)
            if (b.status != Status::Ok)
                rows << "| " << markdown_escape(b.name) << " | " << markdown_escape(g.device) << " | "
                     << to_string(b.status) << " | " << markdown_escape(b.error) << " |\n";
    if (rows.str().empty()) return;
    out << "## Not ok\n\n| benchmark | device | status | why |\n|:--|:--|:--|:--|\n" << rows.str() << "\n";
}

}  // namespace

std::string report_markdown(const std::vector<LoadedResults>& files, const std::vector<DeviceGroup>& groups,
                            const ReportOptions& o, const std::vector<PlotEntry>& plots,
                            const std::vector<DeviceGroup>& best_groups) {
    std::ostringstream out;
    out << "# tribench report\n\nWritten by `tribench report` (tribench " << tribench_version() << ") from "
        << files.size() << " results file" << (files.size() == 1 ? "" : "s")
        << ". Speedup = baseline median / backend median; times are device times of validated runs.\n\n";
    runs_section(out, files);
    devices_section(out, groups);
    summary_section(out, groups);
    for (const auto& g : groups) {
        out << "## " << markdown_escape(g.device) << "\n\n";
        for (const auto& d : g.duplicates) out << "> ignored, already read from an earlier file: " << markdown_escape(d) << "\n\n";
        plots_for(out, plots, g.device, "");
        std::vector<std::string> programs;
        for (const auto& b : g.merged.benchmarks)
            if (std::find(programs.begin(), programs.end(), b.program) == programs.end()) programs.push_back(b.program);
        for (const auto& p : programs) {
            out << "### " << markdown_escape(p) << "\n\n";
            const std::string base = program_baseline(g.merged, p, o.baseline);
            if (!base.empty()) {
                BackendMatrix m = backend_matrix(program_results(g.merged, p), base, o.alpha);
                const std::size_t notes_before = m.notes.size();  // the report lists the view's notes only
                if (const DeviceGroup* bg = group_named(best_groups, g.device)) {
                    const Results best_one = program_results(bg->merged, p);
                    if (program_baseline(best_one, p, base) == base)
                        add_best_view(m, backend_matrix(best_one, base, o.alpha));
                }
                for (std::size_t i = notes_before; i < m.notes.size(); ++i)
                    out << "> " << markdown_escape(m.notes[i]) << "\n\n";
                if (base != o.baseline)
                    out << "> " << markdown_escape(o.baseline) << " has no ok result here: speedups are against "
                        << markdown_escape(base) << ".\n\n";
                matrix_table(out, m);
            } else {
                out << "No backend produced an ok result.\n\n";
            }
            details_table(out, g, p);
            plots_for(out, plots, g.device, p);
        }
    }
    failures_section(out, groups);
    return out.str();
}

}  // namespace tb
