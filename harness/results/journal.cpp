#include "results/journal.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>

#include <fcntl.h>
#include <unistd.h>

#include "printable.hpp"

namespace tb {

using nlohmann::json;

std::string journal_path_for(const std::string& out) { return out + ".journal"; }

namespace {

int open_for_append(const std::string& path, int extra_flags) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC | extra_flags, 0644);
    if (fd < 0) throw Error("cannot write the journal " + printable_path(path) + ": " + std::strerror(errno));
    return fd;
}

// One benchmark, device or calibration as the results file writes it: through to_json of a
// Results holding just that, so that the journal and the results file cannot drift apart.
json benchmark_entry(const BenchmarkResult& b) {
    Results r;
    r.benchmarks.push_back(b);
    return to_json(r)["benchmarks"][0];
}

json device_entry(const DeviceRecord& d) {
    Results r;
    r.devices.push_back(d);
    return to_json(r)["devices"][0];
}

}  // namespace

std::unique_ptr<Journal> Journal::create(const std::string& path, const json& fingerprint) {
    std::unique_ptr<Journal> j(new Journal(path, open_for_append(path, O_CREAT | O_TRUNC)));
    j->append_line({{"schema", kJournalSchema}, {"version", kJournalVersion}, {"run", fingerprint}});
    return j;
}

std::unique_ptr<Journal> Journal::append_to(const std::string& path) {
    const int fd = open_for_append(path, 0);
    // A line cut short by the end of the last process goes, or the next would be appended to it.
    const off_t size = ::lseek(fd, 0, SEEK_END);
    off_t keep = size;
    char c = '\n';
    while (keep > 0 && ::pread(fd, &c, 1, keep - 1) == 1 && c != '\n') --keep;
    if (keep != size && ::ftruncate(fd, keep) != 0) {
        const int err = errno;
        ::close(fd);
        throw Error("cannot write the journal " + printable_path(path) + ": " + std::strerror(err));
    }
    return std::unique_ptr<Journal>(new Journal(path, fd));
}

bool journal_has_header(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::string first;
    return in && std::getline(in, first) && !in.eof();
}

Journal::~Journal() {
    if (fd_ >= 0) ::close(fd_);
}

void Journal::append_line(const json& j) {
    const std::string line = j.dump() + "\n";
    std::lock_guard<std::mutex> lock(mutex_);
    if (fd_ < 0) return;
    std::size_t done = 0;
    while (done < line.size()) {
        const ssize_t n = ::write(fd_, line.data() + done, line.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) throw Error("cannot write the journal " + printable_path(path_) + ": " + std::strerror(errno));
        done += std::size_t(n);
    }
    // On the disk before the next benchmark starts: a power cut or a lost node keeps it too.
    if (::fdatasync(fd_) != 0 && errno != EINVAL)
        throw Error("cannot write the journal " + printable_path(path_) + ": " + std::strerror(errno));
}

void Journal::add_device(const DeviceRecord& d) { append_line({{"device", device_entry(d)}}); }

void Journal::add_calibration(const std::string& device_id, const json& calibration) {
    append_line({{"calibration", {{"id", device_id}, {"value", calibration}}}});
}

void Journal::add_benchmark(const BenchmarkResult& b) { append_line({{"benchmark", benchmark_entry(b)}}); }

void Journal::remove() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
    ::unlink(path_.c_str());
}

JournalContents read_journal(const std::string& path) {
    const std::string where = "cannot resume: " + printable_path(path);
    std::ifstream in(path, std::ios::binary);
    if (!in) throw Error(where + ": " + std::strerror(errno));
    std::vector<std::string> lines;
    std::string line;
    bool last_complete = true;
    while (std::getline(in, line)) {
        last_complete = !in.eof();  // getline at the end without a newline: the line was cut
        lines.push_back(line);
    }
    JournalContents c;
    if (lines.empty()) throw Error(where + ": empty (not a tribench journal)");
    json header;
    try {
        header = json::parse(lines[0]);
    } catch (const json::exception&) {
        throw Error(where + ": its first line is not a tribench journal header");
    }
    if (!header.is_object() || header.value("schema", json()) != kJournalSchema)
        throw Error(where + ": not a tribench journal (no \"schema\": \"" + kJournalSchema + "\")");
    if (header.value("version", json()) != kJournalVersion)
        throw Error(where + ": journal version " + header.value("version", json()).dump() +
                    " is not supported (this tribench reads " + std::to_string(kJournalVersion) + ")");
    c.run = header.value("run", json::object());
    // The entries as one results document, read by the results file's own reader.
    json doc = {{"schema", kResultsSchema}, {"version", kResultsVersion}, {"benchmarks", json::array()},
                {"devices", json::array()}, {"calibration", json::object()}};
    for (std::size_t i = 1; i < lines.size(); ++i) {
        json e;
        try {
            e = json::parse(lines[i]);
        } catch (const json::exception&) {
            const bool last = i + 1 == lines.size();
            if (last && !last_complete) {
                c.torn_last_line = true;
                break;
            }
            throw Error(where + ": line " + std::to_string(i + 1) + " is not JSON");
        }
        if (!e.is_object() || e.size() != 1)
            throw Error(where + ": line " + std::to_string(i + 1) + " is not a journal entry");
        if (e.contains("benchmark")) doc["benchmarks"].push_back(e["benchmark"]);
        else if (e.contains("device")) doc["devices"].push_back(e["device"]);
        else if (e.contains("calibration") && e["calibration"].is_object() && e["calibration"].value("id", json()).is_string())
            doc["calibration"][e["calibration"]["id"].get<std::string>()] = e["calibration"].value("value", json());
        else
            throw Error(where + ": line " + std::to_string(i + 1) + " is not a journal entry");
    }
    Results r;
    try {
        r = results_from_json(doc);
    } catch (const Error& e) {
        throw Error(where + ": " + e.what());
    }
    c.devices = std::move(r.devices);
    c.benchmarks = std::move(r.benchmarks);
    c.calibration = std::move(r.calibration);
    return c;
}

}  // namespace tb
