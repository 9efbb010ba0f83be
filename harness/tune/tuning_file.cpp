#include "tune/tuning_file.hpp"

#include <cstdlib>
#include <filesystem>

#include "support/atomic_file.hpp"
#include "support/gzip_text.hpp"
#include "support/json_field.hpp"

namespace tb {

using nlohmann::json;

TuningKey tuning_key(const DeviceInfo& dev, const std::string& backend, const std::string& program,
                     const std::string& dataset) {
    return TuningKey{dev.name, dev.driver_version, backend, program, dataset};
}

std::string describe(const TuningKey& k) {
    return k.program + "/" + k.dataset + "/" + k.backend + " on " + k.device + " (driver " + k.driver + ")";
}

const TuningEntry* TuningFile::find(const TuningKey& k) const {
    for (const auto& e : entries)
        if (e.key == k) return &e;
    return nullptr;
}

void TuningFile::put(const TuningEntry& e) {
    for (auto& old : entries)
        if (old.key == e.key) {
            old = e;
            return;
        }
    entries.push_back(e);
}

json to_json(const TuningFile& f) {
    json entries = json::array();
    for (const auto& e : f.entries)
        entries.push_back({{"device", e.key.device},
                           {"driver", e.key.driver},
                           {"backend", e.key.backend},
                           {"program", e.key.program},
                           {"dataset", e.key.dataset},
                           {"config", e.config},
                           {"median_ms", e.median_ms},
                           {"default_median_ms", e.default_median_ms},
                           {"tried", e.tried},
                           {"failed", e.failed},
                           {"refused", e.refused},
                           {"strategy", e.strategy},
                           {"tuned_utc", e.tuned_utc}});
    return {{"schema", kTuningSchema}, {"version", kTuningVersion}, {"entries", entries}};
}

namespace {

TuningEntry entry_from_json(const json& j, const std::string& where) {
    if (!j.is_object()) throw Error(where + ": not an object");
    TuningEntry e;
    e.key.device = json_field<std::string>(j, "device", where);
    e.key.driver = json_field<std::string>(j, "driver", where);
    e.key.backend = json_field<std::string>(j, "backend", where);
    e.key.program = json_field<std::string>(j, "program", where);
    e.key.dataset = json_field<std::string>(j, "dataset", where);
    if (!j.contains("config") || !j["config"].is_object()) throw Error(where + ": field 'config' is missing or not an object");
    for (const auto& [name, value] : j["config"].items()) {
        if (!value.is_number_integer()) throw Error(where + ": config." + name + " is not an integer");
        e.config[name] = value.get<std::int64_t>();
    }
    e.median_ms = j.value("median_ms", 0.0);
    e.default_median_ms = j.value("default_median_ms", 0.0);
    e.tried = j.value("tried", std::size_t(0));
    e.failed = j.value("failed", std::size_t(0));
    e.refused = j.value("refused", std::size_t(0));
    e.strategy = j.value("strategy", "");
    e.tuned_utc = j.value("tuned_utc", "");
    return e;
}

}  // namespace

TuningFile tuning_file_from_json(const json& j) {
    if (!j.is_object() || j.value("schema", "") != kTuningSchema) throw Error("not a tribench tuning file (schema is not \"" + std::string(kTuningSchema) + "\")");
    if (!j.contains("version") || !j["version"].is_number_integer()) throw Error("missing field 'version'");
    if (j["version"].get<int>() != kTuningVersion)
        throw Error("tuning file version " + std::to_string(j["version"].get<int>()) + " is not supported (this tribench reads " +
                    std::to_string(kTuningVersion) + ")");
    if (!j.contains("entries") || !j["entries"].is_array()) throw Error("field 'entries' is missing or not an array");
    TuningFile f;
    for (std::size_t i = 0; i < j["entries"].size(); ++i) {
        TuningEntry e = entry_from_json(j["entries"][i], "entries[" + std::to_string(i) + "]");
        if (f.find(e.key)) throw Error("entries[" + std::to_string(i) + "]: a second entry for " + describe(e.key));
        f.entries.push_back(std::move(e));
    }
    return f;
}

TuningFile load_tuning_file(const std::string& path) {
    const std::string bytes = read_text_maybe_gzip(path);  // reports/<device>/tuning.json.gz as committed
    json j;
    try {
        j = json::parse(bytes);
    } catch (const json::exception&) {
        throw Error(path + ": not JSON (a tuning file is written by `tribench tune`)");
    }
    try {
        return tuning_file_from_json(j);
    } catch (const Error& e) {
        throw Error(path + ": " + e.what());
    }
}

void save_tuning_file(const std::string& path, const TuningFile& f) {
    const std::filesystem::path parent = std::filesystem::path(path).parent_path();
    std::error_code ec;
    if (!parent.empty() && !std::filesystem::exists(parent, ec)) std::filesystem::create_directories(parent, ec);
    write_file_atomically(path, file_bytes_for(path, to_json(f).dump(1) + "\n"));
}

std::string default_tuning_path() {
    const char* xdg = std::getenv("XDG_CACHE_HOME");
    if (xdg && *xdg) return (std::filesystem::path(xdg) / "tribench" / "tuning.json").string();
    const char* home = std::getenv("HOME");
    if (home && *home) return (std::filesystem::path(home) / ".cache" / "tribench" / "tuning.json").string();
    return "";
}

}  // namespace tb
