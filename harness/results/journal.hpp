// The run journal: what a run has finished, on disk as it finishes, so that no way of ending
// the process (SIGKILL, the OOM killer, a lost node, a hung kernel) loses a measurement.
// `run --out FILE` keeps it at FILE.journal; `run --resume FILE` reads it back and runs only
// what is missing (docs/robustness.md, "A run that loses nothing"). It is removed once the
// results file holds every selected benchmark.
//
// Format (JSON Lines, one object per line, appended and flushed to the disk one at a time):
//   {"schema": "tribench-journal", "version": 1, "run": FINGERPRINT}      first line
//   {"device": DEVICE}                 a device's record, before its first benchmark
//   {"calibration": {"id": ID, "value": CALIBRATION}}
//   {"benchmark": BENCHMARK}           one finished benchmark (ok, failed or errored)
// DEVICE, CALIBRATION and BENCHMARK are as in the results file (docs/results-json.md). A last
// line cut short by the end of the process is ignored; any other unreadable line is an error.
#pragma once

#include <cstdio>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "results/results.hpp"

namespace tb {

inline constexpr const char* kJournalSchema = "tribench-journal";
inline constexpr int kJournalVersion = 1;

// The journal of the results file `out`.
std::string journal_path_for(const std::string& out);

class Journal {
public:
    // Starts a journal at path with its header; throws tb::Error if it cannot be written.
    static std::unique_ptr<Journal> create(const std::string& path, const nlohmann::json& fingerprint);
    // Appends to an existing journal (resume).
    static std::unique_ptr<Journal> append_to(const std::string& path);
    ~Journal();
    Journal(const Journal&) = delete;
    Journal& operator=(const Journal&) = delete;

    // Each call writes one line and flushes it to the disk before returning; safe to call
    // from several threads (the hang watchdog writes from its own).
    void add_device(const DeviceRecord& d);
    void add_calibration(const std::string& device_id, const nlohmann::json& calibration);
    void add_benchmark(const BenchmarkResult& b);

    const std::string& path() const { return path_; }
    // Closes and deletes the file.
    void remove();

private:
    Journal(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}
    void append_line(const nlohmann::json& j);

    std::string path_;
    int fd_ = -1;
    std::mutex mutex_;
};

struct JournalContents {
    nlohmann::json run;  // the fingerprint of the run that wrote it
    std::vector<DeviceRecord> devices;
    nlohmann::json calibration = nlohmann::json::object();
    std::vector<BenchmarkResult> benchmarks;
    bool torn_last_line = false;  // the process ended while writing its last line
};

// False when the process that made the journal ended before its first line was whole (the
// journal holds nothing then).
bool journal_has_header(const std::string& path);

// Throws tb::Error("cannot resume: <path>: <why>") for a missing file, a wrong header or an
// unreadable line other than the last.
JournalContents read_journal(const std::string& path);

}  // namespace tb
