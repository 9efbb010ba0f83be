#include "cli/run_journal.hpp"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>

#include <dirent.h>
#include <unistd.h>

#include "printable.hpp"
#include "results/environment.hpp"
#include "support/atomic_file.hpp"

namespace tb {

using nlohmann::json;

bool names_a_journal(const std::string& path) {
    const std::string tail = ".journal";
    return path.size() >= tail.size() && path.compare(path.size() - tail.size(), tail.size(), tail) == 0;
}

namespace {

std::string temporary_journal() {
    std::string templ = (std::filesystem::temp_directory_path() / "tribench-run-XXXXXX.journal").string();
    const int fd = ::mkstemps(templ.data(), 8);
    if (fd < 0) throw Error("cannot create a temporary journal: " + std::string(std::strerror(errno)));
    ::close(fd);
    return templ;
}

// A journal goes beside a results file, never beside /dev/null, a FIFO or a terminal.
bool names_a_regular_file(const std::string& path) {
    std::error_code ec;
    const auto status = std::filesystem::status(path, ec);
    return !std::filesystem::exists(status) || std::filesystem::is_regular_file(status);
}

}  // namespace

RunFiles resolve_run_files(const RunOptions& o) {
    RunFiles f;
    f.out = o.out;
    if (!o.resume.empty()) {
        const bool names_journal = names_a_journal(o.resume);
        f.journal = names_journal ? o.resume : journal_path_for(o.resume);
        const std::string implied_out = names_journal ? "" : o.resume;
        if (!o.out.empty() && !implied_out.empty() && o.out != implied_out)
            throw Error("--resume " + printable_path(o.resume) + " and --out " + printable_path(o.out) +
                        " name different results files");
        if (std::filesystem::exists(f.journal) && !journal_has_header(f.journal)) {
            // Killed while starting its journal: nothing had finished.
            std::filesystem::remove(f.journal);
        }
        if (std::filesystem::exists(f.journal)) {
            f.resuming = true;
            if (f.out.empty()) {
                // The results file of the journal's run (empty: it printed its table only).
                const JournalContents c = read_journal(f.journal);
                f.out = names_journal ? c.run.value("out", std::string()) : implied_out;
                f.temporary_journal = f.out.empty();
            }
            return f;
        }
        if (names_journal) throw Error("cannot resume: " + printable_path(f.journal) + " does not exist");
        f.out = implied_out;
        // No journal: a run that never started, or one that completed (journal removed).
        return f;
    }
    if (o.repeat > 1) return f;  // a soak test's rounds are not resumable
    if (!f.out.empty() && !is_standard_output(f.out) && names_a_regular_file(f.out)) {
        f.journal = journal_path_for(f.out);
        if (std::filesystem::exists(f.journal))
            throw Error(printable_path(f.journal) + " exists: a run writing " + printable_path(f.out) +
                        " was cut short; finish it with --resume " + printable_path(f.out) +
                        ", or delete the journal to start over");
        return f;
    }
    // The table only (or results on standard output or a device such as /dev/full): a journal of this process's own, so
    // that a hung kernel can still be survived by a fresh process.
    f.journal = temporary_journal();
    f.temporary_journal = true;
    return f;
}

json measured_options(const RunOptions& o) {
    return {{"math", o.math},
            {"seed", o.seed},
            {"min_time_s", o.min_time_s},
            {"max_noise", o.max_noise},
            {"timeout_s", o.timeout_s},
            {"min_samples", o.min_samples},
            {"max_samples", o.max_samples},
            {"sampling", o.min_time_from_flags ? "google-benchmark" : "stdrel"},
            {"l2_flush", o.l2_flush},
            {"timing", o.timing},
            {"batch", !o.no_batch},
            {"scatter", !o.no_scatter}};
}

json run_fingerprint(const RunOptions& o, const std::vector<Case>& cases, const std::vector<BackendSlot>& slots,
                     const std::string& out) {
    json selection = json::array();
    json configs = json::object();  // a resumed run must not mix tuned and untuned halves
    std::map<std::string, json> devices;
    for (const auto& c : cases) {
        selection.push_back(c.name);
        if (!c.config.empty()) configs[c.name] = to_string(c.config);
        const DeviceInfo& d = slots[c.slot].devices[c.device];
        devices[slots[c.slot].id + ":" + std::to_string(c.device)] = {{"name", d.name}, {"driver", d.driver_version}};
    }
    json options = measured_options(o);
    options["shard"] = o.shard;
    options["validate_only"] = o.validate_only;  // its journal holds no timings: never mixed with a timed run's
    return {{"selection", selection},
            {"devices", devices},
            {"tribench_commit", tribench_commit()},
            {"options", options},
            {"configs", configs},
            {"out", out}};
}

void check_resumable(const std::string& journal_path, const json& recorded, const json& now, bool anyway) {
    if (anyway) return;
    const std::string head = "cannot resume " + printable_path(journal_path) + ": ";
    const std::string tail = " (run the same command again with --resume, or add --resume-anyway)";
    if (recorded.value("tribench_commit", json()) != now["tribench_commit"])
        throw Error(head + "it was written by tribench " + recorded.value("tribench_commit", json()).dump() +
                    ", this is " + now["tribench_commit"].dump() + tail);
    const json was = recorded.value("options", json::object());
    for (const auto& [key, value] : now["options"].items())
        if (was.value(key, json()) != value)
            throw Error(head + "its run had " + key + " " + was.value(key, json()).dump() + ", this one " +
                        value.dump() + tail);
    const json devices = recorded.value("devices", json::object());
    for (const auto& [id, d] : now["devices"].items())
        if (devices.contains(id) && devices[id] != d)
            throw Error(head + "its run had " + id + " = " + devices[id].value("name", std::string()) + " (driver " +
                        devices[id].value("driver", std::string()) + "), this one " + d.value("name", std::string()) +
                        " (driver " + d.value("driver", std::string()) + ")" + tail);
    const json configs = recorded.value("configs", json::object());
    for (const auto& [name, config] : now["configs"].items())
        if (configs.value(name, json()) != config)
            throw Error(head + "its run gave " + name + " the configuration " + configs.value(name, json("")).dump() +
                        ", this one " + config.dump() + " (a changed tuning file?)" + tail);
    if (recorded.value("selection", json()) != now["selection"]) {
        const json a = recorded.value("selection", json::array());
        std::size_t differ = 0;
        while (differ < a.size() && differ < now["selection"].size() && a[differ] == now["selection"][differ]) ++differ;
        const std::string was_name = differ < a.size() ? a[differ].get<std::string>() : "(end)";
        const std::string now_name = differ < now["selection"].size() ? now["selection"][differ].get<std::string>() : "(end)";
        throw Error(head + "its selection differs (" + std::to_string(a.size()) + " benchmarks, this one " +
                    std::to_string(now["selection"].size()) + "; benchmark " + std::to_string(differ + 1) + " was " +
                    was_name + ", is " + now_name + ")" + tail);
    }
}

Results assemble_results(const std::vector<Case>& cases, const JournalContents& journaled, const Results& fresh) {
    Results r;
    std::map<std::string, const BenchmarkResult*> by_name;
    for (const auto& b : journaled.benchmarks) by_name[b.name] = &b;  // a later line wins
    for (const auto& b : fresh.benchmarks) by_name[b.name] = &b;      // this process's win
    for (const auto& c : cases) {
        auto it = by_name.find(c.name);
        if (it != by_name.end()) r.benchmarks.push_back(*it->second);
    }
    r.calibration = journaled.calibration.is_object() ? journaled.calibration : json::object();
    for (const auto& [id, cal] : fresh.calibration.items()) r.calibration[id] = cal;
    std::map<std::string, bool> listed;
    for (const auto* list : {&fresh.devices, &journaled.devices})
        for (const auto& d : *list)
            if (!listed[d.id]) {
                listed[d.id] = true;
                r.devices.push_back(d);
            }
    return r;
}

namespace {

// argv without `--name VALUE` and `--name=VALUE`.
std::vector<std::string> without_option(const std::vector<std::string>& argv, const std::string& name, bool takes_value) {
    std::vector<std::string> out;
    for (std::size_t i = 0; i < argv.size(); ++i) {
        if (argv[i] == name) {
            if (takes_value) ++i;
            continue;
        }
        if (takes_value && argv[i].rfind(name + "=", 0) == 0) continue;
        out.push_back(argv[i]);
    }
    return out;
}

// Every descriptor above stderr: the old process's driver handles must not live on in the new
// one (most are close-on-exec; this makes sure of it).
void close_descriptors() {
    std::vector<int> fds;
    if (DIR* d = ::opendir("/proc/self/fd")) {
        while (dirent* e = ::readdir(d)) {
            const int fd = std::atoi(e->d_name);
            if (fd > STDERR_FILENO && fd != ::dirfd(d)) fds.push_back(fd);
        }
        ::closedir(d);
    }
    for (int fd : fds) ::close(fd);
}

}  // namespace

void restart_after_hang(const std::vector<std::string>& argv, const std::string& journal, double budget_left_s) {
    std::vector<std::string> args = without_option(argv, "--resume", true);
    args = without_option(args, "--resume-anyway", false);
    args.insert(args.end(), {"--resume", journal});
    if (budget_left_s > 0) {
        args = without_option(args, "--budget", true);
        char b[32];
        std::snprintf(b, sizeof b, "%.0f", budget_left_s < 1 ? 1.0 : budget_left_s);
        args.insert(args.end(), {"--budget", b});
    }
    std::fprintf(stderr, "tribench: carrying on in a fresh process (the device is released with this one)\n");
    std::fflush(stderr);
    std::fflush(stdout);
    close_descriptors();
    std::vector<char*> c;
    for (auto& a : args) c.push_back(a.data());
    c.push_back(nullptr);
    ::execv("/proc/self/exe", c.data());
    std::fprintf(stderr, "tribench: cannot start a fresh process: %s\n", std::strerror(errno));
    std::_Exit(1);
}

}  // namespace tb
