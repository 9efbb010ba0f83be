#include "cli/parallel_devices.hpp"

#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include "backend.hpp"
#include "cpu_affinity.hpp"
#include "cli/commands.hpp"
#include "measure/interrupt.hpp"
#include "results/merge.hpp"
#include "plan/selection.hpp"
#include "report/reporter.hpp"

extern char** environ;

namespace tb {

std::vector<std::string> parallel_device_list() {
    if (const char* v = std::getenv("CUDA_VISIBLE_DEVICES")) {
        std::vector<std::string> list = split_list({v});
        if (list.empty()) throw Error("--parallel-devices: CUDA_VISIBLE_DEVICES is set but names no device");
        return list;
    }
    std::vector<std::string> list;
    std::string why;
    try {
        const auto devices = make_backend("cuda-native")->devices();
        for (std::size_t i = 0; i < devices.size(); ++i) list.push_back(std::to_string(i));
        if (list.empty()) why = "the CUDA driver reports no device";
    } catch (const Error& e) {
        why = e.what();
    }
    if (list.empty())
        throw Error("--parallel-devices: no CUDA GPU (" + why + "); set CUDA_VISIBLE_DEVICES to the devices to use");
    return list;
}

std::vector<std::string> shard_command(const std::vector<std::string>& parent_argv, const std::string& exe,
                                       int index, int count, const std::string& out) {
    std::vector<std::string> cmd = {exe};
    bool resume = false, anyway = false;
    for (std::size_t i = 1; i < parent_argv.size(); ++i) {
        const std::string& a = parent_argv[i];
        if (a == "--parallel-devices" || a.rfind("--parallel-devices=", 0) == 0) continue;
        if (a == "--pin-cpus" || a.rfind("--pin-cpus=", 0) == 0) continue;
        if (a == "--resume-anyway" || a.rfind("--resume-anyway=", 0) == 0) {
            anyway = true;
            continue;
        }
        if (a == "--out" || a == "-o" || a == "--resume") {
            resume = resume || a == "--resume";
            ++i;  // and its value
            continue;
        }
        if (a.rfind("--resume=", 0) == 0) {
            resume = true;
            continue;
        }
        if (a.rfind("--out=", 0) == 0 || (a.size() > 2 && a.rfind("-o", 0) == 0 && a[2] != '-')) continue;
        cmd.push_back(a);
    }
    for (const std::string& a : {std::string("--shard"), std::to_string(index) + "/" + std::to_string(count),
                                 std::string("--out"), out, std::string("--progress")})
        cmd.push_back(a);
    // Each shard carries on from its own journal (out's).
    if (resume) cmd.insert(cmd.end(), {"--resume", out});
    if (anyway) cmd.push_back("--resume-anyway");
    return cmd;
}

std::vector<std::string> LineSplitter::feed(const char* data, std::size_t n) {
    pending_.append(data, n);
    std::vector<std::string> lines;
    std::size_t start = 0;
    for (std::size_t nl; (nl = pending_.find('\n', start)) != std::string::npos; start = nl + 1)
        lines.push_back(pending_.substr(start, nl - start));
    pending_.erase(0, start);
    return lines;
}

std::string LineSplitter::rest() {
    std::string r;
    r.swap(pending_);
    return r;
}

bool parse_progress(const std::string& line, std::size_t* done, std::size_t* total) {
    unsigned long d = 0, t = 0;
    int used = 0;
    if (std::sscanf(line.c_str(), "[%lu/%lu]%n", &d, &t, &used) != 2 || used == 0) return false;
    *done = d;
    *total = t;
    return true;
}

namespace {

// SIGINT, SIGTERM or SIGHUP: the first one is passed on to the shards, which stop as any run
// does (finished benchmarks written, the rest not run) and are merged; exit 128 + signal.
// A shard that got the same signal from the terminal too takes the two as one request.
std::atomic<int> g_signal{0};

extern "C" void on_parent_signal(int sig) {
    int none = 0;
    g_signal.compare_exchange_strong(none, sig);
}

struct Shard {
    int index = 0;
    std::string gpu, out, log;
    std::vector<int> cpus;  // its share of the parent's CPUs; empty: all of them
    pid_t pid = -1;
    int err_fd = -1;  // the shard's stderr, read here
    int log_fd = -1;  // the shard's stdout, and its stderr copied here
    LineSplitter lines;
    std::size_t done = 0, total = 0;
    int exit_code = -1;
    double wall_s = 0;
    std::chrono::steady_clock::time_point start;
};

std::vector<char*> c_strings(std::vector<std::string>& v) {
    std::vector<char*> p;
    for (auto& s : v) p.push_back(s.data());
    p.push_back(nullptr);
    return p;
}

void spawn(Shard& s, std::vector<std::string> argv) {
    s.log_fd = ::open(s.log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
    if (s.log_fd < 0) throw Error("cannot write " + s.log + ": " + std::strerror(errno));
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) throw Error(std::string("pipe2 failed: ") + std::strerror(errno));
    std::vector<std::string> env;
    for (char** e = environ; *e; ++e)
        if (std::strncmp(*e, "CUDA_VISIBLE_DEVICES=", 21) != 0) env.emplace_back(*e);
    env.push_back("CUDA_VISIBLE_DEVICES=" + s.gpu);

    posix_spawn_file_actions_t actions;
    int rc = posix_spawn_file_actions_init(&actions);
    if (rc != 0) {
        ::close(fds[0]);
        ::close(fds[1]);
        throw Error(std::string("posix_spawn_file_actions_init failed: ") + std::strerror(rc));
    }
    rc = posix_spawn_file_actions_adddup2(&actions, s.log_fd, STDOUT_FILENO);
    if (rc == 0) rc = posix_spawn_file_actions_adddup2(&actions, fds[1], STDERR_FILENO);
    auto args = c_strings(argv);
    auto envp = c_strings(env);
    // spawnp: the fallback name (argv[0], when /proc/self/exe is unreadable) may be on PATH.
    if (rc == 0) rc = posix_spawnp(&s.pid, args[0], &actions, nullptr, args.data(), envp.data());
    posix_spawn_file_actions_destroy(&actions);
    ::close(fds[1]);
    if (rc != 0) {
        ::close(fds[0]);
        throw Error("cannot start " + argv[0] + ": " + std::strerror(rc));
    }
    s.err_fd = fds[0];
    s.start = std::chrono::steady_clock::now();
}

// The log is a convenience: a failed write loses a line of it, never one of the display.
void append_log(int fd, const std::string& line) {
    if (fd < 0) return;
    const std::string copy = line + "\n";
    const ssize_t n = ::write(fd, copy.data(), copy.size());
    (void)n;
}

// One display for all shards: each line of a shard's stderr, tagged with its GPU, and the
// progress of all shards together.
void show(const std::vector<Shard>& all, Shard& s, const std::string& line) {
    append_log(s.log_fd, line);
    std::size_t d = 0, t = 0;
    const bool progress = parse_progress(line, &d, &t);
    if (!progress) {
        std::fprintf(stderr, "[GPU %s] %s\n", s.gpu.c_str(), line.c_str());
        return;
    }
    s.done = d;
    s.total = t;
    std::size_t done = 0, total = 0;
    for (const auto& o : all) {
        done += o.done;
        total += o.total;
    }
    std::size_t rest = line.find(']') + 1;
    if (rest < line.size() && line[rest] == ' ') ++rest;
    std::fprintf(stderr, "[GPU %s | %zu/%zu] %s\n", s.gpu.c_str(), done, total, line.c_str() + rest);
}

// Records a shard's exit; with `block` false only if it has already ended.
bool reap(Shard& s, bool block) {
    if (s.pid <= 0) return true;
    int status = 0;
    pid_t got;
    while ((got = ::waitpid(s.pid, &status, block ? 0 : WNOHANG)) < 0)
        if (errno != EINTR) throw Error(std::string("waitpid failed: ") + std::strerror(errno));
    if (got == 0) return false;
    s.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    s.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - s.start).count();
    s.pid = -1;
    return true;
}

// Shows the shards' stderr until every shard has closed it and ended.
void pump(std::vector<Shard>& shards) {
    bool forwarded = false;
    for (;;) {
        if (g_signal && !forwarded) {
            for (auto& s : shards)
                if (s.pid > 0) ::kill(s.pid, g_signal.load());
            forwarded = true;
        }
        std::vector<pollfd> fds;
        std::vector<Shard*> owner;
        bool running = false;
        for (auto& s : shards) {
            if (s.err_fd >= 0) {
                fds.push_back(pollfd{s.err_fd, POLLIN, 0});
                owner.push_back(&s);
            }
            running = !reap(s, false) || running;  // its own wall time, not the slowest shard's
        }
        if (fds.empty() && !running) return;
        const int n = ::poll(fds.data(), fds.size(), 100);
        if (n < 0 && errno != EINTR) throw Error(std::string("poll failed: ") + std::strerror(errno));
        for (std::size_t i = 0; n > 0 && i < fds.size(); ++i) {
            if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
            Shard& s = *owner[i];
            char buf[4096];
            const ssize_t got = ::read(s.err_fd, buf, sizeof buf);
            if (got > 0) {
                for (const auto& line : s.lines.feed(buf, std::size_t(got))) show(shards, s, line);
            } else if (got == 0 || errno != EINTR) {
                const std::string tail = s.lines.rest();
                if (!tail.empty()) show(shards, s, tail);
                ::close(s.err_fd);
                s.err_fd = -1;
            }
        }
    }
}

std::string shard_folder(const std::string& out, bool* temporary) {
    *temporary = out.empty();
    if (!out.empty()) {
        const std::string dir = out + ".shards";
        std::error_code ec;
        std::filesystem::create_directories(dir, ec);
        if (ec) throw Error("cannot create " + dir + ": " + ec.message());
        return dir;
    }
    std::string templ = (std::filesystem::temp_directory_path() / "tribench-shards-XXXXXX").string();
    if (!::mkdtemp(templ.data())) throw Error("cannot create a temporary folder: " + std::string(std::strerror(errno)));
    return templ;
}

}  // namespace

