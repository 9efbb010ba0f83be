#include "results/results.hpp"

#include <limits>
#include <type_traits>

#include "support/atomic_file.hpp"
#include "support/json_field.hpp"
#include "support/gzip_text.hpp"
#include "printable.hpp"

namespace tb {

using nlohmann::json;

const char* to_string(Status s) {
    switch (s) {
        case Status::Ok: return "ok";
        case Status::ValidationFailed: return "validation_failed";
        case Status::Error: return "error";
        case Status::Skipped: return "skipped";
    }
    return "?";
}

Status status_from_string(const std::string& s) {
    for (Status st : {Status::Ok, Status::ValidationFailed, Status::Error, Status::Skipped})
        if (s == to_string(st)) return st;
    throw Error("unknown status '" + printable(s) + "'");
}

namespace {

json device_json(const DeviceRecord& d) {
    const DeviceInfo& i = d.info;
    return {{"id", d.id},
            {"backend", i.backend},
            {"name", i.name},
            {"vendor", i.vendor},
            {"platform", i.platform},
            {"driver_version", i.driver_version},
            {"runtime_version", i.runtime_version},
            {"compiler_version", i.compiler_version},
            {"compute_capability", std::to_string(i.cc_major) + "." + std::to_string(i.cc_minor)},
            {"compute_units", i.compute_units},
            {"global_mem_bytes", i.global_mem_bytes},
            {"free_mem_bytes", i.free_mem_bytes},
            {"max_alloc_bytes", i.max_alloc_bytes},
            {"max_local_mem_bytes", i.max_local_mem_bytes},
            {"max_work_group_size", i.max_work_group_size},
            {"clock_mhz", i.clock_mhz},
            {"mem_clock_mhz", i.mem_clock_mhz},
            {"mem_bus_width_bits", i.mem_bus_width_bits},
            {"is_gpu", i.is_gpu},
            {"is_nvidia", i.is_nvidia}};
}

// Optional integer field: 0 when absent; a float, a string or a value out of T's range is
// an error rather than an undefined conversion.
template <class T>
T integer_field(const json& j, const char* key, const std::string& where, const std::string& label = "") {
    if (!j.contains(key)) return T(0);
    const json& v = j.at(key);
    const bool fits = v.is_number_unsigned()  ? v.get<std::uint64_t>() <= std::uint64_t(std::numeric_limits<T>::max())
                      : v.is_number_integer() ? std::is_signed_v<T> && v.get<std::int64_t>() >= std::int64_t(std::numeric_limits<T>::min()) &&
                                                    v.get<std::int64_t>() <= std::int64_t(std::numeric_limits<T>::max())
                                              : false;
    if (!fits)
        throw Error(where + ": field '" + (label.empty() ? std::string(key) : label) + "' has the wrong type or is out of range");
    return v.get<T>();
}

DeviceRecord device_from_json(const json& j) {
    DeviceRecord d;
    d.id = j.at("id").get<std::string>();
    const std::string w = "device " + printable(d.id);
    DeviceInfo& i = d.info;
    i.backend = j.value("backend", "");
    i.name = j.value("name", "");
    i.vendor = j.value("vendor", "");
    i.platform = j.value("platform", "");
    i.driver_version = j.value("driver_version", "");
    i.runtime_version = j.value("runtime_version", "");
    i.compiler_version = j.value("compiler_version", "");
    const std::string cc = j.value("compute_capability", "0.0");
    const auto dot = cc.find('.');
    try {
        i.cc_major = std::stoi(cc.substr(0, dot));
        i.cc_minor = dot == std::string::npos ? 0 : std::stoi(cc.substr(dot + 1));
    } catch (const std::exception&) {
        throw Error(w + ": bad compute_capability '" + printable(cc) + "'");
    }
    i.compute_units = integer_field<int>(j, "compute_units", w);
    i.global_mem_bytes = integer_field<std::uint64_t>(j, "global_mem_bytes", w);
    i.free_mem_bytes = integer_field<std::uint64_t>(j, "free_mem_bytes", w);
    i.max_alloc_bytes = integer_field<std::uint64_t>(j, "max_alloc_bytes", w);
    i.max_local_mem_bytes = integer_field<std::size_t>(j, "max_local_mem_bytes", w);
    i.max_work_group_size = integer_field<std::size_t>(j, "max_work_group_size", w);
    i.clock_mhz = integer_field<int>(j, "clock_mhz", w);
    i.mem_clock_mhz = integer_field<int>(j, "mem_clock_mhz", w);
    i.mem_bus_width_bits = integer_field<int>(j, "mem_bus_width_bits", w);
    i.is_gpu = j.value("is_gpu", false);
    i.is_nvidia = j.value("is_nvidia", false);
    return d;
}

json summary_json(const Summary& s) {
    return {{"count", s.count},   {"min_ms", s.min},       {"max_ms", s.max},
            {"median_ms", s.median}, {"mean_ms", s.mean}, {"stddev_ms", s.stddev},
            {"rsd", s.rsd},       {"ci95_low_ms", s.ci95_low}, {"ci95_high_ms", s.ci95_high}};
}

json benchmark_json(const BenchmarkResult& b) {
    json j = {{"name", b.name},
              {"program", b.program},
              {"dataset", b.dataset},
              {"variant", b.variant},
              {"backend", b.backend},
              {"launch", b.launch},
              {"device", b.device},
              {"math", b.math},
              {"status", to_string(b.status)},
              {"error", b.error},
              {"validation",
               {{"ok", b.validation.ok},
                {"detail", b.validation.detail},
                {"checked", b.validation.checked},
                {"sampled", b.validation.sampled}}},
              {"compile",
               {{"ms", b.compile_ms}, {"cached", b.compile_cached}, {"cold_ms", b.compile_cold_ms},
                {"cached_ms", b.compile_cached_ms}}},
              {"noisy", b.noisy},
              {"timing", {{"mode", b.timing}, {"clock", b.timing_clock}, {"note", b.timing_note}}},
              {"batch", {{"ms", b.batch_ms}, {"runs", b.batch_runs}, {"samples_ms", b.batch_samples_ms}}},
              {"clock",
               {{"sm_mhz_min", b.clock.sm_mhz_min},
                {"sm_mhz_max", b.clock.sm_mhz_max},
                {"max_sm_mhz", b.clock.max_sm_mhz},
                {"reasons", b.clock.reasons}}},
              {"throttled", b.throttled},
              {"budget_cut", b.budget_cut},
              {"graph_capture_ms", b.graph_capture_ms},
              {"launches", b.launches},
              {"transfer", {{"upload_ms", b.upload_ms}, {"download_ms", b.download_ms}}},
              {"samples_ms", b.samples_ms},
              {"summary", summary_json(b.summary)},
              {"work",
               {{"bytes", b.work.bytes}, {"flops", b.work.flops}, {"items", b.work.items},
                {"item_name", b.work.item_name}}},
              {"throughput",
               {{"gbps", b.throughput.gbps},
                {"gflops", b.throughput.gflops},
                {"items_per_s", b.throughput.items_per_s},
                {"bw_fraction", b.throughput.bw_fraction},
                {"flop_fraction", b.throughput.flop_fraction}}},
              {"ptx_hash", b.ptx_hash},
              {"wall_ms", b.wall_ms}};
    if (b.merged_from >= 0) j["merged_from"] = b.merged_from;
    if (!b.picked.empty()) j["picked"] = b.picked;
    if (!b.config_source.empty()) {
        j["config"] = b.config;
        j["config_source"] = b.config_source;
    }
    if (b.pick_cost_ms > 0 || !b.pick_candidates_ms.empty())
        j["pick"] = {{"cost_ms", b.pick_cost_ms}, {"candidates_ms", b.pick_candidates_ms}};
    return j;
}

BenchmarkResult benchmark_from_json(const json& j, const std::string& where) {
    if (!j.is_object()) throw Error(where + ": not an object");
    BenchmarkResult b;
    b.name = json_field<std::string>(j, "name", where);
    b.program = json_field<std::string>(j, "program", where);
    b.dataset = json_field<std::string>(j, "dataset", where);
    b.variant = j.value("variant", "");
    b.picked = j.value("picked", "");
    if (j.contains("config")) {
        const json& c = j["config"];
        if (!c.is_object()) throw Error(where + ": field 'config' is not an object");
        for (const auto& [name, value] : c.items()) {
            if (!value.is_number_integer()) throw Error(where + ": config." + name + " is not an integer");
            b.config[name] = value.get<std::int64_t>();
        }
        b.config_source = j.value("config_source", "");
    }
    if (j.contains("pick")) {
        const json& pick = j["pick"];
        b.pick_cost_ms = pick.value("cost_ms", 0.0);
        b.pick_candidates_ms = pick.value("candidates_ms", std::map<std::string, double>{});
    }
    b.backend = json_field<std::string>(j, "backend", where);
    b.launch = j.value("launch", "stream");
    b.device = json_field<std::string>(j, "device", where);
    b.math = j.value("math", "default");
    const std::string status = json_field<std::string>(j, "status", where);
    try {
        b.status = status_from_string(status);
    } catch (const Error& e) {
        throw Error(where + ": " + e.what());
    }
    b.error = j.value("error", "");
    if (j.contains("validation")) {
        const json& v = j["validation"];
        b.validation.ok = v.value("ok", false);
        b.validation.detail = v.value("detail", "");
        b.validation.checked = integer_field<std::size_t>(v, "checked", where, "validation.checked");
        b.validation.sampled = v.value("sampled", false);
    }
    if (j.contains("compile")) {
        b.compile_ms = j["compile"].value("ms", 0.0);
        b.compile_cached = j["compile"].value("cached", false);
        b.compile_cold_ms = j["compile"].value("cold_ms", 0.0);
        b.compile_cached_ms = j["compile"].value("cached_ms", 0.0);
    }
    b.graph_capture_ms = j.value("graph_capture_ms", 0.0);
    b.launches = integer_field<std::int64_t>(j, "launches", where);  // files before 2026-11-26 lack it
    b.noisy = j.value("noisy", false);
    // Files from before gated timing (2026-11-25) were timed plainly and have no batch or clock.
    if (j.contains("timing")) {
        b.timing = j["timing"].value("mode", "plain");
        b.timing_note = j["timing"].value("note", "");
        b.timing_clock = j["timing"].value("clock", "events");
        if (b.timing != "gated" && b.timing != "plain")
            throw Error(where + ": timing.mode '" + printable(b.timing) + "' is neither 'gated' nor 'plain'");
    }
    if (j.contains("batch")) {
        b.batch_ms = j["batch"].value("ms", 0.0);
        b.batch_runs = integer_field<std::int64_t>(j["batch"], "runs", where, "batch.runs");
        if (!(b.batch_ms >= 0)) throw Error(where + ": batch.ms is negative or not a number");
        if (j["batch"].contains("samples_ms"))
            b.batch_samples_ms = json_field<std::vector<double>>(j["batch"], "samples_ms", where + ": batch");
        for (double x : b.batch_samples_ms)
            if (!(x >= 0)) throw Error(where + ": batch.samples_ms holds a negative or non-numeric value");
    }
    if (j.contains("clock")) {
        const json& c = j["clock"];
        b.clock.sm_mhz_min = integer_field<int>(c, "sm_mhz_min", where, "clock.sm_mhz_min");
        b.clock.sm_mhz_max = integer_field<int>(c, "sm_mhz_max", where, "clock.sm_mhz_max");
        b.clock.max_sm_mhz = integer_field<int>(c, "max_sm_mhz", where, "clock.max_sm_mhz");
        if (c.contains("reasons")) b.clock.reasons = c["reasons"].get<std::vector<std::string>>();
    }
    b.throttled = j.value("throttled", false);
    b.budget_cut = j.value("budget_cut", false);
    if (j.contains("transfer")) {
        b.upload_ms = j["transfer"].value("upload_ms", 0.0);
        b.download_ms = j["transfer"].value("download_ms", 0.0);
    }
    b.samples_ms = json_field<std::vector<double>>(j, "samples_ms", where);
    for (double s : b.samples_ms)
        if (!(s >= 0)) throw Error(where + ": samples_ms holds a negative or non-numeric value");
    b.summary = summarize(b.samples_ms);
    if (j.contains("work")) {
        const json& w = j["work"];
        b.work.bytes = w.value("bytes", 0.0);
        b.work.flops = w.value("flops", 0.0);
        b.work.items = w.value("items", 0.0);
        b.work.item_name = w.value("item_name", "");
    }
    if (j.contains("throughput")) {
        const json& t = j["throughput"];
        b.throughput.gbps = t.value("gbps", 0.0);
        b.throughput.gflops = t.value("gflops", 0.0);
        b.throughput.items_per_s = t.value("items_per_s", 0.0);
        b.throughput.bw_fraction = t.value("bw_fraction", 0.0);
        b.throughput.flop_fraction = t.value("flop_fraction", 0.0);
    }
    if (j.contains("ptx_hash")) b.ptx_hash = j["ptx_hash"].get<std::map<std::string, std::string>>();
    b.wall_ms = j.value("wall_ms", 0.0);
    if (j.contains("merged_from")) b.merged_from = integer_field<int>(j, "merged_from", where);
    return b;
}

ShardRecord shard_from_json(const json& j) {
    if (!j.is_object()) throw Error("results file: \"shard\" is not an object");
    ShardRecord s;
    s.index = integer_field<int>(j, "index", "shard");
    s.count = integer_field<int>(j, "count", "shard");
    if (s.count < 1 || s.index < 1 || s.index > s.count)
        throw Error("results file: shard " + std::to_string(s.index) + "/" + std::to_string(s.count) +
                    " is not K/N with 1 <= K <= N");
    s.plan = j.value("plan", "");
    s.cost_source = j.value("cost_source", "");
    s.estimated_s = j.value("estimated_s", 0.0);
    s.visible_devices = j.value("visible_devices", "");
    s.batch_job = j.value("batch_job", "");
    return s;
}

std::vector<std::string> string_list(const json& j, const char* key) {
    if (!j.contains(key)) return {};
    try {
        return j.at(key).get<std::vector<std::string>>();
    } catch (const json::exception&) {
        throw Error(std::string("results file: \"") + key + "\" is not a list of names");
    }
}

}  // namespace

json to_json(const Results& r) {
    json j;
    j["schema"] = kResultsSchema;
    j["version"] = kResultsVersion;
    j["environment"] = r.environment;
    j["calibration"] = r.calibration;
    j["devices"] = json::array();
    for (const auto& d : r.devices) j["devices"].push_back(device_json(d));
    j["benchmarks"] = json::array();
    for (const auto& b : r.benchmarks) j["benchmarks"].push_back(benchmark_json(b));
    if (!r.selection.empty()) j["selection"] = r.selection;
    if (r.shard.count > 0) j["shard"] = shard_json(r.shard);
    if (!r.merged_from.empty()) j["merged_from"] = r.merged_from;
    if (!r.missing.empty()) j["missing"] = r.missing;
    return j;
}

json shard_json(const ShardRecord& s) {
    return {{"index", s.index},
            {"count", s.count},
            {"plan", s.plan},
            {"cost_source", s.cost_source},
            {"estimated_s", s.estimated_s},
            {"visible_devices", s.visible_devices},
            {"batch_job", s.batch_job}};
}

Results results_from_json(const json& j) {
    if (!j.is_object() || !j.contains("schema") || !j["schema"].is_string() ||
        j["schema"].get<std::string>() != kResultsSchema)
        throw Error("not a tribench results file (no \"schema\": \"tribench-results\")");
    if (!j.contains("version") || !j["version"].is_number_integer())
        throw Error("results file has no integer \"version\"");
    const std::int64_t v = j["version"].get<std::int64_t>();  // compared whole: an int would wrap
    if (v != kResultsVersion)
        throw Error("results version " + std::to_string(v) + " is not supported (this tribench reads " +
                    std::to_string(kResultsVersion) + ")");
    Results r;
    r.environment = j.contains("environment") ? j["environment"] : json::object();
    r.calibration = j.contains("calibration") && j["calibration"].is_object() ? j["calibration"] : json::object();
    if (!j.contains("benchmarks") || !j["benchmarks"].is_array())
        throw Error("results file has no \"benchmarks\" array");
    if (j.contains("devices")) {
        if (!j["devices"].is_array()) throw Error("results file: \"devices\" is not an array");
        for (std::size_t i = 0; i < j["devices"].size(); ++i) {
            try {
                r.devices.push_back(device_from_json(j["devices"][i]));
            } catch (const json::exception&) {
                throw Error("devices[" + std::to_string(i) + "]: malformed device record");
            }
        }
    }
    r.selection = string_list(j, "selection");
    r.missing = string_list(j, "missing");
    try {
        if (j.contains("shard")) r.shard = shard_from_json(j["shard"]);
    } catch (const json::exception&) {
        throw Error("results file: \"shard\" has a field of the wrong type");
    }
    if (j.contains("merged_from")) {
        if (!j["merged_from"].is_array()) throw Error("results file: \"merged_from\" is not an array");
        r.merged_from = j["merged_from"];
    }
    for (std::size_t i = 0; i < j["benchmarks"].size(); ++i) {
        const std::string where = "benchmarks[" + std::to_string(i) + "]";
        try {
            r.benchmarks.push_back(benchmark_from_json(j["benchmarks"][i], where));
        } catch (const json::exception&) {
            // An optional field of the wrong type (value() throws on a type mismatch).
            throw Error(where + ": a field has the wrong type");
        }
        const int from = r.benchmarks.back().merged_from;
        if (from < -1 || (from >= 0 && std::size_t(from) >= r.merged_from.size()))
            throw Error(where + ": merged_from " + std::to_string(from) + " names no entry of \"merged_from\"");
    }
    return r;
}

Results load_results(const std::string& path) {
    const std::string text = read_text_maybe_gzip(path);
    json j;
    try {
        j = json::parse(text);
    } catch (const json::parse_error& e) {
        throw Error(printable_path(path) + ": malformed JSON at byte " + std::to_string(e.byte));
    } catch (const json::exception& e) {
        // The library's message may quote the offending token: escape it like any input.
        throw Error(printable_path(path) + ": malformed JSON (" + printable(e.what(), 200) + ")");
    }
    try {
        return results_from_json(j);
    } catch (const Error& e) {
        throw Error(printable_path(path) + ": " + e.what());
    }
}

std::string results_file_text(const Results& r) { return to_json(r).dump(1) + "\n"; }

void save_results(const std::string& path, const Results& r) {
    write_file_atomically(path, file_bytes_for(path, results_file_text(r)));
}

}  // namespace tb