int run_parallel_devices(const RunOptions& o) {
    // --resume FILE without --out: the results (and the shards' folder) are FILE's.
    const std::string out = o.out.empty() ? o.resume : o.out;
    const std::vector<std::string> gpus = parallel_device_list();
    const int count = int(gpus.size());
    if (!out.empty() && std::filesystem::is_directory(out)) throw Error("cannot write " + out + ": is a directory");
    bool temporary = false;
    const std::string dir = shard_folder(out, &temporary);
    std::error_code ec;
    std::string exe = std::filesystem::read_symlink("/proc/self/exe", ec).string();
    if (ec) exe = o.argv.empty() ? "tribench" : o.argv[0];

    std::vector<Shard> shards(gpus.size());
    // --pin-cpus: each shard gets its own consecutive share of this process's CPUs, so that
    // one shard's CPU work cannot take another's cores (docs/scale-out.md, "What sharing the
    // host may cost": not the default, since it ignores which CPUs are near which GPU).
    const std::vector<int> parent_cpus = allowed_cpus();
    const auto slices = o.pin_cpus ? split_cpus(parent_cpus, count) : std::vector<std::vector<int>>{};
    for (std::size_t k = 0; k < slices.size(); ++k) shards[k].cpus = slices[k];
    std::fprintf(stderr, "tribench: %d shard%s, one per GPU (CUDA_VISIBLE_DEVICES=", count, count == 1 ? "" : "s");
    for (int k = 0; k < count; ++k) std::fprintf(stderr, "%s%s", k ? "|" : "", gpus[std::size_t(k)].c_str());
    if (!slices.empty()) {
        std::fprintf(stderr, "; CPUs ");
        for (int k = 0; k < count; ++k)
            std::fprintf(stderr, "%s%s", k ? "|" : "", cpu_list_text(shards[std::size_t(k)].cpus).c_str());
    } else if (o.pin_cpus) {
        std::fprintf(stderr, "; not pinned: %zu CPUs for %d shards", parent_cpus.size(), count);
    }
    std::fprintf(stderr, "); files and logs in %s\n", dir.c_str());

    struct sigaction sa {};
    sa.sa_handler = on_parent_signal;
    sigemptyset(&sa.sa_mask);
    struct sigaction old_int {}, old_term {}, old_hup {};
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    sigaction(SIGHUP, &sa, &old_hup);
    const auto t0 = std::chrono::steady_clock::now();
    for (int k = 0; k < count; ++k) {
        Shard& s = shards[std::size_t(k)];
        s.index = k + 1;
        s.gpu = gpus[std::size_t(k)];
        const std::string stem = dir + "/shard-" + std::to_string(k + 1) + "-of-" + std::to_string(count);
        s.out = stem + ".json";
        s.log = stem + ".log";
        // A stale file must not stand in for a shard that failed; --resume carries on from it.
        if (o.resume.empty()) std::filesystem::remove(s.out, ec);
        try {
            // A child takes the affinity of the thread that starts it.
            if (!s.cpus.empty()) set_cpu_affinity(s.cpus);
            spawn(s, shard_command(o.argv, exe, k + 1, count, s.out));
        } catch (const Error&) {
            if (!s.cpus.empty()) set_cpu_affinity(parent_cpus);
            for (auto& started : shards)
                if (started.pid > 0) ::kill(started.pid, SIGINT);
            for (auto& started : shards) reap(started, true);
            throw;
        }
    }
    if (!slices.empty()) set_cpu_affinity(parent_cpus);
    pump(shards);
    for (auto& s : shards) {
        if (s.log_fd >= 0) ::close(s.log_fd);
        s.log_fd = -1;
    }
    sigaction(SIGINT, &old_int, nullptr);
    sigaction(SIGTERM, &old_term, nullptr);
    sigaction(SIGHUP, &old_hup, nullptr);
    const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

    std::vector<ShardFile> files;
    bool lost = false, all_bad_usage = true;
    for (const auto& s : shards) {
        all_bad_usage = all_bad_usage && s.exit_code == 2;
        if (std::filesystem::exists(s.out)) {
            files.push_back(ShardFile{s.out, load_results(s.out)});
        } else {
            lost = true;
            std::fprintf(stderr, "tribench: shard %d/%d (GPU %s) ended with exit status %d and no results; log: %s\n",
                         s.index, count, s.gpu.c_str(), s.exit_code, s.log.c_str());
        }
    }
    if (all_bad_usage) throw Error("every shard refused its command line (exit status 2; see above)");
    if (files.empty()) throw Error("no shard wrote results; logs in " + dir);

    MergeOptions mo;
    mo.allow_missing = lost;  // keep what the others measured; the lost shard's are listed as missing
    MergeOutcome m;
    try {
        m = merge_shards(files, mo);
    } catch (const Error& e) {
        throw Error("cannot merge the shards: " + std::string(e.what()) + " (shard files in " + dir + ")");
    }
    Results& r = m.merged;
    if (r.environment.is_object()) r.environment["command_line"] = o.argv;
    ReportInput table = run_report(r);
    table.color = isatty(STDOUT_FILENO);
    std::cout << render_report("console", table);
    if (!out.empty()) {
        save_results(out, r);
        std::cout << "results written to " << out << " (shards in " << dir << ")\n";
    }
    std::fprintf(stderr, "tribench: wall time %.1f s;", wall_s);
    for (const auto& s : shards)
        std::fprintf(stderr, " GPU %s %.1f s%s", s.gpu.c_str(), s.wall_s, &s == &shards.back() ? "\n" : ",");

    int failed = 0, skipped = 0;
    for (const auto& b : r.benchmarks) {
        failed += b.status == Status::ValidationFailed || b.status == Status::Error;
        skipped += b.status == Status::Skipped;
    }
    if (failed || skipped || lost)
        std::fprintf(stderr, "tribench: %d of %zu benchmarks failed, %d not run, %zu missing\n", failed,
                     r.benchmarks.size() + m.missing.size(), skipped, m.missing.size());
    if (temporary && !lost && !g_signal) std::filesystem::remove_all(dir, ec);
    if (g_signal) {
        std::fprintf(stderr, "tribench: stopped by %s; the shards' journals are in %s (docs/scale-out.md, \"Resuming\")\n",
                     signal_name(g_signal.load()), dir.c_str());
        return 128 + g_signal.load();
    }
    for (const auto& s : shards)
        if (s.exit_code == 129 || s.exit_code == 130 || s.exit_code == 143) return s.exit_code;
    return failed || skipped || lost ? 1 : 0;
}

}  // namespace tb
